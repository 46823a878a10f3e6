// SPDX-License-Identifier: MIT
/*
 * TEST: nv_push_audit
 * Description: adversarial review of the pushbuffer builder
 * (nouvelle/push.h) and of nvl_exec()'s push checks: values the builder
 * silently truncated (a 32-bit semaphore payload, a byte count past 32
 * bits), a NULL builder, and a push whose last dword is the last of the
 * 40-bit VA space, which the PBDMA refuses (open-gpu-doc dev_pbdma
 * GP_ENTRY, NV_PPBDMA_INTR_0_GPENTRY).
 */
#include <errno.h>
#include <string.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB

static void fill_guard(uint32_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = 0xdeadbeef;
}

/*
 * clc46f.h SEM_EXECUTE PAYLOAD_SIZE 24:24 (32BIT 0): Host writes
 * SEM_PAYLOAD_LO only. nvl_push_host_sem_release() without
 * NVL_PUSH_SEM_64BIT wrote a 33-bit payload's upper half to PAYLOAD_HI,
 * where it is dropped: the release wrote 1 for 0x1_0000_0001. -ERANGE
 * now, nothing written; with the flag it is the 64-bit release.
 */
static void sem_release_payload_past_32_bits(void **state)
{
	uint32_t buf[16];
	struct nvl_push p;

	(void)state;
	fill_guard(buf, 16);
	assert_int_equal(nvl_push_init(&p, buf, sizeof(buf)), 0);
	assert_int_equal(nvl_push_host_sem_release(&p, 0x1000, 0x100000001ull,
						   NVL_PUSH_SEM_NO_WFI),
			 -ERANGE);
	assert_non_null(strstr(nvl_last_error(), "32 bits"));
	assert_int_equal(nvl_push_dwords(&p), 0);
	assert_int_equal(buf[0], 0xdeadbeef);
	assert_int_equal(nvl_push_end(&p), -ERANGE);
	/* the largest 32-bit payload, and the wide one with the flag */
	assert_int_equal(nvl_push_init(&p, buf, sizeof(buf)), 0);
	assert_int_equal(nvl_push_host_sem_release(&p, 0x1000, UINT32_MAX, 0),
			 0);
	assert_int_equal(nvl_push_host_sem_release(&p, 0x1008, 0x100000001ull,
						   NVL_PUSH_SEM_64BIT),
			 0);
	assert_int_equal(buf[6 + 3], 1); /* SEM_PAYLOAD_LO */
	assert_int_equal(buf[6 + 4], 1); /* SEM_PAYLOAD_HI */
	assert_int_equal(nvl_push_end(&p), 12);
}

/*
 * nvl_push_bytes() is what nvl_exec_push.len takes, 32 bits: a builder
 * over more than 4 GiB - 4 would report its length modulo 2^32 (a full
 * 4 GiB + 8 buffer read as 8 bytes). nvl_push_init() refuses it (-E2BIG,
 * sticky, the buffer not touched: it is never read here); a NULL
 * builder is -EINVAL, not a crash.
 */
static void init_refuses_what_bytes_cannot_say(void **state)
{
	uint32_t buf[4];
	struct nvl_push p;

	(void)state;
	fill_guard(buf, 4);
	assert_int_equal(nvl_push_init(&p, buf, (size_t)UINT32_MAX + 1),
			 -E2BIG);
	assert_int_equal(nvl_push_host_nop(&p), -E2BIG);
	assert_int_equal(nvl_push_bytes(&p), 0);
	assert_int_equal(nvl_push_end(&p), -E2BIG);
	assert_int_equal(buf[0], 0xdeadbeef);
	/* the largest size that fits is taken */
	assert_int_equal(nvl_push_init(&p, buf, UINT32_MAX & ~3u), 0);
	assert_int_equal(nvl_push_host_nop(&p), 0);
	assert_int_equal(nvl_push_bytes(&p), 4);
	assert_int_equal(nvl_push_init(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(buf[1], 0xdeadbeef);
}

/* two NOPs at @va (the @pb mapping of the BO there), through nvl_exec */
static int exec_at(struct nvl_client *c, uint32_t chan, uint32_t *pb,
		   uint64_t va)
{
	struct nvl_exec_push ep = {.va = va, .len = 8};
	struct nvl_vm_sync sig = {0};
	struct nvl_channel_info ci;
	int ret;

	pb[0] = 0; /* the all-zero dword: NOP */
	pb[1] = 0;
	assert_int_equal(nvl_syncobj_create(c, 0, &sig.handle), 0);
	ret = nvl_exec(c, chan, &ep, 1, NULL, 0, &sig, 1, 0);
	if (!ret) {
		assert_int_equal(nvl_syncobj_wait(c, &sig.handle, NULL, 1,
						  t_nv_deadline(5 * T_NV_SEC),
						  0, NULL),
				 0);
		assert_int_equal(nvl_channel_query(c, chan, &ci), 0);
		assert_int_equal(ci.alive, 1);
	}
	nvl_syncobj_destroy(c, sig.handle);
	return ret;
}

/*
 * dev_pbdma GP_ENTRY: a PB segment whose last entry is the last dword of
 * the VA space (0xFFFFFFFFFC) is not valid: NV_PPBDMA_INTR_0_GPENTRY (the
 * PBDMA's PUT is the address past the segment). nvl_exec() refused pushes
 * ending past 2^40 but took one ending at 2^40, which killed the channel
 * on hardware. Refused now; one ending a dword lower runs.
 */
static void push_ending_at_2_40(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 42,
					.kernel_start = T_NV_KSTART,
					.kernel_range = T_NV_KRANGE};
	const uint64_t bo_va = (1ull << 40) - 64 * KIB;
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, chan, h, *pb;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	h = t_nv_vram_bo(c, vm, 64 * KIB, bo_va, (void **)&pb);
	assert_int_equal(nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan),
			 0);
	/* ends at 2^40 - 4 */
	assert_int_equal(
		exec_at(c, chan, pb + (64 * KIB - 12) / 4, (1ull << 40) - 12),
		0);
	/* ends at 2^40 */
	assert_int_equal(
		exec_at(c, chan, pb + (64 * KIB - 8) / 4, (1ull << 40) - 8),
		-EINVAL);
	assert_non_null(strstr(nvl_last_error(), "2^40"));
	/* the channel is unharmed */
	assert_int_equal(exec_at(c, chan, pb, bo_va), 0);
	assert_int_equal(nvl_channel_destroy(c, chan), 0);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(sem_release_payload_past_32_bits),
	cmocka_unit_test(init_refuses_what_bytes_cannot_say),
	cmocka_unit_test(push_ending_at_2_40),
};

T_MAIN(tests)
