/* SPDX-License-Identifier: MIT */
/*
 * GSP firmware images: the file formats (parsers) and the loader.
 *
 * Four files per firmware version, in linux-firmware's layout
 * <dir>/nvidia/<chip>/gsp/<name>-<ver>.bin[.zst|.xz]:
 *
 *  - gsp-<ver>.bin: an ELF64 file; .fwimage is the GSP-RM image, .fwversion
 *    its version string, .fwsignature_<family> one signature per chip
 *    family (tu10x, tu11x, ga100, ga10x, ad10x, gh100, cc_gh100, ...).
 *  - booter_load / booter_unload: SEC2 heavy-secure ucode: nvfw_bin_hdr,
 *    HS header v2, signatures, load header v2, payload.
 *  - bootloader: nvfw_bin_hdr, RISC-V ucode descriptor, payload.
 *
 * The parsers take a byte buffer and never trust a size or an offset in it:
 * every one is checked against the buffer length before it is followed.
 * Parsed structs point into the buffer they were parsed from.
 *
 * Errors (with nvl_last_error() text): -EINVAL bad argument; -EBADMSG
 * malformed file; -ENOEXEC no signature for the chip's family; -ENOENT no
 * firmware found (the message names every path tried); -ENOMEM.
 */
#ifndef NVL_GSP_IMAGE_H
#define NVL_GSP_IMAGE_H

#include "base/compiler.h"

/** NVL_FW_BIN_MAGIC - nvfw_bin_hdr.bin_magic of booter/bootloader files. */
#define NVL_FW_BIN_MAGIC 0x10de
/** NVL_GSP_ELF_MAX_SIGS - signature sections a GSP ELF may carry. */
#define NVL_GSP_ELF_MAX_SIGS 16
/** NVL_GSP_FAMILY_LEN - longest family name + NUL ("cc_gh100"). */
#define NVL_GSP_FAMILY_LEN 16
/** NVL_GSP_VERSION_LEN - longest version string + NUL. */
#define NVL_GSP_VERSION_LEN 64
/** NVL_FW_HS_MAX_APPS - applications in a booter's load header. */
#define NVL_FW_HS_MAX_APPS 8
/** NVL_GSP_FW_MAX_IMAGE - largest .fwimage (radix3 maps at most 1 GiB). */
#define NVL_GSP_FW_MAX_IMAGE (1ull << 30)

/** struct nvl_gsp_sig - one .fwsignature_<family> section. */
struct nvl_gsp_sig {
	/** @family: the section name's suffix, "ga10x" */
	char family[NVL_GSP_FAMILY_LEN];
	/** @data: the signature bytes (in the parsed buffer) */
	const uint8_t *data;
	/** @size: bytes at @data */
	size_t size;
	/** @offset: file offset of the section */
	uint64_t offset;
};

/** struct nvl_gsp_elf - a parsed gsp-<ver>.bin. */
struct nvl_gsp_elf {
	/** @version: .fwversion, NUL-terminated */
	char version[NVL_GSP_VERSION_LEN];
	/** @fwimage: .fwimage bytes (in the parsed buffer) */
	const uint8_t *fwimage;
	/** @fwimage_size: bytes of .fwimage */
	size_t fwimage_size;
	/** @fwimage_offset: file offset of .fwimage */
	uint64_t fwimage_offset;
	/** @num_sections: section headers in the file (NULL included) */
	unsigned num_sections;
	/** @num_sigs: entries used in @sigs */
	unsigned num_sigs;
	/** @sigs: the signature sections, in file order */
	struct nvl_gsp_sig sigs[NVL_GSP_ELF_MAX_SIGS];
};

/** struct nvl_fw_bin_hdr - nvfw_bin_hdr, the first 24 bytes of the file. */
struct nvl_fw_bin_hdr {
	uint32_t bin_magic;
	uint32_t bin_ver;
	uint32_t bin_size;
	uint32_t header_offset;
	uint32_t data_offset;
	uint32_t data_size;
};

/** struct nvl_fw_hs_app - one (offset, size) pair of a load header. */
struct nvl_fw_hs_app {
	uint32_t offset;
	uint32_t size;
};

/**
 * struct nvl_gsp_booter - a parsed booter_load / booter_unload file.
 *
 * The HS header v2 fields are as in the file (@patch_loc_off etc. are file
 * offsets of the words whose values are @patch_loc, @patch_sig, @num_sig).
 */
