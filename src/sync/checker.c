// SPDX-License-Identifier: MIT
/*
 * DOC: Fence-signalling checker
 *
 * A userspace take on the kernel's dma_fence lockdep annotations.
 *
 * Per thread: the signalling depth and the set of held lock classes, a
 * bitmap over class ids with a nest count per class (a thread holding 1000
 * resv locks sets one bit). Globally: a graph of lock classes (bitmap
 * adjacency, up to MAX_CLASSES nodes); an edge A -> B means "B was taken
 * while A was held", recorded with the stack of its first occurrence.
 * Adding an edge that closes a cycle is an inversion report naming both
 * stacks: the current one and the one that established the reverse order.
 *
 * The graph is also kept by column: pred[B] is the set of classes with an
 * edge to B (plus B itself). Edges are only ever added (until a reset, which
 * clears both), so "every edge this acquisition of B would add is known" is
 * "held & ~pred[B] == 0": two words, whatever the thread holds. That is the
 * acquisition's whole check in the steady state; a class with a new edge
 * (or its first use, or a reclaim class) takes the full path.
 *
 * Pseudo classes: "fence_signalling" is pushed (without edges: a read
 * trylock) when a section begins, so every lock taken inside gets the edge
 * fence_signalling -> lock; a fence wait outside sections adds held ->
 * fence_signalling (a write acquire); "reclaim" is held by
 * nvl_checker_reclaim_enter() and every allocation adds held -> reclaim. The
 * graph is primed with nvl_resv -> reclaim -> fence_signalling, so a resv
 * lock inside a section, or a lock held both while allocating and inside a
 * section, closes a cycle the first time the path runs.
 *
 * The checker installs itself as the allocation observer (base/alloc.h) the
 * first time it is used (pthread_once). Reports never allocate through
 * nvl_malloc. Stacks: with ABORT/COUNT modes (tests) or NVL_CHECKER_STACKS=1
 * the outermost begin records a full backtrace, otherwise only its caller's
 * address, to keep nvl_fence_signal() cheap.
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "sync/checker.h"

#define MAX_CLASSES 128
#define MAX_FRAMES 24
#define WORDS ((MAX_CLASSES + 63) / 64)
#define REPORT_SIZE 8192
#define MAX_NEST 32

struct checker_thread {
	int depth;
	bool busy;
	/* classes with count > 0 (the steady state's whole check) */
	uint64_t held[WORDS];
	/* acquisitions of classes without an id (graph full) still held */
	unsigned unchecked;
	uint32_t tag;
	uint32_t serial;
	uint32_t open[MAX_NEST];
	int nframes;
	void *frames[MAX_FRAMES];
	struct nvl_lock_class *unchecked_cls;
	const void *unchecked_ip;
	uint32_t count[MAX_CLASSES];
	/* where each held class was taken first (count 0 -> 1) */
	const void *ip[MAX_CLASSES];
};

struct edge_info {
	int nframes;
	void *frames[MAX_FRAMES];
};

static _Thread_local struct checker_thread ctls;
/*
 * &ctls, once the thread has used it. The library is built as position-
 * independent code, where ctls's address is a __tls_get_addr() call to the
 * compiler (the linker relaxes it to one instruction in the executable);
 * its clobbers made the lock and unlock fast paths save five registers.
 * This pointer is initial-exec (8 bytes of static TLS, as
 * nvl_vm_pt_record_held): a plain %fs load.
 */
static _Thread_local struct checker_thread *ctls_p
	__attribute__((tls_model("initial-exec")));

/* the calling thread's state from its first use of ctls_p on */
static __attribute__((noinline, cold)) struct checker_thread *me_init(void)
{
	ctls_p = &ctls;
	return ctls_p;
}

static atomic_int mode = -1;
static atomic_uint thread_tags;
static bool full_stacks_env;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvl_lock_class *classes[MAX_CLASSES];
static unsigned nclasses; /* ids 1..nclasses used */
static _Atomic uint64_t adj[MAX_CLASSES][WORDS];
/* the graph by column: pred[b] = {a : a -> b} | {b} */
static _Atomic uint64_t pred[MAX_CLASSES][WORDS];
/* classes taken inside a signalling section, directly or after one that
 * was: reachable from "fence_signalling" (grows with the graph) */
