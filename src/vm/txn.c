// SPDX-License-Identifier: MIT
/*
 * DOC: Transactions: prepare, apply, commit, finish or abort
 *
 * A bind call is one transaction. For each of its op lists, in order:
 *
 *  - prepare allocates every node the list creates (MAP, the prev/next of a
 *    REMAP, a region), takes the vm_bo references, asks the backend for the
 *    page-table pages of each new node (pt->get), grows the transaction's
 *    two logs and preloads the mapping tree (for the list's inserts and
 *    for every re-insert an abort may do) so that neither apply nor abort
 *    can run out of room or fail;
 *  - apply changes the trees (allocation-free), appends to the change log
 *    (what to undo, what to release later) and to the page-table command
 *    list (what commit will write).
 *
 * Then either commit (the page-table writes and one TLB flush over the
 * span touched, inside a fence-signalling section, with no lock of the VM)
 * followed by finish (under the VM lock: page-table references of removed
 * nodes dropped, removed nodes freed); or abort, which walks the change log
 * backwards and restores the trees exactly, releasing what prepare took.
 *
 * A node inserted by a transaction is PENDING until that transaction
 * finishes: its page-table entries may not be written yet. If a later
 * transaction (on another bind queue) removes it meanwhile, the node is only
 * marked REMOVED, and the inserting transaction's finish frees it; so a
 * node, its vm_bo and its BO outlive every page-table command that names
 * them, and page-table references are never dropped before the map that
 * used them.
 *
 * Page-table entries of a REMAP's prev/next stay as they are when the piece
 * keeps the old page size; only the vacated hole is unmapped (and not even
 * that when the map request that caused the REMAP continues the same BO
 * contiguously: @keep). Unmaps inside a live sparse region go back to sparse.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "mm/gem.h"
#include "vm/sm.h"
#include "vm/txn_internal.h"
#include "vm/vm_internal.h" /* txn_span, txn_cancel */

enum { GOT_VA = 1, GOT_PREV = 2, GOT_NEXT = 4, GOT_REGION = 8 };

static void pt_put_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va)
{
	vm->pt->put(vm->pt_priv, nvl_gpuva_addr(va), nvl_gpuva_range(va),
		    va->page_shift);
}

static void release_new_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va, bool got)
{
	if (!va)
		return;
	if (got)
		pt_put_va(vm, va);
	nvl_gpuvm_va_free(vm, va);
}

void nvl_gpuvm_ops_release(struct nvl_gpuvm *vm, struct nvl_gpuvm_ops *ops)
{
	for (uint32_t i = 0; ops->prepared && i < ops->n; i++) {
		struct nvl_gpuvm_op *op = &ops->v[i];

		switch (op->kind) {
		case NVL_GPUVM_OP_MAP:
			release_new_va(vm, op->va, op->got & GOT_VA);
			op->va = NULL;
			break;
		case NVL_GPUVM_OP_REMAP:
			release_new_va(vm, op->remap.prev_va,
				       op->got & GOT_PREV);
			release_new_va(vm, op->remap.next_va,
				       op->got & GOT_NEXT);
			op->remap.prev_va = op->remap.next_va = NULL;
			break;
		case NVL_GPUVM_OP_REGION_CREATE:
			if (op->region.r && (op->got & GOT_REGION))
				nvl_gpuvm_region_pt_put(vm, op->region.addr,
							op->region.range);
			nvl_free(op->region.r);
			op->region.r = NULL;
			break;
		default:
			break;
		}
		op->got = 0;
	}
	if (ops->v != ops->inl)
		nvl_free(ops->v);
	nvl_gpuvm_ops_init(ops);
}