struct nvl_gsp_booter {
	/** @bin: the binary header */
	struct nvl_fw_bin_hdr bin;
	/* HS header v2, as in the file */
	uint32_t sig_prod_offset;
	uint32_t sig_prod_size;
	uint32_t patch_loc_off;
	uint32_t patch_sig_off;
	uint32_t meta_data_offset;
	uint32_t meta_data_size;
	uint32_t num_sig_off;
	uint32_t load_header_offset;
	uint32_t load_header_size;
	/* the words those offsets lead to */
	/** @patch_loc: where the chosen signature goes in the payload */
	uint32_t patch_loc;
	/** @patch_sig: byte offset added to sig_prod_offset */
	uint32_t patch_sig;
	/** @num_sig: production signatures in the file */
	uint32_t num_sig;
	/** @sig_size: bytes per signature (sig_prod_size / num_sig) */
	uint32_t sig_size;
	/* metadata (meta_data_size >= 12): fuse version, engine, ucode id */
	uint32_t fuse_ver;
	uint32_t engine_id;
	uint32_t ucode_id;
	/* load header v2 */
	uint32_t os_code_offset;
	uint32_t os_code_size;
	uint32_t os_data_offset;
	uint32_t os_data_size;
	uint32_t num_apps;
	struct nvl_fw_hs_app apps[NVL_FW_HS_MAX_APPS];
	/** @sigs: num_sig signatures back to back (in the parsed buffer) */
	const uint8_t *sigs;
	/** @payload: the ucode image (in the parsed buffer) */
	const uint8_t *payload;
	/** @payload_size: bytes at @payload (bin.data_size) */
	size_t payload_size;
};

/** struct nvl_gsp_riscv_desc - RM_RISCV_UCODE_DESC (21 u32 words). */
struct nvl_gsp_riscv_desc {
	uint32_t version;
	uint32_t bootloader_offset;
	uint32_t bootloader_size;
	uint32_t bootloader_param_offset;
	uint32_t bootloader_param_size;
	uint32_t riscv_elf_offset;
	uint32_t riscv_elf_size;
	uint32_t app_version;
	uint32_t manifest_offset;
	uint32_t manifest_size;
	uint32_t monitor_data_offset;
	uint32_t monitor_data_size;
	uint32_t monitor_code_offset;
	uint32_t monitor_code_size;
	uint32_t is_monitor_enabled;
	uint32_t swbrom_code_offset;
	uint32_t swbrom_code_size;
	uint32_t swbrom_data_offset;
	uint32_t swbrom_data_size;
	uint32_t fb_reserved_size;
	uint32_t signed_as_code;
};

/** struct nvl_gsp_bootloader - a parsed bootloader-<ver>.bin. */
struct nvl_gsp_bootloader {
	/** @bin: the binary header */
	struct nvl_fw_bin_hdr bin;
	/** @desc: the RISC-V ucode descriptor */
	struct nvl_gsp_riscv_desc desc;
	/** @payload: the image copied to DMA memory (in the parsed buffer) */
	const uint8_t *payload;
	/** @payload_size: bytes at @payload */
	size_t payload_size;
};

/**
 * nvl_gsp_elf_parse() - parse a GSP ELF image held in memory.
 * @buf: the file bytes (not modified; must stay alive while @out is used)
 * @len: bytes in @buf
 * @out: filled on success
 *
 * Needs .fwimage and .fwversion; collects every .fwsignature_<family>.
 * Rejects: not ELF64 little-endian, header tables outside the file,
 * sections outside the file or overlapping each other or the headers,
 * duplicate sections, an empty or oversized .fwimage, a bad version string.
 *
 * Return: 0, -EINVAL, -EBADMSG or -ENOMEM.
 */
int nvl_gsp_elf_parse(const void *buf, size_t len,
		      struct nvl_gsp_elf *out) NVL_MUST_CHECK;

/**
 * nvl_gsp_elf_find_sig() - the signature section for @family.
 * Return: the section, or NULL (no error recorded).
 */
const struct nvl_gsp_sig *nvl_gsp_elf_find_sig(const struct nvl_gsp_elf *elf,
					       const char *family);

/**
 * nvl_fw_bin_hdr_parse() - read and check the 24-byte nvfw_bin_hdr.
 * @buf: the file bytes
 * @len: bytes in @buf
 * @out: filled on success
 *
 * Checks the magic (0x10de), version 1, header_offset inside the file and
 * the payload (data_offset, data_size) inside the file. bin_size is not
 * trusted (NVIDIA's files round it up past the end of the file).
 *
 * Return: 0 or -EBADMSG.
 */
int nvl_fw_bin_hdr_parse(const void *buf, size_t len,
			 struct nvl_fw_bin_hdr *out) NVL_MUST_CHECK;

