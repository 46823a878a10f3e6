// SPDX-License-Identifier: MIT
/*
 * DOC: channels and EXEC
 *
 * A channel is RM's: GSP_RM_ALLOC of the chip's channel class under the
 * driver's device makes RM write the instance block (USERD, GPFIFO base,
 * the VA space's page directory), bind it in channel RAM on the copy
 * engine's runlist and enable it; the copy class is allocated under it
 * (NVL_ENGINE_COMPUTE: the compute runlist and the compute class);
 * the work-submit token for the doorbell comes from
 * NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN. The driver owns a 64 KiB
 * slot of its channel window in VRAM, mapped at kernel_start + slot *
 * 64 KiB of the VM:
 *
 *   +0x0000 USERD (512 B)      +0x0800 semaphore (the last seqno done)
 *   +0x1000 fence idioms, 32 B per GPFIFO entry (8 KiB)
 *   +0x4000 GPFIFO ring, 256 entries of 8 B
 *
 * One scheduler with one entity per channel; a job takes one credit per
 * GPFIFO entry (its pushes plus the idiom), out of 255. run_job writes
 * the entries, then the idiom entry (SEM_ADDR/PAYLOAD/EXECUTE release of
 * the job's seqno with WFI, then NON_STALL_INTERRUPT) and publishes GP_PUT
 * in USERD; the scheduler attaches the job's completion to its hardware
 * fence and then calls kick, which rings the doorbell (so the completion,
 * on the runlist thread, never waits for the submitter to attach it, and
 * the submitter touches nothing the completion takes after the doorbell).
 * The non-stall interrupt reads each
 * channel's semaphore and signals the hardware fence of every job whose
 * seqno it covers.
 *
 * Job timeouts (docs/faults.md): the scheduler's timeout is the device's
 * job timeout. timedout_job runs in a signalling section, so it only
 * stops the scheduler, marks the job (-ETIMEDOUT; the client's
 * NVL_NV_HANG_BAN-th hang bans it: -ECANCELED) and queues the recovery on
 * the driver's worker (nv/work.h), which asks the firmware to reset the
 * channel (NV906F_CTRL_CMD_RESET_CHANNEL: RM resets the engine hung on it
 * and drops the GPFIFO entries it had not fetched, GP_GET = GP_PUT),
 * fails the guilty job's hardware fence, forgets the rest of the ring and
 * resubmits the innocent jobs (new GPFIFO entries after GP_PUT, same
 * seqnos), then restarts the scheduler. If the firmware cannot reset it,
 * the channel is killed (NVL_CHANNEL_JOB_TIMEOUT). So is a channel RM
 * tore down (CHRAM ENABLE clear) whose RC_TRIGGERED never arrived (the
 * event queue was full, or the event's copy failed): no one else would
 * end its jobs.
 */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/client.h"
#include "base/freelist.h"
#include "base/log.h"
#include "gspabi.h"
#include "gsp/gsp.h"
#include "gsp/rm.h"
#include "hw/compute.h"
#include "hw/host.h"
#include "hw/regs.h"
#include "nouvelle/exec.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/fault.h"
#include "nv/usage.h"
#include "nv/vm.h"
#include "nv/work.h"
#include "sched/sched.h"
#include "sync/fence.h"
#include "sync/exec.h"
#include "sync/fence_chain.h"
#include "sync/flock.h"
#include "sync/syncobj.h"
#include "vm/gpuvm.h"
#include "vm/vm.h"
#include "vm/vm_exec.h"

#define GP_ENTRIES 256u
#define OFF_USERD 0x0000u
#define OFF_SEM 0x0800u
#define OFF_IDIOM 0x1000u
#define IDIOM_SIZE 32u
#define OFF_GPFIFO 0x4000u
#define OFF_KPUSH 0x5000u /* a kernel channel's pushbuffer, to the end */
#define MAX_PUSH_BYTES (NVL_HW_GP_ENTRY1_LENGTH_MASK * 4u)

struct nv_chan {
	struct nvl_kref ref;
	struct nvl_nv_device *d;
	struct nvl_vm *vm;
	struct nvl_list link; /* d->chans */
	uint32_t h_chan, h_ce, chid, token;
	uint32_t gen; /* the GSP generation its RM objects belong to */
	unsigned slot;
	uint64_t pa, va; /* the slot in VRAM and in the VM */
	uint8_t *cpu; /* the slot through the BAR */
	uint64_t fence_ctx;

	struct nvl_sched *sched;
	struct nvl_sched_entity entity;
	/* futex locks (sync/flock.h): one atomic each way, uncontended */
	struct nvl_flock submit_lock; /* arm + push order */
	uint32_t next_seq; /* submit_lock */

	struct nvl_flock lock; /* everything below */
	uint32_t gp_put;
	struct nvl_list inflight; /* struct nv_job.link, in seqno order */
	bool killed;
	int error;
	uint32_t hw_error; /* the Xid RM reported when it killed it */
	uint64_t submitted, completed;
	/* why it was killed (nvl_nv_chan_kill()) */
	uint32_t reason, fault_type, fault_access, fault_engine;
	uint64_t fault_va;
	uint64_t inst; /* RM's instance block: fault entries name it */
	uint64_t born_ns; /* PTIMER when RM made it: older entries are stale */
	uint64_t born_rx; /* GSP messages received once made: older events
			   * name a channel that had its id before */
	uint64_t client_id;
	struct nvl_client *client; /* busy time is charged to it */
	uint64_t busy_end; /* lock: GPU time the last charged job ended */
	struct nvl_nv_ptimer_cal
		ptimer; /* lock: job starts from the CPU clock */
	uint32_t runlist; /* the engine's runlist (ENGINE_STATUS) */
	/* job timeouts: the recovery work, the guilty job's hardware fence
	 * (lock) and whether a recovery is pending (lock) */
	struct nvl_nv_work rec_work;
	struct nvl_fence *rec_guilty;
	bool rec_busy;
	bool rec_torn; /* lock: RM tore it down, its RC event lost */
	/* lock: nvl_exec() calls between their liveness check and their
	 * last use of the entity; a teardown waits for them */
	unsigned execs;
	uint64_t timeouts, recoveries;
	bool kernel; /* the driver's own (privileged: physical copies) */
};

struct nv_job {
	struct nvl_sched_job base;
	struct nv_chan *ch;
	struct nvl_fence *hw; /* &hw_fence once armed */
	struct nvl_fence hw_fence; /* its reference count owns the job */
	uint32_t seq;
	uint64_t start_ns; /* PTIMER when it reached the ring */
	struct nvl_list link;
	int done_err; /* ch->lock: its fence's error once taken off the ring */
	/* exec: rewrites of moved BOs its validate deferred to its run */
	struct nvl_gpuvm_rebind *rebind;
	uint32_t n_push;
	uint32_t cap; /* room in push[] */
	uint32_t magic; /* JOB_LIVE from alloc to release, JOB_CACHED after */
	/* timedout_job() gave it, parked on an acquire, its one more period
	 * for a hang declared on its engine just before (the scheduler's run
	 * token: one caller) */
	bool hang_deferred;
	struct nvl_exec_push push[];
};

/*
 * Finished jobs kept for reuse, process-wide (base/freelist.h), and the
 * pushes each has room for. Process-wide, not per channel: the pool's
 * housekeeper releases finished jobs in batches (one per tick, 250 us:
 * about 80 jobs of the exec_latency loop, up to 200 pipelined), which a
 * list of a few jobs per channel mostly missed; room for a whole batch
 * (at most 256 jobs of ~350 B: ~90 KiB, process-wide).
 */
#define JOB_CACHE 256
#define JOB_CACHE_PUSH 4u
#define JOB_LIVE 0x6a6f6231u
#define JOB_CACHED 0xdeadb0b1u
#define job_check(j) assert((j)->magic == JOB_LIVE)

static struct nvl_freelist job_cache = NVL_FREELIST_INIT(JOB_CACHE);
static _Thread_local struct nvl_freelist_local job_local =
	NVL_FREELIST_LOCAL_INIT(&job_cache);

static void chan_put(struct nv_chan *ch)
{
	if (!nvl_kref_put(&ch->ref))
		return;
	nvl_free(ch);
}

/* ---- jobs and their cache ------------------------------------------ */

static void job_fence_release(struct nvl_fence *f);

