/* SPDX-License-Identifier: MIT */
/*
 * The GPU model: one device instance.
 *
 * A model is what the driver finds behind the hardware interface
 * (hw/hwif.h) when there is no real GPU: BAR0 registers, VRAM behind a BAR
 * aperture, an IOMMU-like table of DMA-mapped system pages, and an
 * interrupt line. Inside it runs one thread per PBDMA/engine pair and one
 * "hub" thread for asynchronous MMU work, so work completes asynchronously
 * as on hardware.
 *
 * The model is hardware: its locks are plain pthread mutexes, it never calls
 * driver code except the interrupt callback the driver installed, and it
 * never includes driver headers. It shares only src/hw/ with the driver.
 *
 * Contract with the model MMU (model/mmu.h, the page-table walker): every
 * engine access to a GPU virtual address goes through nvl_model_vm_access();
 * the walker reads tables and data with nvl_model_phys_access() and records
 * faults with nvl_model_fault_report().
 */
#ifndef NVL_MODEL_MODEL_H
#define NVL_MODEL_MODEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/compiler.h"
#include "hw/aperture.h"
#include "hw/hwif.h"
#include "hw/regs.h"
#include "sync/flock.h"

struct nvl_hw_mmu_engines;

struct nvl_model_mmu;
struct nvl_model_fifo;
struct nvl_model_iommu;
struct nvl_model_pmu;
struct nvl_model_hub;
struct nvl_model_gsp;

/** Maximum performance states in a profile. */
#define NVL_MODEL_MAX_PSTATES 4

/** struct nvl_model_pstate - one performance state. */
struct nvl_model_pstate {
	/** @id: the P-state number (0 = fastest) */
	unsigned id;
	/** @gpc_mhz: graphics clock */
	unsigned gpc_mhz;
	/** @mem_mhz: memory clock */
	unsigned mem_mhz;
};

/**
 * struct nvl_model_profile - what a chip is.
 *
 * Profiles are constant tables (model/profile.c); nvl_model_profile_find()
 * looks one up by name.
 */
struct nvl_model_profile {
	/** @name: "tu102", "ga102", "ad102", "gh100", "tiny" */
	const char *name;
	/** @family: "Turing", "Ampere", ... for people */
	const char *family;
	/** @boot0: BOOT_0 register value (architecture, implementation) */
	uint32_t boot0;
	/** @vram_size: bytes of VRAM (reserved lazily) */
	uint64_t vram_size;
	/** @num_ce: copy engines (each with its own runlist and PBDMA) */
	unsigned num_ce;
	/** @num_channels: channel ids 0 .. num_channels - 1 */
	unsigned num_channels;
	/** @page_sizes: bitmask of supported page sizes (bit n = 1 << n B) */
	uint64_t page_sizes;
	/** @mmu_version: page-table format, 2 (Pascal..Ada) or 3 (Hopper) */
	unsigned mmu_version;
	/** @va_bits: virtual address width, 49 (v2) or 57 (v3) */
	unsigned va_bits;
	/** @host_class: the channel (GPFIFO) class, e.g. 0xc46f */
	uint32_t host_class;
	/** @ce_class: the copy-engine class, e.g. 0xc6b5 */
	uint32_t ce_class;
	/** @compute_class: the compute class (engine in a later issue) */
	uint32_t compute_class;
	/** @fw_versions: accepted GSP firmware versions, NULL-terminated */
	const char *const *fw_versions;
	/** @pstates: performance states, fastest first */
	struct nvl_model_pstate pstates[NVL_MODEL_MAX_PSTATES];
	/** @num_pstates: entries used in @pstates */
	unsigned num_pstates;
	/** @idle_mw: board power with every engine idle at the top P-state */
	unsigned idle_mw;
	/** @engine_mw: extra power of one fully busy engine at max clocks */
	unsigned engine_mw;
	/** @tdp_mw: default power limit */
	unsigned tdp_mw;
	/** @r_th_mc_per_w: thermal resistance, milli-degC per watt */
	unsigned r_th_mc_per_w;
	/** @tau_ms: thermal time constant */
	unsigned tau_ms;
	/** @slowdown_mc: temperature at which clocks are throttled */
	int slowdown_mc;
	/** @mem_sensor: the memory (HBM) has its own temperature sensor */
	bool mem_sensor;
	/** @fan: the board has a fan (passive boards have none) */
	bool fan;
};

