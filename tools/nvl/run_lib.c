// SPDX-License-Identifier: MIT
/*
 * nvl run: what every workload shares: the device and its clock, clients
 * with a VM, channels, a pushbuffer ring and a timeline, BOs, exec and
 * waits, byte checks, the summary's values, threads. Public API only.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/log.h"
#include "run.h"

/* every client's VM: user VAs from 1 MiB, the driver's range at 2^39 */
#define VA_START RUN_MIB
#define VA_END (1ull << 40)
#define VA_KERNEL (1ull << 39)
#define VA_PB (2 * RUN_MIB)
#define VA_FIRST (64 * RUN_MIB)
#define PB_SIZE (256 * RUN_KIB)
#define PB_SLOT_DW 256u /* 1 KiB per exec */
#define PB_SLOTS (PB_SIZE / (PB_SLOT_DW * 4))

int64_t run_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int run_ctx_open(struct run_ctx *x, const struct run_opts *o,
		 const char *workload, uint64_t vram_mib)
{
	bool thermal = !strcmp(workload, "thermal");
	struct nvl_device_opts dopts = {.vram_size = vram_mib * RUN_MIB,
					.fw_version = o->fw_version};
	int ret;

	memset(x, 0, sizeof(*x));
	x->o = o;
	x->workload = workload;
	pthread_mutex_init(&x->lock, NULL);
	pthread_mutex_init(&x->power_lock, NULL);
	/* setting the power limit is the opener's right (docs/sensors.md) */
	if (o->power_limit_w > 0 || thermal)
		dopts.flags = NVL_DEVICE_OPEN_ADMIN;
	/* a hang is detected after the job timeout: short, to watch it */
	if (!strcmp(workload, "hang"))
		dopts.job_timeout_ms = RUN_HANG_TIMEOUT_MS;
	ret = nvl_device_open(o->spec, &dopts, &x->dev);
	if (ret)
		return ret;
	nvl_device_query(x->dev, &x->info);
	if (o->power_limit_w > 0 || thermal) {
		ret = run_set_power_limit(x, o->power_limit_w);
		if (ret) {
			nvl_device_close(x->dev);
			x->dev = NULL;
			return ret;
		}
	}
	x->t0 = run_now();
	x->deadline = x->t0 + (int64_t)(o->seconds * 1e9);
	return 0;
}

/*
 * Set the board power limit through a client with the right to change
 * device state: @watts, or (0) 40 % of the board's default limit, kept
 * within the firmware's range. The limit set goes into the summary.
 */
int run_set_power_limit(struct run_ctx *x, double watts)
{
	struct nvl_client *adm;
	struct nvl_sensors s;
	uint32_t mw;
	int ret;

	ret = nvl_device_sensors(x->dev, &s);
	if (ret)
		return ret;
	if (!nvl_sensors_has(&s, NVL_SENSOR_POWER_LIMIT))
		return nvl_error(-EOPNOTSUPP, "run: the device has no power "
					      "limit to set");
	mw = watts > 0 ? (uint32_t)(watts * 1000)
		       : (uint32_t)(s.power_default_mw * 0.4);
	if (!(watts > 0) && mw < s.power_min_mw)
		mw = s.power_min_mw;
	/* the firmware's NV_ERR_OUT_OF_RANGE does not say which value */
	if (watts > 0 && (mw < s.power_min_mw || mw > s.power_max_mw))
		return nvl_error(-ERANGE,
				 "run: --power-limit %.2f W is outside the "
				 "board's %.2f .. %.2f W",
				 watts, s.power_min_mw / 1000.0,
				 s.power_max_mw / 1000.0);
	ret = nvl_device_client_create2(x->dev, NVL_CLIENT_DEVICE_STATE, &adm);
	if (ret)
		return ret;
	ret = nvl_device_set_power_limit(adm, mw);
	nvl_client_destroy(adm);
	if (!ret)
		run_stat_set(x, "power_limit_set", "W", mw / 1000.0);
	return ret;
}

void run_ctx_close(struct run_ctx *x)
{
	nvl_device_close(x->dev);
	x->dev = NULL;
	pthread_mutex_destroy(&x->lock);
	pthread_mutex_destroy(&x->power_lock);
}

bool run_should_stop(struct run_ctx *x)
{
	if (atomic_load(&x->stop))
		return true;
	if (run_now() >= x->deadline)
		atomic_store(&x->stop, true);
	return atomic_load(&x->stop);
}

