// SPDX-License-Identifier: MIT
/* Byte images of the constructs set, built by the compiler. */
#include <string.h>

#include "cons_root.h"
#include "img_cons.h"

#define OUT(s)                                                                 \
	do {                                                                   \
		memcpy(buf, &s, sizeof(s));                                    \
		return sizeof(s);                                              \
	} while (0)

size_t img_cons_types(void *buf)
{
	CONS_TYPES t;

	memset(&t, 0, sizeof(t));
	t.u8 = 0xf1;
	t.u16 = 0xf2f3;
	t.u32 = 0xf4f5f6f7;
	t.u64 = C_U64;
	t.s8 = -3;
	t.s16 = -300;
	t.s32 = -70000;
	t.s64 = C_S64;
	t.flag = 1;
	t.handle = C_HANDLE;
	OUT(t);
}

size_t img_cons_aligned(void *buf)
{
	CONS_ALIGNED a;

	memset(&a, 0, sizeof(a)); /* padding bytes are zero too */
	a.lo = 7;
	a.addr = C_ADDR;
	a.tail = 9;
	OUT(a);
}

size_t img_cons_nested(void *buf)
{
	CONS_NESTED n;

	memset(&n, 0, sizeof(n));
	n.kind = 2;
	n.low = C_LOW;
	n.high = C_HIGH;
	n.inner.a = 0x1111;
	n.inner.u.c = 0x2233;
	OUT(n);
}

size_t img_cons_anon_td(void *buf)
{
	CONS_ANON_TD a;

	memset(&a, 0, sizeof(a));
	a.x = 0x5a;
	a.y = 0xa5a5a5a5;
	OUT(a);
}

size_t img_cons_bits(void *buf)
{
	CONS_BITS b;

	memset(&b, 0, sizeof(b));
	b.enable = 1;
	b.mode = 5;
	b.count = 0xabc;
	b.delta = -7;
	b.big = C_BIG;
	b.tail = 0x5a;
	OUT(b);
}

size_t img_cons_arrays(void *buf)
{
	CONS_ARRAYS a;

	memset(&a, 0, sizeof(a));
	for (int i = 0; i < CONS_MAX_GPCS; i++)
		a.gpcMask[i] = 0x100u + (unsigned)i;
	for (int i = 0; i < CONS_ENGINE_COUNT; i++)
		a.engState[i] = (NvU8)(0x10 + i);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			a.grid[i][j] = (NvU16)(i * 10 + j);
	a.caps[0] = 0xf;
	a.caps[1] = 0x80000000u;
	OUT(a);
}

size_t img_cons_flex(void *buf, unsigned n)
{
	CONS_FLEX f;
	NvU64 e;

	memset(&f, 0, sizeof(f));
	f.count = n;
	f.flags = 0x3;
	memcpy(buf, &f, sizeof(f));
	for (unsigned i = 0; i < n; i++) {
		e = 0x1000ull * (i + 1);
		memcpy((char *)buf + offsetof(CONS_FLEX, entries) +
			       i * sizeof(e),
		       &e, sizeof(e));
	}
	return sizeof(f) + n * sizeof(e);
}

size_t img_cons_packed(void *buf)
{
	CONS_PACKED p;

	memset(&p, 0, sizeof(p));
	p.a = 1;
	p.b = 0xdeadbeef;
	p.c = 0x4242;
	OUT(p);
}

size_t img_cons_tagged(void *buf)
{
	struct cons_tagged t;

	memset(&t, 0, sizeof(t));
	t.id = 0x77;
	t.value = 0x8000000000000001ull;
	OUT(t);
}

size_t img_cons_list(void *buf)
{
	CONS_LIST l;

	memset(&l, 0, sizeof(l));
	l.count = 3;
	for (int i = 0; i < 3; i++) {
		l.items[i].id = (NvU16)(0x200 + i);
		l.items[i].kind = (NvU8)(i + 1);
		l.items[i].addr = C_ADDR + (NvU64)i;
	}
	l.tail = 0x7a11;
	OUT(l);
}

size_t img_cons_runs(void *buf)
{
	CONS_RUNS r;

	memset(&r, 0, sizeof(r));
	r.a = 0xa1;
	r.b = C_U64;
	r.c = 0xc3c3c3c3;
	r.d = C_ADDR;
	r.e = 0xe5;
	r.f = 0xf6f6;
	r.g = C_BIG;
	r.h = 0x4848;
	OUT(r);
}