static _Atomic uint64_t sig_reach[WORDS];
static unsigned fence_id;
static uint64_t reported[MAX_CLASSES][WORDS];
static struct edge_info *edges[MAX_CLASSES][MAX_CLASSES];

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_report[REPORT_SIZE];
static atomic_ulong violations;

static NVL_LOCK_CLASS(fence_map_class, "fence_signalling", 0);
static NVL_LOCK_CLASS(reclaim_class, "reclaim", 0);
NVL_LOCK_CLASS(nvl_resv_lock_class, "nvl_resv", 0);

static void alloc_observer(size_t size_B);
static unsigned class_id(struct nvl_lock_class *cls);
static void prime_graph(void);

static void checker_init(void)
{
	const char *env = getenv("NVL_CHECKER");
	const char *stacks = getenv("NVL_CHECKER_STACKS");
	int m = NVL_CHECKER_WARN;
	void *probe[2];

	if (env) {
		if (!strcmp(env, "abort"))
			m = NVL_CHECKER_ABORT;
		else if (!strcmp(env, "count"))
			m = NVL_CHECKER_COUNT;
		else if (!strcmp(env, "off") || !strcmp(env, "0"))
			m = NVL_CHECKER_OFF;
	}
	full_stacks_env = stacks && stacks[0] == '1';
	/* Load the unwinder now, not in the middle of a report. */
	backtrace(probe, 2);
	prime_graph();
	atomic_store(&mode, m);
	nvl_alloc_set_observer(alloc_observer);
}

static __attribute__((noinline, cold)) int mode_init(void)
{
	pthread_once(&init_once, checker_init);
	return atomic_load(&mode);
}

static inline int get_mode(void)
{
	int m = atomic_load_explicit(&mode, memory_order_relaxed);

	if (unlikely(m < 0))
		m = mode_init();
	return m;
}

enum nvl_checker_mode nvl_checker_get_mode(void)
{
	return (enum nvl_checker_mode)get_mode();
}

enum nvl_checker_mode nvl_checker_set_mode(enum nvl_checker_mode m)
{
	int old = get_mode();

	atomic_store(&mode, (int)m);
	return (enum nvl_checker_mode)old;
}

unsigned long nvl_checker_violations(void)
{
	return atomic_load(&violations);
}

const char *nvl_checker_last_report(char *buf, size_t size)
{
	if (!size)
		return buf;
	pthread_mutex_lock(&report_lock);
	snprintf(buf, size, "%s", last_report);
	pthread_mutex_unlock(&report_lock);
	return buf;
}

/* ---- reports --------------------------------------------------------- */

static size_t append(char *buf, size_t off, const char *fmt, ...)
	NVL_PRINTF(3, 4);

static size_t append(char *buf, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off >= REPORT_SIZE - 1)
		return off;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, REPORT_SIZE - off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return off;
	off += (size_t)n;
	return off < REPORT_SIZE - 1 ? off : REPORT_SIZE - 1;
}

static size_t append_stack(char *buf, size_t off, const char *title,
			   void *const *frames, int n)
{
	char **sym;

	off = append(buf, off, "  %s:\n", title);
	if (n <= 0)
		return append(buf, off, "    (not recorded)\n");
	sym = backtrace_symbols(frames, n); /* plain malloc, not observed */
	for (int i = 0; i < n; i++) {
		if (sym)
			off = append(buf, off, "    #%d %s\n", i, sym[i]);
		else
			off = append(buf, off, "    #%d %p\n", i, frames[i]);
	}
	free(sym);
	return off;
}

/*
 * report() - one violation: rule, message, the current stack and @other.
 */
static void report(const char *rule, const char *other_title,
		   void *const *other, int nother, const char *fmt, ...)
	NVL_PRINTF(5, 6);

