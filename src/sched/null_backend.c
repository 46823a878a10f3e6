// SPDX-License-Identifier: MIT
/*
 * DOC: the null backend
 *
 * A ring is a FIFO of jobs "executing": each has a due time, max(now +
 * delay, previous job's due time), so jobs complete in ring order. A job
 * with delay 0 on an empty ring completes inside run_job() (its hardware
 * fence is returned already signalled). Other completions come from one
 * completion thread shared by every null ring (started with the first
 * ring, joined with the last). A hanging job blocks its ring, as a hung
 * engine would, until the timeout handler resets the ring.
 *
 * Hardware fences are embedded in the job (never allocated in run_job());
 * the job's memory goes with the fence's last reference (free_job drops
 * the ring's; the completion thread may still hold one while signalling).
 * After a reset run_job() returns the same, still unsignalled, fence again.
 */
#include <errno.h>
#include <pthread.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "sched/null_backend.h"
#include "sched/sched_internal.h"

struct nvl_sched_null {
	struct nvl_sched *sched;
	struct nvl_mutex lock;
	struct nvl_list inflight;
	struct nvl_list ring_node;
	uint64_t context;
	atomic_uint_fast64_t seqno;
	int64_t last_due;
	struct nvl_sched_null_args args;
	atomic_uint_fast64_t freed, runs, timeouts;
	atomic_uint max_credits;
	struct nvl_sched_event ev;
};

static NVL_LOCK_CLASS(null_ring_class, "sched_null_ring", 0);
static NVL_LOCK_CLASS(null_global_class, "sched_null_rings", 0);

static struct {
	pthread_mutex_t start_lock;
	struct nvl_mutex lock;
	struct nvl_list rings;
	struct nvl_sched_event ev;
	pthread_t thread;
	unsigned users;
	bool stopping;
} g = {.start_lock = PTHREAD_MUTEX_INITIALIZER};

static void complete_hw(struct nvl_fence *hw, int fail)
{
	if (fail)
		nvl_fence_set_error(hw, fail);
	nvl_fence_signal(hw);
}

static void *completion_main(void *arg)
{
	(void)arg;
	nvl_mutex_lock(&g.lock);
	while (!g.stopping) {
		int64_t now = nvl_time_ns(), next = NVL_TIMEOUT_INFINITE;
		struct nvl_sched_null *ring;
		uint32_t seq = nvl_sched_event_prepare(&g.ev);
		struct nvl_signalling_cookie cookie =
			nvl_fence_begin_signalling();

		nvl_list_for_each_entry (ring, &g.rings, ring_node) {
			for (;;) {
				struct nvl_sched_null_job *j;
				struct nvl_fence *hw;
				int fail;

				nvl_mutex_lock(&ring->lock);
				if (nvl_list_empty(&ring->inflight)) {
					nvl_mutex_unlock(&ring->lock);
					break;
				}
				j = nvl_list_first_entry(
					&ring->inflight,
					struct nvl_sched_null_job, node);
				if (j->hang || j->due_ns > now) {
					if (!j->hang && j->due_ns < next)
						next = j->due_ns;
					nvl_mutex_unlock(&ring->lock);
					break;
				}
				nvl_list_del(&j->node);
				j->on_ring = false;
				hw = nvl_fence_get(j->hw);
				fail = j->fail;
				nvl_mutex_unlock(&ring->lock);
				complete_hw(hw, fail);
				nvl_fence_put(hw);
			}
		}
		nvl_fence_end_signalling(cookie);
		nvl_mutex_unlock(&g.lock);
		nvl_sched_event_wait(&g.ev, seq, next);
		nvl_mutex_lock(&g.lock);
	}
	nvl_mutex_unlock(&g.lock);
	return NULL;
}

static int global_get(void)
{
	int ret = 0;

	pthread_mutex_lock(&g.start_lock);
	if (g.users == 0) {
		ret = nvl_might_alloc(64 * 1024);
		if (!ret) {
			nvl_mutex_init(&g.lock, &null_global_class);
			nvl_list_init(&g.rings);
			g.stopping = false;
			if (pthread_create(&g.thread, NULL, completion_main,
					   NULL)) {
				nvl_mutex_destroy(&g.lock);
				ret = -EAGAIN;
			}
		}
	}
	if (!ret)
		g.users++;
	pthread_mutex_unlock(&g.start_lock);
	return ret;
}

