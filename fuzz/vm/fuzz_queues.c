// SPDX-License-Identifier: MIT
/*
 * Fuzz target: VM_BIND across three bind queues, with binds held back
 * behind a gate fence, and VM teardown with binds still blocked.
 *
 * Input: calls of one control byte and 1-4 ops of 8 bytes each (as
 * fuzz_bind.c). Control byte: bits 0-1 the queue (3 = the default one),
 * bit 2 wait on the gate, bit 3 async, and 0xf? opens the gate: signals
 * it, waits until every queue has drained, checks that the mapping tree
 * and the recording backend agree page by page, and closes a new gate. A
 * sync bind behind gated work must give up (-EBUSY, after a 1 ms bound
 * here) without changing anything. At the end the gate stays closed when
 * the last byte is odd, so the client's destruction must cancel the
 * blocked binds: leaks and bad frees are caught by the sanitizers.
 */
#include <errno.h>

#include <nouvelle/bo.h>
#include <nouvelle/sync.h>

#include "base/time.h"
#include "fuzz_vm.h"
#include "sync/fence.h"
#include "sync/syncobj.h"

#define NQ 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct world {
	struct nvl_client *c;
	struct nvl_vm *v;
	uint32_t vm, bo[2], q[NQ], gate, last[NQ];
	struct nvl_fence *gate_fence;
};

/* A new, unsignalled gate fence in the gate syncobj. */
static int close_gate(struct world *w)
{
	struct nvl_syncobj *so = nvl_syncobj_find(w->c, w->gate);

	if (!so)
		return -1;
	if (nvl_fence_create(&w->gate_fence, nvl_fence_context_alloc(1), 1)) {
		nvl_syncobj_put(so);
		return -1;
	}
	nvl_syncobj_replace_fence(so, w->gate_fence);
	nvl_syncobj_put(so);
	return 0;
}

static void open_gate(struct world *w)
{
	if (!w->gate_fence)
		return;
	nvl_fence_signal(w->gate_fence);
	nvl_fence_put(w->gate_fence);
	w->gate_fence = NULL;
}

/* Open the gate, drain every queue, check, close a new gate. */
static int drain(struct world *w)
{
	open_gate(w);
	for (int i = 0; i < NQ; i++) {
		/* a queue's binds run in order: its last one's fence is
		 * enough; -EINVAL: the queue never had an async bind */
		int ret = nvl_syncobj_wait(w->c, &w->last[i], NULL, 1,
					   nvl_time_ns() + 10000000000ll, 0,
					   NULL);

		if (ret && ret != -EINVAL)
			abort(); /* a bind that never finished */
	}
	fuzz_vm_check(w->v);
	return close_gate(w);
}

static int setup(struct world *w)
{
	struct nvl_vm_create_args a = fuzz_vm_args();

	if (nvl_vm_create(w->c, &a, &w->vm) ||
	    nvl_syncobj_create(w->c, 0, &w->gate) ||
	    nvl_bo_create(w->c, 256 * FUZZ_PAGE, NVL_BO_DOMAIN_SYSTEM, 0, 0,
			  &w->bo[0]) ||
	    nvl_bo_create(w->c, 64 * FUZZ_PAGE, NVL_BO_DOMAIN_SYSTEM, 0, 0,
			  &w->bo[1]))
		return -1;
	w->q[0] = 0;
	for (int i = 1; i < NQ; i++)
		if (nvl_vm_bind_queue_create(w->c, w->vm, &w->q[i]))
			return -1;
	for (int i = 0; i < NQ; i++)
		if (nvl_syncobj_create(w->c, 0, &w->last[i]))
			return -1;
	w->v = nvl_vm_lookup(w->c, w->vm);
	if (!w->v)
		return -1;
	/* a sync bind behind gated work gives up quickly here */
	w->v->sync_timeout_ns = 1000000;
	return close_gate(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct world w = {0};
	bool keep_closed = size && (data[size - 1] & 1);

	if (nvl_client_create(&w.c))
		return 0;
	if (setup(&w))
		goto out;
	while (size >= 9) {
		struct nvl_vm_bind_op ops[4];
		uint8_t ctl = data[0];
		uint32_t n = 1 + (ctl >> 4) % 4, flags, qi = ctl & 3, i;
		struct nvl_vm_sync wait = {.handle = w.gate};
		struct nvl_vm_sync sig = {0};
		bool gated = ctl & 4;
		int ret;

		data++, size--;
		if ((ctl & 0xf0) == 0xf0) {
			if (drain(&w))
				goto out;
			continue;
		}
		if (qi == 3)
			qi = 0;
		flags = ctl & 8 ? NVL_VM_BIND_ASYNC : 0;
		/* as many ops as the header asks for and the input holds (the
		 * loop used to set n = 1 on its first pass: one op a call) */
		for (i = 0; i < n && size >= 8; i++, data += 8, size -= 8)
			fuzz_vm_decode(&ops[i], data, w.bo);
		n = i;
		sig.handle = w.last[qi];
		/* errors are expected (bad ops, a sync bind timing out behind
		 * the gate); what matters is the state at the next drain */
		ret = nvl_vm_bind(w.c, w.vm, w.q[qi], ops, n,
				  gated ? &wait : NULL, gated,
				  flags ? &sig : NULL, flags ? 1 : 0, flags);
		(void)ret;
	}
	if (!keep_closed && drain(&w))
		goto out;
out:
	if (w.v)
		nvl_vm_put(w.v);
	nvl_client_destroy(w.c); /* cancels whatever the gate still holds */
	open_gate(&w);
	return 0;
}