static void report(const char *rule, const char *other_title,
		   void *const *other, int nother, const char *fmt, ...)
{
	static char buf[REPORT_SIZE];
	void *frames[MAX_FRAMES];
	int m = get_mode(), n;
	size_t off;
	va_list ap;

	if (m == NVL_CHECKER_OFF)
		return;
	n = backtrace(frames, MAX_FRAMES);
	pthread_mutex_lock(&report_lock);
	off = append(buf, 0, "nvl checker: violation of rule \"%s\": ", rule);
	va_start(ap, fmt);
	if (off < REPORT_SIZE - 1) {
		int k = vsnprintf(buf + off, REPORT_SIZE - off, fmt, ap);

		if (k > 0)
			off = NVL_MIN(off + (size_t)k, (size_t)REPORT_SIZE - 1);
	}
	va_end(ap);
	off = append(buf, off, "\n");
	off = append_stack(buf, off, "current stack", frames + 1,
			   n > 1 ? n - 1 : 0);
	off = append_stack(buf, off, other_title, other, nother);
	memcpy(last_report, buf, off + 1);
	atomic_fetch_add(&violations, 1);
	if (m >= NVL_CHECKER_WARN)
		(void)!write(STDERR_FILENO, buf, off);
	pthread_mutex_unlock(&report_lock);
	if (m == NVL_CHECKER_ABORT)
		abort();
}

static void report_section(struct checker_thread *t, const char *rule,
			   const char *what)
{
	report(rule, "signalling section entered at", t->frames, t->nframes,
	       "%s inside a fence-signalling section", what);
}

/* ---- the class graph ------------------------------------------------- */

static unsigned class_id(struct nvl_lock_class *cls)
{
	unsigned id = atomic_load_explicit(&cls->id, memory_order_acquire);

	if (likely(id))
		return id;
	pthread_mutex_lock(&graph_lock);
	id = atomic_load(&cls->id);
	if (!id && nclasses + 1 < MAX_CLASSES) {
		id = ++nclasses;
		classes[id] = cls;
		atomic_fetch_or(&pred[id][id / 64], 1ull << (id % 64));
		atomic_store_explicit(&cls->id, id, memory_order_release);
	}
	pthread_mutex_unlock(&graph_lock);
	return id; /* 0: out of slots, the class goes unchecked */
}

static inline bool has_edge(unsigned a, unsigned b)
{
	return atomic_load_explicit(&adj[a][b / 64], memory_order_relaxed) &
	       (1ull << (b % 64));
}

/* Path from @from to @to? Fills @path (node list) when found. */
static bool reaches(unsigned from, unsigned to, unsigned *path, int *plen)
{
	unsigned stack[MAX_CLASSES], parent[MAX_CLASSES];
	bool seen[MAX_CLASSES] = {false};
	int sp = 0;

	stack[sp++] = from;
	seen[from] = true;
	parent[from] = 0;
	while (sp) {
		unsigned v = stack[--sp];

		if (v == to) {
			int n = 0;

			for (unsigned x = to; x != from; x = parent[x])
				path[n++] = x;
			path[n++] = from;
			*plen = n; /* reversed: to ... from */
			return true;
		}
		for (unsigned w = 1; w <= nclasses; w++) {
			if (!seen[w] && has_edge(v, w)) {
				seen[w] = true;
				parent[w] = v;
				stack[sp++] = w;
			}
		}
	}
	return false;
}

static inline bool in_sig_reach(unsigned c)
{
	return atomic_load_explicit(&sig_reach[c / 64], memory_order_relaxed) &
	       (1ull << (c % 64));
}

/* @b and all it reaches join sig_reach (graph_lock held) */
static void sig_reach_add(unsigned b)
{
	unsigned stack[MAX_CLASSES];
	int sp = 0;

	if (in_sig_reach(b))
		return;
	atomic_fetch_or(&sig_reach[b / 64], 1ull << (b % 64));
	stack[sp++] = b;
	while (sp) {
		unsigned v = stack[--sp];

		for (unsigned w = 1; w <= nclasses; w++)
			if (!in_sig_reach(w) && has_edge(v, w)) {
				atomic_fetch_or(&sig_reach[w / 64],
						1ull << (w % 64));
				stack[sp++] = w;
			}
	}
}

static void set_edge(unsigned a, unsigned b, bool record)
{
	struct edge_info *e = NULL;

	if (record) {
		e = malloc(sizeof(*e)); /* not nvl_malloc: never observed */
		if (e)
			e->nframes = backtrace(e->frames, MAX_FRAMES);
	}
	edges[a][b] = e;
	atomic_fetch_or(&adj[a][b / 64], 1ull << (b % 64));
	atomic_fetch_or(&pred[b][a / 64], 1ull << (a % 64));
	if (a == fence_id || in_sig_reach(a))
		sig_reach_add(b);
}

