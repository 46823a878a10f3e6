/* SPDX-License-Identifier: MIT */
/* Private state of the model's GSP firmware (src/model/gsp only). */
#ifndef NVL_MODEL_GSP_PRIV_H
#define NVL_MODEL_GSP_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/cpufree.h"
#include "base/idlepoll.h"
#include "firmware/abi/535.113.01/gsp.h"
#include "model/gsp/gsp.h"
#include "model/gsp/wire.h"
#include "model/priv.h"

#define FW_MAX_MSG (1u << 21) /* largest message assembled or sent */
#define FW_MAX_OBJECTS 4096
#define FW_MAX_PTES 1024
#define FW_EVQ 256
/* RM's non-replayable hardware fault buffer, in its carve-out */
#define FW_FAULT_BUF_ENTRIES 64u
#define FW_SHADOW_MAX_PAGES 64u

struct fw_obj {
	uint32_t client, handle, parent, hclass;
	uint32_t chid; /* channels */
	uint64_t
		pdb; /* VA spaces: the page directory the driver set (0: none) */
	bool faulting; /* VA spaces: ENABLE_PAGE_FAULTING (replayable) */
	/* VA spaces: IS_EXTERNALLY_OWNED, SHARED_MANAGEMENT, and the last
	 * VA of RM's range (vaSize - 1, the format's last by default) */
	bool external, shared;
	bool mirrored; /* VA spaces: IS_MIRRORED (takes no client root) */
	bool bound; /* VA spaces: a root page directory was set (pdb) */
	uint64_t va_limit;
	uint32_t vas; /* channels: the VA space they were made on (0: none) */
	/* VA spaces: COPY_SERVER_RESERVED_PDES took the client's levels
	 * (pdb: its root); srv_pd: its page whose entries span the server
	 * range; srv_slot: RM's tables and page there (FW_SRV_SLOTS, -1) */
	bool copied;
	uint64_t srv_pd;
	int srv_slot;
};

/* RM's carve-out below the non-WPR heap: one instance block per channel
 * id, the fault buffer, then FW_SRV_SLOTS sets of RM's own tables for the
 * server-reserved range of split VA spaces (PD0, small PT, the page RM
 * maps there: FW_SRV_SLOT_SIZE each) */
#define FW_SRV_SLOTS 8
#define FW_SRV_SLOT_SIZE (3 * 4096ull)
#define FW_RM_CARVEOUT_ALIGN (2ull << 20)

struct fw_log {
	uint64_t pte[LIBOS_LOG_RING_SIZE / GSP_PAGE_SIZE];
	uint64_t put;
	bool ok;
};

struct fw_event {
	uint32_t function;
	uint32_t len;
	uint8_t data[512]; /* the largest event of any version */
};

struct nvl_model_gsp {
	struct nvl_model *m;
	/*
	 * core: the GSP's processor. Whoever holds it runs the firmware: its
	 * thread while it boots, serves commands or sends events, or a model
	 * thread that raised a stall interrupt RM owns and found the core
	 * idle (rc.c). Everything the firmware owns that @lock does not
	 * cover (the queues, tx_elem, the log rings, the shadow queue's PUT,
	 * RM's objects) is touched only with core held. Order: core, then
	 * intr_lock (model/intr.c), then lock.
	 */
	pthread_mutex_t core;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* the firmware thread sleeps on this word, not on @cond (fw.c,
	 * nvl_fw_kick()); sleepers: is it asleep */
	_Atomic uint32_t fw_wake_seq;
	_Atomic unsigned fw_sleepers;
	/* the idle thread's poll (fw.c, fw_sleep_locked()): the last kick's
	 * time, and what the thread learnt (its own, base/idlepoll.h) */
	_Atomic int64_t fw_kick_ns;
	struct nvl_idle_poll fw_idle;
	/* the CPU the last kick of a sleeper came from, and the thread's
	 * moves to it after a dear wake-up on a busy machine (fw.c
	 * fw_woken(), base/cpufree.h nvl_cpu_follow()) */
	_Atomic int fw_kick_cpu;
	struct nvl_cpu_follow fw_follow;
	unsigned fw_busy; /* batches left to poll between (fw_poll_busy()) */
	int64_t fw_busy_cool_until; /* no such poll until then */
	long fw_ncpus;
	pthread_t thread;
	bool stop;
	/* raises whose run (nvl_fw_rc_run()) is still owed; destroy waits */
	unsigned runners;

