// SPDX-License-Identifier: MIT
/*
 * TEST: compute_replay
 * Description: replayable faults through the driver (docs/faults.md). A VM
 * created NVL_VM_CREATE_FAULTABLE is an RM VA space with
 * ENABLE_PAGE_FAULTING, so RM sets FAULT_REPLAY_TEX/GCC in its channels'
 * instance blocks (memory-and-hardware.md §1.6); BOs bound there with
 * NVL_VM_BIND_LAZY get no PTE. A vector add over three lazily bound BOs
 * completes with correct results, each 4 KiB page it touches faulted in
 * exactly once (one SM: no access is re-issued into a second entry) and
 * nothing cancelled, on tu102, ga102, ad102 and gh100; the same with two
 * SMs (entries may repeat, services never exceed entries); a second run
 * takes no fault. A store outside any BO cannot be serviced: it is
 * cancelled and kills only its channel (MMU_FAULT, Xid 31, the entry's
 * VA and access), while another channel of the same VM goes on faulting
 * lazily. LAZY outside a FAULTABLE VM, or with SPARSE/NULL, and unknown
 * create flags are -EINVAL and change nothing.
 *
 * It reaches the model past the public headers (core/device.h) for one
 * thing: the number of SMs, so that the exact count holds.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>

#include "core/device.h"
#include "hw/isa/isa.h"
#include "kern_src.h"
#include "model/model.h"
#include "t.h"
#include "t_nv.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define KSTART (1ull << 39)
#define KRANGE (16 * MIB)
#define VA_CTL (16 * MIB)
#define CTL_SIZE (1 * MIB)
#define OFF_CODE 0x0
#define OFF_QMD 0x40000
#define OFF_CB 0x50000
#define OFF_PUSH 0x60000
#define CB_SIZE 0x200u
/* 4 KiB into a 64 KiB-aligned window: the lazy maps use 4 KiB pages */
#define VA_DATA (64 * MIB + 4 * KIB)
#define DATA_SIZE (64 * KIB)
#define VA_DATA2 (96 * MIB + 4 * KIB)
#define HOLE (1ull << 38)
#define N 4099u /* floats: 16396 bytes = 5 pages of each array */
#define PAGES_PER_ARRAY 5u

struct ctx {
	struct nvl_device *dev;
	struct nvl_device_info info;
	struct nvl_client *c;
	enum nvl_isa_arch arch;
	uint32_t vm, ctl, data[3], sync;
	uint8_t *pctl, *pdata[3];
	uint64_t prog;
	uint32_t push_dw, slot;
};

static uint32_t bo(struct ctx *x, uint64_t size, uint64_t va, uint32_t flags,
		   uint8_t **cpu)
{
	return t_nv_bo(x->c, x->vm, size, NVL_BO_DOMAIN_VRAM,
		       NVL_BO_CPU_VISIBLE, va, flags, (void **)cpu);
}

static enum nvl_isa_arch arch_of(uint32_t cls)
{
	switch (cls) {
	case 0xc5c0:
		return NVL_ISA_SM75;
	case 0xc7c0:
		return NVL_ISA_SM86;
	case 0xc9c0:
		return NVL_ISA_SM89;
	default:
		return NVL_ISA_SM90;
	}
}

