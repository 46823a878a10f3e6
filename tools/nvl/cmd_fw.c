// SPDX-License-Identifier: MIT
/*
 * DOC: nvl fw - GSP firmware on disk
 *
 * `nvl fw list` shows the firmware on the search path and what each chip
 * would boot; `info` and `verify` look at one file (fw_info.c); `needed`
 * computes the smallest set of files an initramfs must carry for some
 * chips, counting symlinked or identical blobs once.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/alloc.h"
#include "base/log.h"
#include "model/model.h"
#include "nv/device.h"
#include "cmd.h"
#include "fw.h"
#include "help.h"
#include "term.h"

/* a chip's architecture -> the chip the driver has an entry for */
static const char *const arch_profile[][2] = {
	{"tu", "tu102"},
	{"ga", "ga102"},
	{"ad", "ad102"},
	{"gh", "gh100"},
};

const char *const *nvl_fw_chip_versions(const char *chip, const char *override,
					const char **buf, size_t nbuf,
					char *store, size_t store_size)
{
	const char *const *v;
	size_t n = 0;

	if (override) {
		char *save = NULL;

		snprintf(store, store_size, "%s", override);
		for (char *t = strtok_r(store, ",", &save); t && n + 1 < nbuf;
		     t = strtok_r(NULL, ",", &save))
			buf[n++] = t;
		buf[n] = NULL;
		return buf;
	}
	/*
	 * What the driver boots (src/nv/device.c), not the model profile's
	 * list: the profile said ad102 takes 570.144 only while a device
	 * boots 535.113.01 on it, so "fw needed" left out the file a boot
	 * reads.
	 */
	v = nvl_nv_fw_versions(chip);
	for (size_t i = 0; !v && i < NVL_ARRAY_SIZE(arch_profile); i++)
		if (!strncmp(chip, arch_profile[i][0], 2))
			v = nvl_nv_fw_versions(arch_profile[i][1]);
	return v;
}

/* ---- list ------------------------------------------------------------ */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Names of entries in @dir, sorted; returns the count (caller frees). A
 * name's bytes outside printable ASCII are \xNN (nvl_log_escape()): the
 * list is printed, and a directory holds whatever names its files have
 * (no chip or firmware file has such a name)
 */
static int list_dir(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	char esc[NVL_LOG_ESCAPED(sizeof(((struct dirent *)0)->d_name))];
	struct dirent *e;
	char **v = NULL;
	int n = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char **nv;

		if (e->d_name[0] == '.')
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strdup(
			nvl_log_escape(esc, sizeof(esc), e->d_name, SIZE_MAX));
		if (v[n])
			n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), name_cmp);
	*out = v;
	return n;
}

static void free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* a link's target for the terminal: its bytes are anyone's */
static const char *shown(const char *s)
{
	static char esc[NVL_LOG_ESCAPED(PATH_MAX)];

	return nvl_log_escape(esc, sizeof(esc), s, SIZE_MAX);
}

static void list_chip(const char *dir, const char *chip)
{
	char p[PATH_MAX], link[PATH_MAX];
	char **files;
	int n;
	struct stat st;
	ssize_t ll;

	snprintf(p, sizeof(p), "%s/nvidia/%s", dir, chip);
	if (!lstat(p, &st) && S_ISLNK(st.st_mode) &&
	    (ll = readlink(p, link, sizeof(link) - 1)) > 0) {
		link[ll] = '\0';
		printf("  %-6s -> %s\n", chip, shown(link));
		return;
	}
	snprintf(p, sizeof(p), "%s/nvidia/%s/gsp", dir, chip);
	n = list_dir(p, &files);
	printf("  %-6s", chip);
	if (!lstat(p, &st) && S_ISLNK(st.st_mode) &&
	    (ll = readlink(p, link, sizeof(link) - 1)) > 0) {
		link[ll] = '\0';
		printf(" (gsp/ -> %s)", shown(link));
	}
	for (int i = 0; i < n; i++) {
		const char *f = files[i];
		char fp[PATH_MAX * 2];

		const char *bin = strstr(f, ".bin");

		if (strncmp(f, "gsp-", 4) || !bin)
			continue;
		printf(" %.*s%s", (int)(bin - f - 4), f + 4, bin + 4);
		snprintf(fp, sizeof(fp), "%s/%s", p, f);
		if (!lstat(fp, &st) && S_ISLNK(st.st_mode))
			printf("(link)");
	}
	printf("\n");
	free_list(files, n);
}