int run_fail(struct run_ctx *x, int err, const char *fmt, ...)
{
	const char *last = nvl_last_error();
	va_list ap;

	pthread_mutex_lock(&x->lock);
	if (!x->error) {
		size_t n;

		x->error = err ? err : -EIO;
		va_start(ap, fmt);
		vsnprintf(x->failure, sizeof(x->failure), fmt, ap);
		va_end(ap);
		n = strlen(x->failure);
		if (err && last && *last && n + 3 < sizeof(x->failure))
			snprintf(x->failure + n, sizeof(x->failure) - n, ": %s",
				 last);
	}
	pthread_mutex_unlock(&x->lock);
	atomic_store(&x->stop, true);
	return err ? err : -EIO;
}

static struct run_stat *stat_find(struct run_ctx *x, const char *key,
				  const char *unit)
{
	for (unsigned int i = 0; i < x->nstats; i++)
		if (!strcmp(x->stats[i].key, key))
			return &x->stats[i];
	if (x->nstats == RUN_MAX_STATS)
		return NULL;
	x->stats[x->nstats] =
		(struct run_stat){.key = key, .unit = unit, .integer = true};
	return &x->stats[x->nstats++];
}

void run_stat_add(struct run_ctx *x, const char *key, const char *unit,
		  double v)
{
	struct run_stat *s;

	pthread_mutex_lock(&x->lock);
	s = stat_find(x, key, unit);
	if (s)
		s->v += v;
	pthread_mutex_unlock(&x->lock);
}

void run_stat_set(struct run_ctx *x, const char *key, const char *unit,
		  double v)
{
	struct run_stat *s;

	pthread_mutex_lock(&x->lock);
	s = stat_find(x, key, unit);
	if (s) {
		s->v = v;
		s->integer = false;
	}
	pthread_mutex_unlock(&x->lock);
}

double run_stat_get(struct run_ctx *x, const char *key)
{
	double v = 0;

	pthread_mutex_lock(&x->lock);
	for (unsigned int i = 0; i < x->nstats; i++)
		if (!strcmp(x->stats[i].key, key))
			v = x->stats[i].v;
	pthread_mutex_unlock(&x->lock);
	return v;
}

int run_client_open(struct run_ctx *x, const char *name, unsigned int nchan,
		    struct run_client **out)
{
	struct nvl_vm_create_args va = {.start = VA_START,
					.end = VA_END,
					.kernel_start = VA_KERNEL,
					.kernel_range = NVL_EXEC_KERNEL_RANGE};
	struct nvl_vm_bind_op op = {
		.op = NVL_VM_BIND_OP_MAP, .addr = VA_PB, .range = PB_SIZE};
	struct run_client *cl;
	int ret;

	*out = NULL;
	if (nchan < 1 || nchan > RUN_MAX_CHANNELS)
		return run_fail(x, -EINVAL, "%u channels per client", nchan);
	cl = nvl_calloc(1, sizeof(*cl));
	if (!cl)
		return run_fail(x, -ENOMEM, "client %s", name);
	cl->x = x;
	snprintf(cl->name, sizeof(cl->name), "%s", name);
	cl->va_next = VA_FIRST;
	for (unsigned int e = 0; e < NVL_REC_MAX_ENGINES; e++)
		cl->busy_ns[e] = UINT64_MAX;
	ret = nvl_device_client_create(x->dev, &cl->c);
	if (ret) {
		nvl_free(cl);
		return run_fail(x, ret, "client %s: create", name);
	}
	ret = nvl_vm_create(cl->c, &va, &cl->vm);
	if (!ret)
		ret = nvl_bo_create(cl->c, PB_SIZE, NVL_BO_DOMAIN_VRAM, 0,
				    NVL_BO_CPU_VISIBLE, &cl->pb);
	if (!ret)
		ret = nvl_bo_map(cl->c, cl->pb, (void **)&cl->ppb);
	op.handle = cl->pb;
	if (!ret)
		ret = nvl_vm_bind(cl->c, cl->vm, 0, &op, 1, NULL, 0, NULL, 0,
				  0);
	if (!ret)
		ret = nvl_syncobj_create(cl->c, 0, &cl->tl);
	for (unsigned int i = 0; !ret && i < nchan; i++) {
		ret = nvl_channel_create(cl->c, cl->vm, NVL_ENGINE_COPY, 0,
					 &cl->chan[i]);
		if (!ret)
			cl->nchan++;
	}
	if (ret) {
		run_fail(x, ret, "client %s: VM, pushbuffer or channel", name);
		run_client_close(cl);
		return ret;
	}
	pthread_mutex_lock(&x->lock);
	cl->id = x->next_id++;
	if (x->nclients < RUN_MAX_CLIENTS)
		x->clients[x->nclients++] = cl;
	pthread_mutex_unlock(&x->lock);
	*out = cl;
	return 0;
}

