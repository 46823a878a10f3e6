// SPDX-License-Identifier: MIT
/*
 * abigen on the constructs set: every C construct of NVIDIA-shaped
 * firmware headers (typedef chains, NV_DECLARE_ALIGNED, anonymous and
 * nested unions/structs, typedef'd anonymous structs, bitfields, arrays
 * sized by macros and enum values, flexible arrays, X-macro enums,
 * #pragma pack, DRF macros, includes over several directories). Images
 * come from the compiler (img_cons.c); unpack must read every value and
 * pack must give back the compiler's bytes.
 */
#include <string.h>

#include "t.h"
#include "ct.h"
#include "img_cons.h"

#define C1 (&ct_c1)

static uint8_t img[256], out[256];

static void roundtrip(enum ct_struct_id id, size_t n, void *neutral)
{
	assert_int_equal(C1->structs[id].wire_size, n);
	assert_int_equal(ct_unpack(C1, id, img, n, neutral), 0);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(ct_pack(C1, id, neutral, out, n), 0);
	assert_memory_equal(out, img, n);
}

static void test_typedef_chains(void **state)
{
	struct ct_types t;

	roundtrip(CT_S_TYPES, img_cons_types(img), &t);
	assert_int_equal(t.u8, 0xf1);
	assert_int_equal(t.u16, 0xf2f3);
	assert_int_equal(t.u32, 0xf4f5f6f7);
	assert_true(t.u64 == C_U64);
	assert_int_equal(t.s8, -3);
	assert_int_equal(t.s16, -300);
	assert_int_equal(t.s32, -70000);
	assert_true(t.s64 == C_S64);
	assert_int_equal(t.flag, 1);
	assert_int_equal(t.handle, C_HANDLE);
	/* NvS8..NvS64 stay signed in the neutral struct */
	t.s16 = -25536;
	assert_int_equal(ct_pack(C1, CT_S_TYPES, &t, out, 40), 0);
	assert_int_equal(out[18] | out[19] << 8, 40000); /* s16 at 18 */
}

static void test_declare_aligned(void **state)
{
	struct ct_aligned a;

	roundtrip(CT_S_ALIGNED, img_cons_aligned(img), &a);
	assert_int_equal(C1->structs[CT_S_ALIGNED].wire_size, 24);
	assert_true(a.addr == C_ADDR);
	assert_int_equal(a.lo, 7);
	assert_int_equal(a.tail, 9);
}

static void test_anonymous_nested(void **state)
{
	struct ct_nested n;

	roundtrip(CT_S_NESTED, img_cons_nested(img), &n);
	assert_int_equal(n.kind, 2);
	assert_int_equal(n.low, C_LOW);
	assert_int_equal(n.high, C_HIGH);
	/* the other arm of the anonymous union sees the same bytes */
	assert_true(n.whole == ((uint64_t)C_HIGH << 32 | C_LOW));
	assert_int_equal(n.inner_a, 0x1111);
	assert_int_equal(n.inner_u_c, 0x2233);
	assert_int_equal(n.inner_u_b, 0x33);
	/* one arm filled, the other left zero: the filled arm wins */
	memset(&n, 0, sizeof(n));
	n.present = C1->structs[CT_S_NESTED].fields;
	n.whole = 0x1122334455667788ull;
	assert_int_equal(ct_pack(C1, CT_S_NESTED, &n, out, 24), 0);
	assert_int_equal(ct_unpack(C1, CT_S_NESTED, out, 24, &n), 0);
	assert_int_equal(n.low, 0x55667788);
	assert_int_equal(n.high, 0x11223344);
}

/* arms that are named structs in a named union: the filled arm wins
 * over the arms left zero, whichever comes first in the want list */
