// SPDX-License-Identifier: MIT
/*
 * TEST: ibtree_bulk
 * Description: the interval B+tree's sorted-run insert and remove
 * (nvl_ibtree_insert_sorted(), nvl_ibtree_remove_sorted(), issue 19)
 * against a reference: random runs mixed with single inserts and removals,
 * every split and merge boundary of a 32-wide leaf, runs out of the tree's
 * order, ties, bad input, and allocation failures leaving the tree as it
 * was; and the cursor's in-order walk (nvl_ibtree_cursor_first() and
 * _next()) against nvl_ibtree_first() and nvl_ibtree_succ().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "base/alloc.h"
#include "base/ibtree.h"

#define W 32 /* the tree's node width (ibtree.c) */

struct item {
	struct nvl_ibtree_entry node;
	bool in;
	bool seen;
};

typedef struct nvl_ibtree_entry entry_t;

static int key_cmp(const void *a, const void *b)
{
	const entry_t *x = *(entry_t *const *)a, *y = *(entry_t *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return 0;
}

/*
 * A cursor put at nvl_ibtree_first(@s, @l) is there, and its steps from
 * there visit what nvl_ibtree_succ() visits, to the end and past it.
 */
static void cursor_walk(struct nvl_ibtree *t, uint64_t s, uint64_t l)
{
	struct nvl_ibtree_cursor c;
	entry_t *e = nvl_ibtree_first(t, s, l);

	assert_ptr_equal(nvl_ibtree_cursor_first(t, &c, s, l), e);
	assert_ptr_equal(c.e, e);
	if (!e)
		return;
	for (e = nvl_ibtree_succ(e); e; e = nvl_ibtree_succ(e)) {
		assert_ptr_equal(nvl_ibtree_cursor_next(&c), e);
		assert_ptr_equal(c.e, e);
	}
	assert_null(nvl_ibtree_cursor_next(&c));
	assert_null(c.e);
	assert_null(nvl_ibtree_cursor_next(&c));
}

/*
 * The tree holds exactly the items marked in, in key order, each once, and
 * its overlap queries agree with a scan of the items.
 */
static void verify(struct nvl_ibtree *t, struct item *items, int n,
		   uint64_t *rng, uint64_t space)
{
	entry_t *e;
	size_t in = 0, got = 0;
	uint64_t ps = 0, pl = 0;

	assert_int_equal(nvl_ibtree_check(t), 0);
	for (int i = 0; i < n; i++) {
		items[i].seen = false;
		in += items[i].in;
	}
	assert_int_equal(nvl_ibtree_count(t), in);
	for (e = nvl_ibtree_min(t); e; e = nvl_ibtree_succ(e), got++) {
		struct item *x = container_of(e, struct item, node);

		assert_true(x->in);
		assert_false(x->seen);
		x->seen = true;
		if (got)
			assert_true(ps < e->start ||
				    (ps == e->start && pl <= e->last));
		ps = e->start;
		pl = e->last;
	}
	assert_int_equal(got, in);
	for (int q = 0; q < 4; q++) {
		uint64_t s = t_rand(rng) % space, l = s + t_rand(rng) % 300;
		size_t expect = 0, found = 0;

		for (int i = 0; i < n; i++)
			if (items[i].in && items[i].node.start <= l &&
			    items[i].node.last >= s)
				expect++;
		for (e = nvl_ibtree_first(t, s, l); e;
		     e = nvl_ibtree_next(e, s, l))
			found++;
		assert_int_equal(found, expect);
		cursor_walk(t, s, l);
	}
	cursor_walk(t, 0, UINT64_MAX);
}

/* the entries of the tree in its order */
static unsigned tree_order(struct nvl_ibtree *t, entry_t **out)
{
	unsigned k = 0;

	for (entry_t *e = nvl_ibtree_min(t); e; e = nvl_ibtree_succ(e))
		out[k++] = e;
	return k;
}

static void shuffle(entry_t **v, unsigned n, uint64_t *rng)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(t_rand(rng) % i);
		entry_t *x = v[i - 1];

		v[i - 1] = v[j];
		v[j] = x;
	}
}