static void up(struct ctx *x, const char *spec, unsigned sms)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE,
					.flags = NVL_VM_CREATE_FAULTABLE};
	struct nvl_isa_asm_error err;
	uint64_t *w;
	size_t n;

	memset(x, 0, sizeof(*x));
	assert_int_equal(nvl_device_open(spec, NULL, &x->dev), 0);
	x->dev->model->compute_sms = sms;
	assert_int_equal(nvl_device_query(x->dev, &x->info), 0);
	x->arch = arch_of(x->info.compute_class);
	assert_int_equal(nvl_device_client_create(x->dev, &x->c), 0);
	assert_int_equal(nvl_vm_create(x->c, &va, &x->vm), 0);
	x->ctl = bo(x, CTL_SIZE, VA_CTL, 0, &x->pctl);
	for (int i = 0; i < 3; i++)
		x->data[i] = bo(x, DATA_SIZE, VA_DATA + i * 2 * DATA_SIZE,
				NVL_VM_BIND_LAZY, &x->pdata[i]);
	assert_int_equal(nvl_syncobj_create(x->c, 0, &x->sync), 0);
	if (nvl_isa_assemble(vadd_src, x->arch, VA_CTL + OFF_CODE, &w, &n,
			     &err))
		fail_msg("line %u col %u: %s", err.line, err.col, err.msg);
	memcpy(x->pctl + OFF_CODE, w, n * 16);
	nvl_free(w);
	x->prog = VA_CTL + OFF_CODE;
}

static void down(struct ctx *x)
{
	assert_int_equal(nvl_bo_unmap(x->c, x->ctl), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(nvl_bo_unmap(x->c, x->data[i]), 0);
	nvl_client_destroy(x->c);
	nvl_device_close(x->dev);
}

static uint64_t dva(unsigned i)
{
	return VA_DATA + i * 2 * DATA_SIZE;
}

/* one vector add c = a + b of @n floats at @a, @b, @c on @chan; Return: 0
 * or the channel's error */
static int vadd(struct ctx *x, uint32_t chan, uint64_t a, uint64_t b,
		uint64_t c, uint32_t n)
{
	unsigned s = x->slot++ % 16;
	struct {
		uint64_t a, b, c;
		uint32_t n;
	} p = {a, b, c, n};
	struct nvl_compute_launch l = {
		.program_va = x->prog,
		.grid = {(n + 127) / 128, 1, 1},
		.block = {128, 1, 1},
		.register_count = 32,
		.cbuf0_va = VA_CTL + OFF_CB + s * 1024,
		.cbuf0_size = CB_SIZE,
		.params = &p,
		.params_size = sizeof(p),
	};
	uint32_t *push = (uint32_t *)(x->pctl + OFF_PUSH + s * 1024);
	struct nvl_exec_push ep = {.va = VA_CTL + OFF_PUSH + s * 1024};
	struct nvl_vm_sync sy = {.handle = x->sync};
	struct nvl_channel_info ci;
	int n_dw;

	assert_int_equal(nvl_compute_launch_encode(x->info.compute_class, &l,
						   x->pctl + OFF_QMD + s * 512,
						   x->pctl + OFF_CB + s * 1024),
			 0);
	n_dw = nvl_compute_push_launch(
		x->info.compute_class, 1, VA_CTL + OFF_QMD + s * 512,
		NVL_COMPUTE_PUSH_BIND, push, NVL_COMPUTE_PUSH_MAX_DW);
	assert_true(n_dw > 0);
	ep.len = (uint32_t)n_dw * 4;
	assert_int_equal(nvl_exec(x->c, chan, &ep, 1, NULL, 0, &sy, 1, 0), 0);
	assert_int_equal(nvl_syncobj_wait(x->c, &x->sync, NULL, 1,
					  t_nv_deadline(30000000000ll), 0,
					  NULL),
			 0);
	assert_int_equal(nvl_channel_query(x->c, chan, &ci), 0);
	return ci.alive ? 0 : ci.error;
}

static void fill(struct ctx *x, uint64_t *seed)
{
	float *a = (float *)x->pdata[0], *b = (float *)x->pdata[1];

	for (uint32_t i = 0; i < N; i++) {
		a[i] = (float)(t_rand(seed) % 10000) / 7.0f;
		b[i] = (float)(t_rand(seed) % 10000) / 3.0f;
	}
	((float *)x->pdata[2])[N] = 1234.0f;
}

static void check(struct ctx *x)
{
	float *a = (float *)x->pdata[0], *b = (float *)x->pdata[1],
	      *c = (float *)x->pdata[2];

	for (uint32_t i = 0; i < N; i++)
		assert_true(c[i] == a[i] + b[i]);
	assert_true(c[N] == 1234.0f);
}

static void lazy_on(const char *spec)
{
	struct nvl_fault_stats st0, st;
	uint64_t seed = 0x5eed;
	uint32_t chan;
	struct ctx x;

	up(&x, spec, 1);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &chan), 0);
	fill(&x, &seed);
	assert_int_equal(nvl_device_fault_stats(x.dev, &st0), 0);
	assert_int_equal(vadd(&x, chan, dva(0), dva(1), dva(2), N), 0);
	check(&x);
	assert_int_equal(nvl_device_fault_stats(x.dev, &st), 0);
	/* one SM: every page of a, b and c faulted in once, in its own
	 * entry, each serviced, each followed by a replay */
	assert_int_equal(st.replayable - st0.replayable, 3 * PAGES_PER_ARRAY);
	assert_int_equal(st.serviced - st0.serviced, 3 * PAGES_PER_ARRAY);
	assert_int_equal(st.cancelled, 0);
	assert_true(st.replays - st0.replays >= 1);
	assert_int_equal(st.faults, 0); /* nothing non-replayable */
	assert_int_equal(st.killed, 0);
	/* mapped now: a second run faults nowhere */
	fill(&x, &seed);
	assert_int_equal(vadd(&x, chan, dva(0), dva(1), dva(2), N), 0);
	check(&x);
	assert_int_equal(nvl_device_fault_stats(x.dev, &st0), 0);
	assert_int_equal(st0.replayable, st.replayable);
	assert_int_equal(st0.serviced, st.serviced);
	assert_int_equal(nvl_channel_destroy(x.c, chan), 0);
	down(&x);
}