/**
 * struct nvl_model - a device instance.
 *
 * Fields not documented as shared are private to the model.
 */
/* the pushbuffer trace callback (nvl_model_set_pb_trace()) */
typedef void (*nvl_model_pb_trace_fn)(void *arg, uint32_t chid, uint64_t va,
				      const uint32_t cls[8], const uint32_t *dw,
				      uint32_t n);

struct nvl_model {
	/** @hw: the hardware interface handed to the driver (nvl_model_hw()) */
	struct nvl_hw hw;
	/** @profile: the chip */
	const struct nvl_model_profile *profile;
	/** @eng: the chip family's MMU engine ids (hw/fault.h) */
	const struct nvl_hw_mmu_engines *eng;
	/** @vram: VRAM backing, @vram_size bytes, reserved with NORESERVE */
	uint8_t *vram;
	/** @vram_size: bytes */
	uint64_t vram_size;
	/** @mmu: the model MMU (walker + TLBs), owned by model/mmu*.c */
	struct nvl_model_mmu *mmu;
	/**
	 * @compute_sms: SMs of the compute engine: the number of model
	 * threads a grid's CTAs are spread over (0 = 2). Set before work.
	 */
	unsigned compute_sms;
	/* private: */
	struct nvl_model_iommu *iommu;
	struct nvl_model_fifo *fifo;
	struct nvl_model_pmu *pmu;
	struct nvl_model_hub *hub;
	struct nvl_model_gsp *gsp; /* GSP firmware + falcons (model/gsp/) */
	/* interrupt state (model/intr.c); intr_lock is a futex lock
	 * (sync/flock.h), intr_idle_seq the word nvl_model_intr_set_handler()
	 * sleeps on while a callback runs */
	struct nvl_flock intr_lock;
	_Atomic uint32_t intr_idle_seq;
	/* read and cleared (W1C) without intr_lock; set under it */
	_Atomic uint32_t intr_status[2];
	uint32_t intr_enable[2];
	nvl_hw_irq_fn irq_fn;
	void *irq_arg;
	unsigned irq_busy; /* a callback is running */
	unsigned irq_idle_waiters; /* asleep on intr_idle_seq */
	bool irq_again; /* raised while it ran: call again */
	uint64_t irq_count; /* callbacks made, for tests */
	/* the GSP's share of the stall tree (model/gsp/rc.c): bits in
	 * @fw_intr_mask go to @fw_intr_fn when it takes them */
	bool (*fw_intr_fn)(void *arg, uint32_t bits);
	void (*fw_run_fn)(void *arg); /* owed per taken raise, unlocked */
	void *fw_intr_arg;
	uint32_t fw_intr_mask;
	/* the copy engines' NV_CE_LCE_INTR_STATUS (model/ce.c; BLOCKPIPE),
	 * set by their runlist threads, W1C through BAR0 */
	_Atomic uint32_t ce_intr_status[NVL_HW_ENGINE_MAX];
	/* fault buffers (model/fault.c) */
	pthread_mutex_t fault_lock;
	struct {
		uint32_t lo, hi, get, put, size;
	} fault_buf[2];
	uint32_t bar2_block; /* NVL_HW_BAR2_BLOCK */
	uint64_t faults_dropped;
	/* replayable faults parked in the uTLBs (model/replay.c) */
	pthread_mutex_t replay_lock;
	pthread_cond_t replay_cond;
	uint64_t replay_gen, cancel_gen; /* REPLAY START / CANCEL requests */
	uint32_t replay_parked; /* accesses waiting now */
	bool replay_stop; /* powering off: parked accesses fail */
	int64_t time_base_ns;
	/* pushbuffer trace (nvl_model_set_pb_trace) */
	nvl_model_pb_trace_fn pb_trace;
	void *pb_trace_arg;
};

/**
 * nvl_model_set_pb_trace() - call @fn(@arg, ...) on the runlist threads
 * with every run of pushbuffer dwords a channel's PBDMA has processed
 * (once each, even when an acquire parks the channel mid-chunk): the
 * channel, the VA of the first dword, the classes bound to its
 * subchannels before it, the dwords. Set it before any channel runs; NULL
 * (the default) costs a branch per fetched chunk.
 */
void nvl_model_set_pb_trace(struct nvl_model *m, nvl_model_pb_trace_fn fn,
			    void *arg);

