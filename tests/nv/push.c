// SPDX-License-Identifier: MIT
/*
 * TEST: the public pushbuffer builder (nouvelle/push.h) against the
 * driver's method table and decoders: every header kind built and decoded
 * back (hw/mthd.h, the header decoder the model's PBDMA uses), the
 * generated public numbers equal to the table's, overflow and bad
 * arguments refused without writing, and copies, fills and semaphores
 * built with it run through nvl_exec on the model, every byte compared.
 * Facts: the method header (SEC_OP 31:29, COUNT 28:16, SUBCHANNEL 15:13,
 * ADDRESS 11:0) of dev_pbdma; the clc5b5.h LAUNCH_DMA and remap fields;
 * the clc46f.h SEM_EXECUTE fields.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "hw/ce.h"
#include "hw/compute.h"
#include "hw/host.h"
#include "hw/methods.h"
#include "hw/mthd.h"
#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define BUF (128 * KIB)
#define VA_SRC (16 * MIB)
#define VA_DST (32 * MIB)
#define VA_PB (48 * MIB)
#define VA_SEM (64 * MIB)

/* decode @n dwords; the calls into @calls (mthd, data pairs) */
static size_t decode(const uint32_t *dw, size_t n, uint32_t (*calls)[2],
		     size_t max, struct nvl_hw_pb_dec *s)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct nvl_hw_pb_item it;

		nvl_hw_pb_dec_step(s, dw[i], &it);
		if (it.is_hdr)
			assert_int_not_equal(it.hdr.kind, NVL_HW_HDR_INVALID);
		if (it.call) {
			assert_true(k < max);
			calls[k][0] = it.mthd;
			calls[k][1] = it.data;
			k++;
		}
	}
	return k;
}

static void header_round_trip(void **state)
{
	static const uint32_t data[5] = {11, 22, 33, 44, 55};
	uint32_t buf[64], calls[32][2];
	struct nvl_hw_pb_dec s = {0};
	struct nvl_hw_mthd_hdr h;
	struct nvl_push p;
	size_t k;

	(void)state;
	assert_int_equal(nvl_push_init(&p, buf, sizeof(buf)), 0);
	assert_int_equal(nvl_push_mthd(&p, 3, 0x400, data, 5), 0);
	assert_int_equal(nvl_push_mthd_ninc(&p, 7, 0x3ffc, data, 3), 0);
	assert_int_equal(nvl_push_mthd_1inc(&p, 1, 0x240, data, 4), 0);
	assert_int_equal(nvl_push_immd(&p, 2, 0x300, 0x1fff), 0);
	assert_int_equal(nvl_push_end(&p), 6 + 4 + 5 + 1);

	/* each header's fields, read back by the PBDMA's decoder */
	nvl_hw_mthd_hdr_decode(buf[0], &h);
	assert_int_equal(h.kind, NVL_HW_HDR_INC);
	assert_int_equal(h.subch, 3);
	assert_int_equal(h.mthd, 0x400);
	assert_int_equal(h.count, 5);
	assert_int_equal(buf[0] >> 29, 1); /* SEC_OP INC_METHOD */
	nvl_hw_mthd_hdr_decode(buf[6], &h);
	assert_int_equal(h.kind, NVL_HW_HDR_NON_INC);
	assert_int_equal(h.subch, 7);
	assert_int_equal(h.mthd, 0x3ffc);
	assert_int_equal(buf[6] >> 29, 3);
	nvl_hw_mthd_hdr_decode(buf[10], &h);
	assert_int_equal(h.kind, NVL_HW_HDR_ONE_INC);
	assert_int_equal(buf[10] >> 29, 5);
	nvl_hw_mthd_hdr_decode(buf[15], &h);
	assert_int_equal(h.kind, NVL_HW_HDR_IMMD);
	assert_int_equal(h.count, 0x1fff);
	assert_int_equal(buf[15] >> 29, 4);
	assert_int_equal(buf[15], 0x9fff4000u | (0x300 >> 2)); /* subch 2 */

	/* the method calls the stream makes */
	k = decode(buf, 16, calls, 32, &s);
	assert_int_equal(k, 5 + 3 + 4 + 1);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(calls[i][0], 0x400 + 4 * i);
		assert_int_equal(calls[i][1], data[i]);
	}
	for (unsigned i = 5; i < 8; i++)
		assert_int_equal(calls[i][0], 0x3ffc);
	assert_int_equal(calls[8][0], 0x240);
	for (unsigned i = 9; i < 12; i++)
		assert_int_equal(calls[i][0], 0x244);
	assert_int_equal(calls[12][0], 0x300);
	assert_int_equal(calls[12][1], 0x1fff);
}

