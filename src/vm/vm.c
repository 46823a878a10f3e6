// SPDX-License-Identifier: MIT
/*
 * DOC: VMs, bind queues and the VM_BIND entry point
 *
 * A struct nvl_vm is what a client's VM handle holds: a GPUVM, its
 * page-table backend (the recording backend for clients without a device),
 * a scheduler whose entities are the VM's bind queues, and the default queue
 * used by binds that name none. A bind queue handle holds its queue, the
 * queue holds the VM. A queue whose handle goes while binds are pending on
 * it is handed to the VM (vm->zombies, without its VM reference): its binds
 * still run, and it is freed once idle or with the VM. The VM goes when its
 * handle and its queues' references are gone: its queues are killed at once
 * (the scheduler is destroyed: binds not yet run signal -ECANCELED, whatever
 * they wait for), the cancelled binds are undone, and every mapping is
 * torn down.
 *
 * nvl_vm_bind() resolves the handles of a bind call (VM, queue, BOs,
 * syncobjs) with references, preallocates the timeline points of the signal
 * syncobjs, then calls the bind path (bind.c). Any handle error is reported
 * before anything changes; installing the signal fences cannot fail.
 *
 * GPUVM learns of evictions through mm's eviction hook, installed with the
 * first VM.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/client.h"
#include "base/log.h"
#include "mm/bo.h"
#include "mm/gem.h"
#include "sched/sched.h"
#include "sync/fence.h"
#include "sync/fence_chain.h"
#include "sync/syncobj.h"
#include "vm/pt_record.h"
#include "vm/vm_internal.h"

#define BIND_TIMEOUT_NS (10ll * 1000 * 1000 * 1000)
#define BIND_CREDITS 64
#define STACK_OPS 64 /* kops on the stack: 3 KiB */

static void handle_vm_get(void *p)
{
	nvl_vm_get(p);
}

static void handle_vm_put(void *p)
{
	nvl_vm_put(p);
}

static void handle_q_get(void *p)
{
	struct nvl_vm_queue *q = p;

	nvl_kref_get(&q->ref);
}

static void handle_q_put(void *p)
{
	nvl_vm_queue_put(p);
}

static const struct nvl_handle_ops vm_handle_ops = {
	.get = handle_vm_get,
	.put = handle_vm_put,
};

