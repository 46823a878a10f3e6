// SPDX-License-Identifier: MIT
/*
 * DOC: RM objects
 *
 * Handles are the driver's: clients get 0xc1d0xxxx, other objects
 * 0xcaf0xxxx, never reused while the GSP might still know them. The table
 * maps each handle to its parent and client; it is small and linear, as a
 * driver holds tens of objects, not millions.
 *
 * The alloc, control and free messages are framed by the booted version's
 * generated layer (pack before the call, unpack of the reply): their
 * fixed parts and where the parameters start are the version's.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/priv.h"
#include "gsp/rm.h"
#include "gspabi.h"

#define RM_HANDLE_CLIENT 0xc1d00000u
#define RM_HANDLE_OBJECT 0xcaf00000u

struct rm_obj {
	uint32_t handle, parent, client, hclass;
};

struct nvl_gsp_rm {
	pthread_mutex_t lock;
	struct rm_obj *objs;
	unsigned count, cap, reserved;
	uint32_t next_client, next_object;
};

int nvl_gsp_rm_init(struct nvl_gsp *gsp)
{
	struct nvl_gsp_rm *rm = nvl_zalloc(sizeof(*rm));

	if (!rm)
		return nvl_error(-ENOMEM, "gsp: no memory for RM objects");
	pthread_mutex_init(&rm->lock, NULL);
	gsp->rm = rm;
	return 0;
}

void nvl_gsp_rm_fini(struct nvl_gsp *gsp)
{
	if (!gsp->rm)
		return;
	pthread_mutex_destroy(&gsp->rm->lock);
	nvl_free(gsp->rm->objs);
	nvl_free(gsp->rm);
	gsp->rm = NULL;
}

static struct rm_obj *find(struct nvl_gsp_rm *rm, uint32_t h)
{
	for (unsigned i = 0; i < rm->count; i++)
		if (rm->objs[i].handle == h)
			return &rm->objs[i];
	return NULL;
}

unsigned nvl_gsp_rm_count(struct nvl_gsp *gsp)
{
	unsigned n;

	pthread_mutex_lock(&gsp->rm->lock);
	n = gsp->rm->count;
	pthread_mutex_unlock(&gsp->rm->lock);
	return n;
}

uint32_t nvl_gsp_rm_client_of(struct nvl_gsp *gsp, uint32_t handle)
{
	struct rm_obj *o;
	uint32_t c = 0;

	pthread_mutex_lock(&gsp->rm->lock);
	o = find(gsp->rm, handle);
	if (o)
		c = o->client;
	pthread_mutex_unlock(&gsp->rm->lock);
	return c;
}

void nvl_gsp_rm_skip_handles(struct nvl_gsp *gsp, uint32_t n)
{
	pthread_mutex_lock(&gsp->rm->lock);
	gsp->rm->next_object += n;
	pthread_mutex_unlock(&gsp->rm->lock);
}

/* reserve a table slot and a handle; the object is added after the RPC */
static int reserve(struct nvl_gsp_rm *rm, uint32_t hparent, uint32_t hclass,
		   uint32_t *client, uint32_t *handle)
{
	struct rm_obj *p;

	if (rm->count + rm->reserved == rm->cap) {
		unsigned cap = rm->cap ? 2 * rm->cap : 16;
		struct rm_obj *n = nvl_reallocarray(rm->objs, cap, sizeof(*n));

		if (!n)
			return nvl_error(-ENOMEM,
					 "gsp: no memory for an RM object");
		rm->objs = n;
		rm->cap = cap;
	}
	if (hclass == GSPABI_K_NV01_ROOT) {
		if (hparent)
			return nvl_error(-EINVAL,
					 "gsp: a client has no parent");
		do
			*handle =
				RM_HANDLE_CLIENT | (++rm->next_client & 0xffff);
		while (find(rm, *handle));
		*client = *handle;
		rm->reserved++;
		return 0;
	}
	p = find(rm, hparent);
	if (!p)
		return nvl_error(-ENOENT, "gsp: RM parent %#x unknown",
				 hparent);
	*client = p->client;
	/* 20 bits wrap after a million objects: past the live ones (the
	 * table holds fewer than 2^20, so a free one comes) */
	do
		*handle = RM_HANDLE_OBJECT | (++rm->next_object & 0xfffff);
	while (find(rm, *handle));
	rm->reserved++;
	return 0;
}

/* the fixed part of message @id in the booted version; 0 if it has none */
static size_t wire_hdr(struct nvl_gsp *gsp, enum gspabi_struct_id id)
{
	const struct gspabi_version *v = gsp->q.abi;

	return v && v->structs[id].present ? v->structs[id].wire_size : 0;
}

