// SPDX-License-Identifier: MIT
/*
 * The message-queue framing on its own: layouts from message_queue_priv.h
 * and msgq_priv.h, the checksum, free space across the wrap, the read
 * pointer moved by whole elements (CVE-2024-58019), and every kind of bad
 * element rejected and counted. A fake GSP (fakegsp.h) writes the status
 * queue; the model only provides DMA mapping.
 */
#include "base/time.h"
#include "fakegsp.h"
#include "gspabi.h"
#include "kit.h"

struct rig {
	struct nvl_model *m;
	struct nvl_gsp_msgq q;
};

static void rig_up(struct rig *r)
{
	assert_int_equal(
		nvl_model_create(nvl_model_profile_find("tiny"), &r->m), 0);
	assert_int_equal(nvl_gsp_msgq_init(&r->q, nvl_model_hw(r->m)), 0);
	fake_init(&r->q);
}

static void rig_down(struct rig *r)
{
	nvl_gsp_msgq_fini(&r->q);
	nvl_model_destroy(r->m);
}

static void layouts(void **state)
{
	/* message_queue_priv.h (535.113.01): 48-byte element header, the
	 * RPC header at +0x30, payload at +0x50 */
	assert_int_equal(offsetof(GSP_MSG_QUEUE_ELEMENT, checkSum), 0x20);
	assert_int_equal(offsetof(GSP_MSG_QUEUE_ELEMENT, seqNum), 0x24);
	assert_int_equal(offsetof(GSP_MSG_QUEUE_ELEMENT, elemCount), 0x28);
	assert_int_equal(offsetof(GSP_MSG_QUEUE_ELEMENT, rpc), 0x30);
	assert_int_equal(sizeof(GSP_MSG_QUEUE_ELEMENT), 0x50);
	/* rpc_message_header_v03_00 */
	assert_int_equal(offsetof(rpc_message_header_v03_00, rpc_result), 16);
	assert_int_equal(offsetof(rpc_message_header_v03_00, sequence), 24);
	assert_int_equal(NV_VGPU_MSG_SIGNATURE_VALID, 0x43505256);
	assert_int_equal(NV_VGPU_MSG_HEADER_VERSION, 0x03000000);
	assert_int_equal(NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD, 71);
	/* GspFwWprMeta: 256 bytes, verified last */
	assert_int_equal(sizeof(GspFwWprMeta), 256);
	assert_int_equal(offsetof(GspFwWprMeta, sysmemAddrOfSignature), 0x48);
	assert_int_equal(offsetof(GspFwWprMeta, gspFwRsvdStart), 0x58);
	assert_int_equal(offsetof(GspFwWprMeta, verified), 0xf8);
}

/* the queue header page of every version, written through its layer:
 * msgq_priv.h's msgqTxHeader/msgqRxHeader, pointers where the layer says */
