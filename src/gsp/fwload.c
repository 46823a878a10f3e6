// SPDX-License-Identifier: MIT
/*
 * DOC: GSP firmware loader
 *
 * Finds a chip's four firmware files in linux-firmware's layout
 * <dir>/nvidia/<chip>/gsp/<name>-<ver>.bin[.zst|.xz], reads, decompresses
 * and parses them, and picks the chip family's signature.
 *
 * Search: the directories of the search path (opts, else $NVL_FIRMWARE_PATH,
 * then the build's images) are tried for each accepted version, newest
 * first. The first directory holding gsp-<ver>.bin (plain, .zst or .xz, in
 * that order) supplies all four files of that version. A version with a
 * file missing falls back to the next older version. Every lookup counts
 * against a bound (opts->max_probes), so a long path list cannot stall a
 * boot, and every path looked up is named in the -ENOENT message.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/log.h"
#include "gsp/image.h"
#include "hw/falcon.h"
#include "nvl_config.h"

#define MAX_DIRS 16
#define MAX_VERSIONS 16
#define TRIED_MAX 3600

static const char *const file_names[NVL_GSP_FW_NUM_FILES] = {
	[NVL_GSP_FW_GSP] = "gsp",
	[NVL_GSP_FW_BOOTER_LOAD] = "booter_load",
	[NVL_GSP_FW_BOOTER_UNLOAD] = "booter_unload",
	[NVL_GSP_FW_BOOTLOADER] = "bootloader",
};

static const char *const comp_suffix[] = {"", ".zst", ".xz"};

int nvl_gsp_fw_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = strtoul(a, (char **)&a, 10);
			unsigned long y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}

int nvl_gsp_fw_search_path(const struct nvl_gsp_fw_opts *opts, char *buf,
			   size_t size)
{
	const char *env = getenv("NVL_FIRMWARE_PATH");
	const char *user = opts && opts->search_path ? opts->search_path : env;
	int n;

	if (user && !*user)
		user = NULL;
	if (opts && opts->no_builtin)
		n = snprintf(buf, size, "%s", user ? user : "");
	else
		n = snprintf(buf, size, "%s%s%s", user ? user : "",
			     user ? ":" : "", NVL_BUILD_FIRMWARE_DIR);
	if (n < 0 || (size_t)n >= size)
		return nvl_error(-ENAMETOOLONG, "gsp fw: search path too long");
	return 0;
}

struct search {
	char list[8192];
	const char *chip;
	char *dirs[MAX_DIRS];
	unsigned ndirs;
	unsigned probes, max_probes;
	char tried[TRIED_MAX];
	size_t tried_len;
	unsigned tried_dropped;
	char pathbuf[4096];
};

static int split_path(struct search *s, char *list)
{
	char *save = NULL;

	for (char *d = strtok_r(list, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		if (s->ndirs == MAX_DIRS)
			return nvl_error(-EINVAL,
					 "gsp fw: more than %d directories in "
					 "the search path",
					 MAX_DIRS);
		s->dirs[s->ndirs++] = d;
	}
	return 0;
}

static void note_tried(struct search *s, const char *path)
{
	size_t n = strlen(path);

	if (s->tried_len + n + 3 >= sizeof(s->tried)) {
		s->tried_dropped++;
		return;
	}
	if (s->tried_len) {
		memcpy(s->tried + s->tried_len, ", ", 2);
		s->tried_len += 2;
	}
	memcpy(s->tried + s->tried_len, path, n + 1);
	s->tried_len += n;
}

/*
 * Look up <dir>/nvidia/<chip>/gsp/<name>-<ver>.bin[suffix] for each
 * compression. Return: 0 with s->pathbuf set, -ENOENT, or -E2BIG when the
 * probe bound is reached.
 */