int nvl_gsp_rm_alloc(struct nvl_gsp *gsp, uint32_t hparent, uint32_t hclass,
		     void *params, size_t size, uint32_t *handle_out)
{
	const struct gspabi_version *v = gsp->q.abi;
	size_t hdr = wire_hdr(gsp, GSPABI_S_RM_ALLOC);
	struct nvl_gsp_rm *rm = gsp->rm;
	struct gspabi_rm_alloc a;
	size_t len = hdr + size, got = 0;
	uint32_t client = 0, handle = 0;
	uint8_t *msg;
	int ret;

	if (size && !params)
		return nvl_error(-EINVAL, "gsp: RM alloc parameters missing");
	if (!hdr)
		return nvl_error(-EPROTO, "gsp: firmware %s has no RM alloc",
				 v ? v->tag : "?");
	if (size > NVL_GSP_MSG_MAX - hdr)
		return nvl_error(-EINVAL, "gsp: RM alloc parameters too large");
	msg = nvl_zalloc(len);
	if (!msg)
		return nvl_error(-ENOMEM, "gsp: no memory for an RM alloc");
	pthread_mutex_lock(&rm->lock);
	ret = reserve(rm, hparent, hclass, &client, &handle);
	pthread_mutex_unlock(&rm->lock);
	if (ret)
		goto out;
	a = (struct gspabi_rm_alloc){
		.present = GSPABI_RM_ALLOC_HAS_HCLIENT |
			   GSPABI_RM_ALLOC_HAS_HPARENT |
			   GSPABI_RM_ALLOC_HAS_HOBJECT |
			   GSPABI_RM_ALLOC_HAS_HCLASS |
			   GSPABI_RM_ALLOC_HAS_STATUS |
			   GSPABI_RM_ALLOC_HAS_PARAMSSIZE,
		.hClient = client,
		.hParent = hclass == GSPABI_K_NV01_ROOT ? 0 : hparent,
		.hObject = handle,
		.hClass = hclass,
		.status = GSPABI_K_STATUS_NV_OK,
		.paramsSize = (uint32_t)size,
	};
	if (gspabi_pack(v, GSPABI_S_RM_ALLOC, &a, msg, hdr)) {
		ret = nvl_error(-EPROTO, "gsp: cannot frame an RM alloc for %s",
				v->tag);
		goto out_unreserve;
	}
	if (size)
		memcpy(msg + hdr, params, size);
	ret = nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_GSP_RM_ALLOC, msg, len, msg,
			  len, &got, NVL_GSP_REPLY_RECV, 0);
	if (ret)
		goto out_unreserve;
	if (got != len || gspabi_unpack(v, GSPABI_S_RM_ALLOC, msg, got, &a) ||
	    a.params != hdr) {
		ret = nvl_error(
			-EPROTO,
			"gsp: RM alloc reply of %zu bytes, expected %zu", got,
			len);
		goto out_unreserve;
	}
	if (a.status != GSPABI_K_STATUS_NV_OK) {
		ret = nvl_error(nvl_gsp_status_errno(a.status),
				"gsp: RM alloc of class %#x failed: %s", hclass,
				nvl_gsp_status_name(a.status));
		goto out_unreserve;
	}
	if (size)
		memcpy(params, msg + hdr, size);
	pthread_mutex_lock(&rm->lock);
	/* reserve() made room and holds it */
	rm->reserved--;
	rm->objs[rm->count++] = (struct rm_obj){
		handle, hclass == GSPABI_K_NV01_ROOT ? 0 : hparent, client,
		hclass};
	pthread_mutex_unlock(&rm->lock);
	*handle_out = handle;
	nvl_free(msg);
	return 0;
out_unreserve:
	pthread_mutex_lock(&rm->lock);
	rm->reserved--;
	pthread_mutex_unlock(&rm->lock);
out:
	nvl_free(msg);
	return ret;
}

size_t nvl_gsp_rm_control_hdr(struct nvl_gsp *gsp)
{
	return wire_hdr(gsp, GSPABI_S_RM_CONTROL);
}

int nvl_gsp_rm_control_frame(struct nvl_gsp *gsp, uint32_t client,
			     uint32_t hobject, uint32_t cmd, const void *params,
			     size_t size, void *msg)
{
	const struct gspabi_version *v = gsp->q.abi;
	size_t hdr = wire_hdr(gsp, GSPABI_S_RM_CONTROL);
	struct gspabi_rm_control c = {
		.present = GSPABI_RM_CONTROL_HAS_HCLIENT |
			   GSPABI_RM_CONTROL_HAS_HOBJECT |
			   GSPABI_RM_CONTROL_HAS_CMD |
			   GSPABI_RM_CONTROL_HAS_STATUS |
			   GSPABI_RM_CONTROL_HAS_PARAMSSIZE,
		.hClient = client,
		.hObject = hobject,
		.cmd = cmd,
		.status = GSPABI_K_STATUS_NV_OK,
		.paramsSize = (uint32_t)size,
	};

	if (!hdr || size > UINT32_MAX ||
	    gspabi_pack(v, GSPABI_S_RM_CONTROL, &c, msg, hdr))
		return nvl_error(-EPROTO,
				 "gsp: cannot frame an RM control for %s",
				 v ? v->tag : "?");
	if (size && params)
		memcpy((uint8_t *)msg + hdr, params, size);
	return 0;
}

