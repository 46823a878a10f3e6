// SPDX-License-Identifier: MIT
/*
 * Fuzz the recorded time-series reader (tools/nvl/record.h) and its JSON
 * reader: any input is either rejected with -EINVAL (a "NAME:LINE: ..."
 * message) or -ENOMEM, or read into a recording whose invariants hold.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "../../tools/nvl/json.h"
#include "../../tools/nvl/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvl_record *r;
	struct nvl_json *j;
	int ret;

	ret = nvl_json_parse((const char *)data, size, &j);
	if (ret != 0 && ret != -EINVAL && ret != -ENOMEM)
		abort();
	nvl_json_free(j);

	ret = nvl_record_parse((const char *)data, size, "fuzz", &r);
	if (ret) {
		if ((ret != -EINVAL && ret != -ENOMEM) || r)
			abort();
		if (ret == -EINVAL && strncmp(nvl_error_msg(), "fuzz:", 5))
			abort();
		return 0;
	}
	if (!r->ndev || r->ndev > NVL_REC_MAX_DEVICES ||
	    r->nclients > NVL_REC_MAX_CLIENTS || r->nsamples > r->cap)
		abort();
	for (size_t i = 0; i < r->nsamples; i++)
		if (!isfinite(r->t[i]) || (i && r->t[i] < r->t[i - 1]))
			abort();
	for (unsigned int s = 0; s < r->nseries; s++)
		for (size_t i = 0; i < r->nsamples; i++)
			if (isinf(r->series[s].v[i]))
				abort();
	nvl_record_free(r);
	return 0;
}