static int probe(struct search *s, const char *dir, const char *name,
		 const char *ver, enum nvl_gsp_fw_comp *comp)
{
	for (unsigned c = 0; c < NVL_ARRAY_SIZE(comp_suffix); c++) {
		struct stat st;
		int n;

		if (s->probes >= s->max_probes)
			return -E2BIG;
		n = snprintf(s->pathbuf, sizeof(s->pathbuf),
			     "%s/nvidia/%s/gsp/%s-%s.bin%s", dir, s->chip, name,
			     ver, comp_suffix[c]);
		if (n < 0 || (size_t)n >= sizeof(s->pathbuf))
			continue;
		s->probes++;
		note_tried(s, s->pathbuf);
		if (!stat(s->pathbuf, &st) && S_ISREG(st.st_mode)) {
			*comp = (enum nvl_gsp_fw_comp)c;
			return 0;
		}
	}
	return -ENOENT;
}

/* Prefix the last error with the file it concerns. */
static int file_error(int err, const char *path)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), "%s", nvl_error_msg());
	return nvl_error(err, "gsp fw: %s: %s", path, msg);
}

static int load_file(struct nvl_gsp_fw *fw, enum nvl_gsp_fw_file f,
		     const char *path, enum nvl_gsp_fw_comp comp)
{
	int ret;

	fw->paths[f] = nvl_strdup(path);
	if (!fw->paths[f])
		return nvl_error(-ENOMEM, "gsp fw: out of memory");
	ret = nvl_gsp_fw_read_file(path, &fw->data[f], &fw->data_size[f], NULL);
	fw->comp[f] = comp;
	return ret;
}

static int parse_booter(struct nvl_gsp_fw_booter *b, const uint8_t *data,
			size_t len, const char *path, unsigned index)
{
	int ret = nvl_gsp_booter_parse(data, len, &b->hdr);

	if (ret)
		return file_error(ret, path);
	ret = nvl_gsp_booter_sig(&b->hdr, index, &b->sig);
	if (ret)
		return file_error(ret, path);
	b->sig_size = b->hdr.sig_size;
	return 0;
}

static int parse_all(struct nvl_gsp_fw *fw, const struct nvl_gsp_fw_opts *o,
		     const char *ver)
{
	const struct nvl_gsp_sig *sig;
	int ret;

	ret = nvl_gsp_elf_parse(fw->data[0], fw->data_size[0], &fw->elf);
	if (ret)
		return file_error(ret, fw->paths[0]);
	if (strcmp(fw->elf.version, ver))
		return nvl_error(-EBADMSG,
				 "gsp fw: %s: .fwversion says '%s', the file "
				 "name says '%s'",
				 fw->paths[0], fw->elf.version, ver);
	sig = nvl_gsp_elf_find_sig(&fw->elf, fw->family);
	if (!sig)
		return nvl_error(-ENOEXEC,
				 "gsp fw: %s has no .fwsignature_%s section "
				 "for %s",
				 fw->paths[0], fw->family, fw->chip);
	/* the booter takes a signature of at most NVL_HW_BOOTER_SIG_MAX
	 * bytes (the WPR meta's sizeOfSignature): refused here, before
	 * any memory is set aside for the boot, and named */
	if (sig->size > NVL_HW_BOOTER_SIG_MAX)
		return nvl_error(-EFBIG,
				 "gsp fw: %s: .fwsignature_%s has %zu bytes, "
				 "the booter takes at most %u",
				 fw->paths[0], fw->family, (size_t)sig->size,
				 NVL_HW_BOOTER_SIG_MAX);
	fw->fwimage = fw->elf.fwimage;
	fw->fwimage_size = fw->elf.fwimage_size;
	fw->sig = sig->data;
	fw->sig_size = sig->size;

	ret = parse_booter(&fw->booter_load, fw->data[1], fw->data_size[1],
			   fw->paths[1], o->booter_sig_index);
	if (!ret)
		ret = parse_booter(&fw->booter_unload, fw->data[2],
				   fw->data_size[2], fw->paths[2],
				   o->booter_sig_index);
	if (ret)
		return ret;
	ret = nvl_gsp_bootloader_parse(fw->data[3], fw->data_size[3],
				       &fw->bootloader);
	if (ret)
		return file_error(ret, fw->paths[3]);
	return 0;
}

