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
 * set_page_directory()).
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
#include "hw/regs.h"
#include "model/fifo.h"
#include "model/gsp/perf.h"
#include "model/gsp/priv.h"

#define INTERNAL_CLIENT 0xc1e00000u
#define INTERNAL_DEVICE 0xde1e0000u
#define INTERNAL_SUBDEVICE 0x5d1e0000u

/* the base of RM's carve-out below what the booter kept: one instance
 * block per channel id, then RM's non-replayable fault buffer */
uint64_t nvl_fw_rm_carve_base(struct nvl_model_gsp *g)
{
	uint64_t size =
		(uint64_t)g->m->profile->num_channels * NVL_HW_INST_SIZE +
		FW_FAULT_BUF_ENTRIES * NVL_HW_FAULT_ENTRY_SIZE;

	size = (size + FW_RM_CARVEOUT_ALIGN - 1) & ~(FW_RM_CARVEOUT_ALIGN - 1);
	return g->rsvd_start > size ? g->rsvd_start - size : 0;
}

uint64_t nvl_fw_rm_fault_buf_pa(struct nvl_model_gsp *g)
{
	return nvl_fw_rm_carve_base(g) +
	       (uint64_t)g->m->profile->num_channels * NVL_HW_INST_SIZE;
}

static void reg_wr(struct nvl_model_gsp *g, uint32_t addr, uint32_t v)
{
	g->m->hw.ops->wr32(&g->m->hw, addr, v);
}

static uint32_t reg_rd(struct nvl_model_gsp *g, uint32_t addr)
{
	return g->m->hw.ops->rd32(&g->m->hw, addr);
}

static void inst_wr(struct nvl_model_gsp *g, uint64_t pa, uint32_t v)
{
	uint8_t *p = nvl_model_phys_ptr(g->m, pa, 4);

	if (p)
		nvl_model_mem_copy(p, &v, 4);
}

/* take a channel off its runlist, as RM does on free */
static void chan_unbind(struct nvl_model_gsp *g, uint32_t chid)
{
	int64_t dl = nvl_time_ns() + NVL_NSEC_PER_SEC;

	reg_wr(g, NVL_HW_CHRAM_CTRL(chid), NVL_HW_CHRAM_CTRL_ENABLE_CLR);
	while ((reg_rd(g, NVL_HW_CHRAM_CTRL(chid)) & NVL_HW_CHRAM_CTRL_BUSY) &&
	       nvl_time_ns() < dl) {
		struct timespec ts = {0, 20000};

		nanosleep(&ts, NULL);
	}
	reg_wr(g, NVL_HW_CHRAM_INST(chid), 0);
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
	g->objs[g->nobjs++] =
		(struct fw_obj){client, h, parent, hclass, chid, 0, false};
}

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
 * (NV_ERR_NOT_SUPPORTED: RM manages the other roots itself).
 */
static uint32_t
set_page_directory(struct nvl_model_gsp *g, struct fw_obj *vas,
		   const NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS *pd)
{
	const struct nvl_hw_mmu_geom r = root_geom(g);
	const uint64_t n = (uint64_t)(uint32_t)(pd->numEntries - 1) + 1;

	if (vas->external && vas->bound)
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
 * model does not have: it is left without one. Not modelled: RM then
 * points the instance blocks of the space's channel groups away from it
 * (gvaspaceUnregisterAllChanGrps()); the model's channels keep the PDB
 * they were made with.
 */
static uint32_t unset_page_directory(struct fw_obj *vas)
{
	if (!vas->external) {
		if (vas->mirrored)
			return NV_ERR_NOT_SUPPORTED;
		if (!vas->bound)
			return NV_ERR_INVALID_STATE;
	}
	vas->pdb = 0;
	vas->bound = false;
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
			bound = vas->bound;
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
		return unset_page_directory(vas);
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
