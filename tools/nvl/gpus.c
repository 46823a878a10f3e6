// SPDX-License-Identifier: MIT
/*
 * DOC: the devices nvl smi and nvl top open, and their clients' fdinfo
 *
 * See gpus.h. A model device's PCI address is the model's (bus 1, 2, ...
 * in the order the process opened devices, as drm-pdev says).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gpus.h"
#include "help.h"
#include "term.h"

int64_t nvl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

void nvl_fdinfo_parse(const char *t, struct nvl_gpu_client *c)
{
	memset(c, 0, sizeof(*c));
	c->capacity = 1;
	while (t && *t) {
		const char *eol = strchr(t, '\n');
		const char *colon = strchr(t, ':');
		char k[64], v[128];
		size_t kl, vl;
		uint64_t num;
		char *unit;

		if (!eol)
			eol = t + strlen(t);
		if (!colon || colon > eol)
			goto next;
		kl = (size_t)(colon - t);
		if (kl >= sizeof(k))
			goto next;
		memcpy(k, t, kl);
		k[kl] = 0;
		colon++;
		while (colon < eol && (*colon == ' ' || *colon == '\t'))
			colon++;
		vl = (size_t)(eol - colon);
		if (vl >= sizeof(v))
			vl = sizeof(v) - 1;
		memcpy(v, colon, vl);
		v[vl] = 0;
		num = strtoull(v, &unit, 10);
		while (*unit == ' ')
			unit++;
		if (!strcmp(unit, "KiB"))
			num <<= 10;
		else if (!strcmp(unit, "MiB"))
			num <<= 20;
		/* the longer prefixes first, as IGT does */
		if (!strcmp(k, "drm-client-id"))
			c->id = num;
		else if (!strcmp(k, "drm-client-name"))
			snprintf(c->name, sizeof(c->name), "%.63s", v);
		else if (!strcmp(k, "drm-engine-capacity-copy"))
			c->capacity = num ? (unsigned)num : 1;
		else if (!strcmp(k, "drm-engine-copy")) {
			c->engine_ns = num;
			c->has_engine = true;
		} else if (!strcmp(k, "drm-resident-vram"))
			c->vram_B = num;
		else if (!strcmp(k, "drm-resident-gtt"))
			c->gtt_B = num;
		else if (!strcmp(k, "drm-resident-cpu"))
			c->cpu_B = num;
		else if (!strcmp(k, "drm-total-vram"))
			c->vram_total_B = num;
	next:
		t = *eol ? eol + 1 : eol;
	}
}

int nvl_gpu_clients(struct nvl_gpu *gpu, struct nvl_gpu_client *c, unsigned max)
{
	uint64_t ids[NVL_GPU_CLIENTS_MAX];
	char buf[4096];
	int n = nvl_device_clients(gpu->dev, ids, NVL_GPU_CLIENTS_MAX);
	unsigned k = 0;

	if (n < 0)
		return n;
	if (n > NVL_GPU_CLIENTS_MAX)
		n = NVL_GPU_CLIENTS_MAX;
	for (int i = 0; i < n && k < max; i++) {
		/* a client may go away between the list and its read */
		if (nvl_device_client_fdinfo(gpu->dev, ids[i], buf,
					     sizeof(buf)) < 0)
			continue;
		nvl_fdinfo_parse(buf, &c[k]);
		if (c[k].id == ids[i])
			k++;
	}
	return (int)k;
}

