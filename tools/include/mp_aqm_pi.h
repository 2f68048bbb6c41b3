/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch's PI marking (bpf/ar.bpf.c, bpf attach --aqm pi): the
 * probability of marking CE moves, once per period, by the queue's delay
 * over its target (the integral part) and by how much it grew since the
 * last period (the proportional part), as RFC 8033's PIE does:
 *
 *	p += alpha * (delay - target) + beta * (delay - delay_old)
 *
 * with alpha and beta in Hz and the delays in seconds.  Zhu et al.
 * ("ECN or Delay", CoNEXT 2016) show that DCQCN under RED holds its
 * queue wherever the number of flows puts it on the RED slope, and that
 * a PI controller holds it at the target whatever the number; here it
 * also stops the marks as soon as the queue drains, where RED goes on
 * marking (and DCQCN on cutting) all the way down to Kmin.
 *
 * Pure logic, for the program and the unit tests (test_aqm_pi.c).  The
 * includer brings __u64 and __u32: vmlinux.h in BPF, <linux/types.h> in
 * user space.  No signed division: BPF before cpu v4 has none.
 */
#ifndef MP_AQM_PI_H
#define MP_AQM_PI_H

/* A probability of one, in the program's units. */
#define MP_PI_ONE		65536U
/* Gains are in thousandths of a hertz; delays in ns: one unit of the
 * probability is this many mHz x ns. */
#define MP_PI_UNIT		(1000ULL * 1000000000ULL / MP_PI_ONE)
/* The delays that enter the sums are clamped to a second, so that the
 * largest gain (MP_PI_GAIN_MAX) cannot overflow them. */
#define MP_PI_DELAY_MAX_NS	1000000000ULL
#define MP_PI_GAIN_MAX		100000U

/* Inlined in BPF, where a call may not be made under the queue's lock. */
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif

struct mp_pi_params {
	__u64 target_ns;
	__u32 alpha_mhz;	/* integral gain */
	__u32 beta_mhz;		/* proportional gain */
};

/* The controller's state, one per port, under the port's queue lock. */
struct mp_pi_state {
	__u32 prob;		/* of MP_PI_ONE */
	__u32 delay_old_us;
	__u64 last_ns;		/* of the last update */
};

static __always_inline __u64 mp_pi_clamp(__u64 ns)
{
	return ns > MP_PI_DELAY_MAX_NS ? MP_PI_DELAY_MAX_NS : ns;
}

/* The probability after one period that ends with the queue's delay at
 * @delay_ns, the last period having ended at @delay_old_ns. */
static __always_inline __u32 mp_pi_step(const struct mp_pi_params *pp, __u32 prob,
			       __u64 delay_ns, __u64 delay_old_ns)
{
	__u64 d = mp_pi_clamp(delay_ns), old = mp_pi_clamp(delay_old_ns);
	__u64 t = mp_pi_clamp(pp->target_ns);
	__u64 up = 0, down = 0, step;

	if (d > t)
		up += pp->alpha_mhz * (d - t);
	else
		down += pp->alpha_mhz * (t - d);
	if (d > old)
		up += pp->beta_mhz * (d - old);
	else
		down += pp->beta_mhz * (old - d);
	/* An empty queue twice running: let the probability fade, as
	 * PIE does, rather than hold a mark for the next burst. */
	if (!d && !old)
		prob -= prob / 64;
	if (up >= down) {
		step = (up - down) / MP_PI_UNIT;
		return step >= MP_PI_ONE - prob ? MP_PI_ONE : prob + (__u32)step;
	}
	step = (down - up) / MP_PI_UNIT;
	return step >= prob ? 0 : prob - (__u32)step;
}

/* Whether a packet that finds the queue at @delay_ns may be marked at
 * all: not while the queue is under half its target (PIE's burst
 * allowance: a short queue is no congestion, whatever p says). */
static __always_inline int mp_pi_may_mark(const struct mp_pi_params *pp,
				 __u64 delay_ns)
{
	return delay_ns * 2 >= pp->target_ns;
}

#endif