static void prime_graph(void)
{
	unsigned r = class_id(&nvl_resv_lock_class);
	unsigned c = class_id(&reclaim_class);
	unsigned f = class_id(&fence_map_class);

	pthread_mutex_lock(&graph_lock);
	fence_id = f;
	set_edge(r, c, false);
	set_edge(c, f, false);
	pthread_mutex_unlock(&graph_lock);
}

static void add_edge_slow(unsigned a, unsigned b)
{
	unsigned path[MAX_CLASSES];
	struct edge_info *rev = NULL;
	const char *na, *nb, *via = "";
	int plen = 0;
	bool cycle;

	pthread_mutex_lock(&graph_lock);
	if (has_edge(a, b) || (reported[a][b / 64] & (1ull << (b % 64)))) {
		pthread_mutex_unlock(&graph_lock);
		return;
	}
	cycle = reaches(b, a, path, &plen);
	if (!cycle) {
		set_edge(a, b, true);
		pthread_mutex_unlock(&graph_lock);
		return;
	}
	reported[a][b / 64] |= 1ull << (b % 64);
	/* path is a ... b reversed; the first hop out of b set the order. */
	rev = edges[path[plen - 1]][path[plen - 2]];
	na = classes[a]->name;
	nb = classes[b]->name;
	if (plen > 2)
		via = classes[path[plen - 2]]->name;
	pthread_mutex_unlock(&graph_lock);
	report("lock-order-inversion",
	       "stack that established the reverse order",
	       rev ? rev->frames : NULL, rev ? rev->nframes : 0,
	       "taking '%s' while holding '%s', but '%s' -> '%s'%s%s is the "
	       "established order",
	       nb, na, nb, a == b ? nb : na, plen > 2 ? " via " : "", via);
}

/* the known edge (every lock taken after the first time) costs a load */
static inline void add_edge(unsigned a, unsigned b)
{
	if (likely(!a || !b || a == b || has_edge(a, b)))
		return;
	add_edge_slow(a, b);
}

/* ---- held-lock set -------------------------------------------------- */

static inline bool holds_any(const struct checker_thread *t)
{
	uint64_t any = 0;

	for (unsigned w = 0; w < WORDS; w++)
		any |= t->held[w];
	return any != 0;
}

/* the held classes of @t without an edge to @b (known edges: none) */
static inline uint64_t missing_edges(const struct checker_thread *t, unsigned b,
				     unsigned w)
{
	return t->held[w] &
	       ~atomic_load_explicit(&pred[b][w], memory_order_relaxed);
}

/* add_edge(h, @b) for every held class h (t->busy set by the caller) */
static void add_edges_to(struct checker_thread *t, unsigned b)
{
	for (unsigned w = 0; w < WORDS; w++) {
		for (uint64_t m = missing_edges(t, b, w); m; m &= m - 1)
			add_edge(w * 64 + (unsigned)__builtin_ctzll(m), b);
	}
}

static inline void push_held(struct checker_thread *t,
			     struct nvl_lock_class *cls, unsigned id,
			     const void *ip)
{
	if (unlikely(!id)) {
		if (!t->unchecked++) {
			t->unchecked_cls = cls;
			t->unchecked_ip = ip;
		}
		return;
	}
	if (t->count[id]++ == 0) {
		t->held[id / 64] |= 1ull << (id % 64);
		t->ip[id] = ip;
	}
}

static inline void pop_held(struct checker_thread *t,
			    struct nvl_lock_class *cls)
{
	/* the id the push saw: ids never change once given, and a class
	 * without one (graph full) never gets one */
	unsigned id = atomic_load_explicit(&cls->id, memory_order_relaxed);

	if (likely(id && t->count[id])) {
		if (--t->count[id] == 0)
			t->held[id / 64] &= ~(1ull << (id % 64));
	} else if (!id && t->unchecked) {
		t->unchecked--;
	}
	/* else: taken while the checker was off; nothing recorded */
}

