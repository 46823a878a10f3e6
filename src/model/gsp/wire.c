// SPDX-License-Identifier: MIT
/* Selection of the per-version wire formats (wire_ver.c, one per version). */
#include <string.h>

#include "base/compiler.h"
#include "model/gsp/wire.h"

extern const struct nvl_fw_wire nvl_fw_wire_r535_54_03;
extern const struct nvl_fw_wire nvl_fw_wire_r535_113_01;
extern const struct nvl_fw_wire nvl_fw_wire_r570_144;

static const struct nvl_fw_wire *const wires[] = {
	&nvl_fw_wire_r535_113_01, /* the default first */
	&nvl_fw_wire_r535_54_03,
	&nvl_fw_wire_r570_144,
};

const struct nvl_fw_wire *nvl_fw_wire_find(const char *version)
{
	for (size_t i = 0; version && i < NVL_ARRAY_SIZE(wires); i++)
		if (!strcmp(wires[i]->version, version))
			return wires[i];
	return wires[0];
}
