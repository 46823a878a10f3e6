// SPDX-License-Identifier: MIT
/*
 * DOC: the model's suspend and resume (GspFwSRMeta)
 *
 * What the firmware and the booter do around a suspend to RAM:
 *
 *  - GSP-RM, on UNLOADING_GUEST_DRIVER with bInPMTransition and newLevel
 *    3, writes its state into its heap in WPR2: the object database, the
 *    channels in use, the shadow fault-buffer registration and its
 *    carve-out below the non-WPR heap (the instance blocks, its fault
 *    buffer, its split VA spaces' tables, which VRAM loses), then forgets
 *    it all: from here its state
 *    exists only in WPR2;
 *  - booter_unload, given a GspFwSRMeta (magic 0x8a3bb9e6c6c39d93,
 *    revision 2) in SEC2 mailbox0/1, copies WPR2 (gspFwWprStart to
 *    gspFwWprEnd, sizeOfSuspendResumeData bytes) through the meta's radix3
 *    table into system memory and fills the meta's crypto fields: the
 *    hashes of the WPR meta, the (empty) heap free list and the data, and
 *    an HMAC over the whole 256 bytes with its own field zeroed, keyed by
 *    a secret fused into the chip. (535 names those fields hmac,
 *    wprMetaHash, heapFreeListHash and dataHash; 570 calls the same 128
 *    bytes internal[].) Then WPR2 comes down;
 *  - booter_load, given an SR meta instead of a WPR meta (the magic says
 *    which), checks revision and HMAC, reads the saved WPR meta (the first
 *    bytes of WPR2) and checks its hash and layout, copies the data back
 *    into WPR2, checks the data hash, raises WPR2 and starts the GSP. Any
 *    mismatch: mailbox0 = BOOTER_ERR_META, WPR2 stays down;
 *  - GSP-RM, started with srInitArguments (oldLevel 3, bInPMTransition),
 *    restores its state from the heap instead of a cold init; RM arguments
 *    and booter disagreeing is an init error.
 *
 * The model keeps PFIFO's channel RAM across the power loss (a documented
 * simplification: RM would rebuild it from RAMFC); VRAM is lost
 * (nvl_model_power_cycle()).
 */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/alloc.h"
#include "firmware/nvl_fw_manifest.h"
#include "hw/falcon.h"
#include "model/gsp/priv.h"

#define PAGE GSP_PAGE_SIZE
#define RM_SR_MAGIC 0x31565253534d52ull /* "RMSSRV1" */

/* RM's saved state, at the start of its heap */
struct rm_sr_hdr {
	uint64_t magic;
	uint32_t nobjs, nchan;
	uint32_t notify_hclient, notify_hevent;
	uint32_t shadow_on, shadow_entries, shadow_put;
	uint32_t rpc_seq; /* the last RPC sequence: the next must follow */
	uint64_t shadow_queue_pa;
	uint64_t shadow_pte[FW_SHADOW_MAX_PAGES];
	uint64_t carve_base, carve_size;
	/* then objs[nobjs], chan_used[nchan], the carve-out bytes */
};

static uint64_t carve_size(struct nvl_model_gsp *g)
{
	return g->rsvd_start - nvl_fw_rm_carve_base(g);
}