int nvl_gpus_open(struct nvl_gpus *g, const char *specs, const char *cmd)
{
	char *copy, *save = NULL;
	unsigned n = 0;
	int ret = 0;

	memset(g, 0, sizeof(*g));
	if (!specs || !*specs)
		specs = getenv("NVL_DEVICES");
	if (!specs || !*specs)
		specs = "model";
	/* too many devices: refused before booting the first eight */
	for (const char *p = specs; *p; p += strcspn(p, ","), p += !!*p)
		if (p[0] != ',' && ++n > NVL_GPUS_MAX) {
			nvl_tool_fail(cmd, "more than %d devices",
				      NVL_GPUS_MAX);
			return -E2BIG;
		}
	copy = strdup(specs);
	if (!copy)
		return -ENOMEM;
	for (char *s = strtok_r(copy, ",", &save); s;
	     s = strtok_r(NULL, ",", &save)) {
		struct nvl_gpu *gpu = &g->gpu[g->n];
		unsigned bus;

		ret = nvl_device_open(s, NULL, &gpu->dev);
		if (ret) {
			nvl_tool_fail(cmd, "cannot open '%s': %s", s,
				      nvl_last_error());
			break;
		}
		nvl_device_query(gpu->dev, &gpu->info);
		gpu->index = g->n;
		snprintf(gpu->spec, sizeof(gpu->spec), "%s", s);
		/* the model's PCI address, as its clients' drm-pdev says */
		{
			char fd[4096];
			struct nvl_client *c;
			const char *p;

			bus = g->n + 1;
			if (!nvl_device_client_create(gpu->dev, &c)) {
				if (nvl_client_fdinfo(c, fd, sizeof(fd)) > 0 &&
				    (p = strstr(fd, "drm-pdev:\t0000:")))
					bus = (unsigned)strtoul(p + 15, NULL,
								16);
				nvl_client_destroy(c);
			}
		}
		snprintf(gpu->bus_id, sizeof(gpu->bus_id), "00000000:%02X:00.0",
			 bus);
		g->n++;
	}
	free(copy);
	/* "," or NVL_DEVICES=",": no device is not an empty report */
	if (!ret && !g->n) {
		nvl_tool_fail(cmd, "'%s' names no device", specs);
		ret = -EINVAL;
	}
	if (ret)
		nvl_gpus_close(g);
	return ret;
}

bool nvl_gpus_specs_valid(const char *specs)
{
	for (; specs && *specs; specs++)
		if (*specs != ',')
			return true;
	return false;
}

void nvl_gpus_close(struct nvl_gpus *g)
{
	for (unsigned i = 0; i < g->n; i++)
		nvl_device_close(g->gpu[i].dev);
	g->n = 0;
}

static bool bus_match(const char *id, const char *bus)
{
	/* 00000000:01:00.0 or 0000:01:00.0 or 01:00.0 */
	size_t li = strlen(id), lb = strlen(bus);

	return li <= lb && li >= 7 && !strcasecmp(bus + lb - li, id) &&
	       (li == lb || bus[lb - li - 1] == ':' || bus[lb - li - 1] == '0');
}

int nvl_gpus_select(struct nvl_gpus *g, const char *ids, char *bad)
{
	bool keep[NVL_GPUS_MAX] = {0};
	char *copy = strdup(ids), *save = NULL;
	unsigned k = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *s = strtok_r(copy, ",", &save); s;
	     s = strtok_r(NULL, ",", &save)) {
		bool found = false;

		while (isspace((unsigned char)*s))
			s++;
		for (unsigned i = 0; i < g->n; i++) {
			/* decimal digits only: strtoul() takes
			 * "-18446744073709551615" for 1 */
			size_t digits = strspn(s, "0123456789");
			bool index = digits && !s[digits] && digits < 10;

			if ((index && strtoul(s, NULL, 10) == i) ||
			    bus_match(s, g->gpu[i].bus_id)) {
				keep[i] = found = true;
			}
		}
		if (!found) {
			snprintf(bad, 64, "%s", s);
			ret = -ENOENT;
			break;
		}
		k++;
	}
	free(copy);
	/* "-i ," names no GPU: not every GPU, nor none */
	if (!ret && !k) {
		snprintf(bad, 64, "%s", ids);
		ret = -ENOENT;
	}
	k = 0;
	if (ret)
		return ret;
	for (unsigned i = 0; i < g->n; i++) {
		if (!keep[i]) {
			nvl_device_close(g->gpu[i].dev);
			continue;
		}
		g->gpu[k++] = g->gpu[i];
	}
	g->n = k;
	return 0;
}
