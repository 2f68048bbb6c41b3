// SPDX-License-Identifier: GPL-2.0
/* mplanectl traffic send: a paced stream of numbered UDP packets. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/ip.h>
#include <sys/prctl.h>
#include <linux/mplane.h>

#include "mp_arg.h"
#include "mp_cmd.h"
#include "mp_net.h"
#include "mp_opt.h"
#include "mp_out.h"
#include "mp_print.h"
#include "mplanectl.h"
#include "traffic.h"

#define SEND_RATE	20000
#define SEND_MAX_RATE	10000000
#define SEND_SIZE	64
#define SEND_MAX_SIZE	65507		/* the most an IPv4 UDP datagram holds */
#define SEND_BURST	256
#define SEND_MAX_BURST	1000000
/* A CNP: BTH, 16 reserved bytes, ICRC; a literal, for --help. */
#define SEND_CNP_SIZE	32
_Static_assert(SEND_CNP_SIZE == TRAFFIC_BTH_LEN + 16 + TRAFFIC_ICRC_LEN,
	       "a CNP's size");
#define BTH_OP_RC_SEND_ONLY	0x04

/* The value of a macro that is a plain number, as a string. */
#define STR_(x)		#x
#define STR(x)		STR_(x)

/* --roce, --cnp and --opcode, in the order given: --cnp sets the opcode
 * that an --opcode after it overrides. */
struct send_roce {
	bool on;		/* RoCEv2-shaped payloads */
	bool cnp;
	struct traffic_roce bth;
};

struct send_cfg {
	struct sockaddr_storage to;
	socklen_t to_len;
	const char *dev;
	uint64_t rate;
	uint64_t count;		/* 0: no limit */
	uint64_t duration_ns;	/* 0: no limit */
	uint64_t size;
	uint64_t flows;
	uint64_t burst;
	uint64_t tos_arg;	/* --tos, when given */
	int tos;		/* -1: leave the socket's */
	int ecn;		/* -1: that of --tos */
	struct send_roce roce;
};

/* --duration: seconds as every command takes them, but not 0, which
 * would end the stream before it began. */
static int parse_duration(const char *opt, const char *arg, void *field)
{
	uint64_t *ns = field;
	int err = mp_arg_seconds(opt, arg, ns);

	if (!err && !*ns)
		err = mp_usage_err("bad %s '%s': want more than 0 seconds",
				   opt, arg);
	return err;
}

static int parse_qpn(const char *opt, const char *arg, struct send_roce *r)
{
	uint64_t v;
	int err = mp_arg_u64(opt, arg, 0, MPLANE_BTH_QPN_MASK, &v);

	if (err)
		return err;
	r->on = true;
	r->bth.qpn = v;
	return MP_EXIT_OK;
}

static int parse_roce(const char *opt, const char *arg, void *field)
{
	return parse_qpn(opt, arg, field);
}

static int parse_cnp(const char *opt, const char *arg, void *field)
{
	struct send_roce *r = field;
	int err = parse_qpn(opt, arg, r);

	if (err)
		return err;
	r->cnp = true;
	r->bth.opcode = MPLANE_BTH_OPCODE_CNP;
	return MP_EXIT_OK;
}

static int parse_opcode(const char *opt, const char *arg, void *field)
{
	struct send_roce *r = field;
	uint64_t v;
	int err = mp_arg_u64(opt, arg, 0, 255, &v);

	if (!err)
		r->bth.opcode = v;
	return err;
}

/* The codepoints' names, by value: ECT(1) is 01, ECT(0) 10 and CE 11. */
static const char *const ecn_names[] = { "not-ect", "ect1", "ect0", "ce", NULL };