void run_client_close(struct run_client *cl)
{
	struct run_ctx *x;

	if (!cl)
		return;
	x = cl->x;
	pthread_mutex_lock(&x->lock);
	for (unsigned int i = 0; i < x->nclients; i++)
		if (x->clients[i] == cl) {
			x->clients[i] = x->clients[--x->nclients];
			break;
		}
	pthread_mutex_unlock(&x->lock);
	for (unsigned int i = 0; i < cl->nchan; i++)
		nvl_channel_destroy(cl->c, cl->chan[i]);
	if (cl->ppb)
		nvl_bo_unmap(cl->c, cl->pb);
	nvl_client_destroy(cl->c);
	nvl_free(cl);
}

int run_client_unmap_pb(struct run_client *cl)
{
	if (cl->ppb) {
		nvl_bo_unmap(cl->c, cl->pb);
		cl->ppb = NULL;
	}
	return 0;
}

int run_client_map_pb(struct run_client *cl)
{
	int ret;

	if (cl->ppb)
		return 0;
	ret = nvl_bo_map(cl->c, cl->pb, (void **)&cl->ppb);
	if (ret) {
		cl->ppb = NULL;
		return run_fail(cl->x, ret, "client %s: map the pushbuffer",
				cl->name);
	}
	return 0;
}

uint64_t run_va(struct run_client *cl, uint64_t size)
{
	uint64_t va = cl->va_next;

	cl->va_next += (size + 64 * RUN_KIB - 1) & ~(64 * RUN_KIB - 1);
	return va;
}

int run_bo(struct run_client *cl, uint64_t size, uint32_t domains,
	   uint32_t preferred, uint32_t flags, uint32_t *handle, uint64_t *va,
	   void **cpu)
{
	struct nvl_vm_bind_op op = {.op = NVL_VM_BIND_OP_MAP, .range = size};
	int ret;

	ret = nvl_bo_create(cl->c, size, domains, preferred, flags, handle);
	if (ret)
		return run_fail(cl->x, ret, "client %s: BO of %llu KiB",
				cl->name, (unsigned long long)(size >> 10));
	if (cpu) {
		ret = nvl_bo_map(cl->c, *handle, cpu);
		if (ret) {
			nvl_bo_close(cl->c, *handle);
			return run_fail(cl->x, ret, "client %s: map a BO",
					cl->name);
		}
	}
	if (va) {
		*va = op.addr = run_va(cl, size);
		op.handle = *handle;
		ret = nvl_vm_bind(cl->c, cl->vm, 0, &op, 1, NULL, 0, NULL, 0,
				  0);
		if (ret) {
			if (cpu)
				nvl_bo_unmap(cl->c, *handle);
			nvl_bo_close(cl->c, *handle);
			return run_fail(cl->x, ret, "client %s: bind a BO",
					cl->name);
		}
	}
	return 0;
}

int run_exec(struct run_client *cl, unsigned int ch, const uint32_t *dw,
	     uint32_t n, const struct nvl_vm_sync *waits, uint32_t n_waits,
	     uint64_t *point)
{
	return run_exec_sig(cl, ch, dw, n, waits, n_waits, 0, point);
}

int run_exec_sig(struct run_client *cl, unsigned int ch, const uint32_t *dw,
		 uint32_t n, const struct nvl_vm_sync *waits, uint32_t n_waits,
		 uint32_t binary, uint64_t *point)
{
	uint64_t pt = cl->point + 1;
	uint32_t slot = (uint32_t)(pt % PB_SLOTS);
	struct nvl_exec_push p = {.va = VA_PB + slot * PB_SLOT_DW * 4,
				  .len = n * 4};
	struct nvl_vm_sync sig[2] = {{.handle = cl->tl, .point = pt},
				     {.handle = binary}};
	int ret;

	if (!n || n > PB_SLOT_DW || ch >= cl->nchan)
		return run_fail(cl->x, -EINVAL, "exec of %u dwords", n);
	/* the slot's previous user must be done before it is rewritten */
	if (pt > PB_SLOTS) {
		ret = run_wait(cl, pt - PB_SLOTS);
		if (ret)
			return ret;
	}
	memcpy(cl->ppb + slot * PB_SLOT_DW, dw, n * 4);
	ret = nvl_exec(cl->c, cl->chan[ch], &p, 1, waits, n_waits, sig,
		       binary ? 2 : 1, 0);
	if (ret)
		return run_fail(cl->x, ret, "client %s: exec", cl->name);
	cl->point = pt;
	if (point)
		*point = pt;
	return 0;
}

