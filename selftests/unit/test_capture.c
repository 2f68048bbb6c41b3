// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_capture.c: frames written are read back
 * as written (kinds, sources, payloads, padding), frame kinds a reader
 * does not know are handed over for it to skip, a file cut inside a
 * frame is -EBADMSG and a file that is no capture is -EPROTO; namespace
 * names and the netns of interface names round-trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "mp_capture.h"
#include "mplane_capture.h"
#include "mplane_events.h"

#define TEST_ARGS void **state __attribute__((unused))

static char path[64];

static int make_path(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/mp-capture-test.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct mplane_event event(uint64_t ts, uint64_t step)
{
	struct mplane_event e = {
		.hdr = {
			.version = MPLANE_EVENT_VERSION,
			.type = MPLANE_EV_STEP_MARK,
			.len = sizeof(e),
			.plane = MPLANE_EVENT_NO_PLANE,
			.ts_ns = ts,
		},
		.val = { step, 1234, 0, 0 },
	};
	return e;
}

/* A small capture: a source, an ifname, a counter name, two events, an
 * odd-length frame of a kind from the future, and the stats. */
static void write_sample(void)
{
	struct mp_capture_writer w;
	struct mplane_event e1 = event(100, 7), e2 = event(200, 8);
	struct mplane_capture_stats st = { 5, 1, 4, 0 };

	assert_int_equal(mp_capture_create(&w, path), 0);
	assert_int_equal(mp_capture_put_source(&w, 3, "fabric/mpf/p0l0"), 0);
	assert_int_equal(mp_capture_put_ifname(&w, 3, 9, "h0"), 0);
	assert_int_equal(mp_capture_put_counter_name(&w, 4, 2,
			 MPLANE_COUNTER_NETDEV, 9, "h0/tx_packets"), 0);
	assert_int_equal(mp_capture_put(&w, MPLANE_CF_EVENT, 3, &e1,
					sizeof(e1)), 0);
	assert_int_equal(mp_capture_put(&w, 200, 3, "abc", 3), 0);
	assert_int_equal(mp_capture_put(&w, MPLANE_CF_EVENT, 3, &e2,
					sizeof(e2)), 0);
	assert_int_equal(mp_capture_put(&w, MPLANE_CF_STATS, 3, &st,
					sizeof(st)), 0);
	assert_int_equal(w.frames, 7);
	assert_int_equal(mp_capture_finish(&w), 0);
}

static const void *next(struct mp_capture_reader *r,
			struct mplane_capture_frame *fr, unsigned int kind,
			unsigned int source, size_t len)
{
	const void *p = NULL;

	assert_int_equal(mp_capture_next(r, fr, &p), 1);
	assert_int_equal(fr->kind, kind);
	assert_int_equal(fr->source, source);
	assert_int_equal(fr->len, len);
	return p;
}

static void test_round_trip(TEST_ARGS)
{
	struct mplane_event e1 = event(100, 7), e2 = event(200, 8);
	const struct mplane_capture_counter_name *cn;
	const struct mplane_capture_ifname *in;
	const struct mplane_capture_stats *st;
	struct mp_capture_reader r;
	struct mplane_capture_frame fr;
	uint64_t before = mono_ns();
	const void *p;

	write_sample();
	assert_int_equal(mp_capture_open(&r, path), 0);
	assert_int_equal(r.hdr.magic, MPLANE_CAPTURE_MAGIC);
	assert_int_equal(r.hdr.hdr_len, sizeof(r.hdr));
	assert_true(r.hdr.start_mono_ns >= before);
	assert_true(r.hdr.start_mono_ns <= mono_ns());
	assert_true(r.hdr.start_real_ns > 1600000000ULL * 1000000000ULL);

	p = next(&r, &fr, MPLANE_CF_SOURCE, 3, 16);
	assert_string_equal(p, "fabric/mpf/p0l0");
	in = next(&r, &fr, MPLANE_CF_IFNAME, 3, sizeof(*in));
	assert_int_equal(in->ifindex, 9);
	assert_string_equal(in->name, "h0");
	cn = next(&r, &fr, MPLANE_CF_COUNTER_NAME, 4, sizeof(*cn) + 14);
	assert_int_equal(cn->id, 2);
	assert_int_equal(cn->kind, MPLANE_COUNTER_NETDEV);
	assert_int_equal(cn->ifindex, 9);
	assert_string_equal(cn->name, "h0/tx_packets");
	p = next(&r, &fr, MPLANE_CF_EVENT, 3, sizeof(e1));
	assert_memory_equal(p, &e1, sizeof(e1));
	/* Unknown kinds come through, padding and all, for the reader to
	 * skip; the frame after them is intact. */
	p = next(&r, &fr, 200, 3, 3);
	assert_memory_equal(p, "abc", 3);
	p = next(&r, &fr, MPLANE_CF_EVENT, 3, sizeof(e2));
	assert_memory_equal(p, &e2, sizeof(e2));
	st = next(&r, &fr, MPLANE_CF_STATS, 3, sizeof(*st));
	assert_int_equal(st->produced, 5);
	assert_int_equal(st->dropped, 1);
	assert_int_equal(st->recorded, 4);
	assert_int_equal(mp_capture_next(&r, &fr, &p), 0);
	assert_int_equal(r.frames, 7);
	mp_capture_close(&r);
}

/* Frames are padded to 8 bytes: the file's size says so. */
static void test_padding(TEST_ARGS)
{
	struct mp_capture_writer w;
	FILE *f;

	assert_int_equal(mp_capture_create(&w, path), 0);
	assert_int_equal(mp_capture_put(&w, MPLANE_CF_SOURCE, 0, "a", 2), 0);
	assert_int_equal(mp_capture_put(&w, MPLANE_CF_SOURCE, 1, "", 0), 0);
	assert_int_equal(mp_capture_finish(&w), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	assert_int_equal(ftell(f), sizeof(struct mplane_capture_hdr) +
			 2 * sizeof(struct mplane_capture_frame) + 8);
	fclose(f);
}

static void cut_to(long size)
{
	assert_int_equal(truncate(path, size), 0);
}

static void read_to_end(int want)
{
	struct mp_capture_reader r;
	struct mplane_capture_frame fr;
	const void *p;
	int err;

	assert_int_equal(mp_capture_open(&r, path), 0);
	while ((err = mp_capture_next(&r, &fr, &p)) == 1)
		;
	assert_int_equal(err, want);
	mp_capture_close(&r);
}

static void test_truncated(TEST_ARGS)
{
	long hdr = sizeof(struct mplane_capture_hdr);
	long fr = sizeof(struct mplane_capture_frame);

	write_sample();
	/* Inside the first frame's payload, then inside the second's header. */
	cut_to(hdr + 16 + 4);
	read_to_end(-EBADMSG);
	write_sample();
	cut_to(hdr + fr + 16 + 3);
	read_to_end(-EBADMSG);
	/* At a frame boundary: a clean end. */
	write_sample();
	cut_to(hdr + fr + 16);
	read_to_end(0);
}

static void test_not_a_capture(TEST_ARGS)
{
	struct mp_capture_reader r;
	struct mplane_capture_hdr h;
	FILE *f;

	write_sample();
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	h.magic ^= 1;
	rewind(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	fclose(f);
	assert_int_equal(mp_capture_open(&r, path), -EPROTO);

	/* A version this reader does not know. */
	write_sample();
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	h.version = MPLANE_CAPTURE_VERSION + 1;
	rewind(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	fclose(f);
	assert_int_equal(mp_capture_open(&r, path), -EPROTO);

	/* Shorter than a header. */
	cut_to(10);
	assert_int_equal(mp_capture_open(&r, path), -EPROTO);
}

/* A write error is kept and returned by finish. */
/* CF_NETNS carries inode and name (padded like any frame); CF_IFNAME has
 * the interface's namespace, 0 through the older helper. */
static void test_netns(TEST_ARGS)
{
	const struct mplane_capture_netns *ns;
	const struct mplane_capture_ifname *in;
	struct mp_capture_writer w;
	struct mp_capture_reader r;
	struct mplane_capture_frame fr;

	assert_int_equal(mp_capture_create(&w, path), 0);
	assert_int_equal(mp_capture_put_netns(&w, 1, 4026531840U, ""), 0);
	assert_int_equal(mp_capture_put_netns(&w, 1, 4026532001U, "mpf-h1"), 0);
	assert_int_equal(mp_capture_put_ifname_ns(&w, 1, 4026532001U, 7,
						  "mp0"), 0);
	assert_int_equal(mp_capture_put_ifname(&w, 1, 5, "rail0"), 0);
	assert_int_equal(mp_capture_finish(&w), 0);

	assert_int_equal(mp_capture_open(&r, path), 0);
	ns = next(&r, &fr, MPLANE_CF_NETNS, 1, sizeof(*ns) + 1);
	assert_int_equal(ns->inode, 4026531840U);
	assert_string_equal(ns->name, "");
	ns = next(&r, &fr, MPLANE_CF_NETNS, 1, sizeof(*ns) + 7);
	assert_int_equal(ns->inode, 4026532001U);
	assert_string_equal(ns->name, "mpf-h1");
	in = next(&r, &fr, MPLANE_CF_IFNAME, 1, 24);
	assert_int_equal(in->ifindex, 7);
	assert_int_equal(in->netns, 4026532001U);
	assert_string_equal(in->name, "mp0");
	in = next(&r, &fr, MPLANE_CF_IFNAME, 1, 24);
	assert_int_equal(in->ifindex, 5);
	assert_int_equal(in->netns, 0);
	assert_string_equal(in->name, "rail0");
	assert_int_equal(mp_capture_next(&r, &fr, (const void **)&ns), 0);
	mp_capture_close(&r);
}

static void test_write_error(TEST_ARGS)
{
	struct mp_capture_writer w;
	struct mplane_event e = event(1, 1);
	int i, err = 0;

	if (access("/dev/full", W_OK))
		skip();
	assert_int_equal(mp_capture_create(&w, "/dev/full"), 0);
	/* More than the 1 MiB buffer: the device refuses the flush. */
	for (i = 0; i < 40000 && !err; i++)
		err = mp_capture_put(&w, MPLANE_CF_EVENT, 0, &e, sizeof(e));
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(mp_capture_finish(&w), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_padding, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_truncated, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_not_a_capture, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_netns, make_path,
						remove_path),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
