// SPDX-License-Identifier: MIT
/*
 * DOC: The recording page-table backend
 *
 * Records, exactly and per page, what the page tables map. Like real page
 * tables, the record is split in chunks of 512 pages (one 2 MiB "table"
 * each), found through a hash table: a write touches only the chunks of its
 * range, whatever the VM holds, so the cost of a 4 KiB bind does not grow
 * with the number of mappings (no deep tree walk, one or two cache misses).
 *
 * A chunk keeps a small sorted array of runs: [s, e) pages of one state
 * (mapped to one BO at contiguous offsets with one set of flags, or sparse;
 * invalid pages hold no run). Adjacent sparse runs are merged.
 *
 * Writes (map, unmap, sparse) happen in the commit phase and must not
 * allocate, so get() does what a real backend does: it allocates the chunks
 * ("page-table pages") of the range, takes a reference on each, and makes
 * room in each for two more runs per reference (a mapping splits at most one
 * run and adds one; sparse runs never outnumber the mappings between them
 * plus one). put() drops the references and frees a chunk with its last.
 * A write that finds no chunk or no room is counted in stats.errors: a
 * GPUVM bug, which the tests check never happens.
 *
 * One lock (a leaf: nothing waits under it; a test-and-set spin lock that
 * yields) makes the backend safe for binds committing from several bind
 * queues at once.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/log.h"
#include "vm/pt_record.h"

#define CHUNK_SHIFT 9 /* pages per chunk: 512 */
#define CHUNK_PAGES (1u << CHUNK_SHIFT)
#define PAGE_SHIFT 12
#define HUGE_B (2u << 20)

struct prun {
	uint32_t s, e; /* pages within the chunk, [s, e) */
	uint32_t flags;
	uint8_t state, page_shift;
	struct nvl_gem_object *obj;
	uint64_t off; /* byte offset in obj of page s */
};

struct chunk {
	uint64_t key; /* va >> (PAGE_SHIFT + CHUNK_SHIFT) */
	uint32_t n, cap;
	struct prun runs[]; /* in the same allocation: one cache miss less */
};

/*
 * The chunk index: open addressing with linear probing, at most half full.
 * A slot holds the key, the chunk and the chunk's reference count and run
 * capacity, so get() and put() read one slot and never the chunk itself
 * (unless it must grow); get() prefetches the chunk for the map that follows.
 * A chained table walked cold chunks just to compare keys.
 */
struct slot {
	uint64_t key;
	struct chunk *c; /* NULL: empty */
	uint32_t refs, cap; /* cap mirrors c->cap */
};

/*
 * Chunks come from a pool of power-of-two size classes (4, 8, 16, ...
 * runs) carved from slabs that grow to 2 MiB on huge pages: a million
 * mappings spread their chunks over ~100 MiB, and with 4 KiB pages nearly
 * every chunk access also missed the TLB. Freed chunks go to their class's
 * free list; slabs are returned at destroy. Larger chunks use the heap.
 */
#define POOL_CLASSES 9 /* up to 1024 runs (32 KiB) */
#define SLAB_MIN (64u << 10)

struct pool {
	void *free[POOL_CLASSES];
	void *slabs; /* each starts with the previous slab's address */
	char *bump, *end;
	size_t slab_B, bytes;
};

struct nvl_vm_pt_record {
	/** @busy: the lock (rec_lock()) */
	atomic_bool busy;
	struct pool pool;
	struct slot *slots;
	uint64_t nslots, nchunks;
	uint64_t refs, ref_bytes, runs, run_cap;
	uint64_t maps, unmaps, sparses, flushes, errors;
	unsigned int fail_map_after;
	int pending_error;
};

/*
 * The lock: held for a few hundred instructions at most, by binds of one VM
 * on different queues, so a test-and-set with a yield beats a mutex's two
 * atomics and call per write (issue 19: the backend's per-bind cost).
 */
static void rec_lock_raw(struct nvl_vm_pt_record *rec)
{
	while (atomic_exchange_explicit(&rec->busy, true, memory_order_acquire))
		while (atomic_load_explicit(&rec->busy, memory_order_relaxed))
			sched_yield();
}