static void test_named_union_arms(void **state)
{
	struct ct_arms a = {.present = C1->structs[CT_S_ARMS].fields};

	assert_int_equal(C1->structs[CT_S_ARMS].wire_size, 20);
	a.opcode = 0x101;
	a.target_idx = 2;
	a.target_type = 7;
	memset(out, 0xee, sizeof(out));
	assert_int_equal(ct_pack(C1, CT_S_ARMS, &a, out, 20), 0);
	memset(&a, 0, sizeof(a));
	assert_int_equal(ct_unpack(C1, CT_S_ARMS, out, 20, &a), 0);
	assert_int_equal(a.opcode, 0x101);
	assert_int_equal(a.target_idx, 2);
	assert_int_equal(a.target_type, 7);
	/* the other arm sees the same bytes; the rest of the union is zero */
	assert_int_equal(a.reading_idx, 2);
	assert_int_equal(a.reading, 7);
	assert_true(!ct_nonzero(out + 12, 8));
	memset(&a, 0, sizeof(a));
	a.present = C1->structs[CT_S_ARMS].fields;
	a.reading_idx = 3;
	assert_int_equal(ct_pack(C1, CT_S_ARMS, &a, out, 20), 0);
	assert_int_equal(ct_unpack(C1, CT_S_ARMS, out, 20, &a), 0);
	assert_int_equal(a.target_idx, 3);
	assert_int_equal(a.target_type, 0);
}

static void test_typedef_anonymous_struct(void **state)
{
	struct ct_anon_td a;

	roundtrip(CT_S_ANON_TD, img_cons_anon_td(img), &a);
	assert_int_equal(a.x, 0x5a);
	assert_int_equal(a.y, 0xa5a5a5a5);
}

static void test_bitfields(void **state)
{
	struct ct_bits b;
	char msg[128];

	roundtrip(CT_S_BITS, img_cons_bits(img), &b);
	assert_int_equal(b.enable, 1);
	assert_int_equal(b.mode, 5);
	assert_int_equal(b.count, 0xabc);
	assert_int_equal(b.delta, -7);
	assert_true(b.big == C_BIG);
	assert_int_equal(b.tail, 0x5a);
	/* bit positions cannot be static-asserted: the compiler checks them
	 * at run time */
	assert_int_equal(C1->selfcheck(msg, sizeof(msg)), 0);
	b.mode = 8; /* 3 bits */
	assert_int_equal(ct_pack(C1, CT_S_BITS, &b, out, 16), -ERANGE);
	b.mode = 7;
	b.delta = -17; /* 5 signed bits: -16..15 */
	assert_int_equal(ct_pack(C1, CT_S_BITS, &b, out, 16), -ERANGE);
}

static void test_arrays_macro_enum(void **state)
{
	struct ct_arrays a;

	roundtrip(CT_S_ARRAYS, img_cons_arrays(img), &a);
	/* sizes from CONS_MAX_GPCS (6), CONS_ENGINE_COUNT (4), [2][3] and
	 * (CONS_ENGINE_COUNT + 31) / 32 + 1 (2) */
	assert_int_equal(sizeof(a.gpcMask) / sizeof(a.gpcMask[0]), 6);
	assert_int_equal(sizeof(a.engState), 4);
	assert_int_equal(sizeof(a.grid) / sizeof(a.grid[0]), 6);
	assert_int_equal(sizeof(a.caps) / sizeof(a.caps[0]), 2);
	assert_int_equal(a.gpcMask[5], 0x105);
	assert_int_equal(a.engState[3], 0x13);
	assert_int_equal(a.grid[4], 11); /* grid[1][1] */
	assert_int_equal(a.caps[1], 0x80000000u);
}

static void test_flexible_array(void **state)
{
	struct ct_flex f;
	size_t n = img_cons_flex(img, 3);
	uint64_t e;

	assert_int_equal(n, 8 + 3 * 8);
	assert_int_equal(C1->structs[CT_S_FLEX].wire_size, 8);
	assert_int_equal(ct_unpack(C1, CT_S_FLEX, img, n, &f), 0);
	assert_int_equal(f.count, 3);
	assert_int_equal(f.flags, 3);
	assert_int_equal(f.entries, 8); /* byte offset of the array */
	memcpy(&e, img + f.entries + 2 * 8, 8);
	assert_true(e == 0x3000);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(ct_pack(C1, CT_S_FLEX, &f, out, 8), 0);
	assert_memory_equal(out, img, 8);
}

