// SPDX-License-Identifier: MIT
/*
 * DOC: NV_STATUS and function names
 *
 * Errors from the firmware reach callers as errnos, and their messages
 * name the NV_STATUS, so a log line says "NV_ERR_INVALID_OBJECT_HANDLE",
 * not "0x33". The numbers come from the generated layer (gspabi.h: the
 * fixed status and function tables of firmware/abi/want.txt).
 */
#include <errno.h>
#include <stdio.h>

#include "gspabi.h"
#include "gsp/gsp.h"

const char *nvl_gsp_status_name(uint32_t status)
{
	static __thread char buf[32];

	switch (status) {
#define X(name, value)                                                         \
	case value:                                                            \
		return #name;
		GSPABI_K_STATUS_LIST(X)
#undef X
	default:
		snprintf(buf, sizeof(buf), "NV_STATUS_%#x", status);
		return buf;
	}
}

int nvl_gsp_status_errno(uint32_t status)
{
	switch (status) {
	case GSPABI_K_STATUS_NV_OK:
		return 0;
	case GSPABI_K_STATUS_NV_ERR_NOT_READY:
	case GSPABI_K_STATUS_NV_ERR_TIMEOUT_RETRY:
	case GSPABI_K_STATUS_NV_ERR_BUSY_RETRY:
		return -EBUSY;
	case GSPABI_K_STATUS_NV_ERR_NO_MEMORY:
		return -ENOMEM;
	case GSPABI_K_STATUS_NV_ERR_INSUFFICIENT_RESOURCES:
		return -ENOSPC;
	case GSPABI_K_STATUS_NV_ERR_INSUFFICIENT_PERMISSIONS:
	case GSPABI_K_STATUS_NV_ERR_ILLEGAL_ACTION:
		return -EPERM;
	case GSPABI_K_STATUS_NV_ERR_INVALID_OBJECT_HANDLE:
	case GSPABI_K_STATUS_NV_ERR_OBJECT_NOT_FOUND:
	case GSPABI_K_STATUS_NV_ERR_INVALID_CLIENT:
		return -ENOENT;
	case GSPABI_K_STATUS_NV_ERR_INVALID_OBJECT_NEW:
	case GSPABI_K_STATUS_NV_ERR_IN_USE:
		return -EEXIST;
	case GSPABI_K_STATUS_NV_ERR_NOT_SUPPORTED:
	case GSPABI_K_STATUS_NV_ERR_INVALID_CLASS:
	case GSPABI_K_STATUS_NV_ERR_INVALID_FUNCTION:
	case GSPABI_K_STATUS_NV_ERR_INVALID_COMMAND:
		return -EOPNOTSUPP;
	case GSPABI_K_STATUS_NV_ERR_TIMEOUT:
		return -ETIMEDOUT;
	case GSPABI_K_STATUS_NV_ERR_RESET_REQUIRED:
	case GSPABI_K_STATUS_NV_ERR_GPU_IS_LOST:
		return -ENODEV;
	case GSPABI_K_STATUS_NV_ERR_BUFFER_TOO_SMALL:
		return -EMSGSIZE;
	case GSPABI_K_STATUS_NV_ERR_INVALID_ARGUMENT:
	case GSPABI_K_STATUS_NV_ERR_INVALID_PARAM_STRUCT:
	case GSPABI_K_STATUS_NV_ERR_INVALID_DATA:
	case GSPABI_K_STATUS_NV_ERR_INVALID_OBJECT_PARENT:
	case GSPABI_K_STATUS_NV_ERR_INVALID_STATE:
	case GSPABI_K_STATUS_NV_ERR_OUT_OF_RANGE:
	case GSPABI_K_STATUS_NV_ERR_INVALID_REGISTRY_KEY:
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
		return #name;
		GSPABI_K_FUNCTION_LIST(X)
#undef X
#define X(name, value)                                                         \
	case value:                                                            \
		return #name;
		GSPABI_K_EVENT_LIST(X)
#undef X
	default:
		snprintf(buf, sizeof(buf), "RPC_%#x", function);
		return buf;
	}
}
