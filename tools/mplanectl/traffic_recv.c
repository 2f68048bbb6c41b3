// SPDX-License-Identifier: GPL-2.0
/* mplanectl traffic recv: receive a traffic stream and measure it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mp_hist.h"
#include "mp_opt.h"
#include "mp_rtnl.h"
#include "mp_seqstat.h"
#include "mplanectl.h"
#include "traffic.h"

#define RECV_BATCH	64
/* What is kept of each packet: the header, the rest is padding. */
#define RECV_KEEP	64
/* Room for a few ms of a stalled receiver at high rates: what a slow
 * reader drops is not the path's loss (socket_drops counts it apart). */
#define RECV_RCVBUF	(8 << 20)

/* The value of a macro that is a plain number, as a string. */
#define STR_(x)		#x
#define STR(x)		STR_(x)

struct recv_cfg {
	uint64_t port;
	const char *bind;
	const char *dev;
	uint64_t count;		/* 0: no limit */
	uint64_t timeout_ns;	/* 0: none */
	uint64_t idle_ns;	/* 0: none */
	uint64_t expect;	/* 0: not known */
	uint64_t fault_window_ns;
	const char *watch_link;
	const char *ready_file;
};

#define AT(member)	MP_OPT_AT(struct recv_cfg, member)
static const struct mp_opt recv_opts[] = {
	{ "port", 'p', MP_OPT_UINT, AT(port), "PORT",
	  "UDP port; 0 for any free one", .max = 65535,
	  .def = STR(TRAFFIC_PORT) },
	{ "bind", 'b', MP_OPT_STRING, AT(bind), "ADDR",
	  .help = "receive only what is sent to local address ADDR" },
	{ "dev", 0, MP_OPT_STRING, AT(dev), "IFNAME",
	  .help = "receive only what comes in on IFNAME (SO_BINDTODEVICE)" },
	{ "count", 'c', MP_OPT_UINT, AT(count), "N",
	  "stop after N packets (duplicates included)", .min = 1 },
	{ "timeout", 't', MP_OPT_SECONDS, AT(timeout_ns), "SEC",
	  "stop after SEC seconds in all; 0 for never", .def = "never" },
	{ "idle", 'i', MP_OPT_SECONDS, AT(idle_ns), "SEC",
	  "stop once SEC seconds pass without a packet, after the first one; 0 for never",
	  .def = "never" },
	{ "expect", 'e', MP_OPT_UINT, AT(expect), "N",
	  "the sender sends N packets per flow, numbered from 0: its --count divided by its --flows",
	  .min = 1 },
	{ "fault-window", 0, MP_OPT_SECONDS, AT(fault_window_ns), "SEC",
	  "how far from a fault, before and after it, an arrival's gaps count as near it",
	  .def = "0.005" },
	{ "watch-link", 0, MP_OPT_STRING, AT(watch_link), "IFNAME",
	  .help = "a change of IFNAME (in recv's namespace) is a fault: the outage of a failover that lost nothing" },
	{ "ready-file", 0, MP_OPT_STRING, AT(ready_file), "PATH",
	  .help = "once the socket is bound, write its port to PATH (removed when recv ends): wait for PATH, not a fixed time, before starting the sender" },
	{}
};
#undef AT

