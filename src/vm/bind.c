// SPDX-License-Identifier: MIT
/*
 * DOC: VM_BIND - the bind path
 *
 * nvl_vm_bind_kops() takes operations whose BOs are resolved and
 *
 *  1. validates every one of them against the VM (op code, flags, alignment,
 *     non-empty range inside the window and outside the reserved range, BO
 *     range inside the BO) before anything changes;
 *  2. for an async bind, allocates the bind job and adds the waits as
 *     dependencies;
 *  3. under the VM lock, opens a GPUVM transaction and, op by op, builds the
 *     op list against the current tree, prepares it (every allocation,
 *     page-table pages included) and applies it to the tree, so op i+1 sees
 *     op i; any failure here (bad region, -ENOMEM) aborts the transaction
 *     and leaves the VM exactly as it was;
 *  4. async: records the VA span the transaction touches and makes the job
 *     depend on every pending job of another queue whose span overlaps,
 *     then pushes it; run_job is the commit. Nothing after the push
 *     allocates or can be undone (except by VM teardown, below).
 *
 * A synchronous bind never becomes a job. It waits for its waits, then for
 * its queue's unfinished work and for pending binds over its span (built
 * and undone again to learn the span), all within vm->sync_timeout_ns
 * (10 s by default): -ETIME or -EBUSY, with a message, when that runs
 * out, and nothing changed. Then it builds and commits inline (the
 * page-table writes inside a fence-signalling section).
 *
 * A bind job's run_job writes the page tables and, if the backend reports
 * an unexpected failure, marks the job's fence with the error and bans the
 * VM: every later call on it returns -ENOENT (Xe's rule). free_job finishes
 * the transaction (frees removed nodes, drops page-table references) under
 * the VM lock. A job freed without having run (the VM is being torn down:
 * its fence signalled -ECANCELED) stays on vm->pending, and the VM undoes
 * the cancelled transactions newest first (nvl_gpuvm_txn_cancel()).
 *
 * Ordering: binds of one queue commit in submission order (one scheduler
 * entity per queue). Binds of different queues are independent unless the
 * spans their changes touch (every mapping and region inserted or removed,
 * which covers split pieces beyond the op's range) overlap: then the later
 * one runs after the earlier one, since it was built on the state the
 * earlier one leaves.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/client.h"
#include "base/log.h"
#include "base/time.h"
#include "mm/gem.h"
#include "sched/sched.h"
#include "sync/checker.h"
#include "sync/fence.h"
#include "sync/resv.h"
#include "vm/pt_record.h"
#include "vm/sm.h"
#include "vm/vm_internal.h"

int nvl_vm_validate_kop_args(const struct nvl_vm *vm, uint32_t i,
			     const struct nvl_vm_kop *op, bool has_bo)
{
	const struct nvl_gpuvm *g = vm->gpuvm;
	uint64_t mask = (1ull << g->page_shift) - 1;
	uint32_t f = op->flags;

	/*
	 * The two common ops first, accepted only when every check below
	 * would pass (so the error precedence is the one below): a MAP of a
	 * BO with at most READONLY and NO_ATOMIC, a plain UNMAP.
	 */
	if (likely(nvl_vm_kop_common(vm, op, has_bo)))
		return 0;
	if (f & ~(uint32_t)(NVL_VM_BIND_READONLY | NVL_VM_BIND_SPARSE |
			    NVL_VM_BIND_NULL | NVL_VM_BIND_NO_ATOMIC |
			    NVL_VM_BIND_LAZY))
		return nvl_error(-EINVAL, "vm: bind op %u: unknown flags %#x",
				 i, f);
	if (op->op == NVL_VM_BIND_OP_UNMAP_ALL) {
		if (f || op->addr || op->range || op->bo_offset || !has_bo)
			return nvl_error(-EINVAL,
					 "vm: bind op %u: UNMAP_ALL takes a BO "
					 "and nothing else",
					 i);
		return 0;
	}
	if (op->op > NVL_VM_BIND_OP_PREFETCH)
		return nvl_error(-EINVAL, "vm: bind op %u: unknown op %u", i,
				 op->op);
	if ((op->addr | op->range | op->bo_offset) & mask)
		return nvl_error(-EINVAL,
				 "vm: bind op %u: [%#llx, +%#llx) @%#llx not "
				 "aligned to %u KiB",
				 i, (unsigned long long)op->addr,
				 (unsigned long long)op->range,
				 (unsigned long long)op->bo_offset,
				 (1u << g->page_shift) / 1024);
	if (!nvl_gpuvm_range_valid(g, op->addr, op->range))
		return nvl_error(
			-EINVAL,
			"vm: bind op %u: range [%#llx, +%#llx) empty, outside "
			"[%#llx, %#llx) or in the reserved range",
			i, (unsigned long long)op->addr,
			(unsigned long long)op->range,
			(unsigned long long)g->start,
			(unsigned long long)g->end);
	switch (op->op) {
	case NVL_VM_BIND_OP_MAP:
		if ((f & NVL_VM_BIND_SPARSE) && (f & NVL_VM_BIND_NULL))
			return nvl_error(
				-EINVAL,
				"vm: bind op %u: SPARSE and NULL together", i);
		if (f & (NVL_VM_BIND_SPARSE | NVL_VM_BIND_NULL)) {
			if (has_bo || op->bo_offset ||
			    (f & (NVL_VM_BIND_READONLY | NVL_VM_BIND_NO_ATOMIC |
				  NVL_VM_BIND_LAZY)))
				return nvl_error(
					-EINVAL,
					"vm: bind op %u: a SPARSE/NULL map "
					"takes no BO, offset, READONLY or "
					"NO_ATOMIC",
					i);
			return 0;
		}
		if (!has_bo)
			return nvl_error(-EINVAL,
					 "vm: bind op %u: MAP without a BO", i);
		if ((f & NVL_VM_BIND_LAZY) && !vm->faultable)
			return nvl_error(-EINVAL,
					 "vm: bind op %u: LAZY in a VM not "
					 "created FAULTABLE",
					 i);
		return 0;
	case NVL_VM_BIND_OP_UNMAP:
		if ((f & ~(uint32_t)NVL_VM_BIND_SPARSE) || has_bo ||
		    op->bo_offset)
			return nvl_error(-EINVAL,
					 "vm: bind op %u: UNMAP takes only "
					 "SPARSE, no BO",
					 i);
		return 0;
	default: /* PREFETCH */
		if (f || has_bo || op->bo_offset)
			return nvl_error(
				-EINVAL,
				"vm: bind op %u: PREFETCH takes a range only",
				i);
		return 0;
	}
}

