// SPDX-License-Identifier: MIT
/*
 * DOC: the model firmware's RM
 *
 * Its own object database, as GSP-RM keeps one: clients (NV01_ROOT), a
 * device (NV01_DEVICE_0) under a client, a subdevice (NV20_SUBDEVICE_0)
 * and VA spaces (FERMI_VASPACE_A) under the device, channels under the
 * device (each gets a free channel id of the chip), copy-engine objects
 * under a channel of a copy runlist, the compute object under a channel
 * of the compute runlist, event objects under a subdevice. Allocation checks the
 * parent's class; freeing an object frees everything under it. Controls
 * answer from the chip profile. A VA space and the root a client binds to
 * it are checked as NVIDIA's RM checks them (vaspace_params(),
 * set_page_directory()); the root taken back re-points the space's
 * channels (unset_page_directory()); a split space takes the client's
 * levels for RM's range and RM maps its page below them
 * (copy_server_pdes()).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "base/time.h"
#include "hw/fault.h"
#include "hw/compute.h"
#include "hw/host.h"
#include "hw/mmu.h"
#include "hw/mmu_v2.h"
#include "hw/mmu_v3.h"
#include "hw/regs.h"
#include "model/fifo.h"
#include "model/gsp/perf.h"
#include "model/gsp/priv.h"

#define INTERNAL_CLIENT 0xc1e00000u
#define INTERNAL_DEVICE 0xde1e0000u
#define INTERNAL_SUBDEVICE 0x5d1e0000u

/* the fault buffer's bytes, rounded to a page: the server-range tables
 * follow it */
#define FW_FAULT_BUF_SPAN                                                      \
	((FW_FAULT_BUF_ENTRIES * NVL_HW_FAULT_ENTRY_SIZE + 4095ull) & ~4095ull)
#define FW_SRV_FAULT_PAD FW_FAULT_BUF_SPAN

/* the base of RM's carve-out below what the booter kept: one instance
 * block per channel id, RM's non-replayable fault buffer, then its tables
 * for split VA spaces' server-reserved ranges */
uint64_t nvl_fw_rm_carve_base(struct nvl_model_gsp *g)
{
	uint64_t size =
		(uint64_t)g->m->profile->num_channels * NVL_HW_INST_SIZE +
		FW_FAULT_BUF_SPAN + FW_SRV_SLOTS * FW_SRV_SLOT_SIZE;

	size = (size + FW_RM_CARVEOUT_ALIGN - 1) & ~(FW_RM_CARVEOUT_ALIGN - 1);
	return g->rsvd_start > size ? g->rsvd_start - size : 0;
}

uint64_t nvl_fw_rm_fault_buf_pa(struct nvl_model_gsp *g)
{
	return nvl_fw_rm_carve_base(g) +
	       (uint64_t)g->m->profile->num_channels * NVL_HW_INST_SIZE;
}

/* RM's table set @i for a server-reserved range: its PD0, small PT, page */
static uint64_t srv_slot_pa(struct nvl_model_gsp *g, int i)
{
	return nvl_fw_rm_fault_buf_pa(g) + FW_SRV_FAULT_PAD +
	       (uint64_t)i * FW_SRV_SLOT_SIZE;
}

static void reg_wr(struct nvl_model_gsp *g, uint32_t addr, uint32_t v)
{
	g->m->hw.ops->wr32(&g->m->hw, addr, v);
}

static uint32_t reg_rd(struct nvl_model_gsp *g, uint32_t addr)
{
	return g->m->hw.ops->rd32(&g->m->hw, addr);
}

/* copy @n bytes between @buf and physical @pa (nothing if @pa is not memory) */
static void phys_copy(struct nvl_model_gsp *g, uint64_t pa, void *buf, size_t n,
		      bool write)
{
	uint8_t *p = nvl_model_phys_ptr(g->m, pa, n);

	if (!p)
		return;
	if (write)
		nvl_model_mem_copy(p, buf, n);
	else
		nvl_model_mem_copy(buf, p, n);
}

static void inst_wr(struct nvl_model_gsp *g, uint64_t pa, uint32_t v)
{
	phys_copy(g, pa, &v, 4, true);
}

static uint32_t inst_rd(struct nvl_model_gsp *g, uint64_t pa)
{
	uint32_t v = 0;

	phys_copy(g, pa, &v, 4, false);
	return v;
}

static void ent_wr(struct nvl_model_gsp *g, uint64_t pa, uint64_t v)
{
	phys_copy(g, pa, &v, 8, true);
}

static uint64_t ent_rd(struct nvl_model_gsp *g, uint64_t pa)
{
	uint64_t v = 0;

	phys_copy(g, pa, &v, 8, false);
	return v;
}