/* the public numbers are the table's, and the table names them */
static void table_agrees(void **state)
{
	(void)state;
#define M_(f, n, off, first)                                                   \
	assert_int_equal(NVL_PUSH_##f##_##n, (off));                           \
	assert_string_equal(nvl_hw_method_name((first), (off)), #n);
	NVL_HW_HOST_METHODS(M_)
	NVL_HW_CE_METHODS(M_)
	NVL_HW_COMPUTE_METHODS(M_)
#undef M_
	/* the driver's and the model's names are the table's */
	assert_int_equal(NVL_HW_SEM_EXECUTE, NVL_PUSH_HOST_SEM_EXECUTE);
	assert_int_equal(NVL_HW_CE_LAUNCH_DMA, NVL_PUSH_CE_LAUNCH_DMA);
	assert_int_equal(NVL_HW_CE_LAUNCH_REMAP,
			 1u << NVL_PUSH_CE_LAUNCH_DMA_REMAP_ENABLE_SHIFT);
	assert_int_equal(
		NVL_HW_SEM_EXECUTE_RELEASE_WFI_32,
		NVL_PUSH_HOST_SEM_EXECUTE_OPERATION_RELEASE |
			1u << NVL_PUSH_HOST_SEM_EXECUTE_RELEASE_WFI_SHIFT);
	/* SET_SEMAPHORE_PAYLOAD_UPPER first appears in C7B5 */
	assert_null(nvl_hw_method_name(NVL_HW_CE_CLASS_TURING, 0x24c));
	assert_non_null(nvl_hw_method_name(NVL_HW_CE_CLASS_HOPPER, 0x24c));
	assert_null(nvl_hw_method_name(NVL_HW_CE_CLASS_TURING, 0x7fc));
	/* fields by name */
	{
		char b[256];

		nvl_hw_method_fields(NVL_HW_CE_CLASS_TURING, 0x300,
				     NVL_HW_CE_LAUNCH_COPY_MULTI, b, sizeof(b));
		assert_non_null(strstr(b, "DATA_TRANSFER_TYPE=NON_PIPELINED"));
		assert_non_null(strstr(b, "MULTI_LINE_ENABLE=0x1"));
		assert_non_null(strstr(b, "SRC_MEMORY_LAYOUT=PITCH"));
	}
}

static void overflow_and_bad_args(void **state)
{
	uint32_t buf[16];
	struct nvl_push p;

	(void)state;
	for (unsigned i = 0; i < 16; i++)
		buf[i] = 0xdeadbeef;
	/* 10 dwords of room, guards after them */
	assert_int_equal(nvl_push_init(&p, buf, 40), 0);
	assert_int_equal(nvl_push_host_sem_release(&p, 0x1000, 1, 0), 0);
	assert_int_equal(nvl_push_dwords(&p), 6);
	/* a copy needs 11: refused whole, nothing written */
	assert_int_equal(nvl_push_ce_copy(&p, 0, 0x2000, 0x1000, 64), -ENOSPC);
	assert_non_null(strstr(nvl_last_error(), "full"));
	assert_int_equal(nvl_push_dwords(&p), 6);
	for (unsigned i = 6; i < 16; i++)
		assert_int_equal(buf[i], 0xdeadbeef);
	/* sticky: later calls write nothing and report the first error */
	assert_int_equal(nvl_push_host_nop(&p), -ENOSPC);
	assert_int_equal(nvl_push_end(&p), -ENOSPC);
	assert_int_equal(buf[6], 0xdeadbeef);
	/* a method that just fits, then one dword too many */
	for (unsigned i = 0; i < 16; i++)
		buf[i] = 0xdeadbeef;
	assert_int_equal(nvl_push_init(&p, buf, 16), 0);
	assert_int_equal(nvl_push_mthd(&p, 0, 0x400, buf + 8, 3), 0);
	assert_int_equal(nvl_push_immd(&p, 0, 0x8, 0), -ENOSPC);
	assert_int_equal(buf[4], 0xdeadbeef);

	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_immd(&p, 0, 0x8, 8192), -ERANGE);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_1(&p, 8, 0x100, 0), -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_1(&p, 0, 0x102, 0), -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_1(&p, 0, 0x4000, 0), -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_mthd(&p, 0, 0x400, buf, 0), -ERANGE);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_ce_fill(&p, 0, 0x1000, 0, 6), -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_ce_copy(&p, 0, 0, 0, 0), -ERANGE);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(
		nvl_push_host_sem_release(&p, 0x1004, 1, NVL_PUSH_SEM_64BIT),
		-EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_host_sem_acquire(&p, 0x1000, 1,
						   (enum nvl_push_acquire)7),
			 -EINVAL);
	assert_int_equal(nvl_push_init(&p, (char *)buf + 2, 8), -EINVAL);
	assert_int_equal(nvl_push_dwords(&p), 0);
	assert_int_equal(nvl_push_1(&p, 0, 0x100, 0), -EINVAL);
	assert_int_equal(nvl_push_fail(NULL, -EIO, "x"), -EINVAL);
}

