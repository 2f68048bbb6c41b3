/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* The network context of mplane tools: namespace and devices. */
#ifndef MP_NET_H
#define MP_NET_H

/*
 * Move the calling thread into the network namespace NAME (as created by
 * "ip netns add NAME").  Returns 0 or a negative errno.
 */
int mp_netns_enter(const char *name);

/* The ifindex of device @dev, or 0 after reporting "DEV: <error>". */
int mp_ifindex(const char *dev);

#endif /* MP_NET_H */