void nvl_gpuvm_txn_begin(struct nvl_gpuvm *vm, struct nvl_gpuvm_txn *txn)
{
	memset(txn, 0, offsetof(struct nvl_gpuvm_txn, log_inl));
	txn->vm = vm;
	txn->seq = vm->next_seq++;
	txn->log = txn->log_inl;
	txn->cmd = txn->cmd_inl;
	txn->caplog = NVL_GPUVM_TXN_INLINE;
	txn->capcmd = NVL_GPUVM_TXN_INLINE;
	txn->flush_lo = UINT64_MAX;
	if (vm->spare_log) {
		txn->log = vm->spare_log;
		txn->caplog = vm->spare_caplog;
		vm->spare_log = NULL;
	}
	if (vm->spare_cmd) {
		txn->cmd = vm->spare_cmd;
		txn->capcmd = vm->spare_capcmd;
		vm->spare_cmd = NULL;
	}
	vm->cur_seq = txn->seq;
	vm->cur_kills = false;
}

static int grow(void **v, void *inl, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t cap2 = *cap;
	void *p;

	if (need <= *cap)
		return 0;
	while (cap2 < need)
		cap2 *= 2;
	if (*v == inl) {
		p = nvl_calloc(cap2, elem);
		if (p)
			memcpy(p, inl, *cap * elem);
	} else {
		p = nvl_reallocarray(*v, cap2, elem);
	}
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = cap2;
	return 0;
}

static int grow_logs(struct nvl_gpuvm_txn *txn, uint32_t nlog, uint32_t ncmd)
{
	int ret = grow((void **)&txn->log, txn->log_inl, &txn->caplog,
		       txn->nlog + nlog, sizeof(*txn->log));

	if (!ret)
		ret = grow((void **)&txn->cmd, txn->cmd_inl, &txn->capcmd,
			   txn->ncmd + ncmd, sizeof(*txn->cmd));
	return ret;
}

/* @ref: the caller's reference on @vm_bo goes to the node (else one is taken) */
static struct nvl_gpuva *new_va(struct nvl_gpuvm *vm, uint64_t addr,
				uint64_t range, uint64_t off, uint16_t flags,
				struct nvl_gpuvm_bo *vm_bo, bool ref)
{
	struct nvl_gpuva *va = nvl_gpuvm_va_alloc(vm);

	if (!va) {
		if (ref)
			nvl_gpuvm_bo_put(vm_bo);
		return NULL;
	}
	va->node.start = addr;
	va->node.last = addr + range - 1;
	va->bo_offset = off;
	va->flags = flags & NVL_GPUVA_USER_FLAGS;
	va->page_shift = (uint8_t)nvl_gpuvm_page_shift_for(
		vm, vm_bo ? vm_bo->obj : NULL, addr, range, vm_bo ? off : 0);
	nvl_list_init(&va->bo_link);
	if (vm_bo && !ref)
		nvl_gpuvm_bo_get(vm_bo);
	va->vm_bo = vm_bo;
	return va;
}

static int pt_get_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va)
{
	return vm->pt->get(vm->pt_priv, nvl_gpuva_addr(va), nvl_gpuva_range(va),
			   va->page_shift);
}

static int prepare_piece(struct nvl_gpuvm *vm, struct nvl_gpuva *old,
			 const struct nvl_gpuvm_piece *p,
			 struct nvl_gpuva **out, uint8_t *got, uint8_t bit)
{
	if (!p->range)
		return 0;
	*out = new_va(vm, p->addr, p->range, p->bo_offset, old->flags,
		      old->vm_bo, false);
	if (!*out)
		return -ENOMEM;
	if (pt_get_va(vm, *out))
		return -ENOMEM;
	*got |= bit;
	return 0;
}

/*
 * Room in the mapping tree's node pool for @need more inserts (with any
 * removals between them). A preload covers a number of inserts from the
 * moment it is made, whatever transaction makes them, and every insert
 * into the tree (apply's, abort's) counts one off @vm->tree_room; so a
 * list that fits in what the last preload covers needs none of its own.
 * A preload asks for twice what it needs, at least 16 more (a call of 64
 * ops preloads about five times instead of 64, a run of one-op calls once
 * in 16 or so), and for what it needs alone if that fails.
 */
static int reserve_tree(struct nvl_gpuvm *vm, uint32_t need)
{
	uint32_t ask = need + NVL_MAX(need, 16u);

	if (need <= vm->tree_room)
		return 0;
	if (nvl_ibtree_preload(&vm->vas, ask)) {
		ask = need;
		if (nvl_ibtree_preload(&vm->vas, ask))
			return -ENOMEM;
	}
	vm->tree_room = ask;
	return 0;
}

