// SPDX-License-Identifier: MIT
/*
 * DOC: IOMMU table
 *
 * The GPU reaches system memory only through DMA addresses that the driver
 * obtained with dma_map: each mapping is a run of whole 4 KiB pages of the
 * caller's memory, placed at a fresh DMA address (a bump allocator starting
 * at 4 GiB, never reused, leaving an unmapped guard page between runs).
 * An access to a DMA address outside every mapping fails with -EFAULT, as
 * an IOMMU fault would.
 *
 * The table is an interval tree under a read-write lock, taken exclusive
 * by map and unmap. Engine accesses go first through a per-thread
 * translation cache (a small TLB: the last mappings this thread reached,
 * each a copy of the mapping's range and CPU address, tagged with the
 * table's generation when it was read). Every unmap (and destroy) bumps
 * a process-wide generation, so a cached entry is used only while no
 * mapping has been removed since it was filled; a miss takes the lock
 * shared, walks the tree, refills the cache and does the access under
 * the lock, as before.
 *
 * An access through the cache holds no lock, so unmap must still not
 * return (and the driver free the pages) while such an access runs. Each
 * thread owns a reader slot whose sequence is odd during a cached access:
 * the reader makes it odd, then reads the generation; unmap bumps the
 * generation, then reads every slot and waits for each odd one to move
 * on (all four sequentially consistent, so either the reader sees the
 * new generation and takes the locked path, or unmap sees the reader and
 * waits for it). An access is a bounded copy, so the wait is too. A
 * thread without a slot (more threads than slots) always takes the lock.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/log.h"
#include "model/priv.h"

#define IOMMU_PAGE 4096ull
#define IOMMU_BASE (1ull << 32)
#define IOMMU_LIMIT (1ull << 46) /* ADDRESS_SYS holds 46-bit addresses */

struct nvl_model_dma_map {
	struct nvl_itree_node node;
	uint8_t *cpu;
};

/* ---- cached translations, lock-free readers ------------------------- */

#define IOMMU_SLOTS 128
#define IOMMU_TLB 4

/* a thread's reader slot: @seq is odd while it accesses through its TLB */
struct iommu_slot {
	_Alignas(64) atomic_uint_fast64_t seq;
	atomic_bool used;
};

static struct iommu_slot iommu_slots[IOMMU_SLOTS];
static atomic_uint iommu_slots_hw; /* slots ever claimed: scan bound */
/* bumped by unmap and destroy; read by every cached access: a line of its
 * own, so that no often-written variable shares it */
static struct {
	_Alignas(64) atomic_uint_fast64_t v;
} iommu_gen_line = {1};
#define iommu_gen (iommu_gen_line.v)

struct iommu_tlb {
	const struct nvl_model_iommu *io; /* NULL: empty */
	uint64_t start, size;
	uint8_t *cpu;
};

struct iommu_tls {
	struct iommu_slot *slot;
	uint64_t gen; /* generation the TLB was filled under */
	unsigned mru; /* entry hit last */
	unsigned victim; /* next entry to replace */
	bool tried; /* a slot was looked for (none left: always lock) */
	struct iommu_tlb tlb[IOMMU_TLB];
};

static _Thread_local struct iommu_tls iommu_tls;
static pthread_once_t iommu_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t iommu_key;
static bool iommu_key_ok;

/* thread exit: give the slot back (its sequence is even: no access runs) */
static void slot_release(void *arg)
{
	struct iommu_slot *s = arg;

	iommu_tls.slot = NULL;
	atomic_store_explicit(&s->used, false, memory_order_release);
}

static void key_make(void)
{
	iommu_key_ok = !pthread_key_create(&iommu_key, slot_release);
}

static struct iommu_slot *slot_claim(void)
{
	unsigned i, hw;

	iommu_tls.tried = true;
	pthread_once(&iommu_key_once, key_make);
	if (!iommu_key_ok)
		return NULL;
	for (i = 0; i < IOMMU_SLOTS; i++) {
		struct iommu_slot *s = &iommu_slots[i];
		bool f = false;

		if (atomic_load_explicit(&s->used, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&s->used, &f, true))
			continue;
		if (pthread_setspecific(iommu_key, s)) {
			atomic_store(&s->used, false);
			return NULL;
		}
		/* raise the scan bound before the slot's first access */
		hw = atomic_load(&iommu_slots_hw);
		while (hw < i + 1 && !atomic_compare_exchange_weak(
					     &iommu_slots_hw, &hw, i + 1))
			;
		iommu_tls.slot = s;
		return s;
	}
	return NULL;
}

