// SPDX-License-Identifier: MIT
/*
 * DOC: MMU faults and robust-channel recovery (docs/faults.md)
 *
 * RM in the GSP owns the fault and channel-error interrupts. At device
 * up the driver registers its shadow fault buffer with RM (a bookkeeping
 * page and NVL_NV_FAULT_PAGES entry pages of DMA-mapped system memory)
 * and handles three events:
 *
 *  - MMU_FAULT_QUEUED (a direct handler: run where the GSP's message is
 *    read, in its interrupt handler or receive thread, not behind the
 *    event thread; bounded, no RPC): every entry between GET and PUT of
 *    the shadow queue is decoded (instance block → channel → client, VA,
 *    fault type, access type, engine); its channel is killed (-EFAULT for
 *    the job that was running, -ECANCELED for the jobs behind it) and one
 *    line is logged. RM's overflow and lost counters are folded into the
 *    stats.
 *  - RC_TRIGGERED (event thread): the channel RM tore down is killed with
 *    the reason its Xid names (nothing happens if a fault entry already
 *    killed it; for Xid 31 the shadow queue is drained first, RM having
 *    copied the entry before it sent the event); an MMU fault whose entry
 *    was lost (overflow) still kills its channel this way, with a VA of 0.
 *    An RC_TRIGGERED read before a channel was made (nvl_gsp_event_rx())
 *    is about an older channel RM gave the same id: it kills nothing.
 *  - OS_ERROR_LOG: RM's message, logged (debug level for MMU faults, whose
 *    line the fault entry already gave).
 *
 * Nothing else stops: other channels and clients go on, and the client of
 * a killed channel can create a new one.
 *
 * Hang declarations (nv/chan.c's job timeouts): per runlist, the time a
 * job was last declared hung on a channel that held that engine; a channel
 * found on the engine within a timeout of it is not hung (docs/faults.md,
 * "Hang deferral").
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "gspabi.h"
#include "gsp/fault.h"
#include "gsp/gsp.h"
#include "hw/fault.h"
#include "hw/regs.h"
#include "nouvelle/exec.h"
#include "nv/chan.h"
#include "nv/device.h"
#include "nv/fault.h"
#include "nv/work.h"

#define PAGE 4096u
#define LOG_PENDING 64 /* fault lines held back from the kill's path */
#define LOG_HANDOFF 16 /* held lines that make the driver's worker print */

/* what a fault's log line says, kept until it is printed */
struct fault_line {
	uint64_t client_id, va;
	uint32_t chid, type, access, engine, client;
	bool killed; /* else the channel was dead already */
};

struct nvl_nv_fault {
	struct nvl_nv_device *d;
	uint8_t *mem; /* bookkeeping page, then the entry pages */
	size_t size;
	uint64_t dma;
	uint32_t entries;
	/* drain_lock: the queue's reader state (the direct handler and the
	 * event thread's RC handler both drain) */
	pthread_mutex_t drain_lock;
	uint32_t get;
	uint32_t overflows_seen, lost_seen;
	const struct nvl_hw_mmu_engines *eng;
	pthread_mutex_t lock; /* st, lines */
	struct nvl_fault_stats st;
	struct fault_line lines[LOG_PENDING];
	unsigned nlines;
	struct nvl_nv_work log_work; /* flush_lines() when the event thread
				      * lags (log_work_fn()) */
};

static const char *const type_names[16] = {
	"PDE",
	"PDE_SIZE",
	"PTE",
	"VA_LIMIT_VIOLATION",
	"UNBOUND_INST_BLOCK",
	"PRIV_VIOLATION",
	"RO_VIOLATION",
	"WO_VIOLATION",
	"PITCH_MASK_VIOLATION",
	"WORK_CREATION",
	"UNSUPPORTED_APERTURE",
	"COMPRESSION_FAILURE",
	"UNSUPPORTED_KIND",
	"REGION_VIOLATION",
	"POISONED",
	"ATOMIC_VIOLATION",
};