/* an insert the last preload covered (prepare counted it in) */
static void took_room(struct nvl_gpuvm *vm)
{
	if (!NVL_NEVER(!vm->tree_room))
		vm->tree_room--;
}

int nvl_gpuvm_txn_prepare(struct nvl_gpuvm_txn *txn, struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm *vm = txn->vm;
	uint32_t nlog = 0, ncmd = 0, nins = 0, nrem = 0;
	int ret;

	ops->prepared = true;
	for (uint32_t i = 0; i < ops->n; i++) {
		struct nvl_gpuvm_op *op = &ops->v[i];
		struct nvl_gpuvm_bo *vm_bo = NULL;

		switch (op->kind) {
		case NVL_GPUVM_OP_MAP:
			if (op->map.obj && txn->hint &&
			    txn->hint->obj == op->map.obj) {
				vm_bo = txn->hint;
				nvl_gpuvm_bo_get(vm_bo);
			} else if (op->map.obj) {
				vm_bo = nvl_gpuvm_bo_obtain(vm, op->map.obj);
				if (!vm_bo)
					return -ENOMEM;
			}
			/* the reference obtained is the mapping's */
			op->va = new_va(vm, op->map.addr, op->map.range,
					op->map.bo_offset, op->map.flags, vm_bo,
					true);
			if (!op->va)
				return -ENOMEM;
			ret = pt_get_va(vm, op->va);
			if (ret)
				return ret;
			op->got |= GOT_VA;
			nlog += 1;
			ncmd += 1;
			nins += 1;
			break;
		case NVL_GPUVM_OP_UNMAP:
			nlog += 1;
			ncmd += 1;
			nrem += 1;
			break;
		case NVL_GPUVM_OP_REMAP:
			ret = prepare_piece(vm, op->va, &op->remap.prev,
					    &op->remap.prev_va, &op->got,
					    GOT_PREV);
			if (!ret)
				ret = prepare_piece(vm, op->va, &op->remap.next,
						    &op->remap.next_va,
						    &op->got, GOT_NEXT);
			if (ret)
				return ret;
			nlog += 3;
			ncmd += 3;
			nins += 2;
			nrem += 1;
			break;
		case NVL_GPUVM_OP_REGION_CREATE:
			op->region.r = nvl_zalloc(sizeof(*op->region.r));
			if (!op->region.r)
				return -ENOMEM;
			op->region.r->node.start = op->region.addr;
			op->region.r->node.last =
				op->region.addr + op->region.range - 1;
			ret = nvl_gpuvm_region_pt_get(vm, op->region.addr,
						      op->region.range);
			if (ret)
				return ret;
			op->got |= GOT_REGION;
			nlog += 1;
			ncmd += 1;
			break;
		case NVL_GPUVM_OP_REGION_DESTROY:
			nlog += 1;
			ncmd += 1;
			break;
		default:
			break;
		}
	}
	ret = grow_logs(txn, nlog, ncmd);
	/*
	 * Every insert from here to the end of the transaction: this list's,
	 * and an abort's re-insert of each mapping removed by this list or
	 * by an earlier one. Removes only give nodes back, so this covers
	 * them all.
	 */
	if (!ret)
		ret = reserve_tree(vm, nins + nrem + txn->nremoved);
	return ret;
}

static void log_add(struct nvl_gpuvm_txn *txn, uint8_t kind, void *p)
{
	txn->log[txn->nlog++] = (struct nvl_gpuvm_txn_ent){kind, p, NULL};
}

static void cmd_add(struct nvl_gpuvm_txn *txn, uint8_t kind, uint64_t addr,
		    uint64_t range, uint8_t shift, bool sparse,
		    struct nvl_gpuva *va)
{
	struct nvl_gpuvm_pt_cmd *c = &txn->cmd[txn->ncmd++];

