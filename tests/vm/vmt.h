/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the vm tests: GEM objects built by hand (test ops table), a VM
 * on the recording backend, and the page-granular reference model the
 * property tests compare against.
 */
#ifndef NVL_TESTS_VMT_H
#define NVL_TESTS_VMT_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm/gem.h"
#include "vm/gpuvm.h"
#include "vm/pt_record.h"
#include "vm/sm.h"

#define PG 4096ull

/* ---- GEM objects built by the tests --------------------------------- */

static void tobj_free(struct nvl_gem_object *obj)
{
	free(obj);
}

static int tobj_backing(struct nvl_gem_object *obj, uint64_t offset,
			struct nvl_gem_backing *out)
{
	out->domain = NVL_GEM_DOMAIN_VRAM;
	out->addr = 0x100000000ull + offset;
	out->len_B = obj->size_B - offset;
	return 0;
}

static const struct nvl_gem_ops tobj_ops = {
	.free = tobj_free,
	.get_backing = tobj_backing,
};

static inline struct nvl_gem_object *tobj_new(uint64_t size_B,
					      struct nvl_resv *resv)
{
	struct nvl_gem_object *obj = calloc(1, sizeof(*obj));

	if (!obj)
		abort();
	nvl_kref_init(&obj->ref);
	obj->size_B = size_B;
	obj->resv = resv;
	nvl_list_init(&obj->gpuva.list);
	obj->ops = &tobj_ops;
	return obj;
}

/* ---- reference model -------------------------------------------------- */

#define MP 512u /* pages in the model's window */
#define MRES_START 480u /* reserved pages [MRES_START, MP) */

struct mpage {
	struct nvl_gem_object *obj;
	uint64_t off; /* byte offset of this page in obj */
	uint32_t flags;
	uint32_t start, end; /* the mapping holding it: [start, end) pages */
	bool mapped;
	uint32_t region; /* region id, 0 = none */
};

struct model {
	struct mpage p[MP];
	/* pages of regions destroyed in the current call (cleared per call) */
	bool dead[MP];
	uint32_t next_region;
};

/** m_call_begin() - a new bind call: forget its predecessor's dead regions */
static inline void m_call_begin(struct model *m)
{
	memset(m->dead, 0, sizeof(m->dead));
}

static inline bool m_valid(uint64_t a, uint64_t n)
{
	return n && a + n <= MRES_START && a + n > a;
}

/* cut the mappings overlapping [a, e) so they no longer reach into it */
static inline void m_clip(struct model *m, uint32_t a, uint32_t e)
{
	for (uint32_t i = a; i < e; i++) {
		struct mpage *x = &m->p[i];

		if (!x->mapped)
			continue;
		uint32_t s = x->start, t = x->end;

		for (uint32_t j = s; j < a; j++)
			m->p[j].end = a;
		for (uint32_t j = e; j < t; j++)
			m->p[j].start = e;
		i = t - 1 < e ? t - 1 : e;
	}
	for (uint32_t i = a; i < e; i++)
		m->p[i].mapped = false, m->p[i].obj = NULL;
}

static inline int m_map(struct model *m, uint32_t a, uint32_t n,
			struct nvl_gem_object *obj, uint64_t off,
			uint32_t flags)
{
	if (!m_valid(a, n))
		return -EINVAL;
	for (uint32_t i = a; i < a + n; i++)
		if (m->p[i].region != m->p[a].region || m->dead[i])
			return -ENOSPC;
	m_clip(m, a, a + n);
	for (uint32_t i = a; i < a + n; i++) {
		struct mpage *x = &m->p[i];

		x->mapped = true;
		x->obj = obj;
		x->off = obj ? off + (i - a) * PG : 0;
		x->flags = flags;
		x->start = a;
		x->end = a + n;
	}
	return 0;
}

static inline int m_unmap(struct model *m, uint32_t a, uint32_t n)
{
	if (!m_valid(a, n))
		return -EINVAL;
	m_clip(m, a, a + n);
	return 0;
}

static inline int m_region_create(struct model *m, uint32_t a, uint32_t n)
{
	if (!m_valid(a, n))
		return -EINVAL;
	for (uint32_t i = a; i < a + n; i++)
		if (m->p[i].mapped || m->p[i].region || m->dead[i])
			return -ENOSPC;
	m->next_region++;
	for (uint32_t i = a; i < a + n; i++)
		m->p[i].region = m->next_region;
	return 0;
}

static inline int m_region_destroy(struct model *m, uint32_t a, uint32_t n)
{
	uint32_t r;

	if (!m_valid(a, n))
		return -EINVAL;
	r = m->p[a].region;
	if (!r || (a > 0 && m->p[a - 1].region == r) ||
	    m->p[a + n - 1].region != r ||
	    (a + n < MP && m->p[a + n].region == r))
		return -ENOENT;
	for (uint32_t i = a; i < a + n; i++)
		if (m->p[i].region != r)
			return -ENOENT;
	m_clip(m, a, a + n);
	for (uint32_t i = a; i < a + n; i++)
		m->p[i].region = 0, m->dead[i] = true;
	return 0;
}

static inline void m_unmap_all(struct model *m, struct nvl_gem_object *obj)
{
	for (uint32_t i = 0; i < MP; i++)
		if (m->p[i].mapped && m->p[i].obj == obj)
			m->p[i].mapped = false, m->p[i].obj = NULL;
}