uint32_t nvl_fw_sr_save_rm(struct nvl_model_gsp *g)
{
	struct nvl_model *m = g->m;
	struct rm_sr_hdr h = {
		.magic = RM_SR_MAGIC,
		.nobjs = g->nobjs,
		.nchan = m->profile->num_channels,
		.notify_hclient = g->notify_hclient,
		.notify_hevent = g->notify_hevent,
		.carve_base = nvl_fw_rm_carve_base(g),
		.carve_size = carve_size(g),
		.rpc_seq = g->rpc_seq,
	};
	size_t objs = (size_t)h.nobjs * sizeof(*g->objs);
	size_t total = sizeof(h) + objs + h.nchan + h.carve_size;
	uint8_t *heap = nvl_model_phys_ptr(m, g->heap_offset, total);
	const uint8_t *carve =
		nvl_model_phys_ptr(m, h.carve_base, h.carve_size);

	if (!heap || !carve || total > g->heap_size) {
		nvl_fw_log(g, LOG_RM,
			   "suspend: %zu bytes of state do not fit "
			   "the heap",
			   total);
		return NV_ERR_INSUFFICIENT_RESOURCES;
	}
	pthread_mutex_lock(&g->lock);
	h.shadow_on = g->shadow.on;
	h.shadow_entries = g->shadow.entries;
	h.shadow_queue_pa = g->shadow.queue_pa;
	memcpy(h.shadow_pte, g->shadow.pte, sizeof(h.shadow_pte));
	h.shadow_put = g->shadow_put;
	pthread_mutex_unlock(&g->lock);
	nvl_model_mem_copy(heap, &h, sizeof(h));
	nvl_model_mem_copy(heap + sizeof(h), g->objs, objs);
	nvl_model_mem_copy(heap + sizeof(h) + objs, g->chan_used, h.nchan);
	nvl_model_mem_copy(heap + sizeof(h) + objs + h.nchan, carve,
			   h.carve_size);
	/* the GSP's own memory does not survive: only WPR2 will */
	g->nobjs = 0;
	memset(g->chan_used, 0, h.nchan);
	pthread_mutex_lock(&g->lock);
	memset(&g->shadow, 0, sizeof(g->shadow));
	g->shadow_put = 0;
	g->sr_saved = true;
	pthread_mutex_unlock(&g->lock);
	nvl_fw_log(g, LOG_RM, "suspend: %u objects saved in WPR2", h.nobjs);
	return NV_OK;
}

uint32_t nvl_fw_sr_restore_rm(struct nvl_model_gsp *g)
{
	struct nvl_model *m = g->m;
	const uint8_t *heap =
		nvl_model_phys_ptr(m, g->heap_offset, sizeof(struct rm_sr_hdr));
	struct rm_sr_hdr h;
	size_t objs, total;
	const uint8_t *p;
	uint8_t *carve;

	if (!heap)
		return NV_ERR_INVALID_STATE;
	memcpy(&h, heap, sizeof(h));
	objs = (size_t)h.nobjs * sizeof(*g->objs);
	total = sizeof(h) + objs + h.nchan + h.carve_size;
	if (h.magic != RM_SR_MAGIC || h.nobjs > FW_MAX_OBJECTS ||
	    h.nchan != m->profile->num_channels ||
	    h.carve_base != nvl_fw_rm_carve_base(g) ||
	    h.carve_size != carve_size(g) || total > g->heap_size ||
	    h.shadow_entries > (1u << 20)) {
		nvl_fw_log(g, LOG_INIT, "RM: saved state unreadable");
		return NV_ERR_INVALID_DATA;
	}
	p = nvl_model_phys_ptr(m, g->heap_offset, total);
	carve = nvl_model_phys_ptr(m, h.carve_base, h.carve_size);
	if (!p || !carve)
		return NV_ERR_INVALID_STATE;
	memcpy(g->objs, p + sizeof(h), objs);
	g->nobjs = h.nobjs;
	g->rpc_seq = h.rpc_seq;
	memcpy(g->chan_used, p + sizeof(h) + objs, h.nchan);
	nvl_model_mem_copy(carve, p + sizeof(h) + objs + h.nchan, h.carve_size);
	/* the server-range table sets in use: those of the spaces restored
	 * (the tables themselves are in the carve-out) */
	memset(g->srv_used, 0, sizeof(g->srv_used));
	for (uint32_t i = 0; i < g->nobjs; i++)
		if (g->objs[i].srv_slot >= 0 &&
		    g->objs[i].srv_slot < FW_SRV_SLOTS)
			g->srv_used[g->objs[i].srv_slot] = 1;
	pthread_mutex_lock(&g->lock);
	g->notify_hclient = h.notify_hclient;
	g->notify_hevent = h.notify_hevent;
	g->shadow.on = h.shadow_on;
	g->shadow.entries = h.shadow_entries;
	g->shadow.queue_pa = h.shadow_queue_pa;
	memcpy(g->shadow.pte, h.shadow_pte, sizeof(h.shadow_pte));
	g->shadow_put = h.shadow_put;
	pthread_mutex_unlock(&g->lock);
	nvl_fw_log(g, LOG_INIT, "RM: resumed with %u objects", h.nobjs);
	return NV_OK;
}

