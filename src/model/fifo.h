/* SPDX-License-Identifier: MIT */
/*
 * FIFO internals shared by fifo.c (channels, runlists, threads, registers),
 * pbdma.c (GPFIFO fetch, method decode, Host methods) and ce.c (the copy
 * engine class).
 */
#ifndef NVL_MODEL_FIFO_H
#define NVL_MODEL_FIFO_H

#include "base/cpufree.h"
#include "base/idlepoll.h"
#include "hw/host.h"
#include "hw/mthd.h"
#include "model/compute/engine.h"
#include "model/mmu.h"
#include "model/priv.h"
#include "sync/flock.h"

/* Dwords fetched from a pushbuffer segment per MMU access. */
#define NVL_MODEL_PB_CHUNK 1024
/* Dwords a channel may run before the runlist moves to the next one. */
#define NVL_MODEL_PB_BUDGET 65536
/*
 * NON_STALL_INTERRUPTs a channel's run may hold back before raising them
 * (interrupt moderation: one handler call per batch of completions).
 */
#define NVL_MODEL_NONSTALL_BATCH 16
/* Poll interval of a channel waiting in a semaphore acquire. */
#define NVL_MODEL_ACQUIRE_POLL_NS (100 * 1000)

struct nvl_model_runlist;

/** struct nvl_model_ce_state - a channel's copy-engine method state. */
struct nvl_model_ce_state {
	uint32_t sem_a, sem_b, sem_payload, sem_payload_upper;
	uint32_t src_phys, dst_phys;
	uint32_t in_upper, in_lower, out_upper, out_lower;
	uint32_t pitch_in, pitch_out, line_length, line_count;
	uint32_t remap_a, remap_b, remap_components;
};

/** enum nvl_model_run - what running a channel ended with. */
enum nvl_model_run {
	NVL_MODEL_RUN_IDLE = 0, /* nothing more to do */
	NVL_MODEL_RUN_YIELD, /* budget used up, more work left */
	NVL_MODEL_RUN_BLOCKED, /* parked in a semaphore acquire */
	NVL_MODEL_RUN_STOPPED, /* error, fault or disabled */
};

/** Result of executing one method. */
enum nvl_model_mthd_res {
	NVL_MODEL_MTHD_OK = 0,
	NVL_MODEL_MTHD_BLOCK, /* retry the same method later */
	NVL_MODEL_MTHD_STOP, /* the channel stopped (error recorded) */
};

/*
 * The PBDMA's micro-TLB (pbdma.c chan_vm_rw()): a few pages the
 * channel's Host reads and writes all the time (GPFIFO, pushbuffers,
 * semaphores), in front of the MMU. @gen: the MMU generation they were
 * filled under, @gen_word the MMU's count (set by the context load); an
 * entry with @size 0 is empty. @host: the page in the model's VRAM (whose
 * mapping lives as long as the model), NULL for system memory, which is
 * reached through the DMA mappings on every access.
 */
#define NVL_MODEL_UTLB_ENTRIES 4
/* what an access reads or writes: its own "last hit" (pbdma.c) */
#define NVL_MODEL_UTLB_GPFIFO 0
#define NVL_MODEL_UTLB_PB 1
#define NVL_MODEL_UTLB_SEM 2
#define NVL_MODEL_UTLB_KINDS 3
/* Decoded method headers a channel keeps (a power of two). */
#define NVL_MODEL_HDR_CACHE 8
struct nvl_model_utlb_entry {
	uint64_t va, size, pa; /* page base, bytes, physical base */
	uint8_t *host;
	enum nvl_hw_aperture aperture;
	bool read_only;
};

struct nvl_model_utlb {
	const atomic_uint *gen_word;
	unsigned int gen;
	unsigned int next; /* round-robin victim */
	/* by kind of access (GPFIFO, pushbuffer, semaphore): the entry that
	 * last hit, looked at first */
	unsigned int hit[NVL_MODEL_UTLB_KINDS];
	struct nvl_model_utlb_entry e[NVL_MODEL_UTLB_ENTRIES];
};