	c->kind = kind;
	c->addr = addr;
	c->range = range;
	c->page_shift = shift;
	c->sparse = sparse;
	c->flags = 0;
	c->va = NULL;
	c->bo_offset = 0;
	if (va) {
		c->va = va;
		c->bo_offset = va->bo_offset;
		/* a bind maps no backing whose move is still queued */
		c->flags |= nvl_gpuva_pt_flags(va) | NVL_VM_PT_SETTLED;
	}
	if (addr < txn->flush_lo)
		txn->flush_lo = addr;
	if (addr + range > txn->flush_hi)
		txn->flush_hi = addr + range;
}

static void insert_va(struct nvl_gpuvm_txn *txn, struct nvl_gpuva *va)
{
	va->flags |= NVL_GPUVA_PENDING;
	atomic_store_explicit(&va->written, 0, memory_order_relaxed);
	/* preloaded by nvl_gpuvm_txn_prepare() */
	if (NVL_NEVER(nvl_ibtree_insert(&txn->vm->vas, &va->node)))
		return;
	took_room(txn->vm);
	if (va->vm_bo) {
		/* the unmap hook walks vm_bo->vas under it (vm_bo.c) */
		nvl_flock_lock(&txn->vm->zap_lock);
		nvl_list_add_tail(&va->bo_link, &va->vm_bo->vas);
		nvl_flock_unlock(&txn->vm->zap_lock);
	}
	log_add(txn, T_INSERT_VA, va);
}

static void remove_va(struct nvl_gpuvm_txn *txn, struct nvl_gpuva *va)
{
	/*
	 * Abort undoes the log backwards, so when it re-links @va every
	 * later change is undone and the entry before it is back in place.
	 */
	struct nvl_list *pos = va->bo_link.prev;

	nvl_ibtree_remove(&txn->vm->vas, &va->node);
	if (va->vm_bo) {
		nvl_flock_lock(&txn->vm->zap_lock);
		nvl_list_del(&va->bo_link);
		nvl_flock_unlock(&txn->vm->zap_lock);
	} else {
		nvl_list_del(&va->bo_link);
	}
	txn->nremoved++;
	txn->log[txn->nlog++] =
		(struct nvl_gpuvm_txn_ent){T_REMOVE_VA, va, pos};
}

static bool in_region(struct nvl_gpuvm *vm, const struct nvl_gpuva *va)
{
	return !nvl_itree_empty(&vm->regions) &&
	       nvl_gpuvm_region_lookup(vm, nvl_gpuva_addr(va), 1);
}

static void apply_remap(struct nvl_gpuvm_txn *txn, struct nvl_gpuvm_op *op,
			unsigned int map_shift)
{
	struct nvl_gpuva *old = op->va, *prev = op->remap.prev_va,
			 *next = op->remap.next_va;
	bool prev_keeps = !prev || prev->page_shift == old->page_shift;
	bool next_keeps = !next || next->page_shift == old->page_shift;
	bool sparse = in_region(txn->vm, old);
	uint64_t lo, hi;

	/* a piece of a committed mapping, keeping its entries: faultable */
	if (!(old->flags & NVL_GPUVA_PENDING)) {
		if (prev && prev_keeps)
			prev->flags |= NVL_GPUVA_KEPT;
		if (next && next_keeps)
			next->flags |= NVL_GPUVA_KEPT;
	}
	remove_va(txn, old);
	if (prev)
		insert_va(txn, prev);
	if (next)
		insert_va(txn, next);
	lo = prev && prev_keeps ? nvl_gpuva_end(prev) : nvl_gpuva_addr(old);
	hi = next && next_keeps ? nvl_gpuva_addr(next) : nvl_gpuva_end(old);
	if (!(op->keep && prev_keeps && next_keeps &&
	      map_shift == old->page_shift))
		cmd_add(txn, NVL_GPUVM_PT_UNMAP, lo, hi - lo, old->page_shift,
			sparse, NULL);
	if (prev && !prev_keeps)
		cmd_add(txn, NVL_GPUVM_PT_MAP, nvl_gpuva_addr(prev),
			nvl_gpuva_range(prev), prev->page_shift, false, prev);
	if (next && !next_keeps)
		cmd_add(txn, NVL_GPUVM_PT_MAP, nvl_gpuva_addr(next),
			nvl_gpuva_range(next), next->page_shift, false, next);
	op->remap.prev_va = op->remap.next_va = NULL;
}

