/* SPDX-License-Identifier: MIT */
/*
 * A deferred worker for the driver: work that may allocate and wait (GSP
 * RPCs) queued from where that is not allowed (a fence-signalling
 * section, e.g. the scheduler's timedout_job). One thread per process,
 * started by its first user and stopped with its last.
 */
#ifndef NVL_NV_WORK_H
#define NVL_NV_WORK_H

#include <stdbool.h>

#include "base/list.h"

/**
 * struct nvl_nv_work - a work item; embed it. @fn runs on the worker.
 */
struct nvl_nv_work {
	struct nvl_list node;
	void (*fn)(struct nvl_nv_work *w);
	bool queued;
};

/**
 * nvl_nv_work_get() - become a user of the worker (start it if needed).
 * Return: 0; a negative errno if the thread cannot be started.
 */
int nvl_nv_work_get(void);

/** nvl_nv_work_put() - stop being a user (the last one joins the thread). */
void nvl_nv_work_put(void);

/**
 * nvl_nv_work_queue() - run @w->fn on the worker soon. Allocates nothing
 * and never blocks for long: callable in a signalling section.
 * Return: true if queued, false if it already was.
 */
bool nvl_nv_work_queue(struct nvl_nv_work *w);

/** nvl_nv_work_flush() - wait until @w is neither queued nor running. */
void nvl_nv_work_flush(struct nvl_nv_work *w);

#endif /* NVL_NV_WORK_H */