/*
 * Start a cached access: the thread's slot made odd, then the current
 * generation in *@gen. Return: the sequence to end with, or 0 (no slot
 * yet or none left: take the locked path).
 */
static inline uint64_t fast_enter(uint64_t *gen)
{
	struct iommu_slot *s = iommu_tls.slot;
	uint64_t v;

	if (unlikely(!s))
		return 0; /* the locked path claims one */
	v = atomic_fetch_add(&s->seq, 1) + 1;
	*gen = atomic_load(&iommu_gen);
	return v;
}

/* end the cached access begun by fast_enter() (returned @v) */
static inline void fast_exit(uint64_t v)
{
	atomic_store_explicit(&iommu_tls.slot->seq, v + 1,
			      memory_order_release);
}

/* CPU address of [@pa, @pa + @len) (@len >= 1) from this thread's TLB if
 * it is still valid at generation @gen, or NULL */
static inline uint8_t *tlb_find(const struct nvl_model_iommu *io, uint64_t gen,
				uint64_t pa, uint64_t len)
{
	struct iommu_tls *t = &iommu_tls;
	const struct iommu_tlb *e = &t->tlb[t->mru];
	uint64_t off = pa - e->start; /* wraps when below: then too big */
	unsigned i;

	if (unlikely(t->gen != gen))
		return NULL;
	if (likely(e->io == io && off < e->size && len <= e->size - off))
		return e->cpu + off;
	for (i = 0; i < IOMMU_TLB; i++) {
		e = &t->tlb[i];
		off = pa - e->start;
		if (e->io == io && off < e->size && len <= e->size - off) {
			t->mru = i;
			return e->cpu + off;
		}
	}
	return NULL;
}

/* remember mapping @map of @io, read with the lock held (any mode: the
 * generation only moves under the lock held exclusive) */
static void tlb_fill(const struct nvl_model_iommu *io,
		     const struct nvl_model_dma_map *map)
{
	uint64_t gen = atomic_load_explicit(&iommu_gen, memory_order_relaxed);
	struct iommu_tls *t = &iommu_tls;
	struct iommu_tlb *e = NULL;
	unsigned i;

	if (t->gen != gen) {
		memset(t->tlb, 0, sizeof(t->tlb));
		t->gen = gen;
	}
	for (i = 0; i < IOMMU_TLB && !e; i++)
		if (t->tlb[i].io == io && t->tlb[i].start == map->node.start)
			e = &t->tlb[i];
	if (!e) {
		i = t->victim;
		t->victim = (i + 1) % IOMMU_TLB;
		e = &t->tlb[i];
	} else {
		i = (unsigned)(e - t->tlb);
	}
	e->io = io;
	e->start = map->node.start;
	e->size = map->node.last - map->node.start + 1;
	e->cpu = map->cpu;
	t->mru = i;
}

/*
 * A mapping was removed (the caller bumped the generation after taking it
 * out of the tree): wait until no cached access that may have seen the
 * old generation still runs.
 */
static void readers_drain(void)
{
	unsigned n = atomic_load(&iommu_slots_hw), i;

	for (i = 0; i < n; i++) {
		atomic_uint_fast64_t *seq = &iommu_slots[i].seq;
		uint64_t v = atomic_load(seq);
		unsigned spins = 0;

		if (!(v & 1))
			continue;
		while (atomic_load_explicit(seq, memory_order_acquire) == v) {
			if (++spins < 128)
				nvl_cpu_relax();
			else
				sched_yield();
		}
	}
}

static void gen_bump(void)
{
	atomic_fetch_add(&iommu_gen, 1);
}

/* ---- the table ------------------------------------------------------ */

int nvl_model_iommu_create(struct nvl_model *m)
{
	struct nvl_model_iommu *io = nvl_zalloc(sizeof(*io));

	if (!io)
		return -ENOMEM;
	pthread_rwlock_init(&io->lock, NULL);
	nvl_itree_init(&io->tree);
	io->next_dma = IOMMU_BASE;
	m->iommu = io;
	return 0;
}

