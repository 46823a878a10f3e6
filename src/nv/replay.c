// SPDX-License-Identifier: MIT
/*
 * DOC: replayable faults (docs/faults.md, docs/compute.md)
 *
 * The replayable fault buffer (buffer 1) is the driver's, as UVM owns it
 * on NVIDIA's stack: NVL_NV_REPLAY_PAGES pages of DMA-mapped system
 * memory programmed in FAULT_BUF_LO/HI/SIZE(1) with a physical address.
 * The FAULT_REPLAY stall interrupt only wakes the service thread, which
 * runs UVM's loop:
 *
 *  1. read PUT; take the entries from GET (each VALID, cleared after it
 *     is read), at most NVL_NV_REPLAY_BATCH; write GET; clear OVERFLOW;
 *  2. per entry (a second entry for the same instance block and page in
 *     the batch is a duplicate and skipped): instance block → live
 *     channel → its VM; nvl_vm_fault_map() writes the page of the BO bound
 *     there (a NVL_VM_BIND_LAZY mapping, or any mapping whose entry was
 *     not yet visible) and flushes the TLB;
 *  3. an entry nothing can service (no BO there, a write into a read-only
 *     mapping, no live channel) kills its channel exactly as a
 *     non-replayable fault does (MMU_FAULT, Xid 31, the VA, type, access
 *     and engine of the entry);
 *  4. one MMU_INVALIDATE with REPLAY = START after the batch, or
 *     CANCEL_GLOBAL when an entry was unserviceable (the model re-issues
 *     every parked access once more: serviced ones go on, the others
 *     fail and their channel gets RC, which finds it already killed).
 *
 * Servicing never allocates: the lazy mapping's page tables were
 * allocated by its bind.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gspabi.h"
#include "hw/fault.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "nouvelle/exec.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/gmmu.h"
#include "nv/replay.h"
#include "vm/vm.h"

#define PAGE 4096u

struct nvl_nv_replay {
	struct nvl_nv_device *d;
	uint8_t *mem;
	size_t size;
	uint64_t dma;
	uint32_t entries, get;
	const struct nvl_hw_mmu_engines *eng;
	uint32_t (*batch)[8];
	pthread_t thread;
	pthread_mutex_t lock; /* kick, stop, st */
	pthread_cond_t cond;
	bool kick, stop;
	struct {
		uint64_t faults, serviced, cancelled, replays, overflows;
	} st;
};

static void count(struct nvl_nv_replay *r, uint64_t *field)
{
	pthread_mutex_lock(&r->lock);
	(*field)++;
	pthread_mutex_unlock(&r->lock);
}

static uint64_t entry_page(const uint32_t e[8])
{
	return (uint64_t)e[NVL_HW_FAULT_ENTRY_ADDR_HI] << 32 |
	       (e[NVL_HW_FAULT_ENTRY_ADDR_LO] & 0xfffff000u);
}

static uint64_t entry_inst(const uint32_t e[8])
{
	return (uint64_t)e[NVL_HW_FAULT_ENTRY_INST_HI] << 32 |
	       (e[NVL_HW_FAULT_ENTRY_INST_LO] & 0xfffff000u);
}

/* kill the channel of an entry nothing can service */
static void unserviceable(struct nvl_nv_replay *r, const uint32_t e[8], int why)
{
	uint32_t info = e[NVL_HW_FAULT_ENTRY_INFO];
	struct nvl_nv_kill k = {
		.by_inst = true,
		.inst = entry_inst(e),
		.timestamp = (uint64_t)e[NVL_HW_FAULT_ENTRY_TIMESTAMP_HI]
				     << 32 |
			     e[NVL_HW_FAULT_ENTRY_TIMESTAMP_LO],
		.chan_error = -EFAULT,
		.job_error = -EFAULT,
		.xid = GSPABI_K_RC_ERROR_FIFO_ERROR_MMU_ERR_FLT,
		.reason = NVL_CHANNEL_MMU_FAULT,
		.fault_type = info & NVL_HW_FAULT_INFO_TYPE_MASK,
		.fault_access = info >> NVL_HW_FAULT_INFO_ACCESS_SHIFT &
				NVL_HW_FAULT_INFO_ACCESS_MASK,
		.fault_engine = e[NVL_HW_FAULT_ENTRY_ENGINE] & 0x1ffu,
		.fault_va = entry_page(e),
	};
	int ret;

	count(r, &r->st.cancelled);
	ret = nvl_nv_chan_kill(r->d, &k);
	nvl_warn(NVL_CAT_NV,
		 "replayable fault at VA %#llx (%s), instance %#llx: cannot "
		 "service it (%d): cancelled%s",
		 (unsigned long long)k.fault_va,
		 k.fault_access == NVL_HW_FAULT_ACCESS_READ ? "read" : "write",
		 (unsigned long long)k.inst, why,
		 ret > 0 ? ", channel killed" : "");
}