static const char *job_fence_name(struct nvl_fence *f)
{
	(void)f;
	return "nv-channel";
}

static const struct nvl_fence_ops job_fence_ops = {
	.get_driver_name = job_fence_name,
	.get_timeline_name = job_fence_name,
	.release = job_fence_release,
};

/*
 * A zeroed job of @ch with room for @n_push pushes, holding a reference to
 * @ch until job_release(): a finished one from the cache if one fits,
 * else a new one. A reused job still goes through nvl_might_alloc(), so
 * allocation-failure injection and the signalling checker see every job
 * as an allocation.
 */
static NVL_HOT struct nv_job *job_alloc(struct nv_chan *ch, uint32_t n_push)
{
	uint32_t cap = n_push <= JOB_CACHE_PUSH ? JOB_CACHE_PUSH : n_push;
	size_t size =
		sizeof(struct nv_job) + cap * sizeof(struct nvl_exec_push);
	struct nv_job *j = NULL;

	if (cap == JOB_CACHE_PUSH)
		j = nvl_freelist_get(&job_local);
	if (j) {
		assert(j->magic == JOB_CACHED);
		if (nvl_might_alloc(size)) {
			if (!nvl_freelist_put(&job_cache, j))
				nvl_free(j);
			return NULL;
		}
		memset(j, 0, sizeof(*j));
	} else {
		j = nvl_zalloc(size);
		if (!j)
			return NULL;
	}
	j->cap = cap;
	j->magic = JOB_LIVE;
	nvl_list_init(&j->link);
	nvl_kref_get(&ch->ref); /* the job's */
	j->ch = ch;
	return j;
}

/*
 * The job's memory goes back to the cache (or is freed), and
 * its channel reference is dropped. Only once nothing names the job: its
 * hardware fence released (job_fence_release()), or never initialised.
 */
static NVL_HOT void job_release(struct nv_job *j)
{
	struct nv_chan *ch = j->ch;

	job_check(j);
	/* off the ring: nothing names it any more */
	assert(nvl_list_empty(&j->link));
	j->magic = JOB_CACHED;
	if (j->cap == JOB_CACHE_PUSH && nvl_freelist_put(&job_cache, j))
		j = NULL;
	nvl_free(j);
	chan_put(ch);
}

/* the last reference to the job's hardware fence: the job is done with */
static NVL_HOT void job_fence_release(struct nvl_fence *f)
{
	job_release(container_of(f, struct nv_job, hw_fence));
}

/* the job's hardware fence, seqno @seq of its channel (one reference) */
static void job_fence_init(struct nv_job *j, uint32_t seq)
{
	nvl_fence_init(&j->hw_fence, &job_fence_ops, j->ch->fence_ctx, seq);
	j->hw = &j->hw_fence;
}

/* free a job that was never pushed (its deferred rewrites are dropped:
 * their vm_bos stay on the evict list) */
static void job_abort(struct nv_job *j)
{
	if (j->rebind) {
		nvl_gpuvm_rebind_free(j->rebind);
		j->rebind = NULL;
	}
	if (j->hw)
		nvl_fence_put(j->hw); /* releases the job */
	else
		job_release(j);
}

/* ---- completion ------------------------------------------------------ */

/* take @j off the ring into @done, its fence to complete with @err
 * (ch->lock held) */
static void take_done(struct nv_chan *ch, struct nv_job *j, int err,
		      struct nvl_list *done)
{
	job_check(j);
	j->done_err = err;
	nvl_list_move_tail(&j->link, done);
	ch->completed++;
}

/*
 * Signal the jobs take_done() moved to @done, outside ch->lock: a signal
 * may run the next job at once. The ring's reference to each job's
 * hardware fence (run_job()) is dropped last: that may give the job back.
 */
static void signal_done(struct nvl_list *done)
{
	while (!nvl_list_empty(done)) {
		struct nv_job *j =
			nvl_list_entry(done->next, struct nv_job, link);
		struct nvl_fence *f = j->hw;

		job_check(j);
		nvl_list_del(&j->link);
		nvl_list_init(&j->link);
		if (j->done_err)
			nvl_fence_set_error(f, j->done_err);
		nvl_fence_signal(f);
		nvl_fence_put(f);
	}
}

/* finish the jobs the semaphore covers (or all of them, with @err) */
static NVL_HOT void chan_complete(struct nv_chan *ch, bool all, int err)
{
	struct nvl_list done;
	struct nv_job *j, *n;
	uint32_t sem;

	nvl_list_init(&done);
	nvl_flock_lock(&ch->lock);
	sem = atomic_load_explicit((_Atomic uint32_t *)(ch->cpu + OFF_SEM),
				   memory_order_acquire);
	nvl_list_for_each_entry_safe (j, n, &ch->inflight, link) {
		if (!all && (int32_t)(sem - j->seq) < 0)
			break;
		if (!all && nvl_list_empty(&done))
			nvl_nv_usage_charge(ch->client, NVL_CLIENT_ENGINE_COPY,
					    &ch->busy_end, j->start_ns,
					    ch->cpu + OFF_SEM);
		take_done(ch, j, err, &done);
	}
	nvl_flock_unlock(&ch->lock);
	signal_done(&done);
}

/*
 * Kill a channel as RM's robust-channel recovery reported it (nv/fault.c:
 * an MMU fault entry or RC_TRIGGERED; RM already stopped it): what the
 * semaphore shows done completes normally, the job at the head of the
 * ring (the one that was running: the guilty one) with @k->job_error,
 * every job behind it with -ECANCELED; later execs get -ENODEV and its
 * query says why. Only the first kill of a channel counts.
 */
int nvl_nv_chan_kill(struct nvl_nv_device *d, struct nvl_nv_kill *k)
{
	struct nv_chan *ch, *found = NULL;
	struct nvl_list done;
	struct nv_job *j, *n;
	int err = k->job_error;
	uint32_t sem;
	int ret;

	nvl_flock_lock(&d->chan_lock);
	nvl_list_for_each_entry (ch, &d->chans, link)
		/* a channel id of a firmware before a reset is reused */
		if (ch->gen == atomic_load(&d->gen) &&
		    (k->by_inst ? ch->inst == k->inst &&
					  k->timestamp >= ch->born_ns
				: ch->chid == k->chid &&
					  (!k->rx || k->rx > ch->born_rx))) {
			found = ch;
			nvl_kref_get(&ch->ref);
			break;
		}
	nvl_flock_unlock(&d->chan_lock);
	if (!found)
		return -ENOENT;
	ch = found;
	k->chid = ch->chid;
	k->client_id = ch->client_id;
	nvl_list_init(&done);
	nvl_flock_lock(&ch->lock);
	ret = !ch->killed;
	if (ret) {
		ch->killed = true;
		ch->error = k->chan_error;
		ch->hw_error = k->xid;
		ch->reason = k->reason;
		ch->fault_type = k->fault_type;
		ch->fault_access = k->fault_access;
		ch->fault_engine = k->fault_engine;
		ch->fault_va = k->fault_va;
		sem = atomic_load_explicit(
			(_Atomic uint32_t *)(ch->cpu + OFF_SEM),
			memory_order_acquire);
		/* done per the semaphore: no error; the first unfinished
		 * (the guilty one): the job error; those behind: cancelled */
		nvl_list_for_each_entry_safe (j, n, &ch->inflight, link) {
			if ((int32_t)(sem - j->seq) >= 0) {
				take_done(ch, j, 0, &done);
				continue;
			}
			take_done(ch, j, err, &done);
			err = -ECANCELED;
		}
	}
	nvl_flock_unlock(&ch->lock);
	if (ret && k->on_kill)
		k->on_kill(k->on_kill_arg);
	signal_done(&done);
	chan_put(ch);
	return ret;
}

void nvl_nv_chan_device_lost(void *dev)
{
	struct nvl_nv_device *d = dev;
	struct nv_chan *ch;

	nvl_flock_lock(&d->chan_lock);
	nvl_list_for_each_entry (ch, &d->chans, link) {
		nvl_hw_wr32(d->hw, NVL_HW_CHRAM_CTRL(ch->chid),
			    NVL_HW_CHRAM_CTRL_ENABLE_CLR);
		nvl_flock_lock(&ch->lock);
		if (!ch->killed) {
			ch->killed = true;
			ch->error = -ENODEV;
			ch->reason = NVL_CHANNEL_DEVICE_LOST;
		}
		nvl_flock_unlock(&ch->lock);
		chan_complete(ch, false, 0);
		chan_complete(ch, true, -ENODEV);
	}
	nvl_flock_unlock(&d->chan_lock);
}

