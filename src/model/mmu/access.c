// SPDX-License-Identifier: MIT
/*
 * DOC: engine accesses through the model MMU
 *
 * The engines (PBDMA, copy engine) read and write GPU virtual memory with
 * nvl_model_vm_access(), nvl_model_vm_copy() and nvl_model_vm_fill(). Each
 * translates through the TLB once per page and then moves whole runs of
 * physically contiguous pages with one memcpy, so a copy between
 * 2 MiB-mapped buffers costs a few translations per 2 MiB.
 *
 * Sparse pages read as zero and swallow writes without a fault. The first
 * page that faults is reported to the fault buffer (nvl_model_fault_report())
 * with the address, access type, fault type, engine and channel; the access
 * stops there and returns -EFAULT (bytes before that page were moved).
 *
 * One mutex per MMU guards the TLBs and counters; it is held for
 * translations and walks, never while copying data or reporting a fault.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/regs.h"
#include "model/model.h"
#include "model/mmu/mmu_internal.h"

/**
 * nvl_model_mmu_create() - see model/mmu.h.
 */
int nvl_model_mmu_create(struct nvl_model *m, struct nvl_model_mmu **mmu_out)
{
	struct nvl_model_mmu *mmu = nvl_zalloc(sizeof(*mmu));

	if (!mmu)
		return -ENOMEM;
	mmu->m = m;
	mmu->big_leaf_pd1 =
		m->profile && (m->profile->page_sizes & (1ull << 29));
	pthread_mutex_init(&mmu->lock, NULL);
	*mmu_out = mmu;
	return 0;
}

/**
 * nvl_model_mmu_destroy() - see model/mmu.h.
 */
void nvl_model_mmu_destroy(struct nvl_model_mmu *mmu)
{
	if (!mmu)
		return;
	pthread_mutex_destroy(&mmu->lock);
	nvl_free(mmu);
}

static bool cacheable(const struct nvl_model_xlate *x)
{
	return x->state != NVL_MODEL_XLATE_FAULT ||
	       (x->fault_type != NVL_HW_FAULT_VA_LIMIT_VIOLATION &&
		x->fault_type != NVL_HW_FAULT_UNBOUND_INST_BLOCK);
}

/* Translate through the TLB; mmu->lock held. */
static void xlate_locked(struct nvl_model_mmu *mmu, struct vm_slot *s,
			 const struct nvl_model_vmctx *ctx, uint64_t va,
			 struct nvl_model_xlate *x)
{
	const struct pd0_ref *pd0;
	struct pd0_ref r;

	if (nvl_model_tlb_lookup(s, va, x)) {
		mmu->stats.hits++;
		return;
	}
	pd0 = nvl_model_tlb_pd0_lookup(s, va);
	if (pd0) {
		nvl_model_mmu_walk_pd0(mmu, ctx, va, pd0, x);
		mmu->stats.pd0_hits++;
	} else {
		nvl_model_mmu_do_walk(mmu, ctx, va, x, NULL, &r);
		nvl_model_tlb_pd0_insert(s, &r);
	}
	mmu->stats.walks++;
	if (cacheable(x))
		nvl_model_tlb_insert(mmu, s, va, x);
}

/**
 * nvl_model_mmu_translate() - see model/mmu.h.
 */
int nvl_model_mmu_translate(struct nvl_model *m,
			    const struct nvl_model_vmctx *ctx, uint64_t va,
			    unsigned int access, struct nvl_model_xlate *out)
{
	struct nvl_model_mmu *mmu = m->mmu;

	pthread_mutex_lock(&mmu->lock);
	xlate_locked(mmu, nvl_model_tlb_slot(mmu, ctx), ctx, va, out);
	pthread_mutex_unlock(&mmu->lock);
	return nvl_model_mmu_check_access(out, access);
}

/**
 * nvl_model_mmu_walk() - see model/mmu.h.
 */
int nvl_model_mmu_walk(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
		       uint64_t va, unsigned int access,
		       struct nvl_model_xlate *out,
		       struct nvl_model_walk_trace *trace)
{
	nvl_model_mmu_do_walk(m->mmu, ctx, va, out, trace, NULL);
	return nvl_model_mmu_check_access(out, access);
}