int nvl_fw_list(const struct fw_args *a)
{
	struct nvl_gsp_fw_opts o = {.search_path = a->path};
	char path[8192], *save = NULL;
	const char *seen[256];
	unsigned nseen = 0;
	int bad = 0;

	if (nvl_gsp_fw_search_path(&o, path, sizeof(path))) {
		return nvl_tool_fail("fw", "%s", nvl_error_msg());
	}
	printf("search path: %s\n", path);
	{
		char copy[8192];

		snprintf(copy, sizeof(copy), "%s", path);
		for (char *d = strtok_r(copy, ":", &save); d;
		     d = strtok_r(NULL, ":", &save)) {
			char nv[PATH_MAX], **chips;
			int n;

			snprintf(nv, sizeof(nv), "%s/nvidia", d);
			n = list_dir(nv, &chips);
			printf("%s: %d chip director%s (files: gsp-<version>"
			       "[.zst|.xz])\n",
			       d, n, n == 1 ? "y" : "ies");
			for (int i = 0; i < n; i++) {
				bool dup = false;

				list_chip(d, chips[i]);
				for (unsigned k = 0; k < nseen; k++)
					dup |= !strcmp(seen[k], chips[i]);
				if (!dup && nseen < NVL_ARRAY_SIZE(seen) &&
				    !a->nchips)
					seen[nseen++] = strdup(chips[i]);
			}
			free_list(chips, n);
		}
	}
	for (unsigned i = 0; i < a->nchips && nseen < 256; i++)
		seen[nseen++] = strdup(a->chips[i]);

	printf("boot choice (newest accepted version found):\n");
	printf("  %-6s %-8s %-22s %-11s %-6s %s\n", "chip", "family", "accepts",
	       "version", "stored", "image");
	for (unsigned i = 0; i < nseen; i++) {
		const char *vbuf[17], *const *vers;
		char store[512], acc[128] = "";
		struct nvl_gsp_fw_choice *ch = nvl_zalloc(sizeof(*ch));
		const char *fam = nvl_gsp_chip_family(seen[i]);

		vers = nvl_fw_chip_versions(seen[i], a->versions, vbuf, 17,
					    store, sizeof(store));
		for (unsigned k = 0; vers && vers[k]; k++) {
			size_t l = strlen(acc);

			snprintf(acc + l, sizeof(acc) - l, "%s%s", k ? "," : "",
				 vers[k]);
		}
		o.versions = vers;
		if (!ch || !vers || !fam) {
			printf("  %-6s %-8s %-22s (unknown chip)\n", seen[i],
			       fam ? fam : "-", "-");
			/* a chip the user named: an error, as in needed */
			if (a->nchips) {
				nvl_tool_fail("fw", "unknown chip '%s'",
					      seen[i]);
				bad = 1;
			}
		} else if (nvl_gsp_fw_find(seen[i], &o, ch)) {
			printf("  %-6s %-8s %-22s none: %s\n", seen[i], fam,
			       acc, nvl_error_msg());
			bad = 1;
		} else {
			printf("  %-6s %-8s %-22s %-11s %-6s %s\n", seen[i],
			       fam, acc, ch->version,
			       nvl_fw_comp_name(ch->comp[0]), ch->paths[0]);
		}
		nvl_free(ch);
		free((void *)seen[i]);
	}
	return bad && a->nchips ? 1 : 0;
}

/* ---- needed ---------------------------------------------------------- */

struct need {
	char path[4096];
	char real[PATH_MAX];
	uint64_t size;
	uint8_t sha[32];
	int blob; /* index of the first entry with the same content */
	bool link; /* path is a symlink (or under a linked directory) */
};

static int hash_file(const char *path, uint8_t sha[32], uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	static uint8_t buf[1 << 20];
	unsigned int len = 32;
	size_t n;
	int ok;

	if (!f || !md) {
		if (f)
			fclose(f);
		EVP_MD_CTX_free(md);
		return -1;
	}
	*size = 0;
	ok = EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1;
	while (ok && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		ok = EVP_DigestUpdate(md, buf, n) == 1;
		*size += n;
	}
	ok = ok && !ferror(f) && EVP_DigestFinal_ex(md, sha, &len) == 1;
	fclose(f);
	EVP_MD_CTX_free(md);
	return ok ? 0 : -1;
}