/* service entry @i of the batch; false when it must be cancelled */
static bool service(struct nvl_nv_replay *r, uint32_t i)
{
	const uint32_t *e = r->batch[i];
	uint32_t access =
		e[NVL_HW_FAULT_ENTRY_INFO] >> NVL_HW_FAULT_INFO_ACCESS_SHIFT &
		NVL_HW_FAULT_INFO_ACCESS_MASK;
	uint64_t page = entry_page(e), inst = entry_inst(e), pg, sz;
	uint64_t ts = (uint64_t)e[NVL_HW_FAULT_ENTRY_TIMESTAMP_HI] << 32 |
		      e[NVL_HW_FAULT_ENTRY_TIMESTAMP_LO];
	struct nvl_vm *vm;
	int ret;

	/* a duplicate in this batch: the first one serviced it */
	for (uint32_t j = 0; j < i; j++)
		if (entry_page(r->batch[j]) == page &&
		    entry_inst(r->batch[j]) == inst)
			return true;
	ret = nvl_nv_chan_vm_by_inst(r->d, inst, ts, &vm);
	if (!ret) {
		ret = nvl_vm_fault_map(
			vm, page,
			access != NVL_HW_FAULT_ACCESS_READ &&
				access != NVL_HW_FAULT_ACCESS_PREFETCH,
			&pg, &sz);
		nvl_vm_put(vm);
	}
	if (ret) {
		unserviceable(r, e, ret);
		return false;
	}
	count(r, &r->st.serviced);
	nvl_dbg(NVL_CAT_NV, "replayable fault at VA %#llx: mapped %#llx +%#llx",
		(unsigned long long)page, (unsigned long long)pg,
		(unsigned long long)sz);
	return true;
}

/* take up to a batch of entries from GET; Return: how many */
static uint32_t take(struct nvl_nv_replay *r)
{
	struct nvl_hw *hw = r->d->hw;
	uint32_t put, n = 0, g;

	put = nvl_hw_rd32(hw, NVL_HW_FAULT_BUF_PUT(NVL_HW_FAULT_BUF_REPLAY)) &
	      NVL_HW_FAULT_BUF_PTR_MASK;
	while (r->get != put && put < r->entries && n < NVL_NV_REPLAY_BATCH) {
		_Atomic uint32_t *valid =
			(_Atomic uint32_t *)(r->mem + (size_t)r->get * 32 +
					     4 * NVL_HW_FAULT_ENTRY_INFO);
		uint32_t info =
			atomic_load_explicit(valid, memory_order_acquire);

		/* PUT moves after VALID is written: never seen clear */
		if (!(info & NVL_HW_FAULT_INFO_VALID))
			break;
		memcpy(r->batch[n], r->mem + (size_t)r->get * 32, 32);
		r->batch[n][NVL_HW_FAULT_ENTRY_INFO] = info;
		atomic_store_explicit(valid, info & ~NVL_HW_FAULT_INFO_VALID,
				      memory_order_relaxed);
		r->get = (r->get + 1) % r->entries;
		n++;
	}
	nvl_hw_wr32(hw, NVL_HW_FAULT_BUF_GET(NVL_HW_FAULT_BUF_REPLAY), r->get);
	g = nvl_hw_rd32(hw, NVL_HW_FAULT_BUF_GET(NVL_HW_FAULT_BUF_REPLAY));
	if (g & NVL_HW_FAULT_BUF_GET_OVERFLOW) {
		/* dropped faults come back on the replay below */
		nvl_hw_wr32(hw, NVL_HW_FAULT_BUF_GET(NVL_HW_FAULT_BUF_REPLAY),
			    r->get | NVL_HW_FAULT_BUF_GET_OVERFLOW);
		count(r, &r->st.overflows);
	}
	return n;
}

static void drain(struct nvl_nv_replay *r)
{
	for (;;) {
		uint32_t n = take(r);
		bool cancel = false;
		int ret;

		if (!n)
			return;
		pthread_mutex_lock(&r->lock);
		r->st.faults += n;
		pthread_mutex_unlock(&r->lock);
		for (uint32_t i = 0; i < n; i++)
			if (!service(r, i))
				cancel = true;
		/* at least one replay per batch (UVM's rule) */
		ret = nvl_nv_gmmu_replay(
			r->d->hw,
			cancel ? NVL_HW_MMU_INVALIDATE_REPLAY_CANCEL_GLOBAL
			       : NVL_HW_MMU_INVALIDATE_REPLAY_START);
		if (ret)
			nvl_err(NVL_CAT_NV, "replay: %s", nvl_error_msg());
		count(r, &r->st.replays);
	}
}

