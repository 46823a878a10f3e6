// SPDX-License-Identifier: MIT
/*
 * DOC: interrupts
 *
 * Two interrupt trees, stall (errors, faults, thermal) and non-stall
 * (completions), each with a status register (write 1 to clear) and an
 * enable mask (set/clear registers). The line is the driver's callback:
 * when a source raises a bit that is enabled, the raising model thread
 * calls the callback itself, with no model lock held. Calls are
 * serialised: a raise while the callback runs only marks "again", and the
 * running caller calls it once more, so the driver's handler never runs
 * twice at once and no model thread blocks on it.
 *
 * Stall sources the GSP owns on a GSP-era GPU (channel errors, MMU
 * faults, fault-buffer overflow) go to the model firmware's hook while its
 * RM runs (model/gsp/rc.c): the driver never sees them in its status.
 * Before RM is up (model-only tests) they reach the driver's tree. A raise
 * the hook took then calls the firmware's run, with intr_lock dropped:
 * the firmware services it on the raising thread when it is idle.
 *
 * Enabling an interrupt that is already pending, or installing a handler
 * while one is, asks the hub thread to deliver it (a register write from
 * the driver never calls back into the driver on its own thread).
 */
#include <errno.h>

#include "base/futex.h"
#include "base/time.h"
#include "hw/regs.h"
#include "model/priv.h"

/*
 * intr_lock is a futex lock (sync/flock.h: one atomic each way when
 * uncontended, against a pthread mutex's call and atomics), taken twice
 * per raise that calls the handler. It is not a leaf: the firmware's hook
 * takes the firmware's lock under it (stall tree only); it is never held
 * across the handler. nvl_model_intr_set_handler() waits for a running
 * callback on intr_idle_seq, bumped under the lock when it ends.
 */
int nvl_model_intr_init(struct nvl_model *m)
{
	nvl_flock_init(&m->intr_lock);
	atomic_init(&m->intr_idle_seq, 0);
	return 0;
}

void nvl_model_intr_fini(struct nvl_model *m)
{
	(void)m;
}

static bool intr_pending_locked(struct nvl_model *m)
{
	return (atomic_load(&m->intr_status[0]) & m->intr_enable[0]) ||
	       (atomic_load(&m->intr_status[1]) & m->intr_enable[1]);
}

/* call the handler while anything enabled is pending; intr_lock held.
 * Inline in both callers: one call (the handler's) per completion */
static inline __attribute__((always_inline)) void
intr_run_locked(struct nvl_model *m)
{
	if (m->irq_busy) {
		m->irq_again = true;
		return;
	}
	m->irq_busy = 1;
	do {
		nvl_hw_irq_fn fn = m->irq_fn;
		void *arg = m->irq_arg;

		m->irq_again = false;
		if (!fn || !intr_pending_locked(m))
			break;
		m->irq_count++;
		nvl_flock_unlock(&m->intr_lock);
		fn(arg);
		nvl_flock_lock(&m->intr_lock);
	} while (m->irq_again);
	m->irq_busy = 0;
	if (m->irq_idle_waiters) {
		atomic_fetch_add(&m->intr_idle_seq, 1);
		nvl_futex_wake_all(&m->intr_idle_seq);
	}
}

NVL_HOT void nvl_model_intr_raise(struct nvl_model *m, unsigned tree,
				  uint32_t bits)
{
	void (*fw_run)(void *arg) = NULL;
	void *fw_arg = NULL;

	if (tree > 1)
		return;
	nvl_flock_lock(&m->intr_lock);
	/* lock order: intr_lock, then the firmware's lock (the hook) */
	if (tree == NVL_HW_INTR_TREE_STALL && (bits & m->fw_intr_mask) &&
	    m->fw_intr_fn &&
	    m->fw_intr_fn(m->fw_intr_arg, bits & m->fw_intr_mask)) {
		bits &= ~m->fw_intr_mask;
		fw_run = m->fw_run_fn;
		fw_arg = m->fw_intr_arg;
	}
	atomic_fetch_or(&m->intr_status[tree], bits);
	if (m->intr_enable[tree] & bits)
		intr_run_locked(m);
	nvl_flock_unlock(&m->intr_lock);
	/* the firmware's service of what it took (model/gsp/rc.c) */
	if (fw_run)
		fw_run(fw_arg);
}

