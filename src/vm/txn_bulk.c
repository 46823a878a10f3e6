// SPDX-License-Identifier: MIT
/*
 * DOC: Bulk application of a batch of non-interacting ops
 *
 * A call of many plain maps (or many plain unmaps) whose ranges neither
 * overlap each other nor split anything the VM holds is applied as one
 * operation instead of an op list per request (issue 19):
 *
 *  - one sort of the requests by address (64-bit keys address | call
 *    index, counted into buckets by their top bits, then an insertion
 *    pass; none for a batch already in order); the pass over them in that
 *    order that looks for what the tree holds there also checks that they
 *    are disjoint;
 *  - one walk of the mapping tree with a cursor: the entry found for one
 *    request is where the search for the next starts (a few in-order
 *    steps, else a fresh descent), instead of a search per request;
 *  - everything allocated in call order (vm_bo references, nodes,
 *    page-table pages, then the logs and the tree's room once), so a
 *    failure anywhere releases what was taken and the tree never changed;
 *  - the tree changed as sorted runs (nvl_ibtree_insert_sorted() and
 *    _remove_sorted()): the maps or unmaps that fall in one leaf go in or
 *    out in one pass over it with one summary refresh;
 *  - the vm_bo lists and the change log in call order, exactly as the op
 *    lists would have left them, so abort (which walks the log backwards
 *    and re-links each mapping after the entry it followed) and finish
 *    behave as before, and UNMAP_ALL sees the same list order;
 *  - the page-table commands in address order, adjacent unmaps of the
 *    same page size and kind (back to sparse or invalid) merged into one
 *    write. Maps are not merged: the commands name each mapping's BO
 *    range, and a backend may keep them apart.
 *
 * Anything else (an overlap, a split, a region boundary, a region
 * destroyed in the same call, a range the op list path would reject) makes
 * the batch not eligible before anything changed, and the caller applies
 * it one request at a time: the same results, errors and messages as ever.
 */
#include <errno.h>
#include <stdatomic.h>

#include "base/compiler.h"
#include "base/list.h"
#include "vm/txn_internal.h"

#define IDX_MASK ((uint64_t)NVL_GPUVM_BULK_MAX - 1)

_Static_assert((NVL_GPUVM_BULK_MAX & IDX_MASK) == 0,
	       "bulk index packs into the low bits of the address");

/* buckets of sort_keys(): twice the batch, so most hold one key or none */
#define NBUCKET 128

/*
 * Sort @n (<= NVL_GPUVM_BULK_MAX) distinct keys between @lo and @hi into
 * @tmp: counted into NBUCKET buckets by their top bits above @lo (one pass
 * to count, one to place), then an insertion pass that only moves keys
 * within a bucket (random addresses: a few share one). Before this the
 * sort was runs of 8 by insertion and three merge passes, ~90
 * instructions a key for 64 random ones; this is about a third.
 * Return: @tmp.
 */
static uint64_t *sort_keys(const uint64_t *key, uint64_t *tmp, uint32_t n,
			   uint64_t lo, uint64_t hi)
{
	uint8_t at[NBUCKET + 1] = {0};
	uint64_t span = hi - lo;
	unsigned shift = 0;

	_Static_assert(NVL_GPUVM_BULK_MAX < 256, "bucket counts are bytes");
	if (span >= NBUCKET)
		shift = 64u - (unsigned)__builtin_clzll(span) - 7u;
	for (uint32_t i = 0; i < n; i++)
		at[((key[i] - lo) >> shift) + 1]++;
	for (uint32_t b = 1; b <= NBUCKET; b++)
		at[b] = (uint8_t)(at[b] + at[b - 1]);
	for (uint32_t i = 0; i < n; i++)
		tmp[at[(key[i] - lo) >> shift]++] = key[i];
	for (uint32_t i = 1; i < n; i++) {
		uint64_t k = tmp[i];
		uint32_t j = i;

		while (j > 0 && tmp[j - 1] > k) {
			tmp[j] = tmp[j - 1];
			j--;
		}
		tmp[j] = k;
	}
	return tmp;
}

/*
 * The keys address | call index of @reqs in address order (@key, with
 * room in @tmp); Return: them, or NULL if the requests are not all valid
 * and aligned. Whether they are disjoint the caller sees in its pass over
 * them in this order (disjoint()).
 */
