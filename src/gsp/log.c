// SPDX-License-Identifier: MIT
/*
 * DOC: firmware log rings
 *
 * LOGINIT, LOGINTR and LOGRM are 64 KiB rings the firmware writes: word 0
 * is the put pointer (bytes ever written), words 1..16 the ring's own page
 * addresses, then the text. After a failure the driver copies what is
 * there into nouvelle's log; the put pointer is the firmware's word, so it
 * is clamped, never trusted.
 */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/priv.h"

#define DATA_OFF (8 * (1 + NVL_GSP_LOG_RING_SIZE / NVL_GSP_PAGE))
#define DATA_SZ (NVL_GSP_LOG_RING_SIZE - DATA_OFF)

static const char *const names[] = {"LOGINIT", "LOGINTR", "LOGRM"};

void nvl_gsp_logs_capture(struct nvl_gsp *gsp)
{
	char esc[NVL_LOG_ESCAPED(1000)];
	char *text = NULL;

	if (!gsp->logs_ready)
		return;
	text = nvl_malloc(DATA_SZ + 1);
	if (!text)
		return;
	for (unsigned r = 0; r < NVL_ARRAY_SIZE(names); r++) {
		const uint8_t *ring = gsp->logs[r].mem;
		uint64_t put;
		size_t n, start;
		char *line, *save = NULL;

		if (!ring)
			continue;
		memcpy(&put, ring, 8);
		n = put > DATA_SZ ? DATA_SZ : (size_t)put;
		start = (size_t)((put - n) % DATA_SZ);
		for (size_t i = 0; i < n; i++)
			text[i] = (char)ring[DATA_OFF + (start + i) % DATA_SZ];
		text[n] = 0;
		/* the firmware's bytes: escaped, a line a message */
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			nvl_warn(NVL_CAT_GSP, "gsp %s: %s", names[r],
				 nvl_log_escape(esc, sizeof(esc), line,
						SIZE_MAX));
	}
	nvl_free(text);
}

void nvl_gsp_logs_free(struct nvl_gsp *gsp)
{
	for (unsigned r = 0; r < NVL_ARRAY_SIZE(gsp->logs); r++) {
		if (!gsp->logs[r].mem)
			continue;
		nvl_hw_dma_unmap(gsp->hw, gsp->logs[r].dma, gsp->logs[r].size);
		nvl_free(gsp->logs[r].mem);
		gsp->logs[r].mem = NULL;
	}
	gsp->logs_ready = false;
}
