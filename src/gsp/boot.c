// SPDX-License-Identifier: MIT
/*
 * DOC: GSP boot
 *
 * The order of nouveau r535's oneinit + init (and nova's boot.rs), written
 * from the reference notes:
 *
 *  1. layout: WPR2 must be down; compute the FB layout (heap by the
 *     version's rules);
 *  2. memory: log rings, RMARGS, LIBOS arguments, the radix3 table over a
 *     DMA-mapped copy of .fwimage, the signature, the bootloader, the WPR
 *     meta;
 *  3. init RPCs: GSP_SET_SYSTEM_INFO and SET_REGISTRY queued (sequence 0)
 *     before the GSP runs;
 *  4. booter: LIBOS-args address to GSP mailbox0/1; booter_load on SEC2
 *     with the WPR-meta address in its mailbox0/1; wait for the halt;
 *     mailbox0 == 0, `verified` set, WPR2 up;
 *  5. riscv: appVersion to the GSP's OS register, wait for ACTIVE;
 *  6. INIT_DONE: run every CPU sequencer the firmware sends, wait for
 *     INIT_DONE and its status;
 *  7. static info: GET_GSP_STATIC_INFO;
 *  8. interrupt table: NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE.
 *
 * A failure after the booter ran tears down what it built (GSP reset,
 * booter_unload), so no failure leaves a half-booted device.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/time.h"
#include "gsp/abi_ops.h"
#include "gsp/abi_ver.h"
#include "gspabi.h"
#include "gsp/boot.h"
#include "gsp/boot_priv.h"
#include "gsp/image.h"
#include "gsp/priv.h"
#include "gsp/rm.h"
#include "hw/falcon.h"
#include "hw/regs.h"

#define PAGE 0x1000ull
#define MIB (1ull << 20)

static const char *const step_names[] = {
	"FB layout",	"boot memory", "init RPCs",	      "booter_load",
	"RISC-V start", "INIT_DONE",   "GET_GSP_STATIC_INFO", "interrupt table",
};

void nvl_gsp_image_from_fw(const struct nvl_gsp_fw *fw,
			   struct nvl_gsp_image *out)
{
	*out = (struct nvl_gsp_image){
		.version = fw->version,
		.fwimage = fw->fwimage,
		.fwimage_size = fw->fwimage_size,
		.fwimage_room =
			fw->data[NVL_GSP_FW_GSP] &&
					fw->fwimage >= fw->data[NVL_GSP_FW_GSP]
				? fw->data_size[NVL_GSP_FW_GSP] -
					  (size_t)(fw->fwimage -
						   fw->data[NVL_GSP_FW_GSP])
				: 0,
		.sig = fw->sig,
		.sig_size = fw->sig_size,
		.bootloader = fw->bootloader.payload,
		.bootloader_size = fw->bootloader.payload_size,
		.bl_code_offset = fw->bootloader.desc.monitor_code_offset,
		.bl_data_offset = fw->bootloader.desc.monitor_data_offset,
		.bl_manifest_offset = fw->bootloader.desc.manifest_offset,
		.app_version = fw->bootloader.desc.app_version,
	};
}

const char *nvl_gsp_step_name(unsigned step)
{
	return step < NVL_ARRAY_SIZE(step_names) ? step_names[step] : "?";
}

static uint64_t id8(const char *s)
{
	uint64_t v = 0;

	for (; *s; s++)
		v = (v << 8) | (uint8_t)*s;
	return v;
}

/* a DMA buffer; zeroed but for the first @keep bytes, which the caller
 * fills */
static int dma_alloc_keep(struct nvl_gsp *gsp, struct dmabuf *b, size_t size,
			  size_t keep)
{
	int ret;

	bool big = size >= (2u << 20);

	b->size = NVL_ALIGN_UP(size, big ? (size_t)2 << 20 : (size_t)PAGE);
	b->cpu = nvl_aligned_alloc(big ? (size_t)2 << 20 : PAGE, b->size);
	if (!b->cpu)
		return nvl_error(-ENOMEM,
				 "gsp: no memory for a %zu-byte DMA buffer",
				 b->size);
	if (big) /* tens of MB: fewer page faults than 4 KiB pages */
		madvise(b->cpu, b->size, MADV_HUGEPAGE);
	memset(b->cpu + keep, 0, b->size - keep);
	ret = nvl_hw_dma_map(gsp->hw, b->cpu, b->size, &b->dma);
	if (ret) {
		nvl_free(b->cpu);
		b->cpu = NULL;
		return nvl_error(ret, "gsp: cannot DMA-map a %zu-byte buffer",
				 b->size);
	}
	return 0;
}

int nvl_gsp_dma_alloc(struct nvl_gsp *gsp, struct dmabuf *b, size_t size)
{
	return dma_alloc_keep(gsp, b, size, 0);
}

void nvl_gsp_dma_free(struct nvl_gsp *gsp, struct dmabuf *b)
{
	if (!b->cpu)
		return;
	nvl_hw_dma_unmap(gsp->hw, b->dma, b->size);
	if (!b->borrowed)
		nvl_free(b->cpu);
	b->cpu = NULL;
	b->borrowed = false;
}

static void boot_free_mem(struct nvl_gsp *gsp, struct nvl_gsp_boot *b)
{
	nvl_gsp_dma_free(gsp, &b->rmargs);
	nvl_gsp_dma_free(gsp, &b->libos);
	nvl_gsp_dma_free(gsp, &b->meta);
	nvl_gsp_dma_free(gsp, &b->radix[0]);
	nvl_gsp_dma_free(gsp, &b->radix[1]);
	nvl_gsp_dma_free(gsp, &b->l2);
	nvl_gsp_dma_free(gsp, &b->image);
	nvl_gsp_dma_free(gsp, &b->sig);
	nvl_gsp_dma_free(gsp, &b->bl);
}

/* ---- layout ------------------------------------------------------------ */

static int fb_layout(const struct nvl_gsp_heap_rules *h, uint64_t fb_size,
		     bool libos3, bool gh100, size_t fwimage_size,
		     size_t bootloader_size, struct nvl_gsp_fb_layout *l)
{
	uint64_t heap_mb, gb = (fb_size + (1ull << 30) - 1) >> 30;
	uint64_t min_mb, max_mb, reserve;

	memset(l, 0, sizeof(*l));
	l->fb_size = fb_size;
	l->libos3 = libos3;
	l->vga_size = MIB;
	if (fb_size < 64 * MIB)
		return nvl_error(-ENOSPC,
				 "gsp: %llu MiB of VRAM cannot hold WPR2",
				 (unsigned long long)(fb_size >> 20));
	l->vga_offset = fb_size - l->vga_size;
	l->wpr_end = NVL_ALIGN_DOWN(l->vga_offset, 128 * 1024ull);
	l->frts_size = MIB;
	l->frts_offset = l->wpr_end - l->frts_size;
	l->boot_bin_offset =
		NVL_ALIGN_DOWN(l->frts_offset - bootloader_size, PAGE);
	if (fwimage_size > l->boot_bin_offset)
		return nvl_error(-ENOSPC, "gsp: image larger than VRAM");
	l->fw_offset =
		NVL_ALIGN_DOWN(l->boot_bin_offset - fwimage_size, 64 * 1024ull);
	/* gsp_fw_heap.h of the booted version (generated layer) */
	heap_mb = (libos3 ? h->os_libos3_mb : h->os_libos2_mb) +
		  (gh100 ? h->rm_gh100_mb : h->rm_tu10x_mb) +
		  NVL_ALIGN_UP(h->per_gb_fb_kb * gb, 1024ull) / 1024 +
		  h->client_alloc_kb * h->client_alloc_count / 1024;
	min_mb = libos3 ? h->libos3_min_mb : h->libos2_min_mb;
	max_mb = libos3 ? h->libos3_max_mb : h->libos2_max_mb;
	heap_mb = NVL_MAX(min_mb, NVL_MIN(max_mb, heap_mb));
	l->heap_size = heap_mb * MIB;
	l->non_wpr_heap_size = gh100 ? 2 * MIB : MIB;
	reserve = l->heap_size + h->wpr_meta_size + 2 * MIB +
		  l->non_wpr_heap_size;
	if (l->fw_offset < reserve)
		return nvl_error(
			-ENOSPC,
			"gsp: %llu MiB of VRAM cannot hold a %llu MiB WPR heap",
			(unsigned long long)(fb_size >> 20),
			(unsigned long long)heap_mb);
	l->heap_offset = NVL_ALIGN_DOWN(l->fw_offset - l->heap_size, MIB);
	l->wpr_start = NVL_ALIGN_DOWN(l->heap_offset - h->wpr_meta_size, MIB);
	l->non_wpr_heap_offset =
		NVL_ALIGN_DOWN(l->wpr_start - l->non_wpr_heap_size, MIB);
	return 0;
}

