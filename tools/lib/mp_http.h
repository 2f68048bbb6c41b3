/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libmicrohttpd, loaded when a command first serves HTTP.
 *
 * Only `telemetry export` serves HTTP, but a link-time dependency would
 * make every mplanectl start map libmicrohttpd and the TLS stack under it
 * (ten shared objects).  That is noise on a host, yet it is most of the
 * cost of an exec in a guest under emulation, where the tests run
 * mplanectl hundreds of times.  The types still come from <microhttpd.h>,
 * so the compiler checks every call against the library's own API.
 */
#ifndef MP_HTTP_H
#define MP_HTTP_H

#include <microhttpd.h>

struct mp_http {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

/*
 * The library's entry points, loaded on the first call; NULL, with the
 * reason reported through mp_err(), when it cannot be loaded.
 */
const struct mp_http *mp_http_load(void);

#endif