/*
 * The common acquisition: a class with an id, no reclaim flag, every edge
 * it adds already known (a blocking lock: from each held class, and from
 * "fence_signalling" inside a section): two words against the class's
 * column, however many locks are held. Return: false when acquire_ip()
 * must take the full path.
 */
static inline bool acquire_fast(struct checker_thread *t,
				struct nvl_lock_class *cls, bool trylock,
				const void *ip)
{
	unsigned id = atomic_load_explicit(&cls->id, memory_order_acquire);

	if (unlikely(!id || (cls->flags & NVL_LOCK_RECLAIM)))
		return false;
	if (!trylock) {
		uint64_t miss = 0;

		for (unsigned w = 0; w < WORDS; w++)
			miss |= missing_edges(t, id, w);
		if (unlikely(miss))
			return false;
		/* the pseudo class has its id from the first get_mode() on */
		if (t->depth > 0 &&
		    !has_edge(atomic_load_explicit(&fence_map_class.id,
						   memory_order_relaxed),
			      id))
			return false;
	}
	push_held(t, cls, id, ip);
	return true;
}

/* every other acquisition: new edges, reclaim classes, a class's first use */
static void __attribute__((noinline))
acquire_slow(struct checker_thread *t, struct nvl_lock_class *cls, bool trylock,
	     const void *ip)
{
	unsigned id;

	t->busy = true;
	id = class_id(cls);
	if (t->depth > 0 && (cls->flags & NVL_LOCK_RECLAIM)) {
		char what[160];

		snprintf(what, sizeof(what), "taking reclaim lock '%s'",
			 cls->name);
		report_section(t, "reclaim-lock-in-signalling", what);
	}
	if (!trylock) {
		if (t->depth > 0)
			add_edge(class_id(&fence_map_class), id);
		if (id)
			add_edges_to(t, id);
	}
	if (cls->flags & NVL_LOCK_RECLAIM)
		add_edge(class_id(&reclaim_class), id);
	push_held(t, cls, id, ip);
	t->busy = false;
}

/* the process's or the thread's first acquisition: set up, then as any */
static __attribute__((noinline, cold)) void
acquire_first(struct nvl_lock_class *cls, bool trylock, const void *ip)
{
	struct checker_thread *t = &ctls;

	ctls_p = t;
	if (get_mode() == NVL_CHECKER_OFF || t->busy)
		return;
	if (!acquire_fast(t, cls, trylock, ip))
		acquire_slow(t, cls, trylock, ip);
}

/*
 * Every call below is a tail call, so the steady state (mode set, fast
 * check passed) runs without a stack frame.
 */
static inline void acquire_ip(struct nvl_lock_class *cls, bool trylock,
			      const void *ip)
{
	struct checker_thread *t = ctls_p;
	int m = atomic_load_explicit(&mode, memory_order_relaxed);

	if (unlikely(m <= NVL_CHECKER_OFF || !t)) {
		if (m != NVL_CHECKER_OFF)
			acquire_first(cls, trylock, ip);
		return;
	}
	if (t->busy)
		return;
	if (likely(acquire_fast(t, cls, trylock, ip)))
		return;
	acquire_slow(t, cls, trylock, ip);
}

/**
 * nvl_checker_signalling_safe() - see checker.h.
 */
NVL_HOT bool nvl_checker_signalling_safe(void)
{
	struct checker_thread *t = &ctls;
	uint64_t in_sig = 0;

	if (get_mode() == NVL_CHECKER_OFF)
		return false;
	if (t->unchecked)
		return false;
	for (unsigned w = 0; w < WORDS; w++)
		in_sig |=
			t->held[w] & atomic_load_explicit(&sig_reach[w],
							  memory_order_relaxed);
	return !in_sig;
}

NVL_HOT void nvl_checker_lock_acquire(struct nvl_lock_class *cls, bool trylock)
{
	acquire_ip(cls, trylock, __builtin_return_address(0));
}

static __attribute__((noinline, cold)) void
release_first(struct nvl_lock_class *cls)
{
	ctls_p = &ctls;
	if (get_mode() == NVL_CHECKER_OFF)
		return;
	pop_held(&ctls, cls);
}