/**
 * m_check_vm() - the VM's mappings equal the model's, mapping by mapping.
 * Return: 0 or the first mismatching page + 1.
 */
static inline int m_check_vm(const struct model *m, struct nvl_gpuvm *vm)
{
	uint32_t mapped = 0, seen = 0;
	struct nvl_gpuva *va;

	for (uint32_t i = 0; i < MP; i++)
		mapped += m->p[i].mapped;
	for (va = nvl_gpuvm_first_va(vm); va; va = nvl_gpuvm_next_va(va)) {
		uint32_t a = (uint32_t)(nvl_gpuva_addr(va) / PG);
		uint32_t e = (uint32_t)(nvl_gpuva_end(va) / PG);

		for (uint32_t i = a; i < e; i++) {
			const struct mpage *x = &m->p[i];

			if (!x->mapped || x->start != a || x->end != e ||
			    x->obj != nvl_gpuva_obj(va) ||
			    (x->flags & NVL_GPUVA_USER_FLAGS) !=
				    (va->flags & NVL_GPUVA_USER_FLAGS) ||
			    (x->obj && x->off != va->bo_offset + (i - a) * PG))
				return (int)i + 1;
			seen++;
		}
	}
	return seen == mapped ? 0 : MP + 1;
}

/**
 * m_check_pt() - the recorded page tables equal the model, page by page.
 * Return: 0 or the first mismatching page + 1.
 */
static inline int m_check_pt(const struct model *m,
			     struct nvl_vm_pt_record *rec)
{
	for (uint32_t i = 0; i < MP; i++) {
		const struct mpage *x = &m->p[i];
		struct nvl_vm_pt_page pg;

		nvl_vm_pt_record_query(rec, i * PG, &pg);
		if (x->mapped) {
			uint32_t f = (x->flags & NVL_GPUVA_READONLY
					      ? NVL_VM_PT_READONLY
					      : 0) |
				     (x->flags & NVL_GPUVA_NULL ? NVL_VM_PT_NULL
								: 0);

			if (pg.state != NVL_VM_PT_MAPPED || pg.obj != x->obj ||
			    pg.flags != f || (x->obj && pg.bo_offset != x->off))
				return (int)i + 1;
		} else if (x->region) {
			if (pg.state != NVL_VM_PT_SPARSE)
				return (int)i + 1;
		} else if (pg.state != NVL_VM_PT_INVALID) {
			return (int)i + 1;
		}
	}
	return 0;
}

/**
 * m_apply_ops() - interpret an op list on a copy of the model's mappings
 * (the list's own account of its effect).
 */
static inline void m_apply_ops(struct model *m, const struct nvl_gpuvm_ops *ops)
{
	for (uint32_t k = 0; k < ops->n; k++) {
		const struct nvl_gpuvm_op *op = &ops->v[k];
		const struct nvl_gpuva *va = op->va;
		uint32_t a, e;

		switch (op->kind) {
		case NVL_GPUVM_OP_UNMAP:
		case NVL_GPUVM_OP_REMAP:
			a = (uint32_t)(nvl_gpuva_addr(va) / PG);
			e = (uint32_t)(nvl_gpuva_end(va) / PG);
			for (uint32_t i = a; i < e; i++)
				m->p[i].mapped = false, m->p[i].obj = NULL;
			if (op->kind == NVL_GPUVM_OP_UNMAP)
				break;
			for (int s = 0; s < 2; s++) {
				const struct nvl_gpuvm_piece *p =
					s ? &op->remap.next : &op->remap.prev;
				uint32_t pa = (uint32_t)(p->addr / PG);
				uint32_t pe =
					(uint32_t)((p->addr + p->range) / PG);

				for (uint32_t i = pa; p->range && i < pe; i++) {
					struct mpage *x = &m->p[i];

					x->mapped = true;
					x->obj = nvl_gpuva_obj(va);
					x->off = x->obj ? p->bo_offset +
								  (i - pa) * PG
							: 0;
					x->flags = va->flags &
						   NVL_GPUVA_USER_FLAGS;
					x->start = pa;
					x->end = pe;
				}
			}
			break;
		case NVL_GPUVM_OP_MAP:
			a = (uint32_t)(op->map.addr / PG);
			e = (uint32_t)((op->map.addr + op->map.range) / PG);
			for (uint32_t i = a; i < e; i++) {
				struct mpage *x = &m->p[i];

				x->mapped = true;
				x->obj = op->map.obj;
				x->off = x->obj ? op->map.bo_offset +
							  (i - a) * PG
						: 0;
				x->flags = op->map.flags;
				x->start = a;
				x->end = e;
			}
			break;
		default:
			break;
		}
	}
}

/** m_same_mappings() - do two models hold the same mappings? */
static inline bool m_same_mappings(const struct model *x, const struct model *y)
{
	for (uint32_t i = 0; i < MP; i++) {
		const struct mpage *a = &x->p[i], *b = &y->p[i];

		if (a->mapped != b->mapped)
			return false;
		if (a->mapped && (a->obj != b->obj || a->off != b->off ||
				  a->flags != b->flags ||
				  a->start != b->start || a->end != b->end))
			return false;
	}
	return true;
}

#endif /* NVL_TESTS_VMT_H */
