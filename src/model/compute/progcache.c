// SPDX-License-Identifier: MIT
/*
 * DOC: cache of pre-decoded programs
 *
 * Decoding a program (table look-up per instruction, operand roles,
 * modifier values, the fast forms of predecode.c) is done once per program
 * content, not once per launch. The cache is keyed by the architecture, the
 * program's address (branch targets and fault addresses depend on it), its
 * length, and its content: an entry holds a copy of the instruction words it
 * was built from, and a launch only uses it when the words it is given
 * compare equal. So a program rewritten in place (same address, new bytes)
 * never runs stale decodings, with no invalidation call needed from whoever
 * wrote the memory; the price is one memcmp of the program per launch.
 *
 * Entries are immutable once published and reference counted: a launch
 * holds its entry until it returns, so an entry evicted meanwhile (the cache
 * has a few slots, replaced round-robin) is freed by the last user.
 * Programs that fail to decode are not cached.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "model/compute/priv.h"

#define SLOTS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cs_prog *slots[SLOTS];
static unsigned next_slot;
static _Atomic uint64_t gen;

static void prog_free(struct cs_prog *p)
{
	nvl_free(p->insn);
	nvl_free(p->code);
	nvl_free(p->kref);
	nvl_free(p);
}

/* drop a reference; the caller holds the lock */
static void unref_locked(struct cs_prog *p)
{
	if (p && !--p->refs)
		prog_free(p);
}

static bool same(const struct cs_prog *p, const struct nvl_cs_launch *l)
{
	return p->arch == l->arch && p->code_va == l->code_va &&
	       p->ninsn == l->ninsn &&
	       !memcmp(p->code, l->code, 16ull * l->ninsn);
}

/* @p (which the caller holds a reference to) becomes *@keep, whose old
 * program is dropped; the caller holds the lock */
static void keep_locked(struct cs_prog **keep, struct cs_prog *p)
{
	if (*keep == p) {
		p->refs--; /* *keep has one already */
		return;
	}
	unref_locked(*keep);
	*keep = p;
}

int cs_prog_get(const struct nvl_cs_launch *l, struct nvl_cs_fault *fault,
		struct cs_prog **keep, bool keep_ok, struct cs_prog **out,
		bool *hit)
{
	struct cs_prog *p;
	int ret;

	*hit = false;
	/* the thread's own reference keeps it alive: no lock */
	if (keep && keep_ok && *keep && same(*keep, l)) {
		*out = *keep;
		*hit = true;
		return 0;
	}
	pthread_mutex_lock(&lock);
	if (keep && !keep_ok) {
		unref_locked(*keep);
		*keep = NULL;
	}
	for (unsigned i = 0; i < SLOTS; i++) {
		p = slots[i];
		if (p && same(p, l)) {
			p->refs++;
			if (keep)
				keep_locked(keep, p);
			pthread_mutex_unlock(&lock);
			*out = p;
			*hit = true;
			return 0;
		}
	}
	pthread_mutex_unlock(&lock);

	p = nvl_zalloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->code = nvl_malloc(16ull * l->ninsn);
	/* one more, zeroed: a CS_FAST_NONE sentinel after the last
	 * instruction, which stops cs_run_fast() without a bounds check */
	p->insn = nvl_calloc((size_t)l->ninsn + 1, sizeof(*p->insn));
	if (!p->code || !p->insn) {
		prog_free(p);
		return -ENOMEM;
	}
	memcpy(p->code, l->code, 16ull * l->ninsn);
	p->arch = l->arch;
	p->code_va = l->code_va;
	p->ninsn = l->ninsn;
	ret = cs_decode_program(l, p, fault);
	if (ret) {
		prog_free(p);
		return ret;
	}
	p->refs = 2; /* the cache's and the caller's (or *keep's) */
	pthread_mutex_lock(&lock);
	unref_locked(slots[next_slot]);
	slots[next_slot] = p;
	next_slot = (next_slot + 1) % SLOTS;
	if (keep)
		keep_locked(keep, p);
	pthread_mutex_unlock(&lock);
	*out = p;
	return 0;
}

void cs_prog_put(struct cs_prog *p, struct cs_prog **keep)
{
	if (keep && *keep == p)
		return; /* the reference stays in *keep */
	pthread_mutex_lock(&lock);
	unref_locked(p);
	pthread_mutex_unlock(&lock);
}

void cs_prog_keep_drop(struct cs_prog **keep)
{
	if (!*keep)
		return;
	pthread_mutex_lock(&lock);
	unref_locked(*keep);
	*keep = NULL;
	pthread_mutex_unlock(&lock);
}

void nvl_cs_cache_clear(void)
{
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < SLOTS; i++) {
		unref_locked(slots[i]);
		slots[i] = NULL;
	}
	next_slot = 0;
	atomic_fetch_add(&gen, 1);
	pthread_mutex_unlock(&lock);
}

uint64_t nvl_cs_cache_gen(void)
{
	return atomic_load(&gen);
}