/*
 * Find the four files of one version. Return: 0 with @ch filled, -ENOENT
 * (fall back to the next version) or -E2BIG (probe bound reached).
 */
static int find_version(struct search *s, const char *ver,
			struct nvl_gsp_fw_choice *ch)
{
	const char *dir = NULL;
	int ret;

	for (unsigned d = 0; d < s->ndirs && !dir; d++) {
		ret = probe(s, s->dirs[d], file_names[0], ver, &ch->comp[0]);
		if (ret == -E2BIG)
			return ret;
		if (!ret)
			dir = s->dirs[d];
	}
	if (!dir)
		return -ENOENT;
	strcpy(ch->paths[0], s->pathbuf);
	for (unsigned f = 1; f < NVL_GSP_FW_NUM_FILES; f++) {
		ret = probe(s, dir, file_names[f], ver, &ch->comp[f]);
		if (ret)
			return ret;
		strcpy(ch->paths[f], s->pathbuf);
	}
	snprintf(ch->version, sizeof(ch->version), "%s", ver);
	snprintf(ch->dir, sizeof(ch->dir), "%s", dir);
	return 0;
}

static int load_choice(struct nvl_gsp_fw *fw, const struct nvl_gsp_fw_opts *o,
		       const struct nvl_gsp_fw_choice *ch)
{
	int ret;

	for (unsigned f = 0; f < NVL_GSP_FW_NUM_FILES; f++) {
		ret = load_file(fw, f, ch->paths[f], ch->comp[f]);
		if (ret)
			return ret == -ENOENT ? -EIO : ret;
	}
	snprintf(fw->version, sizeof(fw->version), "%s", ch->version);
	return parse_all(fw, o, ch->version);
}

static void fw_reset(struct nvl_gsp_fw *fw)
{
	for (unsigned f = 0; f < NVL_GSP_FW_NUM_FILES; f++) {
		nvl_free(fw->paths[f]);
		nvl_free(fw->data[f]);
		fw->paths[f] = NULL;
		fw->data[f] = NULL;
	}
}

void nvl_gsp_fw_put(struct nvl_gsp_fw *fw)
{
	if (!fw)
		return;
	fw_reset(fw);
	nvl_free(fw);
}

static int sort_versions(const char *const *in, const char **out)
{
	unsigned n = 0;

	for (; in[n]; n++) {
		if (n == MAX_VERSIONS)
			return nvl_error(-EINVAL,
					 "gsp fw: more than %d versions",
					 MAX_VERSIONS);
		if (!*in[n] || strchr(in[n], '/'))
			return nvl_error(-EINVAL,
					 "gsp fw: bad version string '%s'",
					 in[n]);
		out[n] = in[n];
	}
	/* Insertion sort, newest first. */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i;
		     j && nvl_gsp_fw_version_cmp(out[j - 1], out[j]) < 0; j--) {
			const char *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return (int)n;
}

/* Common set-up of a search: checked arguments, versions, path list. */
static int search_begin(const char *chip, const struct nvl_gsp_fw_opts *opts,
			struct search **s_out, const char **vers, int *nver)
{
	struct search *s;
	int ret;

	if (!chip || !*chip || strchr(chip, '/') || strlen(chip) >= 16 ||
	    !opts || !opts->versions)
		return nvl_error(-EINVAL, "gsp fw: bad chip or options");
	*nver = sort_versions(opts->versions, vers);
	if (*nver < 0)
		return *nver;
	if (*nver == 0)
		return nvl_error(-EINVAL, "gsp fw: %s accepts no version",
				 chip);
	s = nvl_zalloc(sizeof(*s));
	if (!s)
		return nvl_error(-ENOMEM, "gsp fw: out of memory");
	ret = nvl_gsp_fw_search_path(opts, s->list, sizeof(s->list));
	if (!ret)
		ret = split_path(s, s->list);
	if (ret) {
		nvl_free(s);
		return ret;
	}
	s->chip = chip;
	s->max_probes =
		opts->max_probes ? opts->max_probes : NVL_GSP_FW_DEFAULT_PROBES;
	*s_out = s;
	return 0;
}

