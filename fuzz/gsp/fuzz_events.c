// SPDX-License-Identifier: MIT
/*
 * Fuzz target: events from a hostile GSP, through the whole receive path
 * of a booted device into the event handlers' payload parsing.
 *
 * One "model:tiny" device is opened for the process (its GSP booted), with
 * a sensor subscription (so POST_EVENT has its handler) beside the fault
 * handlers every device has (MMU_FAULT_QUEUED, RC_TRIGGERED, OS_ERROR_LOG).
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
 * time) and the device is not lost: no event content kills the device.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "base/compiler.h"
#include "base/time.h"
#include "core/device.h"
#include "gsp/gsp.h"
#include "model/gsp/gsp.h"
#include "nv/device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MSGS 16

static struct nvl_device *dev;
static struct nvl_device_sensor_sub *sub;
static unsigned long crossings;

static void on_sensor(void *arg, enum nvl_sensor_event event)
{
	(void)arg;
	(void)event;
	crossings++;
}

static void teardown(void)
{
	nvl_device_sensors_unsubscribe(dev, sub);
	nvl_device_close(dev);
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
	atexit(teardown);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_gsp *gsp;

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
		/* a full backlog drops it, as a firmware would have to */
		(void)nvl_model_gsp_event_raw(dev->model, function, data + 3,
					      NVL_MIN(len, (size_t)512));
		data += 3 + len;
		size -= 3 + len;
	}
	if (nvl_gsp_event_flush(gsp, 10 * NVL_NSEC_PER_SEC) ||
	    nvl_device_status(dev))
		abort();
	return 0;
}