int nvl_vm_validate_kop_bo(uint32_t i, const struct nvl_vm_kop *op)
{
	if (op->op != NVL_VM_BIND_OP_MAP || !op->obj)
		return 0;
	if (op->bo_offset >= op->obj->size_B ||
	    op->range > op->obj->size_B - op->bo_offset)
		return nvl_error(-EINVAL,
				 "vm: bind op %u: BO range @%#llx +%#llx past "
				 "the BO's %#llx bytes",
				 i, (unsigned long long)op->bo_offset,
				 (unsigned long long)op->range,
				 (unsigned long long)op->obj->size_B);
	return 0;
}

int nvl_vm_validate_kop(const struct nvl_vm *vm, uint32_t i,
			const struct nvl_vm_kop *op)
{
	int ret = nvl_vm_validate_kop_args(vm, i, op, op->obj != NULL);

	return ret ? ret : nvl_vm_validate_kop_bo(i, op);
}

/* a plain MAP's request */
static void kop_req(const struct nvl_vm_kop *op, struct nvl_gpuvm_map_req *req)
{
	*req = (struct nvl_gpuvm_map_req){
		.addr = op->addr,
		.range = op->range,
		.obj = op->obj,
		.bo_offset = op->bo_offset,
	};
	if (op->flags & NVL_VM_BIND_READONLY)
		req->flags |= NVL_GPUVA_READONLY;
	if (op->flags & NVL_VM_BIND_NULL)
		req->flags |= NVL_GPUVA_NULL;
	if (op->flags & NVL_VM_BIND_NO_ATOMIC)
		req->flags |= NVL_GPUVA_NOATOMIC;
	if (op->flags & NVL_VM_BIND_LAZY)
		req->flags |= NVL_GPUVA_LAZY;
}

static int kop_ops(struct nvl_gpuvm *g, const struct nvl_vm_kop *op,
		   struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm_map_req req;

	switch (op->op) {
	case NVL_VM_BIND_OP_MAP:
		if (op->flags & NVL_VM_BIND_SPARSE)
			return nvl_gpuvm_region_create_ops(g, op->addr,
							   op->range, ops);
		kop_req(op, &req);
		return nvl_gpuvm_sm_map_ops(g, &req, ops);
	case NVL_VM_BIND_OP_UNMAP:
		if (op->flags & NVL_VM_BIND_SPARSE)
			return nvl_gpuvm_region_destroy_ops(g, op->addr,
							    op->range, ops);
		return nvl_gpuvm_sm_unmap_ops(g, op->addr, op->range, ops);
	case NVL_VM_BIND_OP_UNMAP_ALL:
		return nvl_gpuvm_bo_unmap_ops(g, op->obj, ops);
	default:
		return nvl_gpuvm_prefetch_ops(g, op->addr, op->range, ops);
	}
}