static void headers_per_version(void **state)
{
	struct rig r;

	rig_up(&r);
	for (size_t i = 0; i < gspabi_nversions; i++) {
		const struct gspabi_version *v = gspabi_versions[i];
		struct gspabi_msgq_tx tx;
		struct gspabi_msgq_rx rx;
		uint32_t wptr = 5, rptr = 7;

		assert_int_equal(nvl_gsp_msgq_set_abi(&r.q, v), 0);
		nvl_gsp_msgq_reset(&r.q);
		assert_int_equal(gspabi_unpack(v, GSPABI_S_MSGQ_TX,
					       r.q.mem + r.q.cmdq_off, 4096,
					       &tx),
				 0);
		assert_int_equal(tx.size, 0x40000);
		assert_int_equal(tx.msgSize, 0x1000);
		assert_int_equal(tx.msgCount, 63);
		assert_int_equal(tx.flags, MSGQ_FLAGS_SWAP_RX);
		assert_int_equal(tx.rxHdrOff,
				 v->structs[GSPABI_S_MSGQ_TX].wire_size);
		assert_int_equal(tx.entryOff, 0x1000);
		/* the pointers the driver moves are the layer's fields */
		memcpy(r.q.mem + r.q.cmdq_off +
			       gspabi_offset(v, GSPABI_S_MSGQ_TX,
					     GSPABI_MSGQ_TX_HAS_WRITEPTR),
		       &wptr, 4);
		assert_int_equal(nvl_gsp_msgq_cmd_wptr(&r.q), 5);
		memcpy(r.q.mem + r.q.statq_off + tx.rxHdrOff +
			       gspabi_offset(v, GSPABI_S_MSGQ_RX,
					     GSPABI_MSGQ_RX_HAS_READPTR),
		       &rptr, 4);
		assert_int_equal(nvl_gsp_msgq_cmd_rptr(&r.q), 7);
		assert_int_equal(
			gspabi_unpack(v, GSPABI_S_MSGQ_RX,
				      r.q.mem + r.q.cmdq_off + tx.rxHdrOff, 64,
				      &rx),
			0);
		assert_int_equal(rx.readPtr, 0);
		/* 535.113.01's offsets (msgq_priv.h), the same in all three */
		assert_int_equal(gspabi_offset(v, GSPABI_S_MSGQ_TX,
					       GSPABI_MSGQ_TX_HAS_WRITEPTR),
				 offsetof(msgqTxHeader, writePtr));
		assert_int_equal(
			gspabi_offset(v, GSPABI_S_MSG_ELEM,
				      GSPABI_MSG_ELEM_HAS_CHECKSUM),
			i == 0 ? 0 : offsetof(GSP_MSG_QUEUE_ELEMENT, checkSum));
	}
	rig_down(&r);
}

/* a layer that does not describe the queue headers is refused, and the
 * queue keeps the framing it had */
static void headers_refused(void **state)
{
	const struct gspabi_version *def = gspabi_version_find("535.113.01");
	struct gspabi_version bad;
	struct rig r;

	rig_up(&r);
	assert_ptr_equal(r.q.abi, def);
	bad = *def;
	bad.structs[GSPABI_S_MSGQ_RX].offsets = NULL;
	assert_int_equal(nvl_gsp_msgq_set_abi(&r.q, &bad), -EPROTO);
	bad = *def;
	bad.structs[GSPABI_S_MSGQ_TX].fields &= ~GSPABI_MSGQ_TX_HAS_WRITEPTR;
	assert_int_equal(nvl_gsp_msgq_set_abi(&r.q, &bad), -EPROTO);
	bad = *def;
	bad.structs[GSPABI_S_MSGQ_TX].present = false;
	assert_int_equal(nvl_gsp_msgq_set_abi(&r.q, &bad), -EPROTO);
	bad = *def;
	bad.consts[GSPABI_C_QUEUE_MSG_COUNT].value = 31;
	assert_int_equal(nvl_gsp_msgq_set_abi(&r.q, &bad), -EPROTO);
	assert_ptr_equal(r.q.abi, def);
	assert_int_equal(r.q.elem_hdr, 48);
	assert_int_equal(r.q.tx_hdr, 32);
	assert_int_equal(r.q.wptr_off, 16);
	rig_down(&r);
}

static void shared_region(void **state)
{
	struct rig r;
	const msgqTxHeader *h;
	uint64_t pte;

	rig_up(&r);
	/* PTE page(s), then cmdq and statq of 0x40000 bytes each */
	assert_int_equal(r.q.pte_pages, 1);
	assert_int_equal(r.q.cmdq_off, 0x1000);
	assert_int_equal(r.q.statq_off, 0x41000);
	assert_int_equal(r.q.size, 0x81000);
	for (unsigned i = 0; i < r.q.size / 4096; i++) {
		memcpy(&pte, r.q.mem + 8 * i, 8);
		assert_int_equal(pte, r.q.dma + 4096ull * i);
	}
	/* msgqTxHeader of the cmdq: the values msgqRxLink checks */
	h = (const msgqTxHeader *)(r.q.mem + r.q.cmdq_off);
	assert_int_equal(h->version, 0);
	assert_int_equal(h->size, 0x40000);
	assert_int_equal(h->msgSize, 0x1000);
	assert_int_equal(h->msgCount, 63);
	assert_int_equal(h->msgCount, (h->size - h->entryOff) / h->msgSize);
	assert_int_equal(h->flags, 1);
	assert_int_equal(h->rxHdrOff, 32);
	assert_int_equal(h->entryOff, 0x1000);
	rig_down(&r);
}

