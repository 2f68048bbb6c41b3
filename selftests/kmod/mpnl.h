/* SPDX-License-Identifier: GPL-2.0 */
/* What mpnl.c and its generated cases (mpnl_cases.c) share. */
#ifndef MPLANE_SELFTESTS_MPNL_H
#define MPLANE_SELFTESTS_MPNL_H

#include "mp_rtnl.h"

/* Every generated case against @mp0 and its rail @rail: 0 when each got
 * its answer, else 1. */
int mpnl_cases(struct mp_rtnl *r, const char *mp0, const char *rail);

#endif /* MPLANE_SELFTESTS_MPNL_H */