void nvl_gpuvm_txn_apply(struct nvl_gpuvm_txn *txn, struct nvl_gpuvm_ops *ops)
{
	struct nvl_gpuvm *vm = txn->vm;
	unsigned int map_shift = 0xff;

	/*
	 * @keep lets the old entries stand for the MAP's, which rewrites
	 * them; a lazy MAP writes none, so the old ones (and their
	 * permissions) must go (0xff: no page size matches).
	 */
	if (ops->n && ops->v[ops->n - 1].kind == NVL_GPUVM_OP_MAP &&
	    ops->v[ops->n - 1].va &&
	    !(ops->v[ops->n - 1].va->flags & NVL_GPUVA_LAZY))
		map_shift = ops->v[ops->n - 1].va->page_shift;
	for (uint32_t i = 0; i < ops->n; i++) {
		struct nvl_gpuvm_op *op = &ops->v[i];
		struct nvl_gpuva *va = op->va;

		switch (op->kind) {
		case NVL_GPUVM_OP_MAP:
			insert_va(txn, va);
			/* a lazy mapping's pages are written on fault */
			if (!(va->flags & NVL_GPUVA_LAZY))
				cmd_add(txn, NVL_GPUVM_PT_MAP,
					nvl_gpuva_addr(va), nvl_gpuva_range(va),
					va->page_shift, false, va);
			if (va->vm_bo)
				txn->hint = va->vm_bo;
			op->va = NULL;
			break;
		case NVL_GPUVM_OP_UNMAP:
			if (!(op->keep && map_shift == va->page_shift))
				cmd_add(txn, NVL_GPUVM_PT_UNMAP,
					nvl_gpuva_addr(va), nvl_gpuva_range(va),
					va->page_shift, in_region(vm, va),
					NULL);
			remove_va(txn, va);
			break;
		case NVL_GPUVM_OP_REMAP:
			apply_remap(txn, op, map_shift);
			break;
		case NVL_GPUVM_OP_REGION_CREATE:
			nvl_itree_insert(&vm->regions, &op->region.r->node);
			log_add(txn, T_INSERT_REGION, op->region.r);
			cmd_add(txn, NVL_GPUVM_PT_SPARSE, op->region.addr,
				op->region.range, (uint8_t)vm->page_shift, true,
				NULL);
			op->region.r = NULL;
			break;
		case NVL_GPUVM_OP_REGION_DESTROY:
			op->region.r->dead_seq = txn->seq;
			vm->cur_kills = true;
			log_add(txn, T_KILL_REGION, op->region.r);
			cmd_add(txn, NVL_GPUVM_PT_SPARSE, op->region.addr,
				op->region.range, (uint8_t)vm->page_shift,
				false, NULL);
			break;
		default:
			break;
		}
		op->got = 0;
	}
	ops->prepared = false;
}

/*
 * A MAP command. The object's backing may be the destination of a move
 * whose copy (or clear) is still queued: a job queued before the move
 * (the move waits for it) could run before the copy and read what that
 * memory held, another client's bytes. So those pages stay invalid
 * (NVL_VM_PT_SETTLED) and the vm_bo goes on the evict list: the next
 * exec's validate maps them (the mapping counts as written from now on,
 * though still PENDING until the bind's finish), and its job waits for
 * the move. A move queued after this check is heard by the eviction hook,
 * which lists the vm_bo itself.
 */
static void commit_map(struct nvl_gpuvm *vm, const struct nvl_gpuvm_pt_cmd *c)
{
	struct nvl_gpuvm_bo *vm_bo = c->va->vm_bo;
	struct nvl_gem_object *obj = vm_bo ? vm_bo->obj : NULL;

	if (obj && obj->ops->move_pending && obj->ops->move_pending(obj))
		nvl_gpuvm_bo_relist(vm_bo);
	vm->pt->map(vm->pt_priv, c->addr, c->range, c->page_shift, obj,
		    c->bo_offset, c->flags);
	atomic_store_explicit(&c->va->written, 1, memory_order_release);
}