void nvl_model_iommu_destroy(struct nvl_model *m)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_itree_node *n;

	if (!io)
		return;
	/* no access runs any more; a table made later at this address must
	 * not match what the threads' TLBs hold of this one */
	gen_bump();
	readers_drain();
	while ((n = nvl_itree_min(&io->tree))) {
		nvl_itree_remove(&io->tree, n);
		nvl_free(container_of(n, struct nvl_model_dma_map, node));
	}
	pthread_rwlock_destroy(&io->lock);
	nvl_free(io);
	m->iommu = NULL;
}

int nvl_model_iommu_map(struct nvl_model *m, void *cpu, size_t len,
			uint64_t *dma_out)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_model_dma_map *map;

	if (!len || !NVL_IS_ALIGNED(len, IOMMU_PAGE) ||
	    !NVL_IS_ALIGNED((uintptr_t)cpu, IOMMU_PAGE))
		return nvl_error(-EINVAL,
				 "model: dma_map of %zu bytes at %p: not whole "
				 "pages",
				 len, cpu);
	map = nvl_malloc(sizeof(*map));
	if (!map)
		return -ENOMEM;
	map->cpu = cpu;
	pthread_rwlock_wrlock(&io->lock);
	if (len > IOMMU_LIMIT - IOMMU_PAGE - io->next_dma) {
		pthread_rwlock_unlock(&io->lock);
		nvl_free(map);
		return nvl_error(-ENOMEM, "model: DMA address space exhausted");
	}
	/* a new mapping invalidates no cached one: addresses are not reused */
	map->node.start = io->next_dma;
	map->node.last = io->next_dma + len - 1;
	io->next_dma += len + IOMMU_PAGE; /* guard page */
	nvl_itree_insert(&io->tree, &map->node);
	io->nr_maps++;
	pthread_rwlock_unlock(&io->lock);
	*dma_out = map->node.start;
	return 0;
}

int nvl_model_iommu_unmap(struct nvl_model *m, uint64_t dma, size_t len)
{
	struct nvl_model_iommu *io = m->iommu;
	struct nvl_itree_node *n;

	if (!len)
		return nvl_error(-ENOENT, "model: dma_unmap of 0 bytes");
	pthread_rwlock_wrlock(&io->lock);
	n = nvl_itree_first(&io->tree, dma, dma);
	if (!n || n->start != dma || n->last != dma + len - 1) {
		pthread_rwlock_unlock(&io->lock);
		return nvl_error(-ENOENT,
				 "model: dma_unmap %#llx+%zu: no such mapping",
				 (unsigned long long)dma, len);
	}
	nvl_itree_remove(&io->tree, n);
	io->nr_maps--;
	/* locked accesses after this find no mapping; cached ones after this
	 * see a new generation; those before it are waited for */
	gen_bump();
	pthread_rwlock_unlock(&io->lock);
	readers_drain();
	nvl_free(container_of(n, struct nvl_model_dma_map, node));
	return 0;
}

/* the mapping holding DMA address @pa, lock held; cached for this thread */
static struct nvl_model_dma_map *lookup_locked(struct nvl_model_iommu *io,
					       uint64_t pa)
{
	struct nvl_itree_node *n = nvl_itree_first(&io->tree, pa, pa);
	struct nvl_model_dma_map *map;

	if (!n)
		return NULL;
	map = container_of(n, struct nvl_model_dma_map, node);
	if (unlikely(!iommu_tls.slot) && !iommu_tls.tried)
		slot_claim(); /* this thread's next accesses can go lock-free */
	tlb_fill(io, map);
	return map;
}

static void copy_dir(uint8_t *p, uint8_t *b, size_t len, bool write)
{
	if (write)
		nvl_model_mem_copy(p, b, len);
	else
		nvl_model_mem_copy(b, p, len);
}

/* nvl_model_iommu_access() on a TLB miss: under the lock */
static __attribute__((noinline)) int access_locked(struct nvl_model_iommu *io,
						   uint64_t dma, uint8_t *buf,
						   size_t len, bool write)
{
	struct nvl_model_dma_map *map;

	pthread_rwlock_rdlock(&io->lock);
	/* every byte must be covered: mappings are disjoint and never touch
	 * (guard pages), so one mapping must hold the whole range */
	map = lookup_locked(io, dma);
	if (!map || dma + len - 1 > map->node.last) {
		pthread_rwlock_unlock(&io->lock);
		return -EFAULT;
	}
	copy_dir(map->cpu + (dma - map->node.start), buf, len, write);
	pthread_rwlock_unlock(&io->lock);
	return 0;
}

