// SPDX-License-Identifier: MIT
/*
 * DOC: the model firmware's RM
 *
 * Its own object database, as GSP-RM keeps one: clients (NV01_ROOT), a
 * device (NV01_DEVICE_0) under a client, a subdevice (NV20_SUBDEVICE_0)
 * and VA spaces (FERMI_VASPACE_A) under the device, channels under the
 * device (each gets a free channel id of the chip), copy-engine objects
 * under a channel, event objects under a subdevice. Allocation checks the
 * parent's class; freeing an object frees everything under it. Controls
 * answer from the chip profile.
 */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "model/gsp/priv.h"

#define INTERNAL_CLIENT 0xc1e00000u
#define INTERNAL_DEVICE 0xde1e0000u
#define INTERNAL_SUBDEVICE 0x5d1e0000u

int nvl_fw_rm_init(struct nvl_model_gsp *g)
{
	g->objs = nvl_calloc(FW_MAX_OBJECTS, sizeof(*g->objs));
	g->chan_used = nvl_zalloc(g->m->profile->num_channels);
	if (!g->objs || !g->chan_used) {
		nvl_free(g->objs);
		nvl_free(g->chan_used);
		return -ENOMEM;
	}
	return 0;
}

void nvl_fw_rm_fini(struct nvl_model_gsp *g)
{
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
	g->objs[g->nobjs++] = (struct fw_obj){client, h, parent, hclass, chid};
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
			    o->chid < g->m->profile->num_channels)
				g->chan_used[o->chid] = 0;
			g->objs[i] = g->objs[--g->nobjs];
			return;
		}
	}
}

void nvl_fw_rm_reset(struct nvl_model_gsp *g)
{
	g->nobjs = 0;
	memset(g->chan_used, 0, g->m->profile->num_channels);
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

static uint32_t rm_alloc(struct nvl_model_gsp *g, rpc_gsp_rm_alloc_v03_00 *a,
			 size_t len)
{
	const struct nvl_model_profile *p = g->m->profile;
	struct fw_obj *parent = NULL;
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
	case FERMI_VASPACE_A:
		need = NV01_DEVICE_0;
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
			if (!parent || !is_channel_class(parent->hclass))
				return NV_ERR_INVALID_OBJECT_PARENT;
			need = parent->hclass;
			break;
		}
		return NV_ERR_INVALID_CLASS;
	}
	if (parent && parent->hclass != need)
		return NV_ERR_INVALID_OBJECT_PARENT;
	if (is_channel_class(a->hClass)) {
		NV_CHANNEL_ALLOC_PARAMS cp;

		memcpy(&cp, a->params, sizeof(cp));
		if (cp.hVASpace) {
			struct fw_obj *vas = find(g, a->hClient, cp.hVASpace);

			if (!vas || vas->hclass != FERMI_VASPACE_A)
				return NV_ERR_INVALID_OBJECT_HANDLE;
		}
		for (uint32_t c = 0; c < p->num_channels; c++)
			if (!g->chan_used[c]) {
				chid = c;
				break;
			}
		if (chid == ~0u)
			return NV_ERR_INSUFFICIENT_RESOURCES;
		g->chan_used[chid] = 1;
		cp.cid = chid;
		memcpy(a->params, &cp, sizeof(cp));
	}
	add(g, a->hClient, a->hObject, a->hClass == NV01_ROOT ? 0 : a->hParent,
	    a->hClass, chid);
	return NV_OK;
}

static uint32_t rm_control(struct nvl_model_gsp *g,
			   rpc_gsp_rm_control_v03_00 *c, size_t len)
{
	const struct nvl_model_profile *p = g->m->profile;
	struct fw_obj *o;

	if (len < sizeof(*c) || c->paramsSize > len - sizeof(*c))
		return NV_ERR_INVALID_PARAM_STRUCT;
	o = find(g, c->hClient, c->hObject);
	if (!o)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	switch (c->cmd) {
	case NVL_MODEL_CTRL_CMD_ECHO: {
		NvU32 i = 0;

		for (; i + 8 <= c->paramsSize; i += 8) {
			uint64_t w;

			memcpy(&w, c->params + i, 8);
			w = ~w;
			memcpy(c->params + i, &w, 8);
		}
		for (; i < c->paramsSize; i++)
			c->params[i] = (NvU8)~c->params[i];
		return NV_OK;
	}
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
	case NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION: {
		NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS *ep =
			(void *)c->params;

		if (o->hclass != NV20_SUBDEVICE_0 ||
		    c->paramsSize != sizeof(*ep))
			return NV_ERR_INVALID_ARGUMENT;
		g->notify_hclient = c->hClient;
		return NV_OK;
	}
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
	default:
		return NV_ERR_NOT_SUPPORTED;
	}
}

static size_t static_info(struct nvl_model_gsp *g)
{
	const struct nvl_model_profile *p = g->m->profile;
	GspStaticConfigInfo *si = (void *)g->reply;

	memset(si, 0, sizeof(*si));
	si->fbLength = g->m->vram_size;
	si->fb_length = g->m->vram_size;
	si->gpcMask = 0x3f;
	si->tpcCount = 36;
	si->bVbiosValid = NV_TRUE;
	si->hInternalClient = INTERNAL_CLIENT;
	si->hInternalDevice = INTERNAL_DEVICE;
	si->hInternalSubdevice = INTERNAL_SUBDEVICE;
	strncpy(si->gpuNameString, p->family, sizeof(si->gpuNameString) - 1);
	strncpy(si->gpuShortNameString, p->name,
		sizeof(si->gpuShortNameString) - 1);
	si->numChannels = p->num_channels;
	si->numCopyEngines = p->num_ce;
	si->hostClass = p->host_class;
	si->ceClass = p->ce_class;
	return sizeof(*si);
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

		*result = rm_control(g, c, len);
		if (len >= sizeof(*c))
			c->status = *result;
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
