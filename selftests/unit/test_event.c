// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_event.c: decoding ring records of any
 * version and length, and putting records back into timestamp order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp_event.h"
#include "mp_print.h"
#include "mplane_events.h"
#include "mplane_maps.h"
#include "mplane_mark_proto.h"
#include "unit_stdio.h"

/* unit.mk builds a test from its own file and tools/lib/mp_event.c
 * alone; mp_event_print_val() prints through these. */
#include "mp_out.c"
#include "mp_names.c"
#include "mp_print.c"

#define TEST_ARGS void **state __attribute__((unused))

static struct mplane_event make(uint8_t type, uint64_t ts, uint16_t cpu)
{
	struct mplane_event e = {
		.hdr = {
			.version = MPLANE_EVENT_VERSION,
			.type = type,
			.len = sizeof(e),
			.cpu = cpu,
			.plane = MPLANE_EVENT_NO_PLANE,
			.ts_ns = ts,
		},
		.val = { 1, 2, 3, 4 },
	};
	return e;
}

static void test_decode_exact(TEST_ARGS)
{
	struct mplane_event in = make(MPLANE_EV_CNP, 42, 1), out;

	assert_int_equal(mp_event_decode(&in, sizeof(in), &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
}

/* A newer writer's record: longer, with fields this reader ignores. */
static void test_decode_longer_record_is_cut(TEST_ARGS)
{
	unsigned char buf[sizeof(struct mplane_event) + 16];
	struct mplane_event in = make(MPLANE_EV_QUEUE_SAMPLE, 7, 0), out;

	memset(buf, 0xab, sizeof(buf));
	in.hdr.len = sizeof(buf);
	memcpy(buf, &in, sizeof(in));
	assert_int_equal(mp_event_decode(buf, sizeof(buf), &out), 0);
	assert_int_equal(out.val[3], 4);
	assert_int_equal(out.hdr.len, sizeof(buf));
}

/* An older or smaller record: what it lacks reads as zero. */
static void test_decode_shorter_record_zero_fills(TEST_ARGS)
{
	struct mplane_event in = make(MPLANE_EV_PORT_STATE, 9, 0), out;
	size_t len = sizeof(in.hdr) + 2 * sizeof(uint64_t);

	in.hdr.len = len;
	assert_int_equal(mp_event_decode(&in, len, &out), 0);
	assert_int_equal(out.val[0], 1);
	assert_int_equal(out.val[1], 2);
	assert_int_equal(out.val[2], 0);
	assert_int_equal(out.val[3], 0);
}

static void test_decode_rejects_bad_records(TEST_ARGS)
{
	struct mplane_event in = make(MPLANE_EV_CNP, 1, 0), out;

	assert_int_equal(mp_event_decode(&in, sizeof(in.hdr) - 1, &out), -EINVAL);
	in.hdr.len = sizeof(in) + 8;	/* claims more than the ring gave */
	assert_int_equal(mp_event_decode(&in, sizeof(in), &out), -EINVAL);
	in.hdr.len = 4;			/* shorter than its own header */
	assert_int_equal(mp_event_decode(&in, sizeof(in), &out), -EINVAL);
	in = make(MPLANE_EV_CNP, 1, 0);
	in.hdr.version = MPLANE_EVENT_VERSION + 1;
	assert_int_equal(mp_event_decode(&in, sizeof(in), &out), -EPROTO);
}

static void test_names(TEST_ARGS)
{
	int t;

	for (t = 0; t < __MPLANE_EV_MAX; t++) {
		assert_non_null(mp_event_type_name(t));
		assert_int_equal(mp_event_type_parse(mp_event_type_name(t)), t);
	}
	assert_null(mp_event_type_name(__MPLANE_EV_MAX));
	assert_int_equal(mp_event_type_parse("no_such_type"), -1);
	assert_string_equal(mp_event_val_name(MPLANE_EV_QUEUE_SAMPLE, 0), "q_bytes");
	assert_null(mp_event_val_name(MPLANE_EV_PORT_STATE, 2));
	assert_null(mp_event_val_name(MPLANE_EV_CNP, 4));
	assert_string_equal(mp_event_type_name(MPLANE_EV_FAULT), "fault");
	assert_string_equal(mp_event_val_name(MPLANE_EV_FAULT, 3), "spec");
	/* RATE_UPDATE as the uapi's comment has it. */
	assert_string_equal(mp_event_type_name(MPLANE_EV_RATE_UPDATE), "rate_update");
	assert_int_equal(mp_event_type_parse("rate_update"), MPLANE_EV_RATE_UPDATE);
	assert_string_equal(mp_event_val_name(MPLANE_EV_RATE_UPDATE, 0), "qpn");
	assert_string_equal(mp_event_val_name(MPLANE_EV_RATE_UPDATE, 1), "rate_kbps");
	assert_string_equal(mp_event_val_name(MPLANE_EV_RATE_UPDATE, 2), "old_kbps");
	assert_string_equal(mp_event_val_name(MPLANE_EV_RATE_UPDATE, 3), "cause");
	assert_string_equal(mp_event_val_label(MPLANE_EV_RATE_UPDATE, 3,
					       MPLANE_RATE_CUT), "cut");
	assert_string_equal(mp_event_val_label(MPLANE_EV_RATE_UPDATE, 3,
					       MPLANE_RATE_FAST_RECOVERY),
			    "fast_recovery");
	assert_string_equal(mp_event_val_label(MPLANE_EV_RATE_UPDATE, 3,
					       MPLANE_RATE_ADDITIVE), "additive");
	assert_string_equal(mp_event_val_label(MPLANE_EV_RATE_UPDATE, 3,
					       MPLANE_RATE_HYPER), "hyper");
	assert_null(mp_event_val_label(MPLANE_EV_RATE_UPDATE, 3,
				       __MPLANE_RATE_CAUSE_MAX));
	assert_null(mp_event_val_label(MPLANE_EV_RATE_UPDATE, 1, 0));
	/* Every enum of the uapi's comment, named; the plain values not. */
	assert_string_equal(mp_event_val_label(MPLANE_EV_PLANE_STATE, 0, 0), "up");
	assert_string_equal(mp_event_val_label(MPLANE_EV_PLANE_STATE, 2,
					       MPLANE_REASON_PROBE_MISS),
			    "probe_miss");
	assert_string_equal(mp_event_val_label(MPLANE_EV_FAILOVER, 0,
					       MPLANE_REASON_CARRIER), "carrier");
	assert_string_equal(mp_event_val_label(MPLANE_EV_CNP, 1,
					       MPLANE_DIR_EGRESS), "egress");
	assert_string_equal(mp_event_val_label(MPLANE_EV_STEP_MARK, 2,
					       MPLANE_MARK_STEP_END), "step-end");
	assert_string_equal(mp_event_val_label(MPLANE_EV_COUNTER, 1,
					       MPLANE_COUNTER_RDMA), "rdma");
	assert_string_equal(mp_event_val_label(MPLANE_EV_PLANE_SELECT, 0,
					       MPLANE_POLICY_SPRAY), "spray");
	assert_string_equal(mp_event_val_label(MPLANE_EV_FAULT, 0,
					       MPLANE_FAULT_LOSS), "loss");
	assert_null(mp_event_val_label(MPLANE_EV_PLANE_STATE, 3, 0));
	assert_null(mp_event_val_label(MPLANE_EV_STEP_MARK, 0, 0));
	assert_null(mp_event_val_label(MPLANE_EV_PLANE_STATE, 0, 1ULL << 32));
	assert_string_equal(mp_event_val_name(MPLANE_EV_STEP_MARK, 0), "step_index");
	assert_true(mp_event_val_hex(MPLANE_EV_RATE_UPDATE, 0));
	assert_false(mp_event_val_hex(MPLANE_EV_RATE_UPDATE, 1));
	assert_false(mp_event_val_hex(MPLANE_EV_CNP, 0));
	assert_true(mp_event_val_hex(MPLANE_EV_FAILOVER, 1));
}

struct seen {
	uint64_t ts[4096];
	unsigned int n;
};

static void collect(const struct mp_event_item *it, void *data)
{
	struct seen *s = data;

	s->ts[s->n++] = it->ev.hdr.ts_ns;
}

/* Two rings, each in order, interleaved: released merged and sorted,
 * and only up to the limit. */
static void test_evq_merges_and_holds(TEST_ARGS)
{
	struct mp_evq q = {};
	struct seen s = {};
	struct mplane_event e;
	size_t released;
	uint64_t ts;
	unsigned int i;

	for (ts = 10; ts <= 1000; ts += 20) {
		e = make(MPLANE_EV_QUEUE_SAMPLE, ts, 0);
		assert_int_equal(mp_evq_push(&q, &e, 0), 0);
	}
	for (ts = 5; ts <= 1000; ts += 30) {
		e = make(MPLANE_EV_ECN_MARK, ts, 1);
		assert_int_equal(mp_evq_push(&q, &e, 1), 0);
	}
	released = mp_evq_release(&q, 500, collect, &s);
	assert_int_equal(released, s.n);
	assert_true(released > 0);
	for (i = 0; i < s.n; i++) {
		assert_true(s.ts[i] <= 500);
		if (i)
			assert_true(s.ts[i - 1] <= s.ts[i]);
	}
	assert_true(q.n > 0);
	mp_evq_release(&q, ~0ULL, collect, &s);
	assert_int_equal(q.n, 0);
	assert_int_equal(s.n, 50 + 34);
	for (i = 1; i < s.n; i++)
		assert_true(s.ts[i - 1] <= s.ts[i]);
	assert_int_equal(q.late, 0);
	mp_evq_free(&q);
}

/* A record that comes after newer ones were released is counted late,
 * not hidden. */
static void test_evq_counts_late_records(TEST_ARGS)
{
	struct mp_evq q = {};
	struct seen s = {};
	struct mplane_event e = make(MPLANE_EV_CNP, 100, 0);

	mp_evq_push(&q, &e, 0);
	mp_evq_release(&q, ~0ULL, collect, &s);
	e.hdr.ts_ns = 50;
	mp_evq_push(&q, &e, 0);
	mp_evq_release(&q, ~0ULL, collect, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(q.late, 1);
	mp_evq_free(&q);
}

/*
 * The values of a rate update, of a plane state change with a state this
 * build has no name for, and of a type unknown, in text and JSON.
 */
static char *print_vals(bool json)
{
	struct mplane_event ru = make(MPLANE_EV_RATE_UPDATE, 1, 0);
	struct mplane_event ps = make(MPLANE_EV_PLANE_STATE, 1, 0);
	struct mplane_event unknown = make(200, 1, 0);
	unsigned int i;
	struct grab g;

	ru.val[0] = 0x11;
	ru.val[3] = MPLANE_RATE_CUT;
	ps.val[0] = __MPLANE_PLANE_STATE_MAX;
	ps.val[1] = MPLANE_PLANE_UP;
	ps.val[2] = MPLANE_REASON_CARRIER;
	mp_json = json;
	grab_start(&g, 1);
	mp_print_start();
	for (i = 0; i < 4; i++)
		mp_event_print_val(&ru, i, MP_PRINT_ANY);
	mp_print_open_object("plane_state");
	for (i = 0; i < 3; i++)
		mp_event_print_val(&ps, i, MP_PRINT_ANY);
	mp_print_close_object();
	mp_print_open_object("unknown");
	mp_event_print_val(&unknown, 0, MP_PRINT_ANY);
	mp_print_close_object();
	mp_print_end();
	return grab_end(&g);
}

static void test_print_val(TEST_ARGS)
{
	char *out = print_vals(false);

	assert_string_equal(out, " qpn=0x11 rate_kbps=2 old_kbps=3 cause=cut"
			    " state=5 old_state=up reason=carrier v0=1");
	free(out);
	out = print_vals(true);
	assert_string_equal(out, "{\"qpn\":17,\"rate_kbps\":2,\"old_kbps\":3,"
			    "\"cause_id\":0,\"cause\":\"cut\",\"plane_state\":"
			    "{\"state_id\":5,\"old_state_id\":0,"
			    "\"old_state\":\"up\",\"reason_id\":1,"
			    "\"reason\":\"carrier\"},\"unknown\":{\"v0\":1}}\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_exact),
		cmocka_unit_test(test_decode_longer_record_is_cut),
		cmocka_unit_test(test_decode_shorter_record_zero_fills),
		cmocka_unit_test(test_decode_rejects_bad_records),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_evq_merges_and_holds),
		cmocka_unit_test(test_evq_counts_late_records),
		cmocka_unit_test(test_print_val),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