void nvl_model_intr_deliver(struct nvl_model *m)
{
	nvl_flock_lock(&m->intr_lock);
	if (intr_pending_locked(m))
		intr_run_locked(m);
	nvl_flock_unlock(&m->intr_lock);
}

void nvl_model_intr_set_fw(struct nvl_model *m, uint32_t mask,
			   bool (*fn)(void *arg, uint32_t bits),
			   void (*run)(void *arg), void *arg)
{
	nvl_flock_lock(&m->intr_lock);
	m->fw_intr_fn = fn;
	m->fw_run_fn = run;
	m->fw_intr_arg = arg;
	m->fw_intr_mask = fn ? mask : 0;
	nvl_flock_unlock(&m->intr_lock);
}

int nvl_model_intr_set_handler(struct nvl_model *m, nvl_hw_irq_fn fn, void *arg)
{
	bool kick;

	nvl_flock_lock(&m->intr_lock);
	while (m->irq_busy) {
		uint32_t seq = atomic_load(&m->intr_idle_seq);

		m->irq_idle_waiters++;
		nvl_flock_unlock(&m->intr_lock);
		(void)nvl_futex_wait(&m->intr_idle_seq, seq,
				     NVL_TIMEOUT_INFINITE);
		nvl_flock_lock(&m->intr_lock);
		m->irq_idle_waiters--;
	}
	m->irq_fn = fn;
	m->irq_arg = arg;
	kick = fn && intr_pending_locked(m);
	nvl_flock_unlock(&m->intr_lock);
	if (kick)
		nvl_model_hub_kick_intr(m);
	return 0;
}

uint32_t nvl_model_intr_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	unsigned tree = (addr - NVL_HW_INTR_STATUS(0)) / 0x10;
	uint32_t v = 0;

	if (addr < NVL_HW_INTR_STATUS(0) || tree > 1) {
		*ok = false;
		return 0;
	}
	*ok = true;
	/* the status is read on every interrupt: no lock */
	if (addr == NVL_HW_INTR_STATUS(tree))
		return atomic_load(&m->intr_status[tree]);
	nvl_flock_lock(&m->intr_lock);
	switch (addr - NVL_HW_INTR_STATUS(tree)) {
	case 0xc:
		v = m->intr_enable[tree];
		break;
	default: /* EN_SET / EN_CLEAR read 0 */
		break;
	}
	nvl_flock_unlock(&m->intr_lock);
	return v;
}

void nvl_model_intr_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	unsigned tree = (addr - NVL_HW_INTR_STATUS(0)) / 0x10;
	bool kick = false;

	if (addr < NVL_HW_INTR_STATUS(0) || tree > 1)
		return;
	/* write 1 to clear, every interrupt: no lock (a raise meanwhile
	 * sets its bits after or before, and runs the handler again) */
	if (addr == NVL_HW_INTR_STATUS(tree)) {
		atomic_fetch_and(&m->intr_status[tree], ~val);
		return;
	}
	nvl_flock_lock(&m->intr_lock);
	switch (addr - NVL_HW_INTR_STATUS(tree)) {
	case 0x4:
		kick = (atomic_load(&m->intr_status[tree]) & val &
			~m->intr_enable[tree]);
		m->intr_enable[tree] |= val;
		break;
	case 0x8:
		m->intr_enable[tree] &= ~val;
		break;
	default:
		break;
	}
	nvl_flock_unlock(&m->intr_lock);
	if (kick)
		nvl_model_hub_kick_intr(m);
}
