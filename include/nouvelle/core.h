/* SPDX-License-Identifier: MIT */
/* nouvelle core API: version, errors, clients. */
#ifndef NOUVELLE_CORE_H
#define NOUVELLE_CORE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef NVL_API
#define NVL_API __attribute__((visibility("default")))
#endif

/** struct nvl_client - a client ("file"): owns handles, VMs, queues. */
struct nvl_client;

/**
 * nvl_version() - the library's version string, "MAJOR.MINOR.PATCH".
 *
 * Return: a static string.
 */
NVL_API const char *nvl_version(void);

/**
 * nvl_last_error() - why the calling thread's last failing call failed.
 *
 * Return: a message (static per thread, valid until the thread's next
 * failing call), "" when none was recorded.
 */
NVL_API const char *nvl_last_error(void);

/**
 * nvl_client_create() - open a client without a device (generic layers only).
 * @client_out: the new client
 *
 * Return: 0, or -ENOMEM.
 */
NVL_API int nvl_client_create(struct nvl_client **client_out);

/**
 * nvl_client_destroy() - close every handle of @client and drop it.
 * @client: the client, may be NULL
 */
NVL_API void nvl_client_destroy(struct nvl_client *client);

#ifdef __cplusplus
}
#endif

#endif /* NOUVELLE_CORE_H */
