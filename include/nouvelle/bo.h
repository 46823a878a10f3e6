/* SPDX-License-Identifier: MIT */
/*
 * nouvelle buffer objects: memory a client allocates and the GPU uses,
 * named by per-client handles (from 1), placed in VRAM, GTT (system pages
 * the GPU reaches) or plain system memory and moved between them by the
 * memory manager. Sharing between clients is explicit: export gives a token,
 * import in another client gives its own handle to the same object.
 * Every nvl_bo_*() call returns -EINVAL, with nothing changed, for a NULL
 * client or output pointer.
 */
#ifndef NOUVELLE_BO_H
#define NOUVELLE_BO_H

#include <nouvelle/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Domains a BO may live in (bit mask). */
enum nvl_bo_domain {
	/** @NVL_BO_DOMAIN_VRAM: video memory */
	NVL_BO_DOMAIN_VRAM = 1u << 0,
	/** @NVL_BO_DOMAIN_GTT: system pages mapped for the GPU */
	NVL_BO_DOMAIN_GTT = 1u << 1,
	/** @NVL_BO_DOMAIN_SYSTEM: system pages, not GPU-mapped */
	NVL_BO_DOMAIN_SYSTEM = 1u << 2,
};

#define NVL_BO_DOMAIN_ALL                                                      \
	(NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT | NVL_BO_DOMAIN_SYSTEM)

/** Creation flags. */
enum nvl_bo_flags {
	/** @NVL_BO_CONTIGUOUS: physically contiguous in VRAM */
	NVL_BO_CONTIGUOUS = 1u << 0,
	/**
	 * @NVL_BO_CPU_VISIBLE: may be mapped by the CPU (VRAM placement stays
	 * in the CPU-visible window and contiguous); GTT/SYSTEM-only BOs are
	 * always CPU-visible
	 */
	NVL_BO_CPU_VISIBLE = 1u << 1,
	/**
	 * @NVL_BO_ZEROED: reads zero until written. Memory another client
	 * used is zeroed whatever the flags say.
	 */
	NVL_BO_ZEROED = 1u << 2,
	/** @NVL_BO_NO_SHARE: cannot be exported */
	NVL_BO_NO_SHARE = 1u << 3,
};

#define NVL_BO_FLAGS_ALL                                                       \
	(NVL_BO_CONTIGUOUS | NVL_BO_CPU_VISIBLE | NVL_BO_ZEROED |              \
	 NVL_BO_NO_SHARE)

/** Largest BO: 1 TiB. */
#define NVL_BO_MAX_SIZE (1ull << 40)

/** struct nvl_bo_info - what nvl_bo_query() reports. */
struct nvl_bo_info {
	uint64_t size_B;
	uint32_t domains;
	uint32_t preferred;
	uint32_t flags;
	/** @current: NVL_BO_DOMAIN_* it sits in now, 0 when swapped out */
	uint32_t current;
	/** @pinned: pinned or mapped */
	bool pinned;
};

/**
 * nvl_bo_create() - create a BO and a handle for it.
 * @client: the client
 * @size_B: bytes (rounded up to 4 KiB), 1 .. NVL_BO_MAX_SIZE
 * @domains: allowed NVL_BO_DOMAIN_* (non-empty)
 * @preferred: one of @domains, or 0 for the first allowed
 * @flags: NVL_BO_*
 * @handle_out: the handle
 *
 * Return: 0, -EINVAL (size, domains, flags), -E2BIG, -ENOMEM, -EAGAIN (the
 * device is suspended and the BO would go to VRAM: nvl_device_suspend()).
 */
NVL_API int nvl_bo_create(struct nvl_client *client, uint64_t size_B,
			  uint32_t domains, uint32_t preferred, uint32_t flags,
			  uint32_t *handle_out);

/**
 * nvl_bo_close() - close a handle (the BO lives while others use it).
 * @client: the client
 * @handle: the handle
 * Return: 0, -EINVAL for an unknown handle.
 */
NVL_API int nvl_bo_close(struct nvl_client *client, uint32_t handle);

/**
 * nvl_bo_map() - CPU pointer to the BO; it stays where it is until
 * nvl_bo_unmap(). Waits for pending moves and clears. The mapping holds
 * the BO, even once its handle is closed; destroying the client ends
 * every mapping it still has.
 * @client: the client
 * @handle: the handle
 * @ptr_out: the pointer
 * Return: 0, -ENOENT (handle), -EPERM (not CPU-visible), -ENOMEM, -EIO
 * (reading a swapped-out BO back failed), -EAGAIN (a BO never placed yet
 * would go to VRAM while the device is suspended).
 */