static const struct mp_opt_cmd recv_cmd = {
	.usage = "traffic recv [OPTIONS]",
	.about =
"Receive the packets of 'mplanectl traffic send' on UDP port PORT (IPv4\n"
"and IPv6) and account for each flow: packets received, lost, reordered\n"
"(arrived after a higher sequence number) and duplicated, and the lowest\n"
"and highest sequence number.  Datagrams that are not such packets are\n"
"only counted (\"invalid\").\n"
"\n"
"Loss is the holes between the lowest and highest number that arrived;\n"
"with --expect N, the sender's N packets per flow less those that\n"
"arrived, so that loss at the start and the end of the stream counts too.\n"
"A flow none of whose packets arrived cannot be known, nor counted.\n"
"\n"
"Delivery gaps are the times between consecutive arrivals (of any flow),\n"
"taken from the kernel's receive timestamps (SO_TIMESTAMPNS): the longest\n"
"one and the packet after which it came, and percentiles.  The excess gap\n"
"of two arrivals is their gap less the gap between their send times: the\n"
"delay the path added, without the sender's stalls, and without the gap\n"
"that lost packets leave (which is in the gap, and in the loss).  Only\n"
"differences of each clock are used, so sender and receiver need not share\n"
"one, only tick at the same rate.\n"
"\n"
"Gaps near a fault are taken only over the arrivals within --fault-window\n"
"of a fault: an arrival that closed a hole in its flow, or a change of\n"
"--watch-link IFNAME (up or down, carrier or not).  They are the outage\n"
"of a failover, apart from stalls elsewhere in the stream; the longest\n"
"excess gap away from every fault is given too: a stream that stalled\n"
"there as well was stalled by its host (a guest's vCPU descheduled).\n"
"Packets that a full socket buffer dropped (socket_drops) count as lost:\n"
"the path delivered them, the reader did not keep up.\n"
"\n"
"It stops after --count packets, after --timeout, after --idle without\n"
"packets once the first came, or on SIGINT or SIGTERM, and then prints\n"
"its summary; with -j, one JSON object (times in us; gap fields are null\n"
"until two packets arrived):\n"
"  {\"received\":1998,\"udp_port\":9000,\"duration_s\":0.099950,\"lost\":2,\n"
"   \"expect_per_flow\":2000,\"reordered\":0,\"duplicates\":0,\"invalid\":0,\n"
"   \"socket_drops\":0,\n"
"   \"max_gap_us\":150.021,\"max_gap_after_seq\":99,\"max_gap_after_flow\":0,\n"
"   \"max_excess_gap_us\":3.100,\"max_excess_gap_after_seq\":1500,\n"
"   \"max_excess_gap_after_flow\":0,\"gap_p50_us\":50.000,\n"
"   \"gap_p99_us\":50.800,\"gap_p999_us\":150.021,\"timestamps\":\"kernel\",\n"
"   \"holes\":1,\"max_gap_near_fault_us\":150.021,\n"
"   \"max_excess_gap_near_fault_us\":0.000,\"max_excess_gap_away_us\":3.100,\n"
"   \"flows\":[{\"flow\":0,\"received\":1998,\"lost\":2,\"reordered\":0,\n"
"   \"duplicates\":0,\"first_seq\":0,\"last_seq\":1999,\n"
"   \"max_gap_us\":150.021,\"max_gap_after_seq\":99,\"max_excess_gap_us\":3.100}],\n"
"   \"stopped_by\":\"idle\"}\n"
"\"expect_per_flow\" is there only with --expect, \"link_changes\" only with\n"
"--watch-link; the gaps near a fault are null without one.  \"socket_drops\"\n"
"is what the socket dropped because recv did not read in time: not the\n"
"path's loss.  \"stopped_by\" is count, timeout, idle, signal or error;\n"
"\"timestamps\" is kernel, user (clock_gettime() at receive time, when the\n"
"kernel gave none) or mixed.\n"
"\n"
"Exit status is 0 when packets were received, 1 when none were or on an\n"
"error.\n",
	.opts = recv_opts,
	.footer =
"Examples:\n"
"  mplanectl traffic recv --idle 1                  until 1 s of silence\n"
"  mplanectl -j traffic recv -e 20000 -i 1 -t 30 | jq .lost\n"
"  mplanectl -n b traffic recv --ready-file /run/rx.ready --count 1000 &\n",
};

struct rx_flow {
	struct mp_seqstat seq;
	struct mp_gapstat gap;
};

struct receiver {
	const struct recv_cfg *cfg;
	int fd;
	uint16_t port;
	struct rx_flow *flows[TRAFFIC_MAX_FLOWS];
	unsigned int nflows;
	struct mp_gapstat gap;		/* over all flows */
	struct mp_hist hist;		/* of the gaps in gap */
	struct mp_faultwin fault;	/* gaps near faults */
	struct mp_rtnl links;		/* with --watch-link */
	int watch_ifindex;
	unsigned int watch_flags;	/* its IFF_UP | IFF_RUNNING */
	uint64_t received, invalid;
	uint64_t kernel_stamps, user_stamps;
	uint32_t socket_drops;
	uint64_t first_rx_ns, last_rx_ns;
	const char *stopped_by;
};

/* One recvmmsg() worth of packets, with their timestamps. */
struct rx_batch {
	struct mmsghdr msgs[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	unsigned char data[RECV_BATCH][RECV_KEEP];
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec)) +
			 CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctrl[RECV_BATCH];
};