/*
 * Random runs: sorted inserts of up to @maxrun new items, sorted removals
 * (in the tree's order, descending, or shuffled) of up to @maxrun items,
 * and single inserts and removals between them.
 */
static void random_runs(uint64_t seed, int n, int steps, unsigned maxrun,
			uint64_t space, uint64_t maxlen)
{
	struct item *items = calloc((size_t)n, sizeof(*items));
	entry_t **run = calloc((size_t)n, sizeof(*run));
	entry_t **all = calloc((size_t)n, sizeof(*all));
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	uint64_t rng = seed;

	assert_non_null(items);
	assert_non_null(run);
	assert_non_null(all);
	for (int step = 0; step < steps; step++) {
		unsigned kind = (unsigned)(t_rand(&rng) % 8);
		unsigned want = 1 + (unsigned)(t_rand(&rng) % maxrun), k = 0;

		if (kind < 3) { /* a sorted insert */
			for (unsigned a = 0; a < 4 * want && k < want; a++) {
				struct item *x =
					&items[t_rand(&rng) % (uint64_t)n];

				if (x->in || x->seen)
					continue;
				x->seen = true; /* picked */
				x->node.start = t_rand(&rng) % space;
				x->node.last =
					x->node.start + t_rand(&rng) % maxlen;
				run[k++] = &x->node;
			}
			qsort(run, k, sizeof(run[0]), key_cmp);
			assert_int_equal(nvl_ibtree_insert_sorted(&t, run, k),
					 0);
			for (unsigned i = 0; i < k; i++)
				container_of(run[i], struct item, node)->in =
					true;
		} else if (kind < 6) { /* a sorted removal */
			unsigned m = tree_order(&t, all);
			unsigned mode = (unsigned)(t_rand(&rng) % 4);

			if (!m)
				continue;
			if (mode == 3) { /* a block of the tree's order */
				unsigned from = (unsigned)(t_rand(&rng) % m);

				for (unsigned i = from; i < m && k < want; i++)
					run[k++] = all[i];
			} else {
				for (unsigned i = 0; i < m && k < want; i++)
					if (t_rand(&rng) % 3 == 0)
						run[k++] = all[i];
			}
			if (mode == 1) /* descending */
				for (unsigned i = 0; i < k / 2; i++) {
					entry_t *x = run[i];

					run[i] = run[k - 1 - i];
					run[k - 1 - i] = x;
				}
			else if (mode == 2)
				shuffle(run, k, &rng);
			nvl_ibtree_remove_sorted(&t, run, k);
			for (unsigned i = 0; i < k; i++) {
				assert_null(run[i]->__leaf);
				container_of(run[i], struct item, node)->in =
					false;
			}
		} else { /* one at a time */
			struct item *x = &items[t_rand(&rng) % (uint64_t)n];

			if (x->in) {
				nvl_ibtree_remove(&t, &x->node);
				x->in = false;
			} else {
				x->node.start = t_rand(&rng) % space;
				x->node.last =
					x->node.start + t_rand(&rng) % maxlen;
				assert_int_equal(
					nvl_ibtree_insert(&t, &x->node), 0);
				x->in = true;
			}
		}
		verify(&t, items, n, &rng, space);
	}
	nvl_ibtree_remove_sorted(&t, all, tree_order(&t, all));
	assert_true(nvl_ibtree_empty(&t));
	assert_int_equal(nvl_ibtree_check(&t), 0);
	nvl_ibtree_fini(&t);
	free(all);
	free(run);
	free(items);
}

static void random_runs_small(void **state)
{
	uint64_t seed = t_seed(0xb01c);

	for (int s = 0; s < 10; s++)
		random_runs(seed + (uint64_t)s, 300, 400, 70, 10000, 200);
}

static void random_runs_duplicates(void **state)
{
	/* few distinct keys: runs and leaves full of equal keys */
	random_runs(t_seed(0xd0b), 400, 400, 100, 16, 4);
}

static void random_runs_multilevel(void **state)
{
	/* thousands of entries: three levels, runs across many leaves */
	random_runs(t_seed(0x3e7), 6000, 150, 2000, 1000000, 3000);
}

