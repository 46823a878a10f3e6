// SPDX-License-Identifier: MIT
/*
 * DOC: GSP ELF image parser
 *
 * gsp-<ver>.bin is an ELF64 file (NVIDIA ships it as gsp_tu10x.bin and
 * gsp_ga10x.bin; linux-firmware renames and links it per chip). The
 * driver needs three kinds of section:
 *
 *  .fwimage                the GSP-RM image, mapped for the GSP by radix3
 *  .fwversion              the version string ("535.113.01")
 *  .fwsignature_<family>   the image's signature for one chip family
 *
 * libelf walks the section table. Before libelf sees the buffer the ELF
 * header and the section header table are checked against the buffer
 * length, and every section the parser uses is checked again: inside the
 * file, not overlapping another section or the header tables. Section data
 * is read through those checked offsets, never through a pointer libelf
 * computed from unchecked ones. A section name in a message is escaped
 * (nvl_log_escape()): it is the file's bytes, and messages reach terminals.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/image.h"

#define FWSIG_PREFIX ".fwsignature_"
#define MAX_SECTIONS 1024

struct range {
	uint64_t start, end;
	unsigned idx;
};

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static bool name_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == 0 || n >= max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

/* The version string: printable, no spaces, NUL padding allowed. */
static int parse_version(const uint8_t *p, size_t n, char *out)
{
	while (n && p[n - 1] == '\0')
		n--;
	if (n == 0 || n >= NVL_GSP_VERSION_LEN)
		return nvl_error(-EBADMSG,
				 "gsp image: .fwversion is %zu characters, "
				 "want 1..%d",
				 n, NVL_GSP_VERSION_LEN - 1);
	for (size_t i = 0; i < n; i++)
		if (p[i] <= ' ' || p[i] > '~')
			return nvl_error(-EBADMSG,
					 "gsp image: .fwversion has a "
					 "non-printable byte 0x%02x at %zu",
					 p[i], i);
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* Checks on the raw ELF header, before libelf reads anything. */
static int check_ehdr(const uint8_t *b, size_t len, Elf64_Ehdr *eh)
{
	uint64_t table;

	if (len < sizeof(*eh))
		return nvl_error(-EBADMSG,
				 "gsp image: %zu bytes is too short for an "
				 "ELF64 header",
				 len);
	memcpy(eh, b, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return nvl_error(-EBADMSG, "gsp image: not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return nvl_error(-EBADMSG,
				 "gsp image: ELF class %u, want "
				 "ELFCLASS64",
				 eh->e_ident[EI_CLASS]);
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return nvl_error(-EBADMSG,
				 "gsp image: not a little-endian ELF");
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return nvl_error(-EBADMSG,
				 "gsp image: section header size %u, want %zu",
				 eh->e_shentsize, sizeof(Elf64_Shdr));
	if (eh->e_shnum == 0 || eh->e_shnum > MAX_SECTIONS)
		return nvl_error(-EBADMSG,
				 "gsp image: %u section headers, want 1..%d",
				 eh->e_shnum, MAX_SECTIONS);
	table = (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	if (eh->e_shoff < sizeof(*eh) || eh->e_shoff > len ||
	    table > len - eh->e_shoff)
		return nvl_error(-EBADMSG,
				 "gsp image: section header table at 0x%llx "
				 "(+0x%llx) is outside the %zu-byte file",
				 (unsigned long long)eh->e_shoff,
				 (unsigned long long)table, len);
	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum)
		return nvl_error(-EBADMSG,
				 "gsp image: section name table index %u of "
				 "%u",
				 eh->e_shstrndx, eh->e_shnum);
	return 0;
}

/* The section name table, checked, with a NUL at its end. */
static int check_shstrtab(const uint8_t *b, size_t len, const Elf64_Ehdr *eh,
			  Elf64_Shdr *strtab)
{
	memcpy(strtab, b + eh->e_shoff + eh->e_shstrndx * sizeof(*strtab),
	       sizeof(*strtab));
	if (strtab->sh_type != SHT_STRTAB || strtab->sh_size == 0 ||
	    strtab->sh_offset > len ||
	    strtab->sh_size > len - strtab->sh_offset)
		return nvl_error(-EBADMSG,
				 "gsp image: section name table (type %u, "
				 "0x%llx+0x%llx) is not a string table inside "
				 "the %zu-byte file",
				 strtab->sh_type,
				 (unsigned long long)strtab->sh_offset,
				 (unsigned long long)strtab->sh_size, len);
	if (b[strtab->sh_offset + strtab->sh_size - 1] != '\0')
		return nvl_error(-EBADMSG,
				 "gsp image: section name table does not end "
				 "in NUL");
	return 0;
}

static int take_section(const uint8_t *b, const char *name,
			const Elf64_Shdr *sh, struct nvl_gsp_elf *out,
			bool *have_image, bool *have_version)
{
	const uint8_t *data = NULL;
	int ret;

	/* Only sections with file data were range-checked by the caller. */
	if (sh->sh_type != SHT_NOBITS && sh->sh_size)
		data = b + sh->sh_offset;

	if (!strcmp(name, ".fwimage")) {
		if (*have_image)
			return nvl_error(-EBADMSG,
					 "gsp image: two .fwimage sections");
		if (!data)
			return nvl_error(-EBADMSG,
					 "gsp image: .fwimage has no data");
		if (sh->sh_size > NVL_GSP_FW_MAX_IMAGE)
			return nvl_error(-EBADMSG,
					 "gsp image: .fwimage is 0x%llx bytes, "
					 "more than the 1 GiB radix3 maps",
					 (unsigned long long)sh->sh_size);
		out->fwimage = data;
		out->fwimage_size = sh->sh_size;
		out->fwimage_offset = sh->sh_offset;
		*have_image = true;
	} else if (!strcmp(name, ".fwversion")) {
		if (*have_version)
			return nvl_error(-EBADMSG,
					 "gsp image: two .fwversion sections");
		if (!data)
			return nvl_error(-EBADMSG,
					 "gsp image: .fwversion has no data");
		ret = parse_version(data, sh->sh_size, out->version);
		if (ret)
			return ret;
		*have_version = true;
	} else if (!strncmp(name, FWSIG_PREFIX, strlen(FWSIG_PREFIX))) {
		const char *fam = name + strlen(FWSIG_PREFIX);
		struct nvl_gsp_sig *sig;

		if (!name_ok(fam, NVL_GSP_FAMILY_LEN)) {
			char esc[NVL_LOG_ESCAPED(40)];

			return nvl_error(
				-EBADMSG,
				"gsp image: bad signature family in "
				"section name '%s'",
				nvl_log_escape(esc, sizeof(esc), name, 40));
		}
		if (nvl_gsp_elf_find_sig(out, fam))
			return nvl_error(-EBADMSG, "gsp image: two %s sections",
					 name);
		if (out->num_sigs == NVL_GSP_ELF_MAX_SIGS)
			return nvl_error(-EBADMSG,
					 "gsp image: more than %d signature "
					 "sections",
					 NVL_GSP_ELF_MAX_SIGS);
		if (!data)
			return nvl_error(-EBADMSG, "gsp image: %s is empty",
					 name);
		sig = &out->sigs[out->num_sigs++];
		strcpy(sig->family, fam);
		sig->data = data;
		sig->size = sh->sh_size;
		sig->offset = sh->sh_offset;
	}
	return 0;
}

static int walk_sections(Elf *elf, const uint8_t *b, size_t len,
			 const Elf64_Ehdr *eh, const Elf64_Shdr *strtab,
			 struct range *r, struct nvl_gsp_elf *out)
{
	bool have_image = false, have_version = false;
	unsigned nr = 0;
	Elf_Scn *scn = NULL;
	int ret;

	/* The ELF header and the section header table are ranges too. */
	r[nr++] = (struct range){0, sizeof(*eh), 0};
	r[nr++] = (struct range){
		eh->e_shoff,
		eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), 0};
	elf_errno(); /* clear a stale error */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf64_Shdr s;
		const char *name;
		size_t idx = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &sh))
			return nvl_error(
				-EBADMSG,
				"gsp image: section %zu unreadable: %s", idx,
				elf_errmsg(-1));
		if (sh.sh_name >= strtab->sh_size)
			return nvl_error(-EBADMSG,
					 "gsp image: section %zu name offset "
					 "%u is outside the name table",
					 idx, sh.sh_name);
		name = (const char *)b + strtab->sh_offset + sh.sh_name;
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			goto take;
		if (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset) {
			char esc[NVL_LOG_ESCAPED(40)];

			return nvl_error(
				-EBADMSG,
				"gsp image: section %zu '%s' at "
				"0x%llx+0x%llx ends past the %zu-byte "
				"file",
				idx, nvl_log_escape(esc, sizeof(esc), name, 40),
				(unsigned long long)sh.sh_offset,
				(unsigned long long)sh.sh_size, len);
		}
		r[nr++] = (struct range){
			sh.sh_offset, sh.sh_offset + sh.sh_size, (unsigned)idx};
	take:
		s.sh_type = sh.sh_type;
		s.sh_offset = sh.sh_offset;
		s.sh_size = sh.sh_size;
		ret = take_section(b, name, &s, out, &have_image,
				   &have_version);
		if (ret)
			return ret;
	}
	if (elf_errno())
		return nvl_error(-EBADMSG, "gsp image: section walk: %s",
				 elf_errmsg(-1));
	if (!have_image)
		return nvl_error(-EBADMSG, "gsp image: no .fwimage section");
	if (!have_version)
		return nvl_error(-EBADMSG, "gsp image: no .fwversion section");

	qsort(r, nr, sizeof(*r), range_cmp);
	for (unsigned i = 1; i < nr; i++)
		if (r[i].start < r[i - 1].end)
			return nvl_error(
				-EBADMSG,
				"gsp image: section %u (0x%llx..0x%llx)"
				" overlaps %s%u (0x%llx..0x%llx)",
				r[i].idx, (unsigned long long)r[i].start,
				(unsigned long long)r[i].end,
				r[i - 1].idx ? "section " : "the ELF headers ",
				r[i - 1].idx,
				(unsigned long long)r[i - 1].start,
				(unsigned long long)r[i - 1].end);
	return 0;
}

