// SPDX-License-Identifier: MIT
/* The driver tests' device rig (t_nv.h). */
#include <string.h>

#include <nouvelle/push.h>

#include "t_nv.h"

struct nvl_device *t_nv_dev_open(uint64_t vram_size,
				 struct nvl_device_info *info)
{
	struct nvl_device_opts o = {.vram_size = vram_size};
	struct nvl_device *dev;

	assert_int_equal(nvl_device_open("model:tu102", &o, &dev), 0);
	if (info)
		assert_int_equal(nvl_device_query(dev, info), 0);
	return dev;
}

uint32_t t_nv_vram_hog(struct nvl_client *c, uint64_t size)
{
	uint32_t h;

	assert_int_equal(nvl_bo_create(c, size, NVL_BO_DOMAIN_VRAM, 0, 0, &h),
			 0);
	return h;
}

uint32_t t_nv_vram_hog_all(struct nvl_client *c,
			   const struct nvl_device_info *info)
{
	return t_nv_vram_hog(c, info->vram_usable - T_NV_DRIVER_VRAM -
					4 * T_NV_MIB);
}

uint32_t t_nv_vm(struct nvl_client *c)
{
	struct nvl_vm_create_args va = {.start = T_NV_VA_START,
					.end = T_NV_VA_END,
					.kernel_start = T_NV_KSTART,
					.kernel_range = T_NV_KRANGE};
	uint32_t vm;

	assert_int_equal(nvl_vm_create(c, &va, &vm), 0);
	return vm;
}

/* a BO of the pushbuffer's kind (t_nv_cl_up()'s flags) */
static uint32_t cl_bo(struct t_nv_cl *k, uint64_t size, uint64_t va,
		      uint32_t **cpu)
{
	if (k->flags & T_NV_CL_PB_MOVABLE)
		return t_nv_cl_bo(k, size,
				  NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT, va,
				  NULL);
	return t_nv_cl_bo(k, size, NVL_BO_DOMAIN_VRAM, va, (void **)cpu);
}

void t_nv_cl_up(struct t_nv_cl *k, struct nvl_device *dev, uint64_t pb_va,
		uint32_t flags)
{
	uint32_t cf =
		flags & T_NV_CL_DEVICE_STATE ? NVL_CLIENT_DEVICE_STATE : 0;

	memset(k, 0, sizeof(*k));
	k->dev = dev;
	k->pb_va = pb_va;
	k->flags = flags;
	assert_int_equal(nvl_device_query(dev, &k->info), 0);
	assert_int_equal(nvl_device_client_create2(dev, cf, &k->c), 0);
	k->vm = t_nv_vm(k->c);
	k->pb = cl_bo(k, T_NV_PB_SIZE, pb_va, &k->ppb);
	assert_int_equal(
		nvl_channel_create(k->c, k->vm, NVL_ENGINE_COPY, 0, &k->chan),
		0);
	assert_int_equal(nvl_syncobj_create(k->c, 0, &k->sync), 0);
}

void t_nv_cl_sem(struct t_nv_cl *k, uint64_t size, uint64_t va)
{
	k->sem = cl_bo(k, size, va, &k->psem);
}

void t_nv_cl_down(struct t_nv_cl *k)
{
	/* a CPU mapping holds its BO until unmapped (mm's rule) */
	if (k->ppb)
		assert_int_equal(nvl_bo_unmap(k->c, k->pb), 0);
	if (k->psem)
		assert_int_equal(nvl_bo_unmap(k->c, k->sem), 0);
	k->ppb = NULL;
	k->psem = NULL;
	nvl_client_destroy(k->c);
	k->c = NULL;
}

void t_nv_cl_close(struct t_nv_cl *k)
{
	assert_int_equal(nvl_channel_destroy(k->c, k->chan), 0);
	t_nv_cl_down(k);
}

void t_nv_cl_expect_alive(struct t_nv_cl *k)
{
	struct nvl_channel_info ci;

	assert_int_equal(nvl_channel_query(k->c, k->chan, &ci), 0);
	assert_int_equal(ci.alive, 1);
}

uint32_t t_nv_cl_bo(struct t_nv_cl *k, uint64_t size, uint32_t domains,
		    uint64_t va, void **cpu)
{
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = va, .range = size};
	uint32_t pref = domains & NVL_BO_DOMAIN_VRAM;
	uint32_t h;

	assert_int_equal(nvl_bo_create(k->c, size, domains, pref,
				       NVL_BO_CPU_VISIBLE, &h),
			 0);
	op.handle = h;
	assert_int_equal(
		nvl_vm_bind(k->c, k->vm, 0, &op, 1, NULL, 0, NULL, 0, 0), 0);
	if (cpu)
		assert_int_equal(nvl_bo_map(k->c, h, cpu), 0);
	return h;
}