struct nvl_model_chan {
	struct nvl_model *m;
	unsigned chid;
	/* ---- register state, under fifo->lock ---- */
	uint32_t inst_reg; /* CHRAM_INST */
	uint32_t bind_gen; /* counts binds: errors of an older one are void */
	uint32_t runlist; /* CHRAM_RUNLIST */
	bool enabled;
	bool pbdma_faulted, eng_faulted;
	uint32_t error, err_mthd, err_data;
	bool queued; /* on its runlist's ready list */
	bool running; /* its runlist thread is running it */
	bool kicked; /* doorbell while running */
	bool acquire_parked;
	bool acquire_wait; /* the last run ended blocked in an acquire */
	struct nvl_list link; /* ready or parked list */
	/* set by register writes, read by the runlist thread unlocked */
	atomic_bool stop_req;
	bool reset_decoder; /* restart at a segment boundary */
	/* ---- context, loaded from the instance block on first run;
	 * owned by the runlist thread ---- */
	bool ctx_loaded;
	struct nvl_model_runlist *rl;
	struct nvl_model_vmctx vm;
	enum nvl_hw_aperture userd_ap;
	uint64_t userd;
	uint64_t gp_base;
	uint32_t gp_entries;
	bool priv;
	uint64_t acquire_timeout_ns;
	/* ---- PBDMA state (runlist thread) ---- */
	atomic_uint gp_get;
	atomic_bool in_seg; /* an entry taken (GP_GET past it), not done */
	uint32_t seg_entry; /* its index: a retry restarts there */
	uint64_t seg_va; /* next dword to fetch */
	uint32_t seg_left; /* dwords left in the segment */
	uint32_t mthd; /* pending method (bytes) */
	uint32_t mthd_count; /* data dwords still expected */
	uint32_t mthd_subch;
	uint32_t mthd_op; /* SEC_OP of the pending header */
	int64_t acquire_deadline;
	bool acquiring;
	/* Host method state */
	uint32_t sem_addr_lo, sem_addr_hi, sem_payload_lo, sem_payload_hi;
	uint32_t mem_op_a, mem_op_b, mem_op_c;
	/* a draining MEM_OP invalidate waits for accesses in flight */
	bool mem_op_draining;
	uint32_t subch_class[NVL_HW_SUBCH_COUNT];
	struct nvl_model_utlb utlb; /* runlist thread (pbdma.c) */
	/* method headers decoded (hw/mthd.h), by dword: pbdma.c decode_hdr() */
	struct {
		uint32_t d;
		struct nvl_hw_mthd_hdr h;
	} hdr_cache[NVL_MODEL_HDR_CACHE];
	struct nvl_model_ce_state ce;
	struct nvl_model_compute_state compute;
	uint32_t pb[NVL_MODEL_PB_CHUNK];
};

struct nvl_model_runlist {
	struct nvl_model *m;
	unsigned id; /* = engine id = CE index */
	pthread_t thread;
	/*
	 * The thread's sleep (doorbell, reset, stop, a semaphore release):
	 * a futex word every wake-up bumps, and how many sleep on it (fifo.c
	 * rl_sleep_locked() / rl_wake()). Not a condition variable: a thread
	 * woken from pthread_cond_wait() takes the mutex back marked
	 * contended, so its next unlock made a futex-wake system call that
	 * woke no one, once per doorbell.
	 */
	_Atomic uint32_t wake_seq;
	_Atomic uint32_t sleepers;
	struct nvl_list ready;
	struct nvl_list parked; /* channels waiting in an acquire */
	bool stop;
	/* engine state, under fifo->lock */
	struct nvl_model_chan *cur;
	/* chid + 1, 0 = none; written under fifo->lock, also read by the
	 * PBDMA between entries without it */
	_Atomic uint32_t hang_chid;
	bool hung;
	bool reset_req;
	bool reset_quiet; /* a channel reset: blame no one */
	uint64_t busy_ns; /* ns, on base/clock.h's nvl_clock_ns() */
	int64_t busy_since; /* 0 = idle */
	atomic_bool reset_flag; /* reset_req, readable without the lock */
	/* runlist thread only: NON_STALL_INTERRUPT bits held back, and how
	 * many methods raised them (pbdma.c: nvl_model_nonstall_flush) */
	uint32_t nonstall_bits, nonstall_n;
	/*
	 * The idle thread's poll before it sleeps (fifo.c rl_idle_locked(),
	 * base/idlepoll.h): when the last wake-up of a sleeper was kicked
	 * (stamped by rl_wake() only when it makes the futex call, on
	 * nvl_clock_ns(), the clock of idle.clock), and
	 * what the thread learnt from it (the thread's own). Last: the
	 * words the doorbell writes (wake_seq, the ready list) stay on one
	 * cache line, as before.
	 */
	_Atomic int64_t kick_ns;
	struct nvl_idle_poll idle;
	/*
	 * The CPU the kicker ran on (rl_wake(), with kick_ns) and the
	 * thread's moves to it after a dear wake-up on a busy machine
	 * (base/cpufree.h nvl_cpu_follow(); fifo.c rl_idle_locked()).
	 */
	_Atomic int kick_cpu;
	struct nvl_cpu_follow follow;
};