int run_wait(struct run_client *cl, uint64_t point)
{
	int ret = nvl_syncobj_wait(cl->c, &cl->tl, &point, 1,
				   run_now() + RUN_WAIT_NS, 0, NULL);

	if (ret)
		return run_fail(cl->x, ret, "client %s: wait for point %llu",
				cl->name, (unsigned long long)point);
	return 0;
}

int run_check(struct run_ctx *x, const void *got, const void *want, size_t n,
	      const char *what)
{
	const uint8_t *g = got, *w = want;
	size_t i;

	if (!memcmp(got, want, n))
		return 0;
	for (i = 0; i < n && g[i] == w[i]; i++)
		;
	return run_fail(x, -EIO, "%s: byte %zu is %#x, not %#x", what, i, g[i],
			w[i]);
}

static inline uint32_t pattern_word(uint64_t seed, size_t i)
{
	uint64_t v = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0xff51afd7ull);

	return (uint32_t)(v ^ v >> 29);
}

/*
 * The pattern: every 4 KiB page is a page of words of @seed, except its
 * first two words, which name the page (so a page in the wrong place is
 * caught too); checked with memcmp, fast in any build.
 */
#define PAT_PAGE 4096u

static void pattern_page(uint32_t *ref, uint64_t seed)
{
	for (size_t i = 0; i < PAT_PAGE / 4; i++)
		ref[i] = pattern_word(seed, i);
}

void run_pattern(void *p, size_t n, uint64_t seed)
{
	uint32_t ref[PAT_PAGE / 4];
	uint8_t *b = p;

	pattern_page(ref, seed);
	for (size_t off = 0, pg = 0; off < n; off += PAT_PAGE, pg++) {
		size_t len = n - off < PAT_PAGE ? n - off : PAT_PAGE;

		ref[0] = pattern_word(seed, pg) ^ 0xa5a5a5a5u;
		ref[1] = (uint32_t)pg;
		memcpy(b + off, ref, len);
	}
}

int run_pattern_check(struct run_ctx *x, const void *p, size_t n, uint64_t seed,
		      const char *what)
{
	uint32_t ref[PAT_PAGE / 4];
	const uint8_t *b = p;

	pattern_page(ref, seed);
	for (size_t off = 0, pg = 0; off < n; off += PAT_PAGE, pg++) {
		size_t len = n - off < PAT_PAGE ? n - off : PAT_PAGE;

		ref[0] = pattern_word(seed, pg) ^ 0xa5a5a5a5u;
		ref[1] = (uint32_t)pg;
		if (memcmp(b + off, ref, len)) {
			char at[160];

			snprintf(at, sizeof(at), "%s, page at +%#zx", what,
				 off);
			return run_check(x, b + off, ref, len, at);
		}
	}
	return 0;
}

uint32_t run_gpu_word(uint64_t seed)
{
	return (uint32_t)(seed * 0x9e3779b1u) | 1u;
}

int run_gpu_words_check(struct run_ctx *x, const uint32_t *p, size_t n,
			uint32_t want, const char *what)
{
	for (size_t k = 0; k < n; k++)
		if (p[k] != want)
			return run_fail(x, -EIO,
					"%s: GPU-written word %zu is %#x, not "
					"%#x",
					what, k, p[k], want);
	return 0;
}

struct thread_arg {
	struct run_ctx *x;
	unsigned int i;
	int (*fn)(struct run_ctx *x, unsigned int i, void *arg);
	void *arg;
	int ret;
};

static void *thread_main(void *p)
{
	struct thread_arg *t = p;

	t->ret = t->fn(t->x, t->i, t->arg);
	return NULL;
}

int run_threads(struct run_ctx *x, unsigned int n,
		int (*fn)(struct run_ctx *x, unsigned int i, void *arg),
		void *arg)
{
	struct thread_arg *t = nvl_calloc(n, sizeof(*t));
	pthread_t *th = nvl_calloc(n, sizeof(*th));
	unsigned int started = 0;
	int ret = 0;

	if (!t || !th) {
		nvl_free(t);
		nvl_free(th);
		return run_fail(x, -ENOMEM, "threads");
	}
	for (unsigned int i = 0; i < n; i++) {
		t[i] = (struct thread_arg){
			.x = x, .i = i, .fn = fn, .arg = arg};
		if (pthread_create(&th[i], NULL, thread_main, &t[i])) {
			ret = run_fail(x, -EAGAIN, "cannot start thread %u", i);
			break;
		}
		started++;
	}
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (!ret)
			ret = t[i].ret;
	}
	nvl_free(t);
	nvl_free(th);
	return ret;
}