int nvl_model_iommu_access(struct nvl_model *m, uint64_t dma, void *buf,
			   size_t len, bool write)
{
	struct nvl_model_iommu *io = m->iommu;
	uint64_t v, gen = 0;
	uint8_t *p;

	if (!len)
		return 0;
	if (dma > UINT64_MAX - (len - 1))
		return -EFAULT;
	v = fast_enter(&gen);
	if (likely(v)) {
		p = tlb_find(io, gen, dma, len);
		if (likely(p))
			copy_dir(p, buf, len, write);
		fast_exit(v);
		if (likely(p))
			return 0;
	}
	return access_locked(io, dma, buf, len, write);
}

/*
 * CPU address of physical byte @pa of aperture @ap and the bytes reachable
 * from it without a gap (*@avail); NULL when @pa is not reachable. The
 * IOMMU lock is held by the caller for system apertures.
 */
static uint8_t *phys_resolve(struct nvl_model *m, enum nvl_hw_aperture ap,
			     uint64_t pa, uint64_t *avail)
{
	struct nvl_model_dma_map *map;

	switch (ap) {
	case NVL_HW_APERTURE_VIDMEM:
		if (pa >= m->vram_size)
			return NULL;
		*avail = m->vram_size - pa;
		return m->vram + pa;
	case NVL_HW_APERTURE_SYS_COH:
	case NVL_HW_APERTURE_SYS_NONCOH:
		map = lookup_locked(m->iommu, pa);
		if (!map)
			return NULL;
		*avail = map->node.last - pa + 1;
		return map->cpu + (pa - map->node.start);
	default:
		return NULL;
	}
}

static bool ap_sys(enum nvl_hw_aperture ap)
{
	return ap == NVL_HW_APERTURE_SYS_COH ||
	       ap == NVL_HW_APERTURE_SYS_NONCOH;
}

/*
 * The whole of [@pa, @pa + @len) of aperture @ap in one run, without the
 * lock: VRAM, or a system range inside one mapping of this thread's TLB
 * (between fast_enter() and fast_exit(), @gen from fast_enter()); NULL
 * when the locked path must decide.
 */
static inline uint8_t *fast_resolve(struct nvl_model *m,
				    enum nvl_hw_aperture ap, uint64_t gen,
				    uint64_t pa, uint64_t len)
{
	if (ap == NVL_HW_APERTURE_VIDMEM)
		return pa < m->vram_size && len <= m->vram_size - pa
			       ? m->vram + pa
			       : NULL;
	if (!ap_sys(ap))
		return NULL;
	return tlb_find(m->iommu, gen, pa, len);
}

static void copy_run(uint8_t *d, const uint8_t *s, size_t k)
{
	if (s + k <= d || d + k <= s)
		nvl_model_mem_copy(d, s, k);
	else
		memmove(d, s, k);
}

