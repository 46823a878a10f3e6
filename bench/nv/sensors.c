// SPDX-License-Identifier: MIT
/*
 * Device sensor benchmark (suite "rc", issue 16), on a model device opened
 * through the public API:
 *  - sensor_query: ns per full nvl_device_sensors() read (every field, its
 *    five controls in one multi control on the driver's subdevice, one
 *    queue page each way, or five in flight at once where the firmware
 *    has none); baseline
 *    rpc_roundtrip: ns per small GSP_RM_CONTROL (the model's 64-byte ECHO)
 *    through the same device's GSP, measured in the same run, interleaved
 *    with the reads so both see the same load. Target: ratio <= 2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nouvelle/nouvelle.h>

#include "bench.h"
#include "core/device.h"
#include "gsp/rm.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "nv/device.h"

struct sq {
	struct nvl_device *dev;
	int iters;
};

static double echo_sample(void *arg)
{
	struct sq *q = arg;
	struct nvl_nv_device *d = q->dev->nv;
	uint8_t p[64] = {0};
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < q->iters; i++)
		if (nvl_gsp_rm_control(d->gsp, d->h_subdevice,
				       NVL_MODEL_CTRL_CMD_ECHO, p, sizeof(p)))
			return -1;
	return (double)(nvl_bench_now_ns() - t0) / q->iters;
}

static double read_sample(void *arg)
{
	struct sq *q = arg;
	struct nvl_sensors s;
	int64_t t0 = nvl_bench_now_ns();

	for (int i = 0; i < q->iters; i++)
		if (nvl_device_sensors(q->dev, &s))
			return -1;
	nvl_bench_do_not_optimize(&s);
	return (double)(nvl_bench_now_ns() - t0) / q->iters;
}

NVL_BENCH(rc, sensor_query)
{
	int reps = nvl_bench_quick(ctx) ? 3 : 7;
	struct sq q = {.iters = nvl_bench_quick(ctx) ? 500 : 3000};
	double rd[7], rt[7];

	if (nvl_device_open(NULL, NULL, &q.dev))
		return -EIO;
	read_sample(&q); /* warm */
	for (int i = 0; i < reps; i++) {
		rt[i] = echo_sample(&q);
		rd[i] = read_sample(&q);
		if (rt[i] < 0 || rd[i] < 0)
			reps = 0; /* a call failed */
	}
	nvl_device_close(q.dev);
	if (!reps)
		return -EIO;
	nvl_bench_report_vs(ctx, "sensor_query", nvl_bench_median_of(rd, reps),
			    "ns", "rpc_roundtrip",
			    nvl_bench_median_of(rt, reps));
	return 0;
}