static const char *access_name(uint32_t a)
{
	static const char *const n[] = {"read", "write", "atomic", "prefetch",
					"weak atomic"};

	if (a < NVL_ARRAY_SIZE(n))
		return n[a];
	return a >= 8 && a <= 0xb ? "physical access" : "access";
}

static void engine_name(const struct nvl_hw_mmu_engines *e, uint32_t id,
			char *buf, size_t len)
{
	if (id >= e->ce0 && id < e->ce0 + 10u)
		snprintf(buf, len, "CE%u", id - e->ce0);
	else if (id >= e->host0 && id < e->host0 + 32u)
		snprintf(buf, len, "HOST%u", id - e->host0);
	else if (id == e->graphics)
		snprintf(buf, len, "GRAPHICS");
	else
		snprintf(buf, len, "engine %u", id);
}

static void count(struct nvl_nv_fault *f, uint64_t *field, uint64_t n)
{
	pthread_mutex_lock(&f->lock);
	*field += n;
	pthread_mutex_unlock(&f->lock);
}

/* nvl_nv_kill.on_kill: counted before the channel's fences signal */
static void count_killed(void *arg)
{
	struct nvl_nv_fault *f = arg;

	count(f, &f->st.killed, 1);
}

static uint32_t hdr_rd(struct nvl_nv_fault *f, unsigned off)
{
	return atomic_load_explicit((_Atomic uint32_t *)(f->mem + off),
				    memory_order_acquire);
}

static void print_line(struct nvl_nv_fault *f, const struct fault_line *l)
{
	char eng[24];

	engine_name(f->eng, l->engine, eng, sizeof(eng));
	nvl_warn(NVL_CAT_NV,
		 "MMU fault: client %llu channel %u: %s %s at VA %#llx by %s "
		 "(client id %#x): %s",
		 (unsigned long long)l->client_id, l->chid,
		 l->type < 16 ? type_names[l->type] : "unknown",
		 access_name(l->access), (unsigned long long)l->va, eng,
		 l->client,
		 l->killed ? "channel killed" : "channel already dead");
}

/* print the fault lines held back, oldest first */
static void flush_lines(struct nvl_nv_fault *f)
{
	struct fault_line l[LOG_PENDING];
	unsigned n;

	pthread_mutex_lock(&f->lock);
	n = f->nlines;
	memcpy(l, f->lines, n * sizeof(l[0]));
	f->nlines = 0;
	pthread_mutex_unlock(&f->lock);
	for (unsigned i = 0; i < n; i++)
		print_line(f, &l[i]);
}

/* the driver's worker prints the lines held (hold_line_locked()) */
static void log_work_fn(struct nvl_nv_work *w)
{
	flush_lines(container_of(w, struct nvl_nv_fault, log_work));
}

/*
 * A fault's line is not printed where the kill runs (a write to a log that
 * someone reads wakes them, ahead of the waiter the kill woke, and the
 * kill's thread is the runlist thread other channels' jobs need): it
 * waits for the event thread's next RC event (RM sends RC_TRIGGERED for
 * every faulted channel) or device close. When that thread lags (a storm
 * on a busy machine) and LOG_HANDOFF lines wait, *@handoff is set: the
 * caller queues the driver's worker, outside the lock, to print them.
 * f->lock held; false when the lines are full (the worker starved too:
 * the caller prints them itself, outside the lock and the kill).
 */
static bool hold_line_locked(struct nvl_nv_fault *f, const struct fault_line *l,
			     bool *handoff)
{
	if (f->nlines == LOG_PENDING)
		return false;
	f->lines[f->nlines++] = *l;
	*handoff = f->nlines == LOG_HANDOFF;
	return true;
}

/* print the lines held and @l, oldest first */
static void print_full(struct nvl_nv_fault *f, const struct fault_line *l)
{
	flush_lines(f);
	print_line(f, l);
}

/* a fault entry's kill: the entry's line, and whether it was held */
struct fault_kill {
	struct nvl_nv_fault *f;
	const struct nvl_nv_kill *k;
	struct fault_line line;
	bool log, held, handoff;
};

/*
 * nvl_nv_kill.on_kill of a fault entry, before the channel's fences
 * signal: the fault and the kill counted and the line held in one round
 * trip of f->lock (the kill's path takes no other lock of this file).
 */
