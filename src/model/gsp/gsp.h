/* SPDX-License-Identifier: MIT */
/*
 * The model's GSP firmware and its two falcons (GSP, SEC2): the
 * interface the rest of the model and the tests use. The firmware speaks
 * GSP-RM 535.113.01's protocol from firmware/abi/, never driver headers.
 */
#ifndef NVL_MODEL_GSP_GSP_H
#define NVL_MODEL_GSP_GSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nvl_model;

/** enum nvl_model_gsp_state - where the firmware is. */
enum nvl_model_gsp_state {
	NVL_MODEL_GSP_OFF = 0, /* in reset, no WPR2 */
	NVL_MODEL_GSP_BOOTING, /* booter done, LIBOS starting */
	NVL_MODEL_GSP_RUNNING, /* INIT_DONE sent, serving RPCs */
	NVL_MODEL_GSP_STALLED, /* met a bad cmdq seqNum: stops for good */
	NVL_MODEL_GSP_FAILED, /* boot failed (INIT_DONE with an error) */
	NVL_MODEL_GSP_UNLOADED, /* after UNLOADING_GUEST_DRIVER */
};

/** enum nvl_model_gsp_fault - fault-injection hooks. */
enum nvl_model_gsp_fault {
	/** @NVL_MODEL_GSP_DROP: do not send the next @count replies */
	NVL_MODEL_GSP_DROP = 0,
	/** @NVL_MODEL_GSP_DELAY: hold the next @count replies @arg ns */
	NVL_MODEL_GSP_DELAY,
	/** @NVL_MODEL_GSP_CORRUPT: flip a payload byte after checksumming */
	NVL_MODEL_GSP_CORRUPT,
	/** @NVL_MODEL_GSP_DUPLICATE: send the next @count replies twice
	 * (same seqNum) */
	NVL_MODEL_GSP_DUPLICATE,
	/** @NVL_MODEL_GSP_HANG: stop reading the command queue */
	NVL_MODEL_GSP_HANG,
	/** @NVL_MODEL_GSP_ERROR: answer the next @count calls with NV_STATUS
	 * @arg */
	NVL_MODEL_GSP_ERROR,
	/** @NVL_MODEL_GSP_REFUSE_CONTROL: refuse the next @count RM controls
	 * whose cmd is @arg >> 32 with NV_STATUS @arg & 0xffffffff, without
	 * running them (a refusal that changes nothing, as RM's own) */
	NVL_MODEL_GSP_REFUSE_CONTROL,
	/** @NVL_MODEL_GSP_FORGE_FAULT: a forged firmware: the next @count
	 * fault entries RM copies into the driver's shadow queue name the
	 * instance block of channel id @arg & 0xffffffff (unless it is
	 * NVL_MODEL_GSP_FORGE_KEEP_INST) and lose what the
	 * NVL_MODEL_GSP_FORGE_* bits of @arg say */
	NVL_MODEL_GSP_FORGE_FAULT,
	/** @NVL_MODEL_GSP_SLOW_BOOTER: a starved SEC2: the next @count
	 * booter runs (load, a resume's SR load, unload) start @arg ns after
	 * STARTCPU, CPUCTL HALTED clear meanwhile */
	NVL_MODEL_GSP_SLOW_BOOTER,
	NVL_MODEL_GSP_FAULT_COUNT
};

/* NVL_MODEL_GSP_FORGE_FAULT's @arg: the entry's instance block as RM got
 * it; VALID (dword 7 bit 31) cleared; TIMESTAMP (dwords 4, 5) zeroed */
#define NVL_MODEL_GSP_FORGE_KEEP_INST 0xffffffffull
#define NVL_MODEL_GSP_FORGE_NO_VALID (1ull << 32)
#define NVL_MODEL_GSP_FORGE_NO_TIMESTAMP (1ull << 33)

/** struct nvl_model_gsp_stats - what the firmware saw. */
struct nvl_model_gsp_stats {
	/** @rpcs: calls served; @events: events sent */
	uint64_t rpcs, events;
	/** @seq_asserts: RPC sequence out of order (asserted, logged) */
	uint64_t seq_asserts;
	/** @bad_elems: command elements rejected (checksum, header) */
	uint64_t bad_elems;
	/** @objects: RM objects alive */
	uint64_t objects;
	/** @boots: successful boots; @sequencer_runs: sequencers completed */
	uint64_t boots, sequencer_runs;
	/** @registry_entries: keys of the last SET_REGISTRY */
	uint64_t registry_entries;
	/** @state: enum nvl_model_gsp_state */
	unsigned state;
	/** @faults_copied: fault entries RM copied to the shadow buffer;
	 * @faults_lost: entries it dropped (shadow full or unregistered);
	 * @fault_overflows: hardware buffer overflows it cleared;
	 * @rc_recoveries: channels it tore down (RC_TRIGGERED sent) */
	uint64_t faults_copied, faults_lost, fault_overflows, rc_recoveries;
	/** @rc_inline: interrupt services RM ran on the raising thread (its
	 * core idle) instead of its own */
	uint64_t rc_inline;
	/** @fw_moves: times the firmware's thread moved to the CPU that
	 * kicked it after a dear wake-up (base/cpufree.h nvl_cpu_follow()) */
	uint64_t fw_moves;
	/** @ce_blockpipes: copy-engine BLOCKPIPE interrupts (LAUNCH_DMA
	 * INTERRUPT_TYPE BLOCKING) it serviced */
	uint64_t ce_blockpipes;
};