int nvl_gsp_rm_control_parse(struct nvl_gsp *gsp, uint32_t cmd, const void *msg,
			     size_t got, void *params, size_t size)
{
	const struct gspabi_version *v = gsp->q.abi;
	size_t hdr = wire_hdr(gsp, GSPABI_S_RM_CONTROL);
	struct gspabi_rm_control c;

	if (!hdr || got != hdr + size ||
	    gspabi_unpack(v, GSPABI_S_RM_CONTROL, msg, got, &c) ||
	    c.paramsSize != size || c.params != hdr)
		return nvl_error(
			-EPROTO,
			"gsp: RM control %#x reply of %zu bytes, expected %zu",
			cmd, got, hdr + size);
	if (c.status != GSPABI_K_STATUS_NV_OK)
		return nvl_error(nvl_gsp_status_errno(c.status),
				 "gsp: RM control %#x failed: %s", cmd,
				 nvl_gsp_status_name(c.status));
	if (size && params)
		memcpy(params, (const uint8_t *)msg + hdr, size);
	return 0;
}

int nvl_gsp_rm_control(struct nvl_gsp *gsp, uint32_t hobject, uint32_t cmd,
		       void *params, size_t size)
{
	const struct gspabi_version *v = gsp->q.abi;
	size_t hdr = wire_hdr(gsp, GSPABI_S_RM_CONTROL);
	uint32_t client = nvl_gsp_rm_client_of(gsp, hobject);
	size_t len = hdr + size, got = 0;
	uint8_t *msg;
	int ret;

	if (!client)
		return nvl_error(-ENOENT, "gsp: RM object %#x unknown",
				 hobject);
	if (size && !params)
		return nvl_error(-EINVAL, "gsp: RM control parameters missing");
	if (!hdr)
		return nvl_error(-EPROTO, "gsp: firmware %s has no RM control",
				 v ? v->tag : "?");
	if (size > NVL_GSP_MSG_MAX - hdr)
		return nvl_error(-EINVAL,
				 "gsp: RM control parameters too large");
	msg = nvl_malloc(len);
	if (!msg)
		return nvl_error(-ENOMEM, "gsp: no memory for an RM control");
	ret = nvl_gsp_rm_control_frame(gsp, client, hobject, cmd, params, size,
				       msg);
	if (ret)
		goto out;
	ret = nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_GSP_RM_CONTROL, msg, len, msg,
			  len, &got, NVL_GSP_REPLY_RECV, 0);
	if (ret)
		goto out;
	ret = nvl_gsp_rm_control_parse(gsp, cmd, msg, got, params, size);
out:
	nvl_free(msg);
	return ret;
}

/* forget @h and its descendants; rm->lock held */
static void forget(struct nvl_gsp_rm *rm, uint32_t h)
{
	for (unsigned i = 0; i < rm->count;) {
		if (rm->objs[i].parent == h && rm->objs[i].handle != h) {
			uint32_t c = rm->objs[i].handle;

			forget(rm, c);
			i = 0; /* the table moved */
			continue;
		}
		i++;
	}
	for (unsigned i = 0; i < rm->count; i++)
		if (rm->objs[i].handle == h) {
			rm->objs[i] = rm->objs[--rm->count];
			break;
		}
}

int nvl_gsp_rm_free(struct nvl_gsp *gsp, uint32_t handle)
{
	const struct gspabi_version *v = gsp->q.abi;
	size_t hdr = wire_hdr(gsp, GSPABI_S_RM_FREE);
	struct gspabi_rm_free f = {
		.present = GSPABI_RM_FREE_HAS_HROOT |
			   GSPABI_RM_FREE_HAS_HOBJECTPARENT |
			   GSPABI_RM_FREE_HAS_HOBJECTOLD |
			   GSPABI_RM_FREE_HAS_STATUS,
		.status = GSPABI_K_STATUS_NV_OK,
	};
	struct nvl_gsp_rm *rm = gsp->rm;
	uint8_t msg[64] = {0};
	struct rm_obj *o;
	int ret;

	if (!hdr || hdr > sizeof(msg))
		return nvl_error(-EPROTO, "gsp: firmware %s has no RM free",
				 v ? v->tag : "?");
	/* suspended: nothing is sent, so nothing is forgotten */
	if (atomic_load(&gsp->asleep))
		return nvl_error(
			-EAGAIN,
			"gsp: the device is suspended: resume it first");
	pthread_mutex_lock(&rm->lock);
	o = find(rm, handle);
	if (o) {
		f.hRoot = o->client;
		f.hObjectParent = o->parent ? o->parent : o->client;
		f.hObjectOld = handle;
	}
	pthread_mutex_unlock(&rm->lock);
	if (!o)
		return nvl_error(-ENOENT, "gsp: RM object %#x unknown", handle);
	if (gspabi_pack(v, GSPABI_S_RM_FREE, &f, msg, hdr))
		return nvl_error(-EPROTO, "gsp: cannot frame an RM free for %s",
				 v->tag);
	ret = nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_FREE, msg, hdr, msg, hdr, NULL,
			  NVL_GSP_REPLY_RECV, 0);
	pthread_mutex_lock(&rm->lock);
	forget(rm, handle);
	pthread_mutex_unlock(&rm->lock);
	return ret;
}

