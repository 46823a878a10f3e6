/* SPDX-License-Identifier: MIT */
/*
 * Compiler helpers shared by every layer of nouvelle.
 */
#ifndef NVL_BASE_COMPILER_H
#define NVL_BASE_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define NVL_PUBLIC __attribute__((visibility("default")))
#define NVL_MUST_CHECK __attribute__((warn_unused_result))
#define NVL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define NVL_UNUSED __attribute__((unused))
#define NVL_NORETURN __attribute__((noreturn))
/*
 * NVL_HOT: a function on the EXEC round trip (submit, the model's runlist
 * thread, the completion, the wait). The compiler places hot functions in
 * .text.hot, which the linker gathers before the rest of .text, so the
 * round trip runs from half the pages of code it did spread over the
 * library (20 instead of 39). Where every kernel entry drops the user TLB
 * (page table isolation without PCID, as on this project's VMs), each of
 * an exec's two system calls leaves the thread that runs next to refill
 * one entry per page it touches. Only for functions every exec runs
 * (docs/driver.md, "The round trip's code pages").
 */
#define NVL_HOT __attribute__((hot))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define NVL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef container_of
#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))
#endif

#define NVL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define NVL_MAX(a, b) ((a) > (b) ? (a) : (b))

#define NVL_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define NVL_ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define NVL_IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a)-1)) == 0)
#define NVL_IS_POW2(x) ((x) != 0 && ((x) & ((x)-1)) == 0)

/*
 * NVL_ALWAYS / NVL_NEVER: defensive conditions that "cannot happen". In debug
 * builds they assert; they keep the branch in release builds (sqlite's idiom).
 */
#ifdef NDEBUG
#define NVL_ALWAYS(x) (x)
#define NVL_NEVER(x) (x)
#else
#include <assert.h>
#define NVL_ALWAYS(x) ((x) ? 1 : (assert(0 && #x), 0))
#define NVL_NEVER(x) ((x) ? (assert(!#x), 1) : 0)
#endif

/**
 * nvl_cpu_relax() - one iteration of a busy-wait loop: the PAUSE hint on
 * x86 (a spinning core yields its pipeline to its sibling), a compiler
 * barrier elsewhere.
 */
static inline void nvl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ volatile("" ::: "memory");
#endif
}

#endif /* NVL_BASE_COMPILER_H */
