/* SPDX-License-Identifier: MIT */
/*
 * Byte images of the constructs set built by the C compiler from its
 * headers (img_cons.c), with the distinctive values they hold.
 */
#ifndef ABIGEN_TEST_IMG_CONS_H
#define ABIGEN_TEST_IMG_CONS_H

#include <stddef.h>

#define C_U64 0x0123456789abcdefull
#define C_S64 (-0x10000000000ll)
#define C_HANDLE 0xcafe0001u
#define C_ADDR 0x0000123400005678ull
#define C_LOW 0x89abcdefu
#define C_HIGH 0x01234567u
#define C_BIG 0xabcdef0123ull

size_t img_cons_types(void *buf);
size_t img_cons_aligned(void *buf);
size_t img_cons_nested(void *buf);
size_t img_cons_anon_td(void *buf);
size_t img_cons_bits(void *buf);
size_t img_cons_arrays(void *buf);
size_t img_cons_flex(void *buf, unsigned n); /* header + n entries */
size_t img_cons_packed(void *buf);
size_t img_cons_tagged(void *buf);
size_t img_cons_list(void *buf); /* CONS_LIST with 3 of 4 items */
size_t img_cons_runs(void *buf); /* CONS_RUNS, skip 0 */

#endif