struct nvl_model_fifo {
	struct nvl_model *m;
	/* futex locks (sync/flock.h: one atomic each way uncontended, a
	 * leaf the checker does not see; never held across a sleep) */
	struct nvl_flock lock;
	unsigned nchan;
	struct nvl_model_chan *chan;
	unsigned nrl;
	struct nvl_model_runlist *rl;
	uint32_t *err_pending; /* bitmap, nchan bits */
	struct nvl_flock atomic_lock; /* semaphore releases, reductions */
	/* channels on a parked list (under lock; read without it by a
	 * semaphore release, which has none to retry when it is 0) */
	_Atomic uint32_t nparked;
};

/* fifo.c */
/**
 * nvl_model_chan_error() - record a channel error and stop the channel; raises FIFO.
 * Call with no model lock held.
 */
void nvl_model_chan_error(struct nvl_model_chan *ch, uint32_t err,
			  uint32_t mthd, uint32_t data);
/**
 * nvl_model_chan_fault() - mark a channel faulted after an MMU fault (@engine: CE side,
 * else PBDMA side) and stop it; raises FIFO. No model lock held.
 */
void nvl_model_chan_fault(struct nvl_model_chan *ch, bool engine,
			  uint32_t mthd);
/**
 * nvl_model_fifo_reset_chan() - RM's reset of one channel (the firmware's
 * NV906F_CTRL_CMD_RESET_CHANNEL): stop it, reset its engine if the engine
 * hangs on it or runs it (no CHERR_ENGINE_RESET: the reset was asked
 * for), drop what it had not fetched (GP_GET = USERD's GP_PUT), clear its
 * errors and enable it again. No model lock held.
 * Return: 0; -EINVAL (no such channel); -EIO (USERD unreadable);
 * -ETIMEDOUT (the engine did not come back).
 */
int nvl_model_fifo_reset_chan(struct nvl_model *m, unsigned chid);

/**
 * nvl_model_fifo_sem_released_slow() - wake every channel parked in a
 * semaphore acquire (nvl_model_fifo_sem_released() found one).
 */
void nvl_model_fifo_sem_released_slow(struct nvl_model *m);

/**
 * nvl_model_fifo_sem_released() - wake every channel parked in a semaphore
 * acquire; inline: a release usually finds none parked.
 *
 * No channel parked in an acquire: nothing to retry. A channel that parks
 * after this read missed this release as it would have with the lock
 * taken (its acquire read the semaphore before the release): the
 * runlist's acquire poll retries it.
 */
static inline void nvl_model_fifo_sem_released(struct nvl_model *m)
{
	if (atomic_load(&m->fifo->nparked))
		nvl_model_fifo_sem_released_slow(m);
}

/**
 * nvl_model_pbdma_run() - run one channel on its runlist thread.
 * Return: what the run ended with (enum nvl_model_run).
 */
enum nvl_model_run nvl_model_pbdma_run(struct nvl_model_chan *ch);

/**
 * nvl_model_nonstall_flush() - raise @rl's held-back NON_STALL bits now
 * (runlist thread, no FIFO lock held).
 */
void nvl_model_nonstall_flush(struct nvl_model_runlist *rl);