static inline void release(struct nvl_lock_class *cls)
{
	struct checker_thread *t = ctls_p;
	int m = atomic_load_explicit(&mode, memory_order_relaxed);

	if (unlikely(m <= NVL_CHECKER_OFF || !t)) {
		if (m != NVL_CHECKER_OFF)
			release_first(cls);
		return;
	}
	pop_held(t, cls);
}

NVL_HOT void nvl_checker_lock_release(struct nvl_lock_class *cls)
{
	release(cls);
}

/* ---- sections -------------------------------------------------------- */

/*
 * The section is the read-held pseudo lock "fence_signalling"; it is not on
 * the held set (keeps begin/end to a few stores, they run on every
 * signal): acquire_ip() adds its edges while depth > 0. Open sections are a
 * per-thread stack of serials; a cookie is (thread tag, serial), so end can
 * tell a double end, an end out of order and another thread's cookie apart.
 *
 * Both run on every signal and every bind commit (issue 19): the common
 * case (WARN mode, a thread with its tag, no section open; ending the
 * innermost one) is a leaf with no frame; everything else goes to an
 * out-of-line function with the same checks as before.
 */
static __attribute__((noinline, cold)) struct nvl_signalling_cookie
begin_slow(struct checker_thread *t, void *caller)
{
	int m = get_mode();

	if (m == NVL_CHECKER_OFF)
		return (struct nvl_signalling_cookie){0};
	if (unlikely(!t->tag))
		t->tag = atomic_fetch_add(&thread_tags, 1) + 1;
	if (unlikely(t->depth == MAX_NEST)) {
		report_section(t, "signalling-nesting-too-deep",
			       "a section nested deeper than 32");
		return (struct nvl_signalling_cookie){0};
	}
	if (t->depth == 0) {
		if (unlikely(m != NVL_CHECKER_WARN || full_stacks_env)) {
			t->nframes = backtrace(t->frames, MAX_FRAMES);
		} else {
			t->frames[0] = caller;
			t->nframes = 1;
		}
	}
	if (unlikely(++t->serial == 0))
		t->serial = 1;
	t->open[t->depth++] = t->serial;
	return (struct nvl_signalling_cookie){((uint64_t)t->tag << 32) |
					      t->serial};
}

NVL_HOT struct nvl_signalling_cookie nvl_fence_begin_signalling(void)
{
	struct checker_thread *t = &ctls;
	uint32_t serial = t->serial + 1;

	/* mode WARN also means initialised; full_stacks_env is set before */
	if (likely(atomic_load_explicit(&mode, memory_order_relaxed) ==
			   NVL_CHECKER_WARN &&
		   !full_stacks_env && t->depth == 0 && t->tag && serial)) {
		t->frames[0] = __builtin_return_address(0);
		t->nframes = 1;
		t->serial = serial;
		t->open[0] = serial;
		t->depth = 1;
		return (struct nvl_signalling_cookie){((uint64_t)t->tag << 32) |
						      serial};
	}
	return begin_slow(t, __builtin_return_address(0));
}

static void end_violation(struct checker_thread *t, const char *rule,
			  uint32_t serial, const char *why)
{
	report(rule, "outermost open section entered at", t->frames,
	       t->depth ? t->nframes : 0,
	       "ending signalling section #%u: %s (%d section(s) open)", serial,
	       why, t->depth);
}

static __attribute__((noinline, cold)) void
end_slow(struct checker_thread *t, struct nvl_signalling_cookie cookie)
{
	uint32_t tag = (uint32_t)(cookie.id >> 32);
	uint32_t serial = (uint32_t)cookie.id;
	int i;

	if (t->depth > 0 && tag == t->tag && t->open[t->depth - 1] == serial) {
		t->depth--;
		return;
	}
	if (tag != t->tag) {
		end_violation(t, "signalling-end-foreign-cookie", serial,
			      "the cookie belongs to another thread");
		return;
	}
	if (t->depth == 0) {
		end_violation(t, "signalling-end-without-section", serial,
			      "no section is open");
		return;
	}
	for (i = t->depth - 1; i >= 0 && t->open[i] != serial; i--)
		;
	if (i < 0) {
		end_violation(t, "signalling-end-twice", serial,
			      "that section was already ended");
		return;
	}
	end_violation(t, "signalling-end-out-of-order", serial,
		      "an inner section is still open (end inner first)");
	t->depth = i;
}

