/* SPDX-License-Identifier: MIT */
/*
 * DOC: recorded time series (`nvl run --record FILE`, `nvl plot FILE`)
 *
 * JSON lines, specified in docs/tools.md: a header line (format version,
 * units, devices and their engines), client lines (a client's id, device and
 * name, before its first sample) and sample lines (a timestamp, per-device
 * sensors and utilisation, per-client busy % and VRAM/GTT). Unknown values
 * are written as null and read as NAN, never as a made-up number.
 *
 * The writer (nvl_rec_writer_*) checks what it is given and writes one line
 * per call; the reader (nvl_record_parse/_load) turns a file into one series
 * per quantity for the plotter, and rejects malformed input with the line
 * number in nvl_last_error().
 */
#ifndef NVL_TOOL_RECORD_H
#define NVL_TOOL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define NVL_REC_VERSION 1
#define NVL_REC_MAX_DEVICES 8
#define NVL_REC_MAX_ENGINES 16
#define NVL_REC_MAX_CLIENTS 256
#define NVL_REC_NAME_MAX 64
/* Longest line the reader accepts, in bytes. */
#define NVL_REC_LINE_MAX (256 * 1024)

/** struct nvl_rec_device - a device as the header declares it */
struct nvl_rec_device {
	unsigned int id;
	char name[NVL_REC_NAME_MAX];
	unsigned int nengines;
	char engines[NVL_REC_MAX_ENGINES][NVL_REC_NAME_MAX];
};

/** struct nvl_rec_client - a client line: @id unique, on device @device */
struct nvl_rec_client {
	unsigned int id;
	unsigned int device;
	char name[NVL_REC_NAME_MAX];
};

/**
 * struct nvl_rec_dev_sample - one device's sensors at one instant; NAN where
 * the device does not report a value. @busy_pct is indexed like the device's
 * engines.
 */
struct nvl_rec_dev_sample {
	double temp_C;
	double power_W;
	double power_limit_W;
	double gr_clock_MHz;
	double mem_clock_MHz;
	double busy_pct[NVL_REC_MAX_ENGINES];
};

/**
 * struct nvl_rec_client_sample - one client's usage at one instant; NAN where
 * unknown. @busy_pct is indexed like its device's engines.
 */
struct nvl_rec_client_sample {
	unsigned int id;
	double busy_pct[NVL_REC_MAX_ENGINES];
	double vram_MiB;
	double gtt_MiB;
};

/** struct nvl_rec_writer - caller-owned writer state */
struct nvl_rec_writer {
	FILE *f;
	unsigned int ndev;
	struct nvl_rec_device dev[NVL_REC_MAX_DEVICES];
	unsigned int nclients;
	struct nvl_rec_client clients[NVL_REC_MAX_CLIENTS];
	double last_t;
	unsigned long lines;
};

/**
 * nvl_rec_writer_init() - write the header line for @ndev devices to @f
 * Return: 0; -EINVAL (bad devices: none, too many, duplicate ids or engine
 * names, empty or unprintable names) or -EIO, with a message.
 */
int nvl_rec_writer_init(struct nvl_rec_writer *w, FILE *f,
			const struct nvl_rec_device *devs, unsigned int ndev);

/**
 * nvl_rec_write_client() - declare a client before its first sample
 * Return: 0; -EINVAL (duplicate id, unknown device, bad name, too many);
 * -EIO.
 */
int nvl_rec_write_client(struct nvl_rec_writer *w,
			 const struct nvl_rec_client *c);

/**
 * nvl_rec_write_sample() - write one sample line
 * @t_s: seconds since the start of the recording; never decreasing
 * @devs: one entry per device, in header order
 * @clients: @nclients entries, each of a declared client
 *
 * Return: 0; -EINVAL (time going back, undeclared client, negative or
 * infinite value); -EIO.
 */
int nvl_rec_write_sample(struct nvl_rec_writer *w, double t_s,
			 const struct nvl_rec_dev_sample *devs,
			 const struct nvl_rec_client_sample *clients,
			 unsigned int nclients);

/** nvl_rec_dev_sample_unknown() - a device sample with every value NAN. */
void nvl_rec_dev_sample_unknown(struct nvl_rec_dev_sample *s);
/** nvl_rec_client_sample_unknown() - a client sample with every value NAN. */
void nvl_rec_client_sample_unknown(struct nvl_rec_client_sample *s,
				   unsigned int id);

/** The quantity a series holds. */
enum nvl_rec_kind {
	NVL_REC_TEMP,
	NVL_REC_POWER,
	NVL_REC_POWER_LIMIT,
	NVL_REC_GR_CLOCK,
	NVL_REC_MEM_CLOCK,
	NVL_REC_ENGINE_BUSY,
	NVL_REC_CLIENT_BUSY,
	NVL_REC_CLIENT_VRAM,
	NVL_REC_CLIENT_GTT,
};

/**
 * struct nvl_rec_series - one quantity over the recording
 * @key: its name for --series: "gpu0.temp", "gpu0.busy.gr",
 *       "client3.busy.gr", "client3.vram", ...
 * @label: for a legend: "GPU0 gr", "client 3 (sparse) gr", ...
 * @unit: "C", "W", "MHz", "%" or "MiB"
 * @v: one value per sample of the recording, NAN where absent
 */
struct nvl_rec_series {
	enum nvl_rec_kind kind;
	unsigned int device;
	unsigned int client;
	char key[96];
	char label[160];
	const char *unit;
	double *v;
};

/** struct nvl_record - a parsed recording */
struct nvl_record {
	unsigned int ndev;
	struct nvl_rec_device dev[NVL_REC_MAX_DEVICES];
	unsigned int nclients;
	struct nvl_rec_client clients[NVL_REC_MAX_CLIENTS];
	size_t nsamples, cap;
	double *t;
	unsigned int nseries;
	struct nvl_rec_series *series;
};

/**
 * nvl_record_parse() - read a recording from memory
 * @buf: the file's bytes
 * @len: how many
 * @name: the file's name, for messages ("FILE:LINE: ...")
 * @out: the recording, to free with nvl_record_free()
 *
 * Return: 0; -EINVAL with "NAME:LINE: why" in nvl_last_error(); -ENOMEM.
 */
int nvl_record_parse(const char *buf, size_t len, const char *name,
		     struct nvl_record **out);

/** nvl_record_load() - nvl_record_parse() on a file ("-" is stdin). */
int nvl_record_load(const char *path, struct nvl_record **out);

/** nvl_record_free() - free a recording (NULL is fine). */
void nvl_record_free(struct nvl_record *r);

#endif