/** struct nvl_model_fault - one MMU fault, as the walker reports it. */
struct nvl_model_fault {
	/** @va: faulting virtual address (any byte of the page) */
	uint64_t va;
	/** @type: enum nvl_hw_fault_type */
	unsigned type;
	/** @access: enum nvl_hw_fault_access */
	unsigned access;
	/** @engine_id: NVL_HW_MMU_ENGINE_* of the engine that faulted */
	unsigned engine_id;
	/** @chid: channel id the access was made for */
	unsigned chid;
	/** @client: MMU client id (0 when not meaningful) */
	unsigned client;
	/** @replayable: goes to the replayable buffer (GR clients only) */
	bool replayable;
};

/**
 * nvl_model_profile_find() - a chip profile by name.
 * @name: "tiny", "tu102", "ga102", "ad102" or "gh100"; NULL = "tiny"
 *
 * Return: the profile, or NULL when unknown.
 */
const struct nvl_model_profile *nvl_model_profile_find(const char *name);

/**
 * nvl_model_profile_at() - the @i-th profile, for listing.
 * Return: the profile, or NULL past the end.
 */
const struct nvl_model_profile *nvl_model_profile_at(unsigned i);

/**
 * nvl_model_create() - power on a device.
 * @profile: the chip
 * @model_out: the new device
 *
 * Reserves VRAM lazily, creates the MMU, channels and engine threads.
 * Return: 0, -ENOMEM (allocation, reservation or thread creation failed)
 * or -EINVAL (a profile without VRAM, channels or copy engines).
 */
int nvl_model_create(const struct nvl_model_profile *profile,
		     struct nvl_model **model_out) NVL_MUST_CHECK;

/**
 * nvl_model_power_cycle() - D3cold and back: the board loses power, as in
 * a suspend to RAM. Every byte of VRAM is lost (reads zero afterwards);
 * the falcons were already in reset (the GSP unloaded). PFIFO's channel
 * RAM is kept (a simplification, docs/model.md).
 * Return: 0, or -EBUSY while WPR2 is up (the GSP must unload first).
 */
int nvl_model_power_cycle(struct nvl_model *m) NVL_MUST_CHECK;

/**
 * nvl_model_destroy() - stop every thread and free the device. NULL is a
 * no-op. The interrupt callback is not called after this returns.
 */
void nvl_model_destroy(struct nvl_model *m);

/** nvl_model_hw() - the hardware interface of @m, for the driver. */
static inline struct nvl_hw *nvl_model_hw(struct nvl_model *m)
{
	return &m->hw;
}

/**
 * nvl_model_phys_access() - read or write physical memory as the GPU does.
 * @m: device
 * @ap: aperture of @pa
 * @pa: VRAM offset (VIDMEM) or DMA address (SYS_*)
 * @buf: source (write) or destination (read)
 * @len: bytes; may cross DMA-mapped pages if every page is mapped
 * @write: direction
 *
 * Safe from any thread. Nothing is copied on failure. VRAM is copied
 * inline (below, after nvl_model_phys_ptr()); everything else is
 * nvl_model_phys_access_slow().
 * Return: 0, or -EFAULT when any byte is outside VRAM, or a system page
 * that is not DMA-mapped, or @ap is not an aperture.
 */
static inline int nvl_model_phys_access(struct nvl_model *m,
					enum nvl_hw_aperture ap, uint64_t pa,
					void *buf, size_t len, bool write);

/**
 * nvl_model_phys_access_slow() - nvl_model_phys_access(), out of line:
 * every aperture, VRAM included.
 * @m: device
 * @ap: aperture of @pa
 * @pa: VRAM offset (VIDMEM) or DMA address (SYS_*)
 * @buf: source (write) or destination (read)
 * @len: bytes
 * @write: direction
 *
 * Return: as nvl_model_phys_access().
 */
int nvl_model_phys_access_slow(struct nvl_model *m, enum nvl_hw_aperture ap,
			       uint64_t pa, void *buf, size_t len, bool write);

