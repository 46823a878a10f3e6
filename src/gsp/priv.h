/* SPDX-License-Identifier: MIT */
/* Private state of the GSP client, shared by src/gsp sources only. */
#ifndef NVL_GSP_PRIV_H
#define NVL_GSP_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/list.h"
#include "gsp/gsp.h"
#include "gsp/msgq.h"

/* one pending call */
struct nvl_gsp_async {
	struct nvl_list link;
	uint32_t function, sequence;
	uint8_t *buf; /* reply payload goes here (NULL: discard) */
	size_t cap, len; /* capacity, bytes received so far */
	uint32_t result; /* rpc_result */
	int err; /* 0, or a receive-side error */
	bool done;
	bool abandoned; /* the caller gave up; free on completion */
	bool owned; /* allocated by rpc_async */
	/* a caller waits for this call (rpc.c: wait_locked()): whoever
	 * completes it wakes this caller only, through @word */
	bool waiting;
	/* rpc.c: WORD_*: the caller sleeps on it, its completer sets it
	 * done last (the caller then needs no lock to return) */
	_Atomic uint32_t word;
	/* on gsp->incoming until a drainer moves it to gsp->waiters */
	struct nvl_gsp_async *in_next;
};

struct nvl_gsp_ev {
	uint32_t event, result;
	size_t len;
	uint8_t *data;
	uint64_t rx; /* its place among the messages received */
};

#define NVL_GSP_MAX_HANDLERS 32

/*
 * Bytes of each LIBOS log ring the driver allocates (a PTE page list,
 * then the ring); the boot refuses a version whose layer gives another
 * LIBOS_LOG_RING_SIZE.
 */
#define NVL_GSP_LOG_RING_SIZE 0x10000u

/* a log ring handed to the firmware (LOGINIT, LOGRM) */
struct nvl_gsp_logbuf {
	uint8_t *mem;
	uint64_t dma;
	size_t size;
};

struct gspabi_version;

/*
 * A learnt back-off gate (rpc.c: gate_open(), gate_lost()): a poll or
 * yield that lost its CPU to another program's time slice shuts it for a
 * while, longer for losses that come close together. No lock: hints.
 */
struct nvl_gsp_backoff {
	_Atomic int64_t until; /* shut until then (0: open) */
	/* tries since the last loss, losses close together */
	_Atomic unsigned streak, losses;
	/* losses in all, and losses in a stall already counted
	 * (statistics) */
	_Atomic uint64_t lost, lost_dup;
	_Atomic int64_t lost_ns; /* the CPU time they lost (statistics) */
};

struct nvl_gsp {
	struct nvl_hw *hw;
	/* the booted version's ABI layer (rx_lock; NULL before a boot) */
	const struct gspabi_version *abi;
	struct nvl_gsp_msgq q;

	pthread_mutex_t tx_lock; /* cmdq, sequence */
	uint32_t next_seq;

	pthread_mutex_t rx_lock; /* statq, waiters, event queue */
	pthread_cond_t rx_cond; /* callers and flushers */
	pthread_cond_t drain_cond; /* the receive thread */
	pthread_cond_t ev_cond; /* the event thread */
	struct nvl_list waiters;
	/* waiters registered by senders without rx_lock, newest first: moved
	 * to @waiters, in order, under rx_lock (rpc.c: take_incoming()) */
	_Atomic(struct nvl_gsp_async *) incoming;
	unsigned active_waiters; /* callers blocked in a wait */
	/* the sleeping waiters' futex word (rpc.c: wake_bits()): each sleeps
	 * on it with its own bit, so that one system call wakes every
	 * caller a drain completed */
	_Atomic uint32_t wake_seq;
	uint64_t irqs; /* interrupts seen */
	uint64_t irqs_drained; /* by the event thread */
	/* reassembly of a multi-element message */
	struct nvl_gsp_async *asm_w; /* extending this waiter's reply */
	bool asm_discard; /* extending an unclaimed message */