static const uint64_t *sort_valid(const struct nvl_gpuvm *vm,
				  const struct nvl_gpuvm_map_req *reqs,
				  uint32_t n, uint64_t *key, uint64_t *tmp)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	bool in_order = true;

	for (uint32_t i = 0; i < n; i++) {
		const struct nvl_gpuvm_map_req *r = &reqs[i];

		if (!nvl_gpuvm_range_valid(vm, r->addr, r->range) ||
		    ((r->addr | r->range) & IDX_MASK))
			return NULL;
		key[i] = r->addr | i;
		in_order &= !i || key[i - 1] < key[i];
		lo = NVL_MIN(lo, key[i]);
		hi = NVL_MAX(hi, key[i]);
	}
	/* a batch in address order (common) needs no sort */
	return in_order ? key : sort_keys(key, tmp, n, lo, hi);
}

/*
 * In the pass over the requests in address order: whether @r starts at or
 * after the end of the one before it (@prev_end, 0 before the first), and
 * @prev_end moved to its end.
 */
static inline bool disjoint(const struct nvl_gpuvm_map_req *r,
			    uint64_t *prev_end)
{
	bool ok = r->addr >= *prev_end;

	*prev_end = r->addr + r->range;
	return ok;
}

/*
 * The finger: @c at the first mapping whose last byte is at or after
 * @addr, moving on from where it is (the answer for a lower address, or
 * past the tree's end); @fresh: @c is not placed yet. A few steps of the
 * cursor, then a fresh search. Return: that mapping (@c->e), or NULL.
 */
static struct nvl_ibtree_entry *seek(const struct nvl_gpuvm *vm,
				     struct nvl_ibtree_cursor *c, bool *fresh,
				     uint64_t addr)
{
	struct nvl_ibtree_entry *f = c->e;

	if (*fresh) {
		*fresh = false;
		return nvl_ibtree_cursor_first(&vm->vas, c, addr, UINT64_MAX);
	}
	for (int steps = 0; f && f->last < addr; steps++) {
		if (steps == 4)
			return nvl_ibtree_cursor_first(&vm->vas, c, addr,
						       UINT64_MAX);
		f = nvl_ibtree_cursor_next(c);
	}
	return f;
}

static uint64_t hull_lo(const struct nvl_gpuvm_map_req *reqs,
			const uint64_t *key)
{
	return reqs[key[0] & IDX_MASK].addr;
}

static uint64_t hull_hi(const struct nvl_gpuvm_map_req *reqs,
			const uint64_t *key, uint32_t n)
{
	const struct nvl_gpuvm_map_req *r = &reqs[key[n - 1] & IDX_MASK];

	return r->addr + r->range;
}

/*
 * Whether unmaps in [@lo, @hi) go back to sparse: 1 when the range lies in
 * one live region, 0 when it meets none, -1 when each must be asked.
 */
static int hull_sparse(struct nvl_gpuvm *vm, uint64_t lo, uint64_t hi)
{
	struct nvl_gpuvm_region *r;

	if (nvl_itree_empty(&vm->regions))
		return 0;
	r = nvl_gpuvm_region_lookup(vm, lo, hi - lo);
	if (!r)
		return 0;
	return r->node.start <= lo && r->node.last >= hi - 1 ? 1 : -1;
}

static void release_all(struct nvl_gpuvm *vm, struct nvl_gpuva **vas,
			const bool *got, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		nvl_txn_release_new_va(vm, vas[i], got[i]);
}

