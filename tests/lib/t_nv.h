/* SPDX-License-Identifier: MIT */
/*
 * The device rig of the driver's end-to-end tests (tests/nv, tests/compute),
 * through the public headers only: a client on a device with a VM of the
 * usual layout, a copy channel, a binary syncobj its jobs signal and a
 * pushbuffer BO (struct t_nv_cl); BOs bound in its VM; jobs run and waited
 * for; GPU-written words read back. Every helper fails the test on an
 * error it does not return.
 */
#ifndef NVL_TESTS_T_NV_H
#define NVL_TESTS_T_NV_H

#include <stdint.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "t.h"

#define T_NV_KIB (1ull << 10)
#define T_NV_MIB (1ull << 20)
#define T_NV_SEC 1000000000ll
/* The VM every rig client makes: user VA in [1 MiB, 1 TiB), the driver's
 * own range of 16 MiB at 512 GiB. */
#define T_NV_VA_START (1 * T_NV_MIB)
#define T_NV_VA_END (1ull << 40)
#define T_NV_KSTART (1ull << 39)
#define T_NV_KRANGE (16 * T_NV_MIB)
/* The size of a rig client's pushbuffer BO. */
#define T_NV_PB_SIZE (64 * T_NV_KIB)
/* The most data BOs of a rig client (t_nv_cl_bos()). */
#define T_NV_CL_MAX_BO 64

/** t_nv_now() - CLOCK_MONOTONIC in ns. */
static inline int64_t t_nv_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/** t_nv_deadline() - the CLOCK_MONOTONIC time @ns from now (waits). */
static inline int64_t t_nv_deadline(int64_t ns)
{
	return t_nv_now() + ns;
}

/**
 * t_nv_bo() - a BO of @size bytes in @domain (nvl_bo_create() @bo_flags),
 * mapped for the CPU (*@cpu) and bound at @va of VM @vm with @bind_flags
 * (enum nvl_vm_bind_op_flags) by a synchronous VM_BIND; the test fails on
 * any error.
 * Return: its handle.
 */
static inline uint32_t t_nv_bo(struct nvl_client *c, uint32_t vm, uint64_t size,
			       uint32_t domain, uint32_t bo_flags, uint64_t va,
			       uint32_t bind_flags, void **cpu)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = bind_flags,
				    .addr = va,
				    .range = size};
	uint32_t h;

	assert_int_equal(nvl_bo_create(c, size, domain, 0, bo_flags, &h), 0);
	assert_int_equal(nvl_bo_map(c, h, cpu), 0);
	op.handle = h;
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	return h;
}

/** t_nv_vram_bo() - t_nv_bo() of a CPU-visible VRAM BO, plain binding. */
static inline uint32_t t_nv_vram_bo(struct nvl_client *c, uint32_t vm,
				    uint64_t size, uint64_t va, void **cpu)
{
	return t_nv_bo(c, vm, size, NVL_BO_DOMAIN_VRAM, NVL_BO_CPU_VISIBLE, va,
		       0, cpu);
}

/* At most the VRAM a device's driver keeps for itself (page tables,
 * channels, firmware): what a VRAM hog leaves to others. */
#define T_NV_DRIVER_VRAM (32 * T_NV_MIB)

/**
 * t_nv_dev_open() - a "model:tu102" device with @vram_size bytes of VRAM,
 * queried into *@info (may be NULL); the test fails on any error.
 * Return: the device.
 */
struct nvl_device *t_nv_dev_open(uint64_t vram_size,
				 struct nvl_device_info *info);

/**
 * t_nv_vram_hog() - a BO of @c in VRAM only (not CPU-visible) of @size
 * bytes: the pressure that evicts others' BOs from VRAM, or takes the VRAM
 * they left.
 * Return: its handle.
 */
uint32_t t_nv_vram_hog(struct nvl_client *c, uint64_t size);

