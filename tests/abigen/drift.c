// SPDX-License-Identifier: MIT
/*
 * abigen on the drift set: two versions of the same interface with every
 * kind of drift seen between firmware releases (gsp-firmware.md §4.1).
 * Images come from the C compiler (img_drift.c, built per version); the
 * generated code must unpack every value, say "absent" for what a version
 * lacks, and pack back to the compiler's exact bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "drift.h"
#include "img_drift.h"

#define V1 (&drift_r1_0)
#define V2 (&drift_r2_0)

static uint8_t img[256], out[256], img1[256], img2[256];
static char last_error[256];

/* overrides the generated weak default: every refusal comes with a reason */
void drift_error(int err, const char *tag, const char *fn, const char *why)
{
	snprintf(last_error, sizeof(last_error), "%d %s %s: %s", err, tag, fn,
		 why);
}

/* unpack @n bytes of img with @v, pack again: must equal the compiler */
static void roundtrip(const struct drift_version *v, enum drift_struct_id id,
		      size_t n, void *neutral)
{
	assert_int_equal(v->structs[id].wire_size, n);
	assert_int_equal(drift_unpack(v, id, img, n, neutral), 0);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(drift_pack(v, id, neutral, out, n), 0);
	assert_memory_equal(out, img, n);
}

/* 535.54.03 -> 535.113.01: the element header grows from 8 to 48 bytes */
static void test_elem_header_8_to_48(void **state)
{
	struct drift_msg_elem e;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	roundtrip(V1, DRIFT_S_MSG_ELEM, img_v1_msg_elem(img), &e);
	assert_int_equal(e.checkSum, V_CHECKSUM);
	assert_int_equal(e.seqNum, V_SEQNUM);
	assert_false(e.present & DRIFT_MSG_ELEM_HAS_AUTHTAGBUFFER);
	assert_false(e.present & DRIFT_MSG_ELEM_HAS_ELEMCOUNT);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(drift_print_wire(V1, DRIFT_S_MSG_ELEM, img, 8, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "elemCount: absent"));
	assert_non_null(strstr(text, "seqNum: 1432778632 (0x55667788)"));
	free(text);

	roundtrip(V2, DRIFT_S_MSG_ELEM, img_v2_msg_elem(img), &e);
	assert_int_equal(e.checkSum, V_CHECKSUM);
	assert_int_equal(e.seqNum, V_SEQNUM);
	assert_int_equal(e.elemCount, V_ELEMCOUNT);
	assert_int_equal(e.authTagBuffer[15], 0xaf);
	assert_int_equal(e.aadBuffer[0], 0xb0);
	assert_true(e.present & DRIFT_MSG_ELEM_HAS_AUTHTAGBUFFER);
}

/* padding[7] becomes flags + padding[2] + pmuReservedSize, same size */
static void test_padding_becomes_fields(void **state)
{
	struct drift_wpr_meta m;

	roundtrip(V1, DRIFT_S_WPR_META, img_v1_wpr_meta(img), &m);
	assert_int_equal(V1->structs[DRIFT_S_WPR_META].wire_size, 32);
	assert_true(m.magic == V_MAGIC && m.verified == V_VERIFIED);
	assert_int_equal(m.bootCount, V_BOOTCOUNT);
	assert_int_equal(m.padding[1], 0x5a);
	assert_false(m.present & DRIFT_WPR_META_HAS_FLAGS);
	assert_false(m.present & DRIFT_WPR_META_HAS_PMURESERVEDSIZE);

	roundtrip(V2, DRIFT_S_WPR_META, img_v2_wpr_meta(img), &m);
	assert_int_equal(V2->structs[DRIFT_S_WPR_META].wire_size, 32);
	assert_int_equal(m.flags, V_WPR_FLAGS);
	assert_int_equal(m.pmuReservedSize, V_PMU_RESERVED);
	assert_true(m.magic == V_MAGIC && m.verified == V_VERIFIED);
	/* version 2's pad is 2 bytes: a third pad byte cannot be packed */
	m.padding[5] = 1;
	assert_int_equal(drift_pack(V2, DRIFT_S_WPR_META, &m, out, 32),
			 -ERANGE);
}

