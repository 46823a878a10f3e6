// SPDX-License-Identifier: MIT
/*
 * TEST: syncobj_audit
 * Description: regressions from an adversarial review of the syncobj uAPI
 * against the kernel's rules: a wait-all whose later entry has no fence
 * fails with -EINVAL at once (it does not first wait for the entries
 * before it); an error carried by a fence survives a transfer or a
 * sync-file import into a timeline point (nvl_syncobj_status() reports it);
 * a NULL client, a status without a fence; and every wait path against a
 * reference model of the kernel's rules.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <nouvelle/core.h>

#include "t.h"
#include "synckit.h"
#include "../sched/sched_t.h"
#include "base/client.h"
#include "base/time.h"
#include "sync/fence_array.h"
#include "sync/sync_file.h"
#include "sync/syncobj.h"
#include "sync/syncobj_priv.h"

/*
 * The kernel's first pass fails the whole call when any entry has no fence
 * (without FOR_SUBMIT/AVAILABLE), before anything waits. An entry with a
 * pending timeline point first in the list made the fences path wait for it
 * (to the deadline: -ETIME) before it looked at the entry without a fence.
 */
static void wait_all_missing_fence_after_pending_point_is_einval(void **state)
{
	struct nvl_client *c = client();
	struct nvl_fence *f = pending_fence(), *stub;
	uint32_t h[2] = {mk(c, 0), mk(c, 0)};
	uint64_t p[2] = {1, 0};

	add_point(c, h[0], f, 1);
	/* entry 1: binary, no fence */
	assert_int_equal(
		nvl_syncobj_wait(c, h, p, 2,
				 nvl_time_ns() + 200 * NVL_NSEC_PER_MSEC,
				 NVL_SYNCOBJ_WAIT_ALL, NULL),
		-EINVAL);
	/* entry 1: a point not submitted yet */
	p[1] = 3;
	stub = nvl_fence_get_stub();
	add_point(c, h[1], stub, 1);
	nvl_fence_put(stub);
	assert_int_equal(
		nvl_syncobj_wait(c, h, p, 2,
				 nvl_time_ns() + 200 * NVL_NSEC_PER_MSEC,
				 NVL_SYNCOBJ_WAIT_ALL, NULL),
		-EINVAL);
	/* and nothing changed: entry 1 at point 1 waits fine once f signals */
	p[1] = 1;
	assert_int_equal(
		nvl_syncobj_wait(c, h, p, 2, 0, NVL_SYNCOBJ_WAIT_ALL, NULL),
		-ETIME);
	nvl_fence_signal(f);
	assert_int_equal(
		nvl_syncobj_wait(c, h, p, 2, 0, NVL_SYNCOBJ_WAIT_ALL, NULL), 0);
	nvl_fence_put(f);
	nvl_client_destroy(c);
}

static struct nvl_fence *errored_fence(int err)
{
	struct nvl_fence *f = pending_fence();

	nvl_fence_set_error(f, err);
	nvl_fence_signal(f);
	return f;
}

/*
 * A point whose fence ended with an error keeps that error when it is
 * transferred to (or imported as) another timeline point: flattening the
 * source dropped every signalled leaf, so the new point wrapped the
 * signalled stub and nvl_syncobj_status() said 1 where the source said
 * -EFAULT (an exec's fault, docs/faults.md, lost on the way to a consumer).
 */