int nvl_gsp_fb_layout_version(const char *version, uint64_t fb_size,
			      bool libos3, bool gh100, size_t fwimage_size,
			      size_t bootloader_size,
			      struct nvl_gsp_fb_layout *out)
{
	const struct gspabi_version *v = nvl_gsp_abi_find(version);
	struct nvl_gsp_heap_rules h;
	int ret;

	if (!v)
		return -ENOEXEC;
	ret = nvl_gsp_abi_heap_rules(v, &h);
	if (ret)
		return ret;
	return fb_layout(&h, fb_size, libos3, gh100, fwimage_size,
			 bootloader_size, out);
}

int nvl_gsp_fb_layout(uint64_t fb_size, bool libos3, bool gh100,
		      size_t fwimage_size, size_t bootloader_size,
		      struct nvl_gsp_fb_layout *out)
{
	return nvl_gsp_fb_layout_version(NULL, fb_size, libos3, gh100,
					 fwimage_size, bootloader_size, out);
}

/* ---- events the boot waits for ----------------------------------------- */

static bool seq_addr_ok(uint32_t a)
{
	return (a >= NVL_HW_FALCON_GSP_BASE &&
		a < NVL_HW_FALCON_GSP_BASE + NVL_HW_FALCON_SIZE) ||
	       (a >= NVL_HW_FALCON_SEC2_BASE &&
		a < NVL_HW_FALCON_SEC2_BASE + NVL_HW_FALCON_SIZE);
}

/* payload dwords after each opcode (rmgspseq.h: the operands each
 * command carries), by the driver's (neutral) opcode */
static const uint8_t seq_args[GSPABI_SEQ_OP__COUNT] = {
	[GSPABI_SEQ_OP_REG_WRITE] = 2, /* addr, val */
	[GSPABI_SEQ_OP_REG_MODIFY] = 3, /* addr, mask, val */
	[GSPABI_SEQ_OP_REG_POLL] = 5, /* addr, mask, val, timeout, error */
	[GSPABI_SEQ_OP_DELAY_US] = 1, /* val */
	[GSPABI_SEQ_OP_REG_STORE] = 2, /* addr, index */
};

/* run a CPU sequencer buffer; every field checked before use. The header
 * and the opcode numbers are the booted version's (generated layer). */
static int run_sequencer(struct nvl_gsp *gsp, struct nvl_gsp_boot *b,
			 const uint8_t *data, size_t len)
{
	const struct gspabi_version *v = b->abi;
	struct gspabi_run_cpu_seq hdr;
	const uint8_t *cmds;
	uint64_t saves = nvl_gsp_abi_const(v, GSPABI_C_SEQ_REG_SAVE_AREA);
	size_t n, i = 0;

	if (!v || gspabi_unpack(v, GSPABI_S_RUN_CPU_SEQ, data, len, &hdr) ||
	    !(hdr.present & GSPABI_RUN_CPU_SEQ_HAS_BUFFERSIZEDWORD) ||
	    !(hdr.present & GSPABI_RUN_CPU_SEQ_HAS_COMMANDBUFFER) ||
	    hdr.commandBuffer > len)
		return nvl_error(-EPROTO, "gsp: sequencer: %zu bytes", len);
	saves = NVL_MIN(saves, NVL_ARRAY_SIZE(hdr.regSaveArea));
	cmds = data + hdr.commandBuffer;
	n = (len - hdr.commandBuffer) / 4;
	if (hdr.bufferSizeDWord > n)
		return nvl_error(
			-EPROTO,
			"gsp: sequencer: %u dwords in a %zu-dword buffer",
			hdr.bufferSizeDWord, n);
	n = hdr.bufferSizeDWord;
#define ARG(k)                                                                 \
	({                                                                     \
		uint32_t v_;                                                   \
		memcpy(&v_, cmds + 4 * (i + 1 + (k)), 4);                      \
		v_;                                                            \
	})
	while (i < n) {
		uint32_t wop, op, size;

		memcpy(&wop, cmds + 4 * i, 4);
		if (gspabi_from_wire(v, GSPABI_T_SEQ_OP, wop, &op) ||
		    op == GSPABI_SEQ_OP__UNKNOWN || op >= GSPABI_SEQ_OP__COUNT)
			return nvl_error(-EPROTO, "gsp: sequencer: opcode %u",
					 wop);
		size = seq_args[op];
		if (i + 1 + size > n)
			return nvl_error(-EPROTO,
					 "gsp: sequencer: opcode %u truncated",
					 op);
		switch (op) {
		case GSPABI_SEQ_OP_REG_WRITE:
		case GSPABI_SEQ_OP_REG_MODIFY:
		case GSPABI_SEQ_OP_REG_POLL:
		case GSPABI_SEQ_OP_REG_STORE:
			if (!seq_addr_ok(ARG(0)))
				return nvl_error(-EPROTO,
						 "gsp: sequencer: register %#x "
						 "is not the firmware's",
						 ARG(0));
			break;
		default:
			break;
		}
		switch (op) {
		case GSPABI_SEQ_OP_REG_WRITE:
			nvl_hw_wr32(gsp->hw, ARG(0), ARG(1));
			break;
		case GSPABI_SEQ_OP_REG_MODIFY:
			nvl_hw_mask(gsp->hw, ARG(0), ARG(1), ARG(2) & ARG(1));
			break;
		case GSPABI_SEQ_OP_REG_POLL: {
			uint64_t us = NVL_MIN(ARG(3), 1000000u);
			int64_t dl = nvl_deadline_after((int64_t)us * 1000 +
							1000000);

			while ((nvl_hw_rd32(gsp->hw, ARG(0)) & ARG(1)) !=
			       ARG(2)) {
				if (nvl_time_ns() > dl)
					return nvl_error(-ETIMEDOUT,
							 "gsp: sequencer: poll "
							 "of %#x timed out",
							 ARG(0));
			}
			break;
		}
		case GSPABI_SEQ_OP_DELAY_US: {
			uint32_t us = NVL_MIN(ARG(0), 100000u);
			struct timespec ts = {0, (long)us * 1000};

			nanosleep(&ts, NULL);
			break;
		}
		case GSPABI_SEQ_OP_REG_STORE:
			if (ARG(1) >= saves)
				return nvl_error(-EPROTO,
						 "gsp: sequencer: save slot %u",
						 ARG(1));
			hdr.regSaveArea[ARG(1)] = nvl_hw_rd32(gsp->hw, ARG(0));
			break;
		case GSPABI_SEQ_OP_CORE_RESET:
			nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE),
				    NVL_HW_FALCON_ENGINE_RESET);
			nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE),
				    0);
			break;
		case GSPABI_SEQ_OP_CORE_START:
		case GSPABI_SEQ_OP_CORE_RESUME:
			nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_CPUCTL),
				    NVL_HW_FALCON_CPUCTL_STARTCPU);
			break;
		case GSPABI_SEQ_OP_CORE_WAIT_FOR_HALT:
			break; /* the model's core halts at once */
		default:
			break;
		}
		b->seq_ops++;
		i += 1 + size;
	}
