// SPDX-License-Identifier: GPL-2.0
/* The one place where mplane's tracepoints are instantiated. */
#define CREATE_TRACE_POINTS
#include "trace.h"