/* @len bytes at the pages a radix3 table at @l0_pa describes */
int nvl_fw_radix3_io(struct nvl_model_gsp *g, uint64_t l0_pa, uint8_t *buf,
		     size_t len, bool write)
{
	size_t npages = (len + PAGE - 1) / PAGE, run = 0;
	uint64_t l0, *l1, *l2, run_pa = 0;
	int ret = -EFAULT;

	if (npages > 512 * 512)
		return -EFBIG;
	l1 = nvl_malloc(PAGE);
	l2 = nvl_malloc(PAGE);
	if (!l1 || !l2)
		goto out;
	if (nvl_fw_dma(g, l0_pa, &l0, 8, false) ||
	    nvl_fw_dma(g, l0, l1, PAGE, false))
		goto out;
	for (size_t i = 0; i <= npages; i++) {
		uint64_t pa = 0;

		if (i < npages) {
			if (i % 512 == 0 &&
			    nvl_fw_dma(g, l1[i / 512], l2, PAGE, false))
				goto out;
			pa = l2[i % 512];
			if (run && pa == run_pa + run * PAGE) {
				run++;
				continue;
			}
		}
		if (run) {
			size_t off = (i - run) * PAGE;
			size_t n = NVL_MIN(run * PAGE, len - off);

			if (nvl_fw_dma(g, run_pa, buf + off, n, write))
				goto out;
		}
		run_pa = pa;
		run = 1;
	}
	ret = 0;
out:
	nvl_free(l1);
	nvl_free(l2);
	return ret;
}

static void sha256(const void *p, size_t len, uint8_t out[32])
{
	unsigned n = 32;

	if (!EVP_Digest(p, len, out, &n, EVP_sha256(), NULL))
		memset(out, 0, 32);
}

static void sr_hmac(struct nvl_model_gsp *g, const GspFwSRMeta *in,
		    uint8_t out[32])
{
	GspFwSRMeta m = *in;
	unsigned n = 32;

	memset(m.hmac, 0, sizeof(m.hmac));
	if (!HMAC(EVP_sha256(), g->sr_key, sizeof(g->sr_key), (const void *)&m,
		  sizeof(m), out, &n))
		memset(out, 0, 32);
}

uint32_t nvl_fw_booter_sr_save(struct nvl_model_gsp *g, uint64_t sr_pa)
{
	struct nvl_model *m = g->m;
	size_t size = g->wpr_end - g->wpr_start;
	uint8_t *wpr = nvl_model_phys_ptr(m, g->wpr_start, size);
	GspFwSRMeta sr;

	if (nvl_fw_dma(g, sr_pa, &sr, sizeof(sr), false) ||
	    sr.magic != GSP_FW_SR_META_MAGIC)
		return NVL_HW_BOOTER_OK; /* a plain unload: nothing saved */
	if (sr.revision != GSP_FW_SR_META_REVISION ||
	    sr.sizeOfSuspendResumeData != size || !wpr)
		return NVL_HW_BOOTER_ERR_META;
	if (nvl_fw_radix3_io(g, sr.sysmemAddrOfSuspendResumeData, wpr, size,
			     true))
		return NVL_HW_BOOTER_ERR_DMA;
	sha256(wpr, sizeof(GspFwWprMeta), sr.wprMetaHash);
	memset(sr.heapFreeListHash, 0, sizeof(sr.heapFreeListHash));
	sha256(wpr, size, sr.dataHash);
	sr_hmac(g, &sr, sr.hmac);
	if (nvl_fw_dma(g, sr_pa, &sr, sizeof(sr), true))
		return NVL_HW_BOOTER_ERR_DMA;
	return NVL_HW_BOOTER_OK;
}