/*
 * Every boundary of a leaf's split and merge: base trees of sizes around
 * W and 2W (and a multilevel one) take runs of sizes around W and 2W below,
 * above, between and inside their entries; then the run and then the base
 * go out again in runs, with the leaves falling under W/4 on the way.
 */
static void split_merge_boundaries(void **state)
{
	static const unsigned sizes[] = {
		0,	   1,	  W / 4 - 1, W / 4, W - 1,  W,	       W + 1,
		2 * W - 1, 2 * W, 2 * W + 1, 3 * W, 24 * W, 24 * W + 5};
	static const unsigned runs[] = {1,	   2,	      W / 4,	 W - 1,
					W,	   W + 1,     2 * W - 1, 2 * W,
					2 * W + 1, 3 * W + 7, 5 * W};
	enum { MAXN = 24 * W + 5 + 5 * W };
	static struct item items[MAXN];
	static entry_t *v[MAXN];
	uint64_t rng = t_seed(0x5b1);

	for (unsigned si = 0; si < NVL_ARRAY_SIZE(sizes); si++)
		for (unsigned ri = 0; ri < NVL_ARRAY_SIZE(runs); ri++)
			for (unsigned pos = 0; pos < 4; pos++) {
				unsigned nb = sizes[si], nr = runs[ri], m;
				struct nvl_ibtree t = NVL_IBTREE_INIT;

				memset(items, 0, sizeof(items));
				for (unsigned i = 0; i < nb; i++) {
					items[i].node.start = 1000 + 10 * i;
					items[i].node.last = 1000 + 10 * i + 3;
					assert_int_equal(
						nvl_ibtree_insert(
							&t, &items[i].node),
						0);
					items[i].in = true;
				}
				for (unsigned i = 0; i < nr; i++) {
					entry_t *e = &items[nb + i].node;

					if (pos == 0) /* below all */
						e->start = i;
					else if (pos == 1) /* above all */
						e->start = 1000000 + i;
					else if (pos == 2) /* between */
						e->start = 1005 +
							   10 * (i % (nb + 1));
					else /* inside: one start, lasts rising */
						e->start = 1000 + 10 * (nb / 2);
					e->last = e->start + i;
					v[i] = e;
				}
				qsort(v, nr, sizeof(v[0]), key_cmp);
				assert_int_equal(
					nvl_ibtree_insert_sorted(&t, v, nr), 0);
				for (unsigned i = 0; i < nr; i++)
					items[nb + i].in = true;
				verify(&t, items, (int)(nb + nr), &rng,
				       1100000);
				/* the run out again, in the tree's order */
				m = 0;
				for (entry_t *e = nvl_ibtree_min(&t); e;
				     e = nvl_ibtree_succ(e))
					if (container_of(e, struct item,
							 node) >= &items[nb])
						v[m++] = e;
				assert_int_equal(m, nr);
				nvl_ibtree_remove_sorted(&t, v, m);
				for (unsigned i = 0; i < nr; i++)
					items[nb + i].in = false;
				verify(&t, items, (int)(nb + nr), &rng,
				       1100000);
				/* every other entry of the base, then the rest */
				m = tree_order(&t, v);
				for (unsigned i = 0; i < m; i += 2) {
					v[i / 2] = v[i];
					container_of(v[i], struct item, node)
						->in = false;
				}
				nvl_ibtree_remove_sorted(&t, v, (m + 1) / 2);
				verify(&t, items, (int)nb, &rng, 1100000);
				m = tree_order(&t, v);
				nvl_ibtree_remove_sorted(&t, v, m);
				assert_true(nvl_ibtree_empty(&t));
				assert_int_equal(nvl_ibtree_check(&t), 0);
				nvl_ibtree_fini(&t);
			}
}