static void check_sys_common(const struct drift_sysinfo *s)
{
	assert_true(s->gpuPhysAddr == V_SYS(1));
	assert_true(s->gpuPhysFbAddr == V_SYS(2));
	assert_true(s->gpuPhysInstAddr == V_SYS(3));
	assert_true(s->nvDomainBusDeviceFunc == V_SYS(4));
	assert_true(s->simAccessBufPhysAddr == V_SYS(5));
	assert_true(s->pcieAtomicsOpMask == V_SYS(6));
	assert_true(s->consoleMemSize == V_SYS(7));
	assert_true(s->maxUserVa == V_SYS(8));
	assert_int_equal(s->pciConfigMirrorBase, V_SYS32(9));
	assert_int_equal(s->pciConfigMirrorSize, V_SYS32(10));
	assert_int_equal(s->oorArch, 11);
	assert_true(s->clPdbProperties == V_SYS(12));
	assert_int_equal(s->Chipset, V_SYS32(13));
	assert_int_equal(s->bGpuBehindBridge, 1);
	assert_int_equal(s->bMnocAvailable, 0);
	assert_int_equal(s->bUpstreamL0sUnsupported, 1);
	assert_int_equal(s->bUpstreamL1Unsupported, 1);
	assert_int_equal(s->hypervisorType, V_SYS32(14));
}

/* three fields inserted in the middle: everything after them moves */
static void test_fields_inserted_middle(void **state)
{
	struct drift_sysinfo s1, s2;

	roundtrip(V1, DRIFT_S_SYSINFO, img_v1_sysinfo(img), &s1);
	check_sys_common(&s1);
	assert_false(s1.present & DRIFT_SYSINFO_HAS_GPUPHYSIOADDR);
	assert_false(s1.present & DRIFT_SYSINFO_HAS_PCIDEVICEID);
	roundtrip(V2, DRIFT_S_SYSINFO, img_v2_sysinfo(img), &s2);
	check_sys_common(&s2);
	assert_true(s2.gpuPhysIoAddr == V_IOADDR);
	assert_int_equal(s2.PCIDeviceID, V_PCIDEV);
	assert_int_equal(s2.PCISubDeviceID, V_PCISUBDEV);
	assert_int_equal(V1->structs[DRIFT_S_SYSINFO].wire_size, 104);
	assert_int_equal(V2->structs[DRIFT_S_SYSINFO].wire_size, 112);
}

/* fbio_mask/fbp_mask u32 -> u64; a wide value never truncates silently */
static void test_mask_widened(void **state)
{
	struct drift_static_config c;

	roundtrip(V1, DRIFT_S_STATIC_CONFIG, img_v1_static_config(img, 0), &c);
	assert_true(c.fbio_mask == V_FBIO32);
	roundtrip(V2, DRIFT_S_STATIC_CONFIG, img_v2_static_config(img, 1), &c);
	assert_true(c.fbio_mask == V_FBIO64);
	assert_true(c.fbp_mask == V_FBP);
	assert_int_equal(drift_pack(V1, DRIFT_S_STATIC_CONFIG, &c, out, 16),
			 -ERANGE);
	assert_string_equal(last_error,
			    "-34 1.0 drift_r1_0_static_config_pack_as: "
			    "in->fbio_mask out of range");
	/* a narrow value translates from version 2 to version 1 */
	roundtrip(V2, DRIFT_S_STATIC_CONFIG, img_v2_static_config(img, 0), &c);
	assert_int_equal(drift_pack(V1, DRIFT_S_STATIC_CONFIG, &c, out, 16), 0);
	assert_int_equal(drift_unpack(V1, DRIFT_S_STATIC_CONFIG, out, 16, &c),
			 0);
	assert_true(c.fbio_mask == V_FBIO32 && c.l2CacheSize == V_L2);
}

