// SPDX-License-Identifier: GPL-2.0
/*
 * ring_drain: the raw ring rate, for bench/record.sh.  A bare libbpf
 * ring_buffer loop that counts the records of one pinned ring and does
 * nothing else with them, until SIGINT; then prints the count.  What
 * 'telemetry record' adds on top (framing, the file) is the difference.
 */
#include <signal.h>
#include <stdio.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int count(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(unsigned long long *)ctx)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long n = 0;
	struct ring_buffer *rb;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: ring_drain PINNED_RING\n");
		return 2;
	}
	fd = bpf_obj_get(argv[1]);
	rb = fd < 0 ? NULL : ring_buffer__new(fd, count, &n, NULL);
	if (!rb) {
		perror(argv[1]);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	/* Poll like record does: producers batch their wakeups. */
	while (!stopping) {
		ring_buffer__poll(rb, 100);
		ring_buffer__consume(rb);
	}
	ring_buffer__consume(rb);
	printf("%llu\n", n);
	ring_buffer__free(rb);
	return 0;
}