/**
 * typedef nvl_model_booter_verify_fn - the booter's signature check: 0 or
 * -EKEYREJECTED.
 */
typedef int (*nvl_model_booter_verify_fn)(const void *fwimage, size_t size,
					  const void *sig, size_t sig_size);

/**
 * nvl_model_gsp_create() - power on the falcons (GSP in reset, SEC2
 * halted, no WPR2) and start the firmware thread.
 * Return: 0 or -ENOMEM.
 */
int nvl_model_gsp_create(struct nvl_model *m);
/** nvl_model_gsp_destroy() - stop the firmware thread and free its state. */
void nvl_model_gsp_destroy(struct nvl_model *m);
/**
 * nvl_model_gsp_rd() - read a falcon or WPR2 register; other falcon
 * offsets read 0. Return: the value (*@ok = true).
 */
uint32_t nvl_model_gsp_rd(struct nvl_model *m, uint32_t addr, bool *ok);
/**
 * nvl_model_gsp_wr() - write a falcon register: doorbell, mailboxes, OS,
 * CPUCTL (SEC2 start, GSP resume), engine reset, IRQSCLR.
 */
void nvl_model_gsp_wr(struct nvl_model *m, uint32_t addr, uint32_t val);
/** nvl_model_gsp_owns() - true for the falcon and WPR2 registers. */
bool nvl_model_gsp_owns(uint32_t addr);

/**
 * nvl_model_gsp_set_verify() - replace the booter's signature check (a
 * debug-fused board for tests that boot a tiny image; NULL restores the
 * production check).
 */
void nvl_model_gsp_set_verify(struct nvl_model *m,
			      nvl_model_booter_verify_fn fn);

/** nvl_model_gsp_inject() - arm fault @f for @count messages (arg: ns or NV_STATUS). */
void nvl_model_gsp_inject(struct nvl_model *m, enum nvl_model_gsp_fault f,
			  unsigned count, uint64_t arg);

/**
 * typedef nvl_model_gsp_reply_fn - a test's lying firmware: called on the
 * firmware's thread with the payload of every reply RM produced (the RPC's
 * own struct, e.g. GSP_RM_CONTROL's header and params), before it is
 * framed and checksummed; it may change any of its @len bytes.
 */
typedef void (*nvl_model_gsp_reply_fn)(void *arg, uint32_t function,
				       uint8_t *reply, size_t len);

/**
 * nvl_model_gsp_set_reply_hook() - call @fn(@arg, ...) with every reply
 * (NULL removes it; a call in progress may still finish). Model-only, for
 * tests of what the driver trusts.
 */
void nvl_model_gsp_set_reply_hook(struct nvl_model *m,
				  nvl_model_gsp_reply_fn fn, void *arg);

/** nvl_model_gsp_clear_faults() - disarm every fault, end a hang. */
void nvl_model_gsp_clear_faults(struct nvl_model *m);

/** nvl_model_gsp_get_stats() - a snapshot, taken between two steps of
 * the firmware (it waits for the one running). Not from the firmware's own
 * run (a GSP message handler). */
void nvl_model_gsp_get_stats(struct nvl_model *m,
			     struct nvl_model_gsp_stats *out);

/**
 * nvl_model_gsp_event_rc() - queue RC_TRIGGERED and OS_ERROR_LOG for
 * channel @chid (a robust-channel recovery), as RM does on an engine error.
 * Return: 0 or -ENOSPC (event backlog full).
 */
int nvl_model_gsp_event_rc(struct nvl_model *m, uint32_t chid,
			   uint32_t exception);
/** nvl_model_gsp_event_mmu_fault() - queue MMU_FAULT_QUEUED. Return: 0 or -ENOSPC. */
int nvl_model_gsp_event_mmu_fault(struct nvl_model *m);
/** nvl_model_gsp_event_post() - queue POST_EVENT to @hclient/@hevent with @data. Return: 0 or -ENOSPC. */
int nvl_model_gsp_event_post(struct nvl_model *m, uint32_t hclient,
			     uint32_t hevent, uint32_t data);
/**
 * nvl_model_gsp_event_raw() - queue message @function (any number: an
 * event, or a reply nobody asked for) with the @len bytes at @data as its
 * payload, unchecked: a faulty or hostile firmware's (fuzz/gsp/
 * fuzz_events.c). Return: 0 or -ENOSPC (backlog full, or @len above the
 * 512 bytes of the largest event).
 */
int nvl_model_gsp_event_raw(struct nvl_model *m, uint32_t function,
			    const void *data, size_t len);

#endif /* NVL_MODEL_GSP_GSP_H */