/*
 * The record this thread holds through the @lock hook (rec_hold()): its
 * calls in between find it here and skip the lock. Thread-local, so
 * another thread never reads it.
 */
static _Thread_local const struct nvl_vm_pt_record *held
	__attribute__((tls_model("initial-exec")));

static void rec_lock(struct nvl_vm_pt_record *rec)
{
	if (held != rec)
		rec_lock_raw(rec);
}

static void rec_unlock(struct nvl_vm_pt_record *rec)
{
	if (held != rec)
		atomic_store_explicit(&rec->busy, false, memory_order_release);
}

/* The @lock hook: one lock for a whole bind. Not nested. */
static void rec_hold(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;

	rec_lock_raw(rec);
	held = rec;
}

static void rec_release(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;

	held = NULL;
	atomic_store_explicit(&rec->busy, false, memory_order_release);
}

/* Fibonacci hashing: the top bits of key * 2^64 / phi (nb a power of 2). */
static uint64_t hash(uint64_t key, uint64_t nb)
{
	return (key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(nb));
}

static size_t chunk_bytes(uint32_t cap)
{
	return sizeof(struct chunk) + cap * sizeof(struct prun);
}

/* Size class of a @cap-run chunk (cap a power of two >= 4), or -1. */
static int pool_class(uint32_t cap)
{
	int k = __builtin_ctz(cap) - 2;

	return k < POOL_CLASSES ? k : -1;
}

static struct chunk *chunk_alloc(struct pool *p, uint32_t cap)
{
	size_t need = chunk_bytes(cap);
	int k = pool_class(cap);
	void *c;

	if (k < 0)
		return nvl_malloc(need);
	if ((c = p->free[k])) {
		p->free[k] = *(void **)c;
		return c;
	}
	if (!p->bump || (size_t)(p->end - p->bump) < need) {
		size_t sz = p->slab_B ? p->slab_B : SLAB_MIN;
		char *slab = sz >= HUGE_B ? nvl_aligned_alloc(HUGE_B, sz)
					  : nvl_malloc(sz);

		if (!slab)
			return NULL;
		if (sz >= HUGE_B)
			madvise(slab, sz, MADV_HUGEPAGE);
		/* the old slab's tail is lost: at most one chunk's bytes */
		*(void **)slab = p->slabs;
		p->slabs = slab;
		p->bump = slab + 64;
		p->end = slab + sz;
		p->bytes += sz;
		p->slab_B = sz < HUGE_B ? sz * 2 : HUGE_B;
	}
	c = p->bump;
	p->bump += need;
	return c;
}

static void chunk_free(struct pool *p, struct chunk *c)
{
	int k = pool_class(c->cap);

	if (k < 0) {
		nvl_free(c);
		return;
	}
	*(void **)c = p->free[k];
	p->free[k] = c;
}

static void pool_fini(struct pool *p)
{
	while (p->slabs) {
		void *next = *(void **)p->slabs;

		nvl_free(p->slabs);
		p->slabs = next;
	}
}

int nvl_vm_pt_record_create(struct nvl_vm_pt_record **rec_out)
{
	struct nvl_vm_pt_record *rec = nvl_zalloc(sizeof(*rec));

	if (!rec)
		return -ENOMEM;
	rec->nslots = 64;
	rec->slots = nvl_calloc(rec->nslots, sizeof(*rec->slots));
	if (!rec->slots) {
		nvl_free(rec);
		return -ENOMEM;
	}
	*rec_out = rec;
	return 0;
}

void nvl_vm_pt_record_destroy(struct nvl_vm_pt_record *rec)
{
	if (!rec)
		return;
	for (uint64_t i = 0; i < rec->nslots; i++)
		if (rec->slots[i].c && pool_class(rec->slots[i].c->cap) < 0)
			nvl_free(rec->slots[i].c);
	pool_fini(&rec->pool);
	nvl_free(rec->slots);
	nvl_free(rec);
}

