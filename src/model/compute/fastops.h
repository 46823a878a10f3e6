/* SPDX-License-Identifier: MIT */
/*
 * The fast handlers of predecode.c, written once and compiled twice: for
 * the baseline instruction set and, selected at run time, for AVX2+FMA.
 * The includer defines FAST(name) (the handler's name in this copy),
 * FAST_ATTR (its target attribute) and FAST_PACK(t) (32 all-ones-or-zero
 * lanes to a lane mask), and FAST_AVX2 in the AVX2 copy (a few handlers
 * use its intrinsics where the compiler's vectorisation falls short). Every handler computes all 32 lanes
 * into a local array with loops the compiler vectorises, then writes back
 * under the execution mask with a blend (fast_wb).
 */

#define SRC(n)                                                                 \
	((f)->imm[n] ? ((f)->cbm >> (n)&1 ? w->krow[(f)->kref[n]] : (f)->k[n]) \
		     : (const uint32_t *)w->r[(f)->src[n]])

FAST_ATTR static inline void FAST(wb)(struct cs_warp *w,
				      const struct cs_fast *f,
				      const uint32_t *res, uint32_t exec)
{
	uint32_t *d;

	if (f->d == NVL_ISA_RZ)
		return;
	d = w->r[f->d];
	if (exec == NVL_CS_ALL) {
		for (int i = 0; i < NVL_CS_LANES; i++)
			d[i] = res[i];
		return;
	}
	for (int i = 0; i < NVL_CS_LANES; i++) {
		uint32_t m = 0u - ((exec >> i) & 1);

		d[i] = (res[i] & m) | (d[i] & ~m);
	}
}

FAST_ATTR static inline void FAST(pset)(struct cs_warp *w, unsigned p,
					uint32_t res, uint32_t exec)
{
	if (p != NVL_ISA_PT)
		w->p[p] = (w->p[p] & ~exec) | (res & exec);
}

/*
 * Handlers of one 32-bit result: computed 8 lanes at a time (a vector of
 * the lanes' sources is read before the same lanes' results are written),
 * straight into the destination row when every lane runs (a source may
 * be that row), else into @res and blended (fast_wb).
 */
#define OUT(res) (exec == NVL_CS_ALL && f->d != NVL_ISA_RZ ? w->r[f->d] : (res))
#define DONE(out, res)                                                         \
	do {                                                                   \
		if ((out) == (res))                                            \
			FAST(wb)(w, f, res, exec);                             \
	} while (0)
#define V8(p, i) (*(cs_v8u *)((p) + (i)))
#define V8C(p, i) (*(const cs_v8u *)((p) + (i)))
#define F8(p, i) (*(cs_v8f *)((p) + (i)))
#define F8C(p, i) (*(const cs_v8f *)((p) + (i)))

FAST_ATTR static void FAST(mov)(struct cs_warp *w, const struct cs_fast *f,
				uint32_t exec)
{
	uint32_t res[NVL_CS_LANES], *out = OUT(res);
	const uint32_t *b = SRC(1);

	for (int i = 0; i < NVL_CS_LANES; i += 8)
		V8(out, i) = V8C(b, i);
	DONE(out, res);
}

FAST_ATTR static void FAST(iadd3)(struct cs_warp *w, const struct cs_fast *f,
				  uint32_t exec)
{
	uint32_t res[NVL_CS_LANES], *out = OUT(res);
	const uint32_t *a = SRC(0), *b = SRC(1), *c = SRC(2);

	for (int i = 0; i < NVL_CS_LANES; i += 8)
		V8(out, i) = V8C(a, i) + V8C(b, i) + V8C(c, i);
	DONE(out, res);
}

FAST_ATTR static void FAST(imad)(struct cs_warp *w, const struct cs_fast *f,
				 uint32_t exec)
{
	uint32_t res[NVL_CS_LANES], *out = OUT(res);
	const uint32_t *a = SRC(0), *b = SRC(1), *c = SRC(2);

	for (int i = 0; i < NVL_CS_LANES; i += 8)
		V8(out, i) = V8C(a, i) * V8C(b, i) + V8C(c, i);
	DONE(out, res);
}

