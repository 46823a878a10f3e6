/* SPDX-License-Identifier: MIT */
/*
 * The driver's one door to the firmware interface. Until abigen generates
 * the version-neutral layer, this includes 535.113.01's headers directly;
 * the generator replaces this file, and nothing else in src/gsp includes
 * firmware headers.
 */
#ifndef NVL_GSP_ABI_H
#define NVL_GSP_ABI_H

#include "firmware/abi/535.113.01/gsp.h"

#endif /* NVL_GSP_ABI_H */
