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
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_pin.h"
#include "telemetry.h"

#define KMOD_PIN_DIR	MPLANE_BPF_PIN_ROOT "/kmod"

static const struct mp_opt detach_opts[] = {
	{}
};

static const struct mp_opt_cmd detach_cmd = {
	.usage = "telemetry detach",
	.about =
"Stop relaying mplane.ko's tracepoints into the event stream: remove\n"
"everything 'telemetry attach' pinned under " KMOD_PIN_DIR "/ (the\n"
"programs' links, the ring mp_events and its counters).  The programs\n"
"leave the tracepoints at once; a reader that still has the ring open\n"
"drains what is left in it.  The module can be unloaded afterwards.\n"
"\n"
"Detaching when nothing is attached does nothing and is not an error, so\n"
"cleanup scripts can run it unconditionally.\n",
	.opts = detach_opts,
};

static void print_result(bool was_attached)
{
	mp_print_start();
	mp_print_str(MP_PRINT_JSON, "pin_dir", NULL, KMOD_PIN_DIR);
	mp_print_bool(MP_PRINT_JSON, "was_attached", NULL, was_attached);
	mp_print_text(was_attached ? "detached: mplane.ko's tracepoints are no longer relayed\n" :
		      "not attached: nothing to detach\n");
	mp_print_end();
}

int telemetry_detach_main(int argc, char **argv)
{
	bool was_attached;
	struct mp_opt_result res;
	int c, err;

	c = mp_opt_parse(&detach_cmd, argc, argv, NULL, &res);
	if (c != MP_OPT_RUN)
		return c;
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
