// SPDX-License-Identifier: GPL-2.0
/*
 * mppkt: hand-made IPv4 packets through AF_PACKET, for the datapath tests
 * of what no socket of the IP stack would send: a header that claims more
 * than the packet holds, or a checksum left at zero so that a write into
 * the packet by the stack shows.
 *
 *   mppkt NS send DEV DST [ihl=N] [tot_len=N|short] [version=N] [csum=N]
 *       one IPv4/UDP packet from DEV's first address (or 0.0.0.0) to DST,
 *       written on DEV as SOCK_DGRAM (the header as given, nothing after
 *       it when ihl says more than 20 bytes);
 *   mppkt NS capture DEV SECS
 *       waits up to SECS for a packet that `mppkt send` made (IPv4, UDP
 *       12345 -> 9) at the start of a frame on DEV, and prints that frame
 *       as hex, one line; exit 1 when none came.  Other frames (the
 *       devices' own IPv6, say) are passed over.
 *
 * With `mppkt ... capture` started first (it prints "ready" on stderr
 * once its socket is bound), a packet sent through a mirror shows what
 * its clone carried when it was read.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mp_netns.h"

struct fields {
	int ihl, tot_len, version, csum;	/* -1: the right value */
	int short_len;				/* tot_len past the packet */
};

static void __attribute__((noreturn)) usage(void)
{
	fputs("usage: mppkt NS send DEV DST [ihl=N] [tot_len=N|short] [version=N] [csum=N]\n"
	      "       mppkt NS capture DEV SECS\n", stderr);
	exit(2);
}

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "mppkt: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void enter_netns(const char *name)
{
	int fd = mp_netns_open(name);

	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		errno = fd < 0 ? -fd : errno;
		die(name);
	}
	close(fd);
}

static int field(const char *arg, const char *name, int *v)
{
	size_t n = strlen(name);
	char *end;
	long x;

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	x = strtol(arg + n + 1, &end, 0);
	if (!arg[n + 1] || *end || x < 0 || x > 0xffff)
		usage();
	*v = (int)x;
	return 1;
}

static struct in_addr dev_addr(const char *dev)
{
	struct in_addr a = { 0 };
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		return a;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    !strcmp(i->ifa_name, dev)) {
			a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
			break;
		}
	freeifaddrs(ifa);
	return a;
}

static unsigned short ip_csum(const unsigned char *p, size_t len)
{
	unsigned long sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (unsigned short)~sum;
}

static int send_one(const char *dev, const char *dst, const struct fields *f)
{
	unsigned char pkt[28] = { 0 };
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
	};
	struct in_addr src = dev_addr(dev), to;
	int ihl = f->ihl >= 0 ? f->ihl : 5, fd;
	/* A header that claims options gets none: nothing follows it. */
	size_t len = ihl > 5 ? 20 : sizeof(pkt);
	unsigned short csum;

	if (inet_pton(AF_INET, dst, &to) != 1)
		usage();
	pkt[0] = (unsigned char)(((f->version >= 0 ? f->version : 4) << 4) | (ihl & 0xf));
	if (f->tot_len >= 0)
		csum = (unsigned short)f->tot_len;
	else
		csum = (unsigned short)(f->short_len ? len + 100 : len);
	pkt[2] = csum >> 8;
	pkt[3] = csum & 0xff;
	pkt[8] = 64;				/* TTL */
	pkt[9] = IPPROTO_UDP;
	memcpy(pkt + 12, &src, 4);
	memcpy(pkt + 16, &to, 4);
	csum = f->csum >= 0 ? f->csum : ip_csum(pkt, 20);
	pkt[10] = csum >> 8;
	pkt[11] = csum & 0xff;
	if (len > 20) {
		pkt[20] = 0x30;			/* UDP 12345 -> 9, no checksum */
		pkt[21] = 0x39;
		pkt[23] = 9;
		pkt[25] = 8;
	}
	ll.sll_ifindex = (int)if_nametoindex(dev);
	if (!ll.sll_ifindex)
		die(dev);
	fd = socket(AF_PACKET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("AF_PACKET socket");
	if (sendto(fd, pkt, len, 0, (struct sockaddr *)&ll, sizeof(ll)) < 0)
		die("sendto");
	close(fd);
	return 0;
}

static int capture(const char *dev, const char *secs)
{
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
	};
	unsigned char buf[2048];
	struct pollfd p;
	time_t deadline;
	ssize_t n, i;
	int fd;

	ll.sll_ifindex = (int)if_nametoindex(dev);
	if (!ll.sll_ifindex)
		die(dev);
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		die("AF_PACKET socket");
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind");
	fputs("ready\n", stderr);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	deadline = time(NULL) + atoi(secs);
	for (;;) {
		if (poll(&p, 1, 100) == 1) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n < 0)
				die("recv");
			if (n >= 24 && buf[0] == 0x45 && buf[9] == IPPROTO_UDP &&
			    buf[20] == 0x30 && buf[21] == 0x39 && buf[23] == 9)
				break;
		}
		if (time(NULL) > deadline)
			return 1;
	}
	for (i = 0; i < n; i++)
		printf("%02x", buf[i]);
	putchar('\n');
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct fields f = { -1, -1, -1, -1, 0 };
	int i;

	if (argc < 5)
		usage();
	enter_netns(argv[1]);
	if (!strcmp(argv[2], "capture") && argc == 5)
		return capture(argv[3], argv[4]);
	if (strcmp(argv[2], "send"))
		usage();
	for (i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "tot_len=short"))
			f.short_len = 1;
		else if (!field(argv[i], "ihl", &f.ihl) &&
			 !field(argv[i], "tot_len", &f.tot_len) &&
			 !field(argv[i], "version", &f.version) &&
			 !field(argv[i], "csum", &f.csum))
			usage();
	}
	return send_one(argv[3], argv[4], &f);
}