/* LOP3 with any LUT: three levels of bitwise multiplexers (c, b, a) */
FAST_ATTR static void FAST(lop3)(struct cs_warp *w, const struct cs_fast *f,
				 uint32_t exec)
{
	uint32_t res[NVL_CS_LANES], m[8];
	const uint32_t *a = SRC(0), *b = SRC(1), *c = SRC(2);

	for (int k = 0; k < 8; k++)
		m[k] = 0u - ((f->u0 >> k) & 1);
	for (int i = 0; i < NVL_CS_LANES; i++) {
		uint32_t x = a[i], y = b[i], z = c[i];
		uint32_t c0 = (z & m[1]) | (~z & m[0]);
		uint32_t c1 = (z & m[3]) | (~z & m[2]);
		uint32_t c2 = (z & m[5]) | (~z & m[4]);
		uint32_t c3 = (z & m[7]) | (~z & m[6]);
		uint32_t e0 = (y & c1) | (~y & c0);
		uint32_t e1 = (y & c3) | (~y & c2);

		res[i] = (x & e1) | (~x & e0);
	}
	FAST(wb)(w, f, res, exec);
}

/* the common LUTs: a ^ b (0x3c), a & b (0xc0), a | b (0xfc), a ^ b ^ c */
#define LOP3_FIXED(name, expr)                                                 \
	FAST_ATTR static void FAST(name)(                                      \
		struct cs_warp * w, const struct cs_fast *f, uint32_t exec)    \
	{                                                                      \
		uint32_t res[NVL_CS_LANES], *out = OUT(res);                   \
		const uint32_t *a = SRC(0), *b = SRC(1), *c = SRC(2);          \
                                                                               \
		(void)c;                                                       \
		for (int i = 0; i < NVL_CS_LANES; i += 8)                      \
			V8(out, i) = (expr);                                   \
		DONE(out, res);                                                \
	}
LOP3_FIXED(lop3_xor, V8C(a, i) ^ V8C(b, i))
LOP3_FIXED(lop3_and, V8C(a, i) & V8C(b, i))
LOP3_FIXED(lop3_or, V8C(a, i) | V8C(b, i))
LOP3_FIXED(lop3_xor3, V8C(a, i) ^ V8C(b, i) ^ V8C(c, i))
#undef LOP3_FIXED

FAST_ATTR static void FAST(sel)(struct cs_warp *w, const struct cs_fast *f,
				uint32_t exec)
{
	uint32_t res[NVL_CS_LANES];
	const uint32_t *a = SRC(0), *b = SRC(1);
	uint32_t pm = w->p[f->ps0] ^ f->ps0_xor;

	for (int i = 0; i < NVL_CS_LANES; i++) {
		uint32_t m = 0u - ((pm >> i) & 1);

		res[i] = (a[i] & m) | (b[i] & ~m);
	}
	FAST(wb)(w, f, res, exec);
}

/*
 * SHF by an immediate: {c:a} as 64 bits shifted by u0 (< 64, clamped or
 * wrapped at decode time), the low or (u1 & 4) high word kept.
 */
#define SHF_FIXED(name, type, op)                                                \
	FAST_ATTR static void FAST(name)(                                        \
		struct cs_warp * w, const struct cs_fast *f, uint32_t exec)      \
	{                                                                        \
		uint32_t res[NVL_CS_LANES];                                      \
		const uint32_t *a = SRC(0), *c = SRC(2);                         \
		unsigned s = f->u0;                                              \
                                                                                 \
		if (f->u1 & 4) {                                                 \
			for (int i = 0; i < NVL_CS_LANES; i++)                   \
				res[i] =                                         \
					(uint32_t)((uint64_t)(((                 \
							   type)((uint64_t)c[i]  \
									 << 32 | \
								 a[i]))          \
								      op s) >>   \
						   32);                          \
		} else {                                                         \
			for (int i = 0; i < NVL_CS_LANES; i++)                   \
				res[i] = (uint32_t)((                            \
					type)((uint64_t)c[i] << 32 | a[i])       \
							    op s);               \
		}                                                                \
		FAST(wb)(w, f, res, exec);                                       \
	}