static int prefetch(struct nvl_gpuvm *g, const struct nvl_gpuvm_ops *ops)
{
	for (uint32_t i = 0; i < ops->n; i++) {
		struct nvl_gem_object *obj = nvl_gpuva_obj(ops->v[i].va);
		int ret;

		if (!obj || !g->bo_ops || !g->bo_ops->prefetch)
			continue;
		ret = g->bo_ops->prefetch(ops->v[i].va->vm_bo, g->bo_priv);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Nouveau's region pre-check: every map against the regions as they were
 * before the call, before any op is built, so that a map straddling a
 * region's boundary (or a sparse region over a live one) is reported
 * whatever an earlier op of the call would have done or run out of. Build
 * still checks each op against the state the earlier ops leave (a map over
 * a region created or destroyed in the same call).
 */
static int precheck_regions(struct nvl_gpuvm *g, const struct nvl_vm_kop *kops,
			    uint32_t n)
{
	/* one op: build checks it against these very regions */
	if (n < 2 || nvl_itree_empty(&g->regions))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct nvl_vm_kop *k = &kops[i];
		struct nvl_gpuvm_region *r;

		if (k->op != NVL_VM_BIND_OP_MAP)
			continue;
		r = nvl_gpuvm_region_lookup(g, k->addr, k->range);
		if (!r)
			continue;
		if (k->flags & NVL_VM_BIND_SPARSE)
			return nvl_error(
				-ENOSPC,
				"vm %s: bind op %u: sparse region [%#llx, "
				"+%#llx) over region [%#llx, %#llx]",
				g->name, i, (unsigned long long)k->addr,
				(unsigned long long)k->range,
				(unsigned long long)r->node.start,
				(unsigned long long)r->node.last);
		if (r->node.start > k->addr ||
		    r->node.last < k->addr + k->range - 1)
			return nvl_error(
				-ENOSPC,
				"vm %s: bind op %u: map [%#llx, +%#llx) "
				"straddles sparse region [%#llx, %#llx]",
				g->name, i, (unsigned long long)k->addr,
				(unsigned long long)k->range,
				(unsigned long long)r->node.start,
				(unsigned long long)r->node.last);
	}
	return 0;
}

/* a plain MAP (@unmap false) or plain UNMAP: what a bulk run holds */
static bool kop_plain(const struct nvl_vm_kop *op, bool unmap)
{
	return op->op == (unmap ? NVL_VM_BIND_OP_UNMAP : NVL_VM_BIND_OP_MAP) &&
	       !(op->flags & NVL_VM_BIND_SPARSE);
}

/*
 * Apply the run of plain maps or plain unmaps starting at @kops as one
 * bulk operation if it does not interact (nvl_gpuvm_txn_bulk()).
 * Return: the ops applied (0: apply the next @*run one at a time), or a
 * negative errno (the caller aborts).
 */
static int build_bulk(struct nvl_gpuvm_txn *txn, const struct nvl_vm_kop *kops,
		      uint32_t n, uint32_t *run)
{
	struct nvl_gpuvm_map_req reqs[NVL_GPUVM_BULK_MAX];
	bool unmap = kops[0].op == NVL_VM_BIND_OP_UNMAP;
	uint32_t m = 0;
	int ret;

	*run = 1;
	if (n < 2 || txn->vm->no_bulk || !kop_plain(&kops[0], unmap))
		return 0;
	while (m < n && m < NVL_GPUVM_BULK_MAX && kop_plain(&kops[m], unmap)) {
		kop_req(&kops[m], &reqs[m]);
		m++;
	}
	*run = m;
	ret = nvl_gpuvm_txn_bulk(txn, unmap, reqs, m);
	return ret ? NVL_MIN(ret, 0) : (int)m;
}

/* Build, prepare and apply every op; on failure the caller aborts. */
static int build(struct nvl_gpuvm_txn *txn, const struct nvl_vm_kop *kops,
		 uint32_t n)
{
	uint32_t run = 0;
	int ret = precheck_regions(txn->vm, kops, n);

	if (ret)
		return ret;
	for (uint32_t i = 0; i < n; i++) {
		struct nvl_gpuvm_ops ops;

		if (!run) {
			ret = build_bulk(txn, &kops[i], n - i, &run);
			if (ret < 0)
				return ret;
			if (ret) {
				i += (uint32_t)ret - 1;
				run = 0;
				continue;
			}
		}
		run--;

		nvl_gpuvm_ops_init(&ops);
		ret = kop_ops(txn->vm, &kops[i], &ops);
		if (!ret && kops[i].op == NVL_VM_BIND_OP_PREFETCH)
			ret = prefetch(txn->vm, &ops);
		if (!ret)
			ret = nvl_gpuvm_txn_prepare(txn, &ops);
		if (!ret)
			nvl_gpuvm_txn_apply(txn, &ops);
		nvl_gpuvm_ops_fini(txn->vm, &ops);
		if (ret)
			return ret;
	}
	return 0;
}

/* Commit in a fence-signalling section; Return: the backend's error. */
static int commit(struct nvl_vm *vm, struct nvl_gpuvm_txn *txn)
{
	struct nvl_signalling_cookie cookie = nvl_fence_begin_signalling();
	int err = 0;

	nvl_gpuvm_txn_commit(txn);
	if (vm->backend.ops->take_error)
		err = vm->backend.ops->take_error(vm->backend.priv);
	if (err)
		atomic_store(&vm->dead, true);
	nvl_fence_end_signalling(cookie);
	return err;
}

/*
 * The backend's lock over a whole build of a call of several ops (issue
 * 19: one lock round trip a call, not about four per op), unless an op
 * prefetches: moving a BO may wait. A one-op call takes it per backend
 * call as before: holding it saved one atomic there but cost as much in
 * calls and checks (interleaved runs showed no gain).
 */
static bool hold_for(struct nvl_gpuvm *g, const struct nvl_vm_kop *ops,
		     uint32_t n)
{
	if (n < 2)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (ops[i].op == NVL_VM_BIND_OP_PREFETCH)
			return false;
	return nvl_gpuvm_pt_hold(g);
}

static struct nvl_fence *bind_run_job(struct nvl_sched_job *sjob)
{
	struct nvl_vm_job *job = container_of(sjob, struct nvl_vm_job, base);
	/* one write: its own lock round trip is as cheap */
	bool held = job->txn.ncmd > 1 && nvl_gpuvm_pt_hold(job->vm->gpuvm);
	int err = commit(job->vm, &job->txn);

	nvl_gpuvm_pt_release(job->vm->gpuvm, held);

	atomic_store(&job->committed, true);
	if (err) {
		nvl_err(NVL_CAT_VM,
			"vm %s: bind job failed after commit (%d): VM banned",
			job->vm->gpuvm->name, err);
		nvl_sched_job_set_error(sjob, err);
	}
	return NULL;
}

static void bind_free_job(struct nvl_sched_job *sjob)
{
	struct nvl_vm_job *job = container_of(sjob, struct nvl_vm_job, base);
	struct nvl_vm *vm = job->vm;
	struct nvl_gpuvm *g = vm->gpuvm;
	bool held;

	nvl_flock_lock(&g->lock);
	if (!atomic_load(&job->committed)) {
		/*
		 * Cancelled without running (the VM is being torn down): the
		 * VM undoes it after the scheduler is gone, newest first.
		 * Anywhere else the tree and the page tables now disagree.
		 */
		job->cancelled = true;
		atomic_store(&vm->dead, true);
		nvl_flock_unlock(&g->lock);
		nvl_sched_job_cleanup(sjob);
		return;
	}
	held = job->txn.nlog > 1 && nvl_gpuvm_pt_hold(g);
	if (held)
		nvl_gpuvm_txn_finish_pt(&job->txn);
	nvl_gpuvm_pt_release(g, held);
	nvl_gpuvm_txn_finish(&job->txn);
	nvl_list_del(&job->link);
	nvl_flock_unlock(&g->lock);
	nvl_sched_job_cleanup(sjob);
	nvl_free(job);
}

static void bind_cancel_job(struct nvl_sched_job *sjob)
{
	struct nvl_vm_job *job = container_of(sjob, struct nvl_vm_job, base);

	/* Never committed: the tree and the page tables now disagree. */
	atomic_store(&job->vm->dead, true);
}

const struct nvl_sched_backend_ops nvl_vm_bind_sched_ops = {
	.run_job = bind_run_job,
	.free_job = bind_free_job,
	.cancel_job = bind_cancel_job,
};

static int job_new(struct nvl_vm *vm, struct nvl_vm_queue *q,
		   struct nvl_fence *const *waits, uint32_t n_waits,
		   struct nvl_vm_job **job_out)
{
	struct nvl_vm_job *job = nvl_zalloc(sizeof(*job));
	int ret;

	if (!job)
		return -ENOMEM;
	job->vm = vm;
	job->q = q;
	nvl_list_init(&job->link);
	ret = nvl_sched_job_init(&job->base, &q->entity, 1, vm);
	if (ret) {
		nvl_free(job);
		return ret;
	}
	for (uint32_t i = 0; i < n_waits && !ret; i++)
		ret = nvl_sched_job_add_dependency(&job->base,
						   nvl_fence_get(waits[i]));
	if (ret) {
		nvl_sched_job_cleanup(&job->base);
		nvl_free(job);
		return ret;
	}
	*job_out = job;
	return 0;
}

static void job_drop(struct nvl_vm_job *job)
{
	nvl_sched_job_cleanup(&job->base);
	nvl_free(job);
}

/*
 * A pending bind job whose changes touch [@lo, @hi) and that has not
 * finished: a bind over that span was built on the state it leaves and
 * must come after it. VM lock held.
 */
static struct nvl_fence *pending_overlap(struct nvl_vm_job *p, uint64_t lo,
					 uint64_t hi)
{
	struct nvl_fence *f;

	if (p->cancelled || p->lo >= hi || lo >= p->hi)
		return NULL;
	f = nvl_sched_job_finished(&p->base);
	return nvl_fence_is_signaled(f) ? NULL : f;
}

/*
 * Order @job after every pending job of another queue whose span overlaps
 * its own (same-queue jobs are ordered already). Disjoint binds stay
 * independent. VM lock held; may allocate.
 */
static int order_after_overlaps(struct nvl_vm *vm, struct nvl_vm_job *job)
{
	struct nvl_vm_job *p;

	if (job->lo >= job->hi)
		return 0;
	nvl_list_for_each_entry (p, &vm->pending, link) {
		struct nvl_fence *f;
		int ret;

		if (p->q == job->q)
			continue;
		f = pending_overlap(p, job->lo, job->hi);
		if (!f)
			continue;
		ret = nvl_sched_job_add_dependency(&job->base,
						   nvl_fence_get(f));
		if (ret)
			return ret;
	}
	return 0;
}

static int64_t ms_of(int64_t ns)
{
	return ns / (1000 * 1000);
}

/*
 * Time left until *@deadline, which is set on first use (0: not yet): a
 * bind with nothing to wait for never reads the clock.
 */
static int64_t time_left(int64_t *deadline, int64_t timeout_ns)
{
	int64_t now;

	if (!*deadline)
		*deadline = nvl_deadline_after(timeout_ns);
	now = nvl_time_ns();
	return *deadline > now ? *deadline - now : 0;
}

/*
 * A synchronous bind: wait for the waits, then for the binds it must
 * follow (its queue's, and pending ones of other queues over its span),
 * all within vm->sync_timeout_ns; then build and commit inline. While
 * something is pending, the transaction is built only to learn its span
 * and undone again, so a bind that gives up has changed nothing.
 */
static int bind_sync(struct nvl_vm *vm, struct nvl_vm_queue *q,
		     const struct nvl_vm_kop *ops, uint32_t n,
		     struct nvl_fence *const *waits, uint32_t n_waits,
		     struct nvl_fence **done_out)
{
	struct nvl_gpuvm *g = vm->gpuvm;
	int64_t deadline = 0;
	struct nvl_gpuvm_txn txn;
	int ret;

	for (uint32_t i = 0; i < n_waits; i++) {
		ret = nvl_fence_wait(waits[i],
				     time_left(&deadline, vm->sync_timeout_ns));
		if (ret)
			return nvl_error(ret,
					 "vm %s: bind: wait %u did not signal "
					 "within %lld ms",
					 g->name, i,
					 (long long)ms_of(vm->sync_timeout_ns));
	}
	for (;;) {
		struct nvl_fence *busy = NULL;
		struct nvl_vm_job *p;
		uint64_t lo = 0, hi = 0;
		bool held;

		nvl_flock_lock(&g->lock);
		if (atomic_load(&vm->dead)) {
			nvl_flock_unlock(&g->lock);
			return nvl_error(-ENOENT,
					 "vm %s: unusable after a failed bind",
					 g->name);
		}
		if (!nvl_vm_queue_idle(q)) {
			busy = nvl_fence_get(q->last);
			goto wait;
		}
		held = hold_for(g, ops, n);
		nvl_gpuvm_txn_begin(g, &txn);
		ret = build(&txn, ops, n);
		g->cur_seq = 0;
		if (ret) {
			nvl_gpuvm_txn_abort(&txn);
			nvl_gpuvm_pt_release(g, held);
			nvl_flock_unlock(&g->lock);
			return ret;
		}
		if (!nvl_list_empty(&vm->pending))
			nvl_gpuvm_txn_span(&txn, &lo, &hi);
		nvl_list_for_each_entry (p, &vm->pending, link) {
			struct nvl_fence *f = pending_overlap(p, lo, hi);

			if (f) {
				busy = nvl_fence_get(f);
				break;
			}
		}
		if (busy) {
			nvl_gpuvm_txn_abort(&txn);
			nvl_gpuvm_pt_release(g, held);
			goto wait;
		}
		ret = commit(vm, &txn);
		if (held)
			nvl_gpuvm_txn_finish_pt(&txn);
		nvl_gpuvm_pt_release(g, held);
		nvl_gpuvm_txn_finish(&txn);
		nvl_flock_unlock(&g->lock);
		if (ret)
			return nvl_error(ret, "vm %s: page-table update failed",
					 g->name);
		if (done_out)
			*done_out = nvl_fence_get_stub();
		return 0;
	wait:
		nvl_flock_unlock(&g->lock);
		ret = nvl_fence_wait(busy,
				     time_left(&deadline, vm->sync_timeout_ns));
		nvl_fence_put(busy);
		if (ret)
			return nvl_error(-EBUSY,
					 "vm %s: sync bind: binds it must "
					 "follow still pending after %lld ms",
					 g->name,
					 (long long)ms_of(vm->sync_timeout_ns));
	}
}

int nvl_vm_bind_kops(struct nvl_vm *vm, struct nvl_vm_queue *q,
		     const struct nvl_vm_kop *ops, uint32_t n,
		     struct nvl_fence *const *waits, uint32_t n_waits,
		     uint32_t flags, struct nvl_fence **done_out)
{
	int ret;

	if (n && !ops)
		return nvl_error(-EINVAL, "vm: bind: %u ops but no array", n);
	for (uint32_t i = 0; i < n; i++) {
		ret = nvl_vm_validate_kop(vm, i, &ops[i]);
		if (ret)
			return ret;
	}
	return nvl_vm_bind_checked(vm, q, ops, n, waits, n_waits, flags,
				   done_out);
}

static int bind_checked(struct nvl_vm *vm, struct nvl_vm_queue *q,
			const struct nvl_vm_kop *ops, uint32_t n,
			struct nvl_fence *const *waits, uint32_t n_waits,
			uint32_t flags, struct nvl_fence **done_out);

/*
 * The most common call (issue 19): one op, synchronous, on the default
 * queue, nothing to wait for or signal, and none of the cases that need
 * more (a PREFETCH may move a BO; a BO with KERNEL fences, a busy queue or
 * pending binds need their waits): the same lock, transaction, commit and
 * finish as bind_sync() makes for it, without its loop, span and region
 * pre-check bookkeeping. bind_one() and nvl_vm_bind_one_pinned() answer
 * NVL_VM_BIND_GENERAL before anything was done when the general path
 * must take the call.
 */

/* one_needs_waits() for a MAP of a BO whose resv has held fences */
static __attribute__((noinline)) int one_kernel_fences(struct nvl_resv *resv)
{
	struct nvl_fence **kf;
	unsigned nk;
	int ret;

	ret = nvl_resv_get_fences(resv, NVL_RESV_USAGE_KERNEL, &nk, &kf);
	if (ret)
		return nvl_error(ret, "vm: bind: out of memory");
	for (unsigned k = 0; k < nk; k++)
		nvl_fence_put(kf[k]);
	nvl_free(kf);
	return nk ? NVL_VM_BIND_GENERAL : 0;
}

/*
 * Return: 0, NVL_VM_BIND_GENERAL (PREFETCH, KERNEL fences) or -ENOMEM.
 * Inline up to the resv's fence count: a resv that never held a fence
 * (num only grows, stored with release after its entry, which is what
 * lets nvl_resv_get_fences() answer from it without the flock) has none
 * to wait for, and a plain tile or buffer bind then makes no call here.
 */
static inline int one_needs_waits(const struct nvl_vm_kop *op)
{
	struct nvl_resv *resv;

	if (op->op == NVL_VM_BIND_OP_PREFETCH)
		return NVL_VM_BIND_GENERAL;
	if (op->op != NVL_VM_BIND_OP_MAP || !op->obj || !op->obj->resv)
		return 0;
	resv = op->obj->resv;
	if (!__atomic_load_n(&resv->num, __ATOMIC_ACQUIRE))
		return 0;
	return one_kernel_fences(resv);
}

/* the backend's answer: may the page tables change now? */
static inline int backend_ready(const struct nvl_vm *vm)
{
	return vm->backend.ops->ready ? vm->backend.ops->ready(vm->backend.priv)
				      : 0;
}

/* VM lock held: can a one-op sync bind go ahead without waiting? (The
 * general path reports a backend that is not ready.) */
static bool one_ready(struct nvl_vm *vm)
{
	return !atomic_load(&vm->dead) && nvl_vm_queue_idle(vm->defq) &&
	       nvl_list_empty(&vm->pending) &&
	       (!vm->backend.ops->ready || !backend_ready(vm));
}

/*
 * VM lock held and one_ready(): until one_disown(), this thread is the only
 * user of the VM's record (every other user holds the VM lock, and an async
 * bind's commit, which does not, runs only while its job is on
 * vm->pending), so its calls skip the record's lock: two locked
 * instructions a bind (issue 19). Another backend locks as it does.
 */
static inline void one_own(struct nvl_vm *vm)
{
	if (vm->rec)
		nvl_vm_pt_record_own(vm->rec);
}

static inline void one_disown(struct nvl_vm *vm)
{
	if (vm->rec)
		nvl_vm_pt_record_disown(vm->rec);
}

/*
 * VM lock held: build, prepare and apply @op; aborted on failure. Inline in
 * both one-op paths (a call and its register saves, ~15 instructions an op).
 */
static inline __attribute__((always_inline)) int
one_build(struct nvl_gpuvm *g, const struct nvl_vm_kop *op,
	  struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm_ops ops;
	int ret;

	nvl_gpuvm_txn_begin(g, txn);
	nvl_gpuvm_ops_init(&ops);
	ret = kop_ops(g, op, &ops);
	if (!ret)
		ret = nvl_gpuvm_txn_prepare(txn, &ops);
	if (!ret)
		nvl_gpuvm_txn_apply(txn, &ops);
	nvl_gpuvm_ops_fini(g, &ops);
	g->cur_seq = 0;
	if (ret)
		nvl_gpuvm_txn_abort(txn);
	return ret;
}

/* VM lock held: commit and finish; Return: 0 or the error, reported. */
static int one_commit(struct nvl_vm *vm, struct nvl_gpuvm_txn *txn)
{
	int ret = commit(vm, txn);

	nvl_gpuvm_txn_finish(txn);
	if (ret)
		return nvl_error(ret, "vm %s: page-table update failed",
				 vm->gpuvm->name);
	return 0;
}

static int bind_one(struct nvl_vm *vm, const struct nvl_vm_kop *op)
{
	struct nvl_gpuvm *g = vm->gpuvm;
	struct nvl_gpuvm_txn txn;
	int ret;

	ret = one_needs_waits(op);
	if (ret)
		return ret;
	nvl_flock_lock(&g->lock);
	if (!one_ready(vm)) {
		nvl_flock_unlock(&g->lock);
		return NVL_VM_BIND_GENERAL;
	}
	one_own(vm);
	ret = one_build(g, op, &txn);
	if (!ret)
		ret = one_commit(vm, &txn);
	one_disown(vm);
	/* no locked instruction: it waited for the commit's stores to drain */
	nvl_flock_unlock_asym(&g->lock);
	return ret;
}

/*
 * Pinning instead of references: the client's read section pins @vm and
 * @op->obj (closing their handles waits for the section to
 * end before it drops the handles' references), the VM lock is taken with
 * a trylock inside it (a section never waits), and the section ends once the transaction is built:
 * from then on the new mapping's vm_bo holds the BO, and the VM lock holds
 * the VM, whose last put waits for that lock before it tears anything down
 * (nvl_vm_put()). Nothing here waits.
 */
int nvl_vm_bind_one_pinned(struct nvl_vm *vm, const struct nvl_vm_kop *op)
{
	struct nvl_gpuvm *g = vm->gpuvm;
	struct nvl_gpuvm_txn txn;
	int ret;

	ret = one_needs_waits(op);
	if (ret) {
		if (ret != NVL_VM_BIND_GENERAL)
			nvl_client_read_end();
		return ret;
	}
	if (!nvl_flock_trylock(&g->lock))
		return NVL_VM_BIND_GENERAL;
	if (!one_ready(vm)) {
		nvl_flock_unlock(&g->lock);
		return NVL_VM_BIND_GENERAL;
	}
	one_own(vm);
	/* an abort drops what prepare took while the BO is still pinned */
	ret = one_build(g, op, &txn);
	nvl_client_read_end();
	if (!ret)
		ret = one_commit(vm, &txn);
	one_disown(vm);
	/*
	 * The last thing this call does with the VM (the release reads only
	 * a global bucket after its store); no locked instruction: it waited
	 * for the commit's cache-missing page-table stores to drain.
	 */
	nvl_flock_unlock_asym(&g->lock);
	return ret;
}

/*
 * A MAP makes a BO's memory reachable by the GPU, so it must come after
 * the memory manager's pending work on that memory (the clear of a new
 * BO, a move): the BO's KERNEL fences join the bind's waits, as Xe's bind
 * waits for the KERNEL usage. Otherwise an exec could read what another
 * client left in VRAM before the clear ran (tests/nv/isolation.c). No
 * allocation unless such fences exist.
 */
int nvl_vm_bind_checked(struct nvl_vm *vm, struct nvl_vm_queue *q,
			const struct nvl_vm_kop *ops, uint32_t n,
			struct nvl_fence *const *waits, uint32_t n_waits,
			uint32_t flags, struct nvl_fence **done_out)
{
	struct nvl_fence **all = NULL;
	const struct nvl_gem_object *seen = NULL;
	uint32_t n_all = n_waits;
	int ret = 0;

	if (n == 1 && !n_waits && !flags && !done_out &&
	    (!q || q == vm->defq)) {
		ret = bind_one(vm, ops);
		if (ret != NVL_VM_BIND_GENERAL)
			return ret;
		ret = 0;
	}
	for (uint32_t i = 0; i < n && !ret; i++) {
		struct nvl_fence **kf, **grown;
		unsigned nk;

		if (ops[i].op != NVL_VM_BIND_OP_MAP || !ops[i].obj ||
		    !ops[i].obj->resv)
			continue;
		/*
		 * A run of maps of one BO (a batch of tiles) needs its fences
		 * once: a second snapshot, taken a moment later, adds nothing
		 * the bind does not wait for already (issue 19: 64 tile binds
		 * took the resv lock 64 times).
		 */
		if (ops[i].obj == seen)
			continue;
		seen = ops[i].obj;
		ret = nvl_resv_get_fences(ops[i].obj->resv,
					  NVL_RESV_USAGE_KERNEL, &nk, &kf);
		if (ret)
			ret = nvl_error(ret, "vm: bind: out of memory");
		if (ret || !nk)
			continue;
		grown = nvl_reallocarray(all, n_all + nk, sizeof(*all));
		if (!grown) {
			for (unsigned k = 0; k < nk; k++)
				nvl_fence_put(kf[k]);
			nvl_free(kf);
			ret = nvl_error(-ENOMEM, "vm: bind: out of memory");
			break;
		}
		if (!all) {
			for (uint32_t w = 0; w < n_waits; w++)
				grown[w] = nvl_fence_get(waits[w]);
		}
		all = grown;
		memcpy(all + n_all, kf, nk * sizeof(*kf));
		n_all += nk;
		nvl_free(kf);
	}
	if (!ret)
		ret = bind_checked(vm, q, ops, n, all ? all : waits,
				   all ? n_all : n_waits, flags, done_out);
	if (all) {
		for (uint32_t k = 0; k < n_all; k++)
			nvl_fence_put(all[k]);
		nvl_free(all);
	}
	return ret;
}

bool nvl_vm_binds_pending(struct nvl_vm *vm)
{
	bool busy;

	nvl_flock_lock(&vm->gpuvm->lock);
	busy = !nvl_list_empty(&vm->pending);
	nvl_flock_unlock(&vm->gpuvm->lock);
	return busy;
}

static int bind_checked(struct nvl_vm *vm, struct nvl_vm_queue *q,
			const struct nvl_vm_kop *ops, uint32_t n,
			struct nvl_fence *const *waits, uint32_t n_waits,
			uint32_t flags, struct nvl_fence **done_out)
{
	struct nvl_gpuvm *g = vm->gpuvm;
	struct nvl_vm_job *job = NULL;
	struct nvl_fence *done = NULL;
	struct nvl_gpuvm_txn txn;
	bool held;
	int ret;

	if (flags & ~(uint32_t)NVL_VM_BIND_ASYNC)
		return nvl_error(-EINVAL, "vm: bind: unknown flags %#x", flags);
	if (!q)
		q = vm->defq;
	if (q->vm != vm)
		return nvl_error(-ENOENT, "vm: bind: queue of another VM");
	if (atomic_load(&vm->dead))
		return nvl_error(-ENOENT, "vm %s: unusable after a failed bind",
				 g->name);
	ret = backend_ready(vm);
	if (ret)
		return ret;
	if (!(flags & NVL_VM_BIND_ASYNC))
		return bind_sync(vm, q, ops, n, waits, n_waits, done_out);

	ret = job_new(vm, q, waits, n_waits, &job);
	if (ret)
		return ret;
	nvl_flock_lock(&g->lock);
	if (atomic_load(&vm->dead)) {
		ret = nvl_error(-ENOENT, "vm %s: unusable after a failed bind",
				g->name);
		goto err_unlock;
	}
	held = hold_for(g, ops, n);
	nvl_gpuvm_txn_begin(g, &txn);
	ret = build(&txn, ops, n);
	g->cur_seq = 0;
	if (ret)
		nvl_gpuvm_txn_abort(&txn);
	nvl_gpuvm_pt_release(g, held);
	if (!ret) {
		nvl_gpuvm_txn_span(&txn, &job->lo, &job->hi);
		ret = order_after_overlaps(vm, job);
		if (ret) {
			held = nvl_gpuvm_pt_hold(g);
			nvl_gpuvm_txn_abort(&txn);
			nvl_gpuvm_pt_release(g, held);
		}
	}
	if (ret)
		goto err_unlock;
	nvl_gpuvm_txn_move(&job->txn, &txn);
	ret = nvl_sched_job_arm(&job->base);
	if (!ret) {
		done = nvl_fence_get(nvl_sched_job_finished(&job->base));
		/* free_job takes it off the list, under this lock */
		nvl_list_add_tail(&job->link, &vm->pending);
		ret = nvl_sched_entity_push_job(&job->base);
		if (ret) {
			nvl_list_del(&job->link);
			nvl_fence_put(done);
		}
	}
	if (ret) {
		nvl_gpuvm_txn_abort(&job->txn);
		goto err_unlock;
	}
	nvl_fence_put(q->last);
	q->last = nvl_fence_get(done);
	nvl_flock_unlock(&g->lock);
	if (done_out)
		*done_out = done;
	else
		nvl_fence_put(done);
	return 0;

err_unlock:
	nvl_flock_unlock(&g->lock);
	job_drop(job);
	return ret;
}
