// SPDX-License-Identifier: MIT
/*
 * TEST: bind_property
 * Description: random VM_BIND calls through the client API (1-3 ops each:
 * maps, NULL maps, unmaps, sparse regions, unmap-all; sync and async; some
 * with random allocation failures injected) against the page-granular
 * reference model: after each call the error code, the VM's mappings and
 * the recorded page tables agree exactly with the model; a failed call
 * changed nothing.
 */
#include <stdio.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "t.h"
#include "base/log.h"
#include "base/time.h"
#include "vm/vm.h"
#include "vmt.h"

#define NBO 3

struct pt {
	struct nvl_client *c;
	uint32_t vm, sig, bo[NBO];
	struct nvl_gem_object *obj[NBO];
	struct nvl_vm *v;
	struct model m;
};

static void pt_init(struct pt *p)
{
	struct nvl_vm_create_args a = {
		.start = 0,
		.end = MP * PG,
		.kernel_start = MRES_START * PG,
		.kernel_range = (MP - MRES_START) * PG,
	};

	memset(p, 0, sizeof(*p));
	assert_int_equal(nvl_client_create(&p->c), 0);
	assert_int_equal(nvl_vm_create(p->c, &a, &p->vm), 0);
	assert_int_equal(nvl_syncobj_create(p->c, 0, &p->sig), 0);
	for (int i = 0; i < NBO; i++) {
		assert_int_equal(nvl_bo_create(p->c, MP * PG,
					       NVL_BO_DOMAIN_SYSTEM, 0, 0,
					       &p->bo[i]),
				 0);
		p->obj[i] = nvl_gem_lookup(p->c, p->bo[i]);
	}
	p->v = nvl_vm_lookup(p->c, p->vm);
}

static void pt_fini(struct pt *p)
{
	for (int i = 0; i < NBO; i++)
		nvl_gem_put(p->obj[i]);
	nvl_vm_put(p->v);
	nvl_client_destroy(p->c);
}

static int model_apply(struct model *m, const struct nvl_vm_bind_op *o,
		       struct nvl_gem_object *obj)
{
	uint32_t a = (uint32_t)(o->addr / PG), n = (uint32_t)(o->range / PG);

	if (o->op == NVL_VM_BIND_OP_UNMAP_ALL) {
		m_unmap_all(m, obj);
		return 0;
	}
	if (o->op == NVL_VM_BIND_OP_UNMAP)
		return o->flags ? m_region_destroy(m, a, n) : m_unmap(m, a, n);
	if (o->flags & NVL_VM_BIND_SPARSE)
		return m_region_create(m, a, n);
	return m_map(m, a, n, obj, o->bo_offset,
		     o->flags & NVL_VM_BIND_NULL ? NVL_GPUVA_NULL : 0);
}

/* Nouveau's region pre-check, on the model as it was before the call */
static int m_region_precheck(const struct model *m,
			     const struct nvl_vm_bind_op *o)
{
	uint32_t a = (uint32_t)(o->addr / PG), n = (uint32_t)(o->range / PG);

	if (o->op != NVL_VM_BIND_OP_MAP)
		return 0;
	for (uint32_t i = a; i < a + n; i++) {
		if (o->flags & NVL_VM_BIND_SPARSE
			    ? m->p[i].region != 0
			    : m->p[i].region != m->p[a].region)
			return -ENOSPC;
	}
	return 0;
}

static void random_op(struct pt *p, uint64_t *rng, struct nvl_vm_bind_op *o,
		      int *bo)
{
	uint64_t r = t_rand(rng) % 100;
	uint32_t a = (uint32_t)(t_rand(rng) % (MP + 4));
	uint32_t n = (uint32_t)(t_rand(rng) % 20);

	if (t_rand(rng) % 8 == 0)
		n = (uint32_t)(t_rand(rng) % 120);
	memset(o, 0, sizeof(*o));
	*bo = (int)(t_rand(rng) % NBO);
	o->addr = a * PG;
	o->range = n * PG;
	if (r < 45) {
		o->op = NVL_VM_BIND_OP_MAP;
		if (t_rand(rng) % 6 == 0) {
			o->flags = NVL_VM_BIND_NULL;
			*bo = -1;
		} else {
			o->handle = p->bo[*bo];
			o->bo_offset = (t_rand(rng) % (MP - 120)) * PG;
		}
	} else if (r < 80) {
		o->op = NVL_VM_BIND_OP_UNMAP;
		*bo = -1;
	} else if (r < 88) {
		o->op = NVL_VM_BIND_OP_MAP;
		o->flags = NVL_VM_BIND_SPARSE;
		*bo = -1;
	} else if (r < 97) {
		o->op = NVL_VM_BIND_OP_UNMAP;
		o->flags = NVL_VM_BIND_SPARSE;
		*bo = -1;
		if (a < MP && p->m.p[a].region) {
			uint32_t id = p->m.p[a].region, s = a, e = a;

			while (s > 0 && p->m.p[s - 1].region == id)
				s--;
			while (e < MP && p->m.p[e].region == id)
				e++;
			o->addr = s * PG;
			o->range = (e - s) * PG;
		}
	} else {
		o->op = NVL_VM_BIND_OP_UNMAP_ALL;
		o->handle = p->bo[*bo];
		o->addr = o->range = 0;
	}
}

