// SPDX-License-Identifier: MIT
/*
 * DOC: The recording page-table backend
 *
 * Records what the page tables map as runs: maximal address ranges of one
 * state (mapped to one BO at contiguous offsets, sparse). Invalid ranges hold
 * no run. Runs live in an interval tree, so a write costs O(log n) whatever
 * the size of the range, and a million 4 KiB mappings cost a million runs,
 * not a per-page array. The record is exact: query() answers per page.
 *
 * Writes (map, unmap, sparse) run in the commit phase and must not allocate,
 * so run nodes come from a pool that get() fills: every outstanding get()
 * pays for two nodes (a mapping splits at most one run and adds one; a
 * sparse range merges with its neighbours, so sparse runs never outnumber
 * the regions plus the mappings inside them), put() trims the pool back.
 * A write that finds the pool empty is counted in stats.errors (a GPUVM bug:
 * tests check it stays 0).
 *
 * One mutex (a leaf: nothing is allocated or waited for under it) makes the
 * backend safe for binds committing from several bind queues at once.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/itree.h"
#include "base/log.h"
#include "vm/pt_record.h"

#define NODES_PER_GET 2
#define HEADROOM 4

struct run {
	struct nvl_itree_node node;
	struct nvl_gem_object *obj;
	uint64_t bo_offset;
	uint32_t flags;
	uint8_t state;
	uint8_t page_shift;
};

struct nvl_vm_pt_record {
	pthread_mutex_t lock;
	struct nvl_itree runs;
	struct run *free;
	uint64_t nfree, nused, budget;
	uint64_t refs, ref_bytes;
	uint64_t maps, unmaps, sparses, flushes, errors;
	unsigned int fail_map_after;
	int pending_error;
};

int nvl_vm_pt_record_create(struct nvl_vm_pt_record **rec_out)
{
	struct nvl_vm_pt_record *rec = nvl_zalloc(sizeof(*rec));

	if (!rec)
		return -ENOMEM;
	pthread_mutex_init(&rec->lock, NULL);
	nvl_itree_init(&rec->runs);
	rec->budget = HEADROOM;
	*rec_out = rec;
	return 0;
}

void nvl_vm_pt_record_destroy(struct nvl_vm_pt_record *rec)
{
	struct nvl_itree_node *n;

	if (!rec)
		return;
	while ((n = nvl_itree_min(&rec->runs))) {
		nvl_itree_remove(&rec->runs, n);
		nvl_free(container_of(n, struct run, node));
	}
	while (rec->free) {
		struct run *r = rec->free;

		rec->free = *(struct run **)r;
		nvl_free(r);
	}
	pthread_mutex_destroy(&rec->lock);
	nvl_free(rec);
}

static struct run *run_alloc(struct nvl_vm_pt_record *rec)
{
	struct run *r = rec->free;

	if (!r) {
		rec->errors++;
		return NULL;
	}
	rec->free = *(struct run **)r;
	rec->nfree--;
	rec->nused++;
	memset(r, 0, sizeof(*r));
	return r;
}

static void run_free(struct nvl_vm_pt_record *rec, struct run *r)
{
	*(struct run **)r = rec->free;
	rec->free = r;
	rec->nfree++;
	rec->nused--;
}

static void pool_trim(struct nvl_vm_pt_record *rec)
{
	while (rec->free && rec->nfree + rec->nused > rec->budget) {
		struct run *r = rec->free;

		rec->free = *(struct run **)r;
		rec->nfree--;
		nvl_free(r);
	}
}

static int rec_get(void *priv, uint64_t va, uint64_t range,
		   unsigned int page_shift)
{
	struct nvl_vm_pt_record *rec = priv;
	uint64_t need;

	(void)va;
	(void)page_shift;
	pthread_mutex_lock(&rec->lock);
	for (;;) {
		struct run *r;

		need = rec->budget + NODES_PER_GET;
		if (rec->nfree + rec->nused >= need)
			break;
		/* Allocate outside the lock, then give it to the pool. */
		pthread_mutex_unlock(&rec->lock);
		r = nvl_malloc(sizeof(*r));
		if (!r)
			return -ENOMEM;
		pthread_mutex_lock(&rec->lock);
		*(struct run **)r = rec->free;
		rec->free = r;
		rec->nfree++;
	}
	rec->budget = need;
	rec->refs++;
	rec->ref_bytes += range;
	pthread_mutex_unlock(&rec->lock);
	return 0;
}