int nvl_gsp_rm_adopt(struct nvl_gsp *gsp, uint32_t client, uint32_t handle,
		     uint32_t parent, uint32_t hclass)
{
	struct nvl_gsp_rm *rm = gsp->rm;
	int ret = 0;

	pthread_mutex_lock(&rm->lock);
	if (find(rm, handle)) {
		ret = nvl_error(-EEXIST, "gsp: RM handle %#x already known",
				handle);
	} else if (rm->count + rm->reserved == rm->cap) {
		unsigned cap = rm->cap ? 2 * rm->cap : 16;
		struct rm_obj *n = nvl_reallocarray(rm->objs, cap, sizeof(*n));

		if (!n)
			ret = nvl_error(-ENOMEM,
					"gsp: no memory for an RM object");
		else
			rm->objs = n, rm->cap = cap;
	}
	if (!ret)
		rm->objs[rm->count++] =
			(struct rm_obj){handle, parent, client, hclass};
	pthread_mutex_unlock(&rm->lock);
	return ret;
}

void nvl_gsp_rm_forget_all(struct nvl_gsp *gsp)
{
	pthread_mutex_lock(&gsp->rm->lock);
	gsp->rm->count = 0;
	pthread_mutex_unlock(&gsp->rm->lock);
}

/* the largest parameter block the _abi calls pack (on the stack) */
#define RM_ABI_MAX 1024

/* pack @neutral (struct @id) for the booted version into @wire */
static int rm_abi_pack(struct nvl_gsp *gsp, unsigned id, void *neutral,
		       uint8_t *wire, size_t *size)
{
	const struct gspabi_version *v = gsp->abi;
	const struct gspabi_struct_ops *s;

	if (!v || id >= GSPABI_S__COUNT || !v->structs[id].present)
		return nvl_error(-EPROTO, "rm: firmware %s has no struct %u",
				 v ? v->tag : "(none)", id);
	s = &v->structs[id];
	if (s->wire_size > RM_ABI_MAX)
		return nvl_error(-EPROTO, "rm: %s: %s is %zu bytes", v->tag,
				 s->name, s->wire_size);
	/* every field the version has; the caller's struct is not written,
	 * so a refused pack changes nothing */
	if (gspabi_pack_as(v, id, neutral, s->fields, wire, s->wire_size))
		return nvl_error(-EPROTO, "rm: %s: %s does not pack", v->tag,
				 s->name);
	*size = s->wire_size;
	return 0;
}

int nvl_gsp_rm_alloc_abi(struct nvl_gsp *gsp, uint32_t hparent, uint32_t hclass,
			 unsigned id, void *neutral, uint32_t *handle_out)
{
	uint8_t wire[RM_ABI_MAX];
	size_t size = 0;
	int ret = rm_abi_pack(gsp, id, neutral, wire, &size);

	if (!ret)
		ret = nvl_gsp_rm_alloc(gsp, hparent, hclass, wire, size,
				       handle_out);
	if (!ret && gspabi_unpack(gsp->abi, id, wire, size, neutral))
		ret = nvl_error(-EPROTO, "rm: %s: reply does not unpack",
				gsp->abi->tag);
	return ret;
}

int nvl_gsp_rm_control_abi(struct nvl_gsp *gsp, uint32_t hobject, uint32_t cmd,
			   unsigned id, void *neutral)
{
	uint8_t wire[RM_ABI_MAX];
	size_t size = 0;
	int ret = rm_abi_pack(gsp, id, neutral, wire, &size);

	if (!ret)
		ret = nvl_gsp_rm_control(gsp, hobject, cmd, wire, size);
	if (!ret && gspabi_unpack(gsp->abi, id, wire, size, neutral))
		ret = nvl_error(-EPROTO, "rm: %s: reply does not unpack",
				gsp->abi->tag);
	return ret;
}

const struct gspabi_version *nvl_gsp_abi(struct nvl_gsp *gsp)
{
	return gsp->abi;
}
