/* SPDX-License-Identifier: MIT */
/*
 * The model's compute engine: the compute class (hw/compute.h) on a
 * channel's subchannel. SEND_PCAS_A names a QMD in GPU memory; the
 * scheduling signal (SEND_SIGNALING_PCAS_B on Turing, PCAS2_B from Ampere)
 * reads it through the MMU, fetches the program and the constant buffers,
 * runs the grid on the SM interpreter (sm.h) over the model's
 * compute_sms worker threads with global memory through the MMU and its
 * TLB, and writes the QMD's release semaphore. See docs/compute.md.
 */
#ifndef NVL_MODEL_COMPUTE_ENGINE_H
#define NVL_MODEL_COMPUTE_ENGINE_H

#include <stdint.h>

struct nvl_model_chan;

/** struct nvl_model_compute_state - a channel's compute-class state. */
struct nvl_model_compute_state {
	uint32_t shared_window_a, shared_window_b;
	uint32_t local_a, local_b, local_window_a, local_window_b;
	uint32_t local_nt_a, local_nt_b, local_nt_c;
	uint32_t pcas_a; /* QMD address >> 8 */
	uint64_t launches; /* grids run */
};

/**
 * nvl_model_compute_method() - execute a compute-class method on @ch's
 * runlist thread. Return: enum nvl_model_mthd_res.
 */
int nvl_model_compute_method(struct nvl_model_chan *ch, uint32_t mthd,
			     uint32_t data);

#endif /* NVL_MODEL_COMPUTE_ENGINE_H */