static int set_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

/* Any address, IPv6 and IPv4 on one socket where the host has IPv6. */
static int any_socket(uint16_t port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	int fd;

	memset(ss, 0, sizeof(*ss));
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	*len = sizeof(*sin);
	return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static int open_socket(struct receiver *r)
{
	const struct recv_cfg *cfg = r->cfg;
	struct sockaddr_storage ss;
	char addr[MP_SOCKADDR_STRLEN];
	const char *what = "socket";
	socklen_t len;
	int err;

	if (cfg->bind) {
		err = mp_resolve(cfg->bind, cfg->port, &ss, &len);
		if (err)
			return err;
		r->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	} else {
		r->fd = any_socket(cfg->port, &ss, &len);
	}
	if (r->fd < 0)
		goto err;
	what = cfg->dev;
	if (cfg->dev && setsockopt(r->fd, SOL_SOCKET, SO_BINDTODEVICE,
				   cfg->dev, strlen(cfg->dev)))
		goto err;
	what = "SO_TIMESTAMPNS";
	if (set_int(r->fd, SOL_SOCKET, SO_TIMESTAMPNS, 1))
		goto err;
	what = "SO_RXQ_OVFL";
	if (set_int(r->fd, SOL_SOCKET, SO_RXQ_OVFL, 1))
		goto err;
	/* FORCE goes past net.core.rmem_max, for root; else as much as that
	 * allows. */
	if (set_int(r->fd, SOL_SOCKET, SO_RCVBUFFORCE, RECV_RCVBUF))
		set_int(r->fd, SOL_SOCKET, SO_RCVBUF, RECV_RCVBUF);
	what = mp_sockaddr_str((struct sockaddr *)&ss, addr, sizeof(addr));
	if (bind(r->fd, (struct sockaddr *)&ss, len))
		goto err;
	len = sizeof(ss);
	what = "getsockname";
	if (getsockname(r->fd, (struct sockaddr *)&ss, &len))
		goto err;
	r->port = ntohs(ss.ss_family == AF_INET6 ?
			((struct sockaddr_in6 *)&ss)->sin6_port :
			((struct sockaddr_in *)&ss)->sin_port);
	return 0;
err:
	mp_err("%s: %s", what, strerror(errno));
	return MP_EXIT_ERR;
}

#define WATCH_FLAGS	(IFF_UP | IFF_RUNNING)

/* --watch-link: subscribe to link changes first, then read the link's
 * flags, so that no change falls between the two. */
static int open_watch(struct receiver *r)
{
	struct mp_nlerr e = {};
	struct mp_link *l;
	int err;

	err = mp_rtnl_open(&r->links, RTMGRP_LINK);
	if (err) {
		mp_err("netlink: %s", strerror(-err));
		return MP_EXIT_ERR;
	}
	l = malloc(sizeof(*l));
	if (!l) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	err = mp_rtnl_get_link(&r->links, r->cfg->watch_link, l, &e);
	if (!err) {
		r->watch_ifindex = l->ifindex;
		r->watch_flags = l->flags & WATCH_FLAGS;
	}
	free(l);
	if (err) {
		mp_nlerr_report(r->cfg->watch_link, err, &e);
		return MP_EXIT_ERR;
	}
	return 0;
}

/* A message about a link: a fault when the watched one went up or down,
 * or gained or lost its carrier. */
static int watched_link(const struct mp_link *l, int msg_type, void *data)
{
	struct receiver *r = data;
	unsigned int flags = msg_type == RTM_DELLINK ? 0 : l->flags & WATCH_FLAGS;

	if (l->ifindex != r->watch_ifindex || flags == r->watch_flags)
		return 0;
	r->watch_flags = flags;
	/* On the clock of the kernel's receive timestamps. */
	mp_faultwin_event(&r->fault, traffic_now_ns(CLOCK_REALTIME));
	return 0;
}

/* Written under another name and renamed, so that whoever waits for the
 * file never reads it half written. */
static int write_ready(const char *path, uint16_t port)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		goto err;
	fprintf(f, "%u\n", port);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		goto err;
	}
	return 0;
err:
	mp_err("%s: %s", path, strerror(errno));
	return MP_EXIT_ERR;
}

