// SPDX-License-Identifier: MIT
/*
 * DOC: SM worker threads
 *
 * A grid of more CTAs than one is dealt to the model's compute_sms SM
 * workers. They used to be threads created and joined per launch (tens of
 * microseconds, and each new thread allocated its interpreter buffers
 * again); now the thread that launches grids (a runlist thread) keeps
 * them: a worker sleeps on a condition variable until a grid has a part
 * for it, and only as many are woken as the grid has parts beyond the
 * launcher's own. A part no worker has taken by the time the launcher
 * finished its own runs on the launcher, so a grid never waits for a
 * thread to be scheduled or started.
 */
#include <errno.h>

#include "model/compute/pool.h"

/* take the next part and run it; the caller holds the lock */
static void run_one_locked(struct nvl_cs_pool *p)
{
	unsigned i = p->next++;

	p->busy++;
	pthread_mutex_unlock(&p->lock);
	p->fn(p->base + p->stride * i);
	pthread_mutex_lock(&p->lock);
	if (!--p->busy && p->next >= p->n)
		pthread_cond_signal(&p->done);
}

static void *worker_main(void *arg)
{
	struct nvl_cs_pool *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && p->next >= p->n)
			pthread_cond_wait(&p->go, &p->lock);
		if (p->quit)
			break;
		run_one_locked(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int nvl_cs_pool_init(struct nvl_cs_pool *p)
{
	*p = (struct nvl_cs_pool){0};
	if (pthread_mutex_init(&p->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&p->go, NULL)) {
		pthread_mutex_destroy(&p->lock);
		return -ENOMEM;
	}
	if (pthread_cond_init(&p->done, NULL)) {
		pthread_cond_destroy(&p->go);
		pthread_mutex_destroy(&p->lock);
		return -ENOMEM;
	}
	p->ok = true;
	return 0;
}

void nvl_cs_pool_fini(struct nvl_cs_pool *p)
{
	if (!p->ok)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->thread[i], NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->go);
	pthread_mutex_destroy(&p->lock);
	p->ok = false;
}

void nvl_cs_pool_run(struct nvl_cs_pool *p, void (*fn)(void *part), void *base,
		     size_t stride, unsigned n)
{
	if (n <= 1 || !p->ok) {
		for (unsigned i = 0; i < n; i++)
			fn((char *)base + stride * i);
		return;
	}
	/* threads for parts 1..n-1 (on failure: fewer, the launcher runs
	 * the rest) */
	while (p->nthreads < n - 1 && p->nthreads < NVL_CS_POOL_MAX &&
	       !pthread_create(&p->thread[p->nthreads], NULL, worker_main, p))
		p->nthreads++;
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->base = base;
	p->stride = stride;
	p->n = n;
	p->next = 1;
	for (unsigned i = 1; i < n && i <= p->nthreads; i++)
		pthread_cond_signal(&p->go);
	pthread_mutex_unlock(&p->lock);

	fn(base);

	pthread_mutex_lock(&p->lock);
	while (p->next < p->n)
		run_one_locked(p);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	p->n = 0;
	p->next = 0;
	pthread_mutex_unlock(&p->lock);
}