/* the 32-bit shifts by s < 32 that need one word: a << s, c >> s */
#define SHF_WORD(name, expr)                                                   \
	FAST_ATTR static void FAST(name)(                                      \
		struct cs_warp * w, const struct cs_fast *f, uint32_t exec)    \
	{                                                                      \
		uint32_t res[NVL_CS_LANES];                                    \
		const uint32_t *a = SRC(0), *c = SRC(2);                       \
		unsigned s = f->u0;                                            \
                                                                               \
		(void)a;                                                       \
		(void)c;                                                       \
		for (int i = 0; i < NVL_CS_LANES; i++)                         \
			res[i] = (expr);                                       \
		FAST(wb)(w, f, res, exec);                                     \
	}
SHF_WORD(shl_lo, a[i] << s)
SHF_WORD(shr_hi, c[i] >> s)
SHF_WORD(sar_hi, (uint32_t)((int32_t)c[i] >> s))
#undef SHF_WORD

SHF_FIXED(shf_l, uint64_t, <<)
SHF_FIXED(shf_r, uint64_t, >>)
SHF_FIXED(shf_ra, int64_t, >>)
#undef SHF_FIXED

/*
 * ISETP: u0 = compare mask (LT 1, EQ 2, GT 4) | combine op << 8, u1 = the
 * sign flip that turns a signed compare into an unsigned one.
 */
FAST_ATTR static void FAST(isetp)(struct cs_warp *w, const struct cs_fast *f,
				  uint32_t exec)
{
	const uint32_t *a = SRC(0), *b = SRC(1);
	uint32_t op = f->u0 & 0xff, bop = f->u0 >> 8, flip = f->u1;
	uint32_t mlt = 0u - (op & 1), meq = 0u - ((op >> 1) & 1);
	uint32_t mgt = 0u - ((op >> 2) & 1);
	uint32_t acc = w->p[f->ps0] ^ f->ps0_xor, cm, t[NVL_CS_LANES];
	uint32_t r0, r1;

	for (int i = 0; i < NVL_CS_LANES; i++) {
		uint32_t x = a[i] ^ flip, y = b[i] ^ flip;

		t[i] = ((0u - (x < y)) & mlt) | ((0u - (x == y)) & meq) |
		       ((0u - (x > y)) & mgt);
	}
	cm = FAST_PACK(t);
	if (op == 7)
		cm = NVL_CS_ALL;
	r0 = bop == 0 ? cm & acc : bop == 1 ? cm | acc : cm ^ acc;
	r1 = bop == 0 ? ~cm & acc : bop == 1 ? ~cm | acc : ~cm ^ acc;
	FAST(pset)(w, f->pd0, r0, exec);
	FAST(pset)(w, f->pd1, r1, exec);
}

/*
 * ISETP with one of LT EQ LE GT NE GE: one compare per lane. u0 = mode
 * (0 a == b, 1 a < b, 2 b < a) | 4 to invert | combine op << 8; u1 = the
 * flip that makes the compare a signed one (0x80000000 for U32).
 */
FAST_ATTR static void FAST(isetp1)(struct cs_warp *w, const struct cs_fast *f,
				   uint32_t exec)
{
	const uint32_t *a = SRC(0), *b = SRC(1);
	uint32_t mode = f->u0 & 3, inv = 0u - ((f->u0 >> 2) & 1);
	uint32_t bop = f->u0 >> 8, flip = f->u1, t[NVL_CS_LANES];
	uint32_t acc = w->p[f->ps0] ^ f->ps0_xor, cm, r0, r1;

	if (mode == 0) {
		for (int i = 0; i < NVL_CS_LANES; i++)
			t[i] = (0u - (a[i] == b[i])) ^ inv;
	} else if (mode == 1) {
		for (int i = 0; i < NVL_CS_LANES; i++)
			t[i] = (0u - ((int32_t)(a[i] ^ flip) <
				      (int32_t)(b[i] ^ flip))) ^
			       inv;
	} else {
		for (int i = 0; i < NVL_CS_LANES; i++)
			t[i] = (0u - ((int32_t)(b[i] ^ flip) <
				      (int32_t)(a[i] ^ flip))) ^
			       inv;
	}
	cm = FAST_PACK(t);
	r0 = bop == 0 ? cm & acc : bop == 1 ? cm | acc : cm ^ acc;
	r1 = bop == 0 ? ~cm & acc : bop == 1 ? ~cm | acc : ~cm ^ acc;
	FAST(pset)(w, f->pd0, r0, exec);
	FAST(pset)(w, f->pd1, r1, exec);
}