NVL_HOT void nvl_fence_end_signalling(struct nvl_signalling_cookie cookie)
{
	struct checker_thread *t = &ctls;
	int d = t->depth;

	if (!cookie.id)
		return;
	if (likely(d > 0 && (uint32_t)(cookie.id >> 32) == t->tag &&
		   t->open[d - 1] == (uint32_t)cookie.id)) {
		t->depth = d - 1;
		return;
	}
	end_slow(t, cookie);
}

bool nvl_fence_in_signalling(void)
{
	return ctls.depth > 0;
}

static __attribute__((noinline, cold)) void
alloc_in_section(struct checker_thread *t, size_t size_B)
{
	char what[64];

	t->busy = true;
	snprintf(what, sizeof(what), "allocation of %zu bytes", size_B);
	report_section(t, "alloc-in-signalling", what);
	t->busy = false;
}

/* held -> reclaim for every held class without that edge yet */
static __attribute__((noinline)) void alloc_edges(struct checker_thread *t)
{
	unsigned r = class_id(&reclaim_class);

	t->busy = true;
	add_edges_to(t, r);
	t->busy = false;
}

/*
 * Every allocation (nvl_might_alloc() too, for cached objects) comes here:
 * the common case, no section open and nothing held (or every held class
 * already ordered before "reclaim"), is a few loads without a frame.
 */
static NVL_HOT void alloc_observer(size_t size_B)
{
	struct checker_thread *t = ctls_p;
	int m = atomic_load_explicit(&mode, memory_order_relaxed);

	if (m <= NVL_CHECKER_OFF)
		return;
	if (unlikely(!t))
		t = me_init();
	if (t->busy)
		return;
	if (unlikely(t->depth > 0)) {
		alloc_in_section(t, size_B);
		return;
	}
	if (holds_any(t)) {
		/* the reclaim class has its id from the first get_mode() on */
		unsigned r = atomic_load_explicit(&reclaim_class.id,
						  memory_order_relaxed);
		uint64_t miss = 0;

		for (unsigned w = 0; w < WORDS; w++)
			miss |= missing_edges(t, r, w);
		if (miss)
			alloc_edges(t);
	}
}

void nvl_might_block(void)
{
	struct checker_thread *t = &ctls;

	if (get_mode() == NVL_CHECKER_OFF || t->busy || t->depth == 0)
		return;
	report_section(t, "blocking-in-signalling", "a blocking call");
}

void nvl_fence_wait_annotate(enum nvl_wait_kind kind)
{
	struct checker_thread *t = &ctls;
	unsigned f;

	if (get_mode() == NVL_CHECKER_OFF || t->busy)
		return;
	if (t->depth > 0 && kind == NVL_WAIT_BOUNDED)
		report_section(t, "blocking-wait-in-signalling",
			       "a blocking (bounded) fence wait");
	else if (t->depth > 0 && kind == NVL_WAIT_UNBOUNDED)
		report_section(t, "unbounded-wait-in-signalling",
			       "an unbounded fence wait");
	if (!holds_any(t))
		return;
	/* A write acquire of the pseudo lock: held -> fence_signalling. */
	t->busy = true;
	f = class_id(&fence_map_class);
	add_edges_to(t, f);
	t->busy = false;
}

NVL_HOT void nvl_fence_wait_annotate_until(int64_t abs_ns)
{
	enum nvl_wait_kind kind = NVL_WAIT_BOUNDED;

	if (abs_ns == NVL_TIMEOUT_INFINITE)
		kind = NVL_WAIT_UNBOUNDED;
	else if (abs_ns <= 0 || (ctls.depth > 0 && abs_ns <= nvl_time_ns()))
		kind = NVL_WAIT_POLL;
	/* Outside a section every kind records the same edges. */
	nvl_fence_wait_annotate(kind);
}

void nvl_fence_might_wait(bool bounded)
{
	nvl_fence_wait_annotate(bounded ? NVL_WAIT_BOUNDED
					: NVL_WAIT_UNBOUNDED);
}

