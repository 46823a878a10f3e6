// SPDX-License-Identifier: MIT
/*
 * TEST: bind_bulk
 * Description: the bulk path of a call of many plain maps or unmaps
 * (nvl_gpuvm_txn_bulk()) against applying the same calls one op at a time
 * (the VM's no_bulk switch): two VMs get the same random calls (batches of
 * up to 80 ops, mostly disjoint tiles so that the bulk path runs, some
 * overlapping, splitting, straddling a region or mixed with other ops so
 * that it must not; some inside one sparse region, which comes and goes;
 * sync and async); after each call the return code, the
 * error message, the mappings, the regions, every vm_bo's mapping list in
 * order and the recorded page tables (runs and references) are the same.
 * Each call is first made on the bulk VM with an allocation failure
 * injected at its 1st, 2nd, ... allocation until it gets through: every
 * failed attempt returns -ENOMEM and leaves the VM exactly as it was.
 */
#include <sched.h>
#include <stdio.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>
#include <nouvelle/vm.h>

#include "t.h"
#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "vm/vm.h"
#include "vmt.h"

#define NBO 3
#define SLOT 4u /* pages: disjoint tiles take one slot each */
#define NSLOTS (MRES_START / SLOT)
#define MAXOPS 80
#define BIG_LO 240u /* pages: a sparse region made at the start */
#define BIG_N 160u

struct side {
	struct nvl_client *c;
	uint32_t vm, sig, bo[NBO];
	struct nvl_gem_object *obj[NBO];
	struct nvl_vm *v;
};

static void side_init(struct side *s, bool bulk)
{
	struct nvl_vm_create_args a = {
		.start = 0,
		.end = MP * PG,
		.kernel_start = MRES_START * PG,
		.kernel_range = (MP - MRES_START) * PG,
	};
	struct nvl_vm_bind_op big = {
		.op = NVL_VM_BIND_OP_MAP,
		.flags = NVL_VM_BIND_SPARSE,
		.addr = BIG_LO * PG,
		.range = BIG_N * PG,
	};

	memset(s, 0, sizeof(*s));
	assert_int_equal(nvl_client_create(&s->c), 0);
	assert_int_equal(nvl_vm_create(s->c, &a, &s->vm), 0);
	assert_int_equal(nvl_syncobj_create(s->c, 0, &s->sig), 0);
	for (int i = 0; i < NBO; i++) {
		assert_int_equal(nvl_bo_create(s->c, MP * PG,
					       NVL_BO_DOMAIN_SYSTEM, 0, 0,
					       &s->bo[i]),
				 0);
		s->obj[i] = nvl_gem_lookup(s->c, s->bo[i]);
	}
	s->v = nvl_vm_lookup(s->c, s->vm);
	s->v->gpuvm->no_bulk = !bulk;
	assert_int_equal(
		nvl_vm_bind(s->c, s->vm, 0, &big, 1, NULL, 0, NULL, 0, 0), 0);
}

static void side_fini(struct side *s)
{
	for (int i = 0; i < NBO; i++)
		nvl_gem_put(s->obj[i]);
	nvl_vm_put(s->v);
	nvl_client_destroy(s->c);
}

static int bo_index(const struct side *s, const struct nvl_gem_object *obj)
{
	for (int i = 0; i < NBO; i++)
		if (s->obj[i] == obj)
			return i;
	return -1;
}

struct pt_print {
	struct side *s;
	FILE *f;
};

/* one recorded run, its BO as an index (the two VMs have their own) */
static void pt_run(uint64_t va, uint64_t range, const struct nvl_vm_pt_page *p,
		   void *arg)
{
	struct pt_print *pr = arg;

	fprintf(pr->f, "run %llx+%llx state %d bo %d off %llx flags %x %u\n",
		(unsigned long long)va, (unsigned long long)range, p->state,
		bo_index(pr->s, p->obj), (unsigned long long)p->bo_offset,
		p->flags, p->page_shift);
}