static void rec_put(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)va;
	(void)page_shift;
	pthread_mutex_lock(&rec->lock);
	if (rec->refs == 0) {
		rec->errors++;
	} else {
		rec->refs--;
		rec->ref_bytes -= range;
		rec->budget -= NODES_PER_GET;
		pool_trim(rec);
	}
	pthread_mutex_unlock(&rec->lock);
}

static void rekey(struct nvl_vm_pt_record *rec, struct run *r, uint64_t start,
		  uint64_t last)
{
	nvl_itree_remove(&rec->runs, &r->node);
	if (r->state == NVL_VM_PT_MAPPED && !(r->flags & NVL_VM_PT_NULL))
		r->bo_offset += start - r->node.start;
	r->node.start = start;
	r->node.last = last;
	nvl_itree_insert(&rec->runs, &r->node);
}

/* Remove every recorded state from [s, l]. */
static void carve(struct nvl_vm_pt_record *rec, uint64_t s, uint64_t l)
{
	struct nvl_itree_node *n = nvl_itree_first(&rec->runs, s, l);

	while (n) {
		struct run *r = container_of(n, struct run, node);
		struct nvl_itree_node *next = nvl_itree_next(n, s, l);
		uint64_t rs = n->start, rl = n->last;

		if (rs < s && rl > l) {
			struct run *tail = run_alloc(rec);

			if (tail) {
				*tail = *r;
				if (r->state == NVL_VM_PT_MAPPED &&
				    !(r->flags & NVL_VM_PT_NULL))
					tail->bo_offset += l + 1 - rs;
				tail->node.start = l + 1;
				tail->node.last = rl;
				nvl_itree_insert(&rec->runs, &tail->node);
			}
			rekey(rec, r, rs, s - 1);
			return;
		} else if (rs < s) {
			rekey(rec, r, rs, s - 1);
		} else if (rl > l) {
			rekey(rec, r, l + 1, rl);
		} else {
			nvl_itree_remove(&rec->runs, n);
			run_free(rec, r);
		}
		n = next;
	}
}

static void insert_sparse(struct nvl_vm_pt_record *rec, uint64_t s,
			  uint64_t l)
{
	struct nvl_itree_node *p = s ? nvl_itree_first(&rec->runs, s - 1, s - 1)
				     : NULL;
	struct nvl_itree_node *q = l != UINT64_MAX ?
		nvl_itree_first(&rec->runs, l + 1, l + 1) : NULL;
	struct run *pr = p ? container_of(p, struct run, node) : NULL;
	struct run *qr = q ? container_of(q, struct run, node) : NULL;
	struct run *r;

	if (pr && pr->state != NVL_VM_PT_SPARSE)
		pr = NULL;
	if (qr && qr->state != NVL_VM_PT_SPARSE)
		qr = NULL;
	if (pr && qr) {
		uint64_t last = qr->node.last;

		nvl_itree_remove(&rec->runs, &qr->node);
		run_free(rec, qr);
		rekey(rec, pr, pr->node.start, last);
		return;
	}
	if (pr) {
		rekey(rec, pr, pr->node.start, l);
		return;
	}
	if (qr) {
		rekey(rec, qr, s, qr->node.last);
		return;
	}
	r = run_alloc(rec);
	if (!r)
		return;
	r->state = NVL_VM_PT_SPARSE;
	r->node.start = s;
	r->node.last = l;
	nvl_itree_insert(&rec->runs, &r->node);
}

static void rec_map(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift, struct nvl_gem_object *obj,
		    uint64_t bo_offset, uint32_t flags)
{
	struct nvl_vm_pt_record *rec = priv;
	struct run *r;

	pthread_mutex_lock(&rec->lock);
	rec->maps++;
	if (rec->fail_map_after && --rec->fail_map_after == 0)
		rec->pending_error = -EIO;
	carve(rec, va, va + range - 1);
	r = run_alloc(rec);
	if (r) {
		r->state = NVL_VM_PT_MAPPED;
		r->obj = obj;
		r->bo_offset = obj ? bo_offset : 0;
		r->flags = flags;
		r->page_shift = (uint8_t)page_shift;
		r->node.start = va;
		r->node.last = va + range - 1;
		nvl_itree_insert(&rec->runs, &r->node);
	}
	pthread_mutex_unlock(&rec->lock);
}