/*
 * Hostile arguments (audit4): an incrementing method that would walk off
 * the header's 12-bit address field wraps to method 0 (SET_OBJECT) in
 * the PBDMA; a semaphore VA wider than its method's field aliases a low
 * address; nvl_push_fail() given a non-negative code must still fail.
 */
static void builder_abuse(void **state)
{
	uint32_t buf[16], d[2] = {0xc5b5, 0x1234};
	struct nvl_push p;

	(void)state;
	for (unsigned i = 0; i < 16; i++)
		buf[i] = 0xdeadbeef;
	/* INC from the last method: the second datum would go to 0x0 */
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_mthd(&p, 3, NVL_PUSH_MAX_METHOD, d, 2),
			 -ERANGE);
	assert_int_equal(nvl_push_dwords(&p), 0);
	assert_int_equal(buf[0], 0xdeadbeef);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_mthd_1inc(&p, 3, NVL_PUSH_MAX_METHOD, d, 2),
			 -ERANGE);
	assert_int_equal(buf[0], 0xdeadbeef);
	/* the ones that end at the last method are fine */
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_mthd(&p, 3, NVL_PUSH_MAX_METHOD - 4, d, 2),
			 0);
	assert_int_equal(
		nvl_push_mthd_1inc(&p, 3, NVL_PUSH_MAX_METHOD - 4, d, 2), 0);
	assert_int_equal(nvl_push_mthd_ninc(&p, 3, NVL_PUSH_MAX_METHOD, d, 2),
			 0);
	assert_int_equal(nvl_push_mthd_1inc(&p, 3, NVL_PUSH_MAX_METHOD, d, 1),
			 0);
	/* semaphore VAs past the widest field (2^57) are refused */
	for (unsigned i = 0; i < 16; i++)
		buf[i] = 0xdeadbeef;
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_ce_sem_release(&p, 0, 1ull << 57 | 0x1000, 1),
			 -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(
		nvl_push_host_sem_release(&p, 1ull << 57 | 0x1000, 1, 0),
		-EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_host_sem_acquire(&p, 1ull << 60 | 0x1000, 1,
						   NVL_PUSH_ACQ_GEQ),
			 -EINVAL);
	/* so are copy and fill addresses (OFFSET_*_UPPER 24:0) */
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(
		nvl_push_ce_copy(&p, 0, 1ull << 57 | 0x2000, 0x1000, 64),
		-EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_ce_copy(&p, 0, 0x2000, 1ull << 63, 64),
			 -EINVAL);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_int_equal(nvl_push_ce_fill(&p, 0, 1ull << 58, 0, 64), -EINVAL);
	assert_int_equal(buf[0], 0xdeadbeef);
	/* a failure recorded with 0 or a positive code is still a failure
	 * (nvl_push_end() must not read it as a dword count) */
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_true(nvl_push_fail(&p, 0, "zero") < 0);
	assert_true(nvl_push_end(&p) < 0);
	assert_int_equal(nvl_push_host_nop(&p), p.err);
	assert_int_equal(nvl_push_init(&p, buf, 64), 0);
	assert_true(nvl_push_fail(&p, EIO, "positive") < 0);
	assert_true(nvl_push_end(&p) < 0);
}