static struct rx_flow *get_flow(struct receiver *r, uint16_t id)
{
	struct rx_flow *f = r->flows[id];

	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return NULL;
		f->seq.expect = r->cfg->expect;
		r->flows[id] = f;
		r->nflows++;
	}
	return f;
}

/* The kernel's receive time of @mh (CLOCK_REALTIME), 0 if it has none;
 * also takes the socket's drop counter when it comes along. */
static uint64_t rx_stamp(struct receiver *r, struct msghdr *mh)
{
	struct cmsghdr *cm;
	struct timespec ts;
	uint64_t ns = 0;
	uint32_t drops;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
		} else if (cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&drops, CMSG_DATA(cm), sizeof(drops));
			r->socket_drops = drops;
		}
	}
	return ns;
}

static int account(struct receiver *r, const struct traffic_pkt *pkt,
		   uint64_t rx_ns)
{
	struct rx_flow *f;
	uint64_t gap = 0;
	bool hole;

	if (pkt->flow >= TRAFFIC_MAX_FLOWS) {
		r->invalid++;
		return 0;
	}
	f = get_flow(r, pkt->flow);
	if (!f) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	hole = f->seq.received && pkt->seq > f->seq.last + 1;
	mp_seqstat_add(&f->seq, pkt->seq);
	mp_gapstat_add(&f->gap, rx_ns, pkt->send_ns, pkt->flow, pkt->seq, &gap);
	gap = 0;
	if (mp_gapstat_add(&r->gap, rx_ns, pkt->send_ns, pkt->flow, pkt->seq,
			   &gap))
		mp_hist_add(&r->hist, gap);
	mp_faultwin_add(&r->fault, rx_ns, gap,
			r->gap.arrivals > 1 ? r->gap.last_excess_ns : 0, hole);
	if (!r->received++)
		r->first_rx_ns = rx_ns;
	r->last_rx_ns = rx_ns;
	return 0;
}

static bool enough(const struct receiver *r)
{
	return r->cfg->count && r->received >= r->cfg->count;
}

/* Take what the socket holds, up to a batch; -1 on an error. */
static int drain(struct receiver *r, struct rx_batch *b)
{
	struct traffic_pkt pkt;
	struct msghdr *mh;
	uint64_t rx_ns, user_ns;
	int i, n;

	for (i = 0; i < RECV_BATCH; i++) {
		mh = &b->msgs[i].msg_hdr;
		memset(mh, 0, sizeof(*mh));
		b->iov[i].iov_base = b->data[i];
		b->iov[i].iov_len = RECV_KEEP;
		mh->msg_iov = &b->iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = b->ctrl[i].buf;
		mh->msg_controllen = sizeof(b->ctrl[i].buf);
	}
	n = recvmmsg(r->fd, b->msgs, RECV_BATCH, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		mp_err("recvmmsg: %s", strerror(errno));
		return -1;
	}
	user_ns = traffic_now_ns(CLOCK_REALTIME);
	for (i = 0; i < n && !enough(r); i++) {
		rx_ns = rx_stamp(r, &b->msgs[i].msg_hdr);
		/* Cut to RECV_KEEP bytes, which hold the header. */
		if (!traffic_hdr_find(b->data[i], b->msgs[i].msg_len, &pkt)) {
			r->invalid++;
			continue;
		}
		if (rx_ns) {
			r->kernel_stamps++;
		} else {
			rx_ns = user_ns;
			r->user_stamps++;
		}
		if (account(r, &pkt, rx_ns))
			return -1;
	}
	return n;
}

/* How long to wait for packets: 0 when it is time to stop, -1 forever. */
static int64_t wait_ns(struct receiver *r, uint64_t start, uint64_t last)
{
	uint64_t now = traffic_now_ns(CLOCK_MONOTONIC);
	uint64_t end = UINT64_MAX, idle_end = UINT64_MAX;

	if (r->cfg->timeout_ns)
		end = start + r->cfg->timeout_ns;
	if (r->cfg->idle_ns && r->received)
		idle_end = last + r->cfg->idle_ns;
	if (now >= idle_end) {
		r->stopped_by = "idle";
		return 0;
	}
	if (now >= end) {
		r->stopped_by = "timeout";
		return 0;
	}
	if (idle_end < end)
		end = idle_end;
	return end == UINT64_MAX ? -1 : (int64_t)(end - now);
}

