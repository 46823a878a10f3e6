// SPDX-License-Identifier: MIT
/*
 * `nvl fw info FILE` and `nvl fw verify FILE`: describe or check one GSP
 * firmware file (gsp ELF image, booter, bootloader; plain, .zst or .xz),
 * NVIDIA's linux-firmware files included.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/alloc.h"
#include "base/log.h"
#include "firmware/nvl_fw_manifest.h"
#include "model/gsp/booter_sig.h"
#include "fw.h"
#include "term.h"

enum kind { K_ELF, K_BOOTER, K_BOOTLOADER };

struct file {
	const char *path;
	uint8_t *data;
	size_t size;
	enum nvl_gsp_fw_comp comp;
	enum kind kind;
	struct nvl_gsp_elf elf;
	struct nvl_gsp_booter booter;
	struct nvl_gsp_bootloader bl;
};

const char *nvl_fw_comp_name(enum nvl_gsp_fw_comp c)
{
	return c == NVL_GSP_FW_ZSTD ? "zstd"
	       : c == NVL_GSP_FW_XZ ? "xz"
				    : "plain";
}

void nvl_fw_human(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1u << 20))
		snprintf(buf, size, "%.1f MiB", bytes / 1048576.0);
	else if (bytes >= 1024)
		snprintf(buf, size, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
}

/* Read and parse @path; on error print why and return nonzero. */
static int open_file(const char *path, struct file *f)
{
	const char *base = strrchr(path, '/');
	int ret;

	memset(f, 0, sizeof(*f));
	f->path = path;
	base = base ? base + 1 : path;
	ret = nvl_gsp_fw_read_file(path, &f->data, &f->size, &f->comp);
	if (ret)
		goto err;
	if (f->size >= 4 && !memcmp(f->data, ELFMAG, SELFMAG)) {
		f->kind = K_ELF;
		ret = nvl_gsp_elf_parse(f->data, f->size, &f->elf);
	} else if (!strncmp(base, "bootloader", 10)) {
		f->kind = K_BOOTLOADER;
		ret = nvl_gsp_bootloader_parse(f->data, f->size, &f->bl);
	} else if (!strncmp(base, "booter", 6)) {
		f->kind = K_BOOTER;
		ret = nvl_gsp_booter_parse(f->data, f->size, &f->booter);
	} else {
		/* Unknown name: a booter if it parses as one, else a loader */
		f->kind = K_BOOTER;
		ret = nvl_gsp_booter_parse(f->data, f->size, &f->booter);
		if (ret) {
			f->kind = K_BOOTLOADER;
			ret = nvl_gsp_bootloader_parse(f->data, f->size,
						       &f->bl);
		}
	}
	if (!ret)
		return 0;
err:
	/* the library's message names the file when it read it */
	if (strstr(nvl_error_msg(), path))
		nvl_tool_fail("fw", "%s", nvl_error_msg());
	else
		nvl_tool_fail("fw", "%s: %s", path, nvl_error_msg());
	nvl_free(f->data);
	f->data = NULL;
	return 1;
}

static const char *kind_name(enum kind k)
{
	return k == K_ELF      ? "GSP ELF image"
	       : k == K_BOOTER ? "booter (SEC2 HS ucode)"
			       : "bootloader (RISC-V ucode)";
}