void nvl_gpuvm_txn_commit(struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm *vm = txn->vm;
	const struct nvl_vm_pt_ops *pt = vm->pt;

	for (uint32_t i = 0; i < txn->ncmd; i++) {
		const struct nvl_gpuvm_pt_cmd *c = &txn->cmd[i];

		switch (c->kind) {
		case NVL_GPUVM_PT_MAP:
			commit_map(vm, c);
			break;
		case NVL_GPUVM_PT_UNMAP:
			pt->unmap(vm->pt_priv, c->addr, c->range, c->page_shift,
				  c->sparse);
			break;
		case NVL_GPUVM_PT_SPARSE:
			pt->sparse(vm->pt_priv, c->addr, c->range, c->sparse);
			break;
		}
	}
	if (txn->ncmd)
		pt->flush(vm->pt_priv, txn->flush_lo,
			  txn->flush_hi - txn->flush_lo);
}

/* Keep heap logs for the VM's next transaction (VM lock held). */
static void free_logs(struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm *vm = txn->vm;

	if (txn->log != txn->log_inl) {
		if (vm && !vm->spare_log) {
			vm->spare_log = txn->log;
			vm->spare_caplog = txn->caplog;
		} else {
			nvl_free(txn->log);
		}
	}
	if (txn->cmd != txn->cmd_inl) {
		if (vm && !vm->spare_cmd) {
			vm->spare_cmd = txn->cmd;
			vm->spare_capcmd = txn->capcmd;
		} else {
			nvl_free(txn->cmd);
		}
	}
	txn->hint = NULL;
	txn->log = txn->log_inl;
	txn->cmd = txn->cmd_inl;
	txn->nlog = txn->ncmd = txn->nremoved = 0;
	txn->pt_done = false;
	txn->caplog = txn->capcmd = NVL_GPUVM_TXN_INLINE;
	if (txn->vm && txn->vm->cur_seq == txn->seq)
		txn->vm->cur_seq = 0;
}

static void free_region(struct nvl_gpuvm *vm, struct nvl_gpuvm_region *r)
{
	if (vm->region_hint == r)
		vm->region_hint = NULL;
	nvl_gpuvm_region_pt_put(vm, r->node.start,
				r->node.last - r->node.start + 1);
	nvl_free(r);
}

static void release_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va)
{
	pt_put_va(vm, va);
	nvl_gpuvm_va_free(vm, va);
}

bool nvl_gpuvm_pt_hold(struct nvl_gpuvm *vm)
{
	if (!vm->pt->lock)
		return false;
	vm->pt->lock(vm->pt_priv);
	return true;
}

void nvl_gpuvm_pt_release(struct nvl_gpuvm *vm, bool held)
{
	if (held)
		vm->pt->unlock(vm->pt_priv);
}

/*
 * What finish does with log entry @e: the same decisions in the same order
 * as ever. Region kills are done here; Return: the node to release.
 */
static struct nvl_gpuva *finish_ent(struct nvl_gpuvm *vm,
				    struct nvl_gpuvm_txn_ent *e)
{
	struct nvl_gpuva *va = e->p;

	switch (e->kind) {
	case T_INSERT_VA:
		va->flags &= ~(NVL_GPUVA_PENDING | NVL_GPUVA_KEPT);
		return va->flags & NVL_GPUVA_REMOVED ? va : NULL;
	case T_REMOVE_VA:
		if (!(va->flags & NVL_GPUVA_PENDING))
			return va;
		va->flags |= NVL_GPUVA_REMOVED;
		return NULL;
	case T_KILL_REGION:
		nvl_itree_remove(&vm->regions, e->p);
		free_region(vm, e->p);
		return NULL;
	default:
		return NULL;
	}
}

/*
 * Pass one under the backend's lock: the page-table side; a node to free
 * becomes T_FREE_VA (its memory, vm_bo and BO references go in pass two,
 * outside that lock: a last BO reference may wait).
 */
