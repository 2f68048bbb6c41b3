// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_out.h"

#define NSEC_PER_SEC	1000000000ULL
/* A day and a half is longer than any test or benchmark runs. */
#define MAX_SECONDS	(1ULL << 17)

int mp_arg_u64(const char *opt, const char *arg, uint64_t min, uint64_t max,
	       uint64_t *val)
{
	bool hex = !strncmp(arg, "0x", 2);
	const char *digits = hex ? arg + 2 : arg;
	uint64_t v;
	char *end;

	/* strtoull() would take "-1" for 2^64 - 1, and skip spaces.  @val
	 * is left as it was unless @arg is good. */
	if (hex ? isxdigit((unsigned char)*digits) :
		  isdigit((unsigned char)*digits)) {
		errno = 0;
		v = strtoull(digits, &end, hex ? 16 : 10);
		if (!errno && !*end && v >= min && v <= max) {
			*val = v;
			return MP_EXIT_OK;
		}
	}
	return mp_usage_err("bad %s '%s': want an integer from %" PRIu64
			    " to %" PRIu64, opt, arg, min, max);
}

int mp_arg_seconds(const char *opt, const char *arg, uint64_t *ns)
{
	size_t len = strlen(arg);
	char *end;
	double s;

	/* Digits and one dot only: no sign, exponent, "inf" or "nan". */
	if (len && strspn(arg, "0123456789.") == len &&
	    strchr(arg, '.') == strrchr(arg, '.') && strcmp(arg, ".")) {
		s = strtod(arg, &end);
		if (!*end && s <= MAX_SECONDS) {
			*ns = (uint64_t)(s * NSEC_PER_SEC + 0.5);
			return MP_EXIT_OK;
		}
	}
	return mp_usage_err("bad %s '%s': want seconds, such as 2 or 0.5, up to %llu",
			    opt, arg, MAX_SECONDS);
}

static int parse_port(const char *what, const char *arg, uint16_t *port)
{
	uint64_t v;
	char *end;

	if (*arg >= '0' && *arg <= '9') {
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (!errno && !*end && v >= 1 && v <= 65535) {
			*port = v;
			return MP_EXIT_OK;
		}
	}
	return mp_usage_err("bad port '%s' in %s: want 1 to 65535", arg, what);
}

static int copy_host(const char *what, const char *from, size_t len,
		     char *host, size_t size)
{
	if (!len)
		return mp_usage_err("no address in %s", what);
	if (len >= size)
		return mp_usage_err("address too long in %s", what);
	memcpy(host, from, len);
	host[len] = '\0';
	return MP_EXIT_OK;
}

int mp_arg_hostport(const char *what, const char *arg, char *host,
		    size_t size, uint16_t *port)
{
	const char *colon, *close;
	int err;

	if (arg[0] == '[') {
		close = strchr(arg, ']');
		if (!close || (close[1] && close[1] != ':'))
			return mp_usage_err("bad %s '%s': want [ADDR]:PORT for an IPv6 address",
					    what, arg);
		err = copy_host(what, arg + 1, close - arg - 1, host, size);
		if (!err && close[1])
			err = parse_port(what, close + 2, port);
		return err;
	}
	colon = strchr(arg, ':');
	/* Two colons or more: an IPv6 address, which has no room for a port
	 * unless it is in brackets. */
	if (!colon || strchr(colon + 1, ':'))
		return copy_host(what, arg, strlen(arg), host, size);
	err = copy_host(what, arg, colon - arg, host, size);
	return err ? err : parse_port(what, colon + 1, port);
}

int mp_resolve(const char *host, uint16_t port, struct sockaddr_storage *ss,
	       socklen_t *len)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res;
	char service[8];
	int err;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err) {
		mp_err("%s: %s", host, err == EAI_SYSTEM ? strerror(errno) :
		       gai_strerror(err));
		return MP_EXIT_ERR;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return MP_EXIT_OK;
}

const char *mp_sockaddr_str(const struct sockaddr *sa, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
	socklen_t len = sa->sa_family == AF_INET6 ?
		sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	char port[8];

	if (getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, size, "(unknown)");
	else if (sa->sa_family == AF_INET6)
		snprintf(buf, size, "[%s]:%s", host, port);
	else
		snprintf(buf, size, "%s:%s", host, port);
	return buf;
}
