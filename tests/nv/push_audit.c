// SPDX-License-Identifier: MIT
/*
 * TEST: nv_push_audit
 * Description: adversarial review of the pushbuffer builder
 * (nouvelle/push.h): values the builder silently truncated (a 32-bit
 * semaphore payload, a byte count past 32 bits) and a NULL builder.
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
	assert_int_equal(nvl_push_init(&p, buf, (size_t)UINT32_MAX + 1), -E2BIG);
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

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(sem_release_payload_past_32_bits),
	cmocka_unit_test(init_refuses_what_bytes_cannot_say),
};

T_MAIN(tests)