/**
 * nvl_model_phys_atomic32() - one ordered 32-bit access to physical memory,
 * as a device reads or writes a queue pointer shared with the CPU.
 * @m: device
 * @ap: aperture of @pa
 * @pa: VRAM offset (VIDMEM) or DMA address (SYS_*), 4-byte aligned
 * @val: the value read (load) or to write (store)
 * @write: store with release order, else load with acquire order
 *
 * A store publishes every byte the model wrote before it; a load makes
 * every byte the CPU wrote before its own release store of the same word
 * visible to what the model reads after it (and ThreadSanitizer sees
 * both edges, which it cannot through nvl_model_phys_access()'s copies).
 * Safe from any thread.
 * Return: 0, or -EFAULT when the word is unaligned or not mapped.
 */
int nvl_model_phys_atomic32(struct nvl_model *m, enum nvl_hw_aperture ap,
			    uint64_t pa, uint32_t *val, bool write);

/**
 * nvl_model_mem_copy() - copy bytes of GPU-visible memory (VRAM or
 * DMA-mapped system pages) on behalf of the device or of a BAR access.
 * @dst: destination
 * @src: source
 * @len: bytes
 *
 * Memory shared between the CPU and the device is racy by nature (a CPU
 * polls a semaphore the engine writes), as on hardware. In ThreadSanitizer
 * builds this copies without instrumentation so that such device memory
 * traffic is not reported; elsewhere it is memcpy(), inline (a word of
 * USERD or a semaphore is then a move, not a call). Use it for every
 * model access to VRAM or system memory.
 */
#if defined(__SANITIZE_THREAD__)
void nvl_model_mem_copy(void *dst, const void *src, size_t len);
#else
static inline void nvl_model_mem_copy(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}
#endif

/**
 * nvl_model_mem_fill() - fill @len bytes of GPU-visible memory with the
 * four-byte @pattern (byte 0 first), starting at its byte @phase; as
 * nvl_model_mem_copy(), uninstrumented in ThreadSanitizer builds.
 * @dst: destination
 * @len: bytes
 * @pattern: the pattern, little-endian
 * @phase: the pattern's byte that goes to @dst[0] (0..3)
 */
void nvl_model_mem_fill(void *dst, size_t len, uint32_t pattern,
			unsigned phase);

/**
 * nvl_model_phys_ptr() - direct pointer to @len bytes of VRAM at @pa, for
 * the walker's and engines' fast paths.
 * Return: the pointer, or NULL when the range leaves VRAM.
 */
static inline uint8_t *nvl_model_phys_ptr(struct nvl_model *m, uint64_t pa,
					  size_t len)
{
	if (pa > m->vram_size || len > m->vram_size - pa)
		return NULL;
	return m->vram + pa;
}

static inline int nvl_model_phys_access(struct nvl_model *m,
					enum nvl_hw_aperture ap, uint64_t pa,
					void *buf, size_t len, bool write)
{
	uint8_t *p;

	if (ap != NVL_HW_APERTURE_VIDMEM ||
	    !(p = nvl_model_phys_ptr(m, pa, len)))
		return nvl_model_phys_access_slow(m, ap, pa, buf, len, write);
	if (write)
		nvl_model_mem_copy(p, buf, len);
	else
		nvl_model_mem_copy(buf, p, len);
	return 0;
}

/**
 * nvl_model_fault_report() - record an MMU fault.
 * @m: device
 * @f: the fault
 *
 * Writes a 32-byte entry at PUT of the fault buffer (non-replayable unless
 * @f->replayable) when the buffer is enabled and not full (else counts it
 * dropped and sets OVERFLOW), then raises the fault interrupt. The instance
 * block address in the entry is the channel's (@f->chid). Safe from any
 * thread, with no model lock held by the caller.
 */
void nvl_model_fault_report(struct nvl_model *m,
			    const struct nvl_model_fault *f);

/**
 * nvl_model_intr_raise() - set a pending interrupt bit and, when it is
 * enabled, call the driver's interrupt callback (in this thread).
 * @tree: 0 stall, 1 non-stall (NVL_HW_INTR_TREE_*)
 * @bits: NVL_HW_INTR_* bits
 *
 * Must be called with no model lock held.
 */
void nvl_model_intr_raise(struct nvl_model *m, unsigned tree, uint32_t bits);

/**
 * nvl_model_time_ns() - the GPU timer (PTIMER), ns since power-on, on the
 * cheap monotonic clock (base/clock.h: nvl_clock_ns()).
 */
uint64_t nvl_model_time_ns(struct nvl_model *m);

#endif /* NVL_MODEL_MODEL_H */