/* chipSKU[4] -> [9], chipSKUMod[2] -> [5]; BoardID renamed boardId */
static void test_arrays_resized(void **state)
{
	struct drift_sku_info k;

	roundtrip(V1, DRIFT_S_SKU_INFO, img_v1_sku_info(img), &k);
	assert_int_equal(k.boardId, V_BOARD);
	assert_memory_equal(k.chipSKU, "G01\0\0\0\0\0", 9);
	assert_false(k.present & DRIFT_SKU_INFO_HAS_SKUCONFIGVERSION);
	roundtrip(V2, DRIFT_S_SKU_INFO, img_v2_sku_info(img), &k);
	assert_int_equal(k.boardId, V_BOARD); /* through the rename map */
	assert_memory_equal(k.chipSKU, "G001-A01", 9);
	assert_memory_equal(k.chipSKUMod, "A1b2", 5);
	assert_int_equal(k.skuConfigVersion, V_SKUCFG);
	assert_int_equal(sizeof(k.chipSKU), 9);
	/* 9 characters do not fit version 1's 4 */
	k.present &= ~DRIFT_SKU_INFO_HAS_SKUCONFIGVERSION;
	assert_int_equal(drift_pack(V1, DRIFT_S_SKU_INFO, &k, out, 12),
			 -ERANGE);
	/* and a field version 1 lacks is refused, not dropped */
	k.present |= DRIFT_SKU_INFO_HAS_SKUCONFIGVERSION;
	memset(k.chipSKU + 3, 0, 6);
	memset(k.chipSKUMod + 2, 0, 3);
	assert_int_equal(drift_pack(V1, DRIFT_S_SKU_INFO, &k, out, 12),
			 -EOPNOTSUPP);
}

/* rpc_os_error_log_v17_00 grows 44 -> 48 under the same versioned name */
static void test_versioned_name_grows(void **state)
{
	struct drift_os_error_log l;

	roundtrip(V1, DRIFT_S_OS_ERROR_LOG, img_v1_os_error_log(img), &l);
	assert_int_equal(V1->structs[DRIFT_S_OS_ERROR_LOG].wire_size, 44);
	assert_string_equal((char *)l.errString, "MMU fault");
	assert_int_equal(l.chid, V_CHID);
	assert_false(l.present &
		     DRIFT_OS_ERROR_LOG_HAS_PREEMPTIVEREMOVALPREVIOUSXID);
	roundtrip(V2, DRIFT_S_OS_ERROR_LOG, img_v2_os_error_log(img), &l);
	assert_int_equal(V2->structs[DRIFT_S_OS_ERROR_LOG].wire_size, 48);
	assert_int_equal(l.preemptiveRemovalPreviousXid, V_XID);
	/* a 44-byte message is too short for version 2 */
	assert_int_equal(drift_unpack(V2, DRIFT_S_OS_ERROR_LOG, img, 44, &l),
			 -EINVAL);
}

/* the same event number means different events in the two versions */
static void test_events_renumbered(void **state)
{
	uint32_t n;
	uint64_t w;

	assert_int_equal(drift_from_wire(V1, DRIFT_T_EVENT, 0x101b, &n), 0);
	assert_int_equal(n, DRIFT_EVENT_GSP_SEND_USER_SHARED_DATA);
	assert_int_equal(drift_from_wire(V2, DRIFT_T_EVENT, 0x101b, &n), 0);
	assert_int_equal(n, DRIFT_EVENT_NVLINK_FAULT_UP);
	assert_string_equal(drift_entry_name(DRIFT_T_EVENT, n),
			    "NVLINK_FAULT_UP");
	assert_int_equal(drift_to_wire(V1, DRIFT_T_EVENT,
				       DRIFT_EVENT_MIG_CI_CONFIG_UPDATE, &w),
			 0);
	assert_int_equal(w, 0x101e);
	assert_int_equal(drift_to_wire(V2, DRIFT_T_EVENT,
				       DRIFT_EVENT_MIG_CI_CONFIG_UPDATE, &w),
			 0);
	assert_int_equal(w, 0x101d);
	assert_int_equal(drift_to_wire(V2, DRIFT_T_EVENT,
				       DRIFT_EVENT_GSP_SEND_USER_SHARED_DATA,
				       &w),
			 -ENOENT);
	assert_int_equal(drift_from_wire(V2, DRIFT_T_EVENT, 0x101e, &n),
			 -ENOENT);
	/* MSENC (version 1) and NVENC (version 2) are one neutral engine */
	assert_int_equal(drift_from_wire(V1, DRIFT_T_ENGINE, 0x25, &n), 0);
	assert_int_equal(n, DRIFT_ENGINE_NVENC);
	assert_int_equal(drift_from_wire(V2, DRIFT_T_ENGINE, 0x25, &n), 0);
	assert_int_equal(n, DRIFT_ENGINE_NVENC);
}