#undef ARG
	return 0;
}

static void on_sequencer(void *arg, uint32_t event, uint32_t result,
			 const void *data, size_t len)
{
	struct nvl_gsp *gsp = arg;
	struct nvl_gsp_boot *b = gsp->boot;
	int ret = run_sequencer(gsp, b, data, len);

	pthread_mutex_lock(&b->lock);
	if (ret && !b->seq_err)
		b->seq_err = ret;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static void on_init_done(void *arg, uint32_t event, uint32_t result,
			 const void *data, size_t len)
{
	struct nvl_gsp_boot *b = ((struct nvl_gsp *)arg)->boot;

	pthread_mutex_lock(&b->lock);
	b->init_done = true;
	b->init_result = result;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* ---- steps -------------------------------------------------------------- */

/* the most one gap between two looks of poll_reg() counts */
#define POLL_GAP_MAX_NS NVL_NSEC_PER_MSEC
/* poll_reg() gives up after this many times its bound of wall time */
#define POLL_WALL_FACTOR 4

/*
 * Wait until (@addr & @mask) == @val, bounded by @timeout_ns of the time
 * this thread was given to look: between two looks at most
 * POLL_GAP_MAX_NS counts (a look every 1-100 us on an idle host: there
 * the bound is the wall clock's). On the model, what the driver waits for
 * runs on a host thread (SEC2's booter copies and hashes the 37 MB image);
 * a host so loaded that this poll waits long for a CPU starves that thread
 * as well, and a wall-clock bound then fails a boot that was working
 * (measured, docs/gsp.md "Boot waits under load"). Real hardware runs on
 * its own: a loaded host only makes the bound longer, never more than
 * POLL_WALL_FACTOR times in wall time. The last look comes after the
 * bound ran out, never before it.
 */
static int poll_reg(struct nvl_gsp *gsp, uint32_t addr, uint32_t mask,
		    uint32_t val, int64_t timeout_ns)
{
	int64_t t0 = nvl_time_ns(), last = t0, given = 0;
	int64_t wall = timeout_ns > INT64_MAX / POLL_WALL_FACTOR
			       ? INT64_MAX
			       : timeout_ns * POLL_WALL_FACTOR;
	unsigned spins = 0;

	for (;;) {
		struct timespec ts = {0, spins++ < 100 ? 1000 : 100000};
		int64_t now = nvl_time_ns();
		bool over;

		given += NVL_MIN(now - last, (int64_t)POLL_GAP_MAX_NS);
		last = now;
		over = given > timeout_ns || now - t0 > wall;
		if ((nvl_hw_rd32(gsp->hw, addr) & mask) == val)
			return 0;
		if (over)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
}

static int alloc_log(struct nvl_gsp *gsp, struct nvl_gsp_logbuf *l)
{
	struct dmabuf d = {0};
	int ret = nvl_gsp_dma_alloc(gsp, &d, NVL_GSP_LOG_RING_SIZE);

	if (ret)
		return ret;
	for (size_t i = 0; i < NVL_GSP_LOG_RING_SIZE / PAGE; i++) {
		uint64_t pte = d.dma + i * PAGE;

		memcpy(d.cpu + 8 * (1 + i), &pte, 8);
	}
	l->mem = d.cpu;
	l->dma = d.dma;
	l->size = d.size;
	return 0;
}

/*
 * RM arguments in the booted version's layout (570 dropped the lockless
 * queue offsets and inserted bDmemStack). On @resume, srInitArguments say
 * where the GPU comes back from: oldLevel 3 (NV2080_CTRL_GPU_SET_POWER_
 * STATE_GPU_LEVEL_3), flags 0, bInPMTransition 1, as nouveau r535 does.
 */
static int pack_rmargs(struct nvl_gsp *gsp, struct nvl_gsp_boot *b, bool resume)
{
	const struct gspabi_version *v = b->abi;
	struct gspabi_rmargs ra = {
		.present = v->structs[GSPABI_S_RMARGS].fields,
		.mq_shared_pa = gsp->q.dma,
		.mq_pte_count = (uint32_t)(gsp->q.size / PAGE),
		.mq_cmdq_off = gsp->q.cmdq_off,
		.mq_statq_off = gsp->q.statq_off,
		.sr_old_level = resume ? NVL_GSP_PM_LEVEL_3 : 0,
		.sr_in_pm_transition = resume,
	};

	if (gspabi_pack(v, GSPABI_S_RMARGS, &ra, b->rmargs.cpu,
			v->structs[GSPABI_S_RMARGS].wire_size))
		return nvl_error(-EPROTO, "gsp: %s: RM arguments do not pack",
				 v->tag);
	return 0;
}

/*
 * .fwimage for the radix3 table. A page-aligned image with whole pages
 * readable behind it (a loaded file's buffer) is DMA-mapped in place, as
 * an sg-table over the firmware's pages would be; anything else is copied
 * into fresh DMA memory. Either way the booter copies it into WPR2, after
 * which boot lets go of it.
 */
static int image_dma(struct nvl_gsp *gsp, struct nvl_gsp_boot *b,
		     const struct nvl_gsp_image *img)
{
	size_t span = NVL_ALIGN_UP(img->fwimage_size, (size_t)PAGE);
	int ret;

	if ((uintptr_t)img->fwimage % PAGE || img->fwimage_room < span)
		return dma_alloc_keep(gsp, &b->image, img->fwimage_size,
				      img->fwimage_size);
	ret = nvl_hw_dma_map(gsp->hw, (void *)img->fwimage, span,
			     &b->image.dma);
	if (ret)
		return nvl_error(ret, "gsp: cannot DMA-map the %zu-byte image",
				 span);
	b->image.cpu = (uint8_t *)img->fwimage;
	b->image.size = span;
	b->image.borrowed = true;
	return 0;
}

static int build_memory(struct nvl_gsp *gsp, struct nvl_gsp_boot *b,
			const struct nvl_gsp_image *img)
{
	static const char *const log_names[] = {"LOGINIT", "LOGINTR", "LOGRM"};
	const struct gspabi_version *v = b->abi;
	size_t lsize = v->structs[GSPABI_S_LIBOS_REGION].wire_size;
	struct gspabi_libos_region la;
	struct gspabi_wpr_meta m;
	size_t npages = (img->fwimage_size + PAGE - 1) / PAGE;
	size_t nl2 = (npages + 511) / 512;
	int ret;

	if (!v->structs[GSPABI_S_LIBOS_REGION].present || 4 * lsize > PAGE ||
	    nvl_gsp_abi_const(v, GSPABI_C_LIBOS_LOG_RING_SIZE) !=
		    NVL_GSP_LOG_RING_SIZE)
		return nvl_error(-EPROTO,
				 "gsp: %s: LIBOS arguments or log rings not "
				 "as the driver lays them out",
				 v->tag);
	if (nl2 > 512)
		return nvl_error(-EFBIG,
				 "gsp: .fwimage of %zu bytes exceeds radix3",
				 img->fwimage_size);
	for (unsigned i = 0; i < 3; i++) {
		if (gsp->logs[i].mem)
			continue;
		ret = alloc_log(gsp, &gsp->logs[i]);
		if (ret)
			return ret;
	}
	gsp->logs_ready = true;
	for (unsigned i = 0; i < 3; i++)
		memset(gsp->logs[i].mem, 0, 8); /* put = 0 */
	ret = nvl_gsp_dma_alloc(gsp, &b->rmargs, PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->libos, PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->meta, PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->radix[0], PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->radix[1], PAGE);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->l2, nl2 * PAGE);
	if (!ret)
		ret = image_dma(gsp, b, img);
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->sig,
					NVL_ALIGN_UP(img->sig_size, 256));
	if (!ret)
		ret = nvl_gsp_dma_alloc(gsp, &b->bl,
					NVL_MAX(img->bootloader_size, 1));
	if (ret)
		return ret;

	/* radix3: level 0 -> level 1 -> level 2 -> image pages */
	if (!b->image.borrowed)
		memcpy(b->image.cpu, img->fwimage, img->fwimage_size);
	memcpy(b->radix[0].cpu, &b->radix[1].dma, 8);
	for (size_t i = 0; i < nl2; i++) {
		uint64_t a = b->l2.dma + i * PAGE;

		memcpy(b->radix[1].cpu + 8 * i, &a, 8);
	}
	for (size_t i = 0; i < npages; i++) {
		uint64_t a = b->image.dma + i * PAGE;

		memcpy(b->l2.cpu + 8 * i, &a, 8);
	}
	memcpy(b->sig.cpu, img->sig, img->sig_size);
	if (img->bootloader_size)
		memcpy(b->bl.cpu, img->bootloader, img->bootloader_size);

	ret = pack_rmargs(gsp, b, false);
	if (ret)
		return ret;

	/* LIBOS arguments: the three log rings and RMARGS, each one region
	 * in the booted version's layout */
	for (unsigned i = 0; i < 4; i++) {
		la = (struct gspabi_libos_region){
			.present = v->structs[GSPABI_S_LIBOS_REGION].fields,
			.id8 = i < 3 ? id8(log_names[i]) : id8("RMARGS"),
			.pa = i < 3 ? gsp->logs[i].dma : b->rmargs.dma,
			.size = i < 3 ? NVL_GSP_LOG_RING_SIZE : PAGE,
			.kind = (uint8_t)nvl_gsp_abi_const(
				v, GSPABI_C_LIBOS_REGION_CONTIGUOUS),
			.loc = (uint8_t)nvl_gsp_abi_const(
				v, GSPABI_C_LIBOS_LOC_SYSMEM),
		};
		if (gspabi_pack(v, GSPABI_S_LIBOS_REGION, &la,
				b->libos.cpu + i * lsize, lsize))
			return nvl_error(-EPROTO,
					 "gsp: %s: LIBOS arguments do not pack",
					 v->tag);
	}

	/* GspFwWprMeta in the booted version's layout (same size, but the
	 * partitionRpc union and 570's flags/pmuReservedSize differ) */
	m = (struct gspabi_wpr_meta){
		.present = v->structs[GSPABI_S_WPR_META].fields,
		.magic = nvl_gsp_abi_const(v, GSPABI_C_WPR_META_MAGIC),
		.revision = nvl_gsp_abi_const(v, GSPABI_C_WPR_META_REVISION),
		.sysmemAddrOfRadix3Elf = b->radix[0].dma,
		.sizeOfRadix3Elf = img->fwimage_size,
		.sysmemAddrOfBootloader = b->bl.dma,
		.sizeOfBootloader = img->bootloader_size,
		.bootloaderCodeOffset = img->bl_code_offset,
		.bootloaderDataOffset = img->bl_data_offset,
		.bootloaderManifestOffset = img->bl_manifest_offset,
		.sysmemAddrOfSignature = b->sig.dma,
		.sizeOfSignature = img->sig_size,
		.gspFwRsvdStart = b->layout.non_wpr_heap_offset,
		.nonWprHeapOffset = b->layout.non_wpr_heap_offset,
		.nonWprHeapSize = b->layout.non_wpr_heap_size,
		.gspFwWprStart = b->layout.wpr_start,
		.gspFwHeapOffset = b->layout.heap_offset,
		.gspFwHeapSize = b->layout.heap_size,
		.gspFwOffset = b->layout.fw_offset,
		.bootBinOffset = b->layout.boot_bin_offset,
		.frtsOffset = b->layout.frts_offset,
		.frtsSize = b->layout.frts_size,
		.gspFwWprEnd = b->layout.wpr_end,
		.fbSize = b->layout.fb_size,
		.vgaWorkspaceOffset = b->layout.vga_offset,
		.vgaWorkspaceSize = b->layout.vga_size,
	};
	if (gspabi_pack(v, GSPABI_S_WPR_META, &m, b->meta.cpu,
			v->structs[GSPABI_S_WPR_META].wire_size))
		return nvl_error(-EPROTO, "gsp: %s: WPR meta does not pack",
				 v->tag);
	return 0;
}

static int init_rpcs(struct nvl_gsp *gsp)
{
	const struct gspabi_version *v = gsp->abi;
	struct gspabi_sysinfo si = {
		.present = v->structs[GSPABI_S_SYSINFO].fields};
	uint8_t siw[256] = {0};
	size_t sis = v->structs[GSPABI_S_SYSINFO].wire_size;
	/* table, two entries, then their names */
	struct gspabi_registry_table t = {
		.present = v->structs[GSPABI_S_REGISTRY_TABLE].fields &
			   ~GSPABI_REGISTRY_TABLE_HAS_ENTRIES};
	struct gspabi_registry_entry ent = {
		.present = v->structs[GSPABI_S_REGISTRY_ENTRY].fields};
	uint32_t reg[64] = {0};
	size_t esz = v->structs[GSPABI_S_REGISTRY_ENTRY].wire_size;
	int64_t eoff = gspabi_offset(v, GSPABI_S_REGISTRY_TABLE,
				     GSPABI_REGISTRY_TABLE_HAS_ENTRIES);
	size_t off = (size_t)eoff + 2 * esz;
	char *names = (char *)reg + off;
	int ret;

	if (sis > sizeof(siw) || eoff < 0 || !esz || off + 64 > sizeof(reg))
		return nvl_error(-EPROTO,
				 "gsp: %s: no system info or "
				 "registry layout",
				 v->tag);
	si.gpuPhysAddr = 0;
	si.maxUserVa = 1ull << 47;
	si.bIsPassthru = false;
	if (gspabi_pack(v, GSPABI_S_SYSINFO, &si, siw, sis))
		return nvl_error(-EPROTO, "gsp: %s: system info does not pack",
				 v->tag);
	ret = nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_GSP_SET_SYSTEM_INFO, siw, sis,
			  NULL, 0, NULL, NVL_GSP_REPLY_NOSEQ, 0);
	if (ret)
		return ret;
	t.numEntries = 2;
	t.size = (uint32_t)(off + 64);
	ent.type = GSPABI_K_REGISTRY_TABLE_ENTRY_TYPE_DWORD;
	ent.length = 4;
	ent.nameOffset = (uint32_t)off;
	ent.data = 1;
	ret = gspabi_pack(v, GSPABI_S_REGISTRY_ENTRY, &ent, (char *)reg + eoff,
			  esz);
	strcpy(names, "RMSecBusResetEnable");
	ent.nameOffset = (uint32_t)off + 20;
	ent.data = 0;
	ret = ret
		      ?: gspabi_pack(v, GSPABI_S_REGISTRY_ENTRY, &ent,
				     (char *)reg + eoff + esz, esz);
	strcpy(names + 20, "RMForcePcieConfigSave");
	ret = ret
		      ?: gspabi_pack(v, GSPABI_S_REGISTRY_TABLE, &t, reg,
				     (size_t)eoff);
	if (ret)
		return nvl_error(-EPROTO, "gsp: %s: registry does not pack",
				 v->tag);
	return nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_SET_REGISTRY, reg, off + 64,
			   NULL, 0, NULL, NVL_GSP_REPLY_NOSEQ, 0);
}