static int not_found(struct search *s, const char *chip, const char *newest,
		     int why)
{
	return nvl_error(-ENOENT,
			 "gsp fw: no complete firmware for %s (newest "
			 "accepted %s) in %u director%s%s after %u probes; "
			 "tried: %s%s",
			 chip, newest, s->ndirs, s->ndirs == 1 ? "y" : "ies",
			 why == -E2BIG ? ", probe limit reached" : "",
			 s->probes, s->tried_len ? s->tried : "nothing",
			 s->tried_dropped ? " and more" : "");
}

int nvl_gsp_fw_find(const char *chip, const struct nvl_gsp_fw_opts *opts,
		    struct nvl_gsp_fw_choice *out)
{
	const char *vers[MAX_VERSIONS];
	struct search *s = NULL;
	int nver, ret;

	if (!out)
		return nvl_error(-EINVAL, "gsp fw: no output");
	ret = search_begin(chip, opts, &s, vers, &nver);
	if (ret)
		return ret;
	ret = -ENOENT;
	for (int v = 0; v < nver && ret == -ENOENT; v++)
		ret = find_version(s, vers[v], out);
	if (ret)
		ret = not_found(s, chip, vers[0], ret);
	else
		out->probes = s->probes;
	nvl_free(s);
	return ret;
}

int nvl_gsp_fw_load(const char *chip, const struct nvl_gsp_fw_opts *opts,
		    struct nvl_gsp_fw **fw_out)
{
	const char *vers[MAX_VERSIONS];
	struct nvl_gsp_fw_choice *ch = NULL;
	struct search *s = NULL;
	struct nvl_gsp_fw *fw = NULL;
	const char *family;
	int nver, ret;

	if (!fw_out)
		return nvl_error(-EINVAL, "gsp fw: no output");
	ret = search_begin(chip, opts, &s, vers, &nver);
	if (ret)
		return ret;
	family = opts->family ? opts->family : nvl_gsp_chip_family(chip);
	if (!family) {
		ret = nvl_error(-EINVAL,
				"gsp fw: no signature family known for chip "
				"'%s'",
				chip);
		goto out;
	}
	ch = nvl_zalloc(sizeof(*ch));
	fw = nvl_zalloc(sizeof(*fw));
	if (!ch || !fw) {
		ret = nvl_error(-ENOMEM, "gsp fw: out of memory");
		goto out;
	}
	snprintf(fw->chip, sizeof(fw->chip), "%s", chip);
	snprintf(fw->family, sizeof(fw->family), "%s", family);

	ret = -ENOENT;
	for (int v = 0; v < nver && ret == -ENOENT; v++) {
		ret = find_version(s, vers[v], ch);
		if (ret == -ENOENT)
			nvl_dbg(NVL_CAT_GSP,
				"gsp fw: %s: %s incomplete, falling back", chip,
				vers[v]);
	}
	if (ret) {
		ret = not_found(s, chip, vers[0], ret);
		goto out;
	}
	ret = load_choice(fw, opts, ch);
	if (ret)
		goto out;
	fw->probes = s->probes;
	nvl_dbg(NVL_CAT_GSP, "gsp fw: %s: %s from %s (%u probes)", chip,
		fw->version, fw->paths[0], s->probes);
	*fw_out = fw;
	fw = NULL;
out:
	nvl_gsp_fw_put(fw);
	nvl_free(ch);
	nvl_free(s);
	return ret;
}