NVL_HOT void nvl_nv_chan_irq(void *dev)
{
	struct nvl_nv_device *d = dev;
	uint32_t st = nvl_hw_rd32(
		d->hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_NONSTALL));
	struct nv_chan *ch;

	if (!st)
		return;
	nvl_hw_wr32(d->hw, NVL_HW_INTR_STATUS(NVL_HW_INTR_TREE_NONSTALL), st);
	nvl_flock_lock(&d->chan_lock);
	nvl_list_for_each_entry (ch, &d->chans, link)
		chan_complete(ch, false, 0);
	nvl_flock_unlock(&d->chan_lock);
}

/* ---- the scheduler's backend ---------------------------------------- */

static void wr_idiom(struct nv_chan *ch, uint32_t seq, uint64_t *va_out)
{
	unsigned i = seq % (GP_ENTRIES);
	uint32_t p[IDIOM_SIZE / 4];
	uint64_t sem = ch->va + OFF_SEM;

	p[0] = NVL_HW_MTHD_INC(0, NVL_HW_SEM_ADDR_LO, 5);
	p[1] = (uint32_t)sem;
	p[2] = (uint32_t)(sem >> 32) & 0xff;
	p[3] = seq;
	p[4] = 0;
	/* with the GPU time at +8: the job's end, for fdinfo */
	p[5] = NVL_HW_SEM_EXECUTE_RELEASE_WFI_32 | NVL_HW_SEM_RELEASE_TIMESTAMP;
	p[6] = NVL_HW_MTHD_INC(0, NVL_HW_NON_STALL_INTERRUPT, 1);
	p[7] = 0;
	memcpy(ch->cpu + OFF_IDIOM + i * IDIOM_SIZE, p, sizeof(p));
	*va_out = ch->va + OFF_IDIOM + i * IDIOM_SIZE;
}

static void wr_gp(struct nv_chan *ch, uint64_t e)
{
	memcpy(ch->cpu + OFF_GPFIFO + (ch->gp_put % GP_ENTRIES) * 8, &e, 8);
	ch->gp_put = (ch->gp_put + 1) % GP_ENTRIES;
}

/*
 * The rewrites its exec's validate deferred (a BO whose move was still
 * queued): every dependency has signalled, the moves' fences among them,
 * so the new backing holds the BO now; the jobs queued before the moves
 * ran on the old entries. Written before the job reaches the ring.
 * Return: 0, or the page-table backend's error (the job does not run).
 */
static __attribute__((noinline)) int run_rebind(struct nv_job *j)
{
	int ret = nvl_gpuvm_rebind_run(j->rebind);

	if (ret)
		nvl_err(NVL_CAT_NV,
			"exec: rewriting a moved BO's mappings failed (%d): "
			"the job does not run",
			ret);
	return ret;
}

static NVL_HOT struct nvl_fence *run_job(struct nvl_sched_job *sj)
{
	struct nv_job *j = container_of(sj, struct nv_job, base);
	struct nv_chan *ch = j->ch;
	uint64_t idiom;
	uint32_t put;
	int ret;

	job_check(j);
	if (unlikely(j->rebind) && (ret = run_rebind(j))) {
		nvl_sched_job_set_error(sj, ret);
		return NULL;
	}
	nvl_flock_lock(&ch->lock);
	if (ch->killed) {
		nvl_flock_unlock(&ch->lock);
		/* behind the job that killed it: never ran */
		nvl_sched_job_set_error(sj, -ECANCELED);
		return NULL;
	}
	for (uint32_t i = 0; i < j->n_push; i++)
		wr_gp(ch, nvl_hw_gp_entry(j->push[i].va, j->push[i].len / 4,
					  j->push[i].flags &
						  NVL_EXEC_PUSH_NO_PREFETCH));
	wr_idiom(ch, j->seq, &idiom);
	wr_gp(ch, nvl_hw_gp_entry(idiom, IDIOM_SIZE / 4, 0));
	j->start_ns = nvl_nv_ptimer_est(ch->d->hw, &ch->ptimer);
	/* the ring names the job: it holds a reference to its fence (and so
	 * to the job) until signal_done() or a recovery takes it off */
	nvl_list_add_tail(&j->link, &ch->inflight);
	nvl_fence_get(j->hw);
	ch->submitted++;
	put = ch->gp_put;
	/* entries and idiom before GP_PUT, GP_PUT before the doorbell */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(
		(_Atomic uint32_t *)(ch->cpu + OFF_USERD + NVL_HW_USERD_GP_PUT),
		put, memory_order_release);
	nvl_flock_unlock(&ch->lock);
	/* the doorbell is kick()'s, once the scheduler attached the job's
	 * completion to this fence */
	return nvl_fence_get(j->hw);
}

/*
 * Ring the doorbell for what run_job() wrote: after the scheduler attached
 * the completion to the job's fence, so that the runlist thread it wakes
 * completes the job alone, while this thread returns without meeting it on
 * a lock (the job may be done and freed by the time this returns: only
 * the channel is named). Rung with ch->lock dropped: the woken runlist
 * thread often runs and completes the job (chan_complete() takes ch->lock)
 * before this thread runs again. A doorbell only makes the PBDMA read
 * GP_PUT, so a late or extra one is harmless.
 */
static NVL_HOT void kick(struct nvl_sched *sched)
{
	struct nv_chan *ch = nvl_sched_priv(sched);

	nvl_hw_wr32(ch->d->hw, NVL_HW_DOORBELL, ch->token);
}

static NVL_HOT void free_job(struct nvl_sched_job *sj)
{
	struct nv_job *j = container_of(sj, struct nv_job, base);

	job_check(j);
	nvl_sched_job_cleanup(sj);
	if (unlikely(j->rebind)) {
		nvl_gpuvm_rebind_free(j->rebind);
		j->rebind = NULL;
	}
	/* a job killed before it ran never reached the ring */
	if (!nvl_fence_is_signaled(j->hw)) {
		nvl_fence_set_error(j->hw, -ECANCELED);
		nvl_fence_signal(j->hw);
	}
	/* the job's own reference: the last one gives the job back */
	nvl_fence_put(j->hw);
}

/*
 * The scheduler saw no progress on @sj's channel for the job timeout. In a
 * signalling section: no RPC here, the worker does the reset.
 */
static enum nvl_sched_stat timedout_job(struct nvl_sched_job *sj)
{
	struct nv_job *j = container_of(sj, struct nv_job, base);
	struct nv_chan *ch = j->ch;
	uint32_t st, ctrl, hangs;
	bool parked, torn, held;

