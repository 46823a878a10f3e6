/* SPDX-License-Identifier: MIT */
/*
 * What nvl_exec() checks inside the pushes it is given (nv/push_check.c).
 */
#ifndef NVL_NV_PUSH_CHECK_H
#define NVL_NV_PUSH_CHECK_H

#include <stdint.h>

#include "nouvelle/exec.h"

struct nvl_gpuvm;

/**
 * nvl_nv_push_check_sem() - refuse Host semaphore addresses the channel's
 * class cannot hold.
 * @g: the channel's VM, its lock and its objects' resvs held (the pushes'
 *     BOs stay where they are while they are read)
 * @pushes: the exec's @n pushes, in order (a method's data may continue in
 *     the next push, as on the PBDMA)
 * @n: how many
 * @host_class: the channel's Host class
 *
 * Before C86F (Hopper), SEM_ADDR_HI's OFFSET is 7:0 (VA bits 39:32,
 * clc46f.h/clc56f.h NVC56F_SEM_ADDR_HI_OFFSET); C86F widens it to 24:0.
 * Host ignores the bits above the field, so a semaphore at or above 2^40
 * would be released or acquired at an aliased address below 2^40. The
 * pushes are read through their BOs' CPU mappings and decoded; a Host
 * SEM_ADDR_HI (on any subchannel) with a bit above the class's field is
 * refused. Pushes the CPU cannot read (unmapped, NULL mappings, BOs that
 * are not CPU-visible) are not checked: Host would fault on the first, read
 * zeros (NOPs) from the second, and the third were written by the GPU.
 *
 * Return: 0; -EINVAL with a message naming the push, the dword and the
 * value; an error of nvl_bo_kmap() (-ENOMEM).
 */
int nvl_nv_push_check_sem(struct nvl_gpuvm *g,
			  const struct nvl_exec_push *pushes, uint32_t n,
			  uint32_t host_class);

#endif /* NVL_NV_PUSH_CHECK_H */