static void global_put(void)
{
	pthread_mutex_lock(&g.start_lock);
	if (--g.users == 0) {
		nvl_mutex_lock(&g.lock);
		g.stopping = true;
		nvl_mutex_unlock(&g.lock);
		nvl_sched_event_wake(&g.ev, true);
		pthread_join(g.thread, NULL);
		nvl_mutex_destroy(&g.lock);
	}
	pthread_mutex_unlock(&g.start_lock);
}

static struct nvl_sched_null_job *to_null(struct nvl_sched_job *job)
{
	return container_of(job, struct nvl_sched_null_job, base);
}

static struct nvl_fence *null_run_job(struct nvl_sched_job *job)
{
	struct nvl_sched_null_job *j = to_null(job);
	struct nvl_sched_null *ring = j->ring;
	uint32_t credits = nvl_sched_credit_count(ring->sched);
	unsigned max = atomic_load(&ring->max_credits);
	int64_t now;

	while (credits > max &&
	       !atomic_compare_exchange_weak(&ring->max_credits, &max, credits))
		;
	atomic_fetch_add(&j->runs, 1);
	atomic_fetch_add(&ring->runs, 1);
	if (ring->args.on_run)
		ring->args.on_run(j, ring->args.on_run_arg);
	if (j->submit_error) {
		nvl_sched_job_set_error(job, j->submit_error);
		return NULL;
	}
	if (nvl_fence_is_signaled(j->hw))
		return nvl_fence_get(j->hw);
	nvl_mutex_lock(&ring->lock);
	if (!j->hang && j->delay_ns == 0 && nvl_list_empty(&ring->inflight)) {
		nvl_mutex_unlock(&ring->lock);
		complete_hw(j->hw, j->fail);
		return nvl_fence_get(j->hw);
	}
	now = nvl_time_ns();
	j->due_ns = NVL_MAX(now + j->delay_ns, ring->last_due);
	if (!j->hang)
		ring->last_due = j->due_ns;
	nvl_list_add_tail(&j->node, &ring->inflight);
	j->on_ring = true;
	nvl_mutex_unlock(&ring->lock);
	nvl_sched_event_wake(&g.ev, false);
	return nvl_fence_get(j->hw);
}

static enum nvl_sched_stat null_timedout_job(struct nvl_sched_job *job)
{
	struct nvl_sched_null_job *j = to_null(job), *it, *tmp;
	struct nvl_sched_null *ring = j->ring;
	bool guilty_on_ring;

	atomic_fetch_add(&ring->timeouts, 1);
	nvl_sched_stop(ring->sched);
	nvl_sched_job_set_guilty(job, -ETIMEDOUT);
	/* Reset the ring: everything on it is forgotten. */
	nvl_mutex_lock(&ring->lock);
	guilty_on_ring = j->on_ring;
	nvl_list_for_each_entry_safe (it, tmp, &ring->inflight, node) {
		nvl_list_del(&it->node);
		it->on_ring = false;
	}
	ring->last_due = 0;
	nvl_mutex_unlock(&ring->lock);
	if (guilty_on_ring)
		complete_hw(j->hw, -ETIMEDOUT);
	nvl_sched_resubmit_jobs(ring->sched);
	nvl_sched_start(ring->sched);
	return NVL_SCHED_STAT_RESET;
}

static void null_cancel_job(struct nvl_sched_job *job)
{
	struct nvl_sched_null_job *j = to_null(job);
	struct nvl_sched_null *ring = j->ring;
	bool was = false;

	nvl_mutex_lock(&ring->lock);
	if (j->on_ring) {
		nvl_list_del(&j->node);
		j->on_ring = false;
		was = true;
	}
	nvl_mutex_unlock(&ring->lock);
	if (was)
		complete_hw(j->hw, -ECANCELED);
}

static void null_free_job(struct nvl_sched_job *job)
{
	struct nvl_sched_null_job *j = to_null(job);
	struct nvl_sched_null *ring = j->ring;
	bool was_on_ring = false;

	/* Cancelled by nvl_sched_start() while still "executing". */
	nvl_mutex_lock(&ring->lock);
	if (j->on_ring) {
		nvl_list_del(&j->node);
		j->on_ring = false;
		was_on_ring = true;
	}
	nvl_mutex_unlock(&ring->lock);
	if (was_on_ring)
		nvl_sched_event_wake(&g.ev, false);
	nvl_sched_job_cleanup(job);
	atomic_fetch_add(&ring->freed, 1);
	nvl_sched_event_wake(&ring->ev, true);
	nvl_fence_put(j->hw); /* frees @j with the last reference */
}

/* The job's memory lives as long as its hardware fence has references. */
static void hw_release(struct nvl_fence *f)
{
	nvl_free(container_of(f, struct nvl_sched_null_job, hw_fence));
}