/* The slot holding @key, or the empty slot where it would go. */
static struct slot *probe(const struct nvl_vm_pt_record *rec, uint64_t key)
{
	uint64_t mask = rec->nslots - 1, i = hash(key, rec->nslots);

	while (rec->slots[i].c && rec->slots[i].key != key)
		i = (i + 1) & mask;
	return &rec->slots[i];
}

static struct chunk *find(const struct nvl_vm_pt_record *rec, uint64_t key)
{
	return probe(rec, key)->c;
}

/* Double the index; Return: 0, or -ENOMEM (the index is unchanged). */
static int grow(struct nvl_vm_pt_record *rec)
{
	uint64_t nb = rec->nslots * 2, mask = nb - 1;
	size_t bytes = nb * sizeof(struct slot);
	struct slot *v;

	/* a large index is probed at random: back it with huge pages */
	if (bytes >= HUGE_B) {
		v = nvl_aligned_alloc(HUGE_B, bytes);
		if (v)
			madvise(v, bytes, MADV_HUGEPAGE);
	} else {
		v = nvl_malloc(bytes);
	}
	if (!v)
		return -ENOMEM;
	memset(v, 0, bytes);
	for (uint64_t i = 0; i < rec->nslots; i++) {
		uint64_t j;

		if (!rec->slots[i].c)
			continue;
		j = hash(rec->slots[i].key, nb);
		while (v[j].c)
			j = (j + 1) & mask;
		v[j] = rec->slots[i];
	}
	nvl_free(rec->slots);
	__atomic_store_n(&rec->slots, v, __ATOMIC_RELAXED);
	__atomic_store_n(&rec->nslots, nb, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Empty slot @i, moving later members of its probe run back so that every
 * key stays reachable from its home slot without tombstones.
 */
static void slot_delete(struct nvl_vm_pt_record *rec, uint64_t i)
{
	uint64_t mask = rec->nslots - 1, j = i;

	for (;;) {
		uint64_t home;

		j = (j + 1) & mask;
		if (!rec->slots[j].c)
			break;
		home = hash(rec->slots[j].key, rec->nslots);
		/* may the entry at j move to i? only if home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			rec->slots[i] = rec->slots[j];
			i = j;
		}
	}
	rec->slots[i].c = NULL;
}

static void chunk_unref(struct nvl_vm_pt_record *rec, uint64_t key)
{
	struct slot *sl = probe(rec, key);
	struct chunk *c = sl->c;

	if (!c || !sl->refs) {
		rec->errors++;
		return;
	}
	if (--sl->refs)
		return;
	if (c->n)
		rec->errors++; /* a table freed while still mapping something */
	slot_delete(rec, (uint64_t)(sl - rec->slots));
	rec->nchunks--;
	rec->runs -= c->n;
	rec->run_cap -= c->cap;
	chunk_free(&rec->pool, c);
}

/* Take one reference on chunk @key with room for its runs. */
static int chunk_ref(struct nvl_vm_pt_record *rec, uint64_t key)
{
	struct slot *sl = probe(rec, key);
	struct chunk *c = sl->c;
	uint32_t need;
	size_t bytes;

	if (!c) {
		/* at most half full; past that only a failed grow lets it fill
		 * up to three quarters before refusing */
		if (2 * (rec->nchunks + 1) > rec->nslots) {
			if (grow(rec) &&
			    4 * (rec->nchunks + 1) > 3 * rec->nslots)
				return -ENOMEM;
			sl = probe(rec, key);
		}
		c = chunk_alloc(&rec->pool, 4);
		if (!c)
			return -ENOMEM;
		memset(c, 0, chunk_bytes(4));
		c->key = key;
		c->cap = 4;
		sl->key = key;
		sl->c = c;
		sl->refs = 0;
		sl->cap = 4;
		rec->nchunks++;
		rec->run_cap += 4;
	}
	need = 2 * (sl->refs + 1) + 2;
	if (sl->cap < need) {
		uint32_t cap = sl->cap;
		struct chunk *nc;

		while (cap < need)
			cap *= 2;
		nc = chunk_alloc(&rec->pool, cap);
		if (nc) {
			memcpy(nc, c, chunk_bytes(c->cap));
			chunk_free(&rec->pool, c);
		} else {
			if (!sl->refs) {
				sl->refs = 1;
				chunk_unref(rec, key);
			}
			return -ENOMEM;
		}
		sl->c = nc; /* the index did not move */
		rec->run_cap += cap - nc->cap;
		nc->cap = cap;
		sl->cap = cap;
		c = nc;
	}
	sl->refs++;
	/* the header and the first runs, which the map's carve() scans */
	bytes = NVL_MIN(sizeof(*c) + sl->cap * sizeof(c->runs[0]), (size_t)256);
	for (size_t o = 0; o < bytes; o += 64)
		__builtin_prefetch((const char *)c + o);
	return 0;
}

static int rec_get(void *priv, uint64_t va, uint64_t range,
		   unsigned int page_shift)
{
	struct nvl_vm_pt_record *rec = priv;
	uint64_t k0 = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uint64_t k1 = (va + range - 1) >> (PAGE_SHIFT + CHUNK_SHIFT);
	int ret = 0;

	(void)page_shift;
	/*
	 * Allocation under the lock: the lock is a leaf only taken by this
	 * backend, and get() runs in the prepare phase, never in a
	 * signalling section.
	 */
	rec_lock(rec);
	for (uint64_t k = k0; k <= k1; k++) {
		ret = chunk_ref(rec, k);
		if (ret) {
			while (k-- > k0)
				chunk_unref(rec, k);
			break;
		}
	}
	if (!ret) {
		rec->refs++;
		rec->ref_bytes += range;
	}
	rec_unlock(rec);
	return ret;
}

static void rec_put(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift)
{
	struct nvl_vm_pt_record *rec = priv;
	uint64_t k0 = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uint64_t k1 = (va + range - 1) >> (PAGE_SHIFT + CHUNK_SHIFT);

	(void)page_shift;
	rec_lock(rec);
	for (uint64_t k = k0; k <= k1; k++)
		chunk_unref(rec, k);
	if (!rec->refs)
		rec->errors++;
	else
		rec->refs--, rec->ref_bytes -= range;
	rec_unlock(rec);
}

/*
 * Runs move one slot at a time: a chunk holds a handful of runs (a tile in
 * a sparse table: three), where a call of memmove() cost more than the
 * copy (issue 19: 4.5% of a sparse tile bind's time). The empty asm hides
 * the index from GCC, which would turn the loop back into that call.
 */
#define RUN_STEP(j) __asm__("" : "+r"(j))

static void run_insert_at(struct nvl_vm_pt_record *rec, struct chunk *c,
			  uint32_t i, const struct prun *r)
{
	for (uint32_t j = c->n; j > i; j--) {
		RUN_STEP(j);
		c->runs[j] = c->runs[j - 1];
	}
	c->runs[i] = *r;
	c->n++;
	rec->runs++;
}

static void run_remove_at(struct nvl_vm_pt_record *rec, struct chunk *c,
			  uint32_t i)
{
	for (uint32_t j = i + 1; j < c->n; j++) {
		RUN_STEP(j);
		c->runs[j - 1] = c->runs[j];
	}
	c->n--;
	rec->runs--;
}

static void cut_front(struct prun *r, uint32_t s)
{
	if (r->obj)
		r->off += (uint64_t)(s - r->s) << PAGE_SHIFT;
	r->s = s;
}

/*
 * Clear [s, e) of chunk @c; Return: the index where a run for [s, e) goes,
 * or -1 when there is no room.
 */
static int carve(struct nvl_vm_pt_record *rec, struct chunk *c, uint32_t s,
		 uint32_t e)
{
	uint32_t i = 0;

	while (i < c->n && c->runs[i].e <= s)
		i++;
	if (i < c->n && c->runs[i].s < s && c->runs[i].e > e) {
		struct prun tail = c->runs[i];

		if (c->n + 2 > c->cap) {
			rec->errors++;
			return -1;
		}
		cut_front(&tail, e);
		c->runs[i].e = s;
		run_insert_at(rec, c, i + 1, &tail);
		return (int)i + 1;
	}
	if (i < c->n && c->runs[i].s < s) {
		c->runs[i].e = s;
		i++;
	}
	while (i < c->n && c->runs[i].e <= e)
		run_remove_at(rec, c, i);
	if (i < c->n && c->runs[i].s < e)
		cut_front(&c->runs[i], e);
	if (c->n + 1 > c->cap) {
		rec->errors++;
		return -1;
	}
	return (int)i;
}

static void put_sparse(struct nvl_vm_pt_record *rec, struct chunk *c,
		       uint32_t i, uint32_t s, uint32_t e)
{
	bool left = i > 0 && c->runs[i - 1].state == NVL_VM_PT_SPARSE &&
		    c->runs[i - 1].e == s;
	bool right = i < c->n && c->runs[i].state == NVL_VM_PT_SPARSE &&
		     c->runs[i].s == e;
	struct prun r = {.s = s, .e = e, .state = NVL_VM_PT_SPARSE};

	if (left && right) {
		c->runs[i - 1].e = c->runs[i].e;
		run_remove_at(rec, c, i);
	} else if (left) {
		c->runs[i - 1].e = e;
	} else if (right) {
		c->runs[i].s = s;
	} else {
		run_insert_at(rec, c, i, &r);
	}
}

enum { W_MAP, W_INVALID, W_SPARSE };

static void write_range(struct nvl_vm_pt_record *rec, uint64_t va,
			uint64_t range, int what, const struct prun *tmpl)
{
	uint64_t p = va >> PAGE_SHIFT, pe = (va + range) >> PAGE_SHIFT;

	while (p < pe) {
		uint64_t key = p >> CHUNK_SHIFT;
		uint64_t cend = (key + 1) << CHUNK_SHIFT;
		uint64_t q = pe < cend ? pe : cend;
		uint32_t s = (uint32_t)(p & (CHUNK_PAGES - 1));
		uint32_t e = (uint32_t)(q - (key << CHUNK_SHIFT));
		struct chunk *c = find(rec, key);
		int i;

		if (!c) {
			rec->errors++; /* written without get() */
		} else if ((i = carve(rec, c, s, e)) >= 0) {
			if (what == W_SPARSE) {
				put_sparse(rec, c, (uint32_t)i, s, e);
			} else if (what == W_MAP) {
				struct prun r = *tmpl;

				r.s = s;
				r.e = e;
				if (r.obj)
					r.off += (p - (va >> PAGE_SHIFT))
						 << PAGE_SHIFT;
				run_insert_at(rec, c, (uint32_t)i, &r);
			}
		}
		p = q;
	}
}

static void rec_map(void *priv, uint64_t va, uint64_t range,
		    unsigned int page_shift, struct nvl_gem_object *obj,
		    uint64_t bo_offset, uint32_t flags)
{
	struct nvl_vm_pt_record *rec = priv;
	struct prun r = {
		.flags = flags,
		.state = NVL_VM_PT_MAPPED,
		.page_shift = (uint8_t)page_shift,
		.obj = obj,
		.off = obj ? bo_offset : 0,
	};

	rec_lock(rec);
	rec->maps++;
	if (rec->fail_map_after && --rec->fail_map_after == 0)
		__atomic_store_n(&rec->pending_error, -EIO, __ATOMIC_RELEASE);
	write_range(rec, va, range, W_MAP, &r);
	rec_unlock(rec);
}

static void rec_unmap(void *priv, uint64_t va, uint64_t range,
		      unsigned int page_shift, bool to_sparse)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)page_shift;
	rec_lock(rec);
	rec->unmaps++;
	write_range(rec, va, range, to_sparse ? W_SPARSE : W_INVALID, NULL);
	rec_unlock(rec);
}

static void rec_sparse(void *priv, uint64_t va, uint64_t range, bool enable)
{
	struct nvl_vm_pt_record *rec = priv;

	rec_lock(rec);
	rec->sparses++;
	write_range(rec, va, range, enable ? W_SPARSE : W_INVALID, NULL);
	rec_unlock(rec);
}

static void rec_flush(void *priv, uint64_t va, uint64_t range)
{
	struct nvl_vm_pt_record *rec = priv;

	(void)va;
	(void)range;
	/*
	 * A statistic: a load and a store, not a locked add, which would wait
	 * for this commit's cache-missing page-table writes to drain (the
	 * count may miss a flush when two queues' commits race).
	 */
	__atomic_store_n(&rec->flushes,
			 __atomic_load_n(&rec->flushes, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/*
 * Start loading the index slot of the range's first chunk, without the
 * lock: grow() publishes a new array before its size, so the size read
 * here never exceeds the array read after it, and a prefetch of a stale
 * (even freed) array neither faults nor dereferences anything.
 */
static void rec_prefetch(void *priv, uint64_t va, uint64_t range)
{
	const struct nvl_vm_pt_record *rec = priv;
	uint64_t k = va >> (PAGE_SHIFT + CHUNK_SHIFT);
	uint64_t nb = __atomic_load_n(&rec->nslots, __ATOMIC_ACQUIRE);
	const struct slot *v = __atomic_load_n(&rec->slots, __ATOMIC_RELAXED);

	(void)range;
	__builtin_prefetch(&v[hash(k, nb)]);
}

static int rec_take_error(void *priv)
{
	struct nvl_vm_pt_record *rec = priv;

	/* a load first: nearly every bind has nothing to take */
	if (!__atomic_load_n(&rec->pending_error, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_exchange_n(&rec->pending_error, 0, __ATOMIC_ACQ_REL);
}

const struct nvl_vm_pt_ops nvl_vm_pt_record_ops = {
	.get = rec_get,
	.put = rec_put,
	.map = rec_map,
	.unmap = rec_unmap,
	.sparse = rec_sparse,
	.flush = rec_flush,
	.take_error = rec_take_error,
	.prefetch = rec_prefetch,
	.lock = rec_hold,
	.unlock = rec_release,
};

static void fill_page(const struct prun *r, uint32_t page,
		      struct nvl_vm_pt_page *out)
{
	out->state = r->state;
	out->obj = r->obj;
	out->flags = r->flags;
	out->page_shift = r->page_shift;
	out->bo_offset =
		r->obj ? r->off + ((uint64_t)(page - r->s) << PAGE_SHIFT) : 0;
}

uint64_t nvl_vm_pt_record_query_span(struct nvl_vm_pt_record *rec, uint64_t va,
				     struct nvl_vm_pt_page *out)
{
	uint64_t p = va >> PAGE_SHIFT;
	uint64_t base = (p >> CHUNK_SHIFT) << CHUNK_SHIFT;
	uint32_t s = (uint32_t)(p & (CHUNK_PAGES - 1)), e = CHUNK_PAGES;
	struct chunk *c;

	memset(out, 0, sizeof(*out));
	rec_lock(rec);
	c = find(rec, p >> CHUNK_SHIFT);
	for (uint32_t i = 0; c && i < c->n; i++) {
		if (c->runs[i].s <= s && s < c->runs[i].e) {
			fill_page(&c->runs[i], s, out);
			e = c->runs[i].e;
			break;
		}
		if (c->runs[i].s > s) {
			e = c->runs[i].s; /* a gap up to the next run */
			break;
		}
	}
	rec_unlock(rec);
	return (base + e) << PAGE_SHIFT;
}

void nvl_vm_pt_record_query(struct nvl_vm_pt_record *rec, uint64_t va,
			    struct nvl_vm_pt_page *out)
{
	(void)nvl_vm_pt_record_query_span(rec, va, out);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t nvl_vm_pt_record_hash(struct nvl_vm_pt_record *rec)
{
	uint64_t h = 0;

	rec_lock(rec);
	for (uint64_t b = 0; b < rec->nslots; b++) {
		const struct chunk *c = rec->slots[b].c;

		if (!c)
			continue;
		h += mix(c->key ^ mix(rec->slots[b].refs));
		for (uint32_t i = 0; i < c->n; i++) {
			const struct prun *r = &c->runs[i];

			h += mix(c->key * 31 + r->s) ^
			     mix(r->e ^ (uint64_t)r->state << 40) ^
			     mix((uintptr_t)r->obj + r->off + r->flags);
		}
	}
	h += mix(rec->refs) ^ mix(rec->ref_bytes);
	rec_unlock(rec);
	return h;
}

void nvl_vm_pt_record_stats(struct nvl_vm_pt_record *rec,
			    struct nvl_vm_pt_record_stats *out)
{
	rec_lock(rec);
	out->refs = rec->refs;
	out->ref_bytes = rec->ref_bytes;
	out->runs = rec->runs;
	out->maps = rec->maps;
	out->unmaps = rec->unmaps;
	out->sparses = rec->sparses;
	out->flushes = __atomic_load_n(&rec->flushes, __ATOMIC_RELAXED);
	out->errors = rec->errors;
	out->heap_B = sizeof(*rec) + rec->nslots * sizeof(struct slot) +
		      rec->nchunks * sizeof(struct chunk) +
		      rec->run_cap * sizeof(struct prun);
	rec_unlock(rec);
}

void nvl_vm_pt_record_fail_map_after(struct nvl_vm_pt_record *rec,
				     unsigned int n)
{
	rec_lock(rec);
	rec->fail_map_after = n;
	rec_unlock(rec);
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = (*(struct chunk *const *)a)->key;
	uint64_t y = (*(struct chunk *const *)b)->key;

	return x < y ? -1 : x > y;
}

static bool continues(const struct nvl_vm_pt_page *a, uint64_t a_end,
		      const struct nvl_vm_pt_page *b, uint64_t b_va,
		      uint64_t a_va)
{
	if (a_end != b_va || a->state != b->state || a->obj != b->obj ||
	    a->flags != b->flags)
		return false;
	return !a->obj || a->bo_offset + (b_va - a_va) == b->bo_offset;
}

void nvl_vm_pt_record_for_each(struct nvl_vm_pt_record *rec,
			       void (*fn)(uint64_t va, uint64_t range,
					  const struct nvl_vm_pt_page *p,
					  void *arg),
			       void *arg)
{
	struct chunk **v;
	uint64_t n = 0, cur_va = 0, cur_end = 0;
	struct nvl_vm_pt_page cur = {0};
	bool have = false;

	rec_lock(rec);
	v = nvl_calloc(rec->nchunks ? rec->nchunks : 1, sizeof(*v));
	if (!v) {
		rec_unlock(rec);
		return;
	}
	for (uint64_t b = 0; b < rec->nslots; b++)
		if (rec->slots[b].c)
			v[n++] = rec->slots[b].c;
	qsort(v, n, sizeof(*v), cmp_key);
	for (uint64_t k = 0; k < n; k++) {
		for (uint32_t i = 0; i < v[k]->n; i++) {
			const struct prun *r = &v[k]->runs[i];
			uint64_t base = v[k]->key << (CHUNK_SHIFT + PAGE_SHIFT);
			uint64_t va = base + ((uint64_t)r->s << PAGE_SHIFT);
			uint64_t end = base + ((uint64_t)r->e << PAGE_SHIFT);
			struct nvl_vm_pt_page p;

			fill_page(r, r->s, &p);
			if (have && continues(&cur, cur_end, &p, va, cur_va)) {
				cur_end = end;
				continue;
			}
			if (have)
				fn(cur_va, cur_end - cur_va, &cur, arg);
			cur = p;
			cur_va = va;
			cur_end = end;
			have = true;
		}
	}
	if (have)
		fn(cur_va, cur_end - cur_va, &cur, arg);
	rec_unlock(rec);
	nvl_free(v);
}