/* blocks of the tree's order removed in one call: leaves emptied whole */
static void remove_blocks(void **state)
{
	enum { N = 40 * W };
	static struct item items[N];
	static entry_t *v[N];
	uint64_t rng = t_seed(0xb10c);

	for (unsigned len = 1; len <= 3 * W + 1; len += 7)
		for (unsigned from = 0; from < N; from += N / 5 + len) {
			struct nvl_ibtree t = NVL_IBTREE_INIT;
			unsigned m;

			memset(items, 0, sizeof(items));
			for (unsigned i = 0; i < N; i++) {
				items[i].node.start = 64ull * i;
				items[i].node.last = 64ull * i + 63;
				v[i] = &items[i].node;
				items[i].in = true;
			}
			assert_int_equal(nvl_ibtree_insert_sorted(&t, v, N), 0);
			m = tree_order(&t, v);
			assert_int_equal(m, N);
			m = NVL_MIN(len, N - from);
			for (unsigned i = 0; i < m; i++)
				items[from + i].in = false;
			nvl_ibtree_remove_sorted(&t, v + from, m);
			verify(&t, items, N, &rng, 64ull * N);
			nvl_ibtree_fini(&t);
		}
}

/*
 * A run's entry goes after the tree's entries of its key, as insert puts
 * it: tree and run sizes for the in-place merge and for the split.
 */
static void ties_go_after_the_tree_s(void **state)
{
	static const unsigned cases[][2] = {
		{5, 3}, {W - 2, 2}, {1, W - 1}, {W, 2 * W}, {3, W}, {2 * W, 5},
	};
	static struct item a[3 * W], b[3 * W], c;
	entry_t *v[3 * W], *e;

	for (unsigned ci = 0; ci < NVL_ARRAY_SIZE(cases); ci++) {
		struct nvl_ibtree t = NVL_IBTREE_INIT;
		unsigned na = cases[ci][0], nb = cases[ci][1];

		/* a key below, so the ties are not the leaf's first slot */
		c.node.start = 1;
		c.node.last = 1;
		assert_int_equal(nvl_ibtree_insert(&t, &c.node), 0);
		for (unsigned i = 0; i < na; i++) {
			a[i].node.start = 7;
			a[i].node.last = 9;
			assert_int_equal(nvl_ibtree_insert(&t, &a[i].node), 0);
		}
		for (unsigned i = 0; i < nb; i++) {
			b[i].node.start = 7;
			b[i].node.last = 9;
			v[i] = &b[i].node;
		}
		assert_int_equal(nvl_ibtree_insert_sorted(&t, v, nb), 0);
		assert_int_equal(nvl_ibtree_check(&t), 0);
		/* c, then a[0..na) as inserted, then the run in its order */
		e = nvl_ibtree_min(&t);
		assert_ptr_equal(e, &c.node);
		for (unsigned i = 0; i < na + nb; i++) {
			e = nvl_ibtree_succ(e);
			assert_ptr_equal(e,
					 i < na ? &a[i].node : &b[i - na].node);
		}
		assert_null(nvl_ibtree_succ(e));
		nvl_ibtree_fini(&t);
	}
}

static void bad_input_changes_nothing(void **state)
{
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	struct item it[4] = {
		{.node = {.start = 10, .last = 19}},
		{.node = {.start = 30, .last = 39}},
		{.node = {.start = 20, .last = 29}},
		{.node = {.start = 20, .last = 25}},
	};
	entry_t *v[3] = {&it[0].node, &it[1].node, &it[2].node};
	entry_t *w[2] = {&it[2].node, &it[3].node}; /* same start, last down */

	assert_int_equal(nvl_ibtree_insert_sorted(&t, v, 3), -EINVAL);
	assert_int_equal(nvl_ibtree_insert_sorted(&t, w, 2), -EINVAL);
	assert_true(nvl_ibtree_empty(&t));
	assert_null(t.root);
	assert_int_equal(nvl_ibtree_insert(&t, &it[1].node), 0);
	assert_int_equal(nvl_ibtree_insert_sorted(&t, v, 3), -EINVAL);
	assert_int_equal(nvl_ibtree_count(&t), 1);
	assert_null(it[0].node.__leaf);
	assert_int_equal(nvl_ibtree_check(&t), 0);
	/* nothing to do */
	assert_int_equal(nvl_ibtree_insert_sorted(&t, v, 0), 0);
	nvl_ibtree_remove_sorted(&t, v, 0);
	assert_int_equal(nvl_ibtree_count(&t), 1);
	nvl_ibtree_fini(&t);
}

