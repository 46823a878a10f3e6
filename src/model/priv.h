/* SPDX-License-Identifier: MIT */
/*
 * Private state of the model's blocks, shared between the model sources only.
 */
#ifndef NVL_MODEL_PRIV_H
#define NVL_MODEL_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/itree.h"
#include "base/list.h"
#include "model/model.h"

/* ---- IOMMU (iommu.c) ------------------------------------------------ */
struct nvl_model_iommu {
	pthread_rwlock_t lock;
	struct nvl_itree tree; /* struct nvl_model_dma_map by DMA address */
	uint64_t next_dma;
	uint64_t nr_maps;
};

/**
 * nvl_model_iommu_create() - create the DMA table of @m.
 * Return: 0 or -ENOMEM.
 */
int nvl_model_iommu_create(struct nvl_model *m);
/**
 * nvl_model_iommu_destroy() - free the DMA table and every mapping left.
 */
void nvl_model_iommu_destroy(struct nvl_model *m);
/**
 * nvl_model_iommu_map() - hw op dma_map: map whole pages at a fresh DMA address.
 * Return: 0, -EINVAL (not whole pages) or -ENOMEM.
 */
int nvl_model_iommu_map(struct nvl_model *m, void *cpu, size_t len,
			uint64_t *dma_out);
/**
 * nvl_model_iommu_unmap() - hw op dma_unmap of exactly one earlier mapping.
 * Return: 0 or -ENOENT.
 */
int nvl_model_iommu_unmap(struct nvl_model *m, uint64_t dma, size_t len);
/**
 * nvl_model_iommu_access() - copy to or from DMA address @dma.
 * Return: 0, or -EFAULT when any byte is not mapped.
 */
int nvl_model_iommu_access(struct nvl_model *m, uint64_t dma, void *buf,
			   size_t len, bool write);
/**
 * nvl_model_phys_copy() - copy @len bytes from physical @sa (aperture
 * @sap) to physical @da (@dap) directly, one memcpy per run that is
 * contiguous on both sides (VRAM, or one DMA mapping), holding the IOMMU
 * lock so that no mapping goes away under the copy. The same translation
 * as nvl_model_phys_access(): VRAM offsets, DMA addresses.
 * Return: 0, or -EFAULT at the first byte outside VRAM or every mapping
 * (the bytes before it are copied, as a copy engine's would be).
 */
int nvl_model_phys_copy(struct nvl_model *m, enum nvl_hw_aperture dap,
			uint64_t da, enum nvl_hw_aperture sap, uint64_t sa,
			uint64_t len);
/**
 * nvl_model_phys_fill() - fill @len bytes at physical @pa (aperture @ap)
 * with the four-byte @pattern (byte 0 at @pa), directly, run by run.
 * Return: 0, or -EFAULT as nvl_model_phys_copy().
 */
int nvl_model_phys_fill(struct nvl_model *m, enum nvl_hw_aperture ap,
			uint64_t pa, uint32_t pattern, uint64_t len);

/**
 * nvl_model_phys_visit() - call @fn on each run of @len bytes at physical
 * @pa (aperture @ap) that is contiguous in memory, in order, holding the
 * IOMMU lock so that no mapping goes away under it: a device's single
 * pass over memory (copy and checksum at once) without a staging copy.
 * @fn must not block or call back into the IOMMU.
 * Return: 0, or -EFAULT at the first byte outside VRAM or every mapping
 * (@fn has seen the runs before it).
 */
int nvl_model_phys_visit(struct nvl_model *m, enum nvl_hw_aperture ap,
			 uint64_t pa, size_t len,
			 void (*fn)(void *arg, uint8_t *p, size_t n),
			 void *arg);

/* ---- interrupts (intr.c) -------------------------------------------- */
/**
 * nvl_model_intr_init() - set up the interrupt state. Return: 0.
 */
int nvl_model_intr_init(struct nvl_model *m);
/**
 * nvl_model_intr_fini() - tear down the interrupt state.
 */
void nvl_model_intr_fini(struct nvl_model *m);
/**
 * nvl_model_intr_rd() - read an INTR_* register; *@ok = false if unknown.
 * Return: the value.
 */
uint32_t nvl_model_intr_rd(struct nvl_model *m, uint32_t addr, bool *ok);
/**
 * nvl_model_intr_wr() - write an INTR_* register (W1C status, enable set/clear).
 */
void nvl_model_intr_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/**
 * nvl_model_intr_set_fw() - route stall bits @mask to @fn (the GSP
 * firmware), which returns true when it takes them; NULL @fn removes it
 * (returns once no raise can still call the old one). Each raise @fn
 * took then calls @run once on the raising thread, after intr_lock is
 * dropped (the firmware services it there when it is idle).
 */
void nvl_model_intr_set_fw(struct nvl_model *m, uint32_t mask,
			   bool (*fn)(void *arg, uint32_t bits),
			   void (*run)(void *arg), void *arg);
/**
 * nvl_model_intr_set_handler() - hw op set_irq_handler. Return: 0.
 */
int nvl_model_intr_set_handler(struct nvl_model *m, nvl_hw_irq_fn fn,
			       void *arg);
/**
 * nvl_model_intr_deliver() - call the handler if anything enabled is pending (hub thread).
 */
void nvl_model_intr_deliver(struct nvl_model *m);

/* ---- fault buffers (fault.c) ---------------------------------------- */
/**
 * nvl_model_fault_init() - set up the fault-buffer state. Return: 0.
 */
int nvl_model_fault_init(struct nvl_model *m);
/**
 * nvl_model_fault_fini() - tear down the fault-buffer state.
 */