/*
 * A channel whose driver range lies past 2^40, on every Host class: a
 * GPFIFO entry carries VA bits 39:0 only (GP_ENTRY1_GET_HI 7:0, clc36f.h
 * to clc86f.h; a higher segment needs SET_PB_SEGMENT_EXTENDED_BASE first),
 * so its fence idiom would be fetched at the aliased address below 2^40,
 * and before C86F SEM_ADDR_HI has 8 bits (VA 39:32), so its seqno would be
 * released there too: here the client's own BO, and its fences never
 * signal. Either the VM or the channel is refused, or an exec works and
 * the BO is untouched. On tu102 (C46F) and gh100 (C86F).
 */
static void high_kernel_range_on(const char *spec)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 42,
					.kernel_start = (1ull << 40) + VA_SRC,
					.kernel_range = 16 * MIB};
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, chan, hb, hpb, *pb;
	uint8_t *b;
	int ret;

	assert_int_equal(nvl_device_open(spec, NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	ret = nvl_vm_create(c, &va, &vm);
	if (ret) {
		assert_int_equal(ret, -EINVAL);
		goto out;
	}
	/* the BO sits where the aliased channel slots would be */
	hb = t_nv_vram_bo(c, vm, 2 * MIB, VA_SRC, (void **)&b);
	hpb = t_nv_vram_bo(c, vm, 64 * KIB, VA_PB, (void **)&pb);
	memset(b, 0x5a, 2 * MIB);
	ret = nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan);
	if (!ret) {
		assert_int_equal(t_nv_nop_exec(c, chan, pb, VA_PB), 0);
		assert_int_equal(nvl_channel_destroy(c, chan), 0);
	} else {
		assert_int_equal(ret, -EINVAL);
	}
	for (size_t i = 0; i < 2 * MIB; i++)
		if (b[i] != 0x5a)
			fail_msg("%s: byte %#zx of the client's BO is %#x",
				 spec, i, b[i]);
	assert_int_equal(nvl_bo_unmap(c, hb), 0);
	assert_int_equal(nvl_bo_unmap(c, hpb), 0);
out:
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

static void high_kernel_range(void **state)
{
	(void)state;
	high_kernel_range_on("model:tu102");
	high_kernel_range_on("model:gh100");
}

/*
 * A GPFIFO entry carries push VA bits 39:0 only (GET_HI 7:0): a push at
 * 2^40 + x would be fetched from x, another BO of the client. nvl_exec
 * refuses it, or runs the right one.
 */
static void high_push_va(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 42,
					.kernel_start = T_NV_KSTART,
					.kernel_range = T_NV_KRANGE};
	const uint64_t va_push = (1ull << 40) + VA_PB;
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, chan, hb, hpb, *pb;
	uint8_t *b;
	int ret;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	hb = t_nv_vram_bo(c, vm, 64 * KIB, VA_PB, (void **)&b);
	memset(b, 0x5a, 64 * KIB);
	hpb = t_nv_vram_bo(c, vm, 64 * KIB, va_push, (void **)&pb);
	assert_int_equal(nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan),
			 0);
	ret = t_nv_nop_exec(c, chan, pb, va_push);
	if (ret)
		assert_int_equal(ret, -EINVAL);
	assert_int_equal(nvl_channel_destroy(c, chan), 0);
	assert_int_equal(nvl_bo_unmap(c, hb), 0);
	assert_int_equal(nvl_bo_unmap(c, hpb), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

static void exec_on(const char *spec)
{
	struct nvl_hw_pb_dec dec = {0};
	struct nvl_device *dev;
	struct nvl_push p;
	struct t_nv_cl x;
	uint32_t hsrc, hdst;
	uint8_t *src, *dst;

	assert_int_equal(nvl_device_open(spec, NULL, &dev), 0);
	t_nv_cl_up(&x, dev, VA_PB, 0);
	hsrc = t_nv_cl_bo(&x, BUF, NVL_BO_DOMAIN_VRAM, VA_SRC, (void **)&src);
	hdst = t_nv_cl_bo(&x, BUF, NVL_BO_DOMAIN_VRAM, VA_DST, (void **)&dst);
	t_nv_cl_sem(&x, 64 * KIB, VA_SEM);
	for (size_t i = 0; i < BUF; i++)
		src[i] = (uint8_t)(i * 13 + (i >> 8) + 1);
	memset(dst, 0xee, BUF);
	memset(x.psem, 0, 64);
	x.psem[8] = 5; /* satisfies the acquire below */

	assert_int_equal(nvl_push_init(&p, x.ppb, 64 * KIB), 0);
	nvl_push_ce_set_object(&p, 0, x.info.ce_class);
	nvl_push_host_sem_acquire(&p, VA_SEM + 32, 5, NVL_PUSH_ACQ_GEQ);
	nvl_push_ce_copy(&p, 0, VA_DST, VA_SRC, BUF);
	nvl_push_ce_fill(&p, 0, VA_DST + 8192, 0x01020304u, 4096);
	nvl_push_ce_sem_release(&p, 0, VA_SEM, 0x1234);
	nvl_push_host_wfi(&p);
	nvl_push_host_nop(&p);
	nvl_push_host_sem_release(&p, VA_SEM + 16, 0x1122334455667788ull,
				  NVL_PUSH_SEM_64BIT);
	nvl_push_host_non_stall_intr(&p);
	assert_true(nvl_push_end(&p) > 0);

	/* every method the builder wrote has a name in the table */
	for (size_t i = 0; i < nvl_push_dwords(&p); i++) {
		struct nvl_hw_pb_item it;

		nvl_hw_pb_dec_step(&dec, x.ppb[i], &it);
		if (it.is_hdr)
			assert_int_not_equal(it.hdr.kind, NVL_HW_HDR_INVALID);
		if (it.call)
			assert_non_null(nvl_hw_method_name(it.cls, it.mthd));
	}
	assert_int_equal(dec.left, 0);
	assert_int_equal(dec.cls[0], x.info.ce_class);

	t_nv_cl_run(&x, 0, nvl_push_dwords(&p), 5 * T_NV_SEC);
	for (size_t i = 0; i < BUF; i++) {
		uint8_t want = src[i];

		if (i >= 8192 && i < 8192 + 4096)
			want = (uint8_t)(0x04 - i % 4); /* 04 03 02 01 */
		if (dst[i] != want)
			fail_msg("%s: byte %zu is %#x, not %#x", spec, i,
				 dst[i], want);
	}
	assert_int_equal(x.psem[0], 0x1234);
	assert_int_equal(x.psem[4], 0x55667788u);
	assert_int_equal(x.psem[5], 0x11223344u);

	assert_int_equal(nvl_bo_unmap(x.c, hsrc), 0);
	assert_int_equal(nvl_bo_unmap(x.c, hdst), 0);
	t_nv_cl_close(&x);
	nvl_device_close(dev);
}

static void exec_end_to_end(void **state)
{
	(void)state;
	exec_on("model:tu102");
	exec_on("model:gh100");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_round_trip),
		cmocka_unit_test(table_agrees),
		cmocka_unit_test(overflow_and_bad_args),
		cmocka_unit_test(builder_abuse),
		cmocka_unit_test(high_kernel_range),
		cmocka_unit_test(high_push_va),
		cmocka_unit_test(exec_end_to_end),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}