/*
 * With every allocation failing, a run that needs nodes the pool does not
 * have fails with the tree exactly as it was (same entries in the same
 * order), and goes in once allocations work again.
 */
static void failed_sorted_insert_changes_nothing(void **state)
{
	enum { N = 6000, RUN = 97 };
	static struct item it[N];
	static entry_t *v[RUN], *before[N], *after[N];
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	uint64_t rng = t_seed(0xfa11);
	unsigned have = 0;
	int failures = 0;

	while (have + RUN <= N) {
		unsigned k = 1 + (unsigned)(t_rand(&rng) % RUN), m;
		int ret;

		for (unsigned i = 0; i < k; i++) {
			it[have + i].node.start = t_rand(&rng) % 1000000;
			it[have + i].node.last =
				it[have + i].node.start + t_rand(&rng) % 50;
			v[i] = &it[have + i].node;
		}
		qsort(v, k, sizeof(v[0]), key_cmp);
		m = tree_order(&t, before);
		nvl_fault_fail_random(1.0, 7, NVL_FAULT_THIS_THREAD);
		ret = nvl_ibtree_insert_sorted(&t, v, k);
		nvl_fault_off();
		if (ret) {
			assert_int_equal(ret, -ENOMEM);
			failures++;
			assert_int_equal(nvl_ibtree_check(&t), 0);
			assert_int_equal(nvl_ibtree_count(&t), have);
			assert_int_equal(tree_order(&t, after), m);
			assert_memory_equal(before, after,
					    m * sizeof(entry_t *));
			for (unsigned i = 0; i < k; i++)
				assert_null(v[i]->__leaf);
			assert_int_equal(nvl_ibtree_insert_sorted(&t, v, k), 0);
		}
		have += k;
		assert_int_equal(nvl_ibtree_count(&t), have);
	}
	assert_true(failures >= 2); /* one per pool chunk at least */
	assert_int_equal(nvl_ibtree_check(&t), 0);
	nvl_ibtree_fini(&t);
}

/* nvl_ibtree_preload(n) covers a run of n as it covers n single inserts */
static void preload_covers_a_run(void **state)
{
	enum { N = 8000 };
	static struct item it[N];
	static entry_t *v[N];
	struct nvl_ibtree t = NVL_IBTREE_INIT;
	uint64_t rng = t_seed(0x9e1);
	unsigned have = 0;

	while (have < N) {
		unsigned k =
			NVL_MIN(1 + (unsigned)(t_rand(&rng) % 300), N - have);

		for (unsigned i = 0; i < k; i++) {
			it[have + i].node.start = t_rand(&rng) % 10000000;
			it[have + i].node.last = it[have + i].node.start + 9;
			v[i] = &it[have + i].node;
		}
		qsort(v, k, sizeof(v[0]), key_cmp);
		assert_int_equal(nvl_ibtree_preload(&t, k), 0);
		nvl_fault_fail_random(1.0, 1, NVL_FAULT_THIS_THREAD);
		assert_int_equal(nvl_ibtree_insert_sorted(&t, v, k), 0);
		nvl_fault_off();
		assert_int_equal(nvl_fault_hits(), 0);
		have += k;
	}
	assert_int_equal(nvl_ibtree_check(&t), 0);
	assert_int_equal(nvl_ibtree_count(&t), N);
	nvl_ibtree_fini(&t);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(bad_input_changes_nothing),
	cmocka_unit_test(ties_go_after_the_tree_s),
	cmocka_unit_test(split_merge_boundaries),
	cmocka_unit_test(remove_blocks),
	cmocka_unit_test(random_runs_small),
	cmocka_unit_test(random_runs_duplicates),
	cmocka_unit_test(random_runs_multilevel),
	cmocka_unit_test(failed_sorted_insert_changes_nothing),
	cmocka_unit_test(preload_covers_a_run),
};

T_MAIN(tests)
