// SPDX-License-Identifier: MIT
/*
 * nvl demo, step "driver": the driver's story on one device (issue 15 item
 * 9), told with nvl run's workloads (run.h): the model boots through the
 * GSP with 256 MiB of VRAM; two clients, each with its own VM, copy
 * channel and timeline; the first streams a sparse texture tile by tile
 * with asynchronous VM_BIND while the second's copy jobs run through EXEC,
 * each waiting for the newest tile on a timeline syncobj the first client
 * shared with it; then the first client oversubscribes VRAM and brings
 * every BO back; every byte is checked; each client's fdinfo is printed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "demo.h"
#include "run.h"
#include "term.h"

struct story {
	struct run_client *tex, *cp;
	uint32_t shared_tex, shared_cp;
};

static int story_thread(struct run_ctx *x, unsigned int i, void *arg)
{
	struct story *s = arg;

	if (i == 0)
		return run_sparse_client(x, s->tex, 64, s->shared_tex);
	return run_copies_client(x, s->cp, 32, s->shared_cp);
}

static void fdinfo(struct run_client *cl)
{
	static const char *const keys[] = {"drm-client-id", "drm-resident-vram",
					   "drm-total-vram", "drm-resident-gtt",
					   "drm-total-gtt"};
	char buf[4096];
	const char *p;

	if (nvl_client_fdinfo(cl->c, buf, sizeof(buf)) < 0)
		return;
	printf("    fdinfo %-8s", cl->name);
	for (p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		size_t n = strcspn(p, ":");

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (n == strlen(keys[k]) && !strncmp(p, keys[k], n)) {
				const char *v =
					p + n + 1 + strspn(p + n + 1, " \t");

				printf(" %.*s=%.*s", (int)n - 4, p + 4,
				       (int)strcspn(v, "\n"), v);
			}
	}
	printf("\n");
}

/* share @cl's timeline @h with @other: export as an fd, import there */
static int share(struct run_ctx *x, struct run_client *cl, uint32_t h,
		 struct run_client *other, uint32_t *h_other)
{
	int fd, ret;

	ret = nvl_syncobj_handle_to_fd(cl->c, h, &fd);
	if (ret)
		return run_fail(x, ret, "export the timeline");
	ret = nvl_syncobj_fd_to_handle(other->c, fd, h_other);
	close(fd);
	if (ret)
		return run_fail(x, ret, "import the timeline");
	return 0;
}

NVL_DEMO_STEP(70, driver)
{
	struct run_opts o = {.spec = "model:ga102",
			     .fw_version = nvl_demo_firmware,
			     .seconds = 0.3,
			     .clients = 2,
			     .channels = 2};
	struct story s = {0};
	struct run_ctx x;
	struct nvl_device_info *in = &x.info;
	int ret;

	ret = run_ctx_open(&x, &o, "demo", 256);
	if (ret)
		return ret;
	printf("  device %s (%s, BOOT_0 %#010x): GSP %s booted in %.1f ms, "
	       "%llu MiB VRAM (%llu usable), %u copy engines, classes "
	       "%#x/%#x\n",
	       in->chip, in->family, in->boot0, in->fw_version,
	       in->boot_ns / 1e6, (unsigned long long)(in->vram_size >> 20),
	       (unsigned long long)(in->vram_usable >> 20), in->num_ce,
	       in->host_class, in->ce_class);
	ret = run_client_open(&x, "texture", 1, &s.tex);
	if (!ret)
		ret = run_client_open(&x, "copies", 2, &s.cp);
	if (!ret)
		ret = nvl_syncobj_create(s.tex->c, 0, &s.shared_tex);
	if (!ret)
		ret = share(&x, s.tex, s.shared_tex, s.cp, &s.shared_cp);
	if (ret)
		goto out;
	printf("  two clients, each with a VM on NVIDIA page tables and copy "
	       "channels RM allocated through the GSP\n");
	ret = run_threads(&x, 2, story_thread, &s);
	if (ret)
		goto out;
	printf("  client texture: %.0f tiles of 64 KiB streamed into a "
	       "16 MiB sparse texture, %.0f async VM_BINDs (unmap + map) on a "
	       "bind queue, each copy waiting for its bind's timeline point; "
	       "streamed-out and unbound tiles read zero\n",
	       run_stat_get(&x, "tiles_streamed"),
	       run_stat_get(&x, "async_binds") - run_stat_get(&x, "jobs"));
	printf("  client copies: %.0f EXEC jobs on 2 channels at the same "
	       "time (each a fill and two copies behind an async bind), %.0f "
	       "of them waiting on the texture client's shared timeline\n",
	       run_stat_get(&x, "jobs"),
	       run_stat_get(&x, "cross_client_waits"));
	fdinfo(s.tex);
	fdinfo(s.cp);
	/* oversubscription: the texture client allocates 2x the VRAM */
	x.deadline = run_now();
	atomic_store(&x.stop, false);
	ret = run_oversub_client(&x, s.tex, 2 * in->vram_usable, 2);
	if (ret)
		goto out;
	printf("  client texture: %.0f MiB of BOs in %llu MiB of usable "
	       "VRAM, two rounds: %.0f times a BO was found evicted and "
	       "brought back, checked and rewritten by the CPU, its last "
	       "page by the copy engine while held in VRAM\n",
	       run_stat_get(&x, "bo_bytes") / RUN_MIB,
	       (unsigned long long)(in->vram_usable >> 20),
	       run_stat_get(&x, "brought_back"));
	{
		struct nvl_move_stats ms;

		if (!nvl_device_move_stats(x.dev, &ms))
			printf("  the memory manager's moves: %llu evictions, "
			       "%llu MiB moved; %llu copy-engine jobs on the "
			       "driver's kernel channel (%llu MiB), %llu done "
			       "by the CPU\n",
			       (unsigned long long)ms.evictions,
			       (unsigned long long)(ms.bytes_moved >> 20),
			       (unsigned long long)ms.gpu_jobs,
			       (unsigned long long)(ms.gpu_bytes >> 20),
			       (unsigned long long)ms.cpu_jobs);
	}
	fdinfo(s.tex);
	printf("  every byte checked: %.1f MiB\n",
	       run_stat_get(&x, "bytes_checked") / RUN_MIB);
out:
	if (ret && x.error) {
		/* the step's caller prints this thread's last error: say
		 * what failed, on whichever thread it failed */
		printf("  failed: %s\n", x.failure);
		nvl_tool_fail("demo", "driver: %s", x.failure);
	}
	run_client_close(s.cp);
	run_client_close(s.tex);
	run_ctx_close(&x);
	return ret;
}
