// SPDX-License-Identifier: MIT
/* nvl plot's drawing when nvl was built without cairo; see plot.h. */
#include <errno.h>

#include "base/log.h"
#include "plot.h"

int nvl_plot_draw(const struct nvl_record *r, const struct nvl_plot_opts *o)
{
	(void)r;
	(void)o;
	return nvl_error(-ENOSYS, "nvl was built without cairo: install "
				  "libcairo2-dev (scripts/deps.sh build) and "
				  "reconfigure");
}
