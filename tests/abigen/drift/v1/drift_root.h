/* SPDX-License-Identifier: MIT */
/* abigen drift set: the root header abigen parses for this version. */
#include "queue.h"
#include "wpr.h"
#include "sysinfo.h"
#include "static_info.h"
#include "rpc.h"
#include "ctrl2080.h"
