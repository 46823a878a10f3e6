// SPDX-License-Identifier: MIT
/*
 * DOC: GSP and SEC2 falcons, WPR2
 *
 * The register faces of the model's GSP (NV_PGSP) and SEC2 (NV_PSEC)
 * falcons and the WPR2 bounds. Writes that start something (SEC2
 * STARTCPU, the GSP doorbell, the GSP CPUCTL resume) only record it and
 * wake the firmware thread (fw.c), so the driver's register write never
 * runs firmware code on the driver's thread.
 */
#include "hw/falcon.h"
#include "model/gsp/priv.h"

bool nvl_model_gsp_owns(uint32_t addr)
{
	return (addr >= NVL_HW_FALCON_GSP_BASE &&
		addr < NVL_HW_FALCON_GSP_BASE + NVL_HW_FALCON_SIZE) ||
	       (addr >= NVL_HW_FALCON_SEC2_BASE &&
		addr < NVL_HW_FALCON_SEC2_BASE + NVL_HW_FALCON_SIZE) ||
	       addr == NVL_HW_PFB_WPR2_ADDR_LO ||
	       addr == NVL_HW_PFB_WPR2_ADDR_HI;
}

uint32_t nvl_model_gsp_rd(struct nvl_model *m, uint32_t addr, bool *ok)
{
	struct nvl_model_gsp *g = m->gsp;
	uint32_t v = 0;

	*ok = true;
	/* the message interrupt's status, read by the driver's handler at
	 * every interrupt: one atomic word (fw.c: raise_irq()), no lock */
	if (addr == NVL_HW_GSP(NVL_HW_FALCON_IRQSTAT))
		return __atomic_load_n(&g->gsp_irqstat, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&g->lock);
	switch (addr) {
	case NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0):
		v = g->gsp_mbox[0];
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_MAILBOX1):
		v = g->gsp_mbox[1];
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_OS):
		v = g->gsp_os;
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_RISCV_CPUCTL):
		v = g->gsp_riscv;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_IRQSTAT):
		v = g->sec2_irqstat;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX0):
		v = g->sec2_mbox[0];
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX1):
		v = g->sec2_mbox[1];
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_OS):
		v = g->sec2_os;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL):
		v = g->sec2_cpuctl;
		break;
	case NVL_HW_PFB_WPR2_ADDR_LO:
		v = g->wpr2_lo;
		break;
	case NVL_HW_PFB_WPR2_ADDR_HI:
		v = g->wpr2_hi;
		break;
	default:
		v = 0; /* other falcon registers read 0 */
		break;
	}
	pthread_mutex_unlock(&g->lock);
	return v;
}

void nvl_model_gsp_wr(struct nvl_model *m, uint32_t addr, uint32_t val)
{
	struct nvl_model_gsp *g = m->gsp;

	/* as the status's read: no lock */
	if (addr == NVL_HW_GSP(NVL_HW_FALCON_IRQSCLR)) {
		__atomic_fetch_and(&g->gsp_irqstat, ~val, __ATOMIC_ACQ_REL);
		return;
	}
	/* the doorbell, rung at every command: a count and a kick, no lock
	 * (the firmware thread reads its wake-up word before the count:
	 * fw.c, fw_thread()); kicked under the lock, the thread would at
	 * once block on it again */
	if (addr == NVL_HW_GSP(NVL_HW_GSP_QUEUE_HEAD(0))) {
		__atomic_fetch_add(&g->doorbells, 1, __ATOMIC_SEQ_CST);
		nvl_fw_kick(g);
		return;
	}
	pthread_mutex_lock(&g->lock);
	switch (addr) {
	case NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0):
		g->gsp_mbox[0] = val;
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_MAILBOX1):
		g->gsp_mbox[1] = val;
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_OS):
		g->gsp_os = val;
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_CPUCTL):
		if (val & NVL_HW_FALCON_CPUCTL_STARTCPU) {
			g->core_resumed = true;
			nvl_fw_kick(g);
		}
		break;
	case NVL_HW_GSP(NVL_HW_FALCON_ENGINE):
		if (val & NVL_HW_FALCON_ENGINE_RESET) {
			/* reset: the core stops; WPR2 stays until
			 * booter_unload. A core that ran and hung starts
			 * afresh at the next boot (a hang injected before
			 * a boot stays armed for it) */
			g->gsp_riscv = 0;
			if (g->state != NVL_MODEL_GSP_OFF) {
				g->state = NVL_MODEL_GSP_UNLOADED;
				/* atomic: serve_batch() reads it lock-free */
				__atomic_store_n(&g->hang, false,
						 __ATOMIC_RELAXED);
			}
			nvl_fw_kick(g);
		}
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_IRQSCLR):
		g->sec2_irqstat &= ~val;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX0):
		g->sec2_mbox[0] = val;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX1):
		g->sec2_mbox[1] = val;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_OS):
		g->sec2_os = val;
		break;
	case NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL):
		if (val & NVL_HW_FALCON_CPUCTL_STARTCPU) {
			g->sec2_cpuctl &= ~NVL_HW_FALCON_CPUCTL_HALTED;
			g->sec2_go = true;
			nvl_fw_kick(g);
		}
		break;
	default:
		break; /* WPR2 is read-only to the CPU */
	}
	pthread_mutex_unlock(&g->lock);
}