static void fault_killed(void *arg)
{
	struct fault_kill *fk = arg;
	struct nvl_nv_fault *f = fk->f;

	fk->line.client_id = fk->k->client_id;
	fk->line.chid = fk->k->chid;
	fk->line.killed = true;
	pthread_mutex_lock(&f->lock);
	f->st.faults++;
	f->st.killed++;
	if (fk->log)
		fk->held = hold_line_locked(f, &fk->line, &fk->handoff);
	pthread_mutex_unlock(&f->lock);
}

/*
 * After the kill, outside f->lock: a held line that filled LOG_HANDOFF
 * queues the driver's worker; one that found the lines full is printed
 * here, after those before it.
 */
static void line_out(const struct fault_kill *fk)
{
	if (!fk->log)
		return;
	if (fk->handoff)
		nvl_nv_work_queue(&fk->f->log_work);
	else if (!fk->held)
		print_full(fk->f, &fk->line);
}

static void one_fault(struct nvl_nv_fault *f, const uint32_t e[8])
{
	uint32_t info = e[NVL_HW_FAULT_ENTRY_INFO];
	struct fault_kill fk = {
		.f = f,
		.log = nvl_log_enabled(NVL_LOG_WARN, NVL_CAT_NV),
	};
	struct nvl_nv_kill k = {
		.by_inst = true,
		.inst = ((uint64_t)e[NVL_HW_FAULT_ENTRY_INST_HI] << 32) |
			(e[NVL_HW_FAULT_ENTRY_INST_LO] & 0xfffff000u),
		.chan_error = -EFAULT,
		.job_error = -EFAULT,
		.xid = GSPABI_K_RC_ERROR_FIFO_ERROR_MMU_ERR_FLT,
		.reason = NVL_CHANNEL_MMU_FAULT,
		.fault_type = info & NVL_HW_FAULT_INFO_TYPE_MASK,
		.fault_access = info >> NVL_HW_FAULT_INFO_ACCESS_SHIFT &
				NVL_HW_FAULT_INFO_ACCESS_MASK,
		.fault_engine = e[NVL_HW_FAULT_ENTRY_ENGINE] & 0x1ffu,
		.fault_va = ((uint64_t)e[NVL_HW_FAULT_ENTRY_ADDR_HI] << 32) |
			    (e[NVL_HW_FAULT_ENTRY_ADDR_LO] & 0xfffff000u),
		.timestamp =
			((uint64_t)e[NVL_HW_FAULT_ENTRY_TIMESTAMP_HI] << 32) |
			e[NVL_HW_FAULT_ENTRY_TIMESTAMP_LO],
		.on_kill = fault_killed,
		.on_kill_arg = &fk,
	};
	char eng[24];
	int ret;

	fk.k = &k;
	fk.line = (struct fault_line){
		.va = k.fault_va,
		.type = k.fault_type,
		.access = k.fault_access,
		.engine = k.fault_engine,
		.client = info >> NVL_HW_FAULT_INFO_CLIENT_SHIFT &
			  NVL_HW_FAULT_INFO_CLIENT_MASK,
	};
	ret = nvl_nv_chan_kill(f->d, &k);
	if (ret > 0) {
		/* counted and held by fault_killed() */
		line_out(&fk);
		return;
	}
	count(f, &f->st.faults, 1);
	if (ret < 0) {
		/* its channel is gone (destroyed, or RC killed it first) */
		engine_name(f->eng, k.fault_engine, eng, sizeof(eng));
		nvl_dbg(NVL_CAT_NV,
			"MMU fault: %s %s at VA %#llx by %s, instance %#llx: "
			"no live channel",
			k.fault_type < 16 ? type_names[k.fault_type]
					  : "unknown",
			access_name(k.fault_access),
			(unsigned long long)k.fault_va, eng,
			(unsigned long long)k.inst);
		return;
	}
	/* the channel was dead already */
	if (!fk.log)
		return;
	fk.line.client_id = k.client_id;
	fk.line.chid = k.chid;
	pthread_mutex_lock(&f->lock);
	fk.held = hold_line_locked(f, &fk.line, &fk.handoff);
	pthread_mutex_unlock(&f->lock);
	line_out(&fk);
}

