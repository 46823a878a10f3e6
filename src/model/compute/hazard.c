// SPDX-License-Identifier: MIT
/*
 * DOC: checked mode, the control field's scoreboards
 *
 * Variable-latency instructions (reference §1.3: memory, MUFU, S2R,
 * conversions, ...) deliver their results later; the compiler gives them a
 * write scoreboard (bits 112:110) and every consumer waits on it (wait mask
 * 121:116). Their sources stay in use until the read scoreboard (115:113) is
 * released. The interpreter completes every instruction at once, so a
 * missing wait would go unnoticed; in checked mode it tracks, per warp and
 * register, the scoreboards still pending and stops at the first read or
 * write that did not wait, as a hardware hazard would have used a stale
 * value. A variable-latency result without any write scoreboard can never be
 * waited on: reading it is always a hazard.
 */
#include "model/compute/priv.h"

#define SB_NEVER 0x80 /* written with no scoreboard: never safe to read */

static void release(struct cs_warp *w, uint8_t wait)
{
	if (!wait)
		return;
	for (int r = 0; r < 255; r++) {
		w->pend[r] &= (uint8_t)~wait;
		w->rpend[r] &= (uint8_t)~wait;
	}
}

int cs_hazard_check(struct cs_cta *cta, struct cs_warp *w,
		    const struct cs_insn *ci)
{
	release(w, ci->in.ctrl.wait);
	for (unsigned i = 0; i < ci->nrd; i++)
		for (unsigned k = 0; k < ci->rd[i][1]; k++) {
			unsigned r = ci->rd[i][0] + k;

			if (r < 255 && w->pend[r])
				return cs_fail(cta, w, NVL_CS_HAZARD, 0, r);
		}
	for (unsigned i = 0; i < ci->nwr; i++)
		for (unsigned k = 0; k < ci->wr[i][1]; k++) {
			unsigned r = ci->wr[i][0] + k;

			if (r < 255 && (w->pend[r] || w->rpend[r]))
				return cs_fail(cta, w, NVL_CS_HAZARD, 0, r);
		}
	return 0;
}

void cs_hazard_track(struct cs_warp *w, const struct cs_insn *ci)
{
	const struct nvl_isa_ctrl *c = &ci->in.ctrl;
	bool var = ci->in.row->flags & NVL_ISA_R_VARLAT;
	uint8_t wb = c->wbar < 6 ? (uint8_t)(1u << c->wbar) : SB_NEVER;

	for (unsigned i = 0; i < ci->nwr; i++)
		for (unsigned k = 0; k < ci->wr[i][1]; k++) {
			unsigned r = ci->wr[i][0] + k;

			if (r < 255)
				w->pend[r] = var ? wb : 0;
		}
	if (var && c->rbar < 6)
		for (unsigned i = 0; i < ci->nrd; i++)
			for (unsigned k = 0; k < ci->rd[i][1]; k++) {
				unsigned r = ci->rd[i][0] + k;

				if (r < 255)
					w->rpend[r] |= (uint8_t)(1u << c->rbar);
			}
}