/**
 * nvl_model_nonstall_defer() - a NON_STALL_INTERRUPT method: hold its bits
 * back until the runlist thread is done with the run, an engine method
 * runs or a batch is full (pbdma.c "Interrupt moderation"). Inline: two
 * stores and a test, once per job.
 */
static inline void nvl_model_nonstall_defer(struct nvl_model_chan *ch,
					    uint32_t bits)
{
	struct nvl_model_runlist *rl = &ch->m->fifo->rl[ch->runlist];

	rl->nonstall_bits |= bits;
	if (++rl->nonstall_n >= NVL_MODEL_NONSTALL_BATCH)
		nvl_model_nonstall_flush(rl);
}
/**
 * nvl_model_pbdma_load() - load the channel context from its instance block.
 * Return: 0 or -EINVAL.
 */
int nvl_model_pbdma_load(struct nvl_model_chan *ch);

/**
 * nvl_model_host_method() - execute a Host method (< 0x100).
 * Return: enum nvl_model_mthd_res.
 */
enum nvl_model_mthd_res nvl_model_host_method(struct nvl_model_chan *ch,
					      uint32_t mthd, uint32_t data);
/**
 * nvl_model_sem_access() - read or write semaphore memory, atomic against other
 * semaphore accesses. Return: 0, or -EFAULT after a reported fault.
 */
int nvl_model_sem_access(struct nvl_model_chan *ch, unsigned engine_id,
			 uint64_t va, void *buf, size_t len, bool write);
/**
 * nvl_model_chan_utlb_drop() - empty the micro-TLB (an MMU invalidate came
 * since its fill) and note the generation @gen it is current for.
 */
void nvl_model_chan_utlb_drop(struct nvl_model_utlb *u, unsigned int gen);

static inline bool nvl_model_utlb_covers(const struct nvl_model_utlb_entry *e,
					 uint64_t va, size_t len, bool write)
{
	uint64_t off = va - e->va;

	return off < e->size && len <= e->size - off &&
	       !(write && e->read_only);
}

/**
 * nvl_model_chan_utlb_find() - the micro-TLB's entry that covers
 * [@va, +@len) and allows the access, if any: the last hit of this @kind
 * of access (NVL_MODEL_UTLB_*) first, then the others: a job's GPFIFO
 * entries and its semaphore share a page as a rule (the fence idioms too,
 * but pushbuffer reads alternate between them and the user's pushes). Entries filled before the MMU's last invalidate
 * are dropped first. Runlist thread only.
 * Return: the entry, or NULL.
 */
static inline const struct nvl_model_utlb_entry *
nvl_model_chan_utlb_find(struct nvl_model_chan *ch, unsigned int kind,
			 uint64_t va, size_t len, bool write)
{
	struct nvl_model_utlb *u = &ch->utlb;
	unsigned int gen =
		atomic_load_explicit(u->gen_word, memory_order_acquire);

	if (unlikely(u->gen != gen)) {
		nvl_model_chan_utlb_drop(u, gen);
		return NULL;
	}
	if (likely(nvl_model_utlb_covers(&u->e[u->hit[kind]], va, len, write)))
		return &u->e[u->hit[kind]];
	for (unsigned int i = 0; i < NVL_MODEL_UTLB_ENTRIES; i++) {
		if (nvl_model_utlb_covers(&u->e[i], va, len, write)) {
			u->hit[kind] = i;
			return &u->e[i];
		}
	}
	return NULL;
}

/**
 * nvl_model_sem_reduce() - apply a semaphore reduction atomically.
 * Return: 0, or -EFAULT after a reported fault.
 */
int nvl_model_sem_reduce(struct nvl_model_chan *ch, unsigned engine_id,
			 uint64_t va, unsigned op, bool is_signed, bool wide,
			 uint64_t payload);

/**
 * nvl_model_ce_method() - execute a copy-engine class method.
 * Return: enum nvl_model_mthd_res.
 */
enum nvl_model_mthd_res nvl_model_ce_method(struct nvl_model_chan *ch,
					    uint32_t mthd, uint32_t data);

#endif /* NVL_MODEL_FIFO_H */
