// SPDX-License-Identifier: MIT
/*
 * TEST: nv_host_audit2
 * Description: what a copy-engine launch's INTERRUPT_TYPE does on a
 * device the driver runs (clc5b5.h LAUNCH_DMA INTERRUPT_TYPE, dev_ce.ref
 * NV_CE_LCE_INTR_STATUS): the BLOCKING interrupt is a stalling one, which
 * the GSP's RM owns and clears; the driver's completions and the channel
 * are untouched.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <nouvelle/nouvelle.h>
#include <nouvelle/push.h>

#include "core/device.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "model/gsp/gsp.h"
#include "model/model.h"
#include "nv/chan.h"
#include "t.h"
#include "t_nv.h"

#define PB_VA (16 * T_NV_MIB)
#define SEM_VA (32 * T_NV_MIB)

static uint64_t blockpipes(struct nvl_device *dev)
{
	struct nvl_model_gsp_stats ms;

	nvl_model_gsp_get_stats(dev->model, &ms);
	return ms.ce_blockpipes;
}

/*
 * A user's LAUNCH_DMA with INTERRUPT_TYPE BLOCKING (a semaphore release
 * with a blocking interrupt, as the public NVL_PUSH_CE_LAUNCH_DMA_* names
 * allow): the job completes and its syncobj signals (the driver's fence
 * idiom raises its own non-stall interrupt), RM services the engine's
 * BLOCKPIPE (its counter moves, the status register is clear again) and
 * the stall tree's CE bit never reaches the driver. Before, the model
 * raised a non-stall interrupt for it.
 */
static void ce_blocking_interrupt_goes_to_rm(void **state)
{
	struct nvl_hw *hw;
	struct nvl_device *dev;
	struct nvl_push p;
	struct t_nv_cl k;
	unsigned chid, rl;
	uint64_t n0;
	long ndw;

	(void)state;
	assert_int_equal(nvl_device_open("model:tu102", NULL, &dev), 0);
	hw = nvl_model_hw(dev->model);
	t_nv_cl_up(&k, dev, PB_VA, 0);
	t_nv_cl_sem(&k, 64 * T_NV_KIB, SEM_VA);
	assert_int_equal(nvl_nv_chan_hw_ids(k.c, k.chan, &chid, &rl), 0);
	n0 = blockpipes(dev);
	assert_int_equal(nvl_push_init(&p, k.ppb, 4096), 0);
	nvl_push_ce_set_object(&p, 0, k.info.ce_class);
	nvl_push_1(&p, 0, NVL_PUSH_CE_SET_SEMAPHORE_A, 0);
	nvl_push_1(&p, 0, NVL_PUSH_CE_SET_SEMAPHORE_B, (uint32_t)SEM_VA);
	nvl_push_1(&p, 0, NVL_PUSH_CE_SET_SEMAPHORE_PAYLOAD, 0x5e5e);
	nvl_push_1(
		&p, 0, NVL_PUSH_CE_LAUNCH_DMA,
		NVL_PUSH_CE_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE
				<< NVL_PUSH_CE_LAUNCH_DMA_SEMAPHORE_TYPE_SHIFT |
			NVL_PUSH_CE_LAUNCH_DMA_INTERRUPT_TYPE_BLOCKING
				<< NVL_PUSH_CE_LAUNCH_DMA_INTERRUPT_TYPE_SHIFT);
	ndw = nvl_push_end(&p);
	assert_true(ndw > 0);
	t_nv_cl_run(&k, 0, (uint32_t)ndw, 5 * T_NV_SEC);
	assert_int_equal(k.psem[0], 0x5e5e);
	for (int i = 0; i < 5000 && blockpipes(dev) == n0; i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_int_equal(blockpipes(dev), n0 + 1);
	assert_int_equal(nvl_hw_rd32(hw, NVL_HW_CE_LCE_INTR_STATUS(rl)), 0);
	assert_int_equal(
		nvl_hw_rd32(hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL)) &
			NVL_HW_INTR_CE,
		0);
	t_nv_cl_expect_alive(&k);
	/* and the channel goes on */
	t_nv_cl_run(&k, 0, (uint32_t)ndw, 5 * T_NV_SEC);
	for (int i = 0; i < 5000 && blockpipes(dev) == n0 + 1; i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	assert_int_equal(blockpipes(dev), n0 + 2);
	t_nv_cl_close(&k);
	nvl_device_close(dev);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(ce_blocking_interrupt_goes_to_rm),
};

T_MAIN(tests)