	/* falcon registers */
	uint32_t gsp_mbox[2], gsp_os, gsp_riscv;
	uint32_t gsp_irqstat; /* __atomic only, no lock (falcon.c) */
	uint32_t sec2_mbox[2], sec2_os, sec2_irqstat, sec2_cpuctl;
	uint32_t wpr2_lo, wpr2_hi;
	bool sec2_go; /* STARTCPU written: run the booter */
	bool core_resumed; /* CPUCTL STARTCPU on the GSP (sequencer) */
	uint64_t doorbells; /* __atomic only, rung with no lock (falcon.c) */

	unsigned state; /* enum nvl_model_gsp_state */
	bool verified; /* booter verified the image */
	nvl_model_booter_verify_fn verify;

	/* queues */
	uint64_t pte[FW_MAX_PTES];
	unsigned npte;
	uint64_t cmdq_off, statq_off;
	uint32_t tx_seq, rx_seq, rpc_seq;
	/* the firmware's own queue pointers (fw.c): published in the shared
	 * pages, never read back from them (only the firmware writes them);
	 * statq_free: status-queue slots known free at the driver's read
	 * pointer as last read (read again only when a reply needs more) */
	uint32_t statq_wptr, cmdq_rptr, statq_free;
	/* 64 KiB each: rx_elem the headers of a command being read (and a
	 * payload not read into @msg), tx_elem the headers of a reply (and
	 * a small payload) */
	uint8_t *rx_elem, *tx_elem;
	/* per statq slot: bytes from its start that may be non-zero (fw.c:
	 * send_elem() writes a short reply's used bytes, not the page) */
	uint16_t statq_dirty[GSP_QUEUE_MSG_COUNT];
	/* an assembled request (FW_MAX_MSG + 8: payloads are read into it
	 * in whole words, fw.c recv_payload()) */
	uint8_t *msg;
	uint8_t *reply; /* a reply being built */
	/* fw.c, the firmware thread only: interrupts held for the end of a
	 * batch of commands, one owed */
	bool irq_defer, irq_due;
	/* core held by a raising thread (rc.c): events that find the
	 * status queue full stay queued for the firmware's thread instead
	 * of waiting for the driver to make room */
	bool tx_nowait;

	struct fw_log logs[2]; /* LOGINIT, LOGRM */
	uint64_t wpr_meta_pa;
	/* WPR2 and the heap in it, from the WPR meta (sr.c saves RM's state
	 * into the heap at suspend) */
	uint64_t wpr_start, wpr_end, heap_offset, heap_size;
	/* suspend/resume (sr.c): RM saved its state for a level-3 unload;
	 * the booter restored WPR2 from an SR meta; the RM arguments asked
	 * for a resume; the booter's HMAC key (fused, per chip) */
	bool sr_saved, sr_restored, sr_resume_args;
	uint8_t sr_key[32];
	uint64_t rsvd_start; /* lowest byte of FB the firmware keeps (booter) */
	const struct nvl_fw_wire *wire; /* from the image's manifest */

	/* RM */
	struct fw_obj *objs;
	unsigned nobjs;
	uint8_t *chan_used; /* per channel id */
	uint8_t srv_used[FW_SRV_SLOTS]; /* server-range table sets in use */
	uint32_t notify_hclient, notify_hevent;
	struct fw_perf *perf; /* sensors, perf, power (ctrl_perf.c) */