void t_nv_cl_bos(struct t_nv_cl *k, unsigned n, uint64_t size, uint64_t va)
{
	assert_true(n <= T_NV_CL_MAX_BO);
	for (unsigned i = 0; i < n; i++)
		k->bo[i] = t_nv_cl_bo(k, size,
				      NVL_BO_DOMAIN_VRAM | NVL_BO_DOMAIN_GTT,
				      va + i * size, NULL);
	k->nbo = n;
	k->bo_size = size;
}

int t_nv_cl_exec(struct t_nv_cl *k, uint32_t chan, uint32_t off, uint32_t ndw)
{
	struct nvl_exec_push p = {.va = k->pb_va + off, .len = ndw * 4};
	struct nvl_vm_sync s = {.handle = k->sync};

	return nvl_exec(k->c, chan, &p, 1, NULL, 0, &s, 1, 0);
}

int t_nv_cl_wait(struct t_nv_cl *k, int64_t timeout_ns)
{
	return nvl_syncobj_wait(k->c, &k->sync, NULL, 1,
				t_nv_deadline(timeout_ns), 0, NULL);
}

void t_nv_cl_run(struct t_nv_cl *k, uint32_t off, uint32_t ndw,
		 int64_t timeout_ns)
{
	assert_int_equal(t_nv_cl_exec(k, k->chan, off, ndw), 0);
	assert_int_equal(t_nv_cl_wait(k, timeout_ns), 0);
}

void t_nv_expect_words(struct nvl_client *c, uint32_t h, uint64_t first,
		       uint64_t n, uint32_t want, const char *what)
{
	uint32_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t w = first; w < first + n; w++)
		if (p[w] != want)
			fail_msg("%s: word %llu is %#x, not %#x", what,
				 (unsigned long long)w, p[w], want);
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

void t_nv_expect_slices(struct nvl_client *c, uint32_t h, uint64_t size,
			uint64_t slice, unsigned who, unsigned bo,
			unsigned round, const char *what)
{
	uint32_t *p;

	assert_int_equal(nvl_bo_map(c, h, (void **)&p), 0);
	for (uint64_t w = 0; w < size / 4; w++) {
		uint64_t s = w * 4 / slice;
		uint32_t want =
			s <= round ? t_nv_word(who, bo, (unsigned)s) : 0;

		if (p[w] != want)
			fail_msg("%s: client %u BO %u round %u: word %llu is "
				 "%#x, not %#x",
				 what, who, bo, round, (unsigned long long)w,
				 p[w], want);
	}
	assert_int_equal(nvl_bo_unmap(c, h), 0);
}

void t_nv_cl_expect_slices(struct t_nv_cl *k, uint64_t slice, unsigned who,
			   unsigned round, const char *what)
{
	for (unsigned i = 0; i < k->nbo; i++)
		t_nv_expect_slices(k->c, k->bo[i], k->bo_size, slice, who, i,
				   round, what);
}

int t_nv_nop_exec(struct nvl_client *c, uint32_t chan, uint32_t *pb,
		  uint64_t va)
{
	struct nvl_exec_push ep = {.va = va};
	struct nvl_vm_sync sig = {0};
	struct nvl_channel_info ci;
	struct nvl_push p;
	int ret;

	assert_int_equal(nvl_push_init(&p, pb, 64 * T_NV_KIB), 0);
	nvl_push_host_nop(&p);
	assert_true(nvl_push_end(&p) > 0);
	ep.len = nvl_push_bytes(&p);
	assert_int_equal(nvl_syncobj_create(c, 0, &sig.handle), 0);
	ret = nvl_exec(c, chan, &ep, 1, NULL, 0, &sig, 1, 0);
	if (!ret) {
		assert_int_equal(nvl_syncobj_wait(c, &sig.handle, NULL, 1,
						  t_nv_deadline(5 * T_NV_SEC),
						  0, NULL),
				 0);
		assert_int_equal(nvl_channel_query(c, chan, &ci), 0);
		assert_int_equal(ci.alive, 1);
	}
	nvl_syncobj_destroy(c, sig.handle);
	return ret;
}