static int map_bulk(struct nvl_gpuvm_txn *txn,
		    const struct nvl_gpuvm_map_req *reqs, uint32_t n)
{
	struct nvl_gpuvm *vm = txn->vm;
	struct nvl_gpuvm_bo *hint = txn->hint;
	struct nvl_gpuva *vas[NVL_GPUVM_BULK_MAX];
	struct nvl_ibtree_entry *ent[NVL_GPUVM_BULK_MAX];
	bool got[NVL_GPUVM_BULK_MAX];
	uint64_t keys[2][NVL_GPUVM_BULK_MAX];
	const uint64_t *key = sort_valid(vm, reqs, n, keys[0], keys[1]);
	struct nvl_ibtree_cursor c = {0};
	struct nvl_ibtree_entry *f;
	bool fresh = true, regions_ok;
	uint64_t prev_end = 0;
	uint32_t i;
	int ret;

	if (!key)
		return 1;
	/* the whole batch in one region or in none: each request is */
	regions_ok = nvl_gpuvm_map_regions_ok(vm, hull_lo(reqs, key),
					      hull_hi(reqs, key, n) -
						      hull_lo(reqs, key));
	for (uint32_t j = 0; j < n; j++) {
		const struct nvl_gpuvm_map_req *r = &reqs[key[j] & IDX_MASK];

		if (!disjoint(r, &prev_end))
			return 1;
		if (!regions_ok &&
		    !nvl_gpuvm_map_regions_ok(vm, r->addr, r->range))
			return 1;
		if (nvl_ibtree_empty(&vm->vas))
			continue;
		f = seek(vm, &c, &fresh, r->addr);
		if (f && f->start <= r->addr + r->range - 1)
			return 1; /* it would unmap or split: op lists */
	}
	/*
	 * eligible: ask the backend to start loading what each get() reads,
	 * all of them before the first get(), so that their misses overlap
	 * (one just before its get() hid nothing of it)
	 */
	if (vm->pt->prefetch)
		for (i = 0; i < n; i++)
			vm->pt->prefetch(vm->pt_priv, reqs[i].addr,
					 reqs[i].range);
	/* then take everything in call order */
	for (i = 0; i < n; i++) {
		const struct nvl_gpuvm_map_req *r = &reqs[i];
		struct nvl_gpuvm_bo *vm_bo = NULL;

		got[i] = false;
		if (r->obj && hint && hint->obj == r->obj) {
			vm_bo = hint;
			nvl_gpuvm_bo_get(vm_bo);
		} else if (r->obj) {
			vm_bo = nvl_gpuvm_bo_obtain(vm, r->obj);
			if (!vm_bo) {
				ret = -ENOMEM;
				goto fail;
			}
		}
		/* the reference obtained is the mapping's */
		vas[i] = nvl_txn_new_va(vm, r->addr, r->range, r->bo_offset,
					(uint16_t)r->flags, vm_bo, true);
		if (!vas[i]) {
			ret = -ENOMEM;
			goto fail;
		}
		if (vm_bo)
			hint = vm_bo;
		ret = nvl_txn_pt_get(vm, vas[i]);
		if (ret) {
			i++;
			goto fail;
		}
		got[i] = true;
	}
	ret = nvl_txn_grow(txn, n, n);
	if (!ret)
		ret = nvl_txn_reserve_tree(vm, n + txn->nremoved);
	if (ret)
		goto fail;

	/* apply: the tree as one sorted run, lists and log in call order */
	for (uint32_t j = 0; j < n; j++) {
		struct nvl_gpuva *va = vas[key[j] & IDX_MASK];

		va->flags |= NVL_GPUVA_PENDING;
		atomic_store_explicit(&va->written, 0, memory_order_relaxed);
		ent[j] = &va->node;
	}
	/* reserved above (the preload covers a run as it covers inserts) */
	if (NVL_NEVER(nvl_ibtree_insert_sorted(&vm->vas, ent, n)))
		return -ENOMEM;
	nvl_txn_took_rooms(vm, n);
	/* the unmap hook walks vm_bo->vas under the zap lock (vm_bo.c) */
	nvl_flock_lock(&vm->zap_lock);
	for (i = 0; i < n; i++) {
		struct nvl_gpuva *va = vas[i];

		if (va->vm_bo) {
			nvl_list_add_tail(&va->bo_link, &va->vm_bo->vas);
			txn->hint = va->vm_bo;
		}
		/* nvl_txn_log_add() without its call (room grown above) */
		txn->log[txn->nlog++] =
			(struct nvl_gpuvm_txn_ent){T_INSERT_VA, va, NULL};
	}
	nvl_flock_unlock(&vm->zap_lock);
	for (uint32_t j = 0; j < n; j++) {
		struct nvl_gpuva *va = vas[key[j] & IDX_MASK];

		/* a lazy mapping's pages are written on fault */
		if (!(va->flags & NVL_GPUVA_LAZY))
			nvl_txn_cmd_add(txn, NVL_GPUVM_PT_MAP,
					nvl_gpuva_addr(va), nvl_gpuva_range(va),
					va->page_shift, false, va);
	}
	return 0;
fail:
	release_all(vm, vas, got, i);
	return ret;
}