/**
 * t_nv_vram_hog_all() - t_nv_vram_hog() of all of @info's usable VRAM but
 * the driver's (T_NV_DRIVER_VRAM) and 4 MiB.
 * Return: its handle.
 */
uint32_t t_nv_vram_hog_all(struct nvl_client *c,
			   const struct nvl_device_info *info);

/**
 * t_nv_vm() - a VM of the usual layout (T_NV_VA_START to T_NV_VA_END, the
 * driver's range at T_NV_KSTART) in client @c.
 * Return: its handle.
 */
uint32_t t_nv_vm(struct nvl_client *c);

/** Flags of t_nv_cl_up(). */
enum t_nv_cl_flags {
	/** @T_NV_CL_DEVICE_STATE: the client may change device state */
	T_NV_CL_DEVICE_STATE = 1u << 0,
	/**
	 * @T_NV_CL_PB_MOVABLE: the pushbuffer BO may be evicted to GTT and
	 * is not CPU-mapped (a mapped BO cannot move: suspend)
	 */
	T_NV_CL_PB_MOVABLE = 1u << 1,
};

/** struct t_nv_cl - one client of the rig on a device. */
struct t_nv_cl {
	/** @dev: the device (not owned) */
	struct nvl_device *dev;
	/** @info: nvl_device_query() of @dev */
	struct nvl_device_info info;
	/** @c: the client */
	struct nvl_client *c;
	/** @vm: its VM (t_nv_vm()) */
	uint32_t vm;
	/** @chan: a copy-engine channel in @vm */
	uint32_t chan;
	/** @sync: the binary syncobj t_nv_cl_exec() signals */
	uint32_t sync;
	/** @pb: the pushbuffer BO, T_NV_PB_SIZE bytes bound at @pb_va */
	uint32_t pb;
	/** @pb_va: where @pb is bound */
	uint64_t pb_va;
	/** @ppb: @pb's CPU mapping (NULL with T_NV_CL_PB_MOVABLE) */
	uint32_t *ppb;
	/** @sem: the semaphore BO of t_nv_cl_sem() (0: none) */
	uint32_t sem;
	/** @psem: @sem's CPU mapping (NULL with T_NV_CL_PB_MOVABLE) */
	uint32_t *psem;
	/** @flags: t_nv_cl_up()'s */
	uint32_t flags;
	/** @bo: the data BOs of t_nv_cl_bos() */
	uint32_t bo[T_NV_CL_MAX_BO];
	/** @nbo: how many */
	unsigned nbo;
	/** @bo_size: the size of each */
	uint64_t bo_size;
};

/**
 * t_nv_cl_up() - a client of @dev (nvl_device_client_create2(), with
 * NVL_CLIENT_DEVICE_STATE when @flags has T_NV_CL_DEVICE_STATE), its VM, a
 * CPU-visible pushbuffer BO in VRAM bound at @pb_va and CPU-mapped (in VRAM
 * or GTT and not mapped with T_NV_CL_PB_MOVABLE), a copy channel and a
 * binary syncobj.
 */
void t_nv_cl_up(struct t_nv_cl *k, struct nvl_device *dev, uint64_t pb_va,
		uint32_t flags);

/**
 * t_nv_cl_sem() - a semaphore BO of @size bytes for the client, bound at @va
 * and placed and mapped as the pushbuffer is (t_nv_cl_up()'s @flags).
 */
void t_nv_cl_sem(struct t_nv_cl *k, uint64_t size, uint64_t va);

/**
 * t_nv_cl_down() - unmap the pushbuffer and the semaphore (those mapped)
 * and destroy the client with everything it still holds; the device stays
 * open.
 */
void t_nv_cl_down(struct t_nv_cl *k);

/**
 * t_nv_cl_close() - destroy the client's channel (the test fails unless
 * nvl_channel_destroy() returns 0), then t_nv_cl_down().
 */
void t_nv_cl_close(struct t_nv_cl *k);