	job_check(j);
	/* the engine is idle or works for another channel: this one waits
	 * for its turn (behind a hang its own timeout recovers), it is not
	 * hung itself; unless it is off the engine because its pushbuffer
	 * waits in a semaphore acquire that has not succeeded (it yields
	 * its timeslice, ACQUIRE_SWITCH_TSG): no progress of its own */
	st = nvl_hw_rd32(ch->d->hw, NVL_HW_ENGINE_STATUS(ch->runlist));
	ctrl = nvl_hw_rd32(ch->d->hw, NVL_HW_CHRAM_CTRL(ch->chid));
	parked = ctrl & NVL_HW_CHRAM_CTRL_ACQUIRE_PENDING;
	/* RM tears a channel down (ENABLE_CLR) before it reports it: off
	 * for a whole timeout while alive here, its RC_TRIGGERED was lost
	 * (the event queue was full, or the event's copy failed) and no
	 * one else will end its jobs */
	torn = !(ctrl & NVL_HW_CHRAM_CTRL_ENABLE);
	held = (st & NVL_HW_ENGINE_STATUS_CHID_VALID) &&
	       (st >> NVL_HW_ENGINE_STATUS_CHID_SHIFT & 0xfff) == ch->chid &&
	       !parked && !torn;
	if (!parked && !torn && !held)
		return NVL_SCHED_STAT_NO_HANG;
	/*
	 * A channel that held this engine when it was declared hung, less
	 * than a timeout ago: this one, on the engine now, got it after that
	 * one's reset, less than a timeout ago, so it has not had it a whole
	 * timeout without progress. Not hung, as often as that is so (no
	 * cap: a job really hung on the engine keeps every other channel off
	 * it, so no such declaration follows its own hang; a cap only moved
	 * the edge, docs/faults.md). Parked on an acquire: one more period,
	 * once (it may have waited behind that hang before it parked).
	 */
	if (!torn && nvl_nv_hang_recent(ch->d, ch->runlist)) {
		if (held)
			return NVL_SCHED_STAT_NO_HANG;
		if (!j->hang_deferred) {
			j->hang_deferred = true;
			return NVL_SCHED_STAT_NO_HANG;
		}
	}
	if (nvl_fence_is_signaled(j->hw))
		return NVL_SCHED_STAT_NO_HANG; /* finished meanwhile */
	nvl_flock_lock(&ch->lock);
	if (ch->killed || ch->rec_busy) {
		/* killed: its fences complete without us */
		nvl_flock_unlock(&ch->lock);
		return NVL_SCHED_STAT_NO_HANG;
	}
	/* from here the channel waits for this recovery to end before it
	 * can be torn down */
	ch->rec_busy = true;
	ch->rec_torn = torn;
	nvl_flock_unlock(&ch->lock);
	/* only a declaration of a channel that held the engine defers others:
	 * not a parked one's, not a torn one's (no engine time of theirs) */
	if (held)
		nvl_nv_hang_declared(ch->d, ch->runlist);
	/* stop waits for a run_job in progress: not under ch->lock */
	nvl_sched_stop(ch->sched);
	/* (a lost event is no hang of the client's: not counted) */
	hangs = torn ? 0 : atomic_fetch_add(&ch->client->hangs, 1) + 1;
	if (hangs >= NVL_NV_HANG_BAN)
		nvl_sched_job_set_guilty(sj, -ETIMEDOUT); /* bans its queue */
	else
		nvl_sched_job_set_error(sj, -ETIMEDOUT);
	nvl_flock_lock(&ch->lock);
	ch->rec_guilty = nvl_fence_get(j->hw);
	ch->timeouts++;
	nvl_kref_get(&ch->ref); /* the work's */
	nvl_nv_work_queue(&ch->rec_work);
	nvl_flock_unlock(&ch->lock);
	nvl_warn(NVL_CAT_NV,
		 "channel %u: job %u made no progress for %lld ms; %s",
		 ch->chid, j->seq,
		 (long long)(ch->d->job_timeout_ns / NVL_NSEC_PER_MSEC),
		 torn ? "RM stopped the channel and its RC event was lost"
		      : "resetting the channel");
	return NVL_SCHED_STAT_RESET;
}

/* ask the firmware to reset the channel; 0 or a negative errno */
static int chan_fw_reset(struct nv_chan *ch)
{
	struct nvl_nv_device *d = ch->d;
	struct gspabi_reset_channel rp = {
		.resetReason =
			GSPABI_K_NV906F_CTRL_CMD_RESET_CHANNEL_REASON_DEFAULT,
	};

	if (ch->gen != atomic_load(&d->gen) || atomic_load(&d->lost))
		return nvl_error(-ENODEV, "channel %u: the device is lost",
				 ch->chid);
	rp.engineID = ch->runlist;
	return nvl_gsp_rm_control_abi(
		d->gsp, ch->h_chan,
		GSPABI_K_CONTROL_NV906F_CTRL_CMD_RESET_CHANNEL,
		GSPABI_S_RESET_CHANNEL, &rp);
}

/* the worker's half of a job timeout (see timedout_job) */
static void chan_recover(struct nvl_nv_work *w)
{
	struct nv_chan *ch = container_of(w, struct nv_chan, rec_work);
	struct nvl_fence *guilty;
	struct nvl_list done, requeue;
	struct nv_job *j, *n;
	bool killed, torn;
	int ret = -ENODEV;

	/* what finished before the hang finishes normally */
	chan_complete(ch, false, 0);
	nvl_flock_lock(&ch->lock);
	guilty = ch->rec_guilty;
	killed = ch->killed;
	torn = ch->rec_torn;
	nvl_flock_unlock(&ch->lock);
	if (!killed && torn) /* RM's teardown stands: no reset revives it */
		ret = nvl_error(-EIO, "RM stopped it, its RC event lost");
	else if (!killed)
		ret = chan_fw_reset(ch);
	if (ret && !killed)
		nvl_err(NVL_CAT_NV, "channel %u: %s (%s): killing it", ch->chid,
			torn ? "its jobs cannot end"
			     : "the firmware could not reset it",
			nvl_error_msg());
	nvl_list_init(&done);
	nvl_list_init(&requeue);
	nvl_flock_lock(&ch->lock);
	if (!ret && !ch->killed) {
		/* the ring is empty again: the guilty job fails, the others
		 * go back to the scheduler */
		nvl_list_for_each_entry_safe (j, n, &ch->inflight, link) {
			if (j->hw == guilty)
				take_done(ch, j, -ETIMEDOUT, &done);
			else
				nvl_list_move_tail(&j->link, &requeue);
		}
		ch->recoveries++;
	} else if (!ch->killed) {
		ch->killed = true;
		ch->error = -ETIMEDOUT;
		ch->reason = NVL_CHANNEL_JOB_TIMEOUT;
		nvl_list_for_each_entry_safe (j, n, &ch->inflight, link)
			take_done(ch, j,
				  j->hw == guilty ? -ETIMEDOUT : -ECANCELED,
				  &done);
	}
	nvl_flock_unlock(&ch->lock);
	signal_done(&done);
	/* off the ring until resubmitted: the ring's references go */
	while (!nvl_list_empty(&requeue)) {
		j = nvl_list_first_entry(&requeue, struct nv_job, link);
		nvl_list_del(&j->link);
		nvl_list_init(&j->link);
		nvl_fence_put(j->hw);
	}
	if (!nvl_fence_is_signaled(guilty)) {
		/* killed under us, or not on the ring any more */
		nvl_fence_set_error(guilty, -ETIMEDOUT);
		nvl_fence_signal(guilty);
	}
	/* innocents run again (a killed channel cancels them in run_job) */
	nvl_sched_resubmit_jobs(ch->sched);
	nvl_sched_start(ch->sched);
	nvl_flock_lock(&ch->lock);
	ch->rec_guilty = NULL;
	ch->rec_busy = false;
	ch->rec_torn = false;
	nvl_flock_unlock(&ch->lock);
	nvl_fence_put(guilty);
	chan_put(ch);
}

static const struct nvl_sched_backend_ops chan_sched_ops = {
	.run_job = run_job,
	.kick = kick,
	.timedout_job = timedout_job,
	.free_job = free_job,
};

/* ---- create / destroy ------------------------------------------------ */

static int slot_get(struct nvl_nv_device *d, unsigned *slot)
{
	int ret = -ENOSPC;

	nvl_flock_lock(&d->chan_lock);
	for (unsigned i = 0; i < NVL_NV_CHAN_SLOTS; i++)
		if (!d->slot_used[i]) {
			d->slot_used[i] = 1;
			*slot = i;
			ret = 0;
			break;
		}
	nvl_flock_unlock(&d->chan_lock);
	if (ret)
		return nvl_error(ret,
				 "channel: the device's %u channels are "
				 "in use",
				 NVL_NV_CHAN_SLOTS);
	return 0;
}

static void slot_put(struct nvl_nv_device *d, unsigned slot)
{
	nvl_flock_lock(&d->chan_lock);
	d->slot_used[slot] = 0;
	nvl_flock_unlock(&d->chan_lock);
}

void nvl_nv_chan_finish_deferred(struct nvl_nv_device *d, bool rm)
{
	for (unsigned s = 0; s < NVL_NV_CHAN_SLOTS; s++) {
		struct nvl_nv_chan_deferred c;

		nvl_flock_lock(&d->chan_lock);
		c = d->chan_deferred[s];
		d->chan_deferred[s].vm = NULL;
		nvl_flock_unlock(&d->chan_lock);
		if (!c.vm)
			continue;
		if (rm && c.h_chan && c.gen == atomic_load(&d->gen) &&
		    !atomic_load(&d->lost) && nvl_gsp_rm_free(d->gsp, c.h_chan))
			nvl_warn(NVL_CAT_NV, "channel slot %u: RM free: %s", s,
				 nvl_error_msg());
		nvl_nv_vm_kunmap(c.vm, c.va, NVL_NV_CHAN_SLOT_SIZE);
		nvl_vm_put(c.vm);
		slot_put(d, s);
	}
}

