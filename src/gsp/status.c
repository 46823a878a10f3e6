// SPDX-License-Identifier: MIT
/*
 * DOC: NV_STATUS and function names
 *
 * Errors from the firmware reach callers as errnos, and their messages
 * name the NV_STATUS, so a log line says "NV_ERR_INVALID_OBJECT_HANDLE",
 * not "0x33".
 */
#include <errno.h>
#include <stdio.h>

#include "gsp/abi.h"
#include "gsp/gsp.h"

const char *nvl_gsp_status_name(uint32_t status)
{
	static __thread char buf[32];

	switch (status) {
#define X(name, value)                                                         \
	case value:                                                            \
		return #name;
		NV_STATUS_CODES(X)
#undef X
	default:
		snprintf(buf, sizeof(buf), "NV_STATUS_%#x", status);
		return buf;
	}
}

int nvl_gsp_status_errno(uint32_t status)
{
	switch (status) {
	case NV_OK:
		return 0;
	case NV_ERR_NOT_READY:
	case NV_ERR_TIMEOUT_RETRY:
	case NV_ERR_BUSY_RETRY:
		return -EBUSY;
	case NV_ERR_NO_MEMORY:
		return -ENOMEM;
	case NV_ERR_INSUFFICIENT_RESOURCES:
		return -ENOSPC;
	case NV_ERR_INSUFFICIENT_PERMISSIONS:
		return -EPERM;
	case NV_ERR_INVALID_OBJECT_HANDLE:
	case NV_ERR_OBJECT_NOT_FOUND:
	case NV_ERR_INVALID_CLIENT:
		return -ENOENT;
	case NV_ERR_INVALID_OBJECT_NEW:
	case NV_ERR_IN_USE:
		return -EEXIST;
	case NV_ERR_NOT_SUPPORTED:
	case NV_ERR_INVALID_CLASS:
	case NV_ERR_INVALID_FUNCTION:
	case NV_ERR_INVALID_COMMAND:
		return -EOPNOTSUPP;
	case NV_ERR_TIMEOUT:
		return -ETIMEDOUT;
	case NV_ERR_RESET_REQUIRED:
	case NV_ERR_GPU_IS_LOST:
		return -ENODEV;
	case NV_ERR_BUFFER_TOO_SMALL:
		return -EMSGSIZE;
	case NV_ERR_INVALID_ARGUMENT:
	case NV_ERR_INVALID_PARAM_STRUCT:
	case NV_ERR_INVALID_DATA:
	case NV_ERR_INVALID_OBJECT_PARENT:
	case NV_ERR_INVALID_STATE:
	case NV_ERR_OUT_OF_RANGE:
	case NV_ERR_INVALID_REGISTRY_KEY:
		return -EINVAL;
	default:
		return -EIO;
	}
}

const char *nvl_gsp_function_name(uint32_t function)
{
	static __thread char buf[32];

	switch (function) {
#define X(name, value)                                                         \
	case value:                                                            \
		return &#name[sizeof("NV_VGPU_MSG_FUNCTION_") - 1];
		NV_VGPU_MSG_FUNCTIONS(X)
#undef X
#define X(name, value)                                                         \
	case value:                                                            \
		return &#name[sizeof("NV_VGPU_MSG_EVENT_") - 1];
		NV_VGPU_MSG_EVENTS(X)
#undef X
	default:
		snprintf(buf, sizeof(buf), "RPC_%#x", function);
		return buf;
	}
}