NVL_API int nvl_bo_map(struct nvl_client *client, uint32_t handle,
		       void **ptr_out);

/**
 * nvl_bo_unmap() - end one nvl_bo_map().
 * @client: the client
 * @handle: the handle
 * Return: 0, -ENOENT, -EINVAL (not mapped).
 */
NVL_API int nvl_bo_unmap(struct nvl_client *client, uint32_t handle);

/**
 * nvl_bo_use() - make the BO resident in its preferred domain if it can be
 * (evicting others), as a submission does; else in another allowed domain.
 * A BO that is mapped (or pinned) stays where it is.
 * @client: the client
 * @handle: the handle
 * Return: 0, -ENOENT, -ENOMEM, -EIO (reading a swapped-out BO back failed),
 * -EAGAIN (it prefers VRAM and the device is suspended: it stays where it
 * is).
 */
NVL_API int nvl_bo_use(struct nvl_client *client, uint32_t handle);

/**
 * nvl_bo_wait() - wait until the BO is idle (every fence signalled).
 * @client: the client
 * @handle: the handle
 * @timeout_ns: relative; 0 polls
 * Return: 0, -ENOENT, -ETIME, -EINVAL (negative timeout).
 */
NVL_API int nvl_bo_wait(struct nvl_client *client, uint32_t handle,
			int64_t timeout_ns);

/**
 * nvl_bo_export() - a token another client imports the BO with; valid while
 * the BO lives.
 * @client: the client
 * @handle: the handle
 * @token_out: the token
 * Return: 0, -ENOENT, -EPERM (NO_SHARE or VM-private), -ENOMEM, -ENOSPC
 * (2^24 - 1 of the device's BOs exported already).
 */
NVL_API int nvl_bo_export(struct nvl_client *client, uint32_t handle,
			  uint64_t *token_out);

/**
 * nvl_bo_import() - a handle in @client for an exported BO (the same object;
 * if @client already has a handle for it, that handle).
 * @client: the importing client
 * @token: from nvl_bo_export()
 * @handle_out: the new handle
 * Return: 0, -ENOENT (stale or unknown token), -EXDEV (a token another
 * device's client exported: BOs are not shared across devices), -ENOMEM.
 */
NVL_API int nvl_bo_import(struct nvl_client *client, uint64_t token,
			  uint32_t *handle_out);

/**
 * nvl_bo_query() - size, domains and placement of a BO.
 * @client: the client
 * @handle: the handle
 * @info_out: output
 * Return: 0, -ENOENT.
 */
NVL_API int nvl_bo_query(struct nvl_client *client, uint32_t handle,
			 struct nvl_bo_info *info_out);

/** Advice for nvl_bo_madvise(). */
enum nvl_bo_madv {
	/** @NVL_BO_MADV_WILLNEED: content needed (default) */
	NVL_BO_MADV_WILLNEED = 0,
	/** @NVL_BO_MADV_DONTNEED: the shrinker may drop the content */
	NVL_BO_MADV_DONTNEED = 1,
};

/**
 * nvl_bo_madvise() - say whether the content may be dropped under memory
 * pressure. A DONTNEED BO that is not exported, mapped or pinned may be
 * purged when idle (by eviction or the shrinker); it stays valid: it reads
 * zero when next used (mapped, used, or through a VM mapping, which is
 * rewritten before the next exec runs), and @retained_out says false at
 * the next call, until WILLNEED.
 * @client: the client
 * @handle: the handle
 * @advice: enum nvl_bo_madv
 * @retained_out: false when the content was already dropped
 * Return: 0, -ENOENT, -EINVAL.
 */
NVL_API int nvl_bo_madvise(struct nvl_client *client, uint32_t handle,
			   uint32_t advice, bool *retained_out);

/**
 * nvl_client_fdinfo() - the client's usage as DRM fdinfo text:
 * drm-driver, drm-client-id; on a device client drm-pdev,
 * drm-client-name, drm-engine-copy (busy ns), drm-engine-capacity-copy,
 * drm-maxfreq-copy; then drm-total-vram, drm-resident-gtt,
 * drm-active-cpu, ... in KiB.
 * @client: the client
 * @buf: output
 * @len: its size
 * Return: characters the full text needs (as snprintf), or -errno.
 */
NVL_API int nvl_client_fdinfo(struct nvl_client *client, char *buf, size_t len);

/**
 * nvl_client_set_name() - the client's drm-client-name.
 * @client: the client
 * @name: 1..63 printable bytes without spaces
 * Return: 0 or -EINVAL.
 */
NVL_API int nvl_client_set_name(struct nvl_client *client, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_BO_H */