/**
 * nvl_gsp_booter_parse() - parse a booter_load/booter_unload file.
 * @buf: the file bytes
 * @len: bytes in @buf
 * @out: filled on success
 *
 * Return: 0 or -EBADMSG.
 */
int nvl_gsp_booter_parse(const void *buf, size_t len,
			 struct nvl_gsp_booter *out) NVL_MUST_CHECK;

/**
 * nvl_gsp_booter_sig() - signature @index of a parsed booter.
 * @b: the booter
 * @index: which production signature (from the chip's fuse version)
 * @sig_out: set to the signature bytes
 *
 * Return: 0, or -ENOEXEC when @index >= num_sig.
 */
int nvl_gsp_booter_sig(const struct nvl_gsp_booter *b, unsigned index,
		       const uint8_t **sig_out) NVL_MUST_CHECK;

/**
 * nvl_gsp_bootloader_parse() - parse a bootloader file.
 * @buf: the file bytes
 * @len: bytes in @buf
 * @out: filled on success
 *
 * Checks the monitor code/data and manifest ranges lie in the payload.
 * Return: 0 or -EBADMSG.
 */
int nvl_gsp_bootloader_parse(const void *buf, size_t len,
			     struct nvl_gsp_bootloader *out) NVL_MUST_CHECK;

/**
 * nvl_gsp_chip_family() - the signature family of a chip name.
 * @chip: "tu102", "ga104", "ad107", "gh100", ...
 *
 * Return: "tu10x", "tu11x", "ga100", "ga10x", "ad10x", "gh100" ("tu10x" for
 * "tiny", the model's small Turing test profile), or NULL for a chip this
 * driver does not know.
 */
const char *nvl_gsp_chip_family(const char *chip);

/* ---- the loader ------------------------------------------------------ */

/** Which of the four files. */
enum nvl_gsp_fw_file {
	NVL_GSP_FW_GSP = 0,
	NVL_GSP_FW_BOOTER_LOAD,
	NVL_GSP_FW_BOOTER_UNLOAD,
	NVL_GSP_FW_BOOTLOADER,
	NVL_GSP_FW_NUM_FILES
};

/** How a file was stored. */
enum nvl_gsp_fw_comp {
	NVL_GSP_FW_PLAIN = 0,
	NVL_GSP_FW_ZSTD,
	NVL_GSP_FW_XZ,
};

/** NVL_GSP_FW_DEFAULT_PROBES - default bound on file probes per load. */
#define NVL_GSP_FW_DEFAULT_PROBES 64

/**
 * struct nvl_gsp_fw_opts - how to look for firmware.
 * @versions: the versions the chip accepts, NULL-terminated, any order
 *            (the loader tries them newest first)
 * @search_path: colon-separated directories; NULL means $NVL_FIRMWARE_PATH
 *               then the build's images
 * @no_builtin: do not append the build's images to the search path
 * @family: signature family override (NULL: from the chip name); "cc_gh100"
 *          picks the confidential-computing signature on GH100
 * @booter_sig_index: which booter production signature to choose
 * @max_probes: bound on files opened/looked up (0: default 64)
 */
struct nvl_gsp_fw_opts {
	const char *const *versions;
	const char *search_path;
	bool no_builtin;
	const char *family;
	unsigned booter_sig_index;
	unsigned max_probes;
};

/** struct nvl_gsp_fw_booter - a loaded booter with its chosen signature. */
struct nvl_gsp_fw_booter {
	/** @hdr: the parsed file (payload, headers, all signatures) */
	struct nvl_gsp_booter hdr;
	/** @sig: the chosen production signature */
	const uint8_t *sig;
	/** @sig_size: bytes at @sig */
	size_t sig_size;
};

/**
 * struct nvl_gsp_fw - one chip's loaded firmware set.
 *
 * Every pointer points into buffers the struct owns; nvl_gsp_fw_put() frees
 * them all.
 */