#define AT(member)	MP_OPT_AT(struct send_cfg, member)
static const struct mp_opt send_opts[] = {
	{ "rate", 'r', MP_OPT_UINT, AT(rate), "PPS",
	  "packets per second over all flows",
	  .min = 1, .max = SEND_MAX_RATE, .def = STR(SEND_RATE) },
	{ "count", 'c', MP_OPT_UINT, AT(count), "N",
	  "send N packets over all flows, then stop", .min = 1 },
	{ "duration", 'd', MP_OPT_CUSTOM, AT(duration_ns), "SEC",
	  "send for SEC seconds, such as 10 or 0.5; without --count or --duration, until SIGINT or SIGTERM",
	  .parse = parse_duration },
	{ "size", 's', MP_OPT_UINT, AT(size), "BYTES",
	  "UDP payload, the header and zeros",
	  .min = TRAFFIC_HDR_LEN, .max = SEND_MAX_SIZE,
	  .def = STR(SEND_SIZE) ", " STR(SEND_CNP_SIZE) " with --cnp" },
	{ "flows", 'f', MP_OPT_UINT, AT(flows), "K",
	  "K flows, round-robin over K sockets, each with its own source port and sequence numbers",
	  .min = 1, .max = TRAFFIC_MAX_FLOWS, .def = "1" },
	{ "dev", 0, MP_OPT_STRING, AT(dev), "IFNAME",
	  .help = "send through IFNAME only (SO_BINDTODEVICE)" },
	{ "tos", 0, MP_OPT_UINT, AT(tos_arg), "N",
	  "TOS (IPv4) or traffic class (IPv6) byte, such as 0x10",
	  .max = 255 },
	{ "burst", 0, MP_OPT_UINT, AT(burst), "N",
	  "most packets sent back to back to catch up",
	  .min = 1, .max = SEND_MAX_BURST, .def = STR(SEND_BURST) },
	{ "roce", 0, MP_OPT_CUSTOM, AT(roce), "QPN",
	  "RoCEv2-shaped: UDP to port " STR(MPLANE_ROCEV2_PORT) " (unless ADDR has one), the payload an InfiniBand BTH to destination QP QPN (0 to 0xffffff) with the flow's sequence number as PSN, then the header, zeros and a 4-byte ICRC placeholder (recv finds the header after the BTH)",
	  .parse = parse_roce },
	{ "cnp", 0, MP_OPT_CUSTOM, AT(roce), "QPN",
	  "CNPs (BTH opcode 0x81) to QP QPN: --roce QPN --opcode 0x81, and " STR(SEND_CNP_SIZE) " bytes unless --size says",
	  .parse = parse_cnp },
	{ "opcode", 0, MP_OPT_CUSTOM, AT(roce), "N",
	  "BTH opcode of --roce, 0 to 255", .parse = parse_opcode,
	  .def = "0x04, RC SEND ONLY" },
	{ "ackreq-every", 0, MP_OPT_UINT, AT(roce.bth.ackreq_every), "N",
	  "set the BTH ack-request bit on every Nth packet of a flow",
	  .min = 1, .def = "none" },
	{ "ecn", 0, MP_OPT_CHOICE, AT(ecn), "CODE",
	  "the IP ECN field, in the two low bits of --tos, which the kernel keeps for UDP",
	  .choices = ecn_names },
	{}
};
#undef AT

static const struct mp_opt_cmd send_cmd = {
	.usage = "traffic send [OPTIONS] ADDR[:PORT]",
	.about =
"Send UDP packets to ADDR at a steady rate, each with its flow, sequence\n"
"number and send time, for 'mplanectl traffic recv' to measure.  ADDR is\n"
"an IPv4 or IPv6 address or a host name; an IPv6 address takes a port\n"
"only in brackets, as in [fd00::2]:9000.  The port is " STR(TRAFFIC_PORT) " unless given.\n"
"\n"
"Packet i is due at start + i/PPS.  The sender sleeps until the next one\n"
"is due; when it has fallen behind (it did not get the CPU in time) it\n"
"sends every packet that is due at once, so that over the run the rate is\n"
"exactly PPS.  It catches up at most --burst packets: after a longer\n"
"stall the schedule moves on, and the summary tells how many packets it\n"
"gave up (\"slipped\").\n"
"\n"
"With --flows K the packets go round-robin over K sockets, each with its\n"
"own source port and sequence numbers: K flows for ECMP hashing.  A packet\n"
"that cannot be sent (no route during a failover, say) counts as an error\n"
"and its number is skipped, so the receiver sees it lost; the stream goes\n"
"on.\n"
"\n"
"At the end it prints what it sent, the time from the first packet to the\n"
"last and the rate achieved over that time; with -j, one JSON object:\n"
"  {\"sent\":20000,\"size\":64,\"to\":\"10.0.0.2:9000\",\"errors\":0,\n"
"   \"duration_s\":0.999950,\"pps\":20000.0,\"rate_pps\":20000,\"max_late_us\":61.2,\n"
"   \"slipped\":0,\"flows\":[{\"flow\":0,\"sport\":41234,\"sent\":20000}]}\n"
"\"max_late_us\" is how far behind schedule a packet went out at worst;\n"
"\"first_error\" is there when \"errors\" is not 0.\n"
"\n"
"Exit status is 0 when at least one packet went out.\n",
	.opts = send_opts,
	.footer =
"Examples:\n"
"  mplanectl traffic send 10.0.0.2 --count 20000         1 s at 20000 pps\n"
"  mplanectl traffic send [fd00::2]:9001 -r 1000 -d 10   IPv6, 10 s at 1000 pps\n"
"  mplanectl -n a traffic send 10.0.0.2 -f 4 -c 4000     4 flows of 1000\n"
"  mplanectl traffic send 10.0.0.2 --roce 0x11 --ecn ce --ackreq-every 4 -c 100\n"
"  mplanectl traffic send 10.0.0.2 --cnp 0x11 -c 10        10 CNPs to QP 0x11\n",
};