/* SEC2 is halted: no booter runs (CPUCTL HALTED) */
static bool sec2_halted(struct nvl_gsp *gsp)
{
	return nvl_hw_rd32(gsp->hw, NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL)) &
	       NVL_HW_FALCON_CPUCTL_HALTED;
}

static int run_booter(struct nvl_gsp *gsp, struct nvl_gsp_boot *b,
		      uint32_t which, uint64_t meta_pa)
{
	int64_t bound = meta_pa == b->meta.dma
				? b->timeout_ns
				: NVL_MAX(b->timeout_ns, b->sr_timeout_ns);
	uint32_t code;
	int ret;

	/*
	 * SEC2 runs one booter at a time. After a wait that gave up (a
	 * starved or slow SEC2), the earlier run may still go on: started
	 * over it, SEC2 would report that run's halt and result as this
	 * one's (and it read inputs that are gone). Let it halt first.
	 */
	if (!sec2_halted(gsp)) {
		nvl_info(NVL_CAT_GSP, "gsp: SEC2 still runs an earlier booter: "
				      "waiting for it to halt");
		if (poll_reg(gsp, NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL),
			     NVL_HW_FALCON_CPUCTL_HALTED,
			     NVL_HW_FALCON_CPUCTL_HALTED, bound))
			return nvl_error(-EBUSY, "gsp: SEC2 still runs an "
						 "earlier booter");
	}
	nvl_hw_wr32(gsp->hw, NVL_HW_SEC2(NVL_HW_FALCON_OS), which);
	nvl_hw_wr32(gsp->hw, NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX0),
		    (uint32_t)meta_pa);
	nvl_hw_wr32(gsp->hw, NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX1),
		    (uint32_t)(meta_pa >> 32));
	nvl_hw_wr32(gsp->hw, NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL),
		    NVL_HW_FALCON_CPUCTL_STARTCPU);
	/* with an SR meta the booter copies and hashes all of WPR2 (hundreds
	 * of MiB): a longer, still bounded, wait */
	ret = poll_reg(gsp, NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL),
		       NVL_HW_FALCON_CPUCTL_HALTED, NVL_HW_FALCON_CPUCTL_HALTED,
		       bound);
	if (ret)
		return nvl_error(-ETIMEDOUT, "gsp: %s did not halt",
				 which == NVL_HW_SEC2_BOOTER_LOAD
					 ? "booter_load"
					 : "booter_unload");
	code = nvl_hw_rd32(gsp->hw, NVL_HW_SEC2(NVL_HW_FALCON_MAILBOX0));
	switch (code) {
	case NVL_HW_BOOTER_OK:
		return 0;
	case NVL_HW_BOOTER_ERR_SIG:
		return nvl_error(
			-EKEYREJECTED,
			"gsp: booter_load rejected the image signature");
	case NVL_HW_BOOTER_ERR_META:
		return nvl_error(-EINVAL, "gsp: booter rejected the %s meta",
				 meta_pa == b->meta.dma ? "WPR" : "SR");
	case NVL_HW_BOOTER_ERR_DMA:
		return nvl_error(-EFAULT,
				 "gsp: booter could not read its inputs");
	case NVL_HW_BOOTER_ERR_WPR:
		return nvl_error(-EBUSY,
				 "gsp: booter found WPR2 in the wrong state");
	default:
		return nvl_error(-EIO, "gsp: booter mailbox0 %#x", code);
	}
}