/*
 * SIGINT and SIGTERM are blocked but while waiting in ppoll(), so that
 * one that comes between the check of traffic_stop and the wait still
 * ends the wait.
 */
static int run(struct receiver *r)
{
	struct pollfd pfd[2] = {
		{ .fd = r->fd, .events = POLLIN },
		{ .fd = r->links.nl ? mnl_socket_get_fd(r->links.nl) : -1,
		  .events = POLLIN },
	};
	uint64_t start, last = 0, before;
	sigset_t stops, waiting;
	struct rx_batch *b;
	struct timespec ts;
	int64_t wait;
	int n, err = 0;

	b = malloc(sizeof(*b));
	if (!b) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &waiting);
	start = traffic_now_ns(CLOCK_MONOTONIC);
	while (!err) {
		if (traffic_stop) {
			r->stopped_by = "signal";
			break;
		}
		if (enough(r)) {
			r->stopped_by = "count";
			break;
		}
		wait = wait_ns(r, start, last);
		if (!wait)
			break;
		ts.tv_sec = wait / NSEC_PER_SEC;
		ts.tv_nsec = wait % NSEC_PER_SEC;
		n = ppoll(pfd, 2, wait < 0 ? NULL : &ts, &waiting);
		if (n < 0 && errno != EINTR) {
			mp_err("ppoll: %s", strerror(errno));
			err = MP_EXIT_ERR;
		}
		if (n <= 0)
			continue;
		/* A link change before the packets that came with it: those
		 * still queued arrived before it was read. */
		if ((pfd[1].revents & POLLIN) &&
		    mp_rtnl_read_links(&r->links, watched_link, r) == -ENOMEM)
			err = MP_EXIT_ERR;
		if (!(pfd[0].revents & POLLIN))
			continue;
		before = r->received;
		if (drain(r, b) < 0)
			err = MP_EXIT_ERR;
		if (r->received > before)
			last = traffic_now_ns(CLOCK_MONOTONIC);
	}
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	free(b);
	return err;
}

/* The sum of @get over the flows. */
static uint64_t total(const struct receiver *r,
		      uint64_t (*get)(const struct rx_flow *))
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < TRAFFIC_MAX_FLOWS; i++)
		if (r->flows[i])
			sum += get(r->flows[i]);
	return sum;
}

static uint64_t flow_lost(const struct rx_flow *f)
{
	return mp_seqstat_lost(&f->seq);
}

static uint64_t flow_reordered(const struct rx_flow *f)
{
	return f->seq.reordered;
}

static uint64_t flow_duplicates(const struct rx_flow *f)
{
	return f->seq.duplicates;
}

static uint64_t flow_beyond(const struct rx_flow *f)
{
	return f->seq.beyond;
}

/* All that was expected is lost when nothing at all came. */
static uint64_t lost(const struct receiver *r)
{
	return r->nflows ? total(r, flow_lost) : r->cfg->expect;
}

static const char *stamps(const struct receiver *r)
{
	if (!r->user_stamps)
		return "kernel";
	return r->kernel_stamps ? "mixed" : "user";
}