static const struct nvl_handle_ops queue_handle_ops = {
	.get = handle_q_get,
	.put = handle_q_put,
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void register_once(void)
{
	nvl_handle_kind_register(NVL_HANDLE_VM, &vm_handle_ops);
	nvl_handle_kind_register(NVL_HANDLE_BIND_QUEUE, &queue_handle_ops);
}

static void record_release(void *priv)
{
	nvl_vm_pt_record_destroy(priv);
}

/*
 * BO callbacks of client VMs: their objects are mm BOs. validate runs with
 * the object locked and the VM's lock held (exec): the BO goes back to its
 * preferred placement if it fits (else it stays in its fallback), then
 * every committed mapping is rewritten where the BO now is, and the TLB
 * invalidated. A BO left outside its preferred placement stays on the evict
 * list (the next exec tries again), and so does a vm_bo with a mapping
 * still pending, so that the next exec rewrites that mapping once its bind
 * has run. prefetch (bind PREFETCH) only moves, locking the BO itself.
 */
static int mm_place(struct nvl_gpuvm_bo *vm_bo)
{
	return nvl_bo_validate_preferred(
		container_of(vm_bo->obj, struct nvl_bo, gem));
}

static int mm_validate(struct nvl_gpuvm_bo *vm_bo, void *priv,
		       struct nvl_gpuvm_rebind **defer)
{
	bool pending;
	int ret;

	(void)priv;
	ret = mm_place(vm_bo);
	if (ret)
		return ret;
	ret = nvl_gpuvm_bo_remap(vm_bo, defer, &pending);
	if (ret)
		return nvl_error(ret, "vm: rewriting a moved BO's mappings: %d",
				 ret);
	if (pending)
		nvl_gpuvm_bo_evict(vm_bo, true);
	return 0;
}

static int mm_prefetch(struct nvl_gpuvm_bo *vm_bo, void *priv)
{
	struct nvl_resv *resv = vm_bo->obj->resv;
	int ret;

	(void)priv;
	ret = nvl_resv_lock(resv, NULL);
	if (ret)
		return ret;
	ret = mm_place(vm_bo);
	nvl_resv_unlock(resv);
	return ret;
}

static const struct nvl_gpuvm_bo_ops mm_bo_ops = {
	.validate = mm_validate,
	.prefetch = mm_prefetch,
};

static int queue_init(struct nvl_vm *vm, struct nvl_vm_queue *q)
{
	nvl_kref_init(&q->ref);
	q->vm = vm;
	nvl_list_init(&q->zlink);
	return nvl_sched_entity_init(&q->entity, NVL_SCHED_PRIO_KERNEL,
				     vm->sched);
}

int nvl_vm_create_internal(const struct nvl_vm_create_args *args,
			   const struct nvl_vm_backend *backend,
			   uint64_t client_id, struct nvl_vm **vm_out)
{
	struct nvl_gpuvm_args ga = {0};
	struct nvl_sched_args sa = {
		.ops = &nvl_vm_bind_sched_ops,
		.credit_limit = BIND_CREDITS,
		.timeout_ns = BIND_TIMEOUT_NS,
		.name = "vm-bind",
	};
	struct nvl_vm *vm;
	int ret;

	if (!args || (args->flags & ~(uint32_t)NVL_VM_CREATE_FAULTABLE))
		return nvl_error(-EINVAL, "vm: create: bad arguments");
	if (backend && backend->va_end && args->end > backend->va_end)
		return nvl_error(-EINVAL,
				 "vm: create: window end %#llx past the %u VA "
				 "bits of the device's page tables",
				 (unsigned long long)args->end,
				 (unsigned)__builtin_ctzll(backend->va_end));
	pthread_once(&once, register_once);
	/* mm tells GPUVM about evictions (idempotent: a few atomic loads) */
	ret = nvl_gem_add_evict_hook(nvl_gpuvm_gem_evict);
	if (ret)
		return ret;
	/* and waits for the jobs of the VMs that map what it moves out */
	nvl_gem_set_deps_hook(nvl_gpuvm_gem_deps);
	/* and unmaps it before it is used again (forged fences) */
	nvl_gem_set_unmap_hook(nvl_gpuvm_gem_unmap);
	vm = nvl_zalloc(sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	nvl_kref_init(&vm->ref);
	vm->client_id = client_id;
	vm->faultable = args->flags & NVL_VM_CREATE_FAULTABLE;
	nvl_list_init(&vm->pending);
	nvl_list_init(&vm->zombies);
	vm->sync_timeout_ns = NVL_VM_SYNC_TIMEOUT_NS;
	if (backend) {
		vm->backend = *backend;
	} else {
		ret = nvl_vm_pt_record_create(&vm->rec);
		if (ret)
			goto err_free;
		vm->backend.ops = &nvl_vm_pt_record_ops;
		vm->backend.priv = vm->rec;
		vm->backend.release = record_release;
	}
	ga.name = "vm";
	ga.start = args->start;
	ga.end = args->end;
	ga.kernel_start = args->kernel_start;
	ga.kernel_range = args->kernel_range;
	ga.page_shift = args->page_shift ? args->page_shift : 12;
	ga.big_page_shifts = vm->backend.big_page_shifts;
	ga.pt_ops = vm->backend.ops;
	ga.pt_priv = vm->backend.priv;
	ga.bo_ops = &mm_bo_ops;
	ga.resv = &vm->resv;
	nvl_resv_init(&vm->resv);
	ret = nvl_gpuvm_create(&ga, &vm->gpuvm);
	if (ret)
		goto err_backend;
	sa.priv = vm;
	ret = nvl_sched_create(&sa, &vm->sched);
	if (ret)
		goto err_gpuvm;
	vm->defq = nvl_zalloc(sizeof(*vm->defq));
	if (!vm->defq) {
		ret = -ENOMEM;
		goto err_sched;
	}
	vm->defq->is_default = true;
	ret = queue_init(vm, vm->defq);
	if (ret)
		goto err_defq;
	if (vm->backend.attach)
		vm->backend.attach(vm->backend.priv, vm);
	*vm_out = vm;
	return 0;

err_defq:
	nvl_free(vm->defq);
err_sched:
	nvl_sched_destroy(vm->sched);
err_gpuvm:
	nvl_gpuvm_destroy(vm->gpuvm);
err_backend:
	nvl_resv_fini(&vm->resv);
	/* a caller's backend stays the caller's on failure */
	nvl_vm_pt_record_destroy(vm->rec);
err_free:
	nvl_free(vm);
	return ret;
}

void nvl_vm_get(struct nvl_vm *vm)
{
	nvl_kref_get(&vm->ref);
}

bool nvl_vm_tryget(struct nvl_vm *vm)
{
	return nvl_kref_get_unless_zero(&vm->ref);
}

static void queue_free(struct nvl_vm_queue *q)
{
	nvl_sched_entity_fini(&q->entity);
	nvl_fence_put(q->last);
	nvl_free(q);
}

/*
 * Undo the binds that were cancelled, newest first: each was built on the
 * state the earlier ones left. Every committed bind was finished by then.
 */
static void cancel_pending(struct nvl_vm *vm)
{
	struct nvl_gpuvm *g = vm->gpuvm;

	nvl_flock_lock(&g->lock);
	while (!nvl_list_empty(&vm->pending)) {
		struct nvl_vm_job *job = nvl_list_last_entry(
			&vm->pending, struct nvl_vm_job, link);

		nvl_list_del(&job->link);
		if (NVL_NEVER(!job->cancelled))
			nvl_sched_job_cleanup(&job->base);
		nvl_gpuvm_txn_cancel(&job->txn);
		nvl_free(job);
	}
	nvl_flock_unlock(&g->lock);
}

void nvl_vm_put(struct nvl_vm *vm)
{
	struct nvl_vm_queue *q, *tmp;

	if (!vm || !nvl_kref_put(&vm->ref))
		return;
	/*
	 * A one-op bind pins the VM by its client's read section (or lock)
	 * and then by its VM lock, without a reference (bind_pinned1()): it
	 * may still hold the VM lock after the handle's reference went (the
	 * handle's put waited only for the section). Nothing is torn down
	 * before it let go; no later bind can find the VM.
	 */
	nvl_flock_lock(&vm->gpuvm->lock);
	nvl_flock_unlock(&vm->gpuvm->lock);
	/*
	 * Kill every bind queue at once, as Xe does when a VM is closed:
	 * destroying the scheduler does not wait for dependencies; each bind
	 * that has not run finishes with -ECANCELED, and free_job leaves it
	 * on vm->pending for cancel_pending(). The entities are detached by
	 * then: their fini only forgets them.
	 */
	nvl_sched_destroy(vm->sched);
	nvl_sched_entity_fini(&vm->defq->entity);
	nvl_fence_put(vm->defq->last);
	nvl_free(vm->defq);
	nvl_list_for_each_entry_safe (q, tmp, &vm->zombies, zlink) {
		nvl_list_del(&q->zlink);
		queue_free(q);
	}
	cancel_pending(vm);
	nvl_gpuvm_destroy(vm->gpuvm);
	nvl_resv_fini(&vm->resv);
	if (vm->backend.release)
		vm->backend.release(vm->backend.priv);
	nvl_free(vm);
}

struct nvl_vm *nvl_vm_lookup(struct nvl_client *client, uint32_t handle)
{
	/* nvl_client_handle_get() takes the reference through vm_handle_ops */
	return nvl_client_handle_get(client, NVL_HANDLE_VM, handle);
}

/* Free the handed-over queues that went idle. */
static void reap_zombies(struct nvl_vm *vm)
{
	struct nvl_vm_queue *q, *tmp;
	struct nvl_list idle;

	nvl_list_init(&idle);
	nvl_flock_lock(&vm->gpuvm->lock);
	nvl_list_for_each_entry_safe (q, tmp, &vm->zombies, zlink) {
		if (!nvl_vm_queue_idle(q))
			continue;
		nvl_list_del(&q->zlink);
		nvl_list_add_tail(&q->zlink, &idle);
	}
	nvl_flock_unlock(&vm->gpuvm->lock);
	nvl_list_for_each_entry_safe (q, tmp, &idle, zlink) {
		nvl_list_del(&q->zlink);
		queue_free(q);
	}
}

int nvl_vm_queue_create(struct nvl_vm *vm, struct nvl_vm_queue **q_out)
{
	struct nvl_vm_queue *q;
	int ret;

	reap_zombies(vm);
	if (atomic_load(&vm->dead))
		return nvl_error(-ENOENT, "vm: unusable after a failed bind");
	q = nvl_zalloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	ret = queue_init(vm, q);
	if (ret) {
		nvl_free(q);
		return ret;
	}
	nvl_vm_get(vm);
	*q_out = q;
	return 0;
}

void nvl_vm_queue_put(struct nvl_vm_queue *q)
{
	struct nvl_vm *vm;

	bool busy;

	if (!q || !nvl_kref_put(&q->ref))
		return;
	vm = q->vm;
	/*
	 * Binds still pending on the queue keep running (other binds may be
	 * ordered after them); the VM keeps the queue until then, without
	 * the queue's reference on the VM, so that closing the VM kills it.
	 */
	nvl_flock_lock(&vm->gpuvm->lock);
	busy = !nvl_vm_queue_idle(q);
	if (busy)
		nvl_list_add_tail(&q->zlink, &vm->zombies);
	nvl_flock_unlock(&vm->gpuvm->lock);
	if (!busy)
		queue_free(q);
	nvl_vm_put(vm);
}

struct nvl_vm_queue *nvl_vm_queue_lookup(struct nvl_client *client,
					 uint32_t handle)
{
	return nvl_client_handle_get(client, NVL_HANDLE_BIND_QUEUE, handle);
}

struct nvl_vm *nvl_vm_queue_vm(const struct nvl_vm_queue *q)
{
	return q->vm;
}

/* ---- uAPI ------------------------------------------------------------- */

/*
 * Allocation failures deep in the bind path return a bare -ENOMEM; the
 * entry points give it a message, so nvl_last_error() never shows an
 * earlier call's.
 */
static int oom_msg(int ret, const char *what)
{
	if (ret == -ENOMEM)
		return nvl_error(ret, "vm: %s: out of memory", what);
	return ret;
}

NVL_API int nvl_vm_create(struct nvl_client *client,
			  const struct nvl_vm_create_args *args,
			  uint32_t *vm_out)
{
	struct nvl_vm *vm = NULL;
	int ret;

	if (!client || !vm_out)
		return nvl_error(-EINVAL, "vm: create: NULL argument");
	if (client->dev && client->dev->vm_backend) {
		struct nvl_vm_backend be = {0};

		if (!args || (args->flags & ~(uint32_t)NVL_VM_CREATE_FAULTABLE))
			return nvl_error(-EINVAL, "vm: create: bad arguments");
		be.create_flags = args->flags;
		ret = client->dev->vm_backend(client->dev, &be);
		if (ret)
			return oom_msg(ret, "create");
		ret = nvl_vm_create_internal(args, &be, client->id, &vm);
		if (ret && be.release)
			be.release(be.priv);
	} else {
		ret = nvl_vm_create_internal(args, NULL, client->id, &vm);
	}
	if (ret)
		return oom_msg(ret, "create");
	ret = nvl_client_handle_add(client, NVL_HANDLE_VM, vm, vm_out);
	nvl_vm_put(vm);
	return oom_msg(ret, "create");
}

NVL_API int nvl_vm_destroy(struct nvl_client *client, uint32_t vm)
{
	if (!client)
		return nvl_error(-EINVAL, "vm: destroy: NULL client");
	return nvl_client_handle_remove(client, NVL_HANDLE_VM, vm);
}

NVL_API int nvl_vm_bind_queue_create(struct nvl_client *client, uint32_t vmh,
				     uint32_t *queue_out)
{
	struct nvl_vm_queue *q;
	struct nvl_vm *vm;
	int ret;

	if (!client || !queue_out)
		return nvl_error(-EINVAL, "vm: queue create: NULL argument");
	vm = nvl_vm_lookup(client, vmh);
	if (!vm)
		return nvl_error(-ENOENT, "vm: no VM %u", vmh);
	ret = nvl_vm_queue_create(vm, &q);
	nvl_vm_put(vm);
	if (ret)
		return oom_msg(ret, "queue create");
	ret = nvl_client_handle_add(client, NVL_HANDLE_BIND_QUEUE, q,
				    queue_out);
	nvl_vm_queue_put(q);
	return oom_msg(ret, "queue create");
}

NVL_API int nvl_vm_bind_queue_destroy(struct nvl_client *client, uint32_t queue)
{
	if (!client)
		return nvl_error(-EINVAL, "vm: queue destroy: NULL client");
	return nvl_client_handle_remove(client, NVL_HANDLE_BIND_QUEUE, queue);
}

struct bind_args {
	struct nvl_vm_kop *kops;
	struct nvl_fence **waits;
	struct nvl_syncobj **sigs;
	struct nvl_fence_chain **chains;
	uint32_t n_ops, n_waits, n_sigs;
};

static void args_release(struct bind_args *a)
{
	for (uint32_t i = 0; a->kops && i < a->n_ops; i++)
		nvl_gem_put(a->kops[i].obj);
	for (uint32_t i = 0; a->waits && i < a->n_waits; i++)
		nvl_fence_put(a->waits[i]);
	for (uint32_t i = 0; a->sigs && i < a->n_sigs; i++) {
		nvl_syncobj_put(a->sigs[i]);
		if (a->chains[i])
			nvl_fence_chain_free(a->chains[i]);
	}
}

/* The uAPI op as a kop, without its BO; Return: does it name one? */
/*
 * nvl_vm_validate_kop_args() and nvl_vm_validate_kop_bo() with their
 * common case inline (issue 19: a call of 64 tile binds paid two calls and
 * a frame per op); the functions only for what else they check, and for
 * their messages.
 */
static inline int check_kop_args(const struct nvl_vm *vm, uint32_t i,
				 const struct nvl_vm_kop *k, bool has_bo)
{
	if (likely(nvl_vm_kop_common(vm, k, has_bo)))
		return 0;
	return nvl_vm_validate_kop_args(vm, i, k, has_bo);
}

static inline int check_kop_bo(uint32_t i, const struct nvl_vm_kop *k)
{
	if (k->op != NVL_VM_BIND_OP_MAP || !k->obj ||
	    likely(k->bo_offset < k->obj->size_B &&
		   k->range <= k->obj->size_B - k->bo_offset))
		return 0;
	return nvl_vm_validate_kop_bo(i, k);
}

static bool kop_of(struct nvl_vm_kop *k, const struct nvl_vm_bind_op *o)
{
	k->op = o->op;
	k->flags = o->flags;
	k->addr = o->addr;
	k->range = o->range;
	k->bo_offset = o->bo_offset;
	k->obj = NULL;
	return o->handle != 0;
}

/*
 * Every argument before any handle but the VM's (whose window and page
 * size the ranges are checked against), as Xe does: -EINVAL for any op
 * beats -ENOENT for any handle. A SPARSE or NULL op, an UNMAP and a
 * PREFETCH take no handle at all (vm.h), so a stray one is -EINVAL, not
 * ignored.
 */
static int check_args(const struct nvl_vm *vm, struct bind_args *a,
		      const struct nvl_vm_bind_op *ops,
		      const struct nvl_vm_sync *waits,
		      const struct nvl_vm_sync *signals)
{
	int ret;

	for (uint32_t i = 0; i < a->n_ops; i++) {
		bool has_bo = kop_of(&a->kops[i], &ops[i]);

		if (ops[i].pad)
			ret = nvl_error(-EINVAL, "vm: bind op %u: pad != 0", i);
		else
			ret = check_kop_args(vm, i, &a->kops[i], has_bo);
		if (ret) {
			/*
			 * The later kops (on the stack, unset) hold no BO for
			 * args_release(): a call of several ops whose first
			 * was bad put garbage (the VM_BIND fuzz targets made
			 * one-op calls only and never got here).
			 */
			while (++i < a->n_ops)
				a->kops[i].obj = NULL;
			return ret;
		}
	}
	for (uint32_t i = 0; i < a->n_waits; i++)
		if (waits[i].flags)
			return nvl_error(-EINVAL, "vm: bind wait %u: flags", i);
	for (uint32_t i = 0; i < a->n_sigs; i++)
		if (signals[i].flags)
			return nvl_error(-EINVAL, "vm: bind signal %u: flags",
					 i);
	return 0;
}

/* Then the handles (-ENOENT), then what needs a BO (its range). */
static int resolve(struct nvl_client *client, struct bind_args *a,
		   const struct nvl_vm_bind_op *ops,
		   const struct nvl_vm_sync *waits,
		   const struct nvl_vm_sync *signals)
{
	int ret;

	struct nvl_gem_object *last = NULL;
	uint32_t last_h = 0;

	for (uint32_t i = 0; i < a->n_ops; i++) {
		uint32_t h = ops[i].handle;

		if (!h)
			continue;
		/* a call binding one BO many times looks it up once */
		if (h == last_h) {
			a->kops[i].obj = last;
			nvl_gem_get(last);
			continue;
		}
		a->kops[i].obj = nvl_gem_lookup(client, h);
		if (!a->kops[i].obj)
			return nvl_error(-ENOENT, "vm: bind op %u: no BO %u", i,
					 h);
		last = a->kops[i].obj;
		last_h = h;
	}
	for (uint32_t i = 0; i < a->n_waits; i++) {
		ret = nvl_syncobj_find_fence(client, waits[i].handle,
					     waits[i].point, 0, &a->waits[i]);
		if (ret)
			return nvl_error(ret, "vm: bind wait %u: syncobj %u", i,
					 waits[i].handle);
	}
	for (uint32_t i = 0; i < a->n_sigs; i++) {
		a->sigs[i] = nvl_syncobj_find(client, signals[i].handle);
		if (!a->sigs[i])
			return nvl_error(-ENOENT,
					 "vm: bind signal %u: no syncobj %u", i,
					 signals[i].handle);
	}
	for (uint32_t i = 0; i < a->n_ops; i++) {
		ret = check_kop_bo(i, &a->kops[i]);
		if (ret)
			return ret;
	}
	for (uint32_t i = 0; i < a->n_sigs; i++) {
		if (signals[i].point) {
			a->chains[i] = nvl_fence_chain_alloc();
			if (!a->chains[i])
				return -ENOMEM;
		}
	}
	return 0;
}

static void install_signals(struct bind_args *a,
			    const struct nvl_vm_sync *signals,
			    struct nvl_fence *done)
{
	for (uint32_t i = 0; i < a->n_sigs; i++) {
		if (a->chains[i]) {
			nvl_syncobj_add_point(a->sigs[i], a->chains[i], done,
					      signals[i].point);
			a->chains[i] = NULL;
		} else {
			nvl_syncobj_replace_fence(a->sigs[i], done);
		}
	}
}

/*
 * The common call: a few ops on the default queue, no syncobjs. The same
 * checks in the same order as below (every argument, then the BO handles,
 * then the BO ranges), without the general path's bookkeeping.
 */
static int bind_plain(struct nvl_client *client, struct nvl_vm *vm,
		      const struct nvl_vm_bind_op *ops, uint32_t n,
		      uint32_t flags, uint32_t first_h,
		      struct nvl_gem_object *first)
{
	struct nvl_vm_kop k[STACK_OPS];
	/* @own: k[i].obj holds a reference (one per run of one handle) */
	bool own[STACK_OPS] = {false};
	struct nvl_gem_object *last = first;
	uint32_t last_h = first_h, i, nlooked;
	/* @first came with a reference, for the first op naming it */
	bool spare = first != NULL;
	int ret = 0;

	for (i = 0; i < n; i++) {
		bool has_bo = kop_of(&k[i], &ops[i]);

		if (ops[i].pad)
			ret = nvl_error(-EINVAL, "vm: bind op %u: pad != 0", i);
		else
			ret = check_kop_args(vm, i, &k[i], has_bo);
		if (ret) {
			nvl_gem_put(first);
			return ret;
		}
	}
	/* start the page tables' cache misses now: handles and lock follow */
	if (vm->backend.ops->prefetch)
		for (i = 0; i < n; i++)
			vm->backend.ops->prefetch(vm->backend.priv, k[i].addr,
						  k[i].range);
	for (i = 0; i < n; i++) {
		uint32_t h = ops[i].handle;

		if (!h)
			continue;
		if (h == last_h && last) {
			/*
			 * One BO bound many times is looked up once, and one
			 * reference covers its run of ops for the call.
			 */
			own[i] = spare;
			spare = false;
		} else {
			last = nvl_gem_lookup(client, h);
			last_h = h;
			if (!last) {
				ret = nvl_error(-ENOENT,
						"vm: bind op %u: no BO %u", i,
						h);
				break;
			}
			own[i] = true;
		}
		k[i].obj = last;
	}
	nlooked = i;
	for (i = 0; !ret && i < n; i++)
		ret = check_kop_bo(i, &k[i]);
	if (!ret)
		ret = nvl_vm_bind_checked(vm, NULL, k, n, NULL, 0, flags, NULL);
	for (i = 0; i < nlooked; i++)
		if (own[i])
			nvl_gem_put(k[i].obj);
	return ret;
}

/*
 * The checks of a one-op call, in bind_plain()'s order and with its
 * messages: @k from kop_of(), @obj the op's BO looked up (NULL if none).
 */
static inline int check_one(struct nvl_vm *vm, const struct nvl_vm_bind_op *op,
			    struct nvl_vm_kop *k, bool has_bo,
			    struct nvl_gem_object *obj)
{
	int ret;

	if (op->pad)
		ret = nvl_error(-EINVAL, "vm: bind op 0: pad != 0");
	else
		ret = check_kop_args(vm, 0, k, has_bo);
	if (!ret && vm->backend.ops->prefetch)
		vm->backend.ops->prefetch(vm->backend.priv, k->addr, k->range);
	if (!ret && has_bo && !obj)
		ret = nvl_error(-ENOENT, "vm: bind op 0: no BO %u", op->handle);
	if (!ret) {
		k->obj = obj;
		ret = check_kop_bo(0, k);
	}
	return ret;
}

/*
 * bind_plain() for one op, the most common call (a tile, a buffer): the
 * same checks in the same order, without its arrays and loops.
 */
static int bind_plain1(struct nvl_vm *vm, const struct nvl_vm_bind_op *op,
		       uint32_t flags, struct nvl_gem_object *first)
{
	struct nvl_vm_kop k;
	bool has_bo = kop_of(&k, op);
	int ret = check_one(vm, op, &k, has_bo, first);

	if (!ret)
		ret = nvl_vm_bind_checked(vm, NULL, &k, 1, NULL, 0, flags,
					  NULL);
	nvl_gem_put(first);
	return ret;
}

/*
 * The one-op synchronous call without syncobjs on the default queue (a
 * tile, a buffer), with no reference taken or dropped on its VM or BO and
 * without the client's lock: a read section of the client (base/client.h:
 * closing a VM or BO handle waits for it to end) pins them, and
 * nvl_vm_bind_one_pinned() hands the VM over to its VM lock (issue 19:
 * the two locked instructions of the client's lock a bind; before them,
 * those of two references). The caller has entered the section. The same
 * checks in the same order, with the same messages, as bind_plain1();
 * when that call cannot go the short way (another thread holds the VM
 * lock, a bind is pending, the BO has KERNEL fences, a PREFETCH) the
 * references are taken inside the section after all (the handles still
 * hold theirs) and the general path binds.
 */
static int bind_pinned1(struct nvl_client *client, uint32_t vmh,
			const struct nvl_vm_bind_op *op)
{
	struct nvl_gem_object *obj = NULL;
	struct nvl_vm_kop k;
	struct nvl_vm *vm;
	bool has_bo;
	int ret;

	vm = nvl_client_find_rcu(client, NVL_HANDLE_VM, vmh);
	if (!vm) {
		nvl_client_read_end();
		return nvl_error(-ENOENT, "vm: bind: no VM %u", vmh);
	}
	has_bo = kop_of(&k, op);
	if (has_bo)
		obj = nvl_client_find_rcu(client, NVL_HANDLE_BO, op->handle);
	ret = check_one(vm, op, &k, has_bo, obj);
	if (ret) {
		nvl_client_read_end();
		return ret;
	}
	ret = nvl_vm_bind_one_pinned(vm, &k);
	if (ret != NVL_VM_BIND_GENERAL)
		return ret;
	nvl_vm_get(vm);
	if (obj)
		nvl_gem_get(obj);
	nvl_client_read_end();
	ret = nvl_vm_bind_checked(vm, NULL, &k, 1, NULL, 0, 0, NULL);
	nvl_gem_put(obj);
	nvl_vm_put(vm);
	return ret;
}

/*
 * Every call but the most common one (nvl_vm_bind()): out of line, so
 * that its frame (the kops of up to 64 ops on the stack) and its checks
 * are not paid by a one-op call.
 */
static __attribute__((noinline)) int
bind_general(struct nvl_client *client, uint32_t vmh, uint32_t queue,
	     const struct nvl_vm_bind_op *ops, uint32_t n_ops,
	     const struct nvl_vm_sync *waits, uint32_t n_waits,
	     const struct nvl_vm_sync *signals, uint32_t n_signals,
	     uint32_t flags)
{
	struct nvl_vm_kop kops_stack[STACK_OPS];
	struct bind_args a = {
		.n_ops = n_ops, .n_waits = n_waits, .n_sigs = n_signals};
	struct nvl_vm_queue *q = NULL;
	struct nvl_fence *done = NULL;
	struct nvl_vm *vm;
	void *heap = NULL;
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "vm: bind: NULL client");
	if ((n_ops && !ops) || (n_waits && !waits) || (n_signals && !signals))
		return nvl_error(-EINVAL, "vm: bind: NULL array");
	if (n_ops > (1u << 16) || n_waits > 256 || n_signals > 256)
		return nvl_error(-EINVAL, "vm: bind: too many ops or syncs");
	if (flags & ~(uint32_t)NVL_VM_BIND_ASYNC)
		return nvl_error(-EINVAL, "vm: bind: unknown flags %#x", flags);
	if (n_ops <= STACK_OPS && !n_waits && !n_signals && !queue) {
		/* the VM and the first BO in one lock round trip */
		struct nvl_gem_object *first;
		uint32_t h = 0;

		for (uint32_t i = 0; i < n_ops && !h; i++)
			h = ops[i].handle;
		nvl_client_handle_get2(client, NVL_HANDLE_VM, vmh, (void **)&vm,
				       NVL_HANDLE_BO, h, (void **)&first);
		if (!vm) {
			nvl_gem_put(first);
			return nvl_error(-ENOENT, "vm: bind: no VM %u", vmh);
		}
		if (n_ops == 1)
			ret = bind_plain1(vm, ops, flags, first);
		else
			ret = bind_plain(client, vm, ops, n_ops, flags, h,
					 first);
		nvl_vm_put(vm);
		return oom_msg(ret, "bind");
	}
	vm = nvl_vm_lookup(client, vmh);
	if (!vm)
		return nvl_error(-ENOENT, "vm: bind: no VM %u", vmh);
	if (n_ops <= STACK_OPS && !n_waits && !n_signals) {
		/* check_args() fills every field */
		a.kops = kops_stack;
	} else {
		size_t sz = n_ops * sizeof(*a.kops) +
			    n_waits * sizeof(*a.waits) +
			    n_signals * (sizeof(*a.sigs) + sizeof(*a.chains));

		heap = nvl_zalloc(sz ? sz : 1);
		if (!heap) {
			ret = -ENOMEM;
			goto out;
		}
		a.kops = heap;
		a.waits = (struct nvl_fence **)(a.kops + n_ops);
		a.sigs = (struct nvl_syncobj **)(a.waits + n_waits);
		a.chains = (struct nvl_fence_chain **)(a.sigs + n_signals);
	}
	ret = check_args(vm, &a, ops, waits, signals);
	if (ret)
		goto out_args;
	if (queue) {
		q = nvl_vm_queue_lookup(client, queue);
		if (!q || q->vm != vm) {
			ret = nvl_error(-ENOENT,
					"vm: bind: no queue %u of VM %u", queue,
					vmh);
			goto out_args;
		}
	}
	ret = resolve(client, &a, ops, waits, signals);
	if (ret)
		goto out_args;
	ret = nvl_vm_bind_checked(vm, q, a.kops, n_ops, a.waits, n_waits, flags,
				  n_signals ? &done : NULL);
	if (!ret && done)
		install_signals(&a, signals, done);
	nvl_fence_put(done);
out_args:
	args_release(&a);
	nvl_free(heap);
out:
	nvl_vm_queue_put(q);
	nvl_vm_put(vm);
	return oom_msg(ret, "bind");
}

NVL_API int nvl_vm_bind(struct nvl_client *client, uint32_t vmh, uint32_t queue,
			const struct nvl_vm_bind_op *ops, uint32_t n_ops,
			const struct nvl_vm_sync *waits, uint32_t n_waits,
			const struct nvl_vm_sync *signals, uint32_t n_signals,
			uint32_t flags)
{
	/*
	 * One op, synchronous, default queue, no syncobjs: every check of
	 * the call's own arguments that bind_general() makes first passes,
	 * so going straight to the one-op path reports the same errors.
	 */
	if (likely(client && ops && n_ops == 1 && !n_waits && !n_signals &&
		   !queue && !flags) &&
	    /* false: this thread can have no section (rare), bind_plain1() */
	    likely(nvl_client_read_begin()))
		return oom_msg(bind_pinned1(client, vmh, ops), "bind");
	return bind_general(client, vmh, queue, ops, n_ops, waits, n_waits,
			    signals, n_signals, flags);
}
