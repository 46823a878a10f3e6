/* SPDX-License-Identifier: MIT */
/* `nvl fw`: shared helpers of cmd_fw.c (list, needed) and fw_info.c. */
#ifndef NVL_TOOL_FW_H
#define NVL_TOOL_FW_H

#include <stddef.h>
#include <stdint.h>

#include "gsp/image.h"

/** Options common to the fw subcommands. */
struct fw_args {
	const char *chips[64];
	unsigned nchips;
	const char *path; /* --path */
	const char *versions; /* --versions a,b */
	int fallbacks; /* --fallbacks */
};

int nvl_fw_info(const char *file);
int nvl_fw_verify(const char *file);
int nvl_fw_list(const struct fw_args *a);
int nvl_fw_needed(const struct fw_args *a);

/* The versions a chip accepts: --versions, else its model profile's. */
const char *const *nvl_fw_chip_versions(const char *chip, const char *override,
					const char **buf, size_t nbuf,
					char *store, size_t store_size);

const char *nvl_fw_comp_name(enum nvl_gsp_fw_comp c);
void nvl_fw_human(uint64_t bytes, char *buf, size_t size);

#endif