/* take the channel off the hardware and finish everything it had */
static void chan_teardown(struct nv_chan *ch)
{
	struct nvl_nv_device *d = ch->d;
	/*
	 * Suspended: RM takes no call, and the resume writes the saved page
	 * tables back, so an unmap of the slot now would be undone and the
	 * slot, free again, could be another client's channel still mapped
	 * in this VM. Both wait for the resume (nvl_nv_chan_finish_deferred).
	 */
	bool defer = atomic_load(&d->suspended);

	/* queued jobs never run */
	nvl_sched_entity_kill(&ch->entity);
	nvl_flock_lock(&ch->lock);
	ch->killed = true;
	if (!ch->error) {
		ch->error = -ECANCELED;
		ch->reason = NVL_CHANNEL_DESTROYED;
	}
	nvl_flock_unlock(&ch->lock);
	nvl_flock_lock(&d->chan_lock);
	nvl_list_del(&ch->link);
	d->nchans--;
	nvl_flock_unlock(&d->chan_lock);
	/* RM disables and unbinds it: the engine stops fetching (a handle
	 * of a firmware that died before a reset is gone with it) */
	if (!defer && ch->h_chan && ch->gen == atomic_load(&d->gen) &&
	    !atomic_load(&d->lost) && nvl_gsp_rm_free(d->gsp, ch->h_chan))
		nvl_warn(NVL_CAT_NV, "channel %u: RM free: %s", ch->chid,
			 nvl_error_msg());
	/* what it had on the ring completes with an error, unless done */
	chan_complete(ch, false, 0);
	chan_complete(ch, true, -ECANCELED);
	/* a recovery begun before it was killed finishes first */
	for (;;) {
		bool busy;

		nvl_flock_lock(&ch->lock);
		busy = ch->rec_busy || ch->execs;
		nvl_flock_unlock(&ch->lock);
		if (!busy)
			break;
		nvl_nv_work_flush(&ch->rec_work);
		nanosleep(&(struct timespec){.tv_nsec = 50 * 1000}, NULL);
	}
	nvl_nv_work_put();
	nvl_sched_entity_fini(&ch->entity);
	nvl_sched_destroy(ch->sched);
	if (defer) {
		/* the record takes the VM reference */
		nvl_flock_lock(&d->chan_lock);
		d->chan_deferred[ch->slot] =
			(struct nvl_nv_chan_deferred){.vm = ch->vm,
						      .va = ch->va,
						      .h_chan = ch->h_chan,
						      .gen = ch->gen};
		nvl_flock_unlock(&d->chan_lock);
		return;
	}
	nvl_nv_vm_kunmap(ch->vm, ch->va, NVL_NV_CHAN_SLOT_SIZE);
	nvl_vm_put(ch->vm);
	slot_put(d, ch->slot);
}

static NVL_HOT void h_get(void *obj)
{
	nvl_kref_get(&((struct nv_chan *)obj)->ref);
}

static void h_put(void *obj)
{
	/* the one handle is the channel's life: closing it destroys it */
	chan_teardown(obj);
	chan_put(obj);
}

static const struct nvl_handle_ops chan_handle_ops = {h_get, h_put};

void nvl_nv_chan_register(void)
{
	nvl_handle_kind_register(NVL_HANDLE_CHANNEL, &chan_handle_ops);
}

/* PTIMER, the clock fault entries are stamped with (high, low, high) */
static uint64_t ptimer_ns(struct nvl_nv_device *d)
{
	uint32_t hi, lo;

	do {
		hi = nvl_hw_rd32(d->hw, NVL_HW_PTIMER_TIME_1);
		lo = nvl_hw_rd32(d->hw, NVL_HW_PTIMER_TIME_0);
	} while (hi != nvl_hw_rd32(d->hw, NVL_HW_PTIMER_TIME_1));
	return (uint64_t)hi << 32 | lo;
}

static int rm_channel(struct nv_chan *ch, struct nvl_nv_vm *v, uint32_t engine)
{
	struct nvl_nv_device *d = ch->d;
	struct gspabi_channel_alloc cp = {0};
	struct gspabi_work_submit_token wt = {0};
	int ret;

	cp.gpFifoOffset = ch->va + OFF_GPFIFO;
	cp.gpFifoEntries = GP_ENTRIES;
	cp.hVASpace = v->h_vas;
	cp.engineType = 0; /* the first copy engine's runlist */
	if (engine == NVL_ENGINE_COMPUTE) /* or the compute runlist */
		cp.engineType = NVL_HW_RUNLIST_COMPUTE(d->boot.num_ce);
	ch->runlist = cp.engineType;
	cp.userdOffset = ch->pa + OFF_USERD;
	if (ch->kernel) /* the copy engine may use physical addresses */
		cp.flags |= GSPABI_K_NVOS04_FLAGS_PRIVILEGED_CHANNEL;
	ret = nvl_gsp_rm_alloc_abi(d->gsp, d->h_device, d->boot.host_class,
				   GSPABI_S_CHANNEL_ALLOC, &cp, &ch->h_chan);
	if (ret)
		return ret;
	/* the index of its CHRAM registers: RM's word checked first */
	if (cp.cid >= d->boot.num_channels) {
		ret = nvl_error(-EPROTO, "channel: RM gave channel id %u of %u",
				cp.cid, d->boot.num_channels);
		(void)nvl_gsp_rm_free(d->gsp, ch->h_chan);
		ch->h_chan = 0;
		return ret;
	}
	ch->chid = cp.cid;
	ch->inst = cp.instOffset;
	ret = nvl_gsp_rm_alloc(d->gsp, ch->h_chan,
			       engine == NVL_ENGINE_COMPUTE
				       ? d->chip->compute_class
				       : d->boot.ce_class,
			       NULL, 0, &ch->h_ce);
	if (!ret)
		ret = nvl_gsp_rm_control_abi(
			d->gsp, ch->h_chan,
			GSPABI_K_CONTROL_NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN,
			GSPABI_S_WORK_SUBMIT_TOKEN, &wt);
	if (ret) {
		(void)nvl_gsp_rm_free(d->gsp, ch->h_chan);
		ch->h_chan = 0;
		return ret;
	}
	ch->token = wt.workSubmitToken;
	ch->born_ns = ptimer_ns(d);
	ch->born_rx = nvl_gsp_rx_mark(d->gsp);
	return 0;
}

static int client_chan_count(struct nvl_client *c, int delta)
{
	unsigned n = atomic_load(&c->nchannels);

	if (delta < 0) {
		atomic_fetch_sub(&c->nchannels, 1);
		return 0;
	}
	do {
		if (n >= NVL_NV_CHANS_PER_CLIENT)
			return -ENOSPC;
	} while (!atomic_compare_exchange_weak(&c->nchannels, &n, n + 1));
	return 0;
}

static int chan_create(struct nvl_client *client, uint32_t vmh, uint32_t engine,
		       bool kernel, uint32_t *handle_out);

NVL_API int nvl_channel_create(struct nvl_client *client, uint32_t vmh,
			       uint32_t engine, uint32_t flags,
			       uint32_t *handle_out)
{
	if (!client || !handle_out)
		return nvl_error(-EINVAL, "channel: NULL argument");
	if (flags)
		return nvl_error(-EINVAL, "channel: flags %#x", flags);
	return chan_create(client, vmh, engine, false, handle_out);
}

int nvl_nv_chan_create_kernel(struct nvl_client *client, uint32_t vmh,
			      uint32_t *handle_out)
{
	return chan_create(client, vmh, NVL_ENGINE_COPY, true, handle_out);
}

