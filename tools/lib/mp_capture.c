// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "mp_capture.h"
#include "mplane_capture.h"

#define PAD8(n)		(((n) + 7) & ~(size_t)7)
#define WRITE_BUF	(1 << 20)
#define MAX_FRAME	(1 << 20)	/* nothing legitimate comes close */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int put_bytes(struct mp_capture_writer *w, const void *p, size_t n)
{
	if (!w->err && n && fwrite(p, 1, n, w->f) != n)
		w->err = errno ? -errno : -EIO;
	w->bytes += n;
	return w->err;
}

int mp_capture_create(struct mp_capture_writer *w, const char *path)
{
	struct mplane_capture_hdr h = {
		.magic = MPLANE_CAPTURE_MAGIC,
		.version = MPLANE_CAPTURE_VERSION,
		.hdr_len = sizeof(h),
	};
	struct utsname u;

	int fd, err;

	memset(w, 0, sizeof(*w));
	/*
	 * A capture holds a host's traffic figures and names: the owner's
	 * alone (0600, made so even when the file was there), and never
	 * written through a symbolic link planted where it is to go.
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600)) {
		err = -errno;
		close(fd);
		return err;
	}
	w->f = fdopen(fd, "w");
	if (!w->f) {
		err = -errno;
		close(fd);
		return err;
	}
	setvbuf(w->f, NULL, _IOFBF, WRITE_BUF);
	if (!uname(&u))
		snprintf(h.host, sizeof(h.host), "%.*s",
			 (int)sizeof(h.host) - 1, u.nodename);
	h.start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	h.start_real_ns = clock_ns(CLOCK_REALTIME);
	return put_bytes(w, &h, sizeof(h));
}

int mp_capture_put(struct mp_capture_writer *w, unsigned int kind,
		   unsigned int source, const void *payload, size_t len)
{
	static const char zeros[8];
	struct mplane_capture_frame fr = {
		.len = len, .kind = kind, .source = source,
	};

	if (len > MAX_FRAME)
		return -EMSGSIZE;
	put_bytes(w, &fr, sizeof(fr));
	put_bytes(w, payload, len);
	put_bytes(w, zeros, PAD8(len) - len);
	if (!w->err)
		w->frames++;
	return w->err;
}

int mp_capture_put_source(struct mp_capture_writer *w, unsigned int source,
			  const char *label)
{
	return mp_capture_put(w, MPLANE_CF_SOURCE, source, label,
			      strlen(label) + 1);
}

int mp_capture_put_ifname(struct mp_capture_writer *w, unsigned int source,
			  uint32_t ifindex, const char *name)
{
	return mp_capture_put_ifname_ns(w, source, 0, ifindex, name);
}

int mp_capture_put_ifname_ns(struct mp_capture_writer *w, unsigned int source,
			     uint32_t netns, uint32_t ifindex,
			     const char *name)
{
	struct mplane_capture_ifname n = {
		.ifindex = ifindex, .netns = netns,
	};

	snprintf(n.name, sizeof(n.name), "%s", name);
	return mp_capture_put(w, MPLANE_CF_IFNAME, source, &n, sizeof(n));
}

struct mplane_capture_netns *mp_capture_netns_new(uint32_t inode,
						  const char *name,
						  size_t *len)
{
	struct mplane_capture_netns *n;

	*len = sizeof(*n) + strlen(name) + 1;
	n = calloc(1, *len);
	if (n) {
		n->inode = inode;
		strcpy(n->name, name);
	}
	return n;
}

int mp_capture_put_netns(struct mp_capture_writer *w, unsigned int source,
			 uint32_t inode, const char *name)
{
	struct mplane_capture_netns *n;
	size_t len;
	int err;

	n = mp_capture_netns_new(inode, name, &len);
	if (!n)
		return -ENOMEM;
	err = mp_capture_put(w, MPLANE_CF_NETNS, source, n, len);
	free(n);
	return err;
}

int mp_capture_put_counter_name(struct mp_capture_writer *w,
				unsigned int source, uint32_t id,
				uint32_t kind, uint32_t ifindex,
				const char *name)
{
	size_t len = sizeof(struct mplane_capture_counter_name) +
		     strlen(name) + 1;
	struct mplane_capture_counter_name *n = calloc(1, len);
	int err;

	if (!n)
		return -ENOMEM;
	n->id = id;
	n->kind = kind;
	n->ifindex = ifindex;
	strcpy(n->name, name);
	err = mp_capture_put(w, MPLANE_CF_COUNTER_NAME, source, n, len);
	free(n);
	return err;
}

int mp_capture_finish(struct mp_capture_writer *w)
{
	int err = w->err;

	if (!w->f)
		return err;
	if (fflush(w->f) && !err)
		err = -errno;
	if (fclose(w->f) && !err)
		err = -errno;
	w->f = NULL;
	return err;
}

int mp_capture_open(struct mp_capture_reader *r, const char *path)
{
	struct mplane_capture_hdr h = {};
	size_t got;

	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "r");
	if (!r->f)
		return -errno;
	got = fread(&h, 1, sizeof(h), r->f);
	if (got < offsetof(struct mplane_capture_hdr, host) ||
	    h.magic != MPLANE_CAPTURE_MAGIC ||
	    h.version != MPLANE_CAPTURE_VERSION || h.hdr_len < got) {
		mp_capture_close(r);
		return -EPROTO;
	}
	/* A newer, longer header: skip what this reader does not know. */
	if (h.hdr_len > sizeof(h) &&
	    fseek(r->f, h.hdr_len, SEEK_SET)) {
		mp_capture_close(r);
		return -EPROTO;
	}
	/* The writer ends it; a file need not: printed, it stops here. */
	h.host[sizeof(h.host) - 1] = '\0';
	r->hdr = h;
	return 0;
}

int mp_capture_next(struct mp_capture_reader *r,
		    struct mplane_capture_frame *fr, const void **payload)
{
	size_t got = fread(fr, 1, sizeof(*fr), r->f);
	size_t padded;

	if (!got)
		return 0;
	if (got < sizeof(*fr) || fr->len > MAX_FRAME)
		return -EBADMSG;
	padded = PAD8(fr->len);
	/* An empty frame's payload is a buffer too, never NULL. */
	if (padded > r->cap || !r->buf) {
		void *p = realloc(r->buf, padded ? padded : 8);

		if (!p)
			return -ENOMEM;
		r->buf = p;
		r->cap = padded ? padded : 8;
	}
	if (fread(r->buf, 1, padded, r->f) != padded)
		return -EBADMSG;
	*payload = r->buf;
	r->frames++;
	return 1;
}

void mp_capture_close(struct mp_capture_reader *r)
{
	if (r->f)
		fclose(r->f);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