/* leave the device down: GSP in reset, WPR2 gone; booter_unload gets
 * @meta_pa (the SR meta when suspending: it saves WPR2 first). Return: the
 * booter's result. */
static int teardown_meta(struct nvl_gsp *gsp, struct nvl_gsp_boot *b,
			 uint64_t meta_pa)
{
	int ret = 0;

	/* a booter_load whose wait gave up may still raise WPR2 and start
	 * the GSP (its inputs are still there): let it halt, then take down
	 * what it left */
	if (!sec2_halted(gsp) &&
	    poll_reg(gsp, NVL_HW_SEC2(NVL_HW_FALCON_CPUCTL),
		     NVL_HW_FALCON_CPUCTL_HALTED, NVL_HW_FALCON_CPUCTL_HALTED,
		     NVL_MAX(b->timeout_ns, b->sr_timeout_ns)))
		nvl_warn(NVL_CAT_GSP, "gsp: teardown: SEC2 did not halt");
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE),
		    NVL_HW_FALCON_ENGINE_RESET);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE), 0);
	if (nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_HI))
		ret = run_booter(gsp, b, NVL_HW_SEC2_BOOTER_UNLOAD, meta_pa);
	b->wpr_up = nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_HI) != 0;
	return ret;
}

static void teardown(struct nvl_gsp *gsp, struct nvl_gsp_boot *b)
{
	teardown_meta(gsp, b, b->meta.dma);
}

static int wait_init_done(struct nvl_gsp *gsp, struct nvl_gsp_boot *b)
{
	int64_t dl = nvl_deadline_after(b->timeout_ns);
	struct timespec ts = nvl_ns_to_timespec(dl);
	int ret = 0;

	pthread_mutex_lock(&b->lock);
	while (!b->init_done && !b->seq_err && nvl_time_ns() < dl)
		pthread_cond_timedwait(&b->cond, &b->lock, &ts);
	if (b->seq_err)
		ret = b->seq_err;
	else if (!b->init_done)
		ret = nvl_error(-ETIMEDOUT, "gsp: no GSP_INIT_DONE in %lld ms",
				(long long)(b->timeout_ns / NVL_NSEC_PER_MSEC));
	else if (b->init_result != GSPABI_K_STATUS_NV_OK)
		ret = nvl_error(nvl_gsp_status_errno(b->init_result),
				"gsp: GSP_INIT_DONE reports %s",
				nvl_gsp_status_name(b->init_result));
	pthread_mutex_unlock(&b->lock);
	return ret;
}

/* most channel ids: ENGINE_STATUS and the fault entries carry 12 bits */
#define MAX_CHANNELS 4096u

/* the FB range register's size (the layout's before ECC) */
static uint64_t lmr_fb(struct nvl_gsp *gsp)
{
	uint32_t lmr = nvl_hw_rd32(gsp->hw, NVL_HW_PFB_LOCAL_MEMORY_RANGE);

	return (uint64_t)NVL_HW_LMR_LOWER_MAG(lmr)
	       << (NVL_HW_LMR_LOWER_SCALE(lmr) + 20);
}

/*
 * The firmware's static info, checked before the driver uses any of it
 * (its sizes and counts become the device's info, array bounds, runlist
 * and register indices): a lie fails the boot with -EPROTO.
 */