static int chan_create(struct nvl_client *client, uint32_t vmh, uint32_t engine,
		       bool kernel, uint32_t *handle_out)
{
	struct nvl_nv_device *d;
	struct nvl_sched_args sa = {0};
	struct nvl_nv_vm *v;
	struct nvl_vm *vm;
	struct nv_chan *ch;
	int ret;

	d = nvl_nv_device_of(client);
	if (!d)
		return nvl_error(-EINVAL, "channel: the client has no device");
	if (atomic_load(&d->lost))
		return nvl_error(-ENODEV, "channel: the device is lost");
	if (atomic_load(&d->suspended))
		return nvl_error(-EAGAIN, "channel: the device is suspended");
	if (engine != NVL_ENGINE_COPY && engine != NVL_ENGINE_COMPUTE)
		return nvl_error(-EINVAL, "channel: no engine %u", engine);
	vm = nvl_vm_lookup(client, vmh);
	if (!vm)
		return nvl_error(-ENOENT, "channel: no VM %u", vmh);
	v = nvl_nv_vm_of(vm);
	if (!v || vm->gpuvm->kend - vm->gpuvm->kstart <
			  (uint64_t)NVL_NV_CHAN_SLOTS * NVL_NV_CHAN_SLOT_SIZE) {
		nvl_vm_put(vm);
		return nvl_error(-EINVAL,
				 "channel: VM %u needs a kernel range of at "
				 "least %u bytes",
				 vmh,
				 NVL_NV_CHAN_SLOTS * NVL_NV_CHAN_SLOT_SIZE);
	}
	/* its RM VA space went with the firmware of before a reset, and
	 * the new firmware may have given its handle to another client's */
	if (v->gen != atomic_load(&d->gen)) {
		nvl_vm_put(vm);
		return nvl_error(-ENODEV,
				 "channel: VM %u was made before a device "
				 "reset",
				 vmh);
	}
	/* the slot is addressed with VA bits 39:0 only, on every Host class
	 * C86F included: the fence idiom's GPFIFO entry (GP_ENTRY1 GET_HI
	 * 7:0; the driver writes no SET_PB_SEGMENT_EXTENDED_BASE entry), its
	 * SEM_ADDR_HI (written 8 bits wide) and the GPFIFO base RM puts in
	 * RAMFC: a slot at or above 2^40 would be read and released at an
	 * aliased address of the client's own VA space */
	if (vm->gpuvm->kend > 1ull << 40) {
		nvl_vm_put(vm);
		return nvl_error(-EINVAL,
				 "channel: VM %u's kernel range ends past "
				 "2^40 (Host addresses the channel's ring "
				 "and semaphore with 40 bits)",
				 vmh);
	}
	if (client_chan_count(client, 1)) {
		nvl_vm_put(vm);
		return nvl_error(-ENOSPC, "channel: the client has %u channels",
				 NVL_NV_CHANS_PER_CLIENT);
	}
	ch = nvl_zalloc(sizeof(*ch));
	if (!ch) {
		ret = nvl_error(-ENOMEM, "channel: out of memory");
		goto fail_count;
	}
	nvl_kref_init(&ch->ref);
	nvl_flock_init(&ch->lock);
	nvl_flock_init(&ch->submit_lock);
	nvl_list_init(&ch->inflight);
	nvl_list_init(&ch->link);
	ch->d = d;
	ch->vm = vm;
	ch->client_id = client->id;
	ch->client = client;
	ch->gen = atomic_load(&d->gen);
	ch->rec_work.fn = chan_recover;
	ch->kernel = kernel;
	ret = nvl_nv_work_get();
	if (ret)
		goto fail_free;
	ret = slot_get(d, &ch->slot);
	if (ret)
		goto fail_work;
	ch->pa = d->chan_base + (uint64_t)ch->slot * NVL_NV_CHAN_SLOT_SIZE;
	ch->va = vm->gpuvm->kstart + (uint64_t)ch->slot * NVL_NV_CHAN_SLOT_SIZE;
	ch->cpu = nvl_hw_vram_map(d->hw, ch->pa, NVL_NV_CHAN_SLOT_SIZE);
	if (!ch->cpu) {
		ret = nvl_error(-ENODEV, "channel: no CPU mapping of VRAM");
		goto fail_slot;
	}
	memset(ch->cpu, 0, NVL_NV_CHAN_SLOT_SIZE);
	ch->fence_ctx = nvl_fence_context_alloc(1);
	sa.ops = &chan_sched_ops;
	sa.credit_limit = GP_ENTRIES - 1;
	sa.timeout_ns = d->job_timeout_ns;
	sa.name = "nv-channel";
	sa.priv = ch;
	ret = nvl_sched_create(&sa, &ch->sched);
	if (ret)
		goto fail_slot;
	ret = nvl_sched_entity_init(&ch->entity, NVL_SCHED_PRIO_NORMAL,
				    ch->sched);
	if (ret)
		goto fail_sched;
	ret = nvl_nv_vm_kmap(vm, ch->va, ch->pa, NVL_NV_CHAN_SLOT_SIZE);
	if (ret)
		goto fail_entity;
	ret = rm_channel(ch, v, engine);
	if (ret)
		goto fail_kmap;
	nvl_flock_lock(&d->chan_lock);
	nvl_list_add_tail(&ch->link, &d->chans);
	d->nchans++;
	nvl_flock_unlock(&d->chan_lock);
	ret = nvl_client_handle_add(client, NVL_HANDLE_CHANNEL, ch, handle_out);
	if (ret) {
		chan_teardown(ch);
		chan_put(ch);
		client_chan_count(client, -1);
		return nvl_error(ret, "channel: no handle");
	}
	chan_put(ch); /* the handle holds it */
	return 0;
fail_kmap:
	nvl_nv_vm_kunmap(vm, ch->va, NVL_NV_CHAN_SLOT_SIZE);
fail_entity:
	nvl_sched_entity_fini(&ch->entity);
fail_sched:
	nvl_sched_destroy(ch->sched);
fail_slot:
	slot_put(d, ch->slot);
fail_work:
	nvl_nv_work_put();
fail_free:
	chan_put(ch);
fail_count:
	client_chan_count(client, -1);
	nvl_vm_put(vm);
	return ret;
}

NVL_API int nvl_channel_destroy(struct nvl_client *client, uint32_t channel)
{
	int ret;

	if (!client)
		return nvl_error(-EINVAL, "channel: NULL client");
	ret = nvl_client_handle_remove(client, NVL_HANDLE_CHANNEL, channel);
	if (ret)
		return nvl_error(-ENOENT, "channel: no channel %u", channel);
	client_chan_count(client, -1);
	return 0;
}

/* 0, or -ENODEV (with the message "<what>channel N was killed") */
static int chan_check_alive(struct nv_chan *ch, const char *what,
			    uint32_t channel)
{
	int ret = 0;

	nvl_flock_lock(&ch->lock);
	if (ch->killed)
		ret = nvl_error(-ENODEV, "%schannel %u was killed (%d)", what,
				channel, ch->error);
	nvl_flock_unlock(&ch->lock);
	return ret;
}

int nvl_nv_chan_hw_ids(struct nvl_client *client, uint32_t channel,
		       uint32_t *chid, uint32_t *runlist)
{
	struct nv_chan *ch =
		nvl_client_handle_get(client, NVL_HANDLE_CHANNEL, channel);
	int ret = 0;

	if (!ch)
		return nvl_error(-ENOENT, "channel: no channel %u", channel);
	nvl_flock_lock(&ch->lock);
	if (ch->killed)
		ret = nvl_error(-ENODEV, "channel %u was killed (%d)", channel,
				ch->error);
	*chid = ch->chid;
	*runlist = ch->runlist;
	nvl_flock_unlock(&ch->lock);
	chan_put(ch);
	return ret;
}

NVL_API int nvl_channel_query(struct nvl_client *client, uint32_t channel,
			      struct nvl_channel_info *info)
{
	struct nv_chan *ch;

	if (!client || !info)
		return nvl_error(-EINVAL, "channel: NULL argument");
	ch = nvl_client_handle_get(client, NVL_HANDLE_CHANNEL, channel);
	if (!ch)
		return nvl_error(-ENOENT, "channel: no channel %u", channel);
	nvl_flock_lock(&ch->lock);
	info->alive = !ch->killed;
	info->error = ch->killed ? ch->error : 0;
	info->reason = ch->reason;
	/* the device is published lost before its channels are killed
	 * (nvl_nv_device_lost()): one that nvl_device_status() already
	 * reports lost has no live channel either */
	if (!ch->killed && atomic_load(&ch->d->lost)) {
		info->alive = 0;
		info->error = -ENODEV;
		info->reason = NVL_CHANNEL_DEVICE_LOST;
	}
	info->hw_error = ch->hw_error;
	info->chid = ch->chid;
	info->gp_entries = GP_ENTRIES;
	info->submitted = ch->submitted;
	info->completed = ch->completed;
	info->fault_type = ch->fault_type;
	info->fault_access = ch->fault_access;
	info->fault_engine = ch->fault_engine;
	info->fault_va = ch->fault_va;
	nvl_flock_unlock(&ch->lock);
	chan_put(ch);
	return 0;
}