static int add_need(struct need *v, int *n, int max, const char *path)
{
	struct need *e;
	char parent[4096];

	for (int i = 0; i < *n; i++)
		if (!strcmp(v[i].path, path))
			return 0;
	if (*n == max)
		return -1;
	e = &v[(*n)++];
	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s", path);
	if (!realpath(path, e->real) || hash_file(e->real, e->sha, &e->size))
		return -1;
	/* a link if the file or one of its directories is one */
	snprintf(parent, sizeof(parent), "%s", path);
	{
		char *slash = strrchr(parent, '/'), rp[PATH_MAX];

		if (slash)
			*slash = '\0';
		e->link = realpath(parent, rp) &&
			  (strncmp(e->real, rp, strlen(rp)) != 0);
	}
	{
		struct stat st;

		if (!lstat(path, &st) && S_ISLNK(st.st_mode))
			e->link = true;
	}
	e->blob = *n - 1;
	for (int i = 0; i < *n - 1; i++)
		if (v[i].size == e->size && !memcmp(v[i].sha, e->sha, 32)) {
			e->blob = v[i].blob;
			break;
		}
	return 0;
}

static const char *const *default_chips(unsigned *n)
{
	static const char *names[16];
	const struct nvl_model_profile *p;

	*n = 0;
	for (unsigned i = 0; (p = nvl_model_profile_at(i)) && *n < 16; i++)
		if (nvl_gsp_chip_family(p->name))
			names[(*n)++] = p->name;
	return names;
}

static int need_version(const struct fw_args *a, const char *chip,
			const char *ver, struct need *v, int *n, int max,
			bool quiet)
{
	const char *vs[2] = {ver, NULL};
	struct nvl_gsp_fw_opts o = {.versions = vs, .search_path = a->path};
	struct nvl_gsp_fw_choice *ch = nvl_zalloc(sizeof(*ch));
	int ret = 0;

	if (!ch)
		return -ENOMEM;
	if (nvl_gsp_fw_find(chip, &o, ch)) {
		if (!quiet)
			nvl_tool_fail("fw", "%s", nvl_error_msg());
		nvl_free(ch);
		return -ENOENT;
	}
	for (unsigned f = 0; f < NVL_GSP_FW_NUM_FILES && !ret; f++)
		ret = add_need(v, n, max, ch->paths[f]);
	if (ret)
		nvl_tool_fail("fw", "cannot read %s", ch->dir);
	nvl_free(ch);
	return ret;
}

int nvl_fw_needed(const struct fw_args *a)
{
	const int max = 512;
	struct need *v = calloc(max, sizeof(*v));
	const char *const *chips = a->chips;
	unsigned nchips = a->nchips;
	uint64_t carry = 0, copied = 0;
	int n = 0, blobs = 0, bad = 0;
	char h1[32], h2[32];

	if (!v)
		return 1;
	if (!nchips)
		chips = default_chips(&nchips);
	/* every chip named before any output: a bad one is an error
	 * alone, not a line after a table header */
	for (unsigned c = 0; c < nchips; c++) {
		if (!nvl_gsp_chip_family(chips[c])) {
			nvl_tool_fail("fw", "unknown chip '%s'", chips[c]);
			bad = 1;
		}
	}
	if (bad) {
		free(v);
		return 1;
	}
	printf("%-6s %-11s %s\n", "chip", "version", "older versions");
	for (unsigned c = 0; c < nchips; c++) {
		const char *vbuf[17], *const *vers, *sorted[17];
		struct nvl_gsp_fw_opts o = {.search_path = a->path};
		struct nvl_gsp_fw_choice *ch = nvl_zalloc(sizeof(*ch));
		char store[512];
		unsigned nv = 0;

		vers = nvl_fw_chip_versions(chips[c], a->versions, vbuf, 17,
					    store, sizeof(store));
		if (!ch || !vers || !nvl_gsp_chip_family(chips[c])) {
			nvl_tool_fail("fw", "unknown chip '%s'", chips[c]);
			nvl_free(ch);
			bad = 1;
			continue;
		}
		o.versions = vers;
		if (nvl_gsp_fw_find(chips[c], &o, ch)) {
			nvl_tool_fail("fw", "%s", nvl_error_msg());
			nvl_free(ch);
			bad = 1;
			continue;
		}
		printf("%-6s %-11s", chips[c], ch->version);
		if (need_version(a, chips[c], ch->version, v, &n, max, false))
			bad = 1;
		/* Older accepted versions: fallbacks, carried on request. */
		for (; vers[nv] && nv < 16; nv++)
			sorted[nv] = vers[nv];
		for (unsigned k = 0; k < nv; k++) {
			if (nvl_gsp_fw_version_cmp(sorted[k], ch->version) >= 0)
				continue;
			if (a->fallbacks) {
				if (!need_version(a, chips[c], sorted[k], v, &n,
						  max, true))
					printf(" %s (carried)", sorted[k]);
			} else {
				printf(" %s (not carried)", sorted[k]);
			}
		}
		printf("\n");
		nvl_free(ch);
	}
	printf("files:\n");
	for (int i = 0; i < n; i++) {
		bool first = v[i].blob == i;

		copied += v[i].size;
		if (first) {
			carry += v[i].size;
			blobs++;
		}
		nvl_fw_human(v[i].size, h1, sizeof(h1));
		if (first)
			printf("  %s  %s\n", v[i].path, h1);
		else
			printf("  %s  %s, same blob as %s%s\n", v[i].path, h1,
			       v[v[i].blob].path,
			       v[i].link ? " (symlink)" : " (identical copy)");
	}
	nvl_fw_human(carry, h1, sizeof(h1));
	nvl_fw_human(copied, h2, sizeof(h2));
	printf("total: %d files, %d distinct blobs, %llu bytes (%s) with links "
	       "kept, %llu bytes (%s) if every file were copied\n",
	       n, blobs, (unsigned long long)carry, h1,
	       (unsigned long long)copied, h2);
	free(v);
	return bad;
}