/* Drop cached translations; mmu->lock held. */
static void invalidate_locked(struct nvl_model_mmu *mmu,
			      const struct nvl_model_vmctx *ctx, uint64_t va,
			      uint64_t range, unsigned int level)
{
	/* PTE_ONLY and UP_TO_PDE0 leave what PDE1 and up led to */
	bool keep_walk = level == NVL_HW_MMU_CACHE_LEVEL_PTE_ONLY ||
			 level == NVL_HW_MMU_CACHE_LEVEL_UP_TO_PDE0;

	mmu->stats.invalidates++;
	for (unsigned int i = 0; i < MMU_VM_SLOTS; i++) {
		struct vm_slot *s = &mmu->slot[i];

		if (!s->used)
			continue;
		/* the register names "system memory" without coherence */
		if (ctx && (s->pdb != ctx->pdb ||
			    (s->aperture != ctx->aperture &&
			     !(nvl_hw_aperture_is_sys(s->aperture) &&
			       nvl_hw_aperture_is_sys(ctx->aperture)))))
			continue;
		nvl_model_tlb_flush(s, va, range, keep_walk);
	}
	atomic_fetch_add_explicit(&mmu->gen, 1, memory_order_release);
}

/**
 * nvl_model_mmu_invalidate() - see model/mmu.h.
 */
void nvl_model_mmu_invalidate(struct nvl_model_mmu *mmu,
			      const struct nvl_model_vmctx *ctx, uint64_t va,
			      uint64_t range)
{
	nvl_model_mmu_invalidate_level(mmu, ctx, va, range,
				       NVL_HW_MMU_CACHE_LEVEL_ALL, false);
}

/*
 * The drain (mmu->lock held). Accesses enter under the current epoch's
 * parity; a drain flips the epoch, after the TLB flush, and is complete
 * when the old parity's counters are all 0: every access that could have
 * translated before the flush has exited. One flip at a time: a drain
 * asked for while another is pending flips when that one completes
 * (waiting also for accesses that began between the flush and that flip,
 * which is only longer). Return: true when no drain is pending.
 */
static bool drain_idle_locked(struct nvl_model_mmu *mmu)
{
	for (;;) {
		if (mmu->drain_pending) {
			for (unsigned int i = 0; i < MMU_DRAIN_STRIPES; i++)
				if (atomic_load(
					    &mmu->active[i].n[mmu->drain_old]))
					return false;
			mmu->drain_pending = false;
		}
		if (!mmu->drain_want)
			return true;
		mmu->drain_want = false;
		mmu->drain_old = atomic_fetch_add(&mmu->epoch, 1) & 1;
		mmu->drain_pending = true;
	}
}

/**
 * nvl_model_mmu_invalidate_level() - see model/mmu.h.
 */
bool nvl_model_mmu_invalidate_level(struct nvl_model_mmu *mmu,
				    const struct nvl_model_vmctx *ctx,
				    uint64_t va, uint64_t range,
				    unsigned int level, bool drain)
{
	bool idle = true;

	pthread_mutex_lock(&mmu->lock);
	invalidate_locked(mmu, ctx, va, range, level);
	if (drain) {
		mmu->drain_want = true;
		idle = drain_idle_locked(mmu);
	}
	pthread_mutex_unlock(&mmu->lock);
	return idle;
}

/**
 * nvl_model_mmu_invalidate_drain() - see model/mmu.h.
 */
bool nvl_model_mmu_invalidate_drain(struct nvl_model_mmu *mmu,
				    const struct nvl_model_vmctx *ctx,
				    uint64_t va, uint64_t range)
{
	return nvl_model_mmu_invalidate_level(mmu, ctx, va, range,
					      NVL_HW_MMU_CACHE_LEVEL_ALL, true);
}

/**
 * nvl_model_mmu_drained() - see model/mmu.h.
 */
bool nvl_model_mmu_drained(struct nvl_model_mmu *mmu)
{
	bool idle;

	pthread_mutex_lock(&mmu->lock);
	idle = drain_idle_locked(mmu);
	pthread_mutex_unlock(&mmu->lock);
	return idle;
}

/**
 * nvl_model_mmu_enter() - see model/mmu.h.
 */
unsigned int nvl_model_mmu_enter(struct nvl_model_mmu *mmu, unsigned int hint)
{
	unsigned int k = hint % MMU_DRAIN_STRIPES;

	for (;;) {
		unsigned int e = atomic_load(&mmu->epoch);

		atomic_fetch_add(&mmu->active[k].n[e & 1], 1);
		/* seen after the increment: a drain flipping later counts
		 * this access; else it may have missed it, so go again */
		if (atomic_load(&mmu->epoch) == e)
			return k << 1 | (e & 1);
		atomic_fetch_sub(&mmu->active[k].n[e & 1], 1);
	}
}

/**
 * nvl_model_mmu_exit() - see model/mmu.h.
 */
void nvl_model_mmu_exit(struct nvl_model_mmu *mmu, unsigned int ticket)
{
	atomic_fetch_sub_explicit(&mmu->active[ticket >> 1].n[ticket & 1], 1,
				  memory_order_release);
}