void nvl_gpuvm_txn_finish_pt(struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm *vm = txn->vm;

	if (txn->pt_done)
		return;
	txn->pt_done = true;
	for (uint32_t i = 0; i < txn->nlog; i++) {
		struct nvl_gpuvm_txn_ent *e = &txn->log[i];
		struct nvl_gpuva *va = finish_ent(vm, e);

		if (va)
			pt_put_va(vm, va);
		e->kind = va ? T_FREE_VA : T_DONE;
	}
}

void nvl_gpuvm_txn_finish(struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm *vm = txn->vm;

	for (uint32_t i = 0; i < txn->nlog; i++) {
		struct nvl_gpuvm_txn_ent *e = &txn->log[i];
		struct nvl_gpuva *va;

		if (!txn->pt_done)
			va = finish_ent(vm, e);
		else
			va = e->kind == T_FREE_VA ? e->p : NULL;
		if (!va)
			continue;
		if (!txn->pt_done)
			pt_put_va(vm, va);
		nvl_gpuvm_va_free(vm, va);
	}
	free_logs(txn);
}

/* Undo a region entry of the log (abort and cancel alike). */
static void undo_region(struct nvl_gpuvm *vm, struct nvl_gpuvm_txn_ent *e)
{
	struct nvl_gpuvm_region *r = e->p;

	if (e->kind == T_INSERT_REGION) {
		nvl_itree_remove(&vm->regions, &r->node);
		free_region(vm, r);
	} else {
		r->dead_seq = 0; /* T_KILL_REGION */
	}
}

void nvl_gpuvm_txn_abort(struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm *vm = txn->vm;

	for (uint32_t i = txn->nlog; i-- > 0;) {
		struct nvl_gpuvm_txn_ent *e = &txn->log[i];
		struct nvl_gpuva *va = e->p;

		switch (e->kind) {
		case T_INSERT_VA:
			nvl_ibtree_remove(&vm->vas, &va->node);
			nvl_flock_lock(&vm->zap_lock);
			nvl_list_del(&va->bo_link);
			nvl_flock_unlock(&vm->zap_lock);
			release_va(vm, va);
			break;
		case T_REMOVE_VA:
			/* preloaded by nvl_gpuvm_txn_prepare() */
			if (NVL_NEVER(nvl_ibtree_insert(&vm->vas, &va->node)))
				break;
			took_room(vm);
			if (va->vm_bo) {
				nvl_flock_lock(&vm->zap_lock);
				nvl_list_add(&va->bo_link, e->pos);
				nvl_flock_unlock(&vm->zap_lock);
			}
			break;
		case T_INSERT_REGION:
		case T_KILL_REGION:
			undo_region(vm, e);
			break;
		}
	}
	free_logs(txn);
}

void nvl_gpuvm_txn_move(struct nvl_gpuvm_txn *to, struct nvl_gpuvm_txn *from)
{
	memcpy(to, from, sizeof(*to));
	if (from->log == from->log_inl)
		to->log = to->log_inl;
	if (from->cmd == from->cmd_inl)
		to->cmd = to->cmd_inl;
	from->log = from->log_inl;
	from->cmd = from->cmd_inl;
	from->hint = NULL;
	from->nlog = from->ncmd = from->nremoved = 0;
	from->caplog = from->capcmd = NVL_GPUVM_TXN_INLINE;
}

void nvl_gpuvm_txn_span(const struct nvl_gpuvm_txn *txn, uint64_t *lo,
			uint64_t *hi)
{
	uint64_t l = UINT64_MAX, h = 0;

	for (uint32_t i = 0; i < txn->nlog; i++) {
		const struct nvl_gpuvm_txn_ent *e = &txn->log[i];
		uint64_t s, last;

		if (e->kind == T_INSERT_VA || e->kind == T_REMOVE_VA) {
			const struct nvl_gpuva *va = e->p;

			s = va->node.start;
			last = va->node.last;
		} else {
			const struct nvl_gpuvm_region *r = e->p;

			s = r->node.start;
			last = r->node.last;
		}
		l = NVL_MIN(l, s);
		h = NVL_MAX(h, last + 1);
	}
	*lo = l;
	*hi = h;
}