/*
 * RM copies only entries the MMU wrote whole (VALID, dword 7 bit 31,
 * written last: clc369.h NVC369_BUF_ENTRY_VALID) and every one carries
 * its PTIMER TIMESTAMP (dwords 4, 5), never 0 once the GPU runs. An entry
 * without either is no fault record: it names no channel the driver may
 * kill (a zero timestamp would even pass the check that keeps a dead
 * predecessor's entry off a channel that reuses its instance block).
 */
static bool entry_ok(struct nvl_nv_fault *f, const uint32_t e[8])
{
	if ((e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID) &&
	    (e[NVL_HW_FAULT_ENTRY_TIMESTAMP_LO] ||
	     e[NVL_HW_FAULT_ENTRY_TIMESTAMP_HI]))
		return true;
	count(f, &f->st.rejected, 1);
	nvl_warn(NVL_CAT_NV,
		 "MMU fault buffer: entry for instance %#llx refused (%s): "
		 "the firmware's copy is not a fault record",
		 (unsigned long long)(((uint64_t)e[NVL_HW_FAULT_ENTRY_INST_HI]
				       << 32) |
				      (e[NVL_HW_FAULT_ENTRY_INST_LO] &
				       0xfffff000u)),
		 e[NVL_HW_FAULT_ENTRY_INFO] & NVL_HW_FAULT_INFO_VALID
			 ? "no timestamp"
			 : "VALID clear");
	return false;
}

/* drain the shadow queue */
static void drain(struct nvl_nv_fault *f)
{
	uint32_t put, ovf, lost;

	pthread_mutex_lock(&f->drain_lock);
	put = hdr_rd(f, GSPABI_K_NVL_SHADOW_FAULT_QUEUE_PUT) % f->entries;
	while (f->get != put) {
		uint32_t e[8];

		memcpy(e, f->mem + PAGE + (size_t)f->get * 32, sizeof(e));
		f->get = (f->get + 1) % f->entries;
		atomic_store_explicit(
			(_Atomic uint32_t
				 *)(f->mem +
				    GSPABI_K_NVL_SHADOW_FAULT_QUEUE_GET),
			f->get, memory_order_release);
		if (entry_ok(f, e))
			one_fault(f, e);
	}
	ovf = hdr_rd(f, GSPABI_K_NVL_SHADOW_FAULT_QUEUE_OVERFLOWS);
	lost = hdr_rd(f, GSPABI_K_NVL_SHADOW_FAULT_QUEUE_LOST);
	if (ovf != f->overflows_seen || lost != f->lost_seen) {
		nvl_warn(NVL_CAT_NV,
			 "MMU fault buffer: %u overflow(s), %u entries lost: "
			 "their channels die by RC",
			 ovf - f->overflows_seen, lost - f->lost_seen);
		count(f, &f->st.overflows, ovf - f->overflows_seen);
		count(f, &f->st.lost, lost - f->lost_seen);
		f->overflows_seen = ovf;
		f->lost_seen = lost;
	}
	pthread_mutex_unlock(&f->drain_lock);
}

/* MMU_FAULT_QUEUED, a direct handler: where the GSP's message is read */
static void on_fault(void *arg, uint32_t event, uint32_t result,
		     const void *data, size_t len)
{
	(void)event;
	(void)result;
	(void)data;
	(void)len;
	drain(arg);
}