/**
 * nvl_model_mmu_section_stale() - see model/mmu.h.
 *
 * While a ticket of parity p is open the epoch moves away from p at most
 * once (the next flip waits for parity p to empty), so a parity that
 * differs from the epoch's means a drain flipped after the entry and now
 * waits for this access.
 */
bool nvl_model_mmu_section_stale(struct nvl_model_mmu *mmu, unsigned int ticket)
{
	return ((atomic_load_explicit(&mmu->epoch, memory_order_relaxed) ^
		 ticket) &
		1) != 0;
}

/**
 * nvl_model_mmu_generation() - see model/mmu.h.
 */
unsigned int nvl_model_mmu_generation(struct nvl_model_mmu *mmu)
{
	return atomic_load_explicit(&mmu->gen, memory_order_acquire);
}

/**
 * nvl_model_mmu_generation_word() - see model/mmu.h.
 */
const atomic_uint *nvl_model_mmu_generation_word(struct nvl_model_mmu *mmu)
{
	return &mmu->gen;
}

/**
 * nvl_model_mmu_get_stats() - see model/mmu.h.
 */
void nvl_model_mmu_get_stats(struct nvl_model_mmu *mmu,
			     struct nvl_model_mmu_stats *out)
{
	pthread_mutex_lock(&mmu->lock);
	*out = mmu->stats;
	pthread_mutex_unlock(&mmu->lock);
}

/* ---- runs ------------------------------------------------------------ */

/*
 * struct run - a stretch of virtual memory that one memory operation can
 * serve: all sparse, or mapped to contiguous physical memory of one
 * aperture. A faulting first page gives len 0 and the fault in x.
 */
struct run {
	struct nvl_model_xlate x;
	uint64_t len;
};

static uint64_t page_left(uint64_t va, unsigned int shift)
{
	return (1ull << shift) - (va & ((1ull << shift) - 1));
}

/* Build the run at @va of at most @max bytes (max > 0). */
static void get_run(struct nvl_model_mmu *mmu,
		    const struct nvl_model_vmctx *ctx, uint64_t va,
		    uint64_t max, unsigned int access, struct run *r)
{
	struct nvl_model_xlate nx;
	struct vm_slot *s;

	pthread_mutex_lock(&mmu->lock);
	s = nvl_model_tlb_slot(mmu, ctx);
	xlate_locked(mmu, s, ctx, va, &r->x);
	if (nvl_model_mmu_check_access(&r->x, access)) {
		r->len = 0;
		goto out;
	}
	r->len = page_left(va, r->x.page_shift);
	/* System pages go one page at a time: each may fail on its own. */
	while (r->len < max && (r->x.state == NVL_MODEL_XLATE_SPARSE ||
				r->x.aperture == NVL_HW_APERTURE_VIDMEM)) {
		uint64_t nva = va + r->len;

		if (nva < va)
			break;
		xlate_locked(mmu, s, ctx, nva, &nx);
		if (nvl_model_mmu_check_access(&nx, access) ||
		    nx.state != r->x.state)
			break;
		if (nx.state == NVL_MODEL_XLATE_MAPPED &&
		    (nx.aperture != r->x.aperture || nx.pa != r->x.pa + r->len))
			break;
		r->len += page_left(nva, nx.page_shift);
	}
out:
	pthread_mutex_unlock(&mmu->lock);
	if (r->len > max)
		r->len = max;
}

static int report(struct nvl_model *m, uint64_t va, unsigned int type,
		  unsigned int access, unsigned int engine_id,
		  unsigned int chid)
{
	struct nvl_model_fault f = {
		.va = va,
		.type = type,
		.access = access,
		.engine_id = engine_id,
		.chid = chid,
		.client = 0,
		.replayable = false,
	};

	pthread_mutex_lock(&m->mmu->lock);
	m->mmu->stats.faults++;
	pthread_mutex_unlock(&m->mmu->lock);
	nvl_model_fault_report(m, &f);
	return -EFAULT;
}

/* Move @n bytes between @buf and a mapped run; 0 or -EFAULT. */
static int mem_io(struct nvl_model *m, const struct nvl_model_xlate *x,
		  void *buf, size_t n, bool write)
{
	if (x->aperture == NVL_HW_APERTURE_VIDMEM) {
		uint8_t *p = nvl_model_phys_ptr(m, x->pa, n);

		if (!p)
			return -EFAULT;
		if (write)
			nvl_model_mem_copy(p, buf, n);
		else
			nvl_model_mem_copy(buf, p, n);
		return 0;
	}
	return nvl_model_phys_access(m, x->aperture, x->pa, buf, n, write);
}

