/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Values of command-line arguments: integers, durations and socket
 * addresses.  A value that does not parse is a usage error, reported with
 * mp_usage_err() and returned as MP_EXIT_USAGE; a name that does not
 * resolve is reported with mp_err() and returned as MP_EXIT_ERR.
 */
#ifndef MP_ARG_H
#define MP_ARG_H

#include <stdint.h>
#include <netinet/in.h>
#include <net/if.h>
#include <sys/socket.h>

/* @arg, the value of option @opt ("--rate"): an integer in [@min, @max],
 * decimal or hexadecimal with 0x. */
int mp_arg_u64(const char *opt, const char *arg, uint64_t min, uint64_t max,
	       uint64_t *val);

/* @arg: a number of seconds, such as 2 or 0.25, turned into ns. */
int mp_arg_seconds(const char *opt, const char *arg, uint64_t *ns);

/*
 * Split @arg, "ADDR", "ADDR:PORT", "[ADDR]:PORT" or an IPv6 address
 * without brackets (and so without port), into the address, copied to
 * @host without brackets, and the port, left as it is when @arg has none.
 * @what names @arg in messages.
 */
int mp_arg_hostport(const char *what, const char *arg, char *host,
		    size_t size, uint16_t *port);

/* Resolve @host (an address, or a name) and @port into @ss. */
int mp_resolve(const char *host, uint16_t port, struct sockaddr_storage *ss,
	       socklen_t *len);

/* "10.0.0.1:9000" or "[fd00::1]:9000" ("[fe80::1%eth0]:9000"). */
#define MP_SOCKADDR_STRLEN	(INET6_ADDRSTRLEN + IF_NAMESIZE + 10)
const char *mp_sockaddr_str(const struct sockaddr *sa, char *buf,
			    size_t size);

#endif /* MP_ARG_H */
