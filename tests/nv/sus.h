/* SPDX-License-Identifier: MIT */
/*
 * A client whose data the suspend must keep, shared by nv_device_audit
 * and nv_lifecycle_audit: its pushbuffer, semaphore and data BOs at fixed
 * VAs, and one slice of each data BO written by the copy engine per round
 * (checked after a resume with t_nv_cl_expect_slices()).
 */
#ifndef NVL_TESTS_NV_SUS_H
#define NVL_TESTS_NV_SUS_H

#include <nouvelle/nouvelle.h>

#include "kit.h"
#include "t.h"
#include "t_nv.h"

#define SUS_VA_PB (32 * T_NV_MIB)
#define SUS_VA_SEM (40 * T_NV_MIB)
#define SUS_VA_BO (64 * T_NV_MIB)
#define SUS_BO (1 * T_NV_MIB)
#define SUS_SLICE (64 * T_NV_KIB)

/* @k: a client of @dev with a movable pushbuffer and @nbo data BOs */
static inline void sus_up(struct t_nv_cl *k, struct nvl_device *dev,
			  unsigned int nbo)
{
	t_nv_cl_up(k, dev, SUS_VA_PB, T_NV_CL_PB_MOVABLE);
	t_nv_cl_sem(k, 4 * T_NV_KIB, SUS_VA_SEM);
	t_nv_cl_bos(k, nbo, SUS_BO, SUS_VA_BO);
}

/* one slice of each data BO of @k written by the copy engine */
static inline void sus_fill(struct t_nv_cl *k, unsigned int round)
{
	uint32_t *pb, n = 0;

	assert_int_equal(nvl_bo_map(k->c, k->pb, (void **)&pb), 0);
	for (unsigned int i = 0; i < k->nbo; i++)
		n += nvl_kit_pb_memset(pb + n, k->info.ce_class,
				       SUS_VA_BO + i * SUS_BO +
					       round * SUS_SLICE,
				       t_nv_word(0, i, round), SUS_SLICE);
	assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	t_nv_cl_run(k, 0, n, 20 * T_NV_SEC);
}

/*
 * A 256 MiB "model:tiny" device whose client @k (two data BOs, round 0
 * written) it has suspended: the start of every failed-resume test
 */
static inline struct nvl_device *sus_suspended(struct t_nv_cl *k)
{
	struct nvl_device_opts o = {.vram_size = 256 * T_NV_MIB};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tiny", &o, &dev), 0);
	sus_up(k, dev, 2);
	sus_fill(k, 0);
	assert_int_equal(nvl_device_suspend(dev), 0);
	return dev;
}

#endif