static void test_xmacro_enum(void **state)
{
	uint32_t n;
	uint64_t w;

	/* implicit values 0, 1, 2, ... from the X-macro expansion */
	assert_int_equal(ct_from_wire(C1, CT_T_FUNCTION, 4, &n), 0);
	assert_int_equal(n, CT_FUNCTION_FREE);
	assert_string_equal(ct_entry_name(CT_T_FUNCTION, n), "FREE");
	assert_int_equal(
		ct_to_wire(C1, CT_T_FUNCTION, CT_FUNCTION_ALLOC_ROOT, &w), 0);
	assert_int_equal(w, 2);
	assert_int_equal(ct_to_wire(C1, CT_T_ENGINE, CT_ENGINE_NVDEC, &w), 0);
	assert_int_equal(w, 3);
}

static void test_pragma_pack(void **state)
{
	struct ct_packed p;

	roundtrip(CT_S_PACKED, img_cons_packed(img), &p);
	assert_int_equal(C1->structs[CT_S_PACKED].wire_size, 7);
	assert_int_equal(p.a, 1);
	assert_int_equal(p.b, 0xdeadbeef);
	assert_int_equal(p.c, 0x4242);
	assert_int_equal(img[1], 0xef); /* b is at byte 1 */
}

static void test_drf_and_macros(void **state)
{
	const struct ct_const *k = C1->consts;
	int64_t v;

	assert_true(k[CT_C_CFG_MODE].drf);
	assert_int_equal(k[CT_C_CFG_MODE].hi, 7);
	assert_int_equal(k[CT_C_CFG_MODE].lo, 0);
	assert_int_equal(k[CT_C_CFG_ENABLE].hi, 8);
	assert_int_equal(k[CT_C_CFG_ENABLE].lo, 8);
	assert_int_equal(k[CT_C_CFG_SIZE].hi, 31);
	assert_int_equal(k[CT_C_CFG_SIZE].lo, 16);
	assert_int_equal(ct_const_get(C1, CT_C_CFG_REG, &v), 0);
	assert_int_equal(v, 0x00100200);
	assert_int_equal(ct_const_get(C1, CT_C_HEAP_MB, &v), 0);
	assert_int_equal(v, 72);
	assert_int_equal(ct_const_get(C1, CT_C_NEG, &v), 0);
	assert_int_equal(v, -5);
	assert_int_equal(ct_const_get(C1, CT_C_BIG, &v), 0);
	assert_true((uint64_t)v == 0xfffffffff0000000ull);
	assert_int_equal(ct_const_get(C1, CT_C_SHIFTED, &v), 0);
	assert_int_equal(v, 72 << 20);
	assert_int_equal(ct_const_get(C1, CT_C_ENGINE_COUNT, &v), 0);
	assert_int_equal(v, 4);
}

/* the set's headers live in four directories; a tag-only struct too */
static void test_multidir_tagged(void **state)
{
	struct ct_tagged t;

	roundtrip(CT_S_TAGGED, img_cons_tagged(img), &t);
	assert_int_equal(t.id, 0x77);
	assert_true(t.value == 0x8000000000000001ull);
	assert_string_equal(C1->tag, "c1");
}

/* an array of structs through the generated element accessors: each
 * element unpacked and packed as its own wanted struct, in place in the
 * raw member, at the version's stride; an index beyond the version's
 * length refused */
