/* SPDX-License-Identifier: MIT */
/*
 * struct nvl_flock, the tiny futex lock of the sync layer and above, is
 * defined in base (base/flock.h) so that base's client handle tables can
 * take it too; this header keeps the upper layers' include.
 */
#ifndef NVL_SYNC_FLOCK_H
#define NVL_SYNC_FLOCK_H

#include "base/flock.h"

#endif /* NVL_SYNC_FLOCK_H */