/*
 * Everything a caller can observe of the VM as text: the mappings (BOs as
 * indices), the regions, each vm_bo's list in order, the page tables' hash.
 */
static char *state(struct side *s)
{
	struct nvl_gpuvm *g = s->v->gpuvm;
	struct nvl_itree_node *n;
	const struct nvl_gpuva *va;
	struct nvl_vm_pt_record_stats st;
	struct pt_print pr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	nvl_flock_lock(&g->lock);
	for (va = nvl_gpuvm_first_va(g); va; va = nvl_gpuvm_next_va(va))
		fprintf(f, "va %llx+%llx bo %d off %llx flags %x shift %u\n",
			(unsigned long long)nvl_gpuva_addr(va),
			(unsigned long long)nvl_gpuva_range(va),
			bo_index(s, nvl_gpuva_obj(va)),
			(unsigned long long)va->bo_offset,
			va->flags & NVL_GPUVA_USER_FLAGS, va->page_shift);
	nvl_itree_for_each (n, &g->regions, 0, UINT64_MAX)
		fprintf(f, "region %llx-%llx dead %d\n",
			(unsigned long long)n->start,
			(unsigned long long)n->last,
			container_of(n, struct nvl_gpuvm_region, node)
					->dead_seq != 0);
	for (int i = 0; i < NBO; i++) {
		struct nvl_gpuvm_bo *vm_bo = nvl_gpuvm_bo_find(g, s->obj[i]);

		if (!vm_bo)
			continue;
		fprintf(f, "bo %d:", i);
		nvl_list_for_each_entry (va, &vm_bo->vas, bo_link)
			fprintf(f, " %llx",
				(unsigned long long)nvl_gpuva_addr(va));
		fputc('\n', f);
		nvl_gpuvm_bo_put(vm_bo);
	}
	nvl_flock_unlock(&g->lock);
	nvl_vm_pt_record_stats(s->v->rec, &st);
	fprintf(f, "pt refs %llu bytes %llu runs %llu errors %llu\n",
		(unsigned long long)st.refs, (unsigned long long)st.ref_bytes,
		(unsigned long long)st.runs, (unsigned long long)st.errors);
	pr.s = s;
	pr.f = f;
	nvl_vm_pt_record_for_each(s->v->rec, pt_run, &pr);
	fclose(f);
	return buf;
}

/* a tile of @slot: 1 to SLOT pages inside it, or the whole slot */
static void tile(uint64_t *rng, uint32_t slot, bool whole, uint64_t *addr,
		 uint64_t *range)
{
	uint32_t n = whole ? SLOT : 1 + (uint32_t)(t_rand(rng) % SLOT);
	uint32_t a = slot * SLOT + (uint32_t)(t_rand(rng) % (SLOT - n + 1));

	*addr = a * PG;
	*range = n * PG;
}

/*
 * A random call: a run of maps or of unmaps over distinct slots (the bulk
 * path's case), with now and then an op that interacts (any range: it may
 * overlap another op, split a mapping, straddle a region) or another kind
 * of op in the middle (a sparse region, UNMAP_ALL, a NULL map).
 */