static void checksum_folds(void **state)
{
	uint8_t page[4096] = {0};
	uint32_t c;

	for (unsigned i = 0; i < sizeof(page); i++)
		page[i] = (uint8_t)(i * 13);
	memset(page + 0x20, 0, 4); /* checkSum is 0 while computing */
	c = nvl_gsp_msgq_checksum(page, sizeof(page));
	/* with checkSum written, the whole element XORs to zero */
	memcpy(page + 0x20, &c, 4);
	assert_int_equal(nvl_gsp_msgq_checksum(page, sizeof(page)), 0);
	page[100] ^= 4;
	assert_int_not_equal(nvl_gsp_msgq_checksum(page, sizeof(page)), 0);
}

static void free_space_across_wrap(void **state)
{
	struct rig r;
	msgqRxHeader *gsp_rx;
	msgqTxHeader *tx;
	uint8_t payload[4 * 4096];

	/* (rptr + cnt - wptr - 1) mod cnt: one slot stays empty */
	assert_int_equal(nvl_gsp_queue_free(0, 0, 63), 62);
	assert_int_equal(nvl_gsp_queue_free(5, 60, 63), 7);
	assert_int_equal(nvl_gsp_queue_free(60, 5, 63), 54);
	assert_int_equal(nvl_gsp_queue_free(3, 2, 63), 0);

	rig_up(&r);
	tx = (msgqTxHeader *)(r.q.mem + r.q.cmdq_off);
	gsp_rx = (msgqRxHeader *)(r.q.mem + r.q.statq_off + 32);
	tx->writePtr = 60;
	/* GSP read up to slot 2: 4 free slots (60, 61, 62, 0), a 5-page
	 * element must wait; a wrong "cnt - wptr" formula would see 3, a
	 * formula ignoring the wrap 60 */
	gsp_rx->readPtr = 2;
	memset(payload, 0x5c, sizeof(payload));
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 1, payload,
					   4 * 4096 + 16 - 0x50,
					   nvl_deadline_after(20 * 1000000)),
			 -ETIMEDOUT);
	gsp_rx->readPtr = 3;
	assert_int_equal(
		nvl_gsp_msgq_send(&r.q, 76, 1, payload, 4 * 4096 + 16 - 0x50,
				  nvl_deadline_after(NVL_NSEC_PER_SEC)),
		0);
	assert_int_equal(tx->writePtr, 2); /* 60, 61, 62, 0, 1 */
	/* the element was written through the wrap: reassemble and check */
	{
		uint8_t el[5 * 4096];

		for (int i = 0; i < 5; i++)
			memcpy(el + 4096 * i,
			       r.q.mem + r.q.cmdq_off + 0x1000 +
				       4096 * ((60 + i) % 63),
			       4096);
		assert_int_equal(nvl_gsp_msgq_checksum(el, sizeof(el)), 0);
		assert_int_equal(((GSP_MSG_QUEUE_ELEMENT *)el)->elemCount, 5);
		assert_int_equal(el[4 * 4096 + 16 - 1], 0x5c);
		assert_int_equal(el[4 * 4096 + 16], 0); /* padding */
	}
	rig_down(&r);
}

