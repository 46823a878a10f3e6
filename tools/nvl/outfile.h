/* SPDX-License-Identifier: MIT */
/*
 * DOC: nvl's output files: written whole or not at all
 *
 * A file nvl writes (asm -o, trace --record, plot -o) is either complete
 * or absent: nvl_out_open() opens a temporary file beside PATH
 * (PATH.XXXXXX, with PATH's mode when it exists, else 0666 less the
 * umask), and nvl_out_close() renames it over PATH only when every write,
 * the flush and the close succeeded; otherwise it removes it and PATH is
 * left as it was (a full disk does not leave a capture or an image cut
 * short, nor destroy the previous one). "-" is stdout; a PATH that exists
 * and is not a regular file (a device such as /dev/null, a FIFO, a
 * symbolic link), or in a directory nvl cannot create files in, is
 * written in place.
 */
#ifndef NVL_TOOL_OUTFILE_H
#define NVL_TOOL_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/** struct nvl_out - an output file being written. */
struct nvl_out {
	FILE *f; /* write here */
	const char *path;
	char *tmp; /* the temporary name, NULL when written in place */
};

/**
 * nvl_out_open() - open @path ("-": stdout) for writing into @o->f.
 * Return: 0, or a negative errno (nothing created).
 */
int nvl_out_open(struct nvl_out *o, const char *path);

/**
 * nvl_out_close() - finish @o: when @ok and every write succeeded, put the
 * file in place; else remove what was written (but in place).
 * Return: 0 when the file is in place, a negative errno otherwise (also
 * when @ok is false: -ECANCELED).
 */
int nvl_out_close(struct nvl_out *o, bool ok);

#endif