/*
 * Cancelling differs from aborting in one way: transactions that came after
 * this one may have been committed and finished since (on other bind queues,
 * over other ranges), so the tree is not the one this transaction left and
 * a re-insert could need a node nobody reserved. A cancel therefore never
 * re-inserts: a mapping this transaction removed is either still pending
 * (inserted by an earlier cancelled transaction, which is undone after this
 * one and frees it: mark it REMOVED) or present in the page tables (unmap
 * it there and release it now). The VM is being torn down, so leaving it out
 * of the tree loses nothing.
 */
void nvl_gpuvm_txn_cancel(struct nvl_gpuvm_txn *txn)
{
	struct nvl_gpuvm *vm = txn->vm;
	bool flush = false;
	uint64_t flo = UINT64_MAX, fhi = 0;

	for (uint32_t i = txn->nlog; i-- > 0;) {
		struct nvl_gpuvm_txn_ent *e = &txn->log[i];
		struct nvl_gpuva *va = e->p;

		switch (e->kind) {
		case T_INSERT_VA:
			if (!(va->flags & NVL_GPUVA_REMOVED)) {
				nvl_ibtree_remove(&vm->vas, &va->node);
				nvl_flock_lock(&vm->zap_lock);
				nvl_list_del(&va->bo_link);
				nvl_flock_unlock(&vm->zap_lock);
			}
			release_va(vm, va);
			break;
		case T_REMOVE_VA:
			if (va->flags & NVL_GPUVA_PENDING) {
				va->flags |= NVL_GPUVA_REMOVED;
				break;
			}
			vm->pt->unmap(vm->pt_priv, nvl_gpuva_addr(va),
				      nvl_gpuva_range(va), va->page_shift,
				      false);
			flo = NVL_MIN(flo, nvl_gpuva_addr(va));
			fhi = NVL_MAX(fhi, nvl_gpuva_end(va));
			flush = true;
			release_va(vm, va);
			break;
		case T_INSERT_REGION:
		case T_KILL_REGION:
			undo_region(vm, e);
			break;
		}
	}
	if (flush)
		vm->pt->flush(vm->pt_priv, flo, fhi - flo);
	free_logs(txn);
}

/* ---- for txn_bulk.c (txn_internal.h); the statics stay inlinable here --- */

struct nvl_gpuva *nvl_txn_new_va(struct nvl_gpuvm *vm, uint64_t addr,
				 uint64_t range, uint64_t off, uint16_t flags,
				 struct nvl_gpuvm_bo *vm_bo, bool ref)
{
	return new_va(vm, addr, range, off, flags, vm_bo, ref);
}

int nvl_txn_pt_get(struct nvl_gpuvm *vm, struct nvl_gpuva *va)
{
	return pt_get_va(vm, va);
}

void nvl_txn_release_new_va(struct nvl_gpuvm *vm, struct nvl_gpuva *va,
			    bool got)
{
	release_new_va(vm, va, got);
}

int nvl_txn_grow(struct nvl_gpuvm_txn *txn, uint32_t nlog, uint32_t ncmd)
{
	return grow_logs(txn, nlog, ncmd);
}

int nvl_txn_reserve_tree(struct nvl_gpuvm *vm, uint32_t need)
{
	return reserve_tree(vm, need);
}

void nvl_txn_took_rooms(struct nvl_gpuvm *vm, uint32_t n)
{
	if (!NVL_NEVER(vm->tree_room < n))
		vm->tree_room -= n;
	else
		vm->tree_room = 0;
}

void nvl_txn_log_add(struct nvl_gpuvm_txn *txn, uint8_t kind, void *p)
{
	log_add(txn, kind, p);
}

void nvl_txn_cmd_add(struct nvl_gpuvm_txn *txn, uint8_t kind, uint64_t addr,
		     uint64_t range, uint8_t shift, bool sparse,
		     struct nvl_gpuva *va)
{
	cmd_add(txn, kind, addr, range, shift, sparse, va);
}

bool nvl_txn_in_region(struct nvl_gpuvm *vm, const struct nvl_gpuva *va)
{
	return in_region(vm, va);
}