/**
 * nvl_model_vm_access_page() - see model/mmu.h.
 */
int nvl_model_vm_access_page(struct nvl_model *m,
			     const struct nvl_model_vmctx *ctx, uint64_t va,
			     void *buf, size_t len, bool write,
			     unsigned int engine_id, unsigned int chid,
			     struct nvl_model_xlate *x)
{
	unsigned int access =
		write ? NVL_HW_FAULT_ACCESS_WRITE : NVL_HW_FAULT_ACCESS_READ;
	uint8_t *p = buf;
	bool first = true;

	while (len) {
		unsigned int t = nvl_model_mmu_enter(m->mmu, chid);
		struct run r;
		int ret = 0;

		get_run(m->mmu, ctx, va, len, access, &r);
		if (r.len && first && x)
			*x = r.x;
		first = false;
		if (!r.len)
			ret = -EFAULT;
		else if (r.x.state == NVL_MODEL_XLATE_SPARSE && !write)
			nvl_model_mem_fill(p, r.len, 0, 0);
		else if (r.x.state == NVL_MODEL_XLATE_MAPPED &&
			 mem_io(m, &r.x, p, r.len, write))
			ret = -EIO;
		nvl_model_mmu_exit(m->mmu, t);
		if (ret)
			return report(m, va,
				      ret == -EFAULT
					      ? r.x.fault_type
					      : NVL_HW_FAULT_REGION_VIOLATION,
				      access, engine_id, chid);
		p += r.len;
		va += r.len;
		len -= r.len;
	}
	return 0;
}

/**
 * nvl_model_vm_access() - see model/mmu.h.
 */
int nvl_model_vm_access(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
			uint64_t va, void *buf, size_t len, bool write,
			unsigned int engine_id, unsigned int chid)
{
	return nvl_model_vm_access_page(m, ctx, va, buf, len, write, engine_id,
					chid, NULL);
}

static const uint8_t zero_page[4096];

/* where an access stopped: reported once its drain section is left */
struct stop {
	uint64_t va;
	unsigned int type;
	unsigned int access;
};

static uint64_t stop_at(struct stop *f, uint64_t va, unsigned int type,
			unsigned int access)
{
	f->va = va;
	f->type = type;
	f->access = access;
	return 0;
}

/*
 * One run of a copy (inside a drain section): the bytes moved, or 0 and
 * where it stopped.
 */
static uint64_t copy_step(struct nvl_model *m,
			  const struct nvl_model_vmctx *dst_ctx,
			  uint64_t dst_va,
			  const struct nvl_model_vmctx *src_ctx,
			  uint64_t src_va, size_t len, struct stop *f)
{
	uint8_t bounce[4096];
	struct run s, d;
	uint64_t n;
	uint8_t *ps, *pd;

	get_run(m->mmu, src_ctx, src_va, len, NVL_HW_FAULT_ACCESS_READ, &s);
	if (!s.len)
		return stop_at(f, src_va, s.x.fault_type,
			       NVL_HW_FAULT_ACCESS_READ);
	get_run(m->mmu, dst_ctx, dst_va, s.len, NVL_HW_FAULT_ACCESS_WRITE, &d);
	if (!d.len)
		return stop_at(f, dst_va, d.x.fault_type,
			       NVL_HW_FAULT_ACCESS_WRITE);
	n = d.len; /* <= s.len */
	if (d.x.state == NVL_MODEL_XLATE_SPARSE)
		return n;
	if (s.x.state == NVL_MODEL_XLATE_SPARSE) {
		for (uint64_t o = 0; o < n; o += sizeof(zero_page)) {
			struct nvl_model_xlate dx = d.x;
			uint64_t c = NVL_MIN(n - o, sizeof(zero_page));

			dx.pa += o;
			if (mem_io(m, &dx, (void *)zero_page, c, true))
				return stop_at(f, dst_va + o,
					       NVL_HW_FAULT_REGION_VIOLATION,
					       NVL_HW_FAULT_ACCESS_WRITE);
		}
		return n;
	}
	ps = s.x.aperture == NVL_HW_APERTURE_VIDMEM
		     ? nvl_model_phys_ptr(m, s.x.pa, n)
		     : NULL;
	pd = d.x.aperture == NVL_HW_APERTURE_VIDMEM
		     ? nvl_model_phys_ptr(m, d.x.pa, n)
		     : NULL;
	if (ps && pd) {
		if (pd + n <= ps || ps + n <= pd)
			nvl_model_mem_copy(pd, ps, n);
		else
			memmove(pd, ps, n);
	} else if (pd) {
		if (mem_io(m, &s.x, pd, n, false))
			return stop_at(f, src_va, NVL_HW_FAULT_REGION_VIOLATION,
				       NVL_HW_FAULT_ACCESS_READ);
	} else if (ps) {
		if (mem_io(m, &d.x, ps, n, true))
			return stop_at(f, dst_va, NVL_HW_FAULT_REGION_VIOLATION,
				       NVL_HW_FAULT_ACCESS_WRITE);
	} else {
		/* system to system (both runs are one page at most) */
		for (uint64_t o = 0; o < n; o += sizeof(bounce)) {
			struct nvl_model_xlate sx = s.x, dx = d.x;
			uint64_t c = NVL_MIN(n - o, sizeof(bounce));

			sx.pa += o;
			dx.pa += o;
			if (mem_io(m, &sx, bounce, c, false))
				return stop_at(f, src_va + o,
					       NVL_HW_FAULT_REGION_VIOLATION,
					       NVL_HW_FAULT_ACCESS_READ);
			if (mem_io(m, &dx, bounce, c, true))
				return stop_at(f, dst_va + o,
					       NVL_HW_FAULT_REGION_VIOLATION,
					       NVL_HW_FAULT_ACCESS_WRITE);
		}
	}
	return n;
}