/* nvl_model_phys_copy() run by run, under the lock for system memory */
static __attribute__((noinline)) int
copy_locked(struct nvl_model *m, enum nvl_hw_aperture dap, uint64_t da,
	    enum nvl_hw_aperture sap, uint64_t sa, uint64_t len)
{
	bool locked = ap_sys(dap) || ap_sys(sap);
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	while (len) {
		uint64_t sn = 0, dn = 0, k;
		uint8_t *s = phys_resolve(m, sap, sa, &sn);
		uint8_t *d = phys_resolve(m, dap, da, &dn);

		if (!s || !d) {
			ret = -EFAULT;
			break;
		}
		k = NVL_MIN(len, NVL_MIN(sn, dn));
		copy_run(d, s, (size_t)k);
		sa += k;
		da += k;
		len -= k;
	}
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_copy(struct nvl_model *m, enum nvl_hw_aperture dap,
			uint64_t da, enum nvl_hw_aperture sap, uint64_t sa,
			uint64_t len)
{
	uint64_t v, gen = 0;

	if ((ap_sys(dap) || ap_sys(sap)) && len && (v = fast_enter(&gen))) {
		uint8_t *s = fast_resolve(m, sap, gen, sa, len);
		uint8_t *d = s ? fast_resolve(m, dap, gen, da, len) : NULL;

		if (likely(d))
			copy_run(d, s, (size_t)len);
		fast_exit(v);
		if (likely(d))
			return 0;
	}
	return copy_locked(m, dap, da, sap, sa, len);
}

/* nvl_model_phys_fill() run by run, under the lock for system memory */
static __attribute__((noinline)) int fill_locked(struct nvl_model *m,
						 enum nvl_hw_aperture ap,
						 uint64_t pa, uint32_t pattern,
						 uint64_t len)
{
	bool locked = ap_sys(ap);
	uint64_t done = 0;
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	while (done < len) {
		uint64_t avail = 0, k;
		uint8_t *d = phys_resolve(m, ap, pa + done, &avail);

		if (!d) {
			ret = -EFAULT;
			break;
		}
		k = NVL_MIN(len - done, avail);
		nvl_model_mem_fill(d, (size_t)k, pattern, (unsigned)(done & 3));
		done += k;
	}
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_fill(struct nvl_model *m, enum nvl_hw_aperture ap,
			uint64_t pa, uint32_t pattern, uint64_t len)
{
	uint64_t v, gen = 0;

	if (ap_sys(ap) && len && (v = fast_enter(&gen))) {
		uint8_t *d = tlb_find(m->iommu, gen, pa, len);

		if (likely(d))
			nvl_model_mem_fill(d, (size_t)len, pattern, 0);
		fast_exit(v);
		if (likely(d))
			return 0;
	}
	return fill_locked(m, ap, pa, pattern, len);
}

/* nvl_model_phys_visit() run by run, under the lock for system memory */
static __attribute__((noinline)) int
visit_locked(struct nvl_model *m, enum nvl_hw_aperture ap, uint64_t pa,
	     size_t len, void (*fn)(void *arg, uint8_t *p, size_t n), void *arg)
{
	bool locked = ap_sys(ap);
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	while (len) {
		uint64_t avail = 0;
		uint8_t *p = phys_resolve(m, ap, pa, &avail);
		size_t k;

		if (!p) {
			ret = -EFAULT;
			break;
		}
		k = (size_t)NVL_MIN((uint64_t)len, avail);
		fn(arg, p, k);
		pa += k;
		len -= k;
	}
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_visit(struct nvl_model *m, enum nvl_hw_aperture ap,
			 uint64_t pa, size_t len,
			 void (*fn)(void *arg, uint8_t *p, size_t n), void *arg)
{
	uint64_t v, gen = 0;

	if (ap_sys(ap) && len && (v = fast_enter(&gen))) {
		uint8_t *p = tlb_find(m->iommu, gen, pa, len);

		if (likely(p))
			fn(arg, p, len);
		fast_exit(v);
		if (likely(p))
			return 0;
	}
	return visit_locked(m, ap, pa, len, fn, arg);
}

static inline void word_access(uint32_t *p, uint32_t *val, bool write)
{
	if (write)
		__atomic_store_n(p, *val, __ATOMIC_RELEASE);
	else
		*val = __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* nvl_model_phys_atomic32() on VRAM or a TLB miss (under the lock) */
static __attribute__((noinline)) int atomic32_locked(struct nvl_model *m,
						     enum nvl_hw_aperture ap,
						     uint64_t pa, uint32_t *val,
						     bool write)
{
	bool locked = ap_sys(ap);
	uint64_t avail = 0;
	uint32_t *p;
	int ret = 0;

	if (locked)
		pthread_rwlock_rdlock(&m->iommu->lock);
	/* VRAM and DMA mappings are page-aligned: so is the word in memory */
	p = (uint32_t *)phys_resolve(m, ap, pa, &avail);
	if (!p || avail < 4)
		ret = -EFAULT;
	else
		word_access(p, val, write);
	if (locked)
		pthread_rwlock_unlock(&m->iommu->lock);
	return ret;
}

int nvl_model_phys_atomic32(struct nvl_model *m, enum nvl_hw_aperture ap,
			    uint64_t pa, uint32_t *val, bool write)
{
	uint64_t v, gen = 0;

	if (pa % 4)
		return -EFAULT;
	if (ap_sys(ap) && (v = fast_enter(&gen))) {
		uint32_t *p = (uint32_t *)tlb_find(m->iommu, gen, pa, 4);

		if (likely(p))
			word_access(p, val, write);
		fast_exit(v);
		if (likely(p))
			return 0;
	}
	return atomic32_locked(m, ap, pa, val, write);
}