static int static_info_check(struct nvl_gsp *gsp,
			     const struct gspabi_static_info *si)
{
	uint64_t fb = lmr_fb(gsp);

	if (!si->fbLength || si->fbLength > fb)
		return nvl_error(-EPROTO,
				 "gsp: static info: %llu bytes of FB (the FB "
				 "range register says %llu)",
				 (unsigned long long)si->fbLength,
				 (unsigned long long)fb);
	/* the copy engines' runlists, then compute's: all in range */
	if (!si->numCopyEngines || si->numCopyEngines >= NVL_HW_ENGINE_MAX)
		return nvl_error(-EPROTO,
				 "gsp: static info: %u copy engines (1..%u)",
				 si->numCopyEngines, NVL_HW_ENGINE_MAX - 1);
	if (!si->numChannels || si->numChannels > MAX_CHANNELS)
		return nvl_error(-EPROTO,
				 "gsp: static info: %u channels (1..%u)",
				 si->numChannels, MAX_CHANNELS);
	if (!si->hInternalClient || !si->hInternalDevice ||
	    !si->hInternalSubdevice)
		return nvl_error(-EPROTO,
				 "gsp: static info: a null internal handle");
	return 0;
}

static int post_init(struct nvl_gsp *gsp, struct nvl_gsp_boot_report *r,
		     unsigned *step)
{
	const struct gspabi_version *v = gsp->boot->abi;
	uint8_t wire[1024]; /* GspStaticConfigInfo of any version */
	struct gspabi_static_info si;
	size_t tsize = v->structs[GSPABI_S_INTR_TABLE].wire_size;
	size_t got = 0, want = v->structs[GSPABI_S_STATIC_INFO].wire_size;
	struct gspabi_intr_table it = {0};
	uint64_t cmd;
	uint8_t *t;
	int64_t t0 = nvl_time_ns();
	int ret;

	*step = NVL_GSP_STEP_STATIC_INFO;
	ret = nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_GET_GSP_STATIC_INFO, NULL, 0,
			  wire, sizeof(wire), &got, NVL_GSP_REPLY_RECV, 0);
	if (ret)
		return ret;
	/* the layout of the booted version, through the neutral layer */
	if (got != want ||
	    gspabi_unpack(v, GSPABI_S_STATIC_INFO, wire, got, &si))
		return nvl_error(-EPROTO,
				 "gsp: static info of %zu bytes (%s: %zu)", got,
				 v->tag, want);
	ret = static_info_check(gsp, &si);
	if (ret)
		return ret;
	si.gpuNameString[sizeof(si.gpuNameString) - 1] = 0;
	memcpy(r->gpu_name, si.gpuNameString, sizeof(r->gpu_name));
	/* the firmware's bytes, which smi and the log print: printable
	 * ASCII, anything else '?' (as ls shows a name on a terminal) */
	for (size_t i = 0; i < sizeof(r->gpu_name) && r->gpu_name[i]; i++)
		if ((unsigned char)r->gpu_name[i] < 0x20 ||
		    (unsigned char)r->gpu_name[i] > 0x7e)
			r->gpu_name[i] = '?';
	r->num_channels = si.numChannels;
	r->num_ce = si.numCopyEngines;
	r->fb_size = si.fbLength;
	r->host_class = si.hostClass;
	r->ce_class = si.ceClass;
	r->step_ns[NVL_GSP_STEP_STATIC_INFO] = nvl_time_ns() - t0;

	*step = NVL_GSP_STEP_INTR_TABLE;
	t0 = nvl_time_ns();
	ret = nvl_gsp_rm_adopt(gsp, si.hInternalClient, si.hInternalClient, 0,
			       GSPABI_K_NV01_ROOT);
	if (!ret)
		ret = nvl_gsp_rm_adopt(gsp, si.hInternalClient,
				       si.hInternalDevice, si.hInternalClient,
				       GSPABI_K_NV01_DEVICE_0);
	if (!ret)
		ret = nvl_gsp_rm_adopt(
			gsp, si.hInternalClient, si.hInternalSubdevice,
			si.hInternalDevice, GSPABI_K_NV20_SUBDEVICE_0);
	if (!ret)
		ret = nvl_gsp_abi_ops_find(v->tag)->gpc_mask(
			gsp, v, si.hInternalSubdevice, &si, &r->gpc_mask);
	if (ret)
		return ret;
	/* the interrupt table in the booted version's layout and number */
	if (!tsize ||
	    gspabi_to_wire(
		    v, GSPABI_T_CONTROL,
		    GSPABI_CONTROL_NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE,
		    &cmd) ||
	    cmd > UINT32_MAX)
		return nvl_error(-EPROTO, "gsp: %s: no interrupt-table control",
				 v->tag);
	t = nvl_zalloc(tsize);
	if (!t)
		return nvl_error(-ENOMEM,
				 "gsp: no memory for the interrupt table");
	ret = nvl_gsp_rm_control(gsp, si.hInternalSubdevice, (uint32_t)cmd, t,
				 tsize);
	if (!ret && gspabi_unpack(v, GSPABI_S_INTR_TABLE, t, tsize, &it))
		ret = nvl_error(-EPROTO, "gsp: %s: interrupt table unreadable",
				v->tag);
	if (!ret && it.tableLen > nvl_gsp_abi_const(v, GSPABI_C_INTR_TABLE_MAX))
		ret = nvl_error(-EPROTO, "gsp: interrupt table of %u entries",
				it.tableLen);
	if (!ret)
		r->intr_entries = it.tableLen;
	nvl_free(t);
	r->step_ns[NVL_GSP_STEP_INTR_TABLE] = nvl_time_ns() - t0;
	return ret;
}

static int boot_create(struct nvl_gsp *gsp)
{
	struct nvl_gsp_boot *b;

	if (gsp->boot)
		return 0;
	b = nvl_zalloc(sizeof(*b));
	if (!b)
		return nvl_error(-ENOMEM, "gsp: no memory for boot state");
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	b->timeout_ns = 5 * NVL_NSEC_PER_SEC;
	b->sr_timeout_ns = NVL_GSP_SR_TIMEOUT_NS;
	gsp->boot = b;
	return 0;
}

void nvl_gsp_boot_free(struct nvl_gsp *gsp)
{
	struct nvl_gsp_boot *b = gsp->boot;

	if (!b)
		return;
	nvl_gsp_sr_free(gsp);
	boot_free_mem(gsp, b);
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
	nvl_free(b);
	gsp->boot = NULL;
}

void nvl_gsp_set_boot_timeout(struct nvl_gsp *gsp, int64_t ns)
{
	if (!boot_create(gsp))
		gsp->boot->timeout_ns = ns;
}

void nvl_gsp_set_sr_timeout(struct nvl_gsp *gsp, int64_t ns)
{
	if (!boot_create(gsp))
		gsp->boot->sr_timeout_ns = ns > 0 ? ns : NVL_GSP_SR_TIMEOUT_NS;
}

/* empty queues and no init/sequencer results: before a boot or a resume */
static void boot_rx_reset(struct nvl_gsp *gsp, struct nvl_gsp_boot *b)
{
	nvl_gsp_msgq_reset(&gsp->q);
	b->init_done = false;
	b->seq_err = 0;
	b->seq_ops = 0;
}