static int one_call(struct pt *p, uint64_t *rng, bool inject)
{
	struct nvl_vm_bind_op ops[3];
	struct nvl_vm_sync sig = {.handle = p->sig};
	struct model next = p->m;
	int n = 1 + (int)(t_rand(rng) % 3), bo[3], expect = 0, ret, bad;
	bool async = t_rand(rng) % 3 == 0;

	m_call_begin(&next);
	/* every op is checked before any is applied */
	for (int i = 0; i < n; i++) {
		random_op(p, rng, &ops[i], &bo[i]);
		if (ops[i].op != NVL_VM_BIND_OP_UNMAP_ALL &&
		    !m_valid(ops[i].addr / PG, ops[i].range / PG))
			expect = -EINVAL;
	}
	/* then every map against the regions as they were before the call */
	for (int i = 0; i < n && !expect; i++)
		expect = m_region_precheck(&p->m, &ops[i]);
	for (int i = 0; i < n && !expect; i++)
		expect = model_apply(&next, &ops[i],
				     bo[i] < 0 ? NULL : p->obj[bo[i]]);
	nvl_syncobj_reset(p->c, &p->sig, 1);
	if (inject)
		nvl_fault_fail_random(0.2, t_rand(rng), NVL_FAULT_THIS_THREAD);
	ret = nvl_vm_bind(p->c, p->vm, 0, ops, (uint32_t)n, NULL, 0, &sig, 1,
			  async ? NVL_VM_BIND_ASYNC : 0);
	nvl_fault_off();
	if (inject && ret == -ENOMEM)
		expect = -ENOMEM; /* the model stays as it was */
	if (ret != expect)
		fail_msg("call of %d ops: %d, model %d (%s)", n, ret, expect,
			 nvl_last_error());
	if (!ret) {
		p->m = next;
		assert_int_equal(nvl_syncobj_wait(p->c, &p->sig, NULL, 1,
						  nvl_time_ns() + 5000000000ll,
						  0, NULL),
				 0);
	}
	nvl_flock_lock(&p->v->gpuvm->lock);
	bad = m_check_vm(&p->m, p->v->gpuvm);
	nvl_flock_unlock(&p->v->gpuvm->lock);
	if (bad)
		fail_msg("mapping mismatch at page %d", bad - 1);
	/* async: free_job may still be finishing; the tables are written */
	bad = m_check_pt(&p->m, p->v->rec);
	if (bad)
		fail_msg("page-table mismatch at page %d", bad - 1);
	return ret;
}

static void random_bind_calls_match_reference_model(void **state)
{
	uint64_t seed0 = t_seed(0xb1dd);
	int seeds = (int)(8 * t_scale()), calls = 1200;

	(void)state;
	for (int s = 0; s < seeds; s++) {
		struct pt *p = calloc(1, sizeof(*p));
		uint64_t rng = seed0 + (uint64_t)s * 0x9e3779b97f4a7c15ull;
		int ok = 0, nomem = 0;

		assert_non_null(p);
		pt_init(p);
		for (int i = 0; i < calls; i++) {
			int ret = one_call(p, &rng, i % 4 == 3);

			ok += ret == 0;
			nomem += ret == -ENOMEM;
		}
		assert_true(ok > calls / 3);
		assert_true(nomem > 0);
		pt_fini(p);
		free(p);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(random_bind_calls_match_reference_model),
};

T_MAIN(tests)