int nvl_gsp_elf_parse(const void *buf, size_t len, struct nvl_gsp_elf *out)
{
	const uint8_t *b = buf;
	struct nvl_gsp_elf tmp;
	struct range *r;
	Elf64_Ehdr eh;
	Elf64_Shdr strtab;
	Elf *elf;
	int ret;

	if (!buf || !out)
		return nvl_error(-EINVAL, "gsp image: no buffer");
	ret = check_ehdr(b, len, &eh);
	if (ret)
		return ret;
	ret = check_shstrtab(b, len, &eh, &strtab);
	if (ret)
		return ret;

	r = nvl_calloc(eh.e_shnum + 2u, sizeof(*r));
	if (!r)
		return nvl_error(-ENOMEM, "gsp image: out of memory");
	/* libelf allocates with malloc: let failure injection see it. */
	ret = nvl_might_alloc(4096);
	if (ret) {
		nvl_free(r);
		return nvl_error(ret, "gsp image: out of memory");
	}
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)b, len);
	if (!elf) {
		nvl_free(r);
		return nvl_error(-EBADMSG, "gsp image: libelf: %s",
				 elf_errmsg(-1));
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.num_sections = eh.e_shnum;
	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)
		ret = nvl_error(-EBADMSG, "gsp image: libelf: not ELF64");
	else
		ret = walk_sections(elf, b, len, &eh, &strtab, r, &tmp);
	elf_end(elf);
	nvl_free(r);
	if (ret)
		return ret;
	*out = tmp;
	return 0;
}

const struct nvl_gsp_sig *nvl_gsp_elf_find_sig(const struct nvl_gsp_elf *elf,
					       const char *family)
{
	if (!elf || !family)
		return NULL;
	for (unsigned i = 0; i < elf->num_sigs; i++)
		if (!strcmp(elf->sigs[i].family, family))
			return &elf->sigs[i];
	return NULL;
}
