// SPDX-License-Identifier: GPL-2.0
/*
 * mplanectl telemetry detach: stop relaying mplane.ko's tracepoints.  The
 * relay lives only through its pinned links (see telemetry_attach.c), so
 * removing the pin directory ends it, and with it the reference it held
 * on the module.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/mplane.h>
#include "mplane_maps.h"

#include "mp_cmd.h"
#include "mp_out.h"
#include "mp_pin.h"
#include "telemetry.h"

#define KMOD_PIN_DIR	MPLANE_BPF_PIN_ROOT "/kmod"

static void detach_help(void)
{
	printf(
"Usage: mplanectl [GLOBAL OPTIONS] telemetry detach\n"
"\n"
"Stop relaying mplane.ko's tracepoints into the event stream: remove\n"
"everything 'telemetry attach' pinned under " KMOD_PIN_DIR "/ (the\n"
"programs' links, the ring mp_events and its counters).  The programs\n"
"leave the tracepoints at once; a reader that still has the ring open\n"
"drains what is left in it.  The module can be unloaded afterwards.\n"
"\n"
"Detaching when nothing is attached does nothing and is not an error, so\n"
"cleanup scripts can run it unconditionally.\n"
"\n"
"Options:\n"
"  -h, --help   show this help\n");
}

static const struct option detach_long[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{}
};

static void print_result(bool was_attached)
{
	struct json_object *obj;

	if (!mp_json) {
		printf(was_attached ? "detached: mplane.ko's tracepoints are no longer relayed\n" :
		       "not attached: nothing to detach\n");
		return;
	}
	obj = json_object_new_object();
	json_object_object_add(obj, "pin_dir",
			       json_object_new_string(KMOD_PIN_DIR));
	json_object_object_add(obj, "was_attached",
			       json_object_new_boolean(was_attached));
	mp_json_print(obj);
}

int telemetry_detach_main(int argc, char **argv)
{
	bool was_attached;
	int c, err;

	while ((c = mp_getopt(argc, argv, ":h", detach_long)) != -1) {
		if (c != 'h')
			return MP_EXIT_USAGE;
		detach_help();
		return MP_EXIT_OK;
	}
	if (optind < argc)
		return mp_usage_err("unexpected argument '%s'", argv[optind]);
	was_attached = !access(KMOD_PIN_DIR, F_OK);
	err = mp_pin_remove_dir(KMOD_PIN_DIR);
	if (err) {
		mp_err("removing %s: %s", KMOD_PIN_DIR, strerror(-err));
		return MP_EXIT_ERR;
	}
	print_result(was_attached);
	return MP_EXIT_OK;
}
