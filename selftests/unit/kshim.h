/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel names that mplane's pure logic (kmod/balance.c,
 * kmod/rail_check.c) uses, for building it in user space.  unit.mk
 * force-includes this header, so the kernel sources need no #ifdef for
 * types and stay in kernel style.
 */
#ifndef _MPLANE_KSHIM_H
#define _MPLANE_KSHIM_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define BIT(n)			(1UL << (n))
#define hweight32(x)		((unsigned int)__builtin_popcount(x))
#define div_u64(a, b)		((u64)(a) / (u32)(b))

#endif /* _MPLANE_KSHIM_H */
