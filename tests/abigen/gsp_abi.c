// SPDX-License-Identifier: MIT
/*
 * The driver's generated firmware ABI layer (firmware/abi/: want list over
 * 535.54.03, 535.113.01 and 570.144) against byte images the C compiler
 * built from each version's own headers (img_gsp.c, once per version).
 * Every planted drift of gsp-firmware.md §4.1 is checked through the
 * neutral layer: values, "absent" bits, refusals, renumbered events and
 * the pinned Bullseye-dependent heap constant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "gspabi.h"
#include "gsp/abi_ver.h"
#include "gsp/boot.h"
#include "base/log.h"
#include "img_gsp.h"

#define V1 (&gspabi_r535_54_03)
#define V2 (&gspabi_r535_113_01)
#define V3 (&gspabi_r570_144)

static uint8_t img[1024], out[1024];
static char last_error[256];

/* the generated layer reports every refusal here (weak default replaced) */
void gspabi_error(int err, const char *tag, const char *fn, const char *why)
{
	snprintf(last_error, sizeof(last_error), "%d %s %s: %s", err, tag, fn,
		 why);
}

static void roundtrip(const struct gspabi_version *v, enum gspabi_struct_id id,
		      size_t n, void *neutral)
{
	assert_int_equal(v->structs[id].wire_size, n);
	assert_int_equal(gspabi_unpack(v, id, img, n, neutral), 0);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(gspabi_pack(v, id, neutral, out, n), 0);
	assert_memory_equal(out, img, n);
}

/* GSP_MSG_QUEUE_ELEMENT: 8-byte header (535.54.03) vs 48 bytes (535.113.01+) */
static void test_elem_header(void **state)
{
	struct gspabi_msg_elem e;
	int64_t hdr;

	roundtrip(V1, GSPABI_S_MSG_ELEM, img_g1_msg_elem(img), &e);
	assert_int_equal(e.checkSum, G_CHECKSUM);
	assert_int_equal(e.seqNum, G_SEQNUM);
	assert_false(e.present & GSPABI_MSG_ELEM_HAS_AUTHTAGBUFFER);
	assert_false(e.present & GSPABI_MSG_ELEM_HAS_ELEMCOUNT);
	assert_int_equal(gspabi_const_get(V1, GSPABI_C_ELEM_HDR_SIZE, &hdr), 0);
	assert_int_equal(hdr, 8);
	for (int i = 0; i < 2; i++) {
		const struct gspabi_version *v = i ? V3 : V2;

		roundtrip(v, GSPABI_S_MSG_ELEM,
			  i ? img_g3_msg_elem(img) : img_g2_msg_elem(img), &e);
		assert_true(e.present & GSPABI_MSG_ELEM_HAS_ELEMCOUNT);
		assert_int_equal(e.elemCount, G_ELEMCOUNT);
		assert_int_equal(e.authTagBuffer[15], 0xa5);
		assert_int_equal(e.checkSum, G_CHECKSUM);
		assert_int_equal(
			gspabi_const_get(v, GSPABI_C_ELEM_HDR_SIZE, &hdr), 0);
		assert_int_equal(hdr, 48);
	}
	/* a 535.113.01 header with elemCount cannot be sent to 535.54.03 */
	assert_int_equal(gspabi_pack(V1, GSPABI_S_MSG_ELEM, &e, out, 40),
			 -EOPNOTSUPP);
}