/* the slot @s of the cmdq: zero padding past @used bytes, checksum 0 */
static void check_slot(struct rig *r, unsigned s, size_t used)
{
	const uint8_t *p = r->q.mem + r->q.cmdq_off + 0x1000 + 4096 * s;

	assert_int_equal(nvl_gsp_msgq_checksum(p, 4096), 0);
	for (size_t i = used; i < 4096; i++)
		assert_int_equal(p[i], 0);
}

/*
 * The driver zeroes only the padding an earlier, longer element left in a
 * slot: a short element written where a long one was still has zero
 * padding and a good page-padded checksum, in a slot that was an
 * element's last and in one that was in its middle.
 */
static void padding_after_longer_element(void **state)
{
	int64_t dl = nvl_deadline_after(NVL_NSEC_PER_SEC);
	struct rig r;
	msgqRxHeader *gsp_rx;
	msgqTxHeader *tx;
	uint8_t payload[6000];

	rig_up(&r);
	tx = (msgqTxHeader *)(r.q.mem + r.q.cmdq_off);
	gsp_rx = (msgqRxHeader *)(r.q.mem + r.q.statq_off + 32);
	memset(payload, 0x5c, sizeof(payload));
	/* 3000 bytes in slot 0, then 8 where they were */
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 1, payload, 3000, dl), 0);
	tx->writePtr = 0;
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 2, payload, 8, dl), 0);
	check_slot(&r, 0, 0x50 + 8);
	/* two pages in slots 0-1, then 8 bytes in each (the GSP read them) */
	tx->writePtr = 0;
	gsp_rx->readPtr = 0;
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 3, payload, 6000, dl), 0);
	assert_int_equal(tx->writePtr, 2);
	tx->writePtr = 1;
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 4, payload, 8, dl), 0);
	check_slot(&r, 1, 0x50 + 8);
	tx->writePtr = 0;
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 5, payload, 8, dl), 0);
	check_slot(&r, 0, 0x50 + 8);
	/* a reset empties the queues: nothing stale after it either */
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 6, payload, 3000, dl), 0);
	nvl_gsp_msgq_reset(&r.q);
	fake_init(&r.q);
	assert_int_equal(nvl_gsp_msgq_send(&r.q, 76, 7, payload, 8, dl), 0);
	check_slot(&r, 0, 0x50 + 8);
	rig_down(&r);
}

static int recv1(struct rig *r, struct nvl_gsp_msg *m)
{
	return nvl_gsp_msgq_recv(&r->q, m);
}

/*
 * The receive path copies only the bytes a small reply uses and XORs the
 * page's padding in place: a byte changed in the padding still fails the
 * page-padded checksum, and the reply that follows is read whole.
 */
static void padding_in_checksum(void **state)
{
	struct nvl_gsp_msg m;
	struct rig r;
	uint8_t *slot0;

	rig_up(&r);
	slot0 = r.q.mem + r.q.statq_off + GSP_QUEUE_ENTRY_OFF;
	fake_put(&r.q, &(struct fake_elem){
			       .function = 76, .payload = "abc", .len = 3});
	slot0[4000] ^= 0x10; /* past the element's used bytes */
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(r.q.stats.bad_checksum, 1);
	fake_put(&r.q, &(struct fake_elem){
			       .function = 76, .payload = "xyz", .len = 3});
	assert_int_equal(recv1(&r, &m), 1);
	assert_int_equal(m.len, 3);
	assert_memory_equal(m.data, "xyz", 3);
	rig_down(&r);
}

/*
 * A continuation the caller gave a place for (q->rx_dst) is read straight
 * there, not through rx_buf; a first element, a continuation that does
 * not fit, or one with a bad checksum is not (the last counted, the
 * caller's bytes past what it received its own business), and each recv
 * takes the place once.
 */
