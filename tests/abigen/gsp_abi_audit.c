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

/*
 * Every struct of every version: any wire image unpacks, and packing it
 * back succeeds and is a fixed point (pack(unpack(pack(unpack(w)))) ==
 * pack(unpack(w))). A firmware's reply the driver re-packs, or a struct
 * it edits and sends back, round-trips whatever the firmware wrote.
 */
static _Alignas(64) uint8_t wire[32768], w2[32768], w3[32768];
static _Alignas(64) uint8_t neutral[65536];

static void test_any_image_round_trips(void **state)
{
	uint64_t seed = 0x13;

	(void)state;
	for (size_t vi = 0; vi < gspabi_nversions; vi++) {
		const struct gspabi_version *v = gspabi_versions[vi];

		for (unsigned id = 0; id < GSPABI_S__COUNT; id++) {
			const struct gspabi_struct_ops *s = &v->structs[id];

			if (!s->present)
				continue;
			assert_true(s->wire_size <= sizeof(wire));
			for (int round = 0; round < 8; round++) {
				for (size_t b = 0; b < s->wire_size; b++)
					wire[b] = round == 0 ? 0xff
						  : round == 1
							  ? 0
							  : (uint8_t)t_rand(
								    &seed);
				assert_int_equal(gspabi_unpack(v, id, wire,
							       s->wire_size,
							       neutral),
						 0);
				if (gspabi_pack(v, id, neutral, w2,
						s->wire_size))
					fail_msg("%s %s: pack(unpack()) "
						 "refused, round %d",
						 v->tag, s->name, round);
				assert_int_equal(gspabi_unpack(v, id, w2,
							       s->wire_size,
							       neutral),
						 0);
				assert_int_equal(gspabi_pack(v, id, neutral, w3,
							     s->wire_size),
						 0);
				assert_memory_equal(w2, w3, s->wire_size);
			}
		}
	}
}

/*
 * pack_as(): a pack with the version's fields as present, without
 * writing the caller's struct (rm_abi_pack() and the sensor controls
 * wrote present first, so a refused pack left it changed). Packs as
 * pack() with that present; refusals (-ERANGE: a 9-byte SKU in 535's
 * chipSKU[4]; -EOPNOTSUPP: a field the version lacks) change neither the
 * struct nor the wire.
 */
static void test_pack_as_changes_nothing(void **state)
{
	struct gspabi_sku_info s, before, p;
	uint8_t b1[256], b2[256], b0[256];

	(void)state;
	for (size_t vi = 0; vi < gspabi_nversions; vi++) {
		const struct gspabi_version *v = gspabi_versions[vi];
		const struct gspabi_struct_ops *o =
			&v->structs[GSPABI_S_SKU_INFO];
		int r;

		assert_true(o->present && o->wire_size <= sizeof(b1));
		memset(&s, 0, sizeof(s));
		s.BoardID = 0x1234;
		memcpy(s.chipSKU, "TU1", 3);
		memcpy(&p, &s, sizeof(s));
		p.present = o->fields;
		assert_int_equal(
			gspabi_pack(v, GSPABI_S_SKU_INFO, &p, b2, o->wire_size),
			0);
		assert_int_equal(gspabi_pack_as(v, GSPABI_S_SKU_INFO, &s,
						o->fields, b1, o->wire_size),
				 0);
		assert_memory_equal(b1, b2, o->wire_size);
		assert_int_equal(s.present, 0);

		/* a SKU longer than this version's array */
		memcpy(s.chipSKU, "TU102-400", 9);
		memcpy(&before, &s, sizeof(s));
		memset(b1, 0xee, sizeof(b1));
		memcpy(b0, b1, sizeof(b1));
		r = gspabi_pack_as(v, GSPABI_S_SKU_INFO, &s, o->fields, b1,
				   o->wire_size);
		if (!(o->fields & GSPABI_SKU_INFO_HAS_SKUCONFIGVERSION))
			assert_int_equal(r, -ERANGE); /* 535: chipSKU[4] */
		if (r) {
			assert_memory_equal(&s, &before, sizeof(s));
			assert_memory_equal(b1, b0, sizeof(b1));
		}
		/* a field the version lacks */
		memcpy(b1, b0, sizeof(b1));
		if (~o->fields) {
			assert_int_equal(gspabi_pack_as(v, GSPABI_S_SKU_INFO,
							&s, ~UINT64_C(0), b1,
							o->wire_size),
					 -EOPNOTSUPP);
			assert_memory_equal(&s, &before, sizeof(s));
			assert_memory_equal(b1, b0, sizeof(b1));
		}
		/* and the dispatcher's own refusals */
		assert_int_equal(gspabi_pack_as(v, GSPABI_S__COUNT, &s, 0, b1,
						o->wire_size),
				 -EINVAL);
		assert_int_equal(gspabi_pack_as(NULL, GSPABI_S_SKU_INFO, &s, 0,
						b1, o->wire_size),
				 -EINVAL);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_event_unknown_to_version),
	cmocka_unit_test(test_any_image_round_trips),
	cmocka_unit_test(test_pack_as_changes_nothing),
};

T_MAIN(tests)
