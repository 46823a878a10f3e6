// SPDX-License-Identifier: MIT
/* nvl's output files, written whole or not at all; see outfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int nvl_out_open(struct nvl_out *o, const char *path)
{
	struct stat st;
	bool exists;
	size_t n;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	exists = !lstat(path, &st);
	if (!exists || S_ISREG(st.st_mode)) {
		n = strlen(path) + sizeof(".XXXXXX");
		o->tmp = malloc(n);
		if (!o->tmp)
			return -ENOMEM;
		snprintf(o->tmp, n, "%s.XXXXXX", path);
		fd = mkstemp(o->tmp);
		if (fd >= 0) {
			mode_t um = umask(0);

			umask(um);
			if (fchmod(fd,
				   exists ? st.st_mode & 07777 : 0666 & ~um) ||
			    !(o->f = fdopen(fd, "wb"))) {
				int err = errno;

				close(fd);
				unlink(o->tmp);
				free(o->tmp);
				o->tmp = NULL;
				return -err;
			}
			return 0;
		}
		/* no room for a temporary file beside it: in place */
		free(o->tmp);
		o->tmp = NULL;
	}
	o->f = fopen(path, "wb");
	return o->f ? 0 : -errno;
}

int nvl_out_close(struct nvl_out *o, bool ok)
{
	int ret = 0;

	if (!o->f)
		return -EBADF;
	/* an earlier write that failed sets the error indicator only */
	errno = 0;
	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout))
			ret = errno ? -errno : -EIO;
	} else {
		bool bad = ferror(o->f);

		if (fclose(o->f) || bad)
			ret = errno ? -errno : -EIO;
	}
	o->f = NULL;
	if (!ok && !ret)
		ret = -ECANCELED;
	if (o->tmp) {
		if (!ret && rename(o->tmp, o->path))
			ret = -errno;
		if (ret)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	return ret;
}