/* S2R of SR_LANEID (0), SR_TID.X/Y/Z (0x21-0x23), SR_CTAID.X/Y/Z
 * (0x25-0x27) */
FAST_ATTR static void FAST(s2r)(struct cs_warp *w, const struct cs_fast *f,
				uint32_t exec)
{
	uint32_t res[NVL_CS_LANES], *out = OUT(res), sr = f->u0;

	if (sr == 0) {
		for (int i = 0; i < NVL_CS_LANES; i++)
			out[i] = (uint32_t)i;
	} else if (sr < 0x25) {
		for (int i = 0; i < NVL_CS_LANES; i += 8)
			V8(out, i) = V8C(w->tid[sr - 0x21], i);
	} else {
		for (int i = 0; i < NVL_CS_LANES; i++)
			out[i] = w->ctaid[sr - 0x25];
	}
	DONE(out, res);
}

/* FADD without rounding, FTZ or saturation: one IEEE single add */
FAST_ATTR static void FAST(fadd)(struct cs_warp *w, const struct cs_fast *f,
				 uint32_t exec)
{
	uint32_t res[NVL_CS_LANES], *out = OUT(res);
	const uint32_t *a = SRC(0), *b = SRC(1);

	/* IEEE single adds, 8 lanes at a time */
	for (int i = 0; i < NVL_CS_LANES; i += 8)
		F8(out, i) = F8C(a, i) + F8C(b, i);
	DONE(out, res);
}

/* write the pair d:d+1 under @exec (d + 1 = RZ: the high word is dropped) */
FAST_ATTR static inline void FAST(wb2)(struct cs_warp *w,
				       const struct cs_fast *f,
				       const uint32_t *lo, const uint32_t *hi,
				       uint32_t exec)
{
	struct cs_fast f1;

	if (f->d == NVL_ISA_RZ)
		return;
	FAST(wb)(w, f, lo, exec);
	if (f->d + 1 < NVL_ISA_RZ) {
		f1.d = (uint8_t)(f->d + 1);
		FAST(wb)(w, &f1, hi, exec);
	}
}

/*
 * lo:hi = a * b + c, 64 bits per lane, the product signed (@sgn) or
 * unsigned; c is ch:cl per lane, or @c64 for every lane when @cl is NULL.
 * Each lane's sources are read before its results are written (8 lanes at
 * a time in the AVX2 copy), so lo and hi may be source rows.
 */
FAST_ATTR static inline void FAST(wide)(uint32_t *lo, uint32_t *hi,
					const uint32_t *a, const uint32_t *b,
					const uint32_t *cl, const uint32_t *ch,
					uint64_t c64, bool sgn)
{
#ifdef FAST_AVX2
	const __m256i kc = _mm256_set1_epi64x((long long)c64);

	for (int i = 0; i < NVL_CS_LANES; i += 8) {
		__m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
		__m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
		__m256i va1 = _mm256_srli_epi64(va, 32);
		__m256i vb1 = _mm256_srli_epi64(vb, 32);
		__m256i ce = kc, co = kc, pe, po;

		if (cl) {
			__m256i l =
				_mm256_loadu_si256((const __m256i *)(cl + i));
			__m256i h =
				_mm256_loadu_si256((const __m256i *)(ch + i));

			/* even lanes' 64-bit addends, then odd lanes' */
			ce = _mm256_blend_epi32(l, _mm256_slli_epi64(h, 32),
						0xaa);
			co = _mm256_blend_epi32(_mm256_srli_epi64(l, 32), h,
						0xaa);
		}
		pe = sgn ? _mm256_mul_epi32(va, vb) : _mm256_mul_epu32(va, vb);
		po = sgn ? _mm256_mul_epi32(va1, vb1)
			 : _mm256_mul_epu32(va1, vb1);
		pe = _mm256_add_epi64(pe, ce);
		po = _mm256_add_epi64(po, co);
		_mm256_storeu_si256(
			(__m256i *)(lo + i),
			_mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32),
					   0xaa));
		_mm256_storeu_si256(
			(__m256i *)(hi + i),
			_mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po,
					   0xaa));
	}