static void continuation_in_place(void **state)
{
	const uint32_t cont = NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD;
	uint8_t dst[6000], p[5000];
	struct nvl_gsp_msg m;
	struct rig r;

	rig_up(&r);
	for (size_t i = 0; i < sizeof(p); i++)
		p[i] = (uint8_t)(i * 7 + 1);
	memset(dst, 0xee, sizeof(dst));
	/* a first element is always read into rx_buf */
	fake_put(&r.q,
		 &(struct fake_elem){
			 .function = 76, .seq = 0, .payload = p, .len = 9});
	r.q.rx_dst = dst;
	r.q.rx_dst_cap = sizeof(dst);
	assert_int_equal(recv1(&r, &m), 1);
	assert_ptr_not_equal(m.data, dst);
	assert_null(r.q.rx_dst); /* taken */
	/* a continuation that fits: in place, its bytes and nothing past
	 * their last word */
	fake_put(&r.q, &(struct fake_elem){.function = cont,
					   .seq = 1,
					   .payload = p,
					   .len = 4999});
	r.q.rx_dst = dst + 1;
	r.q.rx_dst_cap = sizeof(dst) - 1;
	assert_int_equal(recv1(&r, &m), 1);
	assert_ptr_equal(m.data, dst + 1);
	assert_int_equal(m.len, 4999);
	assert_memory_equal(dst + 1, p, 4999);
	assert_int_equal(dst[0], 0xee);
	assert_int_equal(dst[5001], 0xee);
	/* one that does not fit: rx_buf, the caller's bytes untouched */
	fake_put(&r.q,
		 &(struct fake_elem){
			 .function = cont, .seq = 2, .payload = p, .len = 100});
	memset(dst, 0xee, sizeof(dst));
	r.q.rx_dst = dst;
	r.q.rx_dst_cap = 99;
	assert_int_equal(recv1(&r, &m), 1);
	assert_ptr_not_equal(m.data, dst);
	assert_memory_equal(m.data, p, 100);
	assert_int_equal(dst[0], 0xee);
	/* a bad checksum: rejected and counted as before */
	fake_put(&r.q, &(struct fake_elem){.function = cont,
					   .seq = 3,
					   .payload = p,
					   .len = 64,
					   .bad_sum = true});
	r.q.rx_dst = dst;
	r.q.rx_dst_cap = sizeof(dst);
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(r.q.stats.bad_checksum, 1);
	assert_null(r.q.rx_dst);
	rig_down(&r);
}

static void cve_2024_58019(void **state)
{
	struct nvl_gsp_msg m;
	uint8_t p[4030];
	struct rig r;
	uint32_t seq = 0;

	rig_up(&r);
	memset(p, 0xa5, sizeof(p));
	/* RPC length 32 + 4030 fits one page; with the 48-byte element
	 * header it takes two */
	for (int i = 0; i < 100; i++) {
		fake_put(&r.q, &(struct fake_elem){.function = 76,
						   .seq = seq++,
						   .payload = p,
						   .len = sizeof(p)});
		fake_put(&r.q, &(struct fake_elem){.function = 65,
						   .seq = seq++,
						   .payload = "x",
						   .len = 1});
		assert_int_equal(recv1(&r, &m), 1);
		assert_int_equal(m.function, 76);
		assert_int_equal(m.len, sizeof(p));
		assert_int_equal(recv1(&r, &m), 1);
		assert_int_equal(m.function, 65);
	}
	assert_int_equal(recv1(&r, &m), 0);
	/* an element whose elemCount disagrees with its length is refused */
	fake_put(&r.q, &(struct fake_elem){.function = 76,
					   .seq = seq++,
					   .payload = p,
					   .len = sizeof(p),
					   .pages = 1});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(r.q.stats.bad_rpc + r.q.stats.bad_checksum, 1);
	rig_down(&r);
}

