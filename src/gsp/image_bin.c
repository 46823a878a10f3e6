// SPDX-License-Identifier: MIT
/*
 * DOC: booter and bootloader file parsers
 *
 * The small GSP files start with nvfw_bin_hdr (six little-endian u32:
 * bin_magic 0x10de, bin_ver 1, bin_size, header_offset, data_offset,
 * data_size). header_offset leads to the next header: for booters the HS
 * header v2 (nine u32: sig_prod_offset, sig_prod_size, patch_loc,
 * patch_sig, meta_data_offset, meta_data_size, num_sig, header_offset,
 * header_size; patch_loc, patch_sig and num_sig are offsets of the words
 * holding the values) and, through its header_offset, the load header v2
 * (os_code_offset, os_code_size, os_data_offset, os_data_size, num_apps,
 * then num_apps (offset, size) pairs); for the bootloader the RISC-V ucode
 * descriptor (RM_RISCV_UCODE_DESC, 21 u32).
 *
 * Every offset is checked against the file length before it is followed,
 * every payload-relative range against data_size, in 64-bit arithmetic so
 * that no sum wraps; the headers, signatures and payload must not overlap.
 */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "gsp/image.h"

#define BIN_HDR_SIZE 24u
#define HS_HDR_V2_SIZE 36u
#define LOAD_HDR_V2_FIXED 20u
#define RISCV_DESC_SIZE 84u
#define MAX_NUM_SIG 64u

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* [off, off + size) lies within [0, len). */
static bool in_file(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

static int read_word(const uint8_t *b, size_t len, uint32_t off,
		     const char *file, const char *what, uint32_t *val)
{
	if (!in_file(off, 4, len))
		return nvl_error(-EBADMSG,
				 "%s: %s word at 0x%x is outside the %zu-byte "
				 "file",
				 file, what, off, len);
	*val = get32(b + off);
	return 0;
}

static int bin_hdr_parse(const uint8_t *b, size_t len, const char *file,
			 struct nvl_fw_bin_hdr *h)
{
	if (len < BIN_HDR_SIZE)
		return nvl_error(-EBADMSG,
				 "%s: %zu bytes is too short for nvfw_bin_hdr",
				 file, len);
	h->bin_magic = get32(b);
	h->bin_ver = get32(b + 4);
	h->bin_size = get32(b + 8);
	h->header_offset = get32(b + 12);
	h->data_offset = get32(b + 16);
	h->data_size = get32(b + 20);
	if (h->bin_magic != NVL_FW_BIN_MAGIC)
		return nvl_error(-EBADMSG, "%s: bin_magic 0x%x, want 0x%x",
				 file, h->bin_magic, NVL_FW_BIN_MAGIC);
	if (h->bin_ver != 1)
		return nvl_error(-EBADMSG, "%s: bin_ver %u, want 1", file,
				 h->bin_ver);
	if (h->header_offset < BIN_HDR_SIZE || h->header_offset >= len)
		return nvl_error(-EBADMSG,
				 "%s: header_offset 0x%x is outside 0x%x..the "
				 "%zu-byte file",
				 file, h->header_offset, BIN_HDR_SIZE, len);
	if (h->data_size == 0 || h->data_offset < BIN_HDR_SIZE ||
	    !in_file(h->data_offset, h->data_size, len))
		return nvl_error(-EBADMSG,
				 "%s: payload 0x%x+0x%x is outside the "
				 "%zu-byte file",
				 file, h->data_offset, h->data_size, len);
	return 0;
}

int nvl_fw_bin_hdr_parse(const void *buf, size_t len,
			 struct nvl_fw_bin_hdr *out)
{
	struct nvl_fw_bin_hdr h;
	int ret;

	if (!buf || !out)
		return nvl_error(-EINVAL, "fw: no buffer");
	ret = bin_hdr_parse(buf, len, "fw", &h);
	if (!ret)
		*out = h;
	return ret;
}

struct region {
	const char *name;
	uint64_t start, size;
};

/* No two non-empty regions overlap. */
static int check_overlaps(const char *file, const struct region *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			if (!r[i].size || !r[j].size)
				continue;
			if (r[i].start < r[j].start + r[j].size &&
			    r[j].start < r[i].start + r[i].size)
				return nvl_error(
					-EBADMSG,
					"%s: %s (0x%llx+0x%llx) overlaps %s "
					"(0x%llx+0x%llx)",
					file, r[i].name,
					(unsigned long long)r[i].start,
					(unsigned long long)r[i].size,
					r[j].name,
					(unsigned long long)r[j].start,
					(unsigned long long)r[j].size);
		}
	return 0;
}

static int in_payload(const char *file, const char *what, uint32_t off,
		      uint32_t size, uint32_t data_size)
{
	if (!in_file(off, size, data_size))
		return nvl_error(-EBADMSG,
				 "%s: %s 0x%x+0x%x is outside the 0x%x-byte "
				 "payload",
				 file, what, off, size, data_size);
	return 0;
}