struct nvl_gsp_fw {
	/** @chip: the chip it was loaded for */
	char chip[16];
	/** @family: the signature family used */
	char family[NVL_GSP_FAMILY_LEN];
	/** @version: the firmware version loaded */
	char version[NVL_GSP_VERSION_LEN];
	/** @elf: gsp-<ver>.bin parsed (all signature sections) */
	struct nvl_gsp_elf elf;
	/** @fwimage: .fwimage */
	const uint8_t *fwimage;
	/** @fwimage_size: bytes at @fwimage */
	size_t fwimage_size;
	/** @sig: the family's .fwsignature section */
	const uint8_t *sig;
	/** @sig_size: bytes at @sig */
	size_t sig_size;
	/** @bootloader: bootloader-<ver>.bin parsed */
	struct nvl_gsp_bootloader bootloader;
	/** @booter_load: booter_load-<ver>.bin */
	struct nvl_gsp_fw_booter booter_load;
	/** @booter_unload: booter_unload-<ver>.bin */
	struct nvl_gsp_fw_booter booter_unload;
	/** @paths: the files loaded, indexed by enum nvl_gsp_fw_file */
	char *paths[NVL_GSP_FW_NUM_FILES];
	/** @comp: how each file was stored */
	enum nvl_gsp_fw_comp comp[NVL_GSP_FW_NUM_FILES];
	/** @probes: files probed to find the set */
	unsigned probes;
	/* private: the file contents (decompressed) */
	uint8_t *data[NVL_GSP_FW_NUM_FILES];
	size_t data_size[NVL_GSP_FW_NUM_FILES];
};

/**
 * struct nvl_gsp_fw_choice - which files a load would read (no reading).
 * @version: the version chosen
 * @dir: the search-path directory holding it
 * @paths: the four files, indexed by enum nvl_gsp_fw_file
 * @comp: how each is stored
 * @probes: lookups made
 */
struct nvl_gsp_fw_choice {
	char version[NVL_GSP_VERSION_LEN];
	char dir[4096];
	char paths[NVL_GSP_FW_NUM_FILES][4096];
	enum nvl_gsp_fw_comp comp[NVL_GSP_FW_NUM_FILES];
	unsigned probes;
};

/**
 * nvl_gsp_fw_find() - the search nvl_gsp_fw_load() makes, without reading.
 * @chip: the chip name
 * @opts: as for nvl_gsp_fw_load()
 * @out: filled on success
 *
 * Return: 0, -EINVAL, -ENOENT (message names every path tried), -ENOMEM.
 */
int nvl_gsp_fw_find(const char *chip, const struct nvl_gsp_fw_opts *opts,
		    struct nvl_gsp_fw_choice *out) NVL_MUST_CHECK;

/**
 * nvl_gsp_fw_load() - find, read, decompress and parse a chip's firmware.
 * @chip: the chip name ("ga102"), used as the directory name
 * @opts: versions accepted and where to look (@opts->versions required)
 * @fw_out: set to the loaded set on success
 *
 * For each version, newest first, looks in every directory of the search
 * path for gsp-<ver>.bin, then .zst, then .xz, and takes the first
 * directory that has it; the other three files come from the same
 * directory. A version whose files are missing falls back to the next
 * older one. At most @opts->max_probes files are probed.
 *
 * Return: 0; -ENOENT when no accepted version is complete (the message
 * names every path tried); -EBADMSG/-EINVAL for a malformed file (message
 * names the file); -ENOEXEC when the image has no signature for the
 * family; -ENOMEM.
 */
int nvl_gsp_fw_load(const char *chip, const struct nvl_gsp_fw_opts *opts,
		    struct nvl_gsp_fw **fw_out) NVL_MUST_CHECK;

/** nvl_gsp_fw_put() - free a loaded set (NULL is fine). */
void nvl_gsp_fw_put(struct nvl_gsp_fw *fw);

/**
 * nvl_gsp_fw_read_file() - read a firmware file, decompressing .zst/.xz.
 * @path: the file (compression from its suffix)
 * @data_out: set to an nvl_malloc'd buffer (nvl_free it)
 * @size_out: set to its size
 * @comp_out: set to how it was stored (may be NULL)
 *
 * Return: 0, -ENOENT, -EIO, -EBADMSG (corrupt compressed data or larger
 * than NVL_GSP_FW_MAX_IMAGE + 1 MiB), -ENOMEM.
 */
int nvl_gsp_fw_read_file(const char *path, uint8_t **data_out, size_t *size_out,
			 enum nvl_gsp_fw_comp *comp_out) NVL_MUST_CHECK;

/**
 * nvl_gsp_fw_search_path() - the directories the loader would search.
 * @opts: as for nvl_gsp_fw_load() (may be NULL)
 * @buf: filled with a colon-separated list
 * @size: bytes at @buf
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int nvl_gsp_fw_search_path(const struct nvl_gsp_fw_opts *opts, char *buf,
			   size_t size);

/**
 * nvl_gsp_fw_version_cmp() - order two version strings numerically.
 * Return: <0, 0, >0 as @a is older than, equal to, newer than @b.
 */
int nvl_gsp_fw_version_cmp(const char *a, const char *b);

#endif /* NVL_GSP_IMAGE_H */