/* GspFwWprMeta: flat partitionRpc fields, then a union; padding -> fields */
static void test_wpr_meta(void **state)
{
	struct gspabi_wpr_meta m;

	roundtrip(V1, GSPABI_S_WPR_META, img_g1_wpr_meta(img), &m);
	assert_int_equal(m.partitionRpcAddr, G_PRPC_ADDR);
	assert_false(m.present &
		     GSPABI_WPR_META_HAS_SYSMEMADDROFCRASHREPORTQUEUE);
	assert_false(m.present & GSPABI_WPR_META_HAS_FLAGS);
	roundtrip(V2, GSPABI_S_WPR_META, img_g2_wpr_meta(img), &m);
	assert_int_equal(m.elfCodeOffset, G_ELF_CODE);
	assert_true(m.present &
		    GSPABI_WPR_META_HAS_SYSMEMADDROFCRASHREPORTQUEUE);
	assert_false(m.present & GSPABI_WPR_META_HAS_PMURESERVEDSIZE);
	roundtrip(V3, GSPABI_S_WPR_META, img_g3_wpr_meta(img), &m);
	assert_int_equal(m.flags, G_WPR_FLAGS);
	assert_int_equal(m.pmuReservedSize, G_PMU_RESERVED);
	assert_int_equal(m.verified, 0xa0a0a0a0a0a0a0a0ull);
	for (int i = 0; i < 3; i++) /* same size in all three */
		assert_int_equal(gspabi_versions[i]
					 ->structs[GSPABI_S_WPR_META]
					 .wire_size,
				 256);
	/* pmuReservedSize has nowhere to go in 535.113.01 */
	assert_int_equal(gspabi_pack(V2, GSPABI_S_WPR_META, &m, out, 256),
			 -EOPNOTSUPP);
	assert_non_null(strstr(last_error, "535.113.01"));
}

/* GSP_ARGUMENTS_CACHED: lockless offsets removed, bDmemStack inserted */
static void test_rmargs(void **state)
{
	struct gspabi_rmargs a;

	roundtrip(V2, GSPABI_S_RMARGS, img_g2_rmargs(img), &a);
	assert_int_equal(V2->structs[GSPABI_S_RMARGS].wire_size, 80);
	assert_int_equal(a.mq_cmdq_off, G_CMDQ_OFF);
	assert_int_equal(a.gpuInstance, G_GPU_INSTANCE);
	assert_int_equal(a.profiler_pa, G_PROFILER_PA);
	assert_false(a.present & GSPABI_RMARGS_HAS_BDMEMSTACK);
	roundtrip(V3, GSPABI_S_RMARGS, img_g3_rmargs(img), &a);
	assert_int_equal(V3->structs[GSPABI_S_RMARGS].wire_size, 72);
	assert_int_equal(a.mq_statq_off, G_STATQ_OFF);
	assert_int_equal(a.mq_pte_count, G_PTE_COUNT);
	assert_int_equal(a.bDmemStack, 1);
	assert_int_equal(a.profiler_pa, G_PROFILER_PA);
	assert_false(a.present & GSPABI_RMARGS_HAS_MQ_LOCKLESS_CMDQ_OFF);
}

/* GspStaticConfigInfo: masks u32 -> u64; GPC/TPC data moved to a control */
static void test_static_info(void **state)
{
	struct gspabi_static_info s;

	roundtrip(V2, GSPABI_S_STATIC_INFO, img_g2_static_info(img), &s);
	assert_int_equal(s.fbio_mask, G_FBIO32);
	assert_int_equal(s.gpcMask, G_GPCMASK);
	assert_int_equal(s.tpcCount, G_TPCCOUNT);
	assert_int_equal(s.ceClass, G_CECLASS);
	assert_string_equal((char *)s.gpuNameString, "NVIDIA model");
	roundtrip(V3, GSPABI_S_STATIC_INFO, img_g3_static_info(img), &s);
	assert_int_equal(s.fbio_mask, G_FBIO64);
	assert_int_equal(s.fbp_mask, G_FBP);
	assert_int_equal(s.ceClass, G_CECLASS);
	assert_false(s.present & GSPABI_STATIC_INFO_HAS_GPCMASK);
	assert_false(s.present & GSPABI_STATIC_INFO_HAS_TPCCOUNT);
	assert_null(V2->structs[GSPABI_S_GR_GPC_MASK].unpack);
	assert_non_null(V3->structs[GSPABI_S_GR_GPC_MASK].unpack);
	/* a 64-bit mask does not fit 535's u32: refused, not truncated */
	s.present = V2->structs[GSPABI_S_STATIC_INFO].fields;
	assert_int_equal(gspabi_pack(V2, GSPABI_S_STATIC_INFO, &s, out, 248),
			 -ERANGE);
}

