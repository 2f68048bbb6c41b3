/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel names that mplane's pure logic (kmod/balance.c,
 * kmod/rail_check.c, kmod/dcqcn.c, kmod/probe_budget.c, kmod/reorder_psn.c) uses, for building it in user space.
 * unit.mk force-includes this header, so the kernel sources need no
 * #ifdef for types and stay in kernel style.
 */
#ifndef _MPLANE_KSHIM_H
#define _MPLANE_KSHIM_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define U32_MAX			((u32)~0U)

/* As the kernel's, less the type check: each argument is evaluated once. */
#define min_t(type, a, b) \
	({ type __a = (a), __b = (b); __a < __b ? __a : __b; })
#define max_t(type, a, b) \
	({ type __a = (a), __b = (b); __a > __b ? __a : __b; })

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define hweight32(x)		((unsigned int)__builtin_popcount(x))
/* As the kernel's: div_u64 takes a 32-bit divisor, and truncates a wider one. */
#define div_u64(a, b)		((u64)(a) / (u32)(b))
#define div64_u64(a, b)		((u64)(a) / (u64)(b))
#define mul_u64_u64_div_u64(a, b, c) \
	((u64)((unsigned __int128)(a) * (b) / (c)))
#define mul_u64_u64_shr(a, b, s) \
	((u64)(((unsigned __int128)(a) * (b)) >> (s)))

#endif /* _MPLANE_KSHIM_H */
