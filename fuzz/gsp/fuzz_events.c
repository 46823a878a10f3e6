// SPDX-License-Identifier: MIT
/*
 * Fuzz target: events from a hostile GSP, through the whole receive path
 * of a booted device into the event handlers' payload parsing.
 *
 * One "model:tiny" device is opened for the process (its GSP booted), with
 * a sensor subscription (so POST_EVENT has its handler) beside the fault
 * handlers every device has (MMU_FAULT_QUEUED, RC_TRIGGERED, OS_ERROR_LOG),
 * and one copy channel for an RC event to kill (made again after a kill).
 * An input is a list of messages the model's firmware sends unchecked
 * (nvl_model_gsp_event_raw()), each:
 *   byte 0: bit 6 clear: function 0x1000 + bits 4:0 (the event numbers
 *           of every version: INIT_DONE, RUN_CPU_SEQUENCER, POST_EVENT,
 *           RC_TRIGGERED, MMU_FAULT_QUEUED, OS_ERROR_LOG, ..., perf
 *           and other events no handler takes); bit 6 set: the next 4
 *           bytes are the function, any number (replies nobody asked for
 *           included);
 *   then a little-endian 16-bit length and that many payload bytes (at
 *   most what is left; the model takes up to 512).
 * Then nvl_gsp_event_flush() waits until every handler has run.
 *
 * Invariants: no crash, no sanitizer report, no hang (the flush returns in
 * time) and the device is not lost: no event content kills the device; a
 * channel an event killed says why (nvl_channel_info.error < 0).
 *
 * Except the CPU sequencer: its handler stays registered from the boot to
 * the unload, and its commands reset and start the GSP's core, which the
 * firmware may ask for (the first minute of fuzzing found it: CORE_RESET,
 * the GSP starts over, the driver finds it stopped and the device lost).
 * After an input with a RUN_CPU_SEQUENCER (or the one after it: the loss
 * may be found later) a lost device must come back with
 * nvl_device_reset(); the client is made anew.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nouvelle/nouvelle.h>

#include "base/compiler.h"
#include "base/time.h"
#include "core/device.h"
#include "gsp/gsp.h"
#include "gspabi.h"
#include "model/gsp/gsp.h"
#include "nv/device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MSGS 16

static struct nvl_device *dev;
static struct nvl_device_sensor_sub *sub;
static struct nvl_client *client;
static uint32_t vm, chan;
static unsigned long crossings;
/* a sequencer was sent since the device was last found alive after an
 * input without one */
static bool seq_sent;

static void on_sensor(void *arg, enum nvl_sensor_event event)
{
	(void)arg;
	(void)event;
	crossings++;
}

static void teardown(void)
{
	nvl_client_destroy(client);
	nvl_device_sensors_unsubscribe(dev, sub);
	nvl_device_close(dev);
}

/* a client with a VM and a copy channel */
static void client_up(void)
{
	struct nvl_vm_create_args va = {.start = 1ull << 20,
					.end = 1ull << 40,
					.kernel_start = 1ull << 39,
					.kernel_range = 16ull << 20};

	if (nvl_device_client_create(dev, &client) ||
	    nvl_vm_create(client, &va, &vm) ||
	    nvl_channel_create(client, vm, NVL_ENGINE_COPY, 0, &chan))
		abort();
}

static void setup_once(void)
{
	if (dev)
		return;
	if (nvl_device_open("model:tiny", NULL, &dev) ||
	    nvl_device_sensors_subscribe(
		    dev, NVL_SENSOR_EVENT_THERMAL | NVL_SENSOR_EVENT_POWER_CAP,
		    on_sensor, NULL, &sub))
		abort();
	client_up();
	atexit(teardown);
}

/* a channel an event killed says why, and is made again */
static void check_channel(void)
{
	struct nvl_channel_info info;

	if (nvl_channel_query(client, chan, &info))
		abort();
	if (info.alive)
		return;
	if (info.error >= 0)
		abort();
	if (nvl_channel_destroy(client, chan) ||
	    nvl_channel_create(client, vm, NVL_ENGINE_COPY, 0, &chan))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_gsp *gsp;
	bool seq = false;

	setup_once();
	gsp = dev->nv->gsp;
	for (int n = 0; n < MAX_MSGS && size >= 3; n++) {
		uint32_t function = 0x1000u + (data[0] & 0x1f);
		size_t len;

		if (data[0] & 0x40) {
			if (size < 7)
				break;
			memcpy(&function, data + 1, 4);
			data += 4;
			size -= 4;
		}
		len = NVL_MIN((size_t)(data[1] | data[2] << 8), size - 3);
		seq |= function == GSPABI_K_EVENT_GSP_RUN_CPU_SEQUENCER;
		/* a full backlog drops it, as a firmware would have to */
		(void)nvl_model_gsp_event_raw(dev->model, function, data + 3,
					      NVL_MIN(len, (size_t)512));
		data += 3 + len;
		size -= 3 + len;
	}
	seq_sent |= seq;
	if (nvl_gsp_event_flush(gsp, 10 * NVL_NSEC_PER_SEC) ||
	    nvl_device_status(dev)) {
		/* the firmware reset its own core: the heartbeat finds the
		 * device lost (bounded: 20 s), a reset brings it back */
		for (int i = 0; seq_sent && i < 2000 && !nvl_device_status(dev);
		     i++)
			usleep(10000);
		if (!seq_sent || !nvl_device_status(dev))
			abort();
		nvl_client_destroy(client);
		if (nvl_device_reset(dev))
			abort();
		client_up();
		seq_sent = false;
		return 0;
	}
	if (!seq)
		seq_sent = false;
	check_channel();
	return 0;
}
