// SPDX-License-Identifier: MIT
/*
 * TEST: adversarial review of channels, EXEC and the pushbuffer against
 * NVIDIA's host class (audit14): what a hostile or careless client can do
 * with channel create/destroy/query and nvl_exec(), checked against the
 * promises of nouvelle/exec.h and the published Host class facts
 * (clc36f.h/clc46f.h/clc56f.h/clc86f.h: GP_ENTRY0/1, SEM_ADDR_HI, the
 * method header) the driver and the model implement.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "t.h"
#include "t_nv.h"

#define KIB T_NV_KIB
#define MIB T_NV_MIB
#define VA_LOW (16 * MIB)
#define VA_PB (48 * MIB)

/*
 * Run one Host NOP push at @va (written through @pb) on @chan: nvl_exec()'s
 * result, or -ETIMEDOUT when its fence does not signal within 2 s; when
 * the job ran, the channel must still live.
 */
static int nop_exec(struct nvl_client *c, uint32_t chan, uint32_t *pb,
		    uint64_t va)
{
	struct nvl_exec_push ep = {.va = va};
	struct nvl_vm_sync sig = {0};
	struct nvl_channel_info ci;
	struct nvl_push p;
	int ret;

	assert_int_equal(nvl_push_init(&p, pb, 64 * KIB), 0);
	nvl_push_host_nop(&p);
	assert_true(nvl_push_end(&p) > 0);
	ep.len = nvl_push_bytes(&p);
	assert_int_equal(nvl_syncobj_create(c, 0, &sig.handle), 0);
	ret = nvl_exec(c, chan, &ep, 1, NULL, 0, &sig, 1, 0);
	if (!ret) {
		ret = nvl_syncobj_wait(c, &sig.handle, NULL, 1,
				       t_nv_deadline(2 * T_NV_SEC), 0, NULL);
		if (!ret) {
			assert_int_equal(nvl_channel_query(c, chan, &ci), 0);
			assert_int_equal(ci.alive, 1);
		}
	}
	nvl_syncobj_destroy(c, sig.handle);
	return ret;
}

/*
 * Hopper too: a GPFIFO entry carries VA bits 39:0 only (clc86f.h
 * NVC86F_GP_ENTRY1_GET_HI 7:0, as in every earlier Host class; a higher
 * segment needs a SET_PB_SEGMENT_EXTENDED_BASE control entry first), so a
 * channel whose driver range lies past 2^40 has its fence idiom fetched
 * (and, with SEM_ADDR_HI written 8 bits wide, its seqno released) at the
 * aliased address below 2^40: here the client's own BO. Either the
 * channel is refused or an exec works and the BO is untouched.
 */
static void hopper_high_kernel_range(void **state)
{
	struct nvl_vm_create_args va = {.start = 1 * MIB,
					.end = 1ull << 42,
					.kernel_start = (1ull << 40) + VA_LOW,
					.kernel_range = T_NV_KRANGE};
	struct nvl_device *dev;
	struct nvl_client *c;
	uint32_t vm, chan, hb, hpb, *pb;
	uint8_t *b;
	int ret;

	(void)state;
	assert_int_equal(nvl_device_open("model:gh100", NULL, &dev), 0);
	assert_int_equal(nvl_device_client_create(dev, &c), 0);
	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	/* the BO sits where the aliased channel slot would be */
	hb = t_nv_vram_bo(c, vm, 2 * MIB, VA_LOW, (void **)&b);
	hpb = t_nv_vram_bo(c, vm, 64 * KIB, VA_PB, (void **)&pb);
	memset(b, 0x5a, 2 * MIB);
	ret = nvl_channel_create(c, vm, NVL_ENGINE_COPY, 0, &chan);
	if (!ret) {
		assert_int_equal(nop_exec(c, chan, pb, VA_PB), 0);
		assert_int_equal(nvl_channel_destroy(c, chan), 0);
	} else {
		assert_int_equal(ret, -EINVAL);
	}
	for (size_t i = 0; i < 2 * MIB; i++)
		if (b[i] != 0x5a)
			fail_msg("byte %#zx of the client's BO is %#x", i,
				 b[i]);
	assert_int_equal(nvl_bo_unmap(c, hb), 0);
	assert_int_equal(nvl_bo_unmap(c, hpb), 0);
	nvl_client_destroy(c);
	nvl_device_close(dev);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hopper_high_kernel_range),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}