/* disable a channel and wait (1 s at most) until it is off its engine */
static void chan_stop(struct nvl_model_gsp *g, uint32_t chid)
{
	int64_t dl = nvl_time_ns() + NVL_NSEC_PER_SEC;

	reg_wr(g, NVL_HW_CHRAM_CTRL(chid), NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	while ((reg_rd(g, NVL_HW_CHRAM_CTRL(chid)) & NVL_HW_CHRAM_CTRL_BUSY) &&
	       nvl_time_ns() < dl) {
		struct timespec ts = {0, 20000};

		nanosleep(&ts, NULL);
	}
}

/* take a channel off its runlist, as RM does on free */
static void chan_unbind(struct nvl_model_gsp *g, uint32_t chid)
{
	chan_stop(g, chid);
	reg_wr(g, NVL_HW_CHRAM_INST(chid), 0);
}

/*
 * RM's channels of a VA space whose root the client took back
 * (NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY: dma.c
 * deviceCtrlCmdDmaUnsetPageDirectory_IMPL() has RM update the instance
 * blocks of every channel using the space, gvaspaceUnregisterAllChanGrps()):
 * the channel is taken off its engine, its instance block's page
 * directory marked unbound (PAGE_DIR_BASE target INVALID, address 0) and
 * the channel enabled again, so that Host loads the instance block anew
 * when it next runs and finds no address space (CHERR_INSTANCE, RM's
 * recovery) instead of walking a root the client may have freed. A
 * channel stopped with an error keeps its error: only its page directory
 * changes.
 */
static void chan_revoke_pdb(struct nvl_model_gsp *g, uint32_t chid)
{
	uint64_t inst =
		nvl_fw_rm_carve_base(g) + (uint64_t)chid * NVL_HW_INST_SIZE;
	uint32_t ctrl = reg_rd(g, NVL_HW_CHRAM_CTRL(chid));
	bool run = (ctrl & NVL_HW_CHRAM_CTRL_ENABLE) &&
		   !(ctrl & NVL_HW_CHRAM_CTRL_ERROR);
	uint32_t pdb;

	if (run)
		chan_stop(g, chid);
	pdb = inst_rd(g, inst + NVL_HW_RAMIN_PDB);
	pdb &= ~(NVL_HW_RAMIN_PDB_TARGET_MASK | NVL_HW_RAMIN_PDB_LO_MASK);
	inst_wr(g, inst + NVL_HW_RAMIN_PDB, pdb | NVL_HW_RAM_TARGET_INVALID);
	inst_wr(g, inst + NVL_HW_RAMIN_PDB_HI, 0);
	if (run)
		reg_wr(g, NVL_HW_CHRAM_CTRL(chid),
		       NVL_HW_CHRAM_CTRL_ENABLE_SET);
}

/*
 * What RM does for a new channel: write its instance block (RAMFC with
 * USERD and the GPFIFO, the PDB of its VA space) in RM's carve-out, bind
 * it in channel RAM to the engine's runlist and enable it.
 */
static void chan_setup(struct nvl_model_gsp *g, uint32_t chid,
		       const NV_CHANNEL_ALLOC_PARAMS *cp, uint64_t pdb,
		       bool replay, uint64_t *inst_out)
{
	uint64_t inst =
		nvl_fw_rm_carve_base(g) + (uint64_t)chid * NVL_HW_INST_SIZE;
	uint8_t *p = nvl_model_phys_ptr(g->m, inst, NVL_HW_INST_SIZE);
	unsigned order = 0;

	while ((1u << order) < cp->gpFifoEntries)
		order++;
	if (p)
		memset(p, 0, NVL_HW_INST_SIZE);
	inst_wr(g, inst + NVL_HW_RAMFC_USERD,
		(uint32_t)cp->userdOffset | NVL_HW_RAM_TARGET_VID);
	inst_wr(g, inst + NVL_HW_RAMFC_USERD_HI,
		(uint32_t)(cp->userdOffset >> 32));
	inst_wr(g, inst + NVL_HW_RAMFC_GP_BASE, (uint32_t)cp->gpFifoOffset);
	inst_wr(g, inst + NVL_HW_RAMFC_GP_BASE_HI,
		((uint32_t)(cp->gpFifoOffset >> 32) & 0xff) |
			order << NVL_HW_RAMFC_GP_BASE_HI_LIMIT2_SHIFT);
	inst_wr(g, inst + NVL_HW_RAMFC_CONFIG,
		(cp->flags & NVOS04_FLAGS_PRIVILEGED_CHANNEL)
			? NVL_HW_RAMFC_CONFIG_PRIV
			: 0);
	inst_wr(g, inst + NVL_HW_RAMIN_PDB,
		((uint32_t)pdb & NVL_HW_RAMIN_PDB_LO_MASK) |
			NVL_HW_RAM_TARGET_VID | NVL_HW_RAMIN_PDB_USE_VER2 |
			NVL_HW_RAMIN_PDB_BIG_PAGE_64K |
			(replay ? NVL_HW_RAMIN_PDB_FAULT_REPLAY_TEX |
					  NVL_HW_RAMIN_PDB_FAULT_REPLAY_GCC
				: 0));
	inst_wr(g, inst + NVL_HW_RAMIN_PDB_HI, (uint32_t)(pdb >> 32));
	reg_wr(g, NVL_HW_CHRAM_CTRL(chid), NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	reg_wr(g, NVL_HW_CHRAM_RUNLIST(chid), cp->engineType);
	reg_wr(g, NVL_HW_CHRAM_INST(chid),
	       (uint32_t)(inst >> 12) |
		       NVL_HW_RAM_TARGET_VID << NVL_HW_CHRAM_INST_TARGET_SHIFT |
		       NVL_HW_CHRAM_INST_BIND);
	reg_wr(g, NVL_HW_CHRAM_CTRL(chid), NVL_HW_CHRAM_CTRL_ENABLE_SET);
	*inst_out = inst;
}

int nvl_fw_rm_init(struct nvl_model_gsp *g)
{
	g->objs = nvl_calloc(FW_MAX_OBJECTS, sizeof(*g->objs));
	g->chan_used = nvl_zalloc(g->m->profile->num_channels);
	if (!g->objs || !g->chan_used || nvl_fw_perf_init(g)) {
		nvl_fw_perf_fini(g);
		nvl_free(g->objs);
		nvl_free(g->chan_used);
		return -ENOMEM;
	}
	return 0;
}

void nvl_fw_rm_fini(struct nvl_model_gsp *g)
{
	nvl_fw_perf_fini(g);
	nvl_free(g->objs);
	nvl_free(g->chan_used);
	g->objs = NULL;
	g->chan_used = NULL;
}

static struct fw_obj *find(struct nvl_model_gsp *g, uint32_t client, uint32_t h)
{
	for (unsigned i = 0; i < g->nobjs; i++)
		if (g->objs[i].client == client && g->objs[i].handle == h)
			return &g->objs[i];
	return NULL;
}

static void add(struct nvl_model_gsp *g, uint32_t client, uint32_t h,
		uint32_t parent, uint32_t hclass, uint32_t chid)
{
	g->objs[g->nobjs++] = (struct fw_obj){.client = client,
					      .handle = h,
					      .parent = parent,
					      .hclass = hclass,
					      .chid = chid,
					      .srv_slot = -1};
}

static void srv_release(struct nvl_model_gsp *g, struct fw_obj *vas);

/* free @h and its subtree */
static void free_tree(struct nvl_model_gsp *g, uint32_t client, uint32_t h)
{
	for (unsigned i = 0; i < g->nobjs;) {
		struct fw_obj *o = &g->objs[i];

		if (o->client == client && o->parent == h && o->handle != h) {
			free_tree(g, client, o->handle);
			i = 0;
			continue;
		}
		i++;
	}
	for (unsigned i = 0; i < g->nobjs; i++) {
		struct fw_obj *o = &g->objs[i];

		if (o->client == client && o->handle == h) {
			if (o->hclass == FERMI_VASPACE_A)
				srv_release(g, o);
			if (o->chid != ~0u &&
			    o->chid < g->m->profile->num_channels) {
				chan_unbind(g, o->chid);
				g->chan_used[o->chid] = 0;
			}
			g->objs[i] = g->objs[--g->nobjs];
			return;
		}
	}
}

void nvl_fw_rm_reset(struct nvl_model_gsp *g)
{
	g->nobjs = 0;
	memset(g->chan_used, 0, g->m->profile->num_channels);
	memset(g->srv_used, 0, sizeof(g->srv_used));
	nvl_fw_perf_reset(g);
	nvl_fw_rc_reset(g);
	/* RM's own internal client, as the static info reports it */
	add(g, INTERNAL_CLIENT, INTERNAL_CLIENT, 0, NV01_ROOT, ~0u);
	add(g, INTERNAL_CLIENT, INTERNAL_DEVICE, INTERNAL_CLIENT, NV01_DEVICE_0,
	    ~0u);
	add(g, INTERNAL_CLIENT, INTERNAL_SUBDEVICE, INTERNAL_DEVICE,
	    NV20_SUBDEVICE_0, ~0u);
}

static bool is_channel_class(uint32_t c)
{
	return c == TURING_CHANNEL_GPFIFO_A || c == AMPERE_CHANNEL_GPFIFO_A ||
	       c == HOPPER_CHANNEL_GPFIFO_A;
}

static bool is_ce_class(uint32_t c)
{
	return c == TURING_DMA_COPY_A || c == AMPERE_DMA_COPY_A ||
	       c == AMPERE_DMA_COPY_B || c == HOPPER_DMA_COPY_A;
}

static bool is_compute_class(uint32_t c)
{
	return c == NVL_HW_COMPUTE_CLASS_TURING ||
	       c == NVL_HW_COMPUTE_CLASS_AMPERE_A ||
	       c == NVL_HW_COMPUTE_CLASS_AMPERE_B ||
	       c == NVL_HW_COMPUTE_CLASS_ADA ||
	       c == NVL_HW_COMPUTE_CLASS_HOPPER;
}

/* the runlist a channel object was bound to */
static uint32_t chan_runlist(struct nvl_model_gsp *g, const struct fw_obj *o)
{
	return reg_rd(g, NVL_HW_CHRAM_RUNLIST(o->chid));
}

/* the root level of the chip's page-table format (hw/mmu.h) */
static struct nvl_hw_mmu_geom root_geom(const struct nvl_model_gsp *g)
{
	return g->m->profile->mmu_version == 3
		       ? (struct nvl_hw_mmu_geom)NVL_HW_MMU_GEOM_PD4
		       : (struct nvl_hw_mmu_geom)NVL_HW_MMU_GEOM_PD3_V2;
}

/* the format's last VA (RM's vaLimitMax): what the root's entries span */
static uint64_t va_limit_max(const struct nvl_model_gsp *g)
{
	const struct nvl_hw_mmu_geom r = root_geom(g);

	return (1ull << (r.shift + r.bits)) - 1;
}

/*
 * A new VA space's parameters, checked as RM checks them
 * (open-gpu-kernel-modules vaspace_api.c translateAllocFlagsToVASpaceFlags()
 * and vaspaceapiConstruct(), gpu_vaspace.c _gvaspaceGpuStateConstruct());
 * @o gets what RM keeps of them. Nothing changes on a refusal.
 */
static uint32_t vaspace_params(const struct nvl_model_gsp *g,
			       const NV_VASPACE_ALLOCATION_PARAMETERS *vp,
			       struct fw_obj *o)
{
	const uint32_t f = vp->flags;
	const uint64_t max = va_limit_max(g);

	/* UVM's mirroring is not for a space RM does not own */
	if ((f & NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED) &&
	    (f & NV_VASPACE_ALLOCATION_FLAGS_IS_MIRRORED))
		return NV_ERR_INVALID_ARGUMENT;
	/* RM's bug 1766112: a fault-capable space must be externally owned
	 * (its owner services the faults), else its channels hang */
	if ((f & NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING) &&
	    !(f & NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED))
		return NV_ERR_INVALID_ARGUMENT;
	/* the other indexes name RM's own spaces (BAR1, global, the
	 * device's, FLA): the model's RM makes new ones only */
	if (vp->index != NV_VASPACE_ALLOCATION_INDEX_GPU_NEW)
		return NV_ERR_NOT_SUPPORTED;
	if (vp->bigPageSize &&
	    vp->bigPageSize != NV_VASPACE_BIG_PAGE_SIZE_64K &&
	    vp->bigPageSize != NV_VASPACE_BIG_PAGE_SIZE_128K)
		return NV_ERR_INVALID_ARGUMENT;
	/* the model's formats (v2, v3) have 64 KiB big pages only */
	if (vp->bigPageSize == NV_VASPACE_BIG_PAGE_SIZE_128K)
		return NV_ERR_NOT_SUPPORTED;
	/* vaSize - 1 is the space's limit: within the format's */
	if (vp->vaSize && vp->vaSize - 1 > max)
		return NV_ERR_INVALID_ARGUMENT;
	o->faulting = f & NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING;
	o->external = f & NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED;
	o->shared = f & NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT;
	o->mirrored = f & NV_VASPACE_ALLOCATION_FLAGS_IS_MIRRORED;
	o->va_limit = vp->vaSize ? vp->vaSize - 1 : max;
	return NV_OK;
}

/*
 * A client's root page directory for a VA space, checked in the order of
 * RM's gvaspaceExternalRootDirCommit() (gpu_vaspace.c): an externally
 * owned space takes one (NV_ERR_INVALID_STATE after); the aperture; an
 * IS_MIRRORED space takes none (NV_ERR_NOT_SUPPORTED, whatever its other
 * flags); the VA limit, the last VA of root entry numEntries - 1 (a 32-bit
 * index: numEntries 0 is the last one there is), at least the space's
 * limit and at most the format's (NV_ERR_INVALID_ARGUMENT); then only a
 * SHARED_MANAGEMENT or IS_EXTERNALLY_OWNED space takes a client's root
 * (NV_ERR_NOT_SUPPORTED: RM manages the other roots itself); a space
 * that took the client's levels by COPY_SERVER_RESERVED_PDES has its
 * root in them already (NV_ERR_INVALID_STATE, the model's).
 */
static uint32_t
set_page_directory(struct nvl_model_gsp *g, struct fw_obj *vas,
		   const NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS *pd)
{
	const struct nvl_hw_mmu_geom r = root_geom(g);
	const uint64_t n = (uint64_t)(uint32_t)(pd->numEntries - 1) + 1;

	if ((vas->external && vas->bound) || vas->copied)
		return NV_ERR_INVALID_STATE;
	switch (pd->flags & 3) {
	case NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_VIDMEM:
		break;
	case NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_SYSMEM_COH:
	case NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_FLAGS_APERTURE_SYSMEM_NONCOH:
		/* the model's: its MMU walks page tables in VRAM only */
		return NV_ERR_NOT_SUPPORTED;
	default:
		return NV_ERR_INVALID_ARGUMENT;
	}
	/* a mirrored space's root is RM's (right after the aperture) */
	if (vas->mirrored)
		return NV_ERR_NOT_SUPPORTED;
	if (n > (va_limit_max(g) >> r.shift) + 1 ||
	    (n << r.shift) - 1 < vas->va_limit)
		return NV_ERR_INVALID_ARGUMENT;
	if (!vas->shared && !vas->external)
		return NV_ERR_NOT_SUPPORTED;
	/* the model's: a root in the FB RM gave the driver */
	if ((pd->physAddress & 0xfff) ||
	    pd->physAddress >= nvl_fw_rm_carve_base(g))
		return NV_ERR_INVALID_ARGUMENT;
	vas->pdb = pd->physAddress;
	vas->bound = true;
	return NV_OK;
}

/*
 * The client's root taken back, in the order of RM's
 * gvaspaceExternalRootDirRevoke() (gpu_vaspace.c): an externally owned
 * space forgets its root, bound or not (NV_OK); a mirrored one has none
 * to give back (NV_ERR_NOT_SUPPORTED); any other needs a root committed
 * over RM's (NV_ERR_INVALID_STATE) and goes back to RM's own, which the
 * model does not have: it is left without one. Then RM updates the
 * instance blocks of the space's channels (chan_revoke_pdb()): none of
 * them walks the revoked root again.
 */
static uint32_t unset_page_directory(struct nvl_model_gsp *g,
				     struct fw_obj *vas)
{
	if (!vas->external) {
		if (vas->mirrored)
			return NV_ERR_NOT_SUPPORTED;
		if (!vas->bound)
			return NV_ERR_INVALID_STATE;
	}
	vas->pdb = 0;
	vas->bound = false;
	for (unsigned i = 0; i < g->nobjs; i++) {
		const struct fw_obj *o = &g->objs[i];

		if (o->client == vas->client && o->vas == vas->handle &&
		    is_channel_class(o->hclass) &&
		    o->chid < g->m->profile->num_channels)
			chan_revoke_pdb(g, o->chid);
	}
	return NV_OK;
}

/* the model's RM writes its own entries in the format's encodings
 * (mmu_v2.h, mmu_v3.h): a directory entry (or a dual entry's small
 * half), a 4 KiB PTE, both in video memory */
static uint64_t enc_pde(unsigned int ver, uint64_t pa)
{
	if (ver == 3)
		return (pa & NVL_HW_MMU_V3_PDE_ADDR_MASK) |
		       (uint64_t)NVL_HW_MMU_PDE_APERTURE_VIDMEM
			       << NVL_HW_MMU_V3_PDE_APERTURE_SHIFT;
	return (pa >> NVL_HW_MMU_V2_PDE_ADDR_PHYS_SHIFT)
		       << NVL_HW_MMU_V2_PDE_ADDR_SHIFT |
	       (uint64_t)NVL_HW_MMU_PDE_APERTURE_VIDMEM
		       << NVL_HW_MMU_V2_PDE_APERTURE_SHIFT;
}

static uint64_t enc_pte(unsigned int ver, uint64_t pa)
{
	if (ver == 3)
		return NVL_HW_MMU_V3_PTE_VALID |
		       (pa & NVL_HW_MMU_V3_PTE_ADDR_MASK) |
		       (uint64_t)NVL_HW_MMU_PTE_APERTURE_VIDMEM
			       << NVL_HW_MMU_V3_PTE_APERTURE_SHIFT;
	return NVL_HW_MMU_V2_PTE_VALID |
	       (pa >> NVL_HW_MMU_V2_PTE_ADDR_PHYS_SHIFT)
		       << NVL_HW_MMU_V2_PTE_ADDR_SHIFT |
	       (uint64_t)NVL_HW_MMU_PTE_APERTURE_VIDMEM
		       << NVL_HW_MMU_V2_PTE_APERTURE_SHIFT;
}

/* where, in the client's last copied level (the PD1 page), the entry for
 * the start of the server-reserved range is */
static uint64_t srv_pd1_entry(const struct fw_obj *vas)
{
	const struct nvl_hw_mmu_geom pd1 = NVL_HW_MMU_GEOM_PD1;

	return vas->srv_pd +
	       (uint64_t)nvl_hw_mmu_index(
		       pd1, SPLIT_VAS_SERVER_RM_MANAGED_VA_START) *
		       pd1.entry_size;
}

/*
 * What RM does with the levels it got: its walker now uses the client's
 * pages for them, and RM's own allocations in the server-reserved range
 * get their tables below the client's PD1 page. The model's RM maps one
 * page of its own there, at the range's first VA: its PD0 and small page
 * table in its carve-out, the PD1 entry written into the client's page
 * (RM writes the entries of the range it owns). The page holds the VA
 * space's handle. A stand-in for what RM really keeps there (context
 * buffers and the like, not modelled).
 */
static uint32_t srv_adopt(struct nvl_model_gsp *g, struct fw_obj *vas)
{
	const unsigned int ver = g->m->profile->mmu_version;
	const uint64_t va = SPLIT_VAS_SERVER_RM_MANAGED_VA_START;
	const struct nvl_hw_mmu_geom pd0 = NVL_HW_MMU_GEOM_PD0;
	const struct nvl_hw_mmu_geom pt = NVL_HW_MMU_GEOM_PT_SMALL;
	uint64_t base;
	uint8_t *p;
	int i;

	for (i = 0; i < FW_SRV_SLOTS && g->srv_used[i]; i++)
		;
	if (i == FW_SRV_SLOTS)
		return NV_ERR_NO_MEMORY;
	base = srv_slot_pa(g, i);
	p = nvl_model_phys_ptr(g->m, base, FW_SRV_SLOT_SIZE);
	if (!p)
		return NV_ERR_NO_MEMORY;
	memset(p, 0, FW_SRV_SLOT_SIZE);
	/* PD0's dual entry: the small half (its upper 8 bytes) */
	ent_wr(g,
	       base + (uint64_t)nvl_hw_mmu_index(pd0, va) * pd0.entry_size + 8,
	       enc_pde(ver, base + 4096));
	ent_wr(g, base + 4096 + (uint64_t)nvl_hw_mmu_index(pt, va) * 8,
	       enc_pte(ver, base + 8192));
	inst_wr(g, base + 8192, vas->handle);
	g->srv_used[i] = 1;
	vas->srv_slot = i;
	ent_wr(g, srv_pd1_entry(vas), enc_pde(ver, base));
	return NV_OK;
}

/* RM's tables of the range go with the VA space; its entry in the
 * client's PD1 page is cleared if it is still there */
static void srv_release(struct nvl_model_gsp *g, struct fw_obj *vas)
{
	uint64_t base;

	if (vas->srv_slot < 0)
		return;
	base = srv_slot_pa(g, vas->srv_slot);
	if (ent_rd(g, srv_pd1_entry(vas)) ==
	    enc_pde(g->m->profile->mmu_version, base))
		ent_wr(g, srv_pd1_entry(vas), 0);
	g->srv_used[vas->srv_slot] = 0;
	vas->srv_slot = -1;
}

/*
 * NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES on a VA space of the
 * calling client, in the order of RM's vaspaceapiCtrlCmdVaspaceCopy
 * ServerReservedPdes() and gvaspaceCopyServerReservedPdes()
 * (gpu_vaspace.c): the subdevice (a handle of the client's subdevice,
 * NV_ERR_INVALID_OBJECT_HANDLE; else subDeviceId 0 or 1 for the one GPU,
 * NV_ERR_INVALID_ARGUMENT), at most GMMU_FMT_MAX_LEVELS levels and a
 * power-of-two pageSize (NV_ERR_INVALID_ARGUMENT); then the range RM
 * reserves; then each level's aperture and the format's level of its
 * pageShift. The model's own checks, where RM trusts its client or its
 * source does not say: the space is not IS_EXTERNALLY_OWNED
 * (NV_ERR_NOT_SUPPORTED: RM owns no table of such a space, and Nouveau
 * sends the control only for the spaces it does not allocate so), has no
 * client root committed nor levels copied before (NV_ERR_INVALID_STATE);
 * the range is the server-reserved one, [4 GiB, 4.5 GiB) at a 512 MiB
 * pageSize within the space (RM reserves whatever range it is given but
 * always mirrors at vaStartServerRMOwned); the levels are the format's
 * from the root down to PD1, root first, each a whole table (size),
 * 4 KiB aligned in the FB RM gave the driver (NV_ERR_INVALID_ARGUMENT);
 * an aperture other than video memory, coherent or not, is
 * NV_ERR_INVALID_ARGUMENT (RM's switch leaves NV_OK there, having mirrored
 * the levels below it), system memory NV_ERR_NOT_SUPPORTED (the model's
 * MMU walks VRAM tables). Zero levels: RM reserves and mirrors nothing,
 * NV_OK. Nothing changes on a refusal. Taken: the space's root is the
 * client's (its channels' PDB) and RM maps its page there (srv_adopt()).
 */
static uint32_t
copy_server_pdes(struct nvl_model_gsp *g, uint32_t client, struct fw_obj *vas,
		 const NV90F1_CTRL_VASPACE_COPY_SERVER_RESERVED_PDES_PARAMS *p)
{
	const uint64_t lo = SPLIT_VAS_SERVER_RM_MANAGED_VA_START;
	const uint64_t hi = lo + SPLIT_VAS_SERVER_RM_MANAGED_VA_SIZE - 1;
	const struct nvl_hw_mmu_geom v2[] = {NVL_HW_MMU_GEOM_PD3_V2,
					     NVL_HW_MMU_GEOM_PD2,
					     NVL_HW_MMU_GEOM_PD1};
	const struct nvl_hw_mmu_geom v3[] = {
		NVL_HW_MMU_GEOM_PD4, NVL_HW_MMU_GEOM_PD3_V3,
		NVL_HW_MMU_GEOM_PD2, NVL_HW_MMU_GEOM_PD1};
	const bool is_v3 = g->m->profile->mmu_version == 3;
	const struct nvl_hw_mmu_geom *lv = is_v3 ? v3 : v2;
	const unsigned int nlv =
		is_v3 ? NVL_ARRAY_SIZE(v3) : NVL_ARRAY_SIZE(v2);
	const uint64_t fb_end = nvl_fw_rm_carve_base(g);
	uint32_t st;

	if (p->hSubDevice) {
		const struct fw_obj *sd = find(g, client, p->hSubDevice);

		if (!sd || sd->hclass != NV20_SUBDEVICE_0)
			return NV_ERR_INVALID_OBJECT_HANDLE;
	} else if (p->subDeviceId > 1) {
		return NV_ERR_INVALID_ARGUMENT;
	}
	if (p->numLevelsToCopy > GMMU_FMT_MAX_LEVELS || !p->pageSize ||
	    (p->pageSize & (p->pageSize - 1)))
		return NV_ERR_INVALID_ARGUMENT;
	if (vas->external)
		return NV_ERR_NOT_SUPPORTED;
	if (vas->bound || vas->copied)
		return NV_ERR_INVALID_STATE;
	if (p->pageSize != 1ull << NVL_HW_MMU_SHIFT_512M ||
	    p->virtAddrLo != lo || p->virtAddrHi != hi || vas->va_limit < hi)
		return NV_ERR_INVALID_ARGUMENT;
	if (!p->numLevelsToCopy)
		return NV_OK;
	if (p->numLevelsToCopy != nlv)
		return NV_ERR_INVALID_ARGUMENT;
	for (unsigned int i = 0; i < nlv; i++) {
		const NV90F1_CTRL_VASPACE_SERVER_PDE_LEVEL *l = &p->levels[i];
		const uint64_t size = (uint64_t)lv[i].entry_size << lv[i].bits;

		switch (l->aperture) {
		case GMMU_APERTURE_VIDEO:
			break;
		case GMMU_APERTURE_SYS_COH:
		case GMMU_APERTURE_SYS_NONCOH:
			return NV_ERR_NOT_SUPPORTED;
		default:
			return NV_ERR_INVALID_ARGUMENT;
		}
		if (l->pageShift != lv[i].shift || l->size != size ||
		    (l->physAddress & 0xfff) || l->physAddress >= fb_end ||
		    fb_end - l->physAddress < size)
			return NV_ERR_INVALID_ARGUMENT;
	}
	vas->srv_pd = p->levels[nlv - 1].physAddress;
	st = srv_adopt(g, vas);
	if (st != NV_OK) {
		vas->srv_pd = 0;
		return st;
	}
	vas->pdb = p->levels[0].physAddress;
	vas->copied = true;
	return NV_OK;
}

static uint32_t rm_alloc(struct nvl_model_gsp *g, rpc_gsp_rm_alloc_v03_00 *a,
			 size_t len)
{
	const struct nvl_model_profile *p = g->m->profile;
	struct fw_obj *parent = NULL, vas_new = {0};
	uint32_t chid = ~0u, need;

	if (len < sizeof(*a) || a->paramsSize > len - sizeof(*a))
		return NV_ERR_INVALID_PARAM_STRUCT;
	if (a->hClass == NV01_ROOT) {
		if (a->hObject != a->hClient || a->hParent)
			return NV_ERR_INVALID_OBJECT_PARENT;
		if (find(g, a->hClient, a->hClient))
			return NV_ERR_INVALID_OBJECT_NEW;
	} else {
		if (!find(g, a->hClient, a->hClient))
			return NV_ERR_INVALID_CLIENT;
		parent = find(g, a->hClient, a->hParent);
		if (!parent)
			return NV_ERR_INVALID_OBJECT_PARENT;
		if (find(g, a->hClient, a->hObject))
			return NV_ERR_INVALID_OBJECT_NEW;
	}
	if (g->nobjs == FW_MAX_OBJECTS)
		return NV_ERR_INSUFFICIENT_RESOURCES;
	switch (a->hClass) {
	case NV01_ROOT:
		need = NV01_ROOT;
		break;
	case NV01_DEVICE_0:
		need = NV01_ROOT;
		if (a->paramsSize < sizeof(NV0080_ALLOC_PARAMETERS))
			return NV_ERR_INVALID_PARAM_STRUCT;
		break;
	case NV20_SUBDEVICE_0:
		need = NV01_DEVICE_0;
		break;
	case FERMI_VASPACE_A:
		need = NV01_DEVICE_0;
		if (a->paramsSize < sizeof(NV_VASPACE_ALLOCATION_PARAMETERS))
			return NV_ERR_INVALID_PARAM_STRUCT;
		break;
	case NV01_EVENT_KERNEL_CALLBACK_EX:
		need = NV20_SUBDEVICE_0;
		break;
	default:
		if (is_channel_class(a->hClass)) {
			need = NV01_DEVICE_0;
			if (a->hClass != p->host_class)
				return NV_ERR_INVALID_CLASS;
			if (a->paramsSize < sizeof(NV_CHANNEL_ALLOC_PARAMS))
				return NV_ERR_INVALID_PARAM_STRUCT;
			break;
		}
		if (is_ce_class(a->hClass)) {
			if (a->hClass != p->ce_class)
				return NV_ERR_INVALID_CLASS;
			if (!parent || !is_channel_class(parent->hclass) ||
			    chan_runlist(g, parent) >= p->num_ce)
				return NV_ERR_INVALID_OBJECT_PARENT;
			need = parent->hclass;
			break;
		}
		if (is_compute_class(a->hClass)) {
			/* the compute engine's object: only on a channel
			 * of the compute runlist */
			if (a->hClass != p->compute_class)
				return NV_ERR_INVALID_CLASS;
			if (!parent || !is_channel_class(parent->hclass) ||
			    chan_runlist(g, parent) !=
				    NVL_HW_RUNLIST_COMPUTE(p->num_ce))
				return NV_ERR_INVALID_OBJECT_PARENT;
			need = parent->hclass;
			break;
		}
		return NV_ERR_INVALID_CLASS;
	}
	if (parent && parent->hclass != need)
		return NV_ERR_INVALID_OBJECT_PARENT;
	if (a->hClass == FERMI_VASPACE_A) {
		NV_VASPACE_ALLOCATION_PARAMETERS vp;
		uint32_t st;

		memcpy(&vp, a->params, sizeof(vp));
		st = vaspace_params(g, &vp, &vas_new);
		if (st != NV_OK)
			return st;
	}
	if (is_channel_class(a->hClass)) {
		NV_CHANNEL_ALLOC_PARAMS cp;
		uint64_t pdb = 0, inst;
		bool replay = false, bound = false;

		memcpy(&cp, a->params, sizeof(cp));
		if (cp.hVASpace) {
			struct fw_obj *vas = find(g, a->hClient, cp.hVASpace);

			if (!vas || vas->hclass != FERMI_VASPACE_A)
				return NV_ERR_INVALID_OBJECT_HANDLE;
			pdb = vas->pdb;
			bound = vas->bound || vas->copied;
			/* a faulting VA space's SM faults are replayable */
			replay = vas->faulting;
		}
		/* RM needs a bound page directory, a power-of-two ring, a
		 * 512-byte aligned USERD in the FB it gave the driver and a
		 * copy-engine runlist or the compute runlist after them */
		if (!bound || cp.gpFifoEntries < 2 ||
		    cp.gpFifoEntries > (1u << 20) ||
		    (cp.gpFifoEntries & (cp.gpFifoEntries - 1)) ||
		    (cp.gpFifoOffset & 7) || (cp.userdOffset & 511) ||
		    cp.userdOffset + NVL_HW_USERD_SIZE >
			    nvl_fw_rm_carve_base(g) ||
		    cp.engineType > NVL_HW_RUNLIST_COMPUTE(p->num_ce))
			return NV_ERR_INVALID_ARGUMENT;
		for (uint32_t c = 0; c < p->num_channels; c++)
			if (!g->chan_used[c]) {
				chid = c;
				break;
			}
		if (chid == ~0u)
			return NV_ERR_INSUFFICIENT_RESOURCES;
		g->chan_used[chid] = 1;
		chan_setup(g, chid, &cp, pdb, replay, &inst);
		cp.cid = chid;
		cp.instOffset = inst;
		memcpy(a->params, &cp, sizeof(cp));
	}
	add(g, a->hClient, a->hObject, a->hClass == NV01_ROOT ? 0 : a->hParent,
	    a->hClass, chid);
	if (is_channel_class(a->hClass)) {
		NV_CHANNEL_ALLOC_PARAMS cp;

		memcpy(&cp, a->params, sizeof(cp));
		g->objs[g->nobjs - 1].vas = cp.hVASpace;
	}
	if (a->hClass == FERMI_VASPACE_A) {
		struct fw_obj *o = &g->objs[g->nobjs - 1];

		o->faulting = vas_new.faulting;
		o->external = vas_new.external;
		o->shared = vas_new.shared;
		o->mirrored = vas_new.mirrored;
		o->va_limit = vas_new.va_limit;
	}
	return NV_OK;
}

static struct nvl_fw_static_src static_src(struct nvl_model_gsp *g);

static uint32_t rm_control(struct nvl_model_gsp *g,
			   rpc_gsp_rm_control_v03_00 *c, size_t len,
			   size_t cap);

/*
 * An entry's params whose output-only tail the command left out (inSize):
 * each entry's bytes moved to their place in the reply, last first (a
 * place never starts before the bytes that go there, and those of the
 * entries before it lie below it), the tails zeroed. @in and @out are the
 * entries' padded sizes in the command and in the reply.
 */
static void multi_spread(uint8_t *params, size_t at, size_t out, NvU32 count,
			 const size_t *in, const size_t *n)
{
	for (NvU32 i = count; i-- > 0;) {
		at -= in[i];
		out -= n[i];
		if (out != at)
			memmove(params + out, params + at, in[i]);
		memset(params + out + in[i], 0, n[i] - in[i]);
	}
}

/*
 * NVL2080_CTRL_CMD_MULTI_CONTROL (nouvelle's): each entry run as a control
 * of its own on the same object, in order, its status in the entry. In
 * place: an entry's control header is written over the bytes just before
 * its params (the multi header's or the previous entry's, already done),
 * saved and put back after it ran, so nothing is allocated or copied. The
 * controls read the PMU once for the whole batch (nvl_fw_perf_batch()).
 * An entry with an inSize brought only that many bytes of its params: they
 * are spread to their places first (the reply grows to the params whole,
 * within the @cap bytes of @c).
 */
static uint32_t multi_control(struct nvl_model_gsp *g,
			      rpc_gsp_rm_control_v03_00 *c, size_t cap)
{
	NVL2080_CTRL_MULTI_CONTROL_PARAMS h;
	const size_t hs = offsetof(rpc_gsp_rm_control_v03_00, params);
	uint8_t saved[offsetof(rpc_gsp_rm_control_v03_00, params)];
	size_t in[NVL2080_CTRL_MULTI_CONTROL_MAX],
		n[NVL2080_CTRL_MULTI_CONTROL_MAX];
	rpc_gsp_rm_control_v03_00 one;
	size_t at = sizeof(h), out = sizeof(h);

	_Static_assert(sizeof(h) >= offsetof(rpc_gsp_rm_control_v03_00, params),
		       "an entry's control header fits before its params");
	if (c->paramsSize < sizeof(h))
		return NV_ERR_INVALID_PARAM_STRUCT;
	memcpy(&h, c->params, sizeof(h));
	if (!h.count || h.count > NVL2080_CTRL_MULTI_CONTROL_MAX)
		return NV_ERR_INVALID_ARGUMENT;
	for (NvU32 i = 0; i < h.count; i++) {
		const NVL2080_CTRL_MULTI_CONTROL_ENTRY *e = &h.entries[i];

		n[i] = ((size_t)e->paramsSize + 7) & ~(size_t)7;
		in[i] = e->inSize ? e->inSize : n[i];
		if (e->cmd == NVL2080_CTRL_CMD_MULTI_CONTROL || e->inSize % 8 ||
		    in[i] > n[i] || in[i] > c->paramsSize - at ||
		    n[i] > cap - hs - out)
			return NV_ERR_INVALID_ARGUMENT;
		at += in[i];
		out += n[i];
	}
	if (at != c->paramsSize)
		return NV_ERR_INVALID_ARGUMENT;
	if (out != at) {
		multi_spread(c->params, at, out, h.count, in, n);
		c->paramsSize = (NvU32)out;
	}
	one = *c;
	at = sizeof(h);
	nvl_fw_perf_batch(g, true);
	for (NvU32 i = 0; i < h.count; i++) {
		NVL2080_CTRL_MULTI_CONTROL_ENTRY *e = &h.entries[i];
		uint8_t *p = c->params + at;

		memcpy(saved, p - hs, hs);
		one.cmd = e->cmd;
		one.paramsSize = e->paramsSize;
		one.status = NV_OK;
		memcpy(p - hs, &one, hs);
		e->status = rm_control(g, (void *)(p - hs), hs + e->paramsSize,
				       hs + e->paramsSize);
		memcpy(p - hs, saved, hs);
		at += n[i];
	}
	nvl_fw_perf_batch(g, false);
	memcpy(c->params, &h, sizeof(h));
	return NV_OK;
}

/* @len bytes of the control in a buffer of @cap (a multi control's reply
 * may grow to it) */
static uint32_t rm_control(struct nvl_model_gsp *g,
			   rpc_gsp_rm_control_v03_00 *c, size_t len, size_t cap)
{
	const struct nvl_model_profile *p = g->m->profile;
	struct fw_obj *o;

	if (len < sizeof(*c) || c->paramsSize > len - sizeof(*c))
		return NV_ERR_INVALID_PARAM_STRUCT;
	o = find(g, c->hClient, c->hObject);
	if (!o)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	switch (c->cmd) {
	case NVL2080_CTRL_CMD_MULTI_CONTROL:
		if (o->hclass != NV20_SUBDEVICE_0)
			return NV_ERR_NOT_SUPPORTED;
		if (nvl_fw_perf_disabled(g, c->cmd))
			return NV_ERR_NOT_SUPPORTED;
		return multi_control(g, c, cap);
	case NVL_MODEL_CTRL_CMD_ECHO:
		for (NvU32 i = 0; i < c->paramsSize; i++)
			c->params[i] = (NvU8)~c->params[i];
		return NV_OK;
	case NV2080_CTRL_CMD_GPU_GET_INFO_V2: {
		NV2080_CTRL_GPU_GET_INFO_V2_PARAMS *gi = (void *)c->params;

		if (o->hclass != NV20_SUBDEVICE_0)
			return NV_ERR_INVALID_OBJECT_HANDLE;
		if (c->paramsSize != sizeof(*gi) ||
		    gi->gpuInfoListSize > NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE)
			return NV_ERR_INVALID_ARGUMENT;
		for (NvU32 i = 0; i < gi->gpuInfoListSize; i++)
			gi->gpuInfoList[i].data =
				gi->gpuInfoList[i].index ==
						NV2080_CTRL_GPU_INFO_INDEX_ECID_LO32
					? p->boot0
					: 0;
		return NV_OK;
	}
	case NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO: {
		/* the FB below RM's carve-out is the driver's; the rest RM's */
		NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS *fr =
			(void *)c->params;
		NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO *rg;
		uint64_t base = nvl_fw_rm_carve_base(g);

		if (o->hclass != NV20_SUBDEVICE_0 ||
		    c->paramsSize != sizeof(*fr))
			return NV_ERR_INVALID_ARGUMENT;
		memset(fr, 0, sizeof(*fr));
		rg = fr->fbRegion;
		rg[0].limit = base - 1;
		rg[0].performance = 1000;
		rg[0].supportCompressed = NV_TRUE;
		rg[0].supportISO = NV_TRUE;
		rg[1].base = base;
		rg[1].limit = g->m->vram_size - 1;
		rg[1].reserved = g->m->vram_size - base;
		rg[1].bProtected = NV_TRUE;
		fr->numFBRegions = 2;
		return NV_OK;
	}
	case NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY: {
		NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS *pd =
			(void *)c->params;
		struct fw_obj *vas;

		if (o->hclass != NV01_DEVICE_0 || c->paramsSize != sizeof(*pd))
			return NV_ERR_INVALID_ARGUMENT;
		vas = find(g, c->hClient, pd->hVASpace);
		if (!vas || vas->hclass != FERMI_VASPACE_A ||
		    vas->parent != o->handle)
			return NV_ERR_INVALID_OBJECT_HANDLE;
		return set_page_directory(g, vas, pd);
	}
	case NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY: {
		NV0080_CTRL_DMA_UNSET_PAGE_DIRECTORY_PARAMS *up =
			(void *)c->params;
		struct fw_obj *vas;

		if (o->hclass != NV01_DEVICE_0 || c->paramsSize != sizeof(*up))
			return NV_ERR_INVALID_ARGUMENT;
		vas = find(g, c->hClient, up->hVASpace);
		if (!vas || vas->hclass != FERMI_VASPACE_A ||
		    vas->parent != o->handle)
			return NV_ERR_INVALID_OBJECT_HANDLE;
		return unset_page_directory(g, vas);
	}
	case NV90F1_CTRL_CMD_VASPACE_COPY_SERVER_RESERVED_PDES: {
		NV90F1_CTRL_VASPACE_COPY_SERVER_RESERVED_PDES_PARAMS cp;

		/* a control of the VA space class only */
		if (o->hclass != FERMI_VASPACE_A)
			return NV_ERR_NOT_SUPPORTED;
		if (c->paramsSize != sizeof(cp))
			return NV_ERR_INVALID_ARGUMENT;
		memcpy(&cp, c->params, sizeof(cp));
		return copy_server_pdes(g, c->hClient, o, &cp);
	}
	case NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN: {
		NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS *wt =
			(void *)c->params;
		uint32_t rl;

		if (!is_channel_class(o->hclass) ||
		    c->paramsSize != sizeof(*wt))
			return NV_ERR_INVALID_ARGUMENT;
		rl = reg_rd(g, NVL_HW_CHRAM_RUNLIST(o->chid)) & 0xff;
		wt->workSubmitToken = NVL_HW_DOORBELL_TOKEN(o->chid, rl);
		return NV_OK;
	}
	case NV906F_CTRL_CMD_RESET_CHANNEL: {
		NV906F_CTRL_CMD_RESET_CHANNEL_PARAMS *rp = (void *)c->params;
		int err;

		if (!is_channel_class(o->hclass) ||
		    c->paramsSize != sizeof(*rp) ||
		    rp->resetReason >=
			    NV906F_CTRL_CMD_RESET_CHANNEL_REASON_ENUM_MAX)
			return NV_ERR_INVALID_ARGUMENT;
		err = nvl_model_fifo_reset_chan(g->m, o->chid);
		nvl_fw_log(g, LOG_RM, "RC: channel %u reset by the client: %d",
			   o->chid, err);
		if (err == -ETIMEDOUT)
			return NV_ERR_TIMEOUT;
		return err ? NV_ERR_INVALID_STATE : NV_OK;
	}
	case NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION: {
		NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS *ep =
			(void *)c->params;

		if (o->hclass != NV20_SUBDEVICE_0 ||
		    c->paramsSize != sizeof(*ep))
			return NV_ERR_INVALID_ARGUMENT;
		g->notify_hclient = c->hClient;
		nvl_fw_perf_notify(g, c->hClient, c->hObject, ep->event,
				   ep->action);
		return NV_OK;
	}
	case NV2080_CTRL_CMD_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER:
	case NV2080_CTRL_CMD_INTERNAL_GMMU_UNREGISTER_CLIENT_SHADOW_FAULT_BUFFER:
		if (o->hclass != NV20_SUBDEVICE_0)
			return NV_ERR_INVALID_OBJECT_HANDLE;
		return nvl_fw_rc_register_shadow(
			g, c->params, c->paramsSize,
			c->cmd ==
				NV2080_CTRL_CMD_INTERNAL_GMMU_REGISTER_CLIENT_SHADOW_FAULT_BUFFER);
	case NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE: {
		NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS *t =
			(void *)c->params;

		if (o->hclass != NV20_SUBDEVICE_0 ||
		    c->paramsSize != sizeof(*t))
			return NV_ERR_INVALID_ARGUMENT;
		memset(t, 0, sizeof(*t));
		/* GSP first, then one copy engine per runlist */
		t->table[0].engineIdx = 0;
		t->table[0].pmcIntrMask = 0x20; /* NVL_HW_INTR_GSP */
		t->table[0].vectorStall = 5;
		t->table[0].vectorNonStall = ~0u;
		for (unsigned e = 0; e < p->num_ce; e++) {
			t->table[1 + e].engineIdx = (NvU16)(1 + e);
			t->table[1 + e].vectorStall = ~0u;
			t->table[1 + e].vectorNonStall = e;
		}
		t->tableLen = 1 + p->num_ce;
		return NV_OK;
	}
	default: {
		/* controls only some versions have (wire_ver.c) */
		const struct nvl_fw_static_src src = static_src(g);
		uint32_t status;

		if (g->wire->control(c->cmd, c->params, c->paramsSize, &src,
				     &status))
			return status;
		/* sensors, clocks and power (ctrl_perf.c) */
		if (o->hclass != NV20_SUBDEVICE_0)
			return NV_ERR_NOT_SUPPORTED;
		return nvl_fw_perf_control(g, c->hClient, c->hObject, c->cmd,
					   c->params, c->paramsSize);
	}
	}
}

/* what the firmware knows of the chip, for the per-version formats */
static struct nvl_fw_static_src static_src(struct nvl_model_gsp *g)
{
	const struct nvl_model_profile *p = g->m->profile;

	return (struct nvl_fw_static_src){
		.fb_length = g->m->vram_size,
		.gpc_mask = 0x3f,
		.tpc_count = 36,
		.h_client = INTERNAL_CLIENT,
		.h_device = INTERNAL_DEVICE,
		.h_subdevice = INTERNAL_SUBDEVICE,
		.name = p->family,
		.short_name = p->name,
		.num_channels = p->num_channels,
		.num_ce = p->num_ce,
		.host_class = p->host_class,
		.ce_class = p->ce_class,
	};
}

static size_t static_info(struct nvl_model_gsp *g)
{
	const struct nvl_fw_static_src src = static_src(g);

	/* the layout of the version booted (wire_ver.c, per version) */
	return g->wire->static_info(&src, g->reply);
}

static uint32_t set_registry(struct nvl_model_gsp *g, const uint8_t *req,
			     size_t len)
{
	PACKED_REGISTRY_TABLE t;

	if (len < sizeof(t))
		return NV_ERR_INVALID_PARAM_STRUCT;
	memcpy(&t, req, sizeof(t));
	if (t.size != len ||
	    t.numEntries > (len - sizeof(t)) / sizeof(PACKED_REGISTRY_ENTRY))
		return NV_ERR_INVALID_PARAM_STRUCT;
	for (NvU32 i = 0; i < t.numEntries; i++) {
		PACKED_REGISTRY_ENTRY e;

		memcpy(&e, req + sizeof(t) + i * sizeof(e), sizeof(e));
		if (e.nameOffset >= len ||
		    !memchr(req + e.nameOffset, 0, len - e.nameOffset))
			return NV_ERR_INVALID_REGISTRY_KEY;
		if (e.type != REGISTRY_TABLE_ENTRY_TYPE_DWORD &&
		    (e.data > len || e.length > len - e.data))
			return NV_ERR_INVALID_REGISTRY_KEY;
	}
	g->st.registry_entries = t.numEntries;
	return NV_OK;
}

size_t nvl_fw_rm_serve(struct nvl_model_gsp *g, uint32_t function,
		       const uint8_t *req, size_t len, uint32_t *result)
{
	size_t n = len;

	memcpy(g->reply, req, len);
	switch (function) {
	case NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC: {
		rpc_gsp_rm_alloc_v03_00 *a = (void *)g->reply;

		*result = rm_alloc(g, a, len);
		if (len >= sizeof(*a))
			a->status = *result;
		break;
	}
	case NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL: {
		rpc_gsp_rm_control_v03_00 *c = (void *)g->reply;

		if (len < sizeof(*c) ||
		    !nvl_fw_refuse_control(g, c->cmd, result))
			*result = rm_control(g, c, len, FW_MAX_MSG);
		if (len >= sizeof(*c)) {
			c->status = *result;
			/* a multi control's reply may be longer than its
			 * command (inSize), its size checked against cap */
			if (*result == NV_OK &&
			    c->cmd == NVL2080_CTRL_CMD_MULTI_CONTROL)
				n = NVL_MAX(n,
					    offsetof(rpc_gsp_rm_control_v03_00,
						     params) +
						    (size_t)c->paramsSize);
		}
		break;
	}
	case NV_VGPU_MSG_FUNCTION_FREE: {
		rpc_free_v03_00 *f = (void *)g->reply;

		if (len < sizeof(*f)) {
			*result = NV_ERR_INVALID_PARAM_STRUCT;
			break;
		}
		if (!find(g, f->params.hRoot, f->params.hObjectOld)) {
			*result = NV_ERR_INVALID_OBJECT_HANDLE;
		} else {
			free_tree(g, f->params.hRoot, f->params.hObjectOld);
			*result = NV_OK;
		}
		f->params.status = *result;
		break;
	}
	case NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO:
		n = static_info(g);
		*result = NV_OK;
		break;
	case NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO:
		*result = len >= sizeof(GspSystemInfo)
				  ? NV_OK
				  : NV_ERR_INVALID_PARAM_STRUCT;
		break;
	case NV_VGPU_MSG_FUNCTION_SET_REGISTRY:
		*result = set_registry(g, req, len);
		break;
	case NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER:
		*result = len >= sizeof(rpc_unloading_guest_driver_v1F_07)
				  ? NV_OK
				  : NV_ERR_INVALID_PARAM_STRUCT;
		break;
	case NV_VGPU_MSG_FUNCTION_NOP:
		*result = NV_OK;
		break;
	default:
		*result = NV_ERR_NOT_SUPPORTED;
		break;
	}
	return n;
}
