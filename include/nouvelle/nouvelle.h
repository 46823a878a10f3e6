/* SPDX-License-Identifier: MIT */
/*
 * nouvelle: the GPU driver core for GSP-era NVIDIA GPUs, as a userspace
 * library with a built-in model of the GPU.
 *
 * This umbrella header is the client API ("uAPI"). Every call returns 0 or a
 * negative errno; nvl_last_error() says why in words.
 */
#ifndef NOUVELLE_H
#define NOUVELLE_H

#include <nouvelle/core.h>
#include <nouvelle/sync.h>
#include <nouvelle/bo.h>
#include <nouvelle/vm.h>
#include <nouvelle/device.h>
#include <nouvelle/exec.h>
#include <nouvelle/compute.h>
#include <nouvelle/push.h>
#include <nouvelle/trace.h>

#endif /* NOUVELLE_H */