void nvl_model_fault_fini(struct nvl_model *m);
/**
 * nvl_model_fault_rd() - read a FAULT_BUF_* register; *@ok = false if unknown.
 * Return: the value.
 */
uint32_t nvl_model_fault_rd(struct nvl_model *m, uint32_t addr, bool *ok);
/**
 * nvl_model_fault_wr() - write a FAULT_BUF_* register.
 */
void nvl_model_fault_wr(struct nvl_model *m, uint32_t addr, uint32_t val);

/* ---- replayable faults (replay.c) ---------------------------------- */
/** nvl_model_replay_init() - set up the parking state. Return: 0. */
int nvl_model_replay_init(struct nvl_model *m);
/** nvl_model_replay_fini() - tear it down (nothing parked). */
void nvl_model_replay_fini(struct nvl_model *m);
/** nvl_model_replay_shutdown() - fail every parked access, and new ones. */
void nvl_model_replay_shutdown(struct nvl_model *m);
/**
 * nvl_model_replay_park() - park an SM access that missed in a replayable
 * VA space: write its packet to the replayable buffer and wait.
 * @f: the fault (->replayable is forced)
 * @stop: the grid's stop flag (a parked access gives up once it is set)
 *
 * Return: 0 after a REPLAY START (re-issue the access); -ECANCELED after a
 * cancel (re-issue it once; a miss fails); -ENODEV (powering off or @stop)
 * or -ETIMEDOUT (no replay in time): the access fails.
 */
int nvl_model_replay_park(struct nvl_model *m, const struct nvl_model_fault *f,
			  const _Atomic bool *stop);
/**
 * nvl_model_replay_request() - the REPLAY field of an MMU_INVALIDATE
 * request (called once its TLB invalidate is done).
 */
void nvl_model_replay_request(struct nvl_model *m, uint32_t inval);
/** nvl_model_replay_parked() - accesses parked now (for tests). */
uint32_t nvl_model_replay_parked(struct nvl_model *m);

/* ---- hub: asynchronous MMU invalidates, interrupt re-delivery,
 * sensor ticks (hub.c) ------------------------------------------------ */
/**
 * nvl_model_hub_create() - start the hub thread.
 * Return: 0 or -ENOMEM.
 */
int nvl_model_hub_create(struct nvl_model *m);
/**
 * nvl_model_hub_destroy() - stop and free the hub.
 */
void nvl_model_hub_destroy(struct nvl_model *m);
/**
 * nvl_model_hub_rd() - read an MMU_INVALIDATE_* register; *@ok = false if unknown.
 * Return: the value.
 */
uint32_t nvl_model_hub_rd(struct nvl_model *m, uint32_t addr, bool *ok);
/**
 * nvl_model_hub_wr() - write an MMU_INVALIDATE_* register; TRIGGER
 * invalidates before returning.
 */
void nvl_model_hub_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/**
 * nvl_model_hub_kick_intr() - ask the hub thread to re-deliver pending interrupts.
 */
void nvl_model_hub_kick_intr(struct nvl_model *m);

/* ---- sensors, power, clocks (pmu.c) ---------------------------------- */
/**
 * nvl_model_pmu_create() - create the sensor/clock state.
 * Return: 0 or -ENOMEM.
 */
int nvl_model_pmu_create(struct nvl_model *m);
/**
 * nvl_model_pmu_destroy() - free the sensor/clock state.
 */
void nvl_model_pmu_destroy(struct nvl_model *m);
/**
 * nvl_model_pmu_rd() - read a sensor, power or clock register; *@ok = false if unknown.
 * Return: the value.
 */
uint32_t nvl_model_pmu_rd(struct nvl_model *m, uint32_t addr, bool *ok);
/**
 * nvl_model_pmu_wr() - write ambient, slowdown, power limit or P-state.
 */
void nvl_model_pmu_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/**
 * nvl_model_pmu_tick() - integrate power and temperature up to now; raises THERMAL
 * on an upward crossing of the slowdown limit.
 */
void nvl_model_pmu_tick(struct nvl_model *m);

/* ---- FIFO: channels, runlists, PBDMA + engine threads (fifo.c) ------- */
/**
 * nvl_model_fifo_create() - create channels and runlists and start one thread per runlist.
 * Return: 0 or -ENOMEM.
 */
int nvl_model_fifo_create(struct nvl_model *m);
/**
 * nvl_model_fifo_destroy() - stop the runlist threads and free the FIFO.
 */
void nvl_model_fifo_destroy(struct nvl_model *m);
/**
 * nvl_model_fifo_rd() - read a channel-RAM, CHERR, engine or reset register;
 * *@ok = false if unknown. Return: the value.
 */
uint32_t nvl_model_fifo_rd(struct nvl_model *m, uint32_t addr, bool *ok);
/**
 * nvl_model_fifo_wr() - write a channel-RAM, CHERR, engine, reset or doorbell register.
 */
void nvl_model_fifo_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/**
 * nvl_model_fifo_chan_inst() - the instance block a channel is bound to.
 * Return: 0, or -ENOENT for an unbound or unknown channel.
 */
int nvl_model_fifo_chan_inst(struct nvl_model *m, unsigned chid,
			     enum nvl_hw_aperture *ap, uint64_t *addr);
/**
 * nvl_model_fifo_busy_ns() - busy nanoseconds of engine @e so far. Return: the count.
 */
uint64_t nvl_model_fifo_busy_ns(struct nvl_model *m, unsigned e);

#endif /* NVL_MODEL_PRIV_H */