	/* RM's interrupt service (rc.c): stall bits it took, the driver's
	 * shadow fault buffer, what it counted */
	uint32_t intr_pending;
	bool rc_deferred; /* a raising thread left faulted channels' errors */
	struct {
		bool on;
		uint64_t queue_pa;
		uint32_t entries;
		uint64_t pte[FW_SHADOW_MAX_PAGES];
	} shadow;
	uint32_t shadow_put;
	uint32_t shadow_get; /* the driver's GET as last read (rc.c) */

	/* events waiting to be sent */
	struct fw_event evq[FW_EVQ];
	unsigned ev_head, ev_count;

	/* faults */
	unsigned fault_count[NVL_MODEL_GSP_FAULT_COUNT];
	uint64_t fault_arg[NVL_MODEL_GSP_FAULT_COUNT];
	/* a test's lying firmware (nvl_model_gsp_set_reply_hook()): @reply_fn
	 * published with a release store after @reply_arg */
	nvl_model_gsp_reply_fn reply_fn;
	void *reply_arg;
	bool hang;
	uint32_t init_error; /* first failed init RPC */

	struct nvl_model_gsp_stats st;
};

/* fw.c */
bool nvl_fw_refuse_control(struct nvl_model_gsp *g, uint32_t cmd,
			   uint32_t *status);
void nvl_fw_log(struct nvl_model_gsp *g, unsigned ring, const char *fmt, ...)
	NVL_PRINTF(3, 4);
/* queue an event for the driver; 0 or -ENOSPC */
int nvl_fw_queue_event(struct nvl_model *m, uint32_t function, const void *data,
		       size_t len);
/* the same from the firmware's own run (core held): its thread is not
 * kicked, the core's holder sends it before it lets go */
int nvl_fw_post_event(struct nvl_model_gsp *g, uint32_t function,
		      const void *data, size_t len);
int nvl_fw_dma(struct nvl_model_gsp *g, uint64_t pa, void *buf, size_t len,
	       bool write);
/* RM's interrupt service and the events it queued (core held) */
void nvl_fw_service_intr(struct nvl_model_gsp *g, uint32_t bits);
void nvl_fw_kick(struct nvl_model_gsp *g);
/* rm.c: serve one assembled RPC; fills g->reply, returns reply bytes */
size_t nvl_fw_rm_serve(struct nvl_model_gsp *g, uint32_t function,
		       const uint8_t *req, size_t len, uint32_t *result);
int nvl_fw_rm_init(struct nvl_model_gsp *g);
void nvl_fw_rm_reset(struct nvl_model_gsp *g);
void nvl_fw_rm_fini(struct nvl_model_gsp *g);

/* rm.c: RM's carve-out in FB and the hardware fault buffer in it */
uint64_t nvl_fw_rm_carve_base(struct nvl_model_gsp *g);
uint64_t nvl_fw_rm_fault_buf_pa(struct nvl_model_gsp *g);
/* rc.c: RM's interrupt service (faults, robust-channel recovery) */
bool nvl_fw_rc_intr(void *arg, uint32_t bits);
void nvl_fw_rc_run(void *arg);
void nvl_fw_rc_service(struct nvl_model_gsp *g, uint32_t bits);
/* the PMU's tick: deferred channel errors wait one tick at most */
void nvl_fw_rc_tick(void *arg);
void nvl_fw_rc_reset(struct nvl_model_gsp *g);
uint32_t nvl_fw_rc_register_shadow(struct nvl_model_gsp *g, const void *params,
				   size_t size, bool on);

/* sr.c: suspend/resume */
uint32_t nvl_fw_sr_save_rm(struct nvl_model_gsp *g);
uint32_t nvl_fw_sr_restore_rm(struct nvl_model_gsp *g);
uint32_t nvl_fw_booter_sr_save(struct nvl_model_gsp *g, uint64_t sr_pa);
uint32_t nvl_fw_booter_sr_restore(struct nvl_model_gsp *g, uint64_t sr_pa);
int nvl_fw_radix3_io(struct nvl_model_gsp *g, uint64_t l0_pa, uint8_t *buf,
		     size_t len, bool write);

#define LOG_INIT 0
#define LOG_RM 1

#endif