struct send_flow {
	int fd;
	uint16_t sport;
	uint64_t seq;		/* the next one, sent or not */
	uint64_t sent;
};

struct sender {
	const struct send_cfg *cfg;
	struct send_flow flows[TRAFFIC_MAX_FLOWS];
	unsigned char *buf;
	uint64_t sent, errors;
	int first_errno;
	uint64_t first_ns, last_ns;	/* send times of the first and last */
	uint64_t slipped;
	uint64_t max_late_ns;
};

/*
 * The schedule: packet i is due at t0 + (i - base) / rate.  t0 and base
 * move only when the sender slips, so rounding never accumulates.
 */
struct schedule {
	uint64_t t0, base, rate;
};

static uint64_t sched_span(const struct schedule *s, uint64_t packets)
{
	return (uint64_t)((unsigned __int128)packets * NSEC_PER_SEC / s->rate);
}

static uint64_t sched_due(const struct schedule *s, uint64_t i)
{
	return s->t0 + sched_span(s, i - s->base);
}

static int flow_open(const struct send_cfg *cfg, struct send_flow *f)
{
	int family = cfg->to.ss_family, tos = cfg->tos;
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	const char *what = "socket";

	f->fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (f->fd < 0)
		goto err;
	what = cfg->dev;
	if (cfg->dev && setsockopt(f->fd, SOL_SOCKET, SO_BINDTODEVICE,
				   cfg->dev, strlen(cfg->dev)))
		goto err;
	what = "--tos";
	if (tos >= 0 && (family == AF_INET6 ?
			 setsockopt(f->fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
			 setsockopt(f->fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos))))
		goto err;
	/* Connected: the kernel picks the source port and address once. */
	what = "connect";
	if (connect(f->fd, (struct sockaddr *)&cfg->to, cfg->to_len) ||
	    getsockname(f->fd, (struct sockaddr *)&local, &len))
		goto err;
	f->sport = ntohs(family == AF_INET6 ?
			 ((struct sockaddr_in6 *)&local)->sin6_port :
			 ((struct sockaddr_in *)&local)->sin_port);
	return 0;
err:
	mp_err("%s: %s", what, strerror(errno));
	return -1;
}

static void sender_close(struct sender *s)
{
	uint64_t f;

	for (f = 0; f < s->cfg->flows; f++)
		if (s->flows[f].fd >= 0)
			close(s->flows[f].fd);
	free(s->buf);
}

static int sender_open(struct sender *s, const struct send_cfg *cfg)
{
	uint64_t f;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	for (f = 0; f < cfg->flows; f++)
		s->flows[f].fd = -1;
	s->buf = calloc(1, cfg->size);
	if (!s->buf) {
		mp_err("%s", strerror(ENOMEM));
		return -1;
	}
	for (f = 0; f < cfg->flows; f++) {
		if (flow_open(cfg, &s->flows[f])) {
			sender_close(s);
			return -1;
		}
	}
	return 0;
}

