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

int nvl_model_iommu_create(struct nvl_model *m);
void nvl_model_iommu_destroy(struct nvl_model *m);
int nvl_model_iommu_map(struct nvl_model *m, void *cpu, size_t len,
			uint64_t *dma_out);
int nvl_model_iommu_unmap(struct nvl_model *m, uint64_t dma, size_t len);
int nvl_model_iommu_access(struct nvl_model *m, uint64_t dma, void *buf,
			   size_t len, bool write);

/* ---- interrupts (intr.c) -------------------------------------------- */
int nvl_model_intr_init(struct nvl_model *m);
void nvl_model_intr_fini(struct nvl_model *m);
uint32_t nvl_model_intr_rd(struct nvl_model *m, uint32_t addr, bool *ok);
void nvl_model_intr_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
int nvl_model_intr_set_handler(struct nvl_model *m, nvl_hw_irq_fn fn,
			       void *arg);
/* deliver pending enabled interrupts (hub thread) */
void nvl_model_intr_deliver(struct nvl_model *m);

/* ---- fault buffers (fault.c) ---------------------------------------- */
int nvl_model_fault_init(struct nvl_model *m);
void nvl_model_fault_fini(struct nvl_model *m);
uint32_t nvl_model_fault_rd(struct nvl_model *m, uint32_t addr, bool *ok);
void nvl_model_fault_wr(struct nvl_model *m, uint32_t addr, uint32_t val);

/* ---- hub: asynchronous MMU invalidates, interrupt re-delivery,
 * sensor ticks (hub.c) ------------------------------------------------ */
int nvl_model_hub_create(struct nvl_model *m);
void nvl_model_hub_destroy(struct nvl_model *m);
uint32_t nvl_model_hub_rd(struct nvl_model *m, uint32_t addr, bool *ok);
void nvl_model_hub_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/* ask the hub thread to re-deliver interrupts */
void nvl_model_hub_kick_intr(struct nvl_model *m);

/* ---- sensors, power, clocks (pmu.c) ---------------------------------- */
int nvl_model_pmu_create(struct nvl_model *m);
void nvl_model_pmu_destroy(struct nvl_model *m);
uint32_t nvl_model_pmu_rd(struct nvl_model *m, uint32_t addr, bool *ok);
void nvl_model_pmu_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/* integrate power and temperature up to now; raise THERMAL on crossing */
void nvl_model_pmu_tick(struct nvl_model *m);

/* ---- FIFO: channels, runlists, PBDMA + engine threads (fifo.c) ------- */
int nvl_model_fifo_create(struct nvl_model *m);
void nvl_model_fifo_destroy(struct nvl_model *m);
uint32_t nvl_model_fifo_rd(struct nvl_model *m, uint32_t addr, bool *ok);
void nvl_model_fifo_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/*
 * nvl_model_fifo_chan_inst() - the instance block a channel is bound to.
 * Return: 0, or -ENOENT for an unbound or unknown channel.
 */
int nvl_model_fifo_chan_inst(struct nvl_model *m, unsigned chid,
			     enum nvl_hw_aperture *ap, uint64_t *addr);
/* busy nanoseconds of engine @e so far (for the PMU) */
uint64_t nvl_model_fifo_busy_ns(struct nvl_model *m, unsigned e);

#endif /* NVL_MODEL_PRIV_H */
