/* SPDX-License-Identifier: MIT */
/*
 * The SM worker threads of the compute engine (pool.c): started once, by
 * the thread that launches grids, and woken per grid, as many as the grid
 * has parts beyond the one the launching thread runs itself.
 */
#ifndef NVL_MODEL_COMPUTE_POOL_H
#define NVL_MODEL_COMPUTE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define NVL_CS_POOL_MAX 63

/** struct nvl_cs_pool - worker threads and the parts of the running grid. */
struct nvl_cs_pool {
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	pthread_t thread[NVL_CS_POOL_MAX];
	unsigned nthreads; /* started */
	bool ok; /* lock and conditions initialised */
	bool quit;
	/* the running grid: parts [1, n), the next one to take, and how
	 * many are taken but not finished */
	void (*fn)(void *part);
	char *base;
	size_t stride;
	unsigned n, next, busy;
};

/** nvl_cs_pool_init() - an empty pool (no thread yet). Return: 0 or -ENOMEM. */
int nvl_cs_pool_init(struct nvl_cs_pool *p);

/** nvl_cs_pool_fini() - stop and join the threads of @p. */
void nvl_cs_pool_fini(struct nvl_cs_pool *p);

/**
 * nvl_cs_pool_run() - run @fn on the @n parts at @base (@stride bytes
 * apart) and return when every part is done: part 0 on the calling
 * thread, the others on @p's threads (started the first time they are
 * needed; n - 1 of them are woken), or on the calling thread for those no
 * thread took by the time it finished its own (a thread that could not be
 * started, or one not awake yet).
 */
void nvl_cs_pool_run(struct nvl_cs_pool *p, void (*fn)(void *part), void *base,
		     size_t stride, unsigned n);

#endif /* NVL_MODEL_COMPUTE_POOL_H */
