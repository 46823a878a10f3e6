// SPDX-License-Identifier: MIT
/*
 * TEST: sched_audit
 * Description: regressions from an adversarial review of the scheduler
 * (session 18): a timeout that expires while another thread holds the run
 * token (a direct run, or a worker running jobs) waits for the token
 * instead of spinning a pool worker on it.
 */
#include <sys/resource.h>

#include "sched_t.h"

#define MS NVL_NSEC_PER_MSEC

static int64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NVL_NSEC_PER_SEC +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * NVL_NSEC_PER_USEC;
}

static void slow_run(struct nvl_sched_null_job *job, void *arg)
{
	(void)arg;
	if (job->tag == 1 || job->tag == 2)
		t_sleep_ms(400);
}

/*
 * The job's run_job() takes 400 ms (a bounded wait in the backend) on the
 * pushing thread, which holds the run token; the 10 ms timeout expires
 * meanwhile. The timeout handler found the token taken and queued itself
 * again at once: a pool worker spun on the scheduler for the whole run
 * (hundreds of ms of CPU). It now leaves the timeout to the token's
 * release, which still handles it: a job that hangs after such a run
 * times out.
 */
static void timeout_while_the_token_is_held_does_not_spin(void **state)
{
	struct nvl_sched_null_args a = {
		.credit_limit = 4,
		.timeout_ns = 10 * MS,
		.name = "slow",
		.on_run = slow_run,
	};
	struct nvl_sched_null *r = NULL;
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;
	struct nvl_fence *f;
	int64_t cpu0, cpu;

	(void)state;
	assert_int_equal(nvl_sched_null_create(&a, &r), 0);
	t_entity(&e, NVL_SCHED_PRIO_NORMAL, r);
	cpu0 = cpu_ns();
	f = t_arm_push(t_job(r, &e, 1, 0, 1)); /* runs here, 400 ms */
	cpu = cpu_ns() - cpu0;
	assert_true(cpu < 40 * MS);
	assert_int_equal(t_wait(f), 1);
	nvl_fence_put(f);

	/* the timeout left to the release still fires: a job that hangs
	 * once its slow run_job() returned times out */
	j = t_job(r, &e, 1, 0, 2);
	j->hang = true;
	f = t_arm_push(j);
	assert_int_equal(t_wait(f), -ETIMEDOUT);
	nvl_fence_put(f);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(r);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(timeout_while_the_token_is_held_does_not_spin),
};

T_MAIN(tests)