/* the client-visible meaning of an Xid */
static void rc_reason(uint32_t xid, struct nvl_nv_kill *k)
{
	switch (xid) {
	case GSPABI_K_RC_ERROR_FIFO_ERROR_MMU_ERR_FLT:
		k->reason = NVL_CHANNEL_MMU_FAULT;
		k->chan_error = k->job_error = -EFAULT;
		break;
	case GSPABI_K_RC_ERROR_GR_EXCEPTION:
		k->reason = NVL_CHANNEL_ENGINE_EXCEPTION;
		k->chan_error = k->job_error = -EIO;
		break;
	case GSPABI_K_RC_ERROR_GR_SEMAPHORE_TIMEOUT:
		k->reason = NVL_CHANNEL_SEM_TIMEOUT;
		k->chan_error = k->job_error = -ETIMEDOUT;
		break;
	case GSPABI_K_RC_ERROR_RESETCHANNEL_VERIF_ERROR:
	case GSPABI_K_RC_ERROR_PREEMPTIVE_REMOVAL:
		k->reason = NVL_CHANNEL_ENGINE_RESET;
		k->chan_error = k->job_error = -EIO;
		break;
	default:
		k->reason = NVL_CHANNEL_PUSHBUFFER;
		k->chan_error = k->job_error = -EIO;
		break;
	}
}

static void on_rc(void *arg, uint32_t event, uint32_t result, const void *data,
		  size_t len)
{
	struct nvl_nv_fault *f = arg;
	struct nvl_gsp_rc rc;
	struct nvl_nv_kill k = {0};
	int ret;

	(void)result;
	/* the fault lines held back (hold_line_locked()) first */
	flush_lines(f);
	if (nvl_gsp_rc_decode(f->d->gsp, event, data, len, &rc)) {
		nvl_warn(NVL_CAT_NV, "RC event: %s", nvl_error_msg());
		return;
	}
	if (event == GSPABI_K_EVENT_OS_ERROR_LOG) {
		if (rc.xid == GSPABI_K_RC_ERROR_FIFO_ERROR_MMU_ERR_FLT)
			nvl_dbg(NVL_CAT_NV, "GSP: %s", rc.text);
		else
			nvl_warn(NVL_CAT_NV, "GSP: %s", rc.text);
		return;
	}
	count(f, &f->st.rc_events, 1);
	/* RM copied a faulting channel's entry before it sent this: take it
	 * first (its MMU_FAULT_QUEUED may have been dropped in a storm), so
	 * the kill carries the VA and no stale entry outlives the channel */
	if (rc.xid == GSPABI_K_RC_ERROR_FIFO_ERROR_MMU_ERR_FLT)
		drain(f);
	k.chid = rc.chid;
	/* not a later channel RM gave the id to (the bad one's RC_TRIGGERED
	 * can be handled after its owner freed it) */
	k.rx = nvl_gsp_event_rx(f->d->gsp);
	k.xid = rc.xid;
	rc_reason(rc.xid, &k);
	k.on_kill = count_killed;
	k.on_kill_arg = f;
	ret = nvl_nv_chan_kill(f->d, &k);
	flush_lines(f);
	if (ret > 0) {
		nvl_warn(NVL_CAT_NV,
			 "RC: client %llu channel %u: Xid %u: channel killed "
			 "(%d)",
			 (unsigned long long)k.client_id, rc.chid, rc.xid,
			 k.chan_error);
	}
}

int nvl_nv_fault_init(struct nvl_nv_device *d, unsigned arch)
{
	struct nvl_nv_fault *f;
	uint64_t ptes[NVL_NV_FAULT_PAGES];
	void *mem;
	int ret;

	f = nvl_zalloc(sizeof(*f));
	if (!f)
		return nvl_error(-ENOMEM, "fault: out of memory");
	f->d = d;
	f->eng = nvl_hw_mmu_engines(arch);
	f->size = (size_t)(1 + NVL_NV_FAULT_PAGES) * PAGE;
	f->entries = NVL_NV_FAULT_PAGES * PAGE / NVL_HW_FAULT_ENTRY_SIZE;
	f->log_work.fn = log_work_fn;
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->drain_lock, NULL);
	ret = nvl_nv_work_get();
	if (ret)
		goto fail_free;
	ret = nvl_nv_sysmem_alloc(d, f->size, &mem, &f->dma);
	if (ret) {
		char why[160];

		snprintf(why, sizeof(why), "%s", nvl_error_msg());
		ret = nvl_error(ret, "fault: shadow buffer: %s", why);
		goto fail_work;
	}
	f->mem = mem;
	for (unsigned i = 0; i < NVL_NV_FAULT_PAGES; i++)
		ptes[i] = f->dma + (uint64_t)(1 + i) * PAGE;
	ret = nvl_gsp_event_register_direct(
		d->gsp, GSPABI_K_EVENT_MMU_FAULT_QUEUED, on_fault, f);
	if (!ret)
		ret = nvl_gsp_event_register(
			d->gsp, GSPABI_K_EVENT_RC_TRIGGERED, on_rc, f);
	if (!ret)
		ret = nvl_gsp_event_register(
			d->gsp, GSPABI_K_EVENT_OS_ERROR_LOG, on_rc, f);
	if (!ret)
		ret = nvl_gsp_shadow_fault_register(d->gsp, d->h_subdevice,
						    f->dma, ptes,
						    NVL_NV_FAULT_PAGES);
	if (ret)
		goto fail_events;
	d->fault = f;
	return 0;