static void payload_put(const struct sender *s, const struct traffic_pkt *p)
{
	if (s->cfg->roce.on)
		traffic_roce_put(s->buf, s->cfg->size, &s->cfg->roce.bth, p);
	else
		traffic_hdr_put(s->buf, p);
}

static void send_one(struct sender *s, uint64_t i)
{
	struct send_flow *f = &s->flows[i % s->cfg->flows];
	struct traffic_pkt pkt = {
		.flow = i % s->cfg->flows,
		.seq = f->seq,
	};
	ssize_t n;

	do {
		pkt.send_ns = traffic_now_ns(CLOCK_MONOTONIC);
		payload_put(s, &pkt);
		n = send(f->fd, s->buf, s->cfg->size, 0);
	} while (n < 0 && errno == EINTR && !traffic_stop);
	/* Cut short by the stop: the last packet, neither sent nor failed. */
	if (n < 0 && errno == EINTR)
		return;
	/* Skipped when it fails too, so that the receiver sees it lost. */
	f->seq++;
	if (n < 0) {
		if (!s->errors++)
			s->first_errno = errno;
		return;
	}
	f->sent++;
	if (!s->sent++)
		s->first_ns = pkt.send_ns;
	s->last_ns = pkt.send_ns;
}

/* Sleep until @due, or until a signal comes. */
static void sleep_until(uint64_t due)
{
	struct timespec ts = {
		.tv_sec = due / NSEC_PER_SEC,
		.tv_nsec = due % NSEC_PER_SEC,
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void run(struct sender *s)
{
	const struct send_cfg *cfg = s->cfg;
	struct schedule sched = { .rate = cfg->rate };
	uint64_t i, due, now, late, behind, end = 0;

	sched.t0 = traffic_now_ns(CLOCK_MONOTONIC);
	if (cfg->duration_ns)
		end = sched.t0 + cfg->duration_ns;
	for (i = 0; !cfg->count || i < cfg->count; i++) {
		due = sched_due(&sched, i);
		if (end && due >= end)
			break;
		now = traffic_now_ns(CLOCK_MONOTONIC);
		while (now < due && !traffic_stop) {
			sleep_until(due);
			now = traffic_now_ns(CLOCK_MONOTONIC);
		}
		if (traffic_stop)
			break;
		late = now > due ? now - due : 0;
		if (late > s->max_late_ns)
			s->max_late_ns = late;
		/* Packets after this one that are due as well. */
		behind = (uint64_t)((unsigned __int128)late * cfg->rate / NSEC_PER_SEC);
		if (behind > cfg->burst) {
			s->slipped += behind - cfg->burst;
			sched.base = i;
			sched.t0 = now - sched_span(&sched, cfg->burst);
		}
		send_one(s, i);
	}
}

static double duration_s(const struct sender *s)
{
	return (double)(s->last_ns - s->first_ns) / NSEC_PER_SEC;
}

/* The rate over the intervals between the first packet and the last. */
static double achieved_pps(const struct sender *s)
{
	double d = duration_s(s);

	return d > 0 ? (double)(s->sent - 1) / d : 0;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* JSON has each flow, text their number. */
static void print_flows(const struct sender *s)
{
	uint64_t i;

	mp_print_open_array("flows");
	for (i = 0; i < s->cfg->flows; i++) {
		mp_print_open_object(NULL);
		mp_print_u64(MP_PRINT_JSON, "flow", NULL, i);
		mp_print_u64(MP_PRINT_JSON, "sport", NULL, s->flows[i].sport);
		mp_print_u64(MP_PRINT_JSON, "sent", NULL, s->flows[i].sent);
		mp_print_close_object();
	}
	mp_print_close_array();
}

static void print_summary(const struct sender *s, const char *to)
{
	mp_print_start();
	mp_print_u64(MP_PRINT_ANY, "sent", "sent %" PRIu64 " packet", s->sent);
	mp_print_text("%s", plural(s->sent));
	mp_print_u64(MP_PRINT_ANY, "size", " of %" PRIu64 " bytes", s->cfg->size);
	mp_print_str(MP_PRINT_ANY, "to", " to %s", to);
	mp_print_u64(MP_PRINT_JSON, "errors", NULL, s->errors);
	/* Text has the errors on stderr, after this. */
	if (s->errors)
		mp_print_str(MP_PRINT_JSON, "first_error", NULL,
			     strerror(s->first_errno));
	mp_print_fixed(MP_PRINT_ANY, "duration_s", " in %.6f s", 6,
		       duration_s(s));
	mp_print_fixed(MP_PRINT_ANY, "pps", ": %.1f pps", 1, achieved_pps(s));
	mp_print_u64(MP_PRINT_JSON, "rate_pps", NULL, s->cfg->rate);
	mp_print_text(" (%" PRIu64 " flow%s)\n", s->cfg->flows,
		      plural(s->cfg->flows));
	mp_print_fixed(MP_PRINT_ANY, "max_late_us",
		       "at most %.1f us behind schedule\n", 1,
		       s->max_late_ns / 1e3);
	if (s->slipped)
		mp_print_text("fell more than %" PRIu64 " packets behind: gave up ",
			      s->cfg->burst);
	mp_print_u64(s->slipped ? MP_PRINT_ANY : MP_PRINT_JSON, "slipped",
		     "%" PRIu64 " (slipped)\n", s->slipped);
	print_flows(s);
	mp_print_end();
}

/* What the RoCEv2 and ECN options change in the others, once all are in. */
static void roce_defaults(struct send_cfg *cfg, bool size_given,
			  uint16_t *port)
{
	if (cfg->ecn >= 0)
		cfg->tos = ((cfg->tos < 0 ? 0 : cfg->tos) & ~3) | cfg->ecn;
	if (!cfg->roce.on)
		return;
	*port = MPLANE_ROCEV2_PORT;
	if (cfg->roce.cnp && !size_given)
		cfg->size = SEND_CNP_SIZE;
}

/* MP_OPT_RUN, or the status to exit with (a mistake is reported). */
static int parse(int argc, char **argv, struct send_cfg *cfg)
{
	uint16_t port = TRAFFIC_PORT;
	struct mp_opt_result res;
	const char *arg;
	char host[256];
	int err;

	err = mp_opt_parse(&send_cmd, argc, argv, cfg, &res);
	if (err != MP_OPT_RUN)
		return err;
	if (cfg->count && cfg->duration_ns)
		return mp_usage_err("--count and --duration exclude each other");
	if (mp_opt_given(&send_cmd, &res, "tos"))
		cfg->tos = cfg->tos_arg;
	roce_defaults(cfg, mp_opt_given(&send_cmd, &res, "size"), &port);
	arg = mp_single_arg(argc, argv, "ADDR");
	if (!arg)
		return MP_EXIT_USAGE;
	err = mp_arg_hostport("ADDR", arg, host, sizeof(host), &port);
	if (err)
		return err;
	if (cfg->dev && !mp_ifindex(cfg->dev))
		return MP_EXIT_ERR;
	err = mp_resolve(host, port, &cfg->to, &cfg->to_len);
	return err ? err : MP_OPT_RUN;
}

int traffic_send_main(int argc, char **argv)
{
	struct send_cfg cfg = {
		.rate = SEND_RATE,
		.size = SEND_SIZE,
		.flows = 1,
		.burst = SEND_BURST,
		.tos = -1,
		.ecn = -1,
		.roce.bth.opcode = BTH_OP_RC_SEND_ONLY,
	};
	char to[MP_SOCKADDR_STRLEN];
	struct sender s;
	int err;

	err = parse(argc, argv, &cfg);
	if (err != MP_OPT_RUN)
		return err;
	if (sender_open(&s, &cfg))
		return MP_EXIT_ERR;
	/* The default slack of 50 us would make every sleep that late. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	run(&s);
	mp_sockaddr_str((struct sockaddr *)&cfg.to, to, sizeof(to));
	print_summary(&s, to);
	if (s.errors)
		mp_err("%" PRIu64 " packet%s not sent, the first for: %s",
		       s.errors, s.errors == 1 ? "" : "s",
		       strerror(s.first_errno));
	err = s.sent ? MP_EXIT_OK : MP_EXIT_ERR;
	sender_close(&s);
	return err;
}