/* ---- command line ---------------------------------------------------- */

static int parse_args(int argc, char **argv, int first, struct fw_args *a)
{
	for (int i = first; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = NULL;

		if (!strcmp(arg, "--fallbacks")) {
			a->fallbacks = 1;
			continue;
		}
		if (!strncmp(arg, "--chip", 6) || !strncmp(arg, "--path", 6) ||
		    !strncmp(arg, "--versions", 10)) {
			const char *eq = strchr(arg, '=');

			val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
			/* --path "$DIR" with DIR unset: not the default path */
			if (!val || !*val)
				return nvl_usage_error("fw", "%s needs a value",
						       arg);
		} else {
			return nvl_usage_error("fw", "unknown option '%s'",
					       arg);
		}
		if (!strncmp(arg, "--chip", 6) &&
		    (arg[6] == '\0' || arg[6] == '=')) {
			if (a->nchips == NVL_ARRAY_SIZE(a->chips))
				return nvl_usage_error(
					"fw", "more than %zu --chip",
					NVL_ARRAY_SIZE(a->chips));
			a->chips[a->nchips++] = val;
		} else if (!strncmp(arg, "--path", 6) &&
			   (arg[6] == '\0' || arg[6] == '=')) {
			a->path = val;
		} else if (!strncmp(arg, "--versions", 10) &&
			   (arg[10] == '\0' || arg[10] == '=')) {
			a->versions = val;
		} else {
			return nvl_usage_error("fw", "unknown option '%s'",
					       arg);
		}
	}
	return 0;
}

int nvl_cmd_fw(int argc, char **argv)
{
	struct fw_args a = {0};
	const char *sub = argc > 1 ? argv[1] : NULL;
	int ret;

	if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    !strcmp(sub, "help")) {
		if (!sub)
			return nvl_help_usage_error("fw", "no subcommand");
		return nvl_help_print(stdout, "fw");
	}
	if (!strcmp(sub, "info") || !strcmp(sub, "verify")) {
		if (argc != 3 || argv[2][0] == '-') {
			if (argc == 3 && (!strcmp(argv[2], "--help") ||
					  !strcmp(argv[2], "-h"))) {
				return nvl_help_print(stdout, "fw");
			}
			return nvl_help_usage_error(
				"fw", "info and verify take one FILE");
		}
		return !strcmp(sub, "info") ? nvl_fw_info(argv[2])
					    : nvl_fw_verify(argv[2]);
	}
	if (strcmp(sub, "list") && strcmp(sub, "needed")) {
		return nvl_usage_error("fw", "unknown subcommand '%s'", sub);
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return nvl_help_print(stdout, "fw");
	ret = parse_args(argc, argv, 2, &a);
	if (ret)
		return ret;
	return !strcmp(sub, "list") ? nvl_fw_list(&a) : nvl_fw_needed(&a);
}