static void test_array_of_structs(void **state)
{
	struct ct_list l, l2;
	struct ct_item it;
	size_t n = img_cons_list(img);

	roundtrip(CT_S_LIST, n, &l);
	assert_int_equal(n, 4 + 4 + 4 * 16 + 8);
	assert_int_equal(l.count, 3);
	assert_int_equal(l.tail, 0x7a11);
	assert_int_equal(ct_list_items_count(C1), 4);
	assert_int_equal(C1->structs[CT_S_ITEM].wire_size, 16);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(ct_list_items_get(C1, &l, i, &it), 0);
		assert_int_equal(it.id, 0x200 + i);
		assert_int_equal(it.kind, i + 1);
		assert_true(it.addr == C_ADDR + i);
	}
	assert_int_equal(ct_list_items_get(C1, &l, 3, &it), 0);
	assert_int_equal(it.id, 0);
	assert_int_equal(ct_list_items_get(C1, &l, 4, &it), -ERANGE);
	/* built element by element, the list packs to the compiler's bytes */
	memset(&l2, 0, sizeof(l2));
	l2.present = C1->structs[CT_S_LIST].fields;
	l2.count = 3;
	l2.tail = 0x7a11;
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(ct_list_items_get(C1, &l, i, &it), 0);
		assert_int_equal(ct_list_items_set(C1, &l2, i, &it), 0);
	}
	memset(out, 0xee, sizeof(out));
	assert_int_equal(ct_pack(C1, CT_S_LIST, &l2, out, n), 0);
	assert_memory_equal(out, img, n);
	/* refusals change nothing: beyond the version's length, an element
	 * naming a field the version lacks, a list that lacks the array */
	memcpy(&l, &l2, sizeof(l));
	assert_int_equal(ct_list_items_set(C1, &l2, 4, &it), -ERANGE);
	it.present |= UINT64_C(1) << 40;
	assert_int_equal(ct_list_items_set(C1, &l2, 1, &it), -EOPNOTSUPP);
	assert_memory_equal(l.items, l2.items, sizeof(l.items));
	l.present &= ~CT_LIST_HAS_ITEMS;
	assert_int_equal(ct_list_items_get(C1, &l, 0, &it), -EOPNOTSUPP);
	(void)state;
}

static void set_runs(struct ct_runs *r)
{
	r->present = C1->structs[CT_S_RUNS].fields;
	r->a = 0xa1;
	r->b = C_U64;
	r->c = 0xc3c3c3c3;
	r->d = C_ADDR;
	r->e = 0xe5;
	r->f = 0xf6f6;
	r->g = C_BIG;
	r->h = 0x4848;
}

/* fields copied as one run across padding and a field not wanted: the
 * values land, the bytes between come out zero on pack whatever the
 * neutral struct's padding holds, and the wanted field inside the run's
 * span (f, wanted after g) is not overwritten */
static void test_coalesced_runs(void **state)
{
	struct ct_runs r;
	size_t n = img_cons_runs(img);

	assert_int_equal(n, 56);
	roundtrip(CT_S_RUNS, n, &r);
	assert_int_equal(r.a, 0xa1);
	assert_true(r.b == C_U64);
	assert_int_equal(r.c, 0xc3c3c3c3);
	assert_true(r.d == C_ADDR);
	assert_int_equal(r.e, 0xe5);
	assert_int_equal(r.f, 0xf6f6);
	assert_true(r.g == C_BIG);
	assert_int_equal(r.h, 0x4848);
	/* neutral padding full of garbage: the wire's stays canonical */
	memset(&r, 0xa5, sizeof(r));
	set_runs(&r);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(ct_pack(C1, CT_S_RUNS, &r, out, n), 0);
	assert_memory_equal(out, img, n);
	/* a value in the field not wanted is dropped, not carried along */
	memset(img + 20, 0x77, 4);
	assert_int_equal(ct_unpack(C1, CT_S_RUNS, img, n, &r), 0);
	assert_int_equal(r.c, 0xc3c3c3c3);
	assert_true(r.d == C_ADDR);
	assert_int_equal(ct_pack(C1, CT_S_RUNS, &r, out, n), 0);
	memset(img + 20, 0, 4);
	assert_memory_equal(out, img, n);
	(void)state;
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_typedef_chains),
	cmocka_unit_test(test_declare_aligned),
	cmocka_unit_test(test_anonymous_nested),
	cmocka_unit_test(test_named_union_arms),
	cmocka_unit_test(test_typedef_anonymous_struct),
	cmocka_unit_test(test_bitfields),
	cmocka_unit_test(test_arrays_macro_enum),
	cmocka_unit_test(test_flexible_array),
	cmocka_unit_test(test_xmacro_enum),
	cmocka_unit_test(test_pragma_pack),
	cmocka_unit_test(test_drf_and_macros),
	cmocka_unit_test(test_multidir_tagged),
	cmocka_unit_test(test_array_of_structs),
	cmocka_unit_test(test_coalesced_runs),
};

T_MAIN(tests)