static uint32_t random_call(uint64_t *rng, struct nvl_vm_bind_op *ops, int *bo)
{
	uint32_t n = 2 + (uint32_t)(t_rand(rng) % (MAXOPS - 1));
	uint32_t slots[NSLOTS];
	bool unmap = t_rand(rng) % 2, messy = t_rand(rng) % 3 == 0;
	bool whole = t_rand(rng) % 2, sorted = t_rand(rng) % 4 == 0;

	if (t_rand(rng) % 4 == 0)
		n = 2 + (uint32_t)(t_rand(rng) % 6);
	uint32_t s0 = 0, ns = NSLOTS;

	/* now and then only the slots of the big region (BIG_LO, BIG_N) */
	if (t_rand(rng) % 3 == 0) {
		s0 = BIG_LO / SLOT;
		ns = BIG_N / SLOT;
	}
	if (n > ns)
		n = ns;
	for (uint32_t i = 0; i < ns; i++)
		slots[i] = s0 + i;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i + (uint32_t)(t_rand(rng) % (ns - i));
		uint32_t t = slots[i];
		struct nvl_vm_bind_op *o = &ops[i];

		slots[i] = slots[j];
		slots[j] = t;
		memset(o, 0, sizeof(*o));
		bo[i] = -1;
		tile(rng, slots[i], whole, &o->addr, &o->range);
		if (messy && t_rand(rng) % 8 == 0) {
			o->addr = (t_rand(rng) % MRES_START) * PG;
			o->range = (1 + t_rand(rng) % 12) * PG;
		}
		o->op = unmap ? NVL_VM_BIND_OP_UNMAP : NVL_VM_BIND_OP_MAP;
		if (messy && t_rand(rng) % 16 == 0) {
			/* another kind of op breaks the run */
			uint64_t r = t_rand(rng) % 4;

			if (r == 3) {
				/* the big region goes, or comes back */
				o->op = t_rand(rng) % 2 ? NVL_VM_BIND_OP_MAP
							: NVL_VM_BIND_OP_UNMAP;
				o->flags = NVL_VM_BIND_SPARSE;
				o->addr = BIG_LO * PG;
				o->range = BIG_N * PG;
			} else if (r == 0) {
				o->op = NVL_VM_BIND_OP_MAP;
				o->flags = NVL_VM_BIND_SPARSE;
				o->addr = slots[i] * SLOT * PG;
				o->range = 2 * SLOT * PG;
			} else if (r == 1) {
				o->op = NVL_VM_BIND_OP_UNMAP_ALL;
				o->addr = o->range = 0;
				bo[i] = (int)(t_rand(rng) % NBO);
			} else {
				o->op = unmap ? NVL_VM_BIND_OP_MAP
					      : NVL_VM_BIND_OP_UNMAP;
			}
		}
		if (o->op == NVL_VM_BIND_OP_MAP && !o->flags) {
			if (t_rand(rng) % 8 == 0) {
				o->flags = NVL_VM_BIND_NULL;
			} else {
				bo[i] = (int)(t_rand(rng) % NBO);
				o->bo_offset = (t_rand(rng) % (MP - 16)) * PG;
				if (t_rand(rng) % 8 == 0)
					o->flags = NVL_VM_BIND_READONLY;
			}
		}
	}
	/* now and then in address order (the bulk path skips its sort) */
	for (uint32_t i = 1; sorted && i < n; i++) {
		struct nvl_vm_bind_op o = ops[i];
		int b = bo[i];
		uint32_t j = i;

		for (; j > 0 && ops[j - 1].addr > o.addr; j--) {
			ops[j] = ops[j - 1];
			bo[j] = bo[j - 1];
		}
		ops[j] = o;
		bo[j] = b;
	}
	return n;
}

static int call(struct side *s, const struct nvl_vm_bind_op *tmpl,
		const int *bo, uint32_t n, bool async)
{
	struct nvl_vm_bind_op ops[MAXOPS];
	struct nvl_vm_sync sig = {.handle = s->sig};
	int ret;

	for (uint32_t i = 0; i < n; i++) {
		ops[i] = tmpl[i];
		ops[i].handle = bo[i] < 0 ? 0 : s->bo[bo[i]];
	}
	nvl_syncobj_reset(s->c, &s->sig, 1);
	ret = nvl_vm_bind(s->c, s->vm, 0, ops, n, NULL, 0, &sig, 1,
			  async ? NVL_VM_BIND_ASYNC : 0);
	nvl_fault_off();
	if (ret)
		return ret;
	assert_int_equal(nvl_syncobj_wait(s->c, &s->sig, NULL, 1,
					  nvl_time_ns() + 5000000000ll, 0,
					  NULL),
			 0);
	/* an async bind's finish (page-table references) runs after that */
	for (int64_t end = nvl_time_ns() + 5000000000ll;;) {
		bool idle;

		nvl_flock_lock(&s->v->gpuvm->lock);
		idle = nvl_list_empty(&s->v->pending);
		nvl_flock_unlock(&s->v->gpuvm->lock);
		if (idle)
			break;
		assert_true(nvl_time_ns() < end);
		sched_yield();
	}
	return 0;
}

