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
 *
 * Read sections (client.h) pin VMs and BOs without the lock: the VM and BO
 * tables are rcu idrs (base/idr.h), and closing such a handle waits for a
 * grace period before it drops the handle's reference, so whatever a
 * section found is alive until it ends. A grace period: the remover took
 * the handle out of the table (a sequentially consistent store); then,
 * where membarrier(2) can make every running thread of the process execute
 * a full barrier, it does so (the readers' entries are plain stores), and
 * it reads every registered reader's sequence number and waits for each
 * odd one to change. Either a reader's announcement is seen (and waited
 * for) or that reader's lookup sees the handle gone: the store-then-load
 * handshake of both sides. Readers register once per thread on a global
 * list (a pthread key's destructor takes them off when the thread ends);
 * sections are short and never wait, so neither does a grace period for
 * long. Freed with a grace period too: the slot arrays a table outgrew.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc.h"
#include "client.h"
#include "log.h"

static const struct nvl_handle_ops *kind_ops[NVL_HANDLE_KIND_COUNT];
static atomic_uint_fast64_t next_client_id = 1;

/* the kinds read in read sections (nvl_client_find_rcu()) */
static bool kind_rcu(enum nvl_handle_kind kind)
{
	return kind == NVL_HANDLE_VM || kind == NVL_HANDLE_BO;
}

_Thread_local struct nvl_client_reader nvl_client_reader_self
	__attribute__((tls_model("initial-exec")));
bool nvl_client_read_asym;

static pthread_once_t readers_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvl_list readers = {&readers, &readers};
static pthread_key_t reader_key;
static bool reader_key_ok;

static void reader_exit(void *arg)
{
	struct nvl_client_reader *r = arg;

	pthread_mutex_lock(&readers_lock);
	nvl_list_del(&r->node);
	/* unregistered: a later section in this thread registers again */
	atomic_store_explicit(&r->seq, 0, memory_order_relaxed);
	pthread_mutex_unlock(&readers_lock);
}

static void readers_init(void)
{
	reader_key_ok = !pthread_key_create(&reader_key, reader_exit);
	if (NVL_CLIENT_READ_ASYM &&
	    !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		     0, 0))
		__atomic_store_n(&nvl_client_read_asym, true, __ATOMIC_RELAXED);
}

bool nvl_client_reader_register(void)
{
	struct nvl_client_reader *r = &nvl_client_reader_self;

	pthread_once(&readers_once, readers_init);
	if (!reader_key_ok)
		return false;
	pthread_mutex_lock(&readers_lock);
	nvl_list_add_tail(&r->node, &readers);
	atomic_store_explicit(&r->seq, 2, memory_order_relaxed);
	pthread_mutex_unlock(&readers_lock);
	/* the destructor runs only for a non-NULL value */
	if (pthread_setspecific(reader_key, r)) {
		reader_exit(r);
		return false;
	}
	return true;
}

void nvl_client_synchronize(void)
{
	struct nvl_client_reader *r;

	/* decides nvl_client_read_asym before any reader can use it */
	pthread_once(&readers_once, readers_init);
	if (nvl_client_read_asym &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
		nvl_warn(NVL_CAT_CORE, "client: membarrier failed");
	pthread_mutex_lock(&readers_lock);
	nvl_list_for_each_entry (r, &readers, node) {
		uint64_t s =
			atomic_load_explicit(&r->seq, memory_order_seq_cst);

		if (!(s & 1))
			continue;
		if (NVL_NEVER(r == &nvl_client_reader_self))
			continue; /* inside a section itself: a caller's bug */
		while (atomic_load_explicit(&r->seq, memory_order_acquire) == s)
			sched_yield();
	}
	pthread_mutex_unlock(&readers_lock);
}

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
	for (int k = 0; k < NVL_HANDLE_KIND_COUNT; k++) {
		if (kind_rcu((enum nvl_handle_kind)k))
			nvl_idr_init_rcu(&c->tables[k]);
		else
			nvl_idr_init(&c->tables[k]);
	}
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

NVL_HOT void *nvl_client_handle_get(struct nvl_client *c,
				    enum nvl_handle_kind kind, uint32_t handle)
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
	void **retired = NULL;
	void *obj;

	nvl_client_lock(c);
	obj = nvl_idr_remove(&c->tables[kind], handle);
	if (obj && kind_rcu(kind))
		retired = nvl_idr_take_retired(&c->tables[kind]);
	nvl_client_unlock(c);
	if (obj && kind_rcu(kind)) {
		/* a read section that found it before it left ends first */
		nvl_client_synchronize();
		nvl_idr_free_retired(retired);
	}
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
