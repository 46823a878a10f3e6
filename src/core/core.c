// SPDX-License-Identifier: MIT
/*
 * DOC: Core uAPI
 *
 * Version, error text and device-less clients.
 */
#include <errno.h>

#include "nvl_config.h"
#include "base/client.h"
#include "base/log.h"
#include "core/device.h"
#include "nouvelle/core.h"

const char *nvl_version(void)
{
	return NVL_VERSION;
}

const char *nvl_last_error(void)
{
	return nvl_error_msg();
}

int nvl_client_create(struct nvl_client **client_out)
{
	if (!client_out)
		return nvl_error(-EINVAL, "client: NULL client_out");
	if (nvl_client_alloc(NULL, client_out))
		return nvl_error(-ENOMEM, "client: out of memory");
	return 0;
}

void nvl_client_destroy(struct nvl_client *client)
{
	struct nvl_device *dev = client ? client->udev : NULL;

	if (dev)
		nvl_core_client_unlink(client);
	nvl_client_put(client);
	/* the client's reference: a closed device goes with its last */
	if (dev)
		nvl_device_put(dev);
}