static void *replay_main(void *arg)
{
	struct nvl_nv_replay *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		if (!r->kick) {
			pthread_cond_wait(&r->cond, &r->lock);
			continue;
		}
		r->kick = false;
		pthread_mutex_unlock(&r->lock);
		drain(r);
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

NVL_HOT void nvl_nv_irq(void *dev)
{
	struct nvl_nv_device *d = dev;
	struct nvl_nv_replay *r = d->replay;
	uint32_t st;

	nvl_nv_chan_irq(dev);
	if (!r)
		return;
	st = nvl_hw_rd32(d->hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL));
	if (!(st & NVL_HW_INTR_FAULT_REPLAY))
		return;
	nvl_hw_wr32(d->hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_STALL),
		    NVL_HW_INTR_FAULT_REPLAY);
	pthread_mutex_lock(&r->lock);
	r->kick = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

int nvl_nv_replay_init(struct nvl_nv_device *d, unsigned arch)
{
	struct nvl_nv_replay *r;
	void *mem;
	int ret;

	r = nvl_zalloc(sizeof(*r));
	if (!r)
		return nvl_error(-ENOMEM, "replay: out of memory");
	r->d = d;
	r->eng = nvl_hw_mmu_engines(arch);
	r->size = (size_t)NVL_NV_REPLAY_PAGES * PAGE;
	r->entries = (uint32_t)(r->size / NVL_HW_FAULT_ENTRY_SIZE);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->batch = nvl_calloc(NVL_NV_REPLAY_BATCH, sizeof(*r->batch));
	if (!r->batch) {
		ret = nvl_error(-ENOMEM, "replay: out of memory");
		goto fail_free;
	}
	ret = nvl_nv_sysmem_alloc(d, r->size, &mem, &r->dma);
	if (ret) {
		char why[160];

		snprintf(why, sizeof(why), "%s", nvl_error_msg());
		ret = nvl_error(ret, "replay: fault buffer: %s", why);
		goto fail_free;
	}
	r->mem = mem;
	ret = nvl_might_alloc(0);
	if (!ret)
		ret = -pthread_create(&r->thread, NULL, replay_main, r);
	if (ret) {
		ret = nvl_error(ret, "replay: no service thread");
		goto fail_dma;
	}
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_LO(NVL_HW_FAULT_BUF_REPLAY),
		    NVL_HW_FAULT_BUF_LO_PHYS(r->dma,
					     NVL_HW_FAULT_APERTURE_SYS_COH));
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_HI(NVL_HW_FAULT_BUF_REPLAY),
		    (uint32_t)(r->dma >> 32));
	/* writing SIZE resets GET and PUT */
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_SIZE(NVL_HW_FAULT_BUF_REPLAY),
		    r->entries | NVL_HW_FAULT_BUF_SIZE_ENABLE);
	d->replay = r;
	nvl_hw_wr32(d->hw, NVL_HW_INTR_EN_SET(NVL_HW_INTR_TREE_STALL),
		    NVL_HW_INTR_FAULT_REPLAY);
	return 0;
fail_dma:
	nvl_nv_sysmem_free(d, r->mem, r->size, r->dma);
fail_free:
	nvl_free(r->batch);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	nvl_free(r);
	return ret;
}

void nvl_nv_replay_fini(struct nvl_nv_device *d)
{
	struct nvl_nv_replay *r = d->replay;

	if (!r)
		return;
	nvl_hw_wr32(d->hw, NVL_HW_INTR_EN_CLEAR(NVL_HW_INTR_TREE_STALL),
		    NVL_HW_INTR_FAULT_REPLAY);
	nvl_hw_wr32(d->hw, NVL_HW_FAULT_BUF_SIZE(NVL_HW_FAULT_BUF_REPLAY), 0);
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	d->replay = NULL;
	nvl_nv_sysmem_free(d, r->mem, r->size, r->dma);
	nvl_free(r->batch);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	nvl_free(r);
}

void nvl_nv_replay_stats(struct nvl_nv_device *d, struct nvl_fault_stats *st)
{
	struct nvl_nv_replay *r = d->replay;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	st->replayable = r->st.faults;
	st->serviced = r->st.serviced;
	st->cancelled = r->st.cancelled;
	st->replays = r->st.replays;
	st->replay_overflows = r->st.overflows;
	pthread_mutex_unlock(&r->lock);
}