static void every_size_through_the_wrap(void **state)
{
	static uint8_t p[16 * 4096];
	struct nvl_gsp_msg m;
	struct rig r;
	uint32_t seq = 0;

	rig_up(&r);
	for (int round = 0; round < 4; round++)
		for (size_t pages = 1; pages <= 16; pages++) {
			size_t len = pages * 4096 - 0x50 - round;

			for (size_t i = 0; i < len; i++)
				p[i] = (uint8_t)(i + pages);
			fake_put(&r.q, &(struct fake_elem){.function = 76,
							   .seq = seq++,
							   .payload = p,
							   .len = len});
			assert_int_equal(recv1(&r, &m), 1);
			assert_int_equal(m.len, len);
			assert_memory_equal(m.data, p, len);
			assert_int_equal(m.full,
					 len == NVL_GSP_ELEM_PAYLOAD_MAX);
		}
	assert_int_equal(r.q.stats.received, 64);
	rig_down(&r);
}

static void bad_elements_counted(void **state)
{
	struct nvl_gsp_msg m;
	struct rig r;
	msgqTxHeader *h;

	rig_up(&r);
	h = fake_stat_tx(&r.q);
	/* bad checksum: dropped, the next good one read */
	fake_put(&r.q, &(struct fake_elem){.function = 76,
					   .seq = 0,
					   .payload = "a",
					   .len = 1,
					   .bad_sum = true});
	fake_put(&r.q,
		 &(struct fake_elem){
			 .function = 76, .seq = 1, .payload = "b", .len = 1});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(recv1(&r, &m), 1);
	assert_int_equal(m.data[0], 'b');
	/* duplicate seqNum: discarded */
	fake_put(&r.q,
		 &(struct fake_elem){
			 .function = 76, .seq = 1, .payload = "c", .len = 1});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(r.q.stats.duplicate, 1);
	/* a gap: counted, the message still read */
	fake_put(&r.q,
		 &(struct fake_elem){
			 .function = 76, .seq = 5, .payload = "d", .len = 1});
	assert_int_equal(recv1(&r, &m), 1);
	/* this gap, and the one the corrupt element left (its seqNum could
	 * not be trusted, so it did not count as received) */
	assert_int_equal(r.q.stats.bad_seq, 2);
	/* wrong signature, RPC length past the element */
	fake_put(&r.q, &(struct fake_elem){.function = 76,
					   .seq = 6,
					   .payload = "e",
					   .len = 1,
					   .bad_sig = true});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	fake_put(&r.q, &(struct fake_elem){.function = 76,
					   .seq = 7,
					   .payload = "f",
					   .len = 1,
					   .length_adj = 5000});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(r.q.stats.bad_rpc, 2);
	/* elemCount 0, 17, and more than was written: the queue resyncs */
	fake_put(&r.q, &(struct fake_elem){.function = 76,
					   .seq = 8,
					   .payload = "g",
					   .len = 1,
					   .pages = 17});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(recv1(&r, &m), 0);
	fake_put(&r.q, &(struct fake_elem){.function = 76,
					   .seq = 9,
					   .payload = "h",
					   .len = 1,
					   .pages = 0x7fffffff});
	assert_int_equal(recv1(&r, &m), -EBADMSG);
	assert_int_equal(r.q.stats.bad_header, 2);
	/* a write pointer out of range: the queue is broken */
	h->writePtr = 63;
	assert_int_equal(recv1(&r, &m), -EIO);
	/* a queue header the GSP has not written yet: nothing to read */
	h->entryOff = 0;
	assert_int_equal(recv1(&r, &m), 0);
	assert_int_equal(r.q.stats.bad_checksum, 1);
	rig_down(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(shared_region),
		cmocka_unit_test(headers_per_version),
		cmocka_unit_test(headers_refused),
		cmocka_unit_test(checksum_folds),
		cmocka_unit_test(free_space_across_wrap),
		cmocka_unit_test(cve_2024_58019),
		cmocka_unit_test(padding_after_longer_element),
		cmocka_unit_test(padding_in_checksum),
		cmocka_unit_test(continuation_in_place),
		cmocka_unit_test(every_size_through_the_wrap),
		cmocka_unit_test(bad_elements_counted),
	};

	return t_main(__FILE__, tests, NVL_ARRAY_SIZE(tests), argc, argv);
}