#else
	for (int i = 0; i < NVL_CS_LANES; i++) {
		uint64_t p =
			sgn ? (uint64_t)((int64_t)(int32_t)a[i] * (int32_t)b[i])
			    : (uint64_t)a[i] * b[i];

		p += cl ? ((uint64_t)ch[i] << 32 | cl[i]) : c64;
		lo[i] = (uint32_t)p;
		hi[i] = (uint32_t)(p >> 32);
	}
#endif
}

/* IMAD.WIDE's result under @exec: straight into d:d+1 when every lane
 * writes both words, else through a blend */
FAST_ATTR static inline void
FAST(wide_wb)(struct cs_warp *w, const struct cs_fast *f, uint32_t exec,
	      const uint32_t *a, const uint32_t *b, const uint32_t *cl,
	      const uint32_t *ch, uint64_t c64, bool sgn)
{
	uint32_t lo[NVL_CS_LANES], hi[NVL_CS_LANES];

	if (f->d == NVL_ISA_RZ)
		return;
	if (exec == NVL_CS_ALL && f->d + 1 < NVL_ISA_RZ) {
		FAST(wide)(w->r[f->d], w->r[f->d + 1], a, b, cl, ch, c64, sgn);
		return;
	}
	FAST(wide)(lo, hi, a, b, cl, ch, c64, sgn);
	FAST(wb2)(w, f, lo, hi, exec);
}

/*
 * IMAD.WIDE(.U32): d:d+1 = a * b + c, 64 bits wide, the product signed
 * (S) or unsigned (U). c is the register pair src[2]:src[2]+1 (RZ and
 * R254 have a zero high word), or (K) one 64-bit value for every lane:
 * the constant in rows kref[2] and kref[2] + 1, or the sign-extended
 * immediate in k[2][0] / k[2][1].
 */
#define IMAD_WIDE(name, sgn)                                                   \
	FAST_ATTR static void FAST(imad_wide_##name)(                          \
		struct cs_warp * w, const struct cs_fast *f, uint32_t exec)    \
	{                                                                      \
		const uint32_t *a = SRC(0), *b = SRC(1);                       \
		const uint32_t *cl = w->r[f->src[2]];                          \
		const uint32_t *ch = f->src[2] >= 254 ? w->r[NVL_ISA_RZ]       \
						      : w->r[f->src[2] + 1];   \
                                                                               \
		FAST(wide_wb)(w, f, exec, a, b, cl, ch, 0, sgn);               \
	}                                                                      \
	FAST_ATTR static void FAST(imad_wide_k##name)(                         \
		struct cs_warp * w, const struct cs_fast *f, uint32_t exec)    \
	{                                                                      \
		const uint32_t *a = SRC(0), *b = SRC(1);                       \
		uint64_t c =                                                   \
			f->cbm & 4                                             \
				? ((uint64_t)w->krow[f->kref[2] + 1][0]        \
					   << 32 |                             \
				   w->krow[f->kref[2]][0])                     \
				: ((uint64_t)f->k[2][1] << 32 | f->k[2][0]);   \
                                                                               \
		FAST(wide_wb)(w, f, exec, a, b, NULL, NULL, c, sgn);           \
	}
IMAD_WIDE(u, false)
IMAD_WIDE(s, true)
#undef IMAD_WIDE