int nvl_gsp_boot(struct nvl_gsp *gsp, const struct nvl_gsp_image *img,
		 struct nvl_gsp_boot_report *report)
{
	struct nvl_gsp_boot_report local, *r = report ? report : &local;
	uint32_t boot0 = nvl_hw_rd32(gsp->hw, NVL_HW_PMC_BOOT_0);
	unsigned arch =
		(boot0 >> NVL_HW_BOOT_0_ARCH_SHIFT) & NVL_HW_BOOT_0_ARCH_MASK;
	uint32_t lmr = nvl_hw_rd32(gsp->hw, NVL_HW_PFB_LOCAL_MEMORY_RANGE);
	uint64_t fb = lmr_fb(gsp);
	uint64_t fb_usable = lmr & NVL_HW_LMR_ECC_MODE ? fb / 16 * 15 : fb;
	unsigned step = NVL_GSP_STEP_LAYOUT;
	struct nvl_gsp_boot *b;
	int64_t t0 = nvl_time_ns();
	bool booter_ran = false;
	struct gspabi_wpr_meta verified;
	char why[256];
	int ret;

	memset(r, 0, sizeof(*r));
	r->failed_step = NVL_GSP_STEP_COUNT;
	if (!img || !img->fwimage || !img->fwimage_size)
		return nvl_error(-EINVAL, "gsp: boot: no firmware image");
	if (gsp->dead)
		return nvl_error(-ENODEV,
				 "gsp: boot: the device needs a reset");
	ret = boot_create(gsp);
	if (ret)
		return ret;
	b = gsp->boot;
	if (b->booted)
		return nvl_error(-EBUSY, "gsp: already booted");
	if (!img->sig || !img->sig_size) {
		r->failed_step = step;
		return nvl_error(-ENOEXEC,
				 "gsp: boot: firmware %s has no signature for "
				 "this chip family",
				 img->version ? img->version : "?");
	}
	/* 1. layout */
	if (nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_HI)) {
		r->failed_step = step;
		return nvl_error(
			-EBUSY,
			"gsp: boot: WPR2 is already up: the GPU needs a reset");
	}
	/* the image's own version: its ABI layer and heap rules */
	b->abi = nvl_gsp_abi_find(img->version);
	if (!b->abi) {
		ret = -ENOEXEC;
		goto fail;
	}
	pthread_mutex_lock(&gsp->rx_lock);
	gsp->abi = b->abi;
	/* the queues speak the version's element framing (the GSP is not
	 * running yet: nothing is in flight) */
	ret = nvl_gsp_msgq_set_abi(&gsp->q, b->abi);
	pthread_mutex_unlock(&gsp->rx_lock);
	if (ret)
		goto fail;
	ret = nvl_gsp_fb_layout_version(
		b->abi->tag, fb_usable, arch != NVL_HW_ARCH_TURING,
		arch == NVL_HW_ARCH_HOPPER, img->fwimage_size,
		img->bootloader_size, &b->layout);
	if (ret)
		goto fail;
	r->layout = b->layout;
	r->step_ns[step] = nvl_time_ns() - t0;

	/* 2. memory */
	step = NVL_GSP_STEP_MEMORY;
	t0 = nvl_time_ns();
	boot_rx_reset(gsp, b);
	ret = build_memory(gsp, b, img);
	if (ret)
		goto fail;
	ret = nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_RUN_CPU_SEQUENCER,
				     on_sequencer, gsp);
	if (!ret)
		ret = nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_INIT_DONE,
					     on_init_done, gsp);
	if (ret)
		goto fail;
	r->step_ns[step] = nvl_time_ns() - t0;

	/* 3. the init RPCs, queued before the GSP runs */
	step = NVL_GSP_STEP_INIT_RPCS;
	t0 = nvl_time_ns();
	ret = init_rpcs(gsp);
	if (ret)
		goto fail;
	r->step_ns[step] = nvl_time_ns() - t0;

	/* 4. booter_load on SEC2 */
	step = NVL_GSP_STEP_BOOTER;
	t0 = nvl_time_ns();
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE),
		    NVL_HW_FALCON_ENGINE_RESET);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE), 0);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0),
		    (uint32_t)b->libos.dma);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_MAILBOX1),
		    (uint32_t)(b->libos.dma >> 32));
	booter_ran = true;
	ret = run_booter(gsp, b, NVL_HW_SEC2_BOOTER_LOAD, b->meta.dma);
	if (ret)
		goto fail;
	if (gspabi_unpack(gsp->abi, GSPABI_S_WPR_META, b->meta.cpu,
			  gsp->abi->structs[GSPABI_S_WPR_META].wire_size,
			  &verified) ||
	    verified.verified !=
		    nvl_gsp_abi_const(gsp->abi, GSPABI_C_WPR_META_VERIFIED) ||
	    nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_LO) !=
		    (uint32_t)((b->layout.wpr_start >> 12) << 4)) {
		ret = nvl_error(-EIO, "gsp: booter_load halted without "
				      "verifying the image or raising WPR2");
		goto fail;
	}
	b->wpr_up = true;
	/* WPR2 holds the image now: the caller's pages are not ours */
	if (b->image.borrowed)
		nvl_gsp_dma_free(gsp, &b->image);
	r->step_ns[step] = nvl_time_ns() - t0;

	/* 5. RISC-V */
	step = NVL_GSP_STEP_RISCV;
	t0 = nvl_time_ns();
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_OS), img->app_version);
	ret = poll_reg(gsp, NVL_HW_GSP(NVL_HW_FALCON_RISCV_CPUCTL),
		       NVL_HW_RISCV_CPUCTL_ACTIVE_STAT,
		       NVL_HW_RISCV_CPUCTL_ACTIVE_STAT, b->timeout_ns);
	if (ret) {
		ret = nvl_error(-ETIMEDOUT,
				"gsp: the RISC-V core never became active");
		goto fail;
	}
	r->step_ns[step] = nvl_time_ns() - t0;

	/* 6. sequencer and INIT_DONE */
	step = NVL_GSP_STEP_INIT_DONE;
	t0 = nvl_time_ns();
	ret = wait_init_done(gsp, b);
	r->sequencer_ops = b->seq_ops;
	if (ret)
		goto fail;
	r->step_ns[step] = nvl_time_ns() - t0;

	/* 7, 8 */
	ret = post_init(gsp, r, &step);
	if (ret)
		goto fail;
	b->booted = true;
	nvl_info(NVL_CAT_GSP, "gsp: firmware %s booted (%s)",
		 img->version ? img->version : "?", r->gpu_name);
	return 0;

fail:
	r->failed_step = step;
	if (booter_ran)
		teardown(gsp, b);
	nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_RUN_CPU_SEQUENCER, NULL,
			       NULL);
	nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_INIT_DONE, NULL, NULL);
	nvl_gsp_events_settle(gsp, NVL_NSEC_PER_SEC);
	nvl_gsp_rm_forget_all(gsp);
	boot_free_mem(gsp, b);
	snprintf(why, sizeof(why), "%s", nvl_error_msg());
	return nvl_error(ret, "gsp: boot failed at step '%s': %s",
			 nvl_gsp_step_name(step), why);
}

/* UNLOADING_GUEST_DRIVER in the booted version's layout; its errno */
static int send_unloading(struct nvl_gsp *gsp, bool pm, uint32_t level)
{
	struct gspabi_unloading un = {.bInPMTransition = pm, .newLevel = level};
	uint8_t u[64] = {0};
	size_t us;

	us = gsp->abi->structs[GSPABI_S_UNLOADING].wire_size;
	un.present = gsp->abi->structs[GSPABI_S_UNLOADING].fields;
	if (us > sizeof(u) ||
	    gspabi_pack(gsp->abi, GSPABI_S_UNLOADING, &un, u, us))
		return nvl_error(-EPROTO, "gsp: unload: no unloading layout");
	return nvl_gsp_rpc(gsp, GSPABI_K_FUNCTION_UNLOADING_GUEST_DRIVER, u, us,
			   u, us, NULL, NVL_GSP_REPLY_POLL,
			   gsp->boot->timeout_ns);
}

