// SPDX-License-Identifier: MIT
/*
 * Demo step "scheduler": one null ring (4 credits, 60 ms timeout) shared by
 * four clients at different priorities, with dependencies across them, and
 * one client whose job hangs: the timeout fires, the hung job is marked
 * guilty, its client is banned, the innocent jobs behind it are resubmitted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "demo.h"
#include "base/time.h"
#include "sched/null_backend.h"
#include "sched/sched.h"

#define MS NVL_NSEC_PER_MSEC
#define NJOBS 10

static const char *const prio_names[] = {"KERNEL", "HIGH", "NORMAL", "LOW"};

struct demo_job {
	const char *client;
	int prio;
	const char *what;
	int64_t delay_ns;
	int dep; /* index of a job it waits for, or -1 */
	bool hang;
};

static const struct demo_job demo_jobs[NJOBS] = {
	{"buggy-app", 2, "shader that never ends", 5 * MS, -1, true},
	{"game", 2, "draw frame 1", 4 * MS, -1, false},
	{"mm", 0, "copy texture to VRAM", 3 * MS, -1, false},
	{"game", 2, "draw frame 2 (needs texture)", 4 * MS, 2, false},
	{"compositor", 1, "compose (needs frame 2)", 1 * MS, 3, false},
	{"indexer", 3, "thumbnail batch", 2 * MS, -1, false},
	{"buggy-app", 2, "second submission", 1 * MS, -1, false},
	{"mm", 0, "clear new buffer", 1 * MS, -1, false},
	{"compositor", 1, "compose next", 1 * MS, 4, false},
	{"indexer", 3, "thumbnail batch 2", 2 * MS, 5, false},
};

static int64_t t0;
static int64_t run_ts[64];
static uint64_t run_tag[64];
static _Atomic unsigned nrun;

static void on_run(struct nvl_sched_null_job *job, void *arg)
{
	unsigned i = atomic_fetch_add(&nrun, 1);

	(void)arg;
	if (i < 64) {
		run_ts[i] = nvl_time_ns();
		run_tag[i] = job->tag;
	}
}

static const char *const clients[] = {"buggy-app", "game", "mm", "compositor",
				      "indexer"};
static const int client_prio[] = {2, 2, 0, 1, 3};

static int client_index(const char *name)
{
	for (int i = 0; i < 5; i++)
		if (!strcmp(clients[i], name))
			return i;
	return 0;
}

NVL_DEMO_STEP(20, scheduler)
{
	struct nvl_sched_null_args a = {.credit_limit = 4,
					.timeout_ns = 60 * MS,
					.name = "gfx",
					.on_run = on_run};
	struct nvl_sched_null *ring;
	struct nvl_sched_entity ents[5];
	struct nvl_fence *fin[NJOBS];
	struct nvl_sched *sched;
	struct nvl_sched_null_stats st;
	int ret;

	ret = nvl_sched_null_create(&a, &ring);
	if (ret)
		return ret;
	sched = nvl_sched_null_sched(ring);
	printf("  ring 'gfx': 4 credits, timeout 60 ms without progress; "
	       "5 clients:\n");
	for (int i = 0; i < 5; i++) {
		ret = nvl_sched_entity_init(&ents[i], client_prio[i], sched);
		if (ret)
			return ret;
		printf("    %-10s priority %s\n", clients[i],
		       prio_names[client_prio[i]]);
	}
	/* Queue everything while the ring is stopped so priorities show. */
	nvl_sched_stop(sched);
	t0 = nvl_time_ns();
	for (int i = 0; i < NJOBS; i++) {
		const struct demo_job *d = &demo_jobs[i];
		struct nvl_sched_null_job *j;

		ret = nvl_sched_null_job_create(ring,
						&ents[client_index(d->client)],
						1, d->delay_ns, &j);
		if (ret)
			return ret;
		j->tag = i;
		j->hang = d->hang;
		if (d->dep >= 0)
			ret = nvl_sched_job_add_dependency(
				&j->base, nvl_fence_get(fin[d->dep]));
		if (!ret)
			ret = nvl_sched_job_arm(&j->base);
		if (ret) {
			nvl_sched_null_job_free(j);
			return ret;
		}
		fin[i] = nvl_fence_get(nvl_sched_job_finished(&j->base));
		ret = nvl_sched_entity_push_job(&j->base);
		if (ret)
			return ret;
		if (d->dep >= 0)
			printf("  push #%d %-10s %-30s waits for #%d\n", i,
			       d->client, d->what, d->dep);
		else
			printf("  push #%d %-10s %s%s\n", i, d->client, d->what,
			       d->hang ? " (will hang)" : "");
	}
	nvl_sched_start(sched);
	for (int i = 0; i < NJOBS; i++)
		nvl_fence_wait(fin[i], 2 * NVL_NSEC_PER_SEC);

	printf("  run order (run_job calls; credits allow 4 jobs at once):\n");
	for (unsigned i = 0; i < atomic_load(&nrun) && i < 64; i++) {
		const struct demo_job *d = &demo_jobs[run_tag[i]];
		bool again = false;

		for (unsigned k = 0; k < i; k++)
			again = again || run_tag[k] == run_tag[i];
		printf("    %6.1f ms  run #%llu %-10s %-8s %s%s\n",
		       (run_ts[i] - t0) / 1e6, (unsigned long long)run_tag[i],
		       d->client, prio_names[d->prio], d->what,
		       again ? "  <- resubmitted after the reset" : "");
	}
	printf("  results:\n");
	for (int i = 0; i < NJOBS; i++) {
		int s = nvl_fence_get_status(fin[i]);

		printf("    #%d %-10s %6.1f ms  %s\n", i, demo_jobs[i].client,
		       s ? (nvl_fence_timestamp(fin[i]) - t0) / 1e6 : 0.0,
		       s == 1	? "ok"
		       : s == 0 ? "PENDING"
				: strerror(-s));
	}
	nvl_sched_null_stats(ring, &st);
	{
		struct nvl_sched_null_job *j;
		int push_ret;

		ret = nvl_sched_null_job_create(ring, &ents[0], 1, 0, &j);
		if (ret)
			return ret;
		ret = nvl_sched_job_arm(&j->base);
		if (ret)
			return ret;
		push_ret = nvl_sched_entity_push_job(&j->base);
		nvl_sched_null_job_free(j);
		printf("  timeouts: %llu; 'buggy-app' is %s: a new push "
		       "returns %s; the others keep running\n",
		       (unsigned long long)st.timeouts,
		       nvl_sched_entity_error(&ents[0]) ? "banned" : "fine",
		       push_ret ? strerror(-push_ret) : "0 (wrong!)");
		if (push_ret != -ECANCELED)
			return -EIO;
	}

	ret = 0;
	for (int i = 0; i < NJOBS; i++) {
		int s = nvl_fence_get_status(fin[i]);
		bool want_err = !strcmp(demo_jobs[i].client, "buggy-app");

		if (s == 0 || (want_err ? s == 1 : s != 1))
			ret = -EIO;
		nvl_fence_put(fin[i]);
	}
	for (int i = 0; i < 5; i++)
		nvl_sched_entity_fini(&ents[i]);
	nvl_sched_null_destroy(ring);
	return ret;
}