void nvl_checker_assert_no_locks(const char *what)
{
	struct checker_thread *t = &ctls;
	const char *first = NULL;
	char names[256];
	size_t off = 0;
	void *ip = NULL;
	int n = 0;

	if (get_mode() == NVL_CHECKER_OFF || t->busy)
		return;
	if (!holds_any(t) && !t->unchecked)
		return;
	names[0] = '\0';
	for (unsigned w = 0; w < WORDS; w++) {
		for (uint64_t m = t->held[w]; m; m &= m - 1) {
			unsigned h = w * 64 + (unsigned)__builtin_ctzll(m);
			const char *name = classes[h]->name;
			int k;

			if (!first) {
				first = name;
				ip = (void *)t->ip[h];
			}
			k = snprintf(names + off, sizeof(names) - off, "%s%s",
				     n ? ", " : "", name);
			if (k > 0)
				off = NVL_MIN(off + (size_t)k,
					      sizeof(names) - 1);
			n++;
		}
	}
	if (t->unchecked) {
		if (!first) {
			first = t->unchecked_cls->name;
			ip = (void *)t->unchecked_ip;
		}
		n++;
	}
	report("wait-for-submit-with-locks-held", "lock taken at", &ip, 1,
	       "%s while holding lock '%s' (%d lock classes held: %s): "
	       "waiting on userspace with locks held",
	       what, first, n, names);
}

void nvl_checker_reclaim_enter(void)
{
	struct checker_thread *t = &ctls;
	unsigned r;

	if (get_mode() == NVL_CHECKER_OFF || t->busy)
		return;
	if (t->depth > 0)
		report_section(t, "reclaim-in-signalling", "memory reclaim");
	t->busy = true;
	r = class_id(&reclaim_class);
	if (t->depth == 0)
		add_edges_to(t, r);
	push_held(t, &reclaim_class, r, __builtin_return_address(0));
	t->busy = false;
}

void nvl_checker_reclaim_leave(void)
{
	if (get_mode() == NVL_CHECKER_OFF)
		return;
	pop_held(&ctls, &reclaim_class);
}

void nvl_checker_reset(void)
{
	get_mode();
	pthread_mutex_lock(&graph_lock);
	for (unsigned a = 0; a < MAX_CLASSES; a++) {
		for (unsigned b = 0; b < MAX_CLASSES; b++) {
			free(edges[a][b]);
			edges[a][b] = NULL;
		}
		for (unsigned w = 0; w < WORDS; w++) {
			atomic_store(&adj[a][w], 0);
			atomic_store(&pred[a][w], 0);
			reported[a][w] = 0;
		}
	}
	/* the classes keep their ids (and so their own bit); what was
	 * derived from the edges goes with them */
	for (unsigned id = 1; id <= nclasses; id++)
		atomic_store(&pred[id][id / 64], 1ull << (id % 64));
	for (unsigned w = 0; w < WORDS; w++)
		atomic_store(&sig_reach[w], 0);
	pthread_mutex_unlock(&graph_lock);
	prime_graph();
	pthread_mutex_lock(&report_lock);
	last_report[0] = '\0';
	atomic_store(&violations, 0);
	pthread_mutex_unlock(&report_lock);
}

/* ---- nvl_mutex ------------------------------------------------------- */

void nvl_mutex_init(struct nvl_mutex *m, struct nvl_lock_class *cls)
{
	nvl_flock_init(&m->lock);
	m->cls = cls;
}

void nvl_mutex_destroy(struct nvl_mutex *m)
{
	(void)m;
}

NVL_HOT void nvl_mutex_lock(struct nvl_mutex *m)
{
	acquire_ip(m->cls, false, __builtin_return_address(0));
	nvl_flock_lock(&m->lock);
}

bool nvl_mutex_trylock(struct nvl_mutex *m)
{
	uint32_t free_ = 0;

	if (!atomic_compare_exchange_strong_explicit(&m->lock.v, &free_, 1,
						     memory_order_acquire,
						     memory_order_relaxed))
		return false;
	acquire_ip(m->cls, true, __builtin_return_address(0));
	return true;
}

NVL_HOT void nvl_mutex_unlock(struct nvl_mutex *m)
{
	release(m->cls);
	nvl_flock_unlock(&m->lock);
}