/* ---- EXEC ------------------------------------------------------------ */

struct sig {
	struct nvl_syncobj *obj;
	struct nvl_fence_chain *chain;
	uint64_t point;
};

static int check_push(struct nvl_gpuvm *g, const struct nvl_exec_push *p,
		      uint32_t i)
{
	if (p->flags & ~NVL_EXEC_PUSH_NO_PREFETCH)
		return nvl_error(-EINVAL, "exec: push %u: flags %#x", i,
				 p->flags);
	if (!p->len || p->len % 4 || p->len > MAX_PUSH_BYTES)
		return nvl_error(-EINVAL, "exec: push %u: length %u", i,
				 p->len);
	if (p->va % 4)
		return nvl_error(-EINVAL, "exec: push %u: VA %#llx unaligned",
				 i, (unsigned long long)p->va);
	if (p->va < g->start || p->va + p->len > g->end ||
	    p->va + p->len < p->va ||
	    (g->kend > g->kstart && p->va < g->kend &&
	     p->va + p->len > g->kstart))
		return nvl_error(-EINVAL,
				 "exec: push %u: [%#llx, +%u) is not in the "
				 "VM's user range",
				 i, (unsigned long long)p->va, p->len);
	/* a GPFIFO entry holds VA bits 39:0 (GET_HI 7:0): a push above
	 * would be fetched from an aliased address; and one whose last
	 * dword is the VA space's last is a GPENTRY error (dev_pbdma
	 * GP_ENTRY: the PBDMA's PUT is the address past the segment) */
	if (p->va + p->len >= 1ull << 40)
		return nvl_error(-EINVAL,
				 "exec: push %u: [%#llx, +%u) does not end "
				 "below 2^40 (GPFIFO entries address 40 bits)",
				 i, (unsigned long long)p->va, p->len);
	return 0;
}

/*
 * Implicit synchronisation of a device VM (Nouveau's EXEC in VM_BIND mode):
 * with the VM's lock held (it orders these page-table rewrites with binds),
 * lock the VM's resv and every external BO's, bring evicted or moved BOs
 * back and rewrite their mappings (GPUVM validate: the TLB is invalidated
 * after), and make @j wait for the moves (the KERNEL fences). A BO whose
 * move's copy is still queued is not rewritten here: jobs queued before
 * the move (on other channels) still use its old entries, and the copy
 * waits for them; @j->rebind records the rewrite, which run_job() writes
 * once the move is done (vm/rebind.c). One fence slot is reserved on each
 * object for the job's finished fence. On failure everything is unlocked
 * again and nothing is deferred.
 */
static int exec_lock_vm(struct nvl_gpuvm *g, struct nvl_exec *ex,
			struct nv_job *j)
{
	struct nvl_sched_job *job = &j->base;
	int ret;

	nvl_flock_lock(&g->lock);
	ret = nvl_gpuvm_exec_lock(g, ex, 1);
	if (ret) {
		nvl_flock_unlock(&g->lock);
		return nvl_error(ret, "exec: locking the VM's objects: %d",
				 ret);
	}
	ret = nvl_gpuvm_validate_defer(g, &j->rebind);
	if (ret) {
		char why[160];

		snprintf(why, sizeof(why), "%s", nvl_error_msg());
		ret = nvl_error(ret, "exec: validating the VM's BOs: %s", why);
	}
	for (unsigned i = 0; !ret && i < ex->num_objects; i++)
		ret = nvl_sched_job_add_resv_dependencies(
			job, ex->objects[i], NVL_RESV_USAGE_KERNEL);
	if (ret) {
		nvl_exec_fini(ex);
		nvl_flock_unlock(&g->lock);
		/* nothing deferred is queued: the vm_bos stay listed */
		nvl_gpuvm_rebind_free(j->rebind);
		j->rebind = NULL;
	}
	return ret;
}

/* The job's finished fence into every locked resv (BOOKKEEP: evictions
 * wait for it, nothing else does), then unlock. Cannot fail. */
static void exec_unlock_vm(struct nvl_gpuvm *g, struct nvl_exec *ex,
			   struct nvl_fence *done)
{
	for (unsigned i = 0; done && i < ex->num_objects; i++)
		if (nvl_resv_add_fence(ex->objects[i], done,
				       NVL_RESV_USAGE_BOOKKEEP))
			nvl_err(NVL_CAT_NV, "exec: resv fence: %s",
				nvl_error_msg());
	nvl_exec_fini(ex);
	nvl_flock_unlock(&g->lock);
}