/* gpcMask left the static-config RPC and is fetched by a control */
static void test_field_moved_to_control(void **state)
{
	struct drift_static_config c;
	struct drift_gpc_mask g;
	uint64_t w;

	roundtrip(V1, DRIFT_S_STATIC_CONFIG, img_v1_static_config(img, 0), &c);
	assert_true(c.present & DRIFT_STATIC_CONFIG_HAS_GPCMASK);
	assert_int_equal(c.gpcMask, V_GPCMASK);
	roundtrip(V2, DRIFT_S_STATIC_CONFIG, img_v2_static_config(img, 0), &c);
	assert_false(c.present & DRIFT_STATIC_CONFIG_HAS_GPCMASK);
	assert_int_equal(img_v1_gpc_mask(img), 0);
	assert_false(V1->structs[DRIFT_S_GPC_MASK].present);
	assert_int_equal(drift_unpack(V1, DRIFT_S_GPC_MASK, img, 4, &g),
			 -ENOENT);
	roundtrip(V2, DRIFT_S_GPC_MASK, img_v2_gpc_mask(img), &g);
	assert_int_equal(g.gpcMask, V_GPCMASK);
	assert_int_equal(
		drift_to_wire(V1, DRIFT_T_CONTROL,
			      DRIFT_CONTROL_NV2080_CTRL_CMD_GR_GET_GPC_MASK,
			      &w),
		-ENOENT);
	assert_int_equal(
		drift_to_wire(V2, DRIFT_T_CONTROL,
			      DRIFT_CONTROL_NV2080_CTRL_CMD_GR_GET_GPC_MASK,
			      &w),
		0);
	assert_int_equal(w, 0x2080122a);
	/* a control that moved to a new number */
	assert_int_equal(
		drift_to_wire(V1, DRIFT_T_CONTROL,
			      DRIFT_CONTROL_NV2080_CTRL_CMD_FB_GET_INFO_V2, &w),
		0);
	assert_int_equal(w, 0x20800a42);
	assert_int_equal(
		drift_to_wire(V2, DRIFT_T_CONTROL,
			      DRIFT_CONTROL_NV2080_CTRL_CMD_FB_GET_INFO_V2, &w),
		0);
	assert_int_equal(w, 0x208001b0);
}

/* the Bullseye trap: the pinned profile must give 88, not 88 + deltas */
static void test_define_dependent_constant(void **state)
{
	int64_t v;

	for (size_t i = 0; i < drift_nversions; i++) {
		assert_int_equal(drift_const_get(drift_versions[i],
						 DRIFT_C_HEAP_MIN_MB, &v),
				 0);
		assert_int_equal(v, 88);
	}
	assert_int_equal(drift_const_get(V1, DRIFT_C_LIBOS3_CARVEOUT_MB, &v),
			 0);
	assert_int_equal(v, 20);
	assert_int_equal(drift_const_get(V2, DRIFT_C_LIBOS3_CARVEOUT_MB, &v),
			 0);
	assert_int_equal(v, 22);
}

extern const struct drift_ops drift_ops_r1_0, drift_ops_r2_0;

/*
 * An array of structs whose element grows (8 -> 24 bytes) and whose length
 * changes (4 -> 6): the generated element accessors walk each version's
 * stride and length; an element built once packs into both layouts
 * (unless it names a field version 1 lacks).
 */
