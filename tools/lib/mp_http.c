// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Loading libmicrohttpd at run time: see mp_http.h for why.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "mp_http.h"
#include "mp_out.h"

/* The soname that libmicrohttpd-dev's libmicrohttpd.so points at. */
#define MP_HTTP_SONAME	"libmicrohttpd.so.12"

static const struct {
	const char *name;
	size_t offset;
} mp_http_syms[] = {
#define SYM(field, sym) { #sym, offsetof(struct mp_http, field) }
	SYM(start_daemon, MHD_start_daemon),
	SYM(stop_daemon, MHD_stop_daemon),
	SYM(create_response_from_buffer, MHD_create_response_from_buffer),
	SYM(add_response_header, MHD_add_response_header),
	SYM(queue_response, MHD_queue_response),
	SYM(destroy_response, MHD_destroy_response),
#undef SYM
};

const struct mp_http *mp_http_load(void)
{
	static struct mp_http http;
	static void *lib;
	size_t i;

	if (lib)
		return &http;
	lib = dlopen(MP_HTTP_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		mp_err("cannot load %s: %s (apt-get install libmicrohttpd12)",
		       MP_HTTP_SONAME, dlerror());
		return NULL;
	}
	for (i = 0; i < sizeof(mp_http_syms) / sizeof(mp_http_syms[0]); i++) {
		void *fn = dlsym(lib, mp_http_syms[i].name);

		if (!fn) {
			mp_err("%s has no %s", MP_HTTP_SONAME,
			       mp_http_syms[i].name);
			dlclose(lib);
			lib = NULL;
			return NULL;
		}
		*(void **)((char *)&http + mp_http_syms[i].offset) = fn;
	}
	return &http;
}
