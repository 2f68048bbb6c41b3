// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/mp_fault.c: fault events named from the event
 * alone, for every kind of target, and what each action did.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "mp_fault.h"
#include "mp_print.h"
#include "unit_stdio.h"

/* unit.mk builds a test from its own file and tools/lib/mp_fault.c
 * alone; the names, and mp_print's output, come in here. */
#include "mp_names.c"
#include "mp_out.c"
#include "mp_print.c"
#include "mplane_events.h"

#define TEST_ARGS void **state __attribute__((unused))

#define HOST	MPLANE_FAULT_ROLE_HOST
#define LEAF	MPLANE_FAULT_ROLE_LEAF
#define SPINE	MPLANE_FAULT_ROLE_SPINE

static struct mplane_event fault(unsigned int action, __u64 value,
				 unsigned int plane, __u64 spec)
{
	struct mplane_event e = {
		.hdr = { .type = MPLANE_EV_FAULT, .plane = plane },
		.val = { action, value, 0, spec },
	};

	return e;
}

static void test_fault_where(TEST_ARGS)
{
	static const struct {
		unsigned int plane;
		__u64 spec;
		const char *where;
	} cases[] = {
		{ 0, MPLANE_FAULT_SPEC(MPLANE_FAULT_LINK, 0, LEAF, 0, SPINE, 1), "p0l0:s1" },
		{ 1, MPLANE_FAULT_SPEC(MPLANE_FAULT_LINK, 0, SPINE, 1, LEAF, 3), "p1s1:l3" },
		{ 2, MPLANE_FAULT_SPEC(MPLANE_FAULT_PORT, 0, LEAF, 1, HOST, 249), "p2l1:h249" },
		/* A host's port is its rail of the event's plane. */
		{ 3, MPLANE_FAULT_SPEC(MPLANE_FAULT_PORT, 0, HOST, 7, LEAF, 1), "h7:r3" },
		{ 15, MPLANE_FAULT_SPEC(MPLANE_FAULT_SWITCH, 0, SPINE, 127, 0, 0), "p15s127" },
		{ 1, MPLANE_FAULT_SPEC(MPLANE_FAULT_PLANE, 0, 0, 0, 0, 0), "plane 1" },
		{ MPLANE_EVENT_NO_PLANE, MPLANE_FAULT_SPEC(MPLANE_FAULT_FABRIC,
			MPLANE_FAULT_VIA_ALL, 0, 0, 0, 0), "fabric" },
	};
	struct mplane_event e;
	unsigned int i;
	char buf[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = fault(MPLANE_FAULT_DOWN, 0, cases[i].plane, cases[i].spec);
		assert_string_equal(mp_fault_where(&e, buf, sizeof(buf)),
				    cases[i].where);
	}
	/* Cut to the buffer, still a string. */
	e = fault(MPLANE_FAULT_DOWN, 0, 0, cases[0].spec);
	assert_string_equal(mp_fault_where(&e, buf, 4), "p0l");
	assert_string_equal(mp_fault_where(&e, buf, 6), "p0l0:");
}

/* Every field of the spec reads back as it was packed, at its limits. */
static void test_fault_spec_fields(TEST_ARGS)
{
	__u64 v = MPLANE_FAULT_SPEC(MPLANE_FAULT_PLANE, MPLANE_FAULT_VIA_BPF,
				    SPINE, 0xffff, HOST, 0xfffe);

	assert_int_equal(MPLANE_FAULT_SPEC_TARGET(v), MPLANE_FAULT_PLANE);
	assert_int_equal(MPLANE_FAULT_SPEC_VIA(v), MPLANE_FAULT_VIA_BPF);
	assert_int_equal(MPLANE_FAULT_SPEC_ROLE(v), SPINE);
	assert_int_equal(MPLANE_FAULT_SPEC_INDEX(v), 0xffff);
	assert_int_equal(MPLANE_FAULT_SPEC_PEER_ROLE(v), HOST);
	assert_int_equal(MPLANE_FAULT_SPEC_PEER_INDEX(v), 0xfffe);
}

static void test_fault_what(TEST_ARGS)
{
	static const struct {
		unsigned int action;
		__u64 value;
		const char *what;
	} cases[] = {
		{ MPLANE_FAULT_DOWN, 0, "down" },
		{ MPLANE_FAULT_UP, 0, "up" },
		{ MPLANE_FAULT_DEGRADE, 10000000, "degrade 10mbit" },
		{ MPLANE_FAULT_DEGRADE, 1500000000, "degrade 1.5gbit" },
		{ MPLANE_FAULT_DEGRADE, 12500, "degrade 12.5kbit" },
		{ MPLANE_FAULT_LOSS, 10000, "loss 1%" },
		{ MPLANE_FAULT_LOSS, 5000, "loss 0.5%" },
		{ MPLANE_FAULT_LOSS, 1000000, "loss 100%" },
		{ MPLANE_FAULT_CLEAR, 0, "clear" },
		{ 99, 0, "?" },
	};
	struct mplane_event e;
	unsigned int i;
	char buf[32];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = fault(cases[i].action, cases[i].value, 0, 0);
		assert_string_equal(mp_fault_what(&e, buf, sizeof(buf)),
				    cases[i].what);
	}
	assert_string_equal(mp_fault_target_name(MPLANE_FAULT_SWITCH), "switch");
	assert_string_equal(mp_fault_via_name(MPLANE_FAULT_VIA_NETEM), "netem");
	assert_string_equal(mp_fault_via_name(__MPLANE_FAULT_VIA_MAX), "?");
}

static struct mplane_event loss_fault(void)
{
	return fault(MPLANE_FAULT_LOSS, 10000, 1,
		     MPLANE_FAULT_SPEC(MPLANE_FAULT_LINK, MPLANE_FAULT_VIA_BPF,
				       HOST, 0, LEAF, 0));
}

static char *print_fault(bool json, const char *where_fmt)
{
	struct mplane_event e = loss_fault();
	struct grab g;

	mp_json = json;
	grab_start(&g, 1);
	mp_print_start();
	mp_fault_print(&e, MP_PRINT_ANY, where_fmt);
	mp_print_end();
	return grab_end(&g);
}

/* Words and JSON say the same, from the same names, in one call. */
static void test_fault_print(TEST_ARGS)
{
	struct mplane_event e = loss_fault();
	char *out = print_fault(false, " %s"), buf[64];

	assert_string_equal(out, " h0:r1 loss 1% (link, bpf)");
	free(out);
	/* Where text named the place already: the words alone. */
	out = print_fault(false, NULL);
	assert_string_equal(out, " loss 1% (link, bpf)");
	assert_string_equal(mp_fault_words(&e, buf, sizeof(buf)),
			    "loss 1% (link, bpf)");
	free(out);
	out = print_fault(true, NULL);
	assert_string_equal(out, "{\"where\":\"h0:r1\",\"what\":\"loss 1%\","
			    "\"target\":\"link\",\"via\":\"bpf\"}\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_where),
		cmocka_unit_test(test_fault_spec_fields),
		cmocka_unit_test(test_fault_what),
		cmocka_unit_test(test_fault_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