int nvl_gsp_unload(struct nvl_gsp *gsp)
{
	struct nvl_gsp_boot *b = gsp->boot;
	int ret, ret2;

	if (b && b->suspended) {
		/* a resume that failed may have left a booter running or WPR2
		 * up (the GSP is then marked dead): take them down first */
		if (b->wpr_up ||
		    nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_HI) ||
		    !sec2_halted(gsp))
			teardown(gsp, b);
		/* nothing runs: drop the saved state and what boot built */
		nvl_gsp_sr_free(gsp);
		b->suspended = false;
		atomic_store(&gsp->asleep, false);
		nvl_gsp_rm_forget_all(gsp);
		boot_free_mem(gsp, b);
		return 0;
	}
	if (!b || !b->booted)
		return nvl_error(-EINVAL, "gsp: unload: not booted");
	ret = send_unloading(gsp, false, 0);
	if (!ret && poll_reg(gsp, NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0), ~0u,
			     NVL_HW_GSP_MAILBOX0_UNLOADED, b->timeout_ns))
		ret = nvl_error(-ETIMEDOUT,
				"gsp: unload: the GSP did not report unloaded");
	teardown(gsp, b);
	ret2 = b->wpr_up ? nvl_error(-EIO, "gsp: unload: WPR2 still up after "
					   "booter_unload")
			 : 0;
	b->booted = false;
	nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_RUN_CPU_SEQUENCER, NULL,
			       NULL);
	nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_INIT_DONE, NULL, NULL);
	nvl_gsp_rm_forget_all(gsp);
	boot_free_mem(gsp, b);
	return ret ? ret : ret2;
}

static void boot_events(struct nvl_gsp *gsp, bool on)
{
	nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_RUN_CPU_SEQUENCER,
			       on ? on_sequencer : NULL, on ? gsp : NULL);
	nvl_gsp_event_register(gsp, GSPABI_K_EVENT_GSP_INIT_DONE,
			       on ? on_init_done : NULL, on ? gsp : NULL);
}

int nvl_gsp_boot_pm_unload(struct nvl_gsp *gsp, uint64_t sr_meta_pa)
{
	struct nvl_gsp_boot *b = gsp->boot;
	int ret;

	ret = send_unloading(gsp, true, NVL_GSP_PM_LEVEL_3);
	if (ret)
		return ret; /* it did not unload: still running */
	/* from here the firmware is going: no more calls */
	atomic_store(&gsp->asleep, true);
	if (poll_reg(gsp, NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0), ~0u,
		     NVL_HW_GSP_MAILBOX0_UNLOADED, b->timeout_ns))
		ret = nvl_error(
			-ETIMEDOUT,
			"gsp: suspend: the GSP did not report unloaded");
	if (!ret)
		ret = teardown_meta(gsp, b, sr_meta_pa);
	else
		teardown(gsp, b);
	if (!ret && b->wpr_up)
		ret = nvl_error(-EIO, "gsp: suspend: WPR2 still up after "
				      "booter_unload");
	b->booted = false;
	boot_events(gsp, false);
	nvl_gsp_events_settle(gsp, NVL_NSEC_PER_SEC);
	if (ret) {
		char why[256];

		snprintf(why, sizeof(why), "%s", nvl_error_msg());
		nvl_gsp_mark_dead(gsp, "suspend failed after the firmware "
				       "unloaded");
		return nvl_error(ret, "gsp: suspend: %s", why);
	}
	b->suspended = true;
	return 0;
}

int nvl_gsp_boot_pm_load(struct nvl_gsp *gsp, uint64_t sr_meta_pa)
{
	struct nvl_gsp_boot *b = gsp->boot;
	const char *what = "booter_load";
	bool booter_ran = false;
	char why[256];
	int ret;

	if (nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_HI)) {
		/* no resume can run: only a reset's teardown and cold boot */
		nvl_gsp_mark_dead(gsp, "WPR2 up while suspended");
		return nvl_error(-EBUSY, "gsp: resume: WPR2 is up: the GPU "
					 "needs a reset");
	}
	boot_rx_reset(gsp, b);
	ret = pack_rmargs(gsp, b, true);
	if (ret)
		return ret;
	boot_events(gsp, true);
	atomic_store(&gsp->asleep, false);
	/* queued before the GSP runs, as at boot: GSP-RM reads them when it
	 * comes up, restoring or not */
	what = "init RPCs";
	ret = init_rpcs(gsp);
	if (ret)
		goto fail;
	what = "booter_load";
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE),
		    NVL_HW_FALCON_ENGINE_RESET);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_ENGINE), 0);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_MAILBOX0),
		    (uint32_t)b->libos.dma);
	nvl_hw_wr32(gsp->hw, NVL_HW_GSP(NVL_HW_FALCON_MAILBOX1),
		    (uint32_t)(b->libos.dma >> 32));
	booter_ran = true;
	ret = run_booter(gsp, b, NVL_HW_SEC2_BOOTER_LOAD, sr_meta_pa);
	if (!ret && nvl_hw_rd32(gsp->hw, NVL_HW_PFB_WPR2_ADDR_LO) !=
			    (uint32_t)((b->layout.wpr_start >> 12) << 4))
		ret = nvl_error(-EIO, "gsp: booter_load restored WPR2 "
				      "elsewhere than it was");
	if (ret)
		goto fail;
	b->wpr_up = true;
	what = "RISC-V start";
	ret = poll_reg(gsp, NVL_HW_GSP(NVL_HW_FALCON_RISCV_CPUCTL),
		       NVL_HW_RISCV_CPUCTL_ACTIVE_STAT,
		       NVL_HW_RISCV_CPUCTL_ACTIVE_STAT, b->timeout_ns);
	if (ret) {
		ret = nvl_error(-ETIMEDOUT,
				"gsp: the RISC-V core never became active");
		goto fail;
	}
	what = "INIT_DONE";
	ret = wait_init_done(gsp, b);
	if (ret)
		goto fail;
	/* later cold boots of the same memory are not resumes */
	ret = pack_rmargs(gsp, b, false);
	if (ret)
		goto fail;
	b->suspended = false;
	b->booted = true;
	nvl_info(NVL_CAT_GSP, "gsp: resumed (%u sequencer commands)",
		 b->seq_ops);
	return 0;

fail:
	snprintf(why, sizeof(why), "%s", nvl_error_msg());
	/*
	 * Down again, as a failed boot leaves it: a booter whose wait gave up
	 * may still restore WPR2 and start the GSP, so the teardown lets it
	 * halt first. Still suspended (the save area is the booter's input
	 * only), unless SEC2 did not halt or WPR2 stayed up: no resume can
	 * run then, the device needs a reset.
	 */
	if (booter_ran) {
		teardown(gsp, b);
		if (b->wpr_up || !sec2_halted(gsp))
			nvl_gsp_mark_dead(gsp, "a resume's booter did not halt "
					       "or left WPR2 up");
	}
	atomic_store(&gsp->asleep, true);
	boot_events(gsp, false);
	nvl_gsp_events_settle(gsp, NVL_NSEC_PER_SEC);
	return nvl_error(ret, "gsp: resume failed at '%s': %s", what, why);
}