static void lazy_tu102(void **state)
{
	(void)state;
	lazy_on("model:tu102");
}

static void lazy_ga102(void **state)
{
	(void)state;
	lazy_on("model:ga102");
}

static void lazy_ad102(void **state)
{
	(void)state;
	lazy_on("model:ad102");
}

static void lazy_gh100(void **state)
{
	(void)state;
	lazy_on("model:gh100");
}

/* several SMs fault at once: entries may repeat, the result is right */
static void lazy_two_sms(void **state)
{
	struct nvl_fault_stats st;
	uint64_t seed = 0xfeed;
	uint32_t chan;
	struct ctx x;

	(void)state;
	up(&x, NULL, 2);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &chan), 0);
	fill(&x, &seed);
	assert_int_equal(vadd(&x, chan, dva(0), dva(1), dva(2), N), 0);
	check(&x);
	assert_int_equal(nvl_device_fault_stats(x.dev, &st), 0);
	assert_true(st.serviced >= 3 * PAGES_PER_ARRAY);
	assert_true(st.serviced <= st.replayable);
	assert_int_equal(st.cancelled, 0);
	assert_int_equal(nvl_channel_destroy(x.c, chan), 0);
	down(&x);
}

/* a store outside any BO: cancelled, only its channel dies */
static void unserviceable_kills_one_channel(void **state)
{
	struct nvl_fault_stats st;
	struct nvl_channel_info ci;
	uint32_t bad, good, h2;
	uint64_t seed = 0xbad;
	uint8_t *p2;
	struct ctx x;

	(void)state;
	up(&x, NULL, 1);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &bad), 0);
	assert_int_equal(
		nvl_channel_create(x.c, x.vm, NVL_ENGINE_COMPUTE, 0, &good), 0);
	fill(&x, &seed);
	/* a and b fault in; c's first store has nothing to map */
	assert_int_equal(vadd(&x, bad, dva(0), dva(1), HOLE, N), -EFAULT);
	assert_int_equal(nvl_channel_query(x.c, bad, &ci), 0);
	assert_int_equal(ci.alive, 0);
	assert_int_equal(ci.reason, NVL_CHANNEL_MMU_FAULT);
	assert_int_equal(ci.hw_error, 31); /* FIFO_ERROR_MMU_ERR_FLT */
	assert_int_equal(ci.fault_va, HOLE);
	assert_int_equal(ci.fault_access, 1); /* ACCESS_TYPE WRITE */
	assert_int_equal(nvl_device_fault_stats(x.dev, &st), 0);
	assert_int_equal(st.cancelled, 1);
	assert_int_equal(st.killed, 0); /* the replay path killed it */
	/* the other channel of the same VM is alive and still faults lazily:
	 * into c, and into a BO bound after the cancel */
	assert_int_equal(nvl_channel_query(x.c, good, &ci), 0);
	assert_int_equal(ci.alive, 1);
	assert_int_equal(vadd(&x, good, dva(0), dva(1), dva(2), N), 0);
	check(&x);
	h2 = bo(&x, DATA_SIZE, VA_DATA2, NVL_VM_BIND_LAZY, &p2);
	assert_int_equal(vadd(&x, good, dva(0), dva(1), VA_DATA2, N), 0);
	for (uint32_t i = 0; i < N; i++)
		assert_true(((float *)p2)[i] ==
			    ((float *)x.pdata[0])[i] +
				    ((float *)x.pdata[1])[i]);
	assert_int_equal(nvl_device_fault_stats(x.dev, &st), 0);
	assert_int_equal(st.cancelled, 1);
	assert_int_equal(nvl_bo_unmap(x.c, h2), 0);
	assert_int_equal(nvl_channel_destroy(x.c, good), 0);
	assert_int_equal(nvl_channel_destroy(x.c, bad), 0);
	down(&x);
}