fail_events:
	nvl_gsp_event_register(d->gsp, GSPABI_K_EVENT_MMU_FAULT_QUEUED, NULL,
			       NULL);
	nvl_gsp_event_register(d->gsp, GSPABI_K_EVENT_RC_TRIGGERED, NULL, NULL);
	nvl_gsp_event_register(d->gsp, GSPABI_K_EVENT_OS_ERROR_LOG, NULL, NULL);
	nvl_gsp_event_flush(d->gsp, NVL_NSEC_PER_SEC);
	nvl_nv_work_flush(&f->log_work);
	nvl_nv_sysmem_free(d, f->mem, f->size, f->dma);
fail_work:
	nvl_nv_work_put();
fail_free:
	pthread_mutex_destroy(&f->drain_lock);
	pthread_mutex_destroy(&f->lock);
	nvl_free(f);
	return ret;
}

void nvl_nv_fault_fini(struct nvl_nv_device *d)
{
	struct nvl_nv_fault *f = d->fault;

	if (!f)
		return;
	/* a dead GSP is not asked (its buffer goes with it) */
	if (!atomic_load(&d->lost) &&
	    nvl_gsp_shadow_fault_unregister(d->gsp, d->h_subdevice))
		nvl_dbg(NVL_CAT_NV, "fault: unregister: %s", nvl_error_msg());
	nvl_gsp_event_register(d->gsp, GSPABI_K_EVENT_MMU_FAULT_QUEUED, NULL,
			       NULL);
	nvl_gsp_event_register(d->gsp, GSPABI_K_EVENT_RC_TRIGGERED, NULL, NULL);
	nvl_gsp_event_register(d->gsp, GSPABI_K_EVENT_OS_ERROR_LOG, NULL, NULL);
	/* a handler still running finishes before the memory goes, and
	 * then the worker's print of the lines it held */
	nvl_gsp_event_flush(d->gsp, NVL_NSEC_PER_SEC);
	nvl_nv_work_flush(&f->log_work);
	flush_lines(f);
	nvl_nv_work_put();
	nvl_nv_sysmem_free(d, f->mem, f->size, f->dma);
	pthread_mutex_destroy(&f->drain_lock);
	pthread_mutex_destroy(&f->lock);
	nvl_free(f);
	d->fault = NULL;
}

void nvl_nv_fault_stats(struct nvl_nv_device *d, struct nvl_fault_stats *st)
{
	struct nvl_nv_fault *f = d->fault;

	memset(st, 0, sizeof(*st));
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	*st = f->st;
	pthread_mutex_unlock(&f->lock);
}

/* ---- hang declarations, per engine (docs/faults.md) ----------------- */

void nvl_nv_hang_declared(struct nvl_nv_device *d, uint32_t runlist)
{
	if (runlist < NVL_NV_HANG_RUNLISTS)
		atomic_store(&d->hang_ns[runlist], nvl_time_ns());
}

bool nvl_nv_hang_recent(struct nvl_nv_device *d, uint32_t runlist)
{
	int64_t t;

	if (runlist >= NVL_NV_HANG_RUNLISTS)
		return false;
	t = atomic_load(&d->hang_ns[runlist]);
	return t && nvl_time_ns() - t < d->job_timeout_ns;
}