static int hs_header_parse(const uint8_t *b, size_t len,
			   struct nvl_gsp_booter *o)
{
	const char *f = "booter";
	const uint8_t *p;
	int ret;

	if (!in_file(o->bin.header_offset, HS_HDR_V2_SIZE, len))
		return nvl_error(-EBADMSG,
				 "%s: HS header at 0x%x is cut off by the end "
				 "of the %zu-byte file",
				 f, o->bin.header_offset, len);
	p = b + o->bin.header_offset;
	o->sig_prod_offset = get32(p);
	o->sig_prod_size = get32(p + 4);
	o->patch_loc_off = get32(p + 8);
	o->patch_sig_off = get32(p + 12);
	o->meta_data_offset = get32(p + 16);
	o->meta_data_size = get32(p + 20);
	o->num_sig_off = get32(p + 24);
	o->load_header_offset = get32(p + 28);
	o->load_header_size = get32(p + 32);

	ret = read_word(b, len, o->patch_loc_off, f, "patch_loc",
			&o->patch_loc);
	if (!ret)
		ret = read_word(b, len, o->patch_sig_off, f, "patch_sig",
				&o->patch_sig);
	if (!ret)
		ret = read_word(b, len, o->num_sig_off, f, "num_sig",
				&o->num_sig);
	if (ret)
		return ret;
	if (o->meta_data_size) {
		if (o->meta_data_size < 12 ||
		    !in_file(o->meta_data_offset, o->meta_data_size, len))
			return nvl_error(-EBADMSG,
					 "%s: metadata 0x%x+0x%x is not 12+ "
					 "bytes inside the %zu-byte file",
					 f, o->meta_data_offset,
					 o->meta_data_size, len);
		o->fuse_ver = get32(b + o->meta_data_offset);
		o->engine_id = get32(b + o->meta_data_offset + 4);
		o->ucode_id = get32(b + o->meta_data_offset + 8);
	}
	if (o->num_sig == 0 || o->num_sig > MAX_NUM_SIG)
		return nvl_error(-EBADMSG, "%s: num_sig %u, want 1..%u", f,
				 o->num_sig, MAX_NUM_SIG);
	if (o->sig_prod_size == 0 || o->sig_prod_size % o->num_sig)
		return nvl_error(-EBADMSG,
				 "%s: sig_prod_size %u is not a multiple of "
				 "num_sig %u",
				 f, o->sig_prod_size, o->num_sig);
	o->sig_size = o->sig_prod_size / o->num_sig;
	if (!in_file((uint64_t)o->sig_prod_offset + o->patch_sig,
		     o->sig_prod_size, len))
		return nvl_error(-EBADMSG,
				 "%s: signatures 0x%x+0x%x+0x%x are outside "
				 "the %zu-byte file",
				 f, o->sig_prod_offset, o->patch_sig,
				 o->sig_prod_size, len);
	o->sigs = b + o->sig_prod_offset + o->patch_sig;
	return in_payload(f, "signature patch location", o->patch_loc,
			  o->sig_size, o->bin.data_size);
}

static int load_header_parse(const uint8_t *b, size_t len,
			     struct nvl_gsp_booter *o)
{
	const char *f = "booter";
	uint32_t off = o->load_header_offset;
	uint64_t need;
	const uint8_t *p;
	int ret;

	if (o->load_header_size < LOAD_HDR_V2_FIXED ||
	    !in_file(off, o->load_header_size, len))
		return nvl_error(-EBADMSG,
				 "%s: load header 0x%x+0x%x is not 20+ bytes "
				 "inside the %zu-byte file",
				 f, off, o->load_header_size, len);
	p = b + off;
	o->os_code_offset = get32(p);
	o->os_code_size = get32(p + 4);
	o->os_data_offset = get32(p + 8);
	o->os_data_size = get32(p + 12);
	o->num_apps = get32(p + 16);
	if (o->num_apps > NVL_FW_HS_MAX_APPS)
		return nvl_error(-EBADMSG, "%s: num_apps %u, want 0..%d", f,
				 o->num_apps, NVL_FW_HS_MAX_APPS);
	need = LOAD_HDR_V2_FIXED + 8ull * o->num_apps;
	if (need > o->load_header_size)
		return nvl_error(-EBADMSG,
				 "%s: %u apps need a %llu-byte load header, "
				 "header_size is %u",
				 f, o->num_apps, (unsigned long long)need,
				 o->load_header_size);
	ret = in_payload(f, "os code", o->os_code_offset, o->os_code_size,
			 o->bin.data_size);
	if (!ret)
		ret = in_payload(f, "os data", o->os_data_offset,
				 o->os_data_size, o->bin.data_size);
	for (uint32_t i = 0; !ret && i < o->num_apps; i++) {
		o->apps[i].offset = get32(p + 20 + 8 * i);
		o->apps[i].size = get32(p + 24 + 8 * i);
		ret = in_payload(f, "app", o->apps[i].offset, o->apps[i].size,
				 o->bin.data_size);
	}
	return ret;
}