static const struct nvl_fence_ops hw_ops = {
	.release = hw_release,
};

static const struct nvl_sched_backend_ops null_ops = {
	.run_job = null_run_job,
	.timedout_job = null_timedout_job,
	.free_job = null_free_job,
	.cancel_job = null_cancel_job,
};

int nvl_sched_null_create(const struct nvl_sched_null_args *args,
			  struct nvl_sched_null **out)
{
	struct nvl_sched_args sa;
	struct nvl_sched_null *ring;
	int ret;

	if (!args || !out)
		return nvl_error(-EINVAL, "sched_null: no arguments");
	ring = nvl_zalloc(sizeof(*ring));
	if (!ring)
		return nvl_error(-ENOMEM, "sched_null: no memory for a ring");
	ring->args = *args;
	nvl_mutex_init(&ring->lock, &null_ring_class);
	nvl_list_init(&ring->inflight);
	nvl_list_init(&ring->ring_node);
	ring->context = nvl_fence_context_alloc(1);
	sa = (struct nvl_sched_args){
		.ops = &null_ops,
		.credit_limit = args->credit_limit,
		.timeout_ns = args->timeout_ns,
		.name = args->name ? args->name : "null",
		.priv = ring,
		.flags = args->sched_flags,
	};
	ret = global_get();
	if (ret) {
		ret = nvl_error(ret, "sched_null: no completion thread");
		goto fail_global;
	}
	ret = nvl_sched_create(&sa, &ring->sched);
	if (ret)
		goto fail_sched;
	nvl_mutex_lock(&g.lock);
	nvl_list_add_tail(&ring->ring_node, &g.rings);
	nvl_mutex_unlock(&g.lock);
	*out = ring;
	return 0;

fail_sched:
	global_put();
fail_global:
	nvl_mutex_destroy(&ring->lock);
	nvl_free(ring);
	return ret;
}

void nvl_sched_null_destroy(struct nvl_sched_null *ring)
{
	if (!ring)
		return;
	nvl_sched_destroy(ring->sched);
	nvl_mutex_lock(&g.lock);
	nvl_list_del(&ring->ring_node);
	nvl_mutex_unlock(&g.lock);
	global_put();
	nvl_mutex_destroy(&ring->lock);
	nvl_free(ring);
}

struct nvl_sched *nvl_sched_null_sched(struct nvl_sched_null *ring)
{
	return ring->sched;
}

int nvl_sched_null_job_create(struct nvl_sched_null *ring,
			      struct nvl_sched_entity *entity, uint32_t credits,
			      int64_t delay_ns, struct nvl_sched_null_job **out)
{
	struct nvl_sched_null_job *j;
	int ret;

	j = nvl_zalloc(sizeof(*j));
	if (!j)
		return nvl_error(-ENOMEM, "sched_null: no memory for a job");
	ret = nvl_sched_job_init(&j->base, entity, credits, ring);
	if (ret) {
		nvl_free(j);
		return ret;
	}
	nvl_fence_init64(&j->hw_fence, &hw_ops, ring->context,
			 atomic_fetch_add(&ring->seqno, 1) + 1);
	j->hw = &j->hw_fence;
	j->ring = ring;
	j->delay_ns = delay_ns;
	nvl_list_init(&j->node);
	*out = j;
	return 0;
}

void nvl_sched_null_job_free(struct nvl_sched_null_job *job)
{
	nvl_sched_job_cleanup(&job->base);
	nvl_fence_put(job->hw); /* frees @job */
}

void nvl_sched_null_stats(struct nvl_sched_null *ring,
			  struct nvl_sched_null_stats *out)
{
	out->freed = atomic_load(&ring->freed);
	out->runs = atomic_load(&ring->runs);
	out->timeouts = atomic_load(&ring->timeouts);
	out->max_credits = atomic_load(&ring->max_credits);
}

int nvl_sched_null_wait_freed(struct nvl_sched_null *ring, uint64_t n,
			      int64_t timeout_ns)
{
	int64_t deadline = nvl_deadline_after(timeout_ns);

	for (;;) {
		uint32_t seq = nvl_sched_event_prepare(&ring->ev);

		if (atomic_load(&ring->freed) >= n) {
			nvl_sched_event_cancel(&ring->ev);
			return 0;
		}
		if (nvl_time_ns() >= deadline) {
			nvl_sched_event_cancel(&ring->ev);
			return -ETIME;
		}
		nvl_sched_event_wait(&ring->ev, seq, deadline);
	}
}
