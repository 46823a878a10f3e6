// SPDX-License-Identifier: MIT
/*
 * Adversarial review (audit13) of the driver's use of the generated
 * firmware ABI layer: event numbers a firmware version sends that the
 * driver's numbering (535.113.01's) cannot name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "gspabi.h"
#include "gsp/abi_ver.h"

#define V1 (&gspabi_r535_54_03)
#define V2 (&gspabi_r535_113_01)
#define V3 (&gspabi_r570_144)

/* is @e one of the driver's event numbers (NVL_GSP_ABI_DEFAULT's)? */
static bool driver_event(uint32_t e)
{
	uint32_t n;

	return !gspabi_from_wire(V2, GSPABI_T_EVENT, e, &n);
}

/*
 * 570.144's event list ends at 0x101d (MIG_CI_CONFIG_UPDATE); the
 * driver's 0x101e is that event. A 570.144 firmware sending 0x101e (a
 * number its rpc_global_enums.h X-macro list does not define) was passed
 * on unchanged and reached the driver's MIG_CI_CONFIG_UPDATE handler.
 */
static void test_event_unknown_to_version(void **state)
{
	uint32_t n, e;

	(void)state;
	assert_int_equal(gspabi_from_wire(V3, GSPABI_T_EVENT, 0x101e, &n),
			 -ENOENT);
	assert_true(driver_event(0x101e));
	e = nvl_gsp_abi_event_in(V3, 0x101e);
	assert_false(driver_event(e));
	assert_true(e >= GSPABI_K_EVENT_FIRST_EVENT); /* still an event */
	assert_int_equal(e, 0x101e | NVL_GSP_ABI_EVENT_FOREIGN);
	/* far outside every list: the same */
	e = nvl_gsp_abi_event_in(V3, 0x10ff);
	assert_false(driver_event(e));
	e = nvl_gsp_abi_event_in(V1, 0x10ff);
	assert_false(driver_event(e));
	/* known ones still translate; the driver's own version passes */
	assert_int_equal(nvl_gsp_abi_event_in(V3, 0x101d), 0x101e);
	assert_int_equal(nvl_gsp_abi_event_in(V2, 0x10ff), 0x10ff);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_event_unknown_to_version),
};

T_MAIN(tests)