static void same_state(struct side *a, struct side *b, const char *what)
{
	char *x = state(a), *y = state(b);

	if (strcmp(x, y)) {
		size_t i = 0, line = 0;

		while (x[i] == y[i]) /* the first line that differs */
			if (x[i++] == '\n')
				line = i;
		fail_msg("%s: bulk VM and one op at a time differ:\n%.120s\n"
			 "--- one op at a time:\n%.120s",
			 what, x + line, y + line);
	}
	free(x);
	free(y);
}

static void bulk_matches_one_op_at_a_time(void **state_)
{
	uint64_t seed0 = t_seed(0xb0b0);
	int seeds = (int)(3 * t_scale()), calls = 300;
	long bulk_ok = 0, injected = 0, errors = 0;
	uint64_t bulk_ops = 0;

	(void)state_;
	for (int sd = 0; sd < seeds; sd++) {
		struct side *a = calloc(2, sizeof(*a)), *b = a + 1;
		uint64_t rng = seed0 + (uint64_t)sd * 0x9e3779b97f4a7c15ull;

		assert_non_null(a);
		side_init(a, true);
		side_init(b, false);
		for (int i = 0; i < calls; i++) {
			struct nvl_vm_bind_op ops[MAXOPS];
			int bo[MAXOPS], ra, rb;
			uint32_t n = random_call(&rng, ops, bo);
			bool async = t_rand(&rng) % 4 == 0;
			char msg[256] = "";
			char *before = state(a);

			/* a failure at every allocation, until none is left */
			for (unsigned long k = 1;; k++) {
				char *now;

				nvl_fault_fail_nth(k, NVL_FAULT_THIS_THREAD);
				ra = call(a, ops, bo, n, async);
				if (ra != -ENOMEM)
					break;
				injected++;
				now = state(a);
				if (strcmp(before, now))
					fail_msg("call %d: failed allocation "
						 "%lu changed the VM:\n%s\n"
						 "before:\n%s",
						 i, k, now, before);
				free(now);
			}
			if (ra)
				snprintf(msg, sizeof(msg), "%s",
					 nvl_last_error());
			rb = call(b, ops, bo, n, async);
			if (ra != rb)
				fail_msg("call %d (%u ops): bulk %d, one at a "
					 "time %d (%s)",
					 i, n, ra, rb, nvl_last_error());
			if (ra && strcmp(msg, nvl_last_error()))
				fail_msg("call %d: messages differ:\n%s\n%s", i,
					 msg, nvl_last_error());
			bulk_ok += !ra;
			errors += ra != 0;
			if (getenv("T_VERBOSE")) {
				fprintf(stderr,
					"call %d: %u ops ret %d bulk %llu:", i,
					n, ra,
					(unsigned long long)
						a->v->gpuvm->nr_bulk);
				for (uint32_t k = 0; k < n; k++)
					fprintf(stderr, " %u:%llx+%llx/%x",
						ops[k].op,
						(unsigned long long)ops[k].addr,
						(unsigned long long)ops[k]
							.range,
						ops[k].flags);
				fprintf(stderr, "\n");
			}
			same_state(a, b, "after a call");
			free(before);
		}
		bulk_ops += a->v->gpuvm->nr_bulk;
		assert_int_equal(b->v->gpuvm->nr_bulk, 0);
		side_fini(a);
		side_fini(b);
		free(a);
	}
	/* the calls exercised both paths and the failures */
	assert_true(bulk_ok > seeds * calls / 2);
	assert_true(errors > 0);
	assert_true(injected > seeds * calls);
	assert_true(bulk_ops > (uint64_t)seeds * calls * 4);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(bulk_matches_one_op_at_a_time),
};

T_MAIN(tests)
