// SPDX-License-Identifier: MIT
/*
 * The driver's deferred worker (nv/work.h): a FIFO of work items served by
 * one thread. Its queue lock is a leaf: nothing allocates or waits under it
 * except the worker and flushers on their condition variables.
 */
#include <errno.h>
#include <pthread.h>

#include "base/log.h"
#include "nv/work.h"

static struct {
	pthread_mutex_t start_lock; /* users, thread start and join */
	unsigned users;
	pthread_t thread;
	pthread_mutex_t lock; /* everything below */
	pthread_cond_t cond, done;
	struct nvl_list queue;
	struct nvl_nv_work *cur;
	bool stop;
} w = {
	.start_lock = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.queue = {&w.queue, &w.queue},
};

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&w.lock);
	for (;;) {
		struct nvl_nv_work *it;

		if (nvl_list_empty(&w.queue)) {
			if (w.stop)
				break;
			pthread_cond_wait(&w.cond, &w.lock);
			continue;
		}
		it = nvl_list_first_entry(&w.queue, struct nvl_nv_work, node);
		nvl_list_del(&it->node);
		it->queued = false;
		w.cur = it;
		pthread_mutex_unlock(&w.lock);
		it->fn(it);
		pthread_mutex_lock(&w.lock);
		w.cur = NULL;
		pthread_cond_broadcast(&w.done);
	}
	pthread_mutex_unlock(&w.lock);
	return NULL;
}

int nvl_nv_work_get(void)
{
	int ret = 0;

	pthread_mutex_lock(&w.start_lock);
	if (!w.users) {
		w.stop = false;
		ret = -pthread_create(&w.thread, NULL, worker, NULL);
	}
	if (!ret)
		w.users++;
	pthread_mutex_unlock(&w.start_lock);
	if (ret)
		return nvl_error(ret, "driver: no worker thread (%d)", ret);
	return 0;
}

void nvl_nv_work_put(void)
{
	pthread_mutex_lock(&w.start_lock);
	if (!--w.users) {
		pthread_mutex_lock(&w.lock);
		w.stop = true;
		pthread_cond_signal(&w.cond);
		pthread_mutex_unlock(&w.lock);
		pthread_join(w.thread, NULL);
	}
	pthread_mutex_unlock(&w.start_lock);
}

bool nvl_nv_work_queue(struct nvl_nv_work *it)
{
	bool ret = false;

	pthread_mutex_lock(&w.lock);
	if (!it->queued) {
		it->queued = true;
		nvl_list_add_tail(&it->node, &w.queue);
		pthread_cond_signal(&w.cond);
		ret = true;
	}
	pthread_mutex_unlock(&w.lock);
	return ret;
}

void nvl_nv_work_flush(struct nvl_nv_work *it)
{
	pthread_mutex_lock(&w.lock);
	while (it->queued || w.cur == it)
		pthread_cond_wait(&w.done, &w.lock);
	pthread_mutex_unlock(&w.lock);
}
