/* SPDX-License-Identifier: MIT */
/*
 * Clients ("files"): every uAPI call takes one. A client owns one handle
 * table per object kind (BOs, syncobjs, VMs, ...), the way a DRM file owns its
 * GEM and syncobj IDRs. Handles are per client and start at 1.
 *
 * Each layer registers its kind's reference ops once (nvl_handle_kind_register)
 * so that lookups can take a reference under the table lock, and destroying
 * the client drops every handle it still holds.
 */
#ifndef NVL_BASE_CLIENT_H
#define NVL_BASE_CLIENT_H

#include <stdatomic.h>
#include <stdint.h>
#include "compiler.h"
#include "flock.h"
#include "idr.h"
#include "list.h"
#include "refcount.h"

enum nvl_handle_kind {
	NVL_HANDLE_BO = 0,
	NVL_HANDLE_SYNCOBJ,
	NVL_HANDLE_VM,
	NVL_HANDLE_BIND_QUEUE,
	NVL_HANDLE_CHANNEL,
	NVL_HANDLE_KIND_COUNT
};

/* Engine classes a client's busy time is charged to (DRM fdinfo). */
enum nvl_client_engine {
	NVL_CLIENT_ENGINE_COPY = 0,
	NVL_CLIENT_ENGINE_COMPUTE,
	NVL_CLIENT_ENGINE_COUNT
};

struct nvl_client;

/** struct nvl_handle_ops - how handles of one kind hold their object. */
struct nvl_handle_ops {
	/** @get: take a reference (called under the table lock) */
	void (*get)(void *obj);
	/** @put: drop a reference (called outside the table lock) */
	void (*put)(void *obj);
	/**
	 * @release: optional: the client is going; end what it holds of
	 * this kind besides its handles (the CPU mappings of BOs), before
	 * its handles of the kind are dropped
	 */
	void (*release)(struct nvl_client *c);
};

struct nvl_mm;
struct nvl_vm_backend;
struct nvl_device;

/**
 * struct nvl_client_dev - what a device hands its clients, owned by the
 * device (the driver embeds it in its device) and read by the generic
 * layers, typed, instead of process-wide hooks.
 */
struct nvl_client_dev {
	/** @mm: the device's memory manager, where its clients' BOs live */
	struct nvl_mm *mm;
	/**
	 * @vm_backend: make the page-table backend of a new VM of one of
	 * its clients (NULL: the recording backend). Return: 0 or a
	 * negative errno.
	 */
	int (*vm_backend)(struct nvl_client_dev *cdev,
			  struct nvl_vm_backend *out);
};

struct nvl_client {
	struct nvl_kref ref;
	uint64_t id;
	/** @dev: what its device gives it; NULL for device-less clients
	 * (the generic layers' tests) */
	struct nvl_client_dev *dev;
	/** @mm: its memory manager: the device's, or one a device-less
	 * client was given; NULL: the process default (device-less only) */
	struct nvl_mm *mm;
	/** @nchannels: channels it owns (the driver's per-client limit) */
	atomic_uint nchannels;
	/** @caps: rights the device's opener granted (NVL_CLIENT_* flags) */
	uint32_t caps;
	struct nvl_flock lock; /* protects tables[] (base/flock.h) */
	struct nvl_idr tables[NVL_HANDLE_KIND_COUNT];
	/** @engine_ns: GPU time its jobs kept each engine class busy (ns,
	 * atomic; the driver adds, fdinfo reads) */
	uint64_t engine_ns[NVL_CLIENT_ENGINE_COUNT];
	/** @name: drm-client-name (empty: none); set once before use */
	char name[64];
	/** @hangs: its jobs that timed out (atomic; the driver bans the
	 * client at NVL_NV_HANG_BAN) */
	_Atomic uint32_t hangs;
	/** @dev_node: on its public device's client list; @udev: that
	 * device, NULL for device-less clients */
	struct nvl_list dev_node;
	struct nvl_device *udev;
	/** @maps: its CPU mappings of BOs (mm's records, under its memory
	 * manager's lock), ended when it goes */
	struct nvl_list maps;
};

/** nvl_handle_kind_register() - set the ops for @kind (once, at start-up). */
void nvl_handle_kind_register(enum nvl_handle_kind kind,
			      const struct nvl_handle_ops *ops);

/**
 * nvl_client_alloc() - a new client with empty tables.
 * @dev: what its device gives it (memory manager, VM backend), or NULL
 * @client_out: the client
 * Return: 0 or -ENOMEM.
 */
int nvl_client_alloc(struct nvl_client_dev *dev,
		     struct nvl_client **client_out) NVL_MUST_CHECK;

/** nvl_client_get() / nvl_client_put() - refcount; the last put frees. */
void nvl_client_get(struct nvl_client *c);
void nvl_client_put(struct nvl_client *c);

/**
 * nvl_client_handle_add() - create a handle for @obj; the handle takes its
 * own reference through the kind's get().
 * Return: 0, -ENOMEM or -ENOSPC.
 */
int nvl_client_handle_add(struct nvl_client *c, enum nvl_handle_kind kind,
			  void *obj, uint32_t *handle_out) NVL_MUST_CHECK;

/**
 * nvl_client_handle_get() - look up @handle and take a reference.
 * Return: the object, or NULL (unknown handle; caller reports its errno).
 */
void *nvl_client_handle_get(struct nvl_client *c, enum nvl_handle_kind kind,
			    uint32_t handle);

/**
 * nvl_client_handle_get2() - two nvl_client_handle_get() in one lock round
 * trip (a bind's VM and BO): *@obj1 and *@obj2, each with a reference or
 * NULL; a zero handle gives NULL.
 */