/**
 * nvl_model_vm_copy() - see model/mmu.h.
 */
int nvl_model_vm_copy(struct nvl_model *m,
		      const struct nvl_model_vmctx *dst_ctx, uint64_t dst_va,
		      const struct nvl_model_vmctx *src_ctx, uint64_t src_va,
		      size_t len, unsigned int engine_id, unsigned int chid)
{
	while (len) {
		unsigned int t = nvl_model_mmu_enter(m->mmu, chid);
		struct stop f;
		uint64_t n =
			copy_step(m, dst_ctx, dst_va, src_ctx, src_va, len, &f);

		nvl_model_mmu_exit(m->mmu, t);
		if (!n)
			return report(m, f.va, f.type, f.access, engine_id,
				      chid);
		src_va += n;
		dst_va += n;
		len -= n;
	}
	return 0;
}

/* Fill @n bytes at @p with @pattern, byte @phase of the pattern first. */
static void fill(uint8_t *p, size_t n, uint32_t pattern, unsigned int phase)
{
	nvl_model_mem_fill(p, n, pattern, phase & 3);
}

/* One run of a fill (inside a drain section), as copy_step(). */
static uint64_t fill_step(struct nvl_model *m,
			  const struct nvl_model_vmctx *ctx, uint64_t va,
			  uint32_t pattern, uint64_t done, size_t len,
			  struct stop *f)
{
	uint8_t buf[4096];
	struct run r;
	uint8_t *p;

	get_run(m->mmu, ctx, va + done, len - done, NVL_HW_FAULT_ACCESS_WRITE,
		&r);
	if (!r.len)
		return stop_at(f, va + done, r.x.fault_type,
			       NVL_HW_FAULT_ACCESS_WRITE);
	if (r.x.state != NVL_MODEL_XLATE_MAPPED)
		return r.len;
	p = r.x.aperture == NVL_HW_APERTURE_VIDMEM
		    ? nvl_model_phys_ptr(m, r.x.pa, r.len)
		    : NULL;
	if (p) {
		fill(p, r.len, pattern, done & 3);
		return r.len;
	}
	for (uint64_t o = 0; o < r.len; o += sizeof(buf)) {
		struct nvl_model_xlate x = r.x;
		uint64_t c = NVL_MIN(r.len - o, sizeof(buf));

		x.pa += o;
		fill(buf, c, pattern, (done + o) & 3);
		if (mem_io(m, &x, buf, c, true))
			return stop_at(f, va + done + o,
				       NVL_HW_FAULT_REGION_VIOLATION,
				       NVL_HW_FAULT_ACCESS_WRITE);
	}
	return r.len;
}

/**
 * nvl_model_vm_fill() - see model/mmu.h.
 */
int nvl_model_vm_fill(struct nvl_model *m, const struct nvl_model_vmctx *ctx,
		      uint64_t va, uint32_t pattern, size_t len,
		      unsigned int engine_id, unsigned int chid)
{
	uint64_t done = 0;

	while (done < len) {
		unsigned int t = nvl_model_mmu_enter(m->mmu, chid);
		struct stop f;
		uint64_t n = fill_step(m, ctx, va, pattern, done, len, &f);

		nvl_model_mmu_exit(m->mmu, t);
		if (!n)
			return report(m, f.va, f.type, f.access, engine_id,
				      chid);
		done += n;
	}
	return 0;
}