uint32_t nvl_fw_booter_sr_restore(struct nvl_model_gsp *g, uint64_t sr_pa)
{
	struct nvl_model *m = g->m;
	char version[sizeof(((struct nvl_fw_manifest *)0)->version) + 1] = {0};
	uint8_t mac[32], hash[32], *page = NULL, *wpr;
	GspFwWprMeta wm;
	GspFwSRMeta sr;
	uint32_t ret = NVL_HW_BOOTER_ERR_META;
	size_t size;

	if (nvl_fw_dma(g, sr_pa, &sr, sizeof(sr), false))
		return NVL_HW_BOOTER_ERR_DMA;
	sr_hmac(g, &sr, mac);
	if (sr.revision != GSP_FW_SR_META_REVISION ||
	    memcmp(mac, sr.hmac, sizeof(mac)) || !sr.sizeOfSuspendResumeData ||
	    sr.sizeOfSuspendResumeData % PAGE ||
	    sr.sizeOfSuspendResumeData > m->vram_size)
		return NVL_HW_BOOTER_ERR_META;
	size = sr.sizeOfSuspendResumeData;
	/* the saved WPR meta says where WPR2 was */
	page = nvl_malloc(PAGE);
	if (!page)
		return NVL_HW_BOOTER_ERR_DMA;
	if (nvl_fw_radix3_io(g, sr.sysmemAddrOfSuspendResumeData, page, PAGE,
			     false)) {
		ret = NVL_HW_BOOTER_ERR_DMA;
		goto out;
	}
	memcpy(&wm, page, sizeof(wm));
	sha256(&wm, sizeof(wm), hash);
	if (memcmp(hash, sr.wprMetaHash, sizeof(hash)) ||
	    wm.magic != GSP_FW_WPR_META_MAGIC || wm.fbSize != m->vram_size ||
	    wm.gspFwWprEnd > wm.fbSize || wm.gspFwWprStart >= wm.gspFwWprEnd ||
	    wm.gspFwWprEnd - wm.gspFwWprStart != size ||
	    wm.gspFwHeapOffset < wm.gspFwWprStart ||
	    wm.gspFwHeapOffset + wm.gspFwHeapSize > wm.gspFwWprEnd ||
	    wm.gspFwOffset < wm.gspFwWprStart ||
	    wm.gspFwOffset + sizeof(struct nvl_fw_manifest) > wm.gspFwWprEnd)
		goto out;
	wpr = nvl_model_phys_ptr(m, wm.gspFwWprStart, size);
	if (!wpr || nvl_fw_radix3_io(g, sr.sysmemAddrOfSuspendResumeData, wpr,
				     size, false)) {
		ret = NVL_HW_BOOTER_ERR_DMA;
		goto out;
	}
	sha256(wpr, size, hash);
	if (memcmp(hash, sr.dataHash, sizeof(hash)))
		goto out;
	{
		const struct nvl_fw_manifest *mf =
			(const void *)(wpr +
				       (wm.gspFwOffset - wm.gspFwWprStart));

		if (mf->magic == NVL_FW_MANIFEST_MAGIC)
			memcpy(version, mf->version, sizeof(version) - 1);
	}
	pthread_mutex_lock(&g->lock);
	g->wpr2_lo = (uint32_t)((wm.gspFwWprStart >> 12) << 4);
	g->wpr2_hi = (uint32_t)(((wm.gspFwWprEnd - 1) >> 12) << 4) | 1;
	g->verified = true;
	g->wpr_start = wm.gspFwWprStart;
	g->wpr_end = wm.gspFwWprEnd;
	g->heap_offset = wm.gspFwHeapOffset;
	g->heap_size = wm.gspFwHeapSize;
	g->rsvd_start = NVL_MIN(wm.nonWprHeapOffset, wm.gspFwWprStart);
	g->wire = nvl_fw_wire_find(version);
	g->sr_restored = true;
	pthread_mutex_unlock(&g->lock);
	ret = NVL_HW_BOOTER_OK;
out:
	nvl_free(page);
	return ret;
}