/** t_nv_cl_expect_alive() - the client's channel is alive. */
void t_nv_cl_expect_alive(struct t_nv_cl *k);

/**
 * t_nv_cl_bo() - a CPU-visible BO of @size bytes in @domains (VRAM
 * preferred when allowed), bound at @va of the client's VM by a synchronous
 * VM_BIND, then CPU-mapped into *@cpu unless @cpu is NULL.
 * Return: its handle.
 */
uint32_t t_nv_cl_bo(struct t_nv_cl *k, uint64_t size, uint32_t domains,
		    uint64_t va, void **cpu);

/**
 * t_nv_cl_bos() - @n CPU-visible BOs of @size bytes each in VRAM or GTT
 * (VRAM preferred), bound one after the other from @va, not CPU-mapped:
 * the client's data BOs (@k->bo, @k->nbo, @k->bo_size).
 */
void t_nv_cl_bos(struct t_nv_cl *k, unsigned n, uint64_t size, uint64_t va);

/**
 * t_nv_cl_exec() - run the @ndw dwords at byte @off of the pushbuffer on
 * channel @chan (an EXEC signalling the client's syncobj).
 * Return: nvl_exec()'s result.
 */
int t_nv_cl_exec(struct t_nv_cl *k, uint32_t chan, uint32_t off, uint32_t ndw);

/**
 * t_nv_cl_wait() - wait up to @timeout_ns for the client's syncobj.
 * Return: nvl_syncobj_wait()'s result.
 */
int t_nv_cl_wait(struct t_nv_cl *k, int64_t timeout_ns);

/**
 * t_nv_cl_run() - t_nv_cl_exec() on the client's channel, then
 * t_nv_cl_wait(); the test fails unless both return 0.
 */
void t_nv_cl_run(struct t_nv_cl *k, uint32_t off, uint32_t ndw,
		 int64_t timeout_ns);

/**
 * t_nv_expect_words() - map BO @h of @c and check that its 32-bit words
 * [@first, @first + @n) all read @want, then unmap it; a difference fails
 * the test naming @what and the first word that differs.
 */
void t_nv_expect_words(struct nvl_client *c, uint32_t h, uint64_t first,
		       uint64_t n, uint32_t want, const char *what);

/**
 * t_nv_word() - the word the copy engine fills slice @slice of BO @bo of
 * client @who with (never 0, so an unwritten slice shows).
 */
static inline uint32_t t_nv_word(unsigned who, unsigned bo, unsigned slice)
{
	return 0x9e3779b1u * (who * 1000 + bo * 10 + slice + 1) | 1u;
}

/**
 * t_nv_expect_slices() - map BO @h of @c (@size bytes in slices of @slice
 * bytes) and check every word: slices 0 to @round hold t_nv_word(@who, @bo,
 * slice), the rest zero; then unmap it. A difference fails the test naming
 * @what, @who, @bo, @round and the word.
 */
void t_nv_expect_slices(struct nvl_client *c, uint32_t h, uint64_t size,
			uint64_t slice, unsigned who, unsigned bo,
			unsigned round, const char *what);

/**
 * t_nv_cl_expect_slices() - t_nv_expect_slices() of every data BO of the
 * client (BO i as BO i of client @who).
 */
void t_nv_cl_expect_slices(struct t_nv_cl *k, uint64_t slice, unsigned who,
			   unsigned round, const char *what);

/**
 * t_nv_nop_exec() - write one Host NOP push through @pb (the CPU mapping of
 * the BO bound at @va) and run it on @chan of @c with a syncobj to signal.
 * When nvl_exec() takes it, its fence must signal within 5 s and the
 * channel still live (else the test fails).
 * Return: nvl_exec()'s result.
 */
int t_nv_nop_exec(struct nvl_client *c, uint32_t chan, uint32_t *pb,
		  uint64_t va);

#endif /* NVL_TESTS_T_NV_H */
