// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the interval tree under arbitrary insert/remove/query
 * sequences, checked against a brute-force reference after every step.
 * Input: a stream of 9-byte records (op, slot, start:3, len:2, qlen:2).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/itree.h"

#define SLOTS 64

struct item {
	struct nvl_itree_node node;
	int in;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct item items[SLOTS];
	struct nvl_itree t = NVL_ITREE_INIT;

	memset(items, 0, sizeof(items));
	for (size_t off = 0; off + 9 <= size; off += 9) {
		const uint8_t *r = data + off;
		struct item *x = &items[r[1] % SLOTS];
		uint64_t s = (uint64_t)r[2] | (uint64_t)r[3] << 8 |
			     (uint64_t)r[4] << 16;
		uint64_t len = (uint64_t)r[5] | (uint64_t)r[6] << 8;
		uint64_t ql = (uint64_t)r[7] | (uint64_t)r[8] << 8;
		struct nvl_itree_node *n;
		int expect = 0, got = 0;

		if (r[0] & 1) {
			if (x->in) {
				nvl_itree_remove(&t, &x->node);
				x->in = 0;
			} else {
				x->node.start = s;
				x->node.last = s + len;
				nvl_itree_insert(&t, &x->node);
				x->in = 1;
			}
		}
		for (int i = 0; i < SLOTS; i++)
			if (items[i].in && items[i].node.start <= s + ql &&
			    items[i].node.last >= s)
				expect++;
		nvl_itree_for_each (n, &t, s, s + ql)
			got++;
		if (got != expect || nvl_itree_check(&t))
			abort();
	}
	return 0;
}
