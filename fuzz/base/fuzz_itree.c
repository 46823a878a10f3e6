// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the interval trees (base/itree.h, and base/ibtree.h with its
 * sorted-run calls) under arbitrary insert/remove/query sequences, checked
 * against a brute-force reference after every step. Both trees hold the
 * same items.
 * Input: a stream of 9-byte records (op, slot, start:3, len:2, qlen:2).
 *  - op bit 0: toggle the item at the slot (insert into both trees, or
 *    remove from both) with [start, start + len];
 *  - op bits 1-3 (ibtree runs, issue 19): 1 a sorted insert of up to
 *    1 + qlen % 128 items not in the trees from the slot on, keys start +
 *    i * (qlen >> 8) (0: all one start, ties), last start + len;
 *    2 a sorted removal of every (1 + qlen >> 8 & 3)-th item from the
 *    first one starting at or after start, in the tree's order, up to
 *    1 + qlen % 128; 3 the same removal in descending order; the itree
 *    takes the same items one at a time;
 *  - op bits 4-5: the slot's high bits (1024 slots);
 * then the entries overlapping [start, start + qlen] are counted in both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/ibtree.h"
#include "base/itree.h"

#define SLOTS 1024
#define RUN_MAX 128

struct item {
	struct nvl_itree_node node;
	struct nvl_ibtree_entry b;
	int in;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int key_cmp(const void *a, const void *b)
{
	const struct nvl_ibtree_entry *x =
		*(const struct nvl_ibtree_entry *const *)a;
	const struct nvl_ibtree_entry *y =
		*(const struct nvl_ibtree_entry *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->last < y->last ? -1 : x->last > y->last;
}

static void set_keys(struct item *x, uint64_t s, uint64_t l)
{
	x->node.start = x->b.start = s;
	x->node.last = x->b.last = l;
}

/* a sorted run of new items into the ibtree, one at a time into the itree */
static void run_insert(struct nvl_itree *t, struct nvl_ibtree *bt,
		       struct item *items, unsigned slot, uint64_t s,
		       uint64_t len, unsigned want, uint64_t step)
{
	struct nvl_ibtree_entry *run[RUN_MAX];
	unsigned k = 0;

	for (unsigned i = 0; i < SLOTS && k < want; i++) {
		struct item *x = &items[(slot + i) % SLOTS];

		if (x->in)
			continue;
		set_keys(x, s + k * step, s + k * step + len);
		run[k++] = &x->b;
	}
	qsort(run, k, sizeof(run[0]), key_cmp);
	if (nvl_ibtree_insert_sorted(bt, run, k))
		abort();
	for (unsigned i = 0; i < k; i++) {
		struct item *x = container_of(run[i], struct item, b);

		nvl_itree_insert(t, &x->node);
		x->in = 1;
	}
}

/* every @every-th entry from the first starting at or after @s */
static void run_remove(struct nvl_itree *t, struct nvl_ibtree *bt, uint64_t s,
		       unsigned want, unsigned every, int descending)
{
	struct nvl_ibtree_entry *run[RUN_MAX], *e;
	unsigned k = 0, i = 0;

	for (e = nvl_ibtree_lower_bound(bt, s); e && k < want;
	     e = nvl_ibtree_succ(e), i++)
		if (i % every == 0)
			run[k++] = e;
	for (unsigned j = 0; descending && j < k / 2; j++) {
		e = run[j];
		run[j] = run[k - 1 - j];
		run[k - 1 - j] = e;
	}
	nvl_ibtree_remove_sorted(bt, run, k);
	for (unsigned j = 0; j < k; j++) {
		struct item *x = container_of(run[j], struct item, b);

		if (run[j]->__leaf)
			abort();
		nvl_itree_remove(t, &x->node);
		x->in = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct item items[SLOTS];
	struct nvl_itree t = NVL_ITREE_INIT;
	struct nvl_ibtree bt = NVL_IBTREE_INIT;

	memset(items, 0, sizeof(items));
	for (size_t off = 0; off + 9 <= size; off += 9) {
		const uint8_t *r = data + off;
		unsigned slot = r[1] | (unsigned)(r[0] >> 4 & 3) << 8;
		struct item *x = &items[slot];
		uint64_t s = (uint64_t)r[2] | (uint64_t)r[3] << 8 |
			     (uint64_t)r[4] << 16;
		uint64_t len = (uint64_t)r[5] | (uint64_t)r[6] << 8;
		uint64_t ql = (uint64_t)r[7] | (uint64_t)r[8] << 8;
		unsigned run = (r[0] >> 1) & 7, want = 1 + r[7] % RUN_MAX;
		struct nvl_itree_node *n;
		struct nvl_ibtree_entry *e;
		struct nvl_ibtree_cursor c;
		int expect = 0, got = 0, bgot = 0, in = 0;

		if (r[0] & 1) {
			if (x->in) {
				nvl_itree_remove(&t, &x->node);
				nvl_ibtree_remove(&bt, &x->b);
				x->in = 0;
			} else {
				set_keys(x, s, s + len);
				nvl_itree_insert(&t, &x->node);
				if (nvl_ibtree_insert(&bt, &x->b))
					abort();
				x->in = 1;
			}
		}
		if (run == 1)
			run_insert(&t, &bt, items, slot, s, len, want, r[8]);
		else if (run == 2 || run == 3)
			run_remove(&t, &bt, s, want, 1 + (r[8] & 3), run == 3);
		for (int i = 0; i < SLOTS; i++) {
			in += items[i].in;
			if (items[i].in && items[i].node.start <= s + ql &&
			    items[i].node.last >= s)
				expect++;
		}
		nvl_itree_for_each (n, &t, s, s + ql)
			got++;
		for (e = nvl_ibtree_first(&bt, s, s + ql); e;
		     e = nvl_ibtree_next(e, s, s + ql))
			bgot++;
		/* a cursor from there steps as nvl_ibtree_succ() does */
		e = nvl_ibtree_cursor_first(&bt, &c, s, s + ql);
		if (e != nvl_ibtree_first(&bt, s, s + ql))
			abort();
		for (int k = 0; e && k < 40; k++) {
			e = nvl_ibtree_succ(e);
			if (nvl_ibtree_cursor_next(&c) != e || c.e != e)
				abort();
		}
		if (got != expect || bgot != expect || nvl_itree_check(&t) ||
		    nvl_ibtree_check(&bt) ||
		    nvl_ibtree_count(&bt) != (size_t)in)
			abort();
	}
	nvl_ibtree_fini(&bt);
	return 0;
}