/* FFMA without rounding, FTZ or saturation: one exact fused multiply-add */
FAST_ATTR static void FAST(ffma)(struct cs_warp *w, const struct cs_fast *f,
				 uint32_t exec)
{
	uint32_t res[NVL_CS_LANES];
	const uint32_t *a = SRC(0), *b = SRC(1), *c = SRC(2);

	for (int i = 0; i < NVL_CS_LANES; i++) {
		float x, y, z, r;

		memcpy(&x, &a[i], 4);
		memcpy(&y, &b[i], 4);
		memcpy(&z, &c[i], 4);
		r = __builtin_fmaf(x, y, z);
		memcpy(&res[i], &r, 4);
	}
	FAST(wb)(w, f, res, exec);
}

/*
 * A coalesced LDG/STG.E (CS_FAST_MEM): lane i at base + size * i (k[0][i],
 * one high word, no low word wrapping) in one range of the interpreter's
 * TLB, copied in one go; false for any other shape or a miss (cs_exec
 * then runs the instruction and reports misalignment and faults).
 */
/* 64- and 128-bit elements: lane i's words interleaved through a buffer */
FAST_ATTR static __attribute__((noinline)) void
FAST(mem_wide)(struct cs_warp *w, const struct cs_fast *f, uint8_t *p)
{
	uint32_t buf[4 * NVL_CS_LANES];
	unsigned nw = f->msize / 4;

	if (f->mstore) {
		for (int i = 0; i < NVL_CS_LANES; i++)
			for (unsigned k = 0; k < nw; k++)
				buf[nw * i + k] = w->r[f->mdata + k][i];
		CS_MEM_COPY(p, buf, f->msize * NVL_CS_LANES);
		return;
	}
	CS_MEM_COPY(buf, p, f->msize * NVL_CS_LANES);
	for (int i = 0; i < NVL_CS_LANES; i++)
		for (unsigned k = 0; k < nw; k++)
			w->r[f->mdata + k][i] = buf[nw * i + k];
}

FAST_ATTR static bool FAST(mem)(struct cs_cta *cta, struct cs_warp *w,
				const struct cs_fast *f, uint32_t pc)
{
	const uint32_t *alo = w->r[f->mreg], *ahi = w->r[f->mreg + 1];
	uint32_t sz = f->msize, bad = 0;
	uint32_t lo0 = alo[0], hi0 = ahi[0];
	uint64_t a0;
	uint8_t *p;

	for (int i = 0; i < NVL_CS_LANES; i++)
		bad |= (alo[i] - lo0 - f->k[0][i]) | (ahi[i] ^ hi0);
	if (bad || lo0 > UINT32_MAX - sz * (NVL_CS_LANES - 1))
		return false;
	a0 = (lo0 | (uint64_t)hi0 << 32) + (uint64_t)f->moff;
	if ((a0 & (sz - 1)) || a0 > UINT64_MAX - sz * NVL_CS_LANES)
		return false;
	p = cs_tlb_get(cta, a0, sz * NVL_CS_LANES, f->mstore, pc);
	if (!p)
		return false;
	/*
	 * A hint for the host's cache: the row CS_PREFETCH_ROWS warps ahead
	 * (where this instruction of a later warp of the worker's run of
	 * consecutive CTAs goes). The interpreter reaches memory one warp
	 * at a time, too slowly for the host's prefetchers to run ahead of
	 * it on their own (+7% bytes per CPU second on the 64 MiB vector
	 * add). Never faults; past the mapping it is only a wasted hint.
	 */
	for (uint32_t o = 0; o < sz * NVL_CS_LANES; o += 64) {
		const uint8_t *ahead =
			p + CS_PREFETCH_ROWS * sz * NVL_CS_LANES + o;

		if (f->mstore)
			__builtin_prefetch(ahead, 1);
		else
			__builtin_prefetch(ahead, 0);
	}
	if (sz != 4)
		FAST(mem_wide)(w, f, p);
	else if (f->mstore)
		CS_MEM_COPY(p, w->r[f->mdata], 4 * NVL_CS_LANES);
	else
		CS_MEM_COPY(w->r[f->mdata], p, 4 * NVL_CS_LANES);
	/* as the generic path: stores are ordered */
	if (f->mstore)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

#undef SRC
#undef OUT
#undef DONE
#undef V8
#undef V8C
#undef F8
#undef F8C