static void transfer_to_a_point_keeps_the_error(void **state)
{
	struct nvl_client *c = client();
	struct nvl_fence *bad = errored_fence(-EFAULT),
			 *other = pending_fence();
	uint32_t src = mk(c, 0), dst = mk(c, 0), h2 = mk(c, 0);
	int st = 0;

	add_point(c, src, bad, 1);
	assert_int_equal(nvl_syncobj_status(c, src, 1, &st), 0);
	assert_int_equal(st, -EFAULT);
	assert_int_equal(nvl_syncobj_transfer(c, dst, 1, src, 1, 0), 0);
	assert_int_equal(nvl_syncobj_status(c, dst, 1, &st), 0);
	assert_int_equal(st, -EFAULT);
	/* a binary destination takes the node itself, as before */
	assert_int_equal(nvl_syncobj_transfer(c, h2, 0, src, 1, 0), 0);
	assert_int_equal(nvl_syncobj_status(c, h2, 0, &st), 0);
	assert_int_equal(st, -EFAULT);

	/* the errored point behind a pending one of another context: the
	 * new point waits for both and then reports the error */
	add_point(c, h2, other, 5);
	add_point(c, h2, bad, 6);
	assert_int_equal(nvl_syncobj_transfer(c, dst, 2, h2, 6, 0), 0);
	assert_int_equal(nvl_syncobj_status(c, dst, 2, &st), 0);
	assert_int_equal(st, 0);
	nvl_fence_signal(other);
	assert_int_equal(nvl_syncobj_status(c, h2, 6, &st), 0);
	assert_int_equal(st, -EFAULT);
	assert_int_equal(nvl_syncobj_status(c, dst, 2, &st), 0);
	assert_int_equal(st, -EFAULT);
	/* an error-free source still ends as the plain signalled stub */
	assert_int_equal(nvl_syncobj_transfer(c, dst, 3, h2, 5, 0), 0);
	assert_int_equal(nvl_syncobj_status(c, dst, 3, &st), 0);
	assert_int_equal(st, 1);
	nvl_fence_put(bad);
	nvl_fence_put(other);
	nvl_client_destroy(c);
}

/* Same through a sync file of the point, imported as a timeline point. */
static void sync_file_import_to_a_point_keeps_the_error(void **state)
{
	struct nvl_client *c = client();
	struct nvl_fence *bad = errored_fence(-ECANCELED);
	uint32_t src = mk(c, 0), h = mk(c, 0);
	int fd = -1, st = 0;

	add_point(c, src, bad, 1);
	assert_int_equal(nvl_syncobj_export_sync_file(c, src, 1, &fd), 0);
	assert_int_equal(nvl_syncobj_import_sync_file(c, h, 4, fd), 0);
	assert_int_equal(nvl_syncobj_status(c, h, 4, &st), 0);
	assert_int_equal(st, -ECANCELED);
	close(fd);
	nvl_fence_put(bad);
	nvl_client_destroy(c);
}

/*
 * A NULL client is bad input (-EINVAL) for every syncobj call; export to a
 * sync file alone said -ENOENT (its handle lookup found nothing).
 */
