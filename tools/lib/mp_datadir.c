// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_datadir.h"

const char *mp_data_file(const char *rel, const char *built_in)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], *slash, *copy;
	ssize_t len;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return built_in;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return built_in;
	*slash = '\0';
	if (snprintf(path, sizeof(path), "%s/../share/mplane/%s", exe, rel) >=
	    (int)sizeof(path) || access(path, R_OK))
		return built_in;
	copy = realpath(path, NULL);
	return copy ? copy : built_in;
}