int nvl_gsp_booter_parse(const void *buf, size_t len,
			 struct nvl_gsp_booter *out)
{
	struct nvl_gsp_booter o;
	int ret;

	if (!buf || !out)
		return nvl_error(-EINVAL, "booter: no buffer");
	memset(&o, 0, sizeof(o));
	ret = bin_hdr_parse(buf, len, "booter", &o.bin);
	if (!ret)
		ret = hs_header_parse(buf, len, &o);
	if (!ret)
		ret = load_header_parse(buf, len, &o);
	if (!ret) {
		const struct region r[] = {
			{"nvfw_bin_hdr", 0, BIN_HDR_SIZE},
			{"HS header", o.bin.header_offset, HS_HDR_V2_SIZE},
			{"signatures",
			 (uint64_t)o.sig_prod_offset + o.patch_sig,
			 o.sig_prod_size},
			{"load header", o.load_header_offset,
			 o.load_header_size},
			{"payload", o.bin.data_offset, o.bin.data_size},
		};

		ret = check_overlaps("booter", r, NVL_ARRAY_SIZE(r));
	}
	if (ret)
		return ret;
	o.payload = (const uint8_t *)buf + o.bin.data_offset;
	o.payload_size = o.bin.data_size;
	*out = o;
	return 0;
}

int nvl_gsp_booter_sig(const struct nvl_gsp_booter *b, unsigned index,
		       const uint8_t **sig_out)
{
	if (!b || !sig_out)
		return nvl_error(-EINVAL, "booter: no booter");
	if (index >= b->num_sig)
		return nvl_error(-ENOEXEC,
				 "booter: signature %u requested, the file "
				 "has %u",
				 index, b->num_sig);
	*sig_out = b->sigs + (size_t)index * b->sig_size;
	return 0;
}

int nvl_gsp_bootloader_parse(const void *buf, size_t len,
			     struct nvl_gsp_bootloader *out)
{
	const char *f = "bootloader";
	struct nvl_gsp_bootloader o;
	struct nvl_gsp_riscv_desc *d = &o.desc;
	uint32_t w[RISCV_DESC_SIZE / 4];
	const uint8_t *b = buf;
	int ret;

	if (!buf || !out)
		return nvl_error(-EINVAL, "bootloader: no buffer");
	memset(&o, 0, sizeof(o));
	ret = bin_hdr_parse(b, len, f, &o.bin);
	if (ret)
		return ret;
	if (!in_file(o.bin.header_offset, RISCV_DESC_SIZE, len))
		return nvl_error(-EBADMSG,
				 "%s: RISC-V ucode descriptor at 0x%x is cut "
				 "off by the end of the %zu-byte file",
				 f, o.bin.header_offset, len);
	for (unsigned i = 0; i < NVL_ARRAY_SIZE(w); i++)
		w[i] = get32(b + o.bin.header_offset + 4 * i);
	*d = (struct nvl_gsp_riscv_desc){
		w[0],  w[1],  w[2],  w[3],  w[4],  w[5],  w[6],
		w[7],  w[8],  w[9],  w[10], w[11], w[12], w[13],
		w[14], w[15], w[16], w[17], w[18], w[19], w[20],
	};
	ret = in_payload(f, "monitor code", d->monitor_code_offset,
			 d->monitor_code_size, o.bin.data_size);
	if (!ret)
		ret = in_payload(f, "monitor data", d->monitor_data_offset,
				 d->monitor_data_size, o.bin.data_size);
	if (!ret)
		ret = in_payload(f, "manifest", d->manifest_offset,
				 d->manifest_size, o.bin.data_size);
	if (!ret) {
		const struct region r[] = {
			{"nvfw_bin_hdr", 0, BIN_HDR_SIZE},
			{"descriptor", o.bin.header_offset, RISCV_DESC_SIZE},
			{"payload", o.bin.data_offset, o.bin.data_size},
		};

		ret = check_overlaps(f, r, NVL_ARRAY_SIZE(r));
	}
	if (ret)
		return ret;
	o.payload = b + o.bin.data_offset;
	o.payload_size = o.bin.data_size;
	*out = o;
	return 0;
}

const char *nvl_gsp_chip_family(const char *chip)
{
	static const struct {
		const char *prefix, *family;
	} map[] = {
		{"tu10", "tu10x"}, {"tu11", "tu11x"}, {"ga100", "ga100"},
		{"ga10", "ga10x"}, {"ad10", "ad10x"}, {"gh100", "gh100"},
	};

	/* The model's "tiny" test profile is a small Turing (tu10x). */
	if (chip && !strcmp(chip, "tiny"))
		return "tu10x";
	if (!chip || strlen(chip) != 5)
		return NULL;
	for (size_t i = 0; i < NVL_ARRAY_SIZE(map); i++)
		if (!strncmp(chip, map[i].prefix, strlen(map[i].prefix)))
			return map[i].family;
	return NULL;
}