static void null_client_is_einval_everywhere(void **state)
{
	uint32_t h = 1, out = 0;
	uint64_t p = 1;
	int fd = -1, st = 0;

	assert_int_equal(nvl_syncobj_export_sync_file(NULL, 1, 0, &fd),
			 -EINVAL);
	assert_int_equal(fd, -1);
	assert_int_equal(nvl_syncobj_import_sync_file(NULL, 1, 0, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_handle_to_fd(NULL, 1, &fd), -EINVAL);
	assert_int_equal(nvl_syncobj_fd_to_handle(NULL, 0, &out), -EINVAL);
	assert_int_equal(nvl_syncobj_transfer(NULL, 1, 0, 2, 0, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_status(NULL, 1, 0, &st), -EINVAL);
	assert_int_equal(nvl_syncobj_query(NULL, &h, &p, 1, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_eventfd(NULL, 1, 0, 0, 0), -EINVAL);
	assert_int_equal(nvl_syncobj_wait(NULL, &h, NULL, 1, 0, 0, NULL),
			 -EINVAL);
	assert_int_equal(nvl_syncobj_destroy(NULL, 1), -EINVAL);
	assert_int_equal(nvl_syncobj_create(NULL, 0, &out), -EINVAL);
	assert_int_equal(nvl_syncobj_timeline_signal(NULL, &h, &p, 1), -EINVAL);
	assert_int_equal(nvl_syncobj_signal(NULL, &h, 1), -EINVAL);
	assert_int_equal(nvl_syncobj_reset(NULL, &h, 1), -EINVAL);
}

/*
 * nvl_syncobj_status() (sync.h): -ENOENT for no such syncobj "or no fence
 * there"; a binary syncobj without a fence, a point not submitted and a
 * point on a binary syncobj said -EINVAL, the answer for bad arguments.
 */
static void status_without_a_fence_is_enoent(void **state)
{
	struct nvl_client *c = client();
	uint32_t h = mk(c, 0), tl = mk(c, 0), sig = mk(c, 1);
	struct nvl_fence *stub = nvl_fence_get_stub();
	int st = 42;

	assert_int_equal(nvl_syncobj_status(c, h, 0, &st), -ENOENT);
	assert_int_equal(nvl_syncobj_status(c, tl, 3, &st), -ENOENT);
	assert_int_equal(nvl_syncobj_status(c, sig, 2, &st), -ENOENT);
	assert_int_equal(nvl_syncobj_status(c, 99, 0, &st), -ENOENT);
	assert_int_equal(st, 42);
	assert_int_equal(nvl_syncobj_status(c, h, 0, NULL), -EINVAL);
	/* a submitted point answers */
	add_point(c, tl, stub, 3);
	nvl_fence_put(stub);
	assert_int_equal(nvl_syncobj_status(c, tl, 3, &st), 0);
	assert_int_equal(st, 1);
	nvl_client_destroy(c);
}

/* ---- wait against a reference model of the kernel's rules ---- */

/* a syncobj in a random state: no fence, a binary fence (pending,
 * signalled, errored) or 1..3 timeline points (some unordered) */
static void random_syncobj(struct nvl_client *c, uint32_t h, uint64_t *rs,
			   struct nvl_fence **keep, unsigned *nkeep)
{
	struct nvl_syncobj *o = nvl_syncobj_find(c, h);
	unsigned kind = t_rand(rs) % 4;
	uint64_t p = 0;

	if (kind == 1 || kind == 2) {
		struct nvl_fence *f = pending_fence();

		if (kind == 2 || t_rand(rs) % 2) {
			if (t_rand(rs) % 3 == 0)
				nvl_fence_set_error(f, -EIO);
			nvl_fence_signal(f);
		}
		nvl_syncobj_replace_fence(o, f);
		keep[(*nkeep)++] = f;
	}
	for (unsigned k = 0; kind == 3 && k < 1 + t_rand(rs) % 3; k++) {
		struct nvl_fence *f = pending_fence();

		p = (t_rand(rs) % 2 && p > 2) ? p - 2 : p + 1 + t_rand(rs) % 2;
		if (t_rand(rs) % 2)
			nvl_fence_signal(f);
		nvl_syncobj_add_point(o, nvl_fence_chain_alloc(), f, p);
		keep[(*nkeep)++] = f;
	}
	nvl_syncobj_put(o);
}

/*
 * The kernel's answer for a wait that cannot be woken during the call:
 * unknown handle -ENOENT; an entry without a fence -EINVAL unless
 * FOR_SUBMIT/AVAILABLE; else done when all (any) entries are done, with
 * the lowest done index; else -ETIME.
 */
static int model_wait(struct nvl_client *c, const uint32_t *h,
		      const uint64_t *pts, uint32_t n, uint32_t flags,
		      uint32_t *first)
{
	bool unknown = false, missing = false;
	uint32_t done = 0;

	*first = UINT32_MAX;
	if ((flags & NVL_SYNCOBJ_WAIT_AVAILABLE) && !pts)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		struct nvl_syncobj *o = nvl_syncobj_find(c, h[i]);
		struct nvl_fence *f = NULL;

		if (!o) {
			unknown = true;
			continue;
		}
		if (nvl_syncobj_resolve(o, pts ? pts[i] : 0, &f)) {
			missing = true;
		} else if ((flags & NVL_SYNCOBJ_WAIT_AVAILABLE) ||
			   nvl_fence_is_signaled(f)) {
			done++;
			if (*first == UINT32_MAX)
				*first = i;
		}
		nvl_fence_put(f);
		nvl_syncobj_put(o);
	}
	if (unknown)
		return -ENOENT;
	if (missing && !(flags & (NVL_SYNCOBJ_WAIT_FOR_SUBMIT |
				  NVL_SYNCOBJ_WAIT_AVAILABLE)))
		return -EINVAL;
	if ((flags & NVL_SYNCOBJ_WAIT_ALL) ? done == n : done > 0)
		return 0;
	return -ETIME;
}

/*
 * Random syncobj states and waits (1..3 entries, binary or points, every
 * combination of ALL, FOR_SUBMIT and AVAILABLE, an unknown handle now and
 * then), polled and with a 200 us deadline: every path of
 * nvl_syncobj_wait() (fast, fences, slow) must give the model's answer.
 * The fences path answered -ETIME for -EINVAL before c8d86e1.
 */
static void wait_matches_a_reference_model(void **state)
{
	uint64_t rs = t_seed(0x5eed2a);

	for (int it = 0; it < 1500; it++) {
		struct nvl_client *c = client();
		struct nvl_fence *keep[32];
		unsigned nkeep = 0;
		uint32_t hs[4], h[3], n = 1 + t_rand(&rs) % 3, first = 99;
		uint32_t want_first, flags = t_rand(&rs) % 8;
		uint64_t pts[3];
		bool use_pts = t_rand(&rs) % 2;
		int64_t dl = it % 5 ? 0 : nvl_time_ns() + 200000;
		int want, got;

		for (int i = 0; i < 4; i++) {
			hs[i] = mk(c, 0);
			random_syncobj(c, hs[i], &rs, keep, &nkeep);
		}
		for (uint32_t i = 0; i < n; i++) {
			h[i] = t_rand(&rs) % 9 == 0 ? 77 : hs[t_rand(&rs) % 4];
			pts[i] = use_pts ? t_rand(&rs) % 6 : 0;
		}
		want = model_wait(c, h, use_pts ? pts : NULL, n, flags,
				  &want_first);
		got = nvl_syncobj_wait(c, h, use_pts ? pts : NULL, n, dl, flags,
				       &first);
		if (got != want)
			fail_msg("iteration %d: %u entries, flags %#x, points "
				 "%d: %d, the model says %d",
				 it, n, flags, use_pts, got, want);
		if (!got && !(flags & NVL_SYNCOBJ_WAIT_ALL))
			assert_int_equal(first, want_first);
		for (unsigned i = 0; i < nkeep; i++) {
			nvl_fence_signal(keep[i]);
			nvl_fence_put(keep[i]);
		}
		nvl_client_destroy(c);
	}
}

/*
 * Two syncobjs' timeline points with one fence identity: a binary transfer
 * puts syncobj A's chain node into B, and B's next point inherits that
 * node's context (dma_fence_chain's rule), so B:5 and A:5 are different
 * fences with the same context and seqno. A job waiting for both kept only
 * one (dependencies were deduplicated by context) and ran while the other
 * was pending.
 */
static void job_waits_for_both_points_sharing_a_context(void **state)
{
	struct nvl_client *c = client();
	struct nvl_fence *x = pending_fence(), *y = pending_fence(), *a5, *b5;
	struct nvl_fence *done;
	uint32_t a = mk(c, 0), b = mk(c, 0);
	uint64_t five = 5;
	struct nvl_sched_null *ring = t_ring(4, 0, 0, NULL);
	struct nvl_sched_entity e;
	struct nvl_sched_null_job *j;

	add_point(c, a, x, 3);
	assert_int_equal(nvl_syncobj_transfer(c, b, 0, a, 3, 0), 0);
	assert_int_equal(nvl_syncobj_timeline_signal(c, &b, &five, 1), 0);
	add_point(c, a, y, 5);
	assert_int_equal(nvl_syncobj_find_fence(c, b, 5, 0, &b5), 0);
	assert_int_equal(nvl_syncobj_find_fence(c, a, 5, 0, &a5), 0);
	assert_true(a5 != b5);
	assert_int_equal(a5->context, b5->context);
	assert_int_equal(a5->seqno, b5->seqno);

	t_entity(&e, NVL_SCHED_PRIO_NORMAL, ring);
	j = t_job(ring, &e, 1, 0, 1);
	assert_int_equal(nvl_sched_job_add_dependency(&j->base, b5), 0);
	assert_int_equal(nvl_sched_job_add_dependency(&j->base, a5), 0);
	done = t_arm_push(j);
	nvl_fence_signal(x); /* B:5 complete, A:5 still waits for y */
	assert_int_equal(nvl_fence_wait(done, 100 * NVL_NSEC_PER_MSEC), -ETIME);
	nvl_fence_signal(y);
	assert_int_equal(t_wait(done), 1);
	nvl_fence_put(done);
	nvl_sched_entity_fini(&e);
	nvl_sched_null_destroy(ring);
	nvl_fence_put(x);
	nvl_fence_put(y);
	nvl_client_destroy(c);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(wait_all_missing_fence_after_pending_point_is_einval),
	cmocka_unit_test(transfer_to_a_point_keeps_the_error),
	cmocka_unit_test(sync_file_import_to_a_point_keeps_the_error),
	cmocka_unit_test(null_client_is_einval_everywhere),
	cmocka_unit_test(status_without_a_fence_is_enoent),
	cmocka_unit_test(wait_matches_a_reference_model),
	cmocka_unit_test(job_waits_for_both_points_sharing_a_context),
};

T_MAIN(tests)