static bool get_manifest(const struct file *f, struct nvl_fw_manifest *m)
{
	if (f->elf.fwimage_size < sizeof(*m))
		return false;
	memcpy(m, f->elf.fwimage, sizeof(*m));
	return m->magic == NVL_FW_MANIFEST_MAGIC;
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/*
 * @s for the terminal: a hostile file's section name is any bytes but NUL;
 * control bytes and non-ASCII ones print as \xNN (no escape sequence, no
 * forged line), as readelf escapes them: the library's escaping, the one
 * its messages use
 */
static const char *shown(const char *s, char *out, size_t n)
{
	return nvl_log_escape(out, n, s, SIZE_MAX);
}

static void info_elf(const struct file *f)
{
	const uint8_t *b = f->data;
	Elf64_Ehdr eh;
	Elf64_Shdr str;
	struct nvl_fw_manifest m;
	char h[32];

	memcpy(&eh, b, sizeof(eh));
	memcpy(&str, b + eh.e_shoff + eh.e_shstrndx * sizeof(str), sizeof(str));
	printf("version:    %s\n", f->elf.version);
	printf("sections:   %u\n", eh.e_shnum);
	printf("  %-4s %-24s %-10s %-12s %s\n", "idx", "name", "offset", "size",
	       "");
	/* The parser checked the table and every name offset. */
	for (unsigned i = 1; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		char name[128];

		memcpy(&sh, b + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		nvl_fw_human(sh.sh_size, h, sizeof(h));
		printf("  %-4u %-24s 0x%-8llx 0x%-10llx %s\n", i,
		       shown((const char *)b + str.sh_offset + sh.sh_name, name,
			     sizeof(name)),
		       (unsigned long long)sh.sh_offset,
		       (unsigned long long)sh.sh_size, h);
	}
	nvl_fw_human(f->elf.fwimage_size, h, sizeof(h));
	printf(".fwimage:   0x%zx bytes (%s) at 0x%llx\n", f->elf.fwimage_size,
	       h, (unsigned long long)f->elf.fwimage_offset);
	printf("signatures: %u:", f->elf.num_sigs);
	for (unsigned i = 0; i < f->elf.num_sigs; i++)
		printf(" %s (%zu bytes)%s", f->elf.sigs[i].family,
		       f->elf.sigs[i].size, i + 1 < f->elf.num_sigs ? "," : "");
	printf("\n");
	if (get_manifest(f, &m)) {
		char sha[65], ver[sizeof(m.version) + 1],
			fam[sizeof(m.image_family) + 1], v[140], fa[40];

		hex(m.payload_sha256, 32, sha);
		snprintf(ver, sizeof(ver), "%.*s", (int)sizeof(m.version),
			 m.version);
		snprintf(fam, sizeof(fam), "%.*s", (int)sizeof(m.image_family),
			 m.image_family);
		printf("manifest:   nouvelle image v%u: version %s, image "
		       "%s, LIBOS %u\n"
		       "            payload 0x%llx+0x%llx sha256 %s\n",
		       m.manifest_version, shown(ver, v, sizeof(v)),
		       shown(fam, fa, sizeof(fa)), m.libos_version,
		       (unsigned long long)m.payload_offset,
		       (unsigned long long)m.payload_size, sha);
	} else {
		printf("manifest:   none (not a nouvelle image)\n");
	}
}

static void info_bin(const struct nvl_fw_bin_hdr *h)
{
	printf("nvfw_bin_hdr: magic 0x%x ver %u size 0x%x header_offset 0x%x "
	       "data_offset 0x%x data_size 0x%x\n",
	       h->bin_magic, h->bin_ver, h->bin_size, h->header_offset,
	       h->data_offset, h->data_size);
}

static void info_booter(const struct nvl_gsp_booter *b)
{
	info_bin(&b->bin);
	printf("HS header v2 at 0x%x: sig_prod 0x%x+0x%x, patch_loc @0x%x = "
	       "0x%x, patch_sig @0x%x = 0x%x, meta 0x%x+0x%x, num_sig @0x%x "
	       "= %u, load header 0x%x+0x%x\n",
	       b->bin.header_offset, b->sig_prod_offset, b->sig_prod_size,
	       b->patch_loc_off, b->patch_loc, b->patch_sig_off, b->patch_sig,
	       b->meta_data_offset, b->meta_data_size, b->num_sig_off,
	       b->num_sig, b->load_header_offset, b->load_header_size);
	printf("metadata: fuse_ver %u engine_id 0x%x ucode_id 0x%x\n",
	       b->fuse_ver, b->engine_id, b->ucode_id);
	printf("signatures: %u x %u bytes\n", b->num_sig, b->sig_size);
	printf("load header v2: os_code 0x%x+0x%x os_data 0x%x+0x%x "
	       "num_apps %u\n",
	       b->os_code_offset, b->os_code_size, b->os_data_offset,
	       b->os_data_size, b->num_apps);
	for (unsigned i = 0; i < b->num_apps; i++)
		printf("  app[%u]: 0x%x+0x%x\n", i, b->apps[i].offset,
		       b->apps[i].size);
	printf("payload: 0x%x+0x%zx\n", b->bin.data_offset, b->payload_size);
}

static void info_bootloader(const struct nvl_gsp_bootloader *l)
{
	const struct nvl_gsp_riscv_desc *d = &l->desc;

	info_bin(&l->bin);
	printf("RISC-V ucode desc at 0x%x: version %u appVersion %u\n"
	       "  bootloader 0x%x+0x%x param 0x%x+0x%x elf 0x%x+0x%x\n"
	       "  monitorCode 0x%x+0x%x monitorData 0x%x+0x%x "
	       "manifest 0x%x+0x%x\n"
	       "  monitor %s, fbReservedSize 0x%x, signedAsCode %u\n",
	       l->bin.header_offset, d->version, d->app_version,
	       d->bootloader_offset, d->bootloader_size,
	       d->bootloader_param_offset, d->bootloader_param_size,
	       d->riscv_elf_offset, d->riscv_elf_size, d->monitor_code_offset,
	       d->monitor_code_size, d->monitor_data_offset,
	       d->monitor_data_size, d->manifest_offset, d->manifest_size,
	       d->is_monitor_enabled ? "enabled" : "disabled",
	       d->fb_reserved_size, d->signed_as_code);
	printf("payload: 0x%x+0x%zx\n", l->bin.data_offset, l->payload_size);
}

int nvl_fw_info(const char *path)
{
	struct file f;
	char h[32];

	if (open_file(path, &f))
		return 1;
	nvl_fw_human(f.size, h, sizeof(h));
	printf("file:       %s\n", path);
	printf("kind:       %s, %s, %zu bytes (%s)\n", kind_name(f.kind),
	       nvl_fw_comp_name(f.comp), f.size, h);
	if (f.kind == K_ELF)
		info_elf(&f);
	else if (f.kind == K_BOOTER)
		info_booter(&f.booter);
	else
		info_bootloader(&f.bl);
	nvl_free(f.data);
	return 0;
}

static int verify_manifest(const struct file *f,
			   const struct nvl_fw_manifest *m)
{
	uint8_t digest[32];
	unsigned int dlen = 32;
	int bad = 0;

	if (strncmp(m->version, f->elf.version, sizeof(m->version))) {
		char ver[sizeof(m->version) + 1], v[140];

		snprintf(ver, sizeof(ver), "%.*s", (int)sizeof(m->version),
			 m->version);
		printf("manifest: version '%s' != .fwversion '%s': BAD\n",
		       shown(ver, v, sizeof(v)), f->elf.version);
		bad = 1;
	}
	if (m->image_size != f->elf.fwimage_size ||
	    m->payload_offset > m->image_size ||
	    m->payload_size != m->image_size - m->payload_offset) {
		printf("manifest: sizes do not match .fwimage: BAD\n");
		return 1;
	}
	if (EVP_Digest(f->elf.fwimage + m->payload_offset, m->payload_size,
		       digest, &dlen, EVP_sha256(), NULL) != 1 ||
	    memcmp(digest, m->payload_sha256, 32)) {
		printf("manifest: payload SHA-256 mismatch: BAD\n");
		bad = 1;
	} else {
		printf("manifest: version, sizes, payload SHA-256: good\n");
	}
	return bad;
}

int nvl_fw_verify(const char *path)
{
	struct nvl_fw_manifest m;
	struct file f;
	int bad = 0;

	if (open_file(path, &f)) {
		printf("%s: structure: BAD\n", path);
		return 1;
	}
	printf("%s: structure: good (%s, %s)\n", path, kind_name(f.kind),
	       nvl_fw_comp_name(f.comp));
	if (f.kind == K_ELF && get_manifest(&f, &m)) {
		bad |= verify_manifest(&f, &m);
		for (unsigned i = 0; i < f.elf.num_sigs; i++) {
			const struct nvl_gsp_sig *s = &f.elf.sigs[i];
			int ret = nvl_model_booter_verify(f.elf.fwimage,
							  f.elf.fwimage_size,
							  s->data, s->size);

			printf("signature %s: %s\n", s->family,
			       ret ? "BAD (does not verify with this "
				     "build's key)"
				   : "good");
			bad |= ret != 0;
		}
	} else if (f.kind == K_ELF) {
		printf("signatures: %u sections; not a nouvelle image, so "
		       "they are for the GPU's boot ROM to check\n",
		       f.elf.num_sigs);
	} else if (f.kind == K_BOOTER) {
		unsigned good = 0;

		for (unsigned i = 0; i < f.booter.num_sig; i++) {
			const uint8_t *sig;

			if (!nvl_gsp_booter_sig(&f.booter, i, &sig) &&
			    !nvl_model_booter_verify(f.booter.payload,
						     f.booter.payload_size, sig,
						     f.booter.sig_size))
				good++;
		}
		printf("signatures: %u of %u verify with this build's key%s\n",
		       good, f.booter.num_sig,
		       good ? "" : " (NVIDIA's are checked by the GPU)");
	}
	nvl_free(f.data);
	printf("%s: %s\n", path, bad ? "FAILED" : "OK");
	return bad;
}
