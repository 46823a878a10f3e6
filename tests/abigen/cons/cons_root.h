/* SPDX-License-Identifier: MIT */
/* abigen constructs set: root header. */
#include "cons_structs.h"
