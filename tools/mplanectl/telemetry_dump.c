// SPDX-License-Identifier: GPL-2.0
/* mplanectl telemetry dump: not written yet (a placeholder for the build). */
#include "mp_out.h"
#include "telemetry.h"

int telemetry_dump_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	mp_err("not implemented yet");
	return 1;
}