static void bad_input(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 40,
					.kernel_start = KSTART,
					.kernel_range = KRANGE};
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP,
				    .flags = NVL_VM_BIND_LAZY,
				    .addr = VA_DATA2,
				    .range = DATA_SIZE};
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, fvm, h;

	(void)state;
	assert_int_equal(nvl_device_open(NULL, NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	va.flags = 1u << 7;
	assert_int_equal(nvl_vm_create(c, &va, &vm), -EINVAL);
	va.flags = 0;
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	va.flags = NVL_VM_CREATE_FAULTABLE;
	assert_int_equal(nvl_vm_create(c, &va, &fvm), 0);
	assert_int_equal(
		nvl_bo_create(c, DATA_SIZE, NVL_BO_DOMAIN_VRAM, 0, 0, &h), 0);
	op.handle = h;
	/* LAZY needs a FAULTABLE VM */
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 -EINVAL);
	/* a SPARSE or NULL map has no BO to fault in */
	op.handle = 0;
	op.flags = NVL_VM_BIND_LAZY | NVL_VM_BIND_SPARSE;
	assert_int_equal(nvl_vm_bind(c, fvm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 -EINVAL);
	op.flags = NVL_VM_BIND_LAZY | NVL_VM_BIND_NULL;
	assert_int_equal(nvl_vm_bind(c, fvm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 -EINVAL);
	/* nothing was bound: a plain map of the same range works */
	op.flags = 0;
	op.handle = h;
	assert_int_equal(nvl_vm_bind(c, vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	op.flags = NVL_VM_BIND_LAZY;
	assert_int_equal(nvl_vm_bind(c, fvm, 0, &op, 1, NULL, 0, NULL, 0, 0),
			 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(bad_input),
	cmocka_unit_test(unserviceable_kills_one_channel),
	cmocka_unit_test(lazy_two_sms),
	cmocka_unit_test(lazy_tu102),
	cmocka_unit_test(lazy_ga102),
	cmocka_unit_test(lazy_ad102),
	cmocka_unit_test(lazy_gh100),
};

T_MAIN(tests)