/* rpc_os_error_log_v17_00 grows 268 -> 272 under the same name;
 * NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS: chipSKU[4] -> [9] */
static void test_grown_and_resized(void **state)
{
	struct gspabi_os_error_log l;
	struct gspabi_sku_info k;

	roundtrip(V2, GSPABI_S_OS_ERROR_LOG, img_g2_os_error_log(img), &l);
	assert_int_equal(V2->structs[GSPABI_S_OS_ERROR_LOG].wire_size, 268);
	assert_false(l.present &
		     GSPABI_OS_ERROR_LOG_HAS_PREEMPTIVEREMOVALPREVIOUSXID);
	roundtrip(V3, GSPABI_S_OS_ERROR_LOG, img_g3_os_error_log(img), &l);
	assert_int_equal(V3->structs[GSPABI_S_OS_ERROR_LOG].wire_size, 272);
	assert_int_equal(l.preemptiveRemovalPreviousXid, G_XID);
	assert_int_equal(l.chid, G_CHID);
	assert_string_equal((char *)l.errString, "Xid 79");
	/* a 535-sized message is too short for 570 */
	assert_int_equal(gspabi_unpack(V3, GSPABI_S_OS_ERROR_LOG, img, 268, &l),
			 -EINVAL);

	roundtrip(V2, GSPABI_S_SKU_INFO, img_g2_sku_info(img), &k);
	assert_memory_equal(k.chipSKU, "102\0\0\0\0\0", 9);
	roundtrip(V3, GSPABI_S_SKU_INFO, img_g3_sku_info(img), &k);
	assert_memory_equal(k.chipSKU, "TU102-A1", 9);
	assert_int_equal(k.BoardID, G_BOARD);
	k.present &= ~GSPABI_SKU_INFO_HAS_SKUCONFIGVERSION;
	assert_int_equal(gspabi_pack(V2, GSPABI_S_SKU_INFO, &k, out, 32),
			 -ERANGE);
}

/* events renumbered: the same number means different events */
static void test_events_renumbered(void **state)
{
	uint64_t wire;
	uint32_t n;

	for (int i = 0; i < 3; i++) {
		const struct gspabi_version *v = gspabi_versions[i];
		bool r570 = v == V3;

		assert_int_equal(
			gspabi_to_wire(v, GSPABI_T_EVENT,
				       GSPABI_EVENT_GSP_LOCKDOWN_NOTICE, &wire),
			0);
		assert_int_equal(wire, r570 ? 0x101c : 0x101d);
		assert_int_equal(
			gspabi_from_wire(v, GSPABI_T_EVENT, 0x101b, &n), 0);
		assert_int_equal(n,
				 r570 ? GSPABI_EVENT_NVLINK_FAULT_UP
				      : GSPABI_EVENT_GSP_SEND_USER_SHARED_DATA);
		/* unchanged numbers stay unchanged */
		assert_int_equal(gspabi_to_wire(v, GSPABI_T_EVENT,
						GSPABI_EVENT_GSP_INIT_DONE,
						&wire),
				 0);
		assert_int_equal(wire, 0x1001);
	}
	/* the driver reads 570's numbers in its own (535.113.01) numbering */
	assert_int_equal(nvl_gsp_abi_event_in(V3, 0x101c), 0x101d);
	assert_int_equal(nvl_gsp_abi_event_in(V3, 0x101b), 0x101c);
	assert_int_equal(nvl_gsp_abi_event_in(V3, 0x1001), 0x1001);
	assert_int_equal(nvl_gsp_abi_event_in(V2, 0x101b), 0x101b);
	assert_int_equal(nvl_gsp_abi_event_in(NULL, 0x101c), 0x101c);
	assert_true(gspabi_to_wire(V3, GSPABI_T_EVENT,
				   GSPABI_EVENT_GSP_SEND_USER_SHARED_DATA,
				   &wire) < 0);
	assert_true(
		gspabi_to_wire(V2, GSPABI_T_CONTROL,
			       GSPABI_CONTROL_NV2080_CTRL_CMD_GR_GET_GPC_MASK,
			       &wire) < 0);
}