static double us(uint64_t ns)
{
	return ns / 1e3;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static enum mp_print_to where(bool text, bool json)
{
	if (text)
		return json ? MP_PRINT_ANY : MP_PRINT_TEXT;
	return MP_PRINT_JSON;
}

/* A gap (in us) not @seen yet is null in JSON and not in text. */
static void rx_print_us(bool seen, const char *key, const char *fmt,
			uint64_t ns)
{
	if (seen)
		mp_print_fixed(MP_PRINT_ANY, key, fmt, 3, us(ns));
	else
		mp_print_null(MP_PRINT_JSON, key, NULL);
}

/* Where a gap was, as rx_print_us(). */
static void rx_print_at(bool seen, const char *key, const char *fmt,
			uint64_t v)
{
	if (seen)
		mp_print_u64(MP_PRINT_ANY, key, fmt, v);
	else
		mp_print_null(MP_PRINT_JSON, key, NULL);
}

static void print_totals(const struct receiver *r)
{
	/* Text has them when there is something to say. */
	enum mp_print_to also = where(r->invalid || r->socket_drops, true);

	mp_print_u64(MP_PRINT_ANY, "received", "received %" PRIu64 " packet",
		     r->received);
	mp_print_text("%s", plural(r->received));
	mp_print_u64(MP_PRINT_ANY, "udp_port", " on port %" PRIu64, r->port);
	mp_print_fixed(MP_PRINT_ANY, "duration_s", " in %.6f s", 6,
		       (r->last_rx_ns - r->first_rx_ns) / 1e9);
	mp_print_text(" (%u flow%s)", r->nflows, plural(r->nflows));
	mp_print_u64(MP_PRINT_ANY, "lost", ": %" PRIu64 " lost", lost(r));
	if (r->cfg->expect)
		mp_print_u64(MP_PRINT_ANY, "expect_per_flow",
			     " of %" PRIu64 " expected per flow", r->cfg->expect);
	mp_print_u64(MP_PRINT_ANY, "reordered", ", %" PRIu64 " reordered",
		     total(r, flow_reordered));
	mp_print_u64(MP_PRINT_ANY, "duplicates", ", %" PRIu64 " duplicates\n",
		     total(r, flow_duplicates));
	mp_print_u64(also, "invalid",
		     "also %" PRIu64 " invalid datagrams; ", r->invalid);
	mp_print_u64(also, "socket_drops",
		     "%" PRIu64 " dropped by a full socket buffer\n",
		     r->socket_drops);
}

static void print_gaps(const struct receiver *r)
{
	const struct mp_gapstat *g = &r->gap;
	const struct mp_hist *h = &r->hist;
	bool seen = g->arrivals >= 2;

	rx_print_us(seen, "max_gap_us", "gaps: max %.3f us", g->max_gap_ns);
	rx_print_at(seen, "max_gap_after_seq", " after seq %" PRIu64,
		 g->max_gap_seq);
	rx_print_at(seen, "max_gap_after_flow", " of flow %" PRIu64,
		 g->max_gap_flow);
	rx_print_us(seen, "max_excess_gap_us", "; max excess %.3f us",
		 mp_gapstat_max_excess(g));
	rx_print_at(seen, "max_excess_gap_after_seq", " after seq %" PRIu64,
		 g->max_excess_seq);
	rx_print_at(seen, "max_excess_gap_after_flow", " of flow %" PRIu64 "\n",
		 g->max_excess_flow);
	rx_print_us(seen, "gap_p50_us", "      p50 %.3f us",
		 mp_hist_quantile(h, 0.5));
	rx_print_us(seen, "gap_p99_us", ", p99 %.3f us", mp_hist_quantile(h, 0.99));
	rx_print_us(seen, "gap_p999_us", ", p99.9 %.3f us",
		 mp_hist_quantile(h, 0.999));
	mp_print_str(seen ? MP_PRINT_ANY : MP_PRINT_JSON, "timestamps",
		     " (%s timestamps)\n", stamps(r));
}

static void print_faults(const struct receiver *r)
{
	const struct mp_faultwin *w = &r->fault;
	bool seen = mp_faultwin_seen(w);
	/* Without --watch-link, JSON has no link to count changes of. */
	enum mp_print_to changes = where(seen, r->cfg->watch_link);

	mp_print_u64(seen ? MP_PRINT_ANY : MP_PRINT_JSON, "holes",
		     "near faults (%" PRIu64 " holes", w->holes);
	if (seen || r->cfg->watch_link)
		mp_print_u64(changes, "link_changes",
			     ", %" PRIu64 " link changes", w->events);
	if (seen)
		mp_print_text(", %.3f ms either side): ",
			      r->cfg->fault_window_ns / 1e6);
	rx_print_us(seen, "max_gap_near_fault_us", "max gap %.3f us",
		 w->max_gap_ns);
	rx_print_us(seen, "max_excess_gap_near_fault_us", ", max excess %.3f us",
		 mp_faultwin_max_excess(w));
	rx_print_us(seen, "max_excess_gap_away_us",
		 "; away from them: max excess %.3f us\n",
		 mp_faultwin_max_excess_away(w));
}

static void print_flow(unsigned int id, const struct rx_flow *f)
{
	const struct mp_seqstat *s = &f->seq;
	const struct mp_gapstat *g = &f->gap;
	bool seen = g->arrivals >= 2;

	mp_print_open_object(NULL);
	mp_print_u64(MP_PRINT_ANY, "flow", "%-5" PRIu64, id);
	mp_print_u64(MP_PRINT_ANY, "received", " %10" PRIu64, s->received);
	mp_print_u64(MP_PRINT_ANY, "lost", " %10" PRIu64, mp_seqstat_lost(s));
	mp_print_u64(MP_PRINT_ANY, "reordered", " %10" PRIu64, s->reordered);
	mp_print_u64(MP_PRINT_ANY, "duplicates", " %10" PRIu64, s->duplicates);
	mp_print_u64(MP_PRINT_ANY, "first_seq", " %12" PRIu64, s->first);
	mp_print_u64(MP_PRINT_ANY, "last_seq", " %12" PRIu64, s->last);
	/* The table has a number in every row, JSON null for none yet. */
	rx_print_us(seen, "max_gap_us", " %11.3f", g->max_gap_ns);
	if (!seen)
		mp_print_float(MP_PRINT_TEXT, NULL, " %11.3f",
			       us(g->max_gap_ns));
	mp_print_text("\n");
	rx_print_at(seen, "max_gap_after_seq", NULL, g->max_gap_seq);
	rx_print_us(seen, "max_excess_gap_us", NULL, mp_gapstat_max_excess(g));
	mp_print_close_object();
}

static void print_flows(const struct receiver *r)
{
	unsigned int i;

	if (r->nflows)
		mp_print_text("%-5s %10s %10s %10s %10s %12s %12s %11s\n",
			      "flow", "received", "lost", "reordered",
			      "duplicates", "first_seq", "last_seq",
			      "max_gap_us");
	mp_print_open_array("flows");
	for (i = 0; i < TRAFFIC_MAX_FLOWS; i++)
		if (r->flows[i])
			print_flow(i, r->flows[i]);
	mp_print_close_array();
}

static void print_summary(const struct receiver *r)
{
	mp_print_start();
	print_totals(r);
	print_gaps(r);
	print_faults(r);
	print_flows(r);
	mp_print_str(MP_PRINT_ANY, "stopped_by", "stopped by %s\n",
		     r->stopped_by);
	mp_print_end();
}

/* MP_OPT_RUN, or the status to exit with (a mistake is reported). */
static int parse(int argc, char **argv, struct recv_cfg *cfg)
{
	struct mp_opt_result res;
	int err;

	err = mp_opt_parse(&recv_cmd, argc, argv, cfg, &res);
	if (err != MP_OPT_RUN)
		return err;
	if (res.argi < argc)
		return mp_usage_err("unexpected argument '%s'", argv[res.argi]);
	if (cfg->dev && !mp_ifindex(cfg->dev))
		return MP_EXIT_ERR;
	return MP_OPT_RUN;
}

static void receiver_free(struct receiver *r)
{
	unsigned int i;

	for (i = 0; i < TRAFFIC_MAX_FLOWS; i++)
		free(r->flows[i]);
	if (r->fd >= 0)
		close(r->fd);
	if (r->links.nl)
		mp_rtnl_close(&r->links);
	free(r);
}

int traffic_recv_main(int argc, char **argv)
{
	struct recv_cfg cfg = {
		.port = TRAFFIC_PORT,
		.fault_window_ns = 5 * 1000 * 1000,
	};
	struct receiver *r;
	int err;

	err = parse(argc, argv, &cfg);
	if (err != MP_OPT_RUN)
		return err;
	/* Its histogram makes it too big for the stack. */
	r = calloc(1, sizeof(*r));
	if (!r) {
		mp_err("%s", strerror(ENOMEM));
		return MP_EXIT_ERR;
	}
	r->cfg = &cfg;
	r->fd = -1;
	r->stopped_by = "error";
	r->fault.window_ns = cfg.fault_window_ns;
	err = open_socket(r);
	if (!err && cfg.watch_link)
		err = open_watch(r);
	if (!err && cfg.ready_file)
		err = write_ready(cfg.ready_file, r->port);
	if (!err) {
		err = run(r);
		mp_faultwin_finish(&r->fault);
		print_summary(r);
		if (!err && !r->received) {
			mp_err("nothing received on port %u", r->port);
			err = MP_EXIT_ERR;
		}
		if (total(r, flow_beyond))
			mp_err("warning: %" PRIu64 " packets numbered past --expect %" PRIu64 " (it counts packets per flow)",
			       total(r, flow_beyond), cfg.expect);
	}
	if (cfg.ready_file)
		unlink(cfg.ready_file);
	receiver_free(r);
	return err;
}