static void test_array_of_grown_structs(void **state)
{
	struct drift_engine_util e1, e2, b;
	struct drift_util_sample u;
	size_t n1 = img_v1_engine_util(img1), n2 = img_v2_engine_util(img2);

	assert_int_equal(n1, 4 + 4 * 8);
	assert_int_equal(n2, 8 + 6 * 24);
	assert_int_equal(drift_engine_util_samples_count(V1), 4);
	assert_int_equal(drift_engine_util_samples_count(V2), 6);
	roundtrip(V1, DRIFT_S_ENGINE_UTIL, img_v1_engine_util(img), &e1);
	roundtrip(V2, DRIFT_S_ENGINE_UTIL, img_v2_engine_util(img), &e2);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(drift_engine_util_samples_get(V1, &e1, i, &u),
				 0);
		assert_int_equal(u.util, V_UTIL(i));
		assert_int_equal(u.procId, V_PROC(i));
		assert_false(u.present & DRIFT_UTIL_SAMPLE_HAS_TIMESTAMP);
		assert_int_equal(drift_engine_util_samples_get(V2, &e2, i, &u),
				 0);
		assert_int_equal(u.util, V_UTIL(i));
		assert_int_equal(u.procId, V_PROC(i));
		assert_int_equal(u.subProcessID, i + 1);
		assert_true(u.timeStamp == V_UTIL_TS + i);
	}
	/* beyond each version's length */
	assert_int_equal(drift_engine_util_samples_get(V1, &e1, 4, &u),
			 -ERANGE);
	assert_int_equal(drift_engine_util_samples_get(V2, &e2, 5, &u), 0);
	assert_int_equal(drift_engine_util_samples_get(V2, &e2, 6, &u),
			 -ERANGE);
	/* built element by element for each version: the compiler's bytes */
	for (int v = 1; v <= 2; v++) {
		const struct drift_version *ver = v == 1 ? V1 : V2;

		memset(&b, 0, sizeof(b));
		b.present = ver->structs[DRIFT_S_ENGINE_UTIL].fields;
		b.count = 3;
		for (uint32_t i = 0; i < 3; i++) {
			u = (struct drift_util_sample){
				.present = ver->structs[DRIFT_S_UTIL_SAMPLE]
						   .fields,
				.util = V_UTIL(i),
				.procId = V_PROC(i),
			};
			if (v == 2) {
				u.subProcessID = i + 1;
				u.timeStamp = V_UTIL_TS + i;
			}
			assert_int_equal(
				drift_engine_util_samples_set(ver, &b, i, &u),
				0);
		}
		memset(out, 0xee, sizeof(out));
		assert_int_equal(drift_pack(ver, DRIFT_S_ENGINE_UTIL, &b, out,
					    v == 1 ? n1 : n2),
				 0);
		assert_memory_equal(out, v == 1 ? img1 : img2,
				    v == 1 ? n1 : n2);
	}
	/* a time stamp version 1 has no field for: refused, not dropped */
	u.present |= DRIFT_UTIL_SAMPLE_HAS_TIMESTAMP;
	assert_int_equal(drift_engine_util_samples_set(V1, &b, 0, &u),
			 -EOPNOTSUPP);
}

static void test_versions_and_bad_input(void **state)
{
	struct drift_msg_elem e;
	char msg[128];

	assert_int_equal(drift_nversions, 2);
	/* the ops skeleton: version 2 inherits from version 1 */
	assert_string_equal(drift_ops_r2_0.tag, "2.0");
	assert_ptr_equal(drift_ops_r2_0.base, &drift_ops_r1_0);
	assert_null(drift_ops_r1_0.base);
	assert_null(drift_ops_r1_0.os_error_log);
	assert_ptr_equal(drift_version_find("2.0"), V2);
	assert_null(drift_version_find("3.0"));
	for (size_t i = 0; i < drift_nversions; i++)
		assert_int_equal(drift_versions[i]->selfcheck(msg, sizeof(msg)),
				 0);
	img_v2_msg_elem(img);
	assert_int_equal(drift_unpack(V2, DRIFT_S_MSG_ELEM, img, 47, &e),
			 -EINVAL);
	assert_int_equal(drift_unpack(V2, DRIFT_S__COUNT, img, 48, &e),
			 -EINVAL);
	assert_int_equal(drift_unpack(V2, DRIFT_S_MSG_ELEM, img, 48, &e), 0);
	memset(out, 0x77, sizeof(out));
	assert_int_equal(drift_pack(V1, DRIFT_S_MSG_ELEM, &e, out, 8),
			 -EOPNOTSUPP);
	assert_int_equal(out[0], 0x77); /* a refused pack writes nothing */
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_elem_header_8_to_48),
	cmocka_unit_test(test_padding_becomes_fields),
	cmocka_unit_test(test_fields_inserted_middle),
	cmocka_unit_test(test_mask_widened),
	cmocka_unit_test(test_arrays_resized),
	cmocka_unit_test(test_versioned_name_grows),
	cmocka_unit_test(test_events_renumbered),
	cmocka_unit_test(test_field_moved_to_control),
	cmocka_unit_test(test_define_dependent_constant),
	cmocka_unit_test(test_array_of_grown_structs),
	cmocka_unit_test(test_versions_and_bad_input),
};

T_MAIN(tests)