void nvl_client_handle_get2(struct nvl_client *c, enum nvl_handle_kind kind1,
			    uint32_t handle1, void **obj1,
			    enum nvl_handle_kind kind2, uint32_t handle2,
			    void **obj2);

/**
 * nvl_client_lock() - hold @c's handle tables, for a short section that
 * never waits for anything: objects found with nvl_client_find_locked()
 * stay alive (their handles hold them) until nvl_client_unlock(). The
 * bind path's one-op call pins its VM and BO this way instead of taking
 * and dropping a reference on each.
 */
static inline void nvl_client_lock(struct nvl_client *c)
{
	nvl_flock_lock(&c->lock);
}

/** nvl_client_unlock() - release nvl_client_lock(). */
static inline void nvl_client_unlock(struct nvl_client *c)
{
	nvl_flock_unlock(&c->lock);
}

/*
 * Read sections (issue 19): handle lookups without the client's lock. A
 * thread announces a section in its own reader record (a sequence number,
 * odd inside), then reads VM and BO handles with nvl_client_find_rcu():
 * what it finds stays alive until nvl_client_read_end(), because closing a
 * VM or BO handle waits, between taking the handle out of the table and
 * dropping the handle's reference, until every section that began before
 * has ended (a grace period: nvl_client_handle_remove()). So a section
 * pins what it found exactly as nvl_client_lock() does, without a locked
 * instruction: entering and leaving are plain stores where the process can
 * make the remover's side a barrier on every thread (membarrier), else the
 * entry is one sequentially consistent store. A section never waits for
 * anything and never closes a handle; it does not nest.
 */

/** struct nvl_client_reader - a thread's reader record (base/client.c). */
struct nvl_client_reader {
	/**
	 * @seq: 0 until registered, then even, odd inside a read section;
	 * written by its thread only
	 */
	_Atomic uint64_t seq;
	/** @node: on the list of registered readers */
	struct nvl_list node;
};

/* initial-exec: no __tls_get_addr() call in the shared library */
extern _Thread_local struct nvl_client_reader nvl_client_reader_self
	__attribute__((tls_model("initial-exec")));
/* the remover's side is a process-wide barrier (membarrier) */
extern bool nvl_client_read_asym;

/* register the calling thread's record; Return: false if it cannot be */
bool nvl_client_reader_register(void);

#if defined(__SANITIZE_THREAD__)
#define NVL_CLIENT_READ_ASYM 0 /* TSan sees no barrier a syscall makes */
#else
#define NVL_CLIENT_READ_ASYM 1
#endif

/**
 * nvl_client_read_begin() - enter a read section (see above).
 * Return: false when this thread cannot have one (its registration
 * failed): the caller takes nvl_client_lock() instead.
 */
static inline bool nvl_client_read_begin(void)
{
	struct nvl_client_reader *r = &nvl_client_reader_self;
	uint64_t s = atomic_load_explicit(&r->seq, memory_order_relaxed);

	if (unlikely(!s)) {
		if (!nvl_client_reader_register())
			return false;
		s = atomic_load_explicit(&r->seq, memory_order_relaxed);
	}
	(void)NVL_NEVER(s & 1);
	if (NVL_CLIENT_READ_ASYM && likely(nvl_client_read_asym)) {
		atomic_store_explicit(&r->seq, s + 1, memory_order_relaxed);
		/* the remover's membarrier orders this store before its scan */
		atomic_signal_fence(memory_order_seq_cst);
	} else {
		atomic_store_explicit(&r->seq, s + 1, memory_order_seq_cst);
	}
	return true;
}

/** nvl_client_read_end() - leave the read section. */
static inline void nvl_client_read_end(void)
{
	struct nvl_client_reader *r = &nvl_client_reader_self;
	uint64_t s = atomic_load_explicit(&r->seq, memory_order_relaxed);

	(void)NVL_NEVER(!(s & 1));
	/* release: every read of the section comes before the remover's put */
	atomic_store_explicit(&r->seq, s + 1, memory_order_release);
}

/**
 * nvl_client_find_rcu() - the VM or BO behind @handle, without a reference
 * and without the client's lock, inside nvl_client_read_begin() and
 * nvl_client_read_end(); it stays alive until the section ends (its
 * handle's reference is dropped only after that). @kind: NVL_HANDLE_VM or
 * NVL_HANDLE_BO.
 * Return: the object, or NULL.
 */
static inline void *nvl_client_find_rcu(struct nvl_client *c,
					enum nvl_handle_kind kind,
					uint32_t handle)
{
	return nvl_idr_find_rcu(&c->tables[kind], handle);
}

/**
 * nvl_client_synchronize() - wait until every read section that began
 * before this call has ended (a grace period). Never call it inside one.
 */
void nvl_client_synchronize(void);

/**
 * nvl_client_find_locked() - the object behind @handle, without a
 * reference (the caller holds nvl_client_lock()).
 * Return: the object, or NULL.
 */
static inline void *nvl_client_find_locked(struct nvl_client *c,
					   enum nvl_handle_kind kind,
					   uint32_t handle)
{
	return nvl_idr_find(&c->tables[kind], handle);
}

/**
 * nvl_client_handle_remove() - close @handle, dropping its reference. For
 * the kinds read in read sections (VM, BO) the reference is dropped after
 * a grace period (nvl_client_synchronize()): a section that found the
 * object before it left the table still holds it.
 * Return: 0, or -ENOENT for an unknown handle.
 */
int nvl_client_handle_remove(struct nvl_client *c, enum nvl_handle_kind kind,
			     uint32_t handle);

/** nvl_client_handle_count() - live handles of @kind. */
uint32_t nvl_client_handle_count(struct nvl_client *c,
				 enum nvl_handle_kind kind);

#endif /* NVL_BASE_CLIENT_H */