static void rec_unmap(void *priv, uint64_t va, uint64_t range,
		      unsigned int page_shift, bool to_sparse)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)page_shift;
	pthread_mutex_lock(&rec->lock);
	rec->unmaps++;
	carve(rec, va, va + range - 1);
	if (to_sparse)
		insert_sparse(rec, va, va + range - 1);
	pthread_mutex_unlock(&rec->lock);
}

static void rec_sparse(void *priv, uint64_t va, uint64_t range, bool enable)
{
	struct nvl_vm_pt_record *rec = priv;

	pthread_mutex_lock(&rec->lock);
	rec->sparses++;
	carve(rec, va, va + range - 1);
	if (enable)
		insert_sparse(rec, va, va + range - 1);
	pthread_mutex_unlock(&rec->lock);
}

static void rec_flush(void *priv, uint64_t va, uint64_t range)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)va;
	(void)range;
	pthread_mutex_lock(&rec->lock);
	rec->flushes++;
	pthread_mutex_unlock(&rec->lock);
}

static int rec_take_error(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;
	int err;

	pthread_mutex_lock(&rec->lock);
	err = rec->pending_error;
	rec->pending_error = 0;
	pthread_mutex_unlock(&rec->lock);
	return err;
}

const struct nvl_vm_pt_ops nvl_vm_pt_record_ops = {
	.get = rec_get,
	.put = rec_put,
	.map = rec_map,
	.unmap = rec_unmap,
	.sparse = rec_sparse,
	.flush = rec_flush,
	.take_error = rec_take_error,
};

static void fill_page(const struct run *r, uint64_t va,
		      struct nvl_vm_pt_page *out)
{
	out->state = r->state;
	out->obj = r->obj;
	out->flags = r->flags;
	out->page_shift = r->page_shift;
	out->bo_offset = r->obj ? r->bo_offset + (va - r->node.start) : 0;
}

void nvl_vm_pt_record_query(struct nvl_vm_pt_record *rec, uint64_t va,
			    struct nvl_vm_pt_page *out)
{
	struct nvl_itree_node *n;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&rec->lock);
	n = nvl_itree_first(&rec->runs, va, va);
	if (n)
		fill_page(container_of(n, struct run, node), va, out);
	pthread_mutex_unlock(&rec->lock);
}

uint64_t nvl_vm_pt_record_hash(struct nvl_vm_pt_record *rec)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct nvl_itree_node *n;

#define MIX(x) (h = (h ^ (uint64_t)(x)) * 0x100000001b3ull)
	pthread_mutex_lock(&rec->lock);
	for (n = nvl_itree_min(&rec->runs); n; n = nvl_itree_succ(n)) {
		struct run *r = container_of(n, struct run, node);

		MIX(n->start);
		MIX(n->last);
		MIX(r->state);
		MIX((uintptr_t)r->obj);
		MIX(r->bo_offset);
		MIX(r->flags);
	}
	MIX(rec->refs);
	MIX(rec->ref_bytes);
	pthread_mutex_unlock(&rec->lock);
#undef MIX
	return h;
}

void nvl_vm_pt_record_stats(struct nvl_vm_pt_record *rec,
			    struct nvl_vm_pt_record_stats *out)
{
	pthread_mutex_lock(&rec->lock);
	out->refs = rec->refs;
	out->ref_bytes = rec->ref_bytes;
	out->runs = rec->nused;
	out->maps = rec->maps;
	out->unmaps = rec->unmaps;
	out->sparses = rec->sparses;
	out->flushes = rec->flushes;
	out->errors = rec->errors;
	out->heap_B = (rec->nused + rec->nfree) * sizeof(struct run) +
		      sizeof(*rec);
	pthread_mutex_unlock(&rec->lock);
}

void nvl_vm_pt_record_fail_map_after(struct nvl_vm_pt_record *rec,
				     unsigned int n)
{
	pthread_mutex_lock(&rec->lock);
	rec->fail_map_after = n;
	pthread_mutex_unlock(&rec->lock);
}

void nvl_vm_pt_record_for_each(struct nvl_vm_pt_record *rec,
			       void (*fn)(uint64_t va, uint64_t range,
					  const struct nvl_vm_pt_page *p,
					  void *arg),
			       void *arg)
{
	struct nvl_itree_node *n;

	pthread_mutex_lock(&rec->lock);
	for (n = nvl_itree_min(&rec->runs); n; n = nvl_itree_succ(n)) {
		struct nvl_vm_pt_page p;

		fill_page(container_of(n, struct run, node), n->start, &p);
		fn(n->start, n->last - n->start + 1, &p, arg);
	}
	pthread_mutex_unlock(&rec->lock);
}
