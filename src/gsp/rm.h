/* SPDX-License-Identifier: MIT */
/*
 * RM objects through the GSP: GSP_RM_ALLOC, GSP_RM_CONTROL and FREE, with
 * handles the driver allocates. The driver keeps its own object tree, so
 * freeing a parent forgets its children here as the firmware frees them
 * there.
 */
#ifndef NVL_GSP_RM_H
#define NVL_GSP_RM_H

#include <stddef.h>
#include <stdint.h>

struct nvl_gsp;
struct gspabi_version;

/**
 * nvl_gsp_rm_alloc() - allocate an RM object of @hclass under @hparent
 * (0 with NV01_ROOT for a new client).
 * @params, @size: the class's allocation parameters; on success the
 *   firmware's copy (with its outputs) is written back to @params
 * @handle_out: the handle the driver chose
 * Return: 0, -ENOENT (unknown parent), the firmware's NV_STATUS as an
 * errno (the message names it), or an RPC error.
 */
int nvl_gsp_rm_alloc(struct nvl_gsp *gsp, uint32_t hparent, uint32_t hclass,
		     void *params, size_t size, uint32_t *handle_out);

/**
 * nvl_gsp_rm_control() - run control @cmd on @hobject; @params is in/out.
 * Return: 0, -ENOENT, the NV_STATUS as an errno, or an RPC error.
 */
int nvl_gsp_rm_control(struct nvl_gsp *gsp, uint32_t hobject, uint32_t cmd,
		       void *params, size_t size);

/**
 * nvl_gsp_rm_alloc_abi() - nvl_gsp_rm_alloc() with its parameters in a
 * generated neutral struct (gspabi.h).
 * @id: the struct's enum gspabi_struct_id
 * @neutral: the neutral struct; its present is set to every field the
 *   booted version has (unset fields pack as zero), it is packed in that
 *   version's layout and, on success, unpacked from the firmware's copy
 * Return: as nvl_gsp_rm_alloc(), or -EPROTO when the version lacks the
 * struct or it does not pack (nothing sent).
 */
int nvl_gsp_rm_alloc_abi(struct nvl_gsp *gsp, uint32_t hparent, uint32_t hclass,
			 unsigned id, void *neutral, uint32_t *handle_out);

/**
 * nvl_gsp_rm_control_abi() - nvl_gsp_rm_control() with its parameters in
 * the generated neutral struct @id at @neutral, as nvl_gsp_rm_alloc_abi().
 * Return: as nvl_gsp_rm_control(), or -EPROTO (nothing sent).
 */
int nvl_gsp_rm_control_abi(struct nvl_gsp *gsp, uint32_t hobject, uint32_t cmd,
			   unsigned id, void *neutral);

/**
 * nvl_gsp_abi() - the generated layer of the firmware version @gsp booted
 * (struct gspabi_version), for structs the driver unpacks itself.
 */
const struct gspabi_version *nvl_gsp_abi(struct nvl_gsp *gsp);

/**
 * nvl_gsp_rm_control_hdr() - bytes of the firmware version's GSP_RM_CONTROL
 * header (the parameters follow it); 0 when the version has none.
 */
size_t nvl_gsp_rm_control_hdr(struct nvl_gsp *gsp);

/**
 * nvl_gsp_rm_control_frame() - write a GSP_RM_CONTROL message for @cmd on
 * @hobject of @client into @msg (nvl_gsp_rm_control_hdr() + @size bytes)
 * through the version's layer, parameters after the header (@params
 * NULL: they are there already).
 * Return: 0 or -EPROTO (the version cannot frame it; @msg unspecified).
 */
int nvl_gsp_rm_control_frame(struct nvl_gsp *gsp, uint32_t client,
			     uint32_t hobject, uint32_t cmd, const void *params,
			     size_t size, void *msg);

/**
 * nvl_gsp_rm_control_parse() - check the reply @msg (@got bytes) to control
 * @cmd sent with @size parameter bytes, and copy its parameters to
 * @params (NULL: leave them in @msg). Return: 0, -EPROTO (malformed
 * reply), or the firmware's NV_STATUS as an errno; @params is unchanged
 * unless 0.
 */
int nvl_gsp_rm_control_parse(struct nvl_gsp *gsp, uint32_t cmd, const void *msg,
			     size_t got, void *params, size_t size);

/**
 * nvl_gsp_rm_free() - free @handle and everything under it.
 * Return: 0, -ENOENT, or an error of the FREE RPC (the driver's objects
 * are forgotten either way: the firmware frees what it still has).
 */
int nvl_gsp_rm_free(struct nvl_gsp *gsp, uint32_t handle);

/** nvl_gsp_rm_count() - objects the driver tracks. */
unsigned nvl_gsp_rm_count(struct nvl_gsp *gsp);

/** nvl_gsp_rm_client_of() - the client (root) handle of @handle, or 0. */
uint32_t nvl_gsp_rm_client_of(struct nvl_gsp *gsp, uint32_t handle);

/**
 * nvl_gsp_rm_skip_handles() - tests only: the next object handle is as if
 * @n more objects had been made (to reach the handles' wrap without a
 * million RPCs).
 */
void nvl_gsp_rm_skip_handles(struct nvl_gsp *gsp, uint32_t n);

#endif /* NVL_GSP_RM_H */