NVL_API NVL_HOT int nvl_exec(struct nvl_client *client, uint32_t channel,
			     const struct nvl_exec_push *pushes,
			     uint32_t n_push, const struct nvl_vm_sync *waits,
			     uint32_t n_waits,
			     const struct nvl_vm_sync *signals,
			     uint32_t n_signals, uint32_t flags)
{
	struct sig sig_stack[4], *sigs = NULL;
	struct nv_job *j = NULL;
	struct nvl_fence *done;
	struct nv_chan *ch;
	bool inited = false, entered = false;
	struct nvl_exec ex;
	bool locked = false;
	int ret = 0;

	if (!client || (n_push && !pushes) || (n_waits && !waits) ||
	    (n_signals && !signals))
		return nvl_error(-EINVAL, "exec: NULL argument");
	if (flags)
		return nvl_error(-EINVAL, "exec: flags %#x", flags);
	if (!n_push || n_push > NVL_EXEC_MAX_PUSH)
		return nvl_error(-EINVAL, "exec: %u pushes (1..%u)", n_push,
				 NVL_EXEC_MAX_PUSH);
	if (n_waits > 64 || n_signals > 64)
		return nvl_error(-EINVAL, "exec: too many syncobjs");
	ch = nvl_client_handle_get(client, NVL_HANDLE_CHANNEL, channel);
	if (!ch)
		return nvl_error(-ENOENT, "exec: no channel %u", channel);
	for (uint32_t i = 0; i < n_push && !ret; i++)
		ret = check_push(ch->vm->gpuvm, &pushes[i], i);
	for (uint32_t i = 0; i < n_waits && !ret; i++)
		if (waits[i].flags)
			ret = nvl_error(-EINVAL, "exec: wait %u: flags", i);
	if (ret)
		goto out;
	/* a destroy of the channel now waits for this call to leave its
	 * scheduler alone (it kills the entity: the push fails) */
	nvl_flock_lock(&ch->lock);
	if (ch->killed)
		ret = nvl_error(-ENODEV, "exec: channel %u was killed (%d)",
				channel, ch->error);
	else
		ch->execs++;
	entered = !ret;
	nvl_flock_unlock(&ch->lock);
	if (!ret && atomic_load(&ch->d->suspended))
		ret = nvl_error(-EAGAIN, "exec: the device is suspended");
	if (!ret && atomic_load(&client->hangs) >= NVL_NV_HANG_BAN)
		ret = nvl_error(-ECANCELED,
				"exec: the client is banned: %u of its jobs "
				"hung",
				(unsigned)atomic_load(&client->hangs));
	if (ret)
		goto out;
	/* a few signals (the usual case) need no allocation */
	if (n_signals <= NVL_ARRAY_SIZE(sig_stack)) {
		memset(sig_stack, 0, sizeof(sig_stack));
		sigs = sig_stack;
	} else {
		sigs = nvl_calloc(n_signals, sizeof(*sigs));
	}
	j = job_alloc(ch, n_push);
	if (!sigs || !j) {
		ret = nvl_error(-ENOMEM, "exec: out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n_signals; i++) {
		if (signals[i].flags) {
			ret = nvl_error(-EINVAL, "exec: signal %u: flags", i);
			goto out;
		}
		sigs[i].obj = nvl_syncobj_find(client, signals[i].handle);
		if (!sigs[i].obj) {
			ret = nvl_error(-ENOENT, "exec: no syncobj %u",
					signals[i].handle);
			goto out;
		}
		sigs[i].point = signals[i].point;
		if (sigs[i].point) {
			sigs[i].chain = nvl_fence_chain_alloc();
			if (!sigs[i].chain) {
				ret = nvl_error(-ENOMEM, "exec: out of memory");
				goto out;
			}
		}
	}
	memcpy(j->push, pushes, n_push * sizeof(j->push[0]));
	j->n_push = n_push;
	ret = nvl_sched_job_init(&j->base, &ch->entity, n_push + 1, client);
	if (ret) {
		ret = nvl_error(ret, "exec: job: %d", ret);
		goto out;
	}
	inited = true;
	for (uint32_t i = 0; i < n_waits; i++) {
		struct nvl_fence *f;

		ret = nvl_syncobj_find_fence(client, waits[i].handle,
					     waits[i].point, 0, &f);
		if (!ret)
			ret = nvl_sched_job_add_dependency(&j->base, f);
		if (ret) {
			ret = nvl_error(ret, "exec: wait %u (syncobj %u): %d",
					i, waits[i].handle, ret);
			goto out;
		}
	}
	ret = exec_lock_vm(ch->vm->gpuvm, &ex, j);
	if (ret)
		goto out;
	locked = true;
	nvl_flock_lock(&ch->submit_lock);
	/* the point of no return */
	j->seq = ++ch->next_seq;
	job_fence_init(j, j->seq);
	if (nvl_sched_job_arm(&j->base))
		nvl_err(NVL_CAT_NV, "exec: arm failed");
	done = nvl_fence_get(nvl_sched_job_finished(&j->base));
	for (uint32_t i = 0; i < n_signals; i++) {
		if (sigs[i].chain)
			nvl_syncobj_add_point(sigs[i].obj, sigs[i].chain, done,
					      sigs[i].point);
		else
			nvl_syncobj_replace_fence(sigs[i].obj, done);
		sigs[i].chain = NULL;
	}
	/* pushed unlocked: a direct run_job holds no VM or resv lock */
	exec_unlock_vm(ch->vm->gpuvm, &ex, done);
	locked = false;
	ret = nvl_sched_entity_push_job(&j->base);
	nvl_flock_unlock(&ch->submit_lock);
	nvl_fence_put(done);
	if (ret) {
		/* killed in between: its fences carry the error */
		nvl_sched_job_cleanup(&j->base);
		job_abort(j);
		j = NULL;
		ret = nvl_error(-ENODEV, "exec: channel %u was killed",
				channel);
	}
	j = NULL;
	inited = false;
out:
	if (locked)
		exec_unlock_vm(ch->vm->gpuvm, &ex, NULL);
	if (j) {
		if (inited)
			nvl_sched_job_cleanup(&j->base);
		job_abort(j);
	}
	for (uint32_t i = 0; sigs && i < n_signals; i++) {
		if (sigs[i].chain)
			nvl_fence_chain_free(sigs[i].chain);
		if (sigs[i].obj)
			nvl_syncobj_put(sigs[i].obj);
	}
	if (sigs != sig_stack)
		nvl_free(sigs);
	if (entered) {
		nvl_flock_lock(&ch->lock);
		ch->execs--;
		nvl_flock_unlock(&ch->lock);
	}
	chan_put(ch);
	return ret;
}

int nvl_nv_chan_vm_by_inst(struct nvl_nv_device *d, uint64_t inst,
			   uint64_t timestamp, struct nvl_vm **vm_out)
{
	struct nv_chan *ch;
	int ret = -ENOENT;

	nvl_flock_lock(&d->chan_lock);
	nvl_list_for_each_entry (ch, &d->chans, link)
		if (ch->gen == atomic_load(&d->gen) && ch->inst == inst &&
		    timestamp >= ch->born_ns) {
			nvl_vm_get(ch->vm);
			*vm_out = ch->vm;
			ret = 0;
			break;
		}
	nvl_flock_unlock(&d->chan_lock);
	return ret;
}

int nvl_nv_chan_quiesce(struct nvl_nv_device *d, int64_t timeout_ns)
{
	int64_t dl = nvl_deadline_after(timeout_ns);
	struct nv_chan *ch;
	bool busy = true;

	while (busy) {
		struct timespec ts = {0, 200000};

		busy = false;
		nvl_flock_lock(&d->chan_lock);
		nvl_list_for_each_entry (ch, &d->chans, link) {
			nvl_flock_lock(&ch->lock);
			busy |= !ch->killed && !nvl_list_empty(&ch->inflight);
			nvl_flock_unlock(&ch->lock);
			/* jobs still queued on the entity count too */
			busy |= nvl_sched_entity_flush(&ch->entity, 0) != 0;
		}
		nvl_flock_unlock(&d->chan_lock);
		if (!busy)
			break;
		if (nvl_time_ns() > dl)
			return nvl_error(
				-EBUSY,
				"device: jobs still running after "
				"%lld ms",
				(long long)(timeout_ns / NVL_NSEC_PER_MSEC));
		nanosleep(&ts, NULL);
	}
	return 0;
}

bool nvl_nv_chan_vms_binds_pending(struct nvl_nv_device *d)
{
	/* a reference to each channel's VM (one channel per slot at most),
	 * looked at outside the channel lock */
	struct nvl_vm *vms[NVL_NV_CHAN_SLOTS];
	unsigned n = 0;
	struct nv_chan *ch;
	bool busy = false;

	nvl_flock_lock(&d->chan_lock);
	nvl_list_for_each_entry (ch, &d->chans, link) {
		if (NVL_NEVER(n == NVL_NV_CHAN_SLOTS))
			break;
		nvl_vm_get(ch->vm);
		vms[n++] = ch->vm;
	}
	nvl_flock_unlock(&d->chan_lock);
	for (unsigned i = 0; i < n; i++) {
		busy = busy || nvl_vm_binds_pending(vms[i]);
		nvl_vm_put(vms[i]);
	}
	return busy;
}

int nvl_nv_chan_kernel_pushbuf(struct nvl_client *client, uint32_t channel,
			       void **cpu, uint64_t *va, uint32_t *bytes)
{
	struct nv_chan *ch =
		nvl_client_handle_get(client, NVL_HANDLE_CHANNEL, channel);

	if (!ch)
		return nvl_error(-ENOENT, "channel: no channel %u", channel);
	*cpu = ch->cpu + OFF_KPUSH;
	*va = ch->va + OFF_KPUSH;
	*bytes = NVL_NV_CHAN_SLOT_SIZE - OFF_KPUSH;
	chan_put(ch);
	return 0;
}

/*
 * One push as a job through the channel's scheduler, as nvl_exec() queues
 * one, without the VM's implicit synchronisation: the driver's own work
 * (nv/move.c) orders itself. Nothing here takes a VM, resv or memory
 * manager lock.
 */
int nvl_nv_chan_submit(struct nvl_client *client, uint32_t channel, uint64_t va,
		       uint32_t len, struct nvl_fence **done_out)
{
	struct nv_chan *ch =
		nvl_client_handle_get(client, NVL_HANDLE_CHANNEL, channel);
	struct nv_job *j;
	int ret = 0;

	if (!ch)
		return nvl_error(-ENOENT, "channel: no channel %u", channel);
	ret = chan_check_alive(ch, "", channel);
	if (ret)
		goto out;
	j = job_alloc(ch, 1);
	if (!j) {
		ret = nvl_error(-ENOMEM, "channel: out of memory");
		goto out;
	}
	j->push[0].va = va;
	j->push[0].len = len;
	j->n_push = 1;
	ret = nvl_sched_job_init(&j->base, &ch->entity, 2, client);
	if (ret) {
		job_abort(j);
		ret = nvl_error(ret, "channel: job: %d", ret);
		goto out;
	}
	nvl_flock_lock(&ch->submit_lock);
	j->seq = ++ch->next_seq;
	job_fence_init(j, j->seq);
	if (nvl_sched_job_arm(&j->base))
		nvl_err(NVL_CAT_NV, "channel: arm failed");
	*done_out = nvl_fence_get(nvl_sched_job_finished(&j->base));
	ret = nvl_sched_entity_push_job(&j->base);
	nvl_flock_unlock(&ch->submit_lock);
	if (ret) {
		/* killed or banned in between: nothing runs on it any more */
		nvl_fence_put(*done_out);
		*done_out = NULL;
		nvl_sched_job_cleanup(&j->base);
		job_abort(j);
		ret = nvl_error(-ENODEV, "channel %u: job not queued (%d)",
				channel, ret);
	}
out:
	chan_put(ch);
	return ret;
}