/* heap constants; the LIBOS3 minimum depends on a define (pinned: off) */
static void test_heap_constants(void **state)
{
	static const int64_t os3[] = {20, 20, 22}, lo[] = {84, 84, 88},
			     hi[] = {276, 276, 280};
	int64_t v;

	for (int i = 0; i < 3; i++) {
		assert_int_equal(gspabi_const_get(gspabi_versions[i],
						  GSPABI_C_HEAP_OS_LIBOS3_MB,
						  &v),
				 0);
		assert_int_equal(v, os3[i]);
		assert_int_equal(gspabi_const_get(gspabi_versions[i],
						  GSPABI_C_HEAP_LIBOS3_MIN_MB,
						  &v),
				 0);
		assert_int_equal(v, lo[i]); /* 570: 88, not Bullseye's 170 */
		assert_int_equal(gspabi_const_get(gspabi_versions[i],
						  GSPABI_C_HEAP_LIBOS3_MAX_MB,
						  &v),
				 0);
		assert_int_equal(v, hi[i]);
	}
}

/* the driver's FB layout takes the heap rules of the booted version */
static void test_driver_heap_per_version(void **state)
{
	struct nvl_gsp_fb_layout a, b, c;

	/* LIBOS3, 1 GiB: 20 + 8 + 1 + 96 MiB (535) vs 22 + 8 + 1 + 96 (570) */
	assert_int_equal(nvl_gsp_fb_layout_version("535.113.01", 1ull << 30,
						   true, false, 1 << 20, 4096,
						   &a),
			 0);
	assert_int_equal(a.heap_size, 125ull << 20);
	assert_int_equal(nvl_gsp_fb_layout_version("570.144", 1ull << 30, true,
						   false, 1 << 20, 4096, &b),
			 0);
	assert_int_equal(b.heap_size, 127ull << 20);
	/* the default (an image that names no version) is 535.113.01 */
	assert_int_equal(
		nvl_gsp_fb_layout(1ull << 30, true, false, 1 << 20, 4096, &c),
		0);
	assert_memory_equal(&a, &c, sizeof(a));
	assert_int_equal(nvl_gsp_fb_layout_version("550.40.07", 1ull << 30,
						   true, false, 1 << 20, 4096,
						   &c),
			 -ENOEXEC);
	assert_non_null(strstr(nvl_error_msg(), "550.40.07"));
}

static void test_versions(void **state)
{
	char msg[128];

	assert_int_equal(gspabi_nversions, 3);
	assert_ptr_equal(gspabi_version_find("570.144"), V3);
	assert_ptr_equal(gspabi_version_find("535.54.03"), V1);
	assert_null(gspabi_version_find("550.40.07"));
	for (size_t i = 0; i < gspabi_nversions; i++)
		assert_int_equal(
			gspabi_versions[i]->selfcheck(msg, sizeof(msg)), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_elem_header),
	cmocka_unit_test(test_wpr_meta),
	cmocka_unit_test(test_rmargs),
	cmocka_unit_test(test_static_info),
	cmocka_unit_test(test_grown_and_resized),
	cmocka_unit_test(test_events_renumbered),
	cmocka_unit_test(test_heap_constants),
	cmocka_unit_test(test_driver_heap_per_version),
	cmocka_unit_test(test_versions),
};

T_MAIN(tests)