/* an unmap command, merged into the previous one when adjacent */
static void unmap_cmd(struct nvl_gpuvm_txn *txn, uint32_t first, int hull,
		      const struct nvl_gpuva *va)
{
	struct nvl_gpuvm_pt_cmd *c =
		txn->ncmd > first ? &txn->cmd[txn->ncmd - 1] : NULL;
	bool sparse = hull < 0 ? nvl_txn_in_region(txn->vm, va) : hull;

	if (c && c->addr + c->range == nvl_gpuva_addr(va) &&
	    c->page_shift == va->page_shift && c->sparse == sparse) {
		c->range += nvl_gpuva_range(va);
		if (c->addr + c->range > txn->flush_hi)
			txn->flush_hi = c->addr + c->range;
		return;
	}
	nvl_txn_cmd_add(txn, NVL_GPUVM_PT_UNMAP, nvl_gpuva_addr(va),
			nvl_gpuva_range(va), va->page_shift, sparse, NULL);
}

static int unmap_bulk(struct nvl_gpuvm_txn *txn,
		      const struct nvl_gpuvm_map_req *reqs, uint32_t n)
{
	struct nvl_gpuvm *vm = txn->vm;
	/* the mappings found, ascending; request j's are [lo[j], lo[j + 1]) */
	struct nvl_gpuva *vas[NVL_GPUVM_BULK_MAX];
	struct nvl_ibtree_entry *ent[NVL_GPUVM_BULK_MAX];
	uint32_t lo[NVL_GPUVM_BULK_MAX + 1], rank[NVL_GPUVM_BULK_MAX];
	uint64_t keys[2][NVL_GPUVM_BULK_MAX];
	const uint64_t *key = sort_valid(vm, reqs, n, keys[0], keys[1]);
	struct nvl_ibtree_cursor c = {0};
	struct nvl_ibtree_entry *f;
	bool fresh = true;
	uint64_t prev_end = 0;
	uint32_t nva = 0, first;
	int ret, hull;

	if (!key)
		return 1;
	for (uint32_t j = 0; j < n; j++) {
		const struct nvl_gpuvm_map_req *r = &reqs[key[j] & IDX_MASK];
		uint64_t last = r->addr + r->range - 1;

		if (!disjoint(r, &prev_end))
			return 1;
		rank[key[j] & IDX_MASK] = j;
		lo[j] = nva;
		f = seek(vm, &c, &fresh, r->addr);
		for (; f && f->start <= last; f = nvl_ibtree_cursor_next(&c)) {
			/* a piece would stay (REMAP), or too many: op lists */
			if (f->start < r->addr || f->last > last ||
			    nva == NVL_GPUVM_BULK_MAX)
				return 1;
			ent[nva] = f;
			vas[nva++] = container_of(f, struct nvl_gpuva, node);
		}
	}
	lo[n] = nva;
	if (!nva)
		return 0; /* nothing mapped there: nothing to do */
	ret = nvl_txn_grow(txn, nva, nva);
	if (!ret)
		ret = nvl_txn_reserve_tree(vm, nva + txn->nremoved);
	if (ret)
		return ret;

	/* lists and log in call order (abort re-links after e->pos) */
	nvl_flock_lock(&vm->zap_lock);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = rank[i];

		for (uint32_t k = lo[j]; k < lo[j + 1]; k++) {
			struct nvl_gpuva *va = vas[k];

			txn->log[txn->nlog++] = (struct nvl_gpuvm_txn_ent){
				T_REMOVE_VA, va, va->bo_link.prev};
			nvl_list_del(&va->bo_link);
		}
	}
	nvl_flock_unlock(&vm->zap_lock);
	txn->nremoved += nva;
	/* the commands ascending (the regions still hold), the tree after */
	first = txn->ncmd;
	hull = hull_sparse(vm, nvl_gpuva_addr(vas[0]),
			   nvl_gpuva_end(vas[nva - 1]));
	for (uint32_t k = 0; k < nva; k++)
		unmap_cmd(txn, first, hull, vas[k]);
	nvl_ibtree_remove_sorted(&vm->vas, ent, nva);
	return 0;
}

int nvl_gpuvm_txn_bulk(struct nvl_gpuvm_txn *txn, bool unmap,
		       const struct nvl_gpuvm_map_req *reqs, uint32_t n)
{
	int ret;

	if (n < 2 || n > NVL_GPUVM_BULK_MAX || txn->vm->no_bulk)
		return 1;
	ret = unmap ? unmap_bulk(txn, reqs, n) : map_bulk(txn, reqs, n);
	if (!ret)
		txn->vm->nr_bulk += n;
	return ret;
}
