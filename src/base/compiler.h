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

/*
 * NVL_TSAN_RELEASE(p) / NVL_TSAN_ACQUIRE(p) - tell ThreadSanitizer about a
 * happens-before edge it cannot see, because it passes through a device (a
 * message the device only answers after it was published) or through
 * standalone fences, which TSan does not model. No code in other builds.
 */
#if defined(__SANITIZE_THREAD__)
#define NVL_HAS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NVL_HAS_TSAN 1
#endif
#endif
#ifdef NVL_HAS_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define NVL_TSAN_RELEASE(p) __tsan_release((void *)(p))
#define NVL_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#else
#define NVL_TSAN_RELEASE(p) ((void)(p))
#define NVL_TSAN_ACQUIRE(p) ((void)(p))
#endif

#endif /* NVL_BASE_COMPILER_H */