	struct nvl_gsp_ev evq[NVL_GSP_EVENT_QUEUE_LEN];
	unsigned ev_head, ev_count;
	bool ev_running; /* a handler is running */
	/* events queued by the drain running: the event thread is signalled
	 * once rx_lock is dropped (rpc.c wake_completed()) */
	bool ev_kick;
	uint64_t rx_msgs; /* messages received (replies and events) */
	uint64_t ev_cur_rx; /* event thread: the running event's rx */
	struct {
		uint32_t event;
		nvl_gsp_event_fn fn;
		void *arg;
		bool direct; /* run where it is received (rpc.c) */
	} handlers[NVL_GSP_MAX_HANDLERS];
	uint32_t direct_pending; /* handler slots with an event to run */
	bool direct_running; /* a direct handler is running */
	pthread_t ev_thread, rx_thread;
	bool stop;
	/* the waiters' bounded spin on the status queue (rpc.c): one
	 * spinner at a time, its budget adapted to how long replies take */
	bool spinner;
	bool spin_irq; /* an interrupt came during the spin: drain after */
	/* callers completed by the running drain, woken at its end (rpc.c) */
	struct nvl_gsp_async *wake_pending[16];
	unsigned n_wake;
	bool draining;
	/* send-side counts (tx_lock), copied into st by nvl_gsp_get_stats() */
	uint64_t tx_rpcs;
	bool spin_ok; /* more than one CPU: spinning can help */
	/* what waking a sleeping caller costs (rpc.c: wake_learn()): when
	 * the last wake-up was sent (0: measured already), and a moving
	 * average of the time to the first woken caller running */
	_Atomic int64_t wake_stamp;
	_Atomic int64_t wake_cost_ns;
	/* waiting callers yield first only while this gate is open */
	struct nvl_gsp_backoff yield_gate;
	/* waits that yielded, that slept because wake-ups were cheap or
	 * the gate was shut (statistics; rx_lock) */
	uint64_t yield_waits, yield_cheap, yield_shut;
	bool yield_always; /* tests: yield whatever wake-ups cost, no cool-down */
	int64_t spin_ns;
	unsigned spin_cool; /* waits left that sleep without spinning */
	unsigned spin_busy; /* spins in a row cut short by another thread */
	/* waits with several calls in flight spin for all only while this
	 * gate is open */
	struct nvl_gsp_backoff multi_gate;
	long ncpus;
	_Atomic unsigned calls; /* nvl_gsp_rpc() calls in flight */

	_Atomic bool dead;
	/* suspended (boot.c, suspend.c): calls fail -EAGAIN until resume */
	_Atomic bool asleep;
	/* the firmware answered NVL2080_CTRL_CMD_MULTI_CONTROL unsupported
	 * (a real GSP-RM): sensor reads send their controls one by one */
	_Atomic bool no_multi_control;
	/* the sensor subscription (sensors.c: one POST_EVENT handler, so
	 * one per GSP); taken and dropped with a compare-and-swap */
	_Atomic(struct nvl_gsp_sensor_sub *) sensor_sub;
	struct nvl_gsp_stats st;

	/* boot state (boot.c) */
	struct nvl_gsp_boot *boot;
	struct nvl_gsp_logbuf logs[3]; /* LOGINIT, LOGINTR, LOGRM */
	bool logs_ready;
	/* the device's interrupt handler, called after the GSP's */
	nvl_hw_irq_fn irq_chain;
	void *irq_chain_arg;
	/* told of the death (nvl_gsp_set_dead_notify) */
	nvl_gsp_dead_fn dead_fn;
	void *dead_arg;
	/* RM objects (rm.c) */
	struct nvl_gsp_rm *rm;
	/* the wire trace (trace.c): @trace_arg is set before @trace */
	_Atomic(nvl_trace_fn) trace;
	void *trace_arg;
};

/* trace.c: hand one record to the tracer (only when one is set) */
void nvl_gsp_trace_emit(struct nvl_gsp *gsp, nvl_trace_fn fn,
			enum nvl_trace_kind kind, uint32_t function,
			uint32_t sequence, uint32_t result, const void *data,
			size_t len);

/* the tracer, or NULL: the only cost when tracing is off */
static inline nvl_trace_fn nvl_gsp_tracer(struct nvl_gsp *gsp)
{
	return atomic_load_explicit(&gsp->trace, memory_order_acquire);
}

/* rm.c */
int nvl_gsp_rm_init(struct nvl_gsp *gsp);
void nvl_gsp_rm_fini(struct nvl_gsp *gsp);
/* track an object the firmware made (its internal client) */
int nvl_gsp_rm_adopt(struct nvl_gsp *gsp, uint32_t client, uint32_t handle,
		     uint32_t parent, uint32_t hclass);
/* forget every object (the firmware went away) */
void nvl_gsp_rm_forget_all(struct nvl_gsp *gsp);
/* rpc.c: handle what is already received, no round trip */
int nvl_gsp_events_settle(struct nvl_gsp *gsp, int64_t timeout_ns);
/* boot.c */
void nvl_gsp_boot_free(struct nvl_gsp *gsp);
/* boot.c / log.c */
void nvl_gsp_logs_capture(struct nvl_gsp *gsp);
void nvl_gsp_logs_free(struct nvl_gsp *gsp);

#endif /* NVL_GSP_PRIV_H */
