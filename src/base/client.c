// SPDX-License-Identifier: MIT
/*
 * DOC: Clients and handle tables
 *
 * One lock per client guards its tables: handle calls are short and a
 * client is normally used from few threads, so it is a futex lock
 * (base/flock.h: one atomic each way when free) rather than a pthread
 * mutex (about 55 instructions a pair); every exec looks two handles up. Object references are taken
 * under the lock and dropped outside it, so a put that frees an object (and
 * may take that object's own locks) never nests inside the table lock.
 * A caller may instead hold the lock over a short section that never waits
 * (nvl_client_lock()): what it found there with nvl_client_find_locked()
 * stays alive without a reference until it lets go (the bind path's
 * one-op call, which hands its VM over to the VM lock before that).
 */
#include <errno.h>
#include <stdatomic.h>

#include "alloc.h"
#include "client.h"
#include "log.h"

static const struct nvl_handle_ops *kind_ops[NVL_HANDLE_KIND_COUNT];
static atomic_uint_fast64_t next_client_id = 1;

void nvl_handle_kind_register(enum nvl_handle_kind kind,
			      const struct nvl_handle_ops *ops)
{
	kind_ops[kind] = ops;
}

int nvl_client_alloc(struct nvl_client_dev *dev, struct nvl_client **client_out)
{
	struct nvl_client *c = nvl_zalloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	nvl_kref_init(&c->ref);
	c->id = atomic_fetch_add(&next_client_id, 1);
	c->dev = dev;
	c->mm = dev ? dev->mm : NULL;
	nvl_list_init(&c->dev_node);
	nvl_list_init(&c->maps);
	nvl_flock_init(&c->lock);
	for (int k = 0; k < NVL_HANDLE_KIND_COUNT; k++)
		nvl_idr_init(&c->tables[k]);
	*client_out = c;
	return 0;
}

void nvl_client_get(struct nvl_client *c)
{
	nvl_kref_get(&c->ref);
}

static void drop_all(struct nvl_client *c, enum nvl_handle_kind kind)
{
	struct nvl_idr *t = &c->tables[kind];
	uint32_t id = 1;
	void *obj;

	while ((id = nvl_idr_next(t, id, &obj)) != 0) {
		nvl_idr_remove(t, id);
		if (kind_ops[kind] && kind_ops[kind]->put)
			kind_ops[kind]->put(obj);
	}
	nvl_idr_fini(t);
}

void nvl_client_put(struct nvl_client *c)
{
	if (!c || !nvl_kref_put(&c->ref))
		return;
	/*
	 * Close channels and queues before VMs, VMs before BOs and syncobjs:
	 * reverse order of the enum, which lists the kinds bottom-up.
	 */
	for (int k = NVL_HANDLE_KIND_COUNT - 1; k >= 0; k--) {
		if (kind_ops[k] && kind_ops[k]->release)
			kind_ops[k]->release(c);
		drop_all(c, (enum nvl_handle_kind)k);
	}
	nvl_free(c);
}

int nvl_client_handle_add(struct nvl_client *c, enum nvl_handle_kind kind,
			  void *obj, uint32_t *handle_out)
{
	int ret;

	nvl_client_lock(c);
	ret = nvl_idr_alloc(&c->tables[kind], obj, handle_out);
	if (!ret && kind_ops[kind] && kind_ops[kind]->get)
		kind_ops[kind]->get(obj);
	nvl_client_unlock(c);
	return ret;
}

void *nvl_client_handle_get(struct nvl_client *c, enum nvl_handle_kind kind,
			    uint32_t handle)
{
	void *obj;

	nvl_client_lock(c);
	obj = nvl_idr_find(&c->tables[kind], handle);
	if (obj && kind_ops[kind] && kind_ops[kind]->get)
		kind_ops[kind]->get(obj);
	nvl_client_unlock(c);
	return obj;
}

static void *get_locked(struct nvl_client *c, enum nvl_handle_kind kind,
			uint32_t handle)
{
	void *obj = nvl_idr_find(&c->tables[kind], handle);

	if (obj && kind_ops[kind] && kind_ops[kind]->get)
		kind_ops[kind]->get(obj);
	return obj;
}

void nvl_client_handle_get2(struct nvl_client *c, enum nvl_handle_kind kind1,
			    uint32_t handle1, void **obj1,
			    enum nvl_handle_kind kind2, uint32_t handle2,
			    void **obj2)
{
	nvl_client_lock(c);
	*obj1 = get_locked(c, kind1, handle1);
	*obj2 = get_locked(c, kind2, handle2);
	nvl_client_unlock(c);
}

int nvl_client_handle_remove(struct nvl_client *c, enum nvl_handle_kind kind,
			     uint32_t handle)
{
	void *obj;

	nvl_client_lock(c);
	obj = nvl_idr_remove(&c->tables[kind], handle);
	nvl_client_unlock(c);
	if (!obj) {
		static const char *const names[NVL_HANDLE_KIND_COUNT] = {
			"BO", "syncobj", "VM", "bind queue", "channel"};

		return nvl_error(-ENOENT, "client: no %s with handle %u",
				 (unsigned)kind < NVL_HANDLE_KIND_COUNT
					 ? names[kind]
					 : "object",
				 handle);
	}
	if (kind_ops[kind] && kind_ops[kind]->put)
		kind_ops[kind]->put(obj);
	return 0;
}

uint32_t nvl_client_handle_count(struct nvl_client *c,
				 enum nvl_handle_kind kind)
{
	uint32_t n;

	nvl_client_lock(c);
	n = c->tables[kind].count;
	nvl_client_unlock(c);
	return n;
}
