/* SPDX-License-Identifier: MIT */
/* nvl smi: one device sample, the --query-gpu fields and their values. */
#ifndef NVL_TOOL_SMI_H
#define NVL_TOOL_SMI_H

#include <stdbool.h>
#include <stddef.h>

#include "gpus.h"

/** struct smi_sample - what one report shows of one GPU. */
struct smi_sample {
	struct nvl_gpu *gpu;
	unsigned count; /* GPUs in the report */
	char timestamp[32]; /* 2026/12/04 05:20:00.123 */
	int sens_ret; /* nvl_device_sensors(): 0 or why it failed */
	struct nvl_sensors s;
	struct nvl_device_memory m;
	int nclients;
	struct nvl_gpu_client clients[NVL_GPU_CLIENTS_MAX];
};

/** struct smi_field - a --query-gpu field. */
struct smi_field {
	const char *name; /* canonical: the CSV header */
	const char *alias; /* an older or short name, or NULL */
	const char *unit; /* "MiB", "W", ...: in the header and values */
	const char *help;
};

enum smi_val_type { SMI_NA, SMI_NOTSUP, SMI_NUM, SMI_STR };

/** struct smi_val - a field's value in one sample. */
struct smi_val {
	enum smi_val_type t;
	double num;
	int decimals;
	char str[64];
};

const struct smi_field *smi_fields(void);
int smi_field_find(const char *name);
void smi_field_value(int f, const struct smi_sample *x, struct smi_val *v);
/* [N/A], [Not Supported], the string, or the number (with " unit") */
void smi_val_text(const struct smi_val *v, const char *unit, bool units,
		  char *out, size_t len);
void smi_timestamp(char *buf, size_t len);

#endif
