/* SPDX-License-Identifier: MIT */
/*
 * net_echo [tcp|tcp6|udp|unix|unix-dgram|socketpair|outside|names]: a
 * client and an echo server over the guest's loopback, as a network test
 * of a real project does it. The server runs in a thread, the client in the
 * main thread; they exchange ROUNDS messages of growing size and the client
 * checks every echo. Prints what a run depends on (the server's ephemeral
 * port, the bytes moved): under Rewind the same inputs print the same.
 * "outside" connects to an address outside the guest (it must fail at once),
 * "names" resolves localhost and the host's own name.
 */
#include "guest/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define ROUNDS	  32
#define MAX_BYTES 4096
#define UNIX_PATH "/tmp/net_echo.sock"

struct endpoint {
	int domain, type;
	struct sockaddr_storage addr;
	socklen_t len;
	int listener; /* stream: the listening socket; datagram: the server's socket */
};

static void fill(char *buf, size_t n, int round)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)('a' + (i + (size_t)round) % 26);
}

static size_t round_bytes(int round)
{
	return (size_t)1 << (round % 13); /* 1 byte .. 4 KiB */
}

/* Reads exactly n bytes from a stream socket. */
static void read_all(int fd, char *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			gu_die_errno("read after %zu of %zu bytes", got, n);
		got += (size_t)r;
	}
}

static void *stream_server(void *arg)
{
	struct endpoint *ep = arg;
	char buf[MAX_BYTES];
	int fd = accept(ep->listener, NULL, NULL);

	if (fd < 0)
		gu_die_errno("accept");
	for (int round = 0; round < ROUNDS; round++) {
		size_t n = round_bytes(round);

		read_all(fd, buf, n);
		if (gu_write_all(fd, buf, n) < 0)
			gu_die_errno("server write");
	}
	close(fd);
	return NULL;
}

static void *dgram_server(void *arg)
{
	struct endpoint *ep = arg;
	char buf[MAX_BYTES];

	for (int round = 0; round < ROUNDS; round++) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t n =
			recvfrom(ep->listener, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);

		if (n < 0)
			gu_die_errno("recvfrom");
		if (sendto(ep->listener, buf, (size_t)n, 0, (struct sockaddr *)&from, len) != n)
			gu_die_errno("sendto");
	}
	return NULL;
}

/* The client's side: send, read the echo, compare; the bytes moved. */
static size_t exchange(int fd, int stream)
{
	char out[MAX_BYTES], in[MAX_BYTES];
	size_t total = 0;

	for (int round = 0; round < ROUNDS; round++) {
		size_t n = round_bytes(round);

		fill(out, n, round);
		if (gu_write_all(fd, out, n) < 0)
			gu_die_errno("client write");
		if (stream) {
			read_all(fd, in, n);
		} else if (read(fd, in, sizeof(in)) != (ssize_t)n) {
			gu_die_errno("datagram echo of round %d", round);
		}
		if (memcmp(in, out, n) != 0)
			gu_die("round %d: the echo differs", round);
		total += 2 * n;
	}
	return total;
}

static void set_endpoint(struct endpoint *ep, const char *mode)
{
	memset(ep, 0, sizeof(*ep));
	ep->type = strstr(mode, "udp") || strstr(mode, "dgram") ? SOCK_DGRAM : SOCK_STREAM;
	if (!strncmp(mode, "unix", 4)) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ep->addr;

		ep->domain = AF_UNIX;
		un->sun_family = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "%s", UNIX_PATH);
		ep->len = sizeof(*un);
		unlink(UNIX_PATH);
	} else if (!strcmp(mode, "tcp6")) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ep->addr;

		ep->domain = AF_INET6;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		ep->len = sizeof(*in6);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ep->addr;

		ep->domain = AF_INET;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ep->len = sizeof(*in);
	}
}

static unsigned int port_of(const struct endpoint *ep)
{
	if (ep->domain == AF_INET)
		return ntohs(((const struct sockaddr_in *)&ep->addr)->sin_port);
	if (ep->domain == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&ep->addr)->sin6_port);
	return 0;
}

static int echo_over(const char *mode)
{
	struct endpoint ep;
	pthread_t server;
	size_t moved;
	int fd;

	set_endpoint(&ep, mode);
	ep.listener = socket(ep.domain, ep.type, 0);
	if (ep.listener < 0)
		gu_die_errno("socket(%s)", mode);
	if (bind(ep.listener, (struct sockaddr *)&ep.addr, ep.len) < 0)
		gu_die_errno("bind(%s)", mode);
	if (ep.type == SOCK_STREAM && listen(ep.listener, 4) < 0)
		gu_die_errno("listen");
	if (getsockname(ep.listener, (struct sockaddr *)&ep.addr, &ep.len) < 0)
		gu_die_errno("getsockname");
	errno = pthread_create(&server, NULL, ep.type == SOCK_STREAM ? stream_server : dgram_server,
			       &ep);
	if (errno)
		gu_die_errno("pthread_create");
	fd = socket(ep.domain, ep.type, 0);
	if (fd < 0)
		gu_die_errno("client socket");
	if (ep.domain == AF_UNIX && ep.type == SOCK_DGRAM) {
		/* a datagram client needs its own name for the echo to come back */
		struct sockaddr_un me = {.sun_family = AF_UNIX, .sun_path = UNIX_PATH ".client"};

		unlink(me.sun_path);
		if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0)
			gu_die_errno("bind client");
	}
	if (connect(fd, (struct sockaddr *)&ep.addr, ep.len) < 0)
		gu_die_errno("connect(%s)", mode);
	moved = exchange(fd, ep.type == SOCK_STREAM);
	close(fd);
	pthread_join(server, NULL);
	gu_say("net_echo %s: %d rounds, %zu bytes echoed, server port %u\n", mode, ROUNDS, moved,
	       port_of(&ep));
	return 0;
}

static void *pair_server(void *arg)
{
	int fd = *(int *)arg;
	char buf[MAX_BYTES];

	for (int round = 0; round < ROUNDS; round++) {
		size_t n = round_bytes(round);

		read_all(fd, buf, n);
		if (gu_write_all(fd, buf, n) < 0)
			gu_die_errno("pair write");
	}
	return NULL;
}

static int echo_over_socketpair(void)
{
	int sv[2];
	pthread_t server;
	size_t moved;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		gu_die_errno("socketpair");
	errno = pthread_create(&server, NULL, pair_server, &sv[1]);
	if (errno)
		gu_die_errno("pthread_create");
	moved = exchange(sv[0], 1);
	pthread_join(server, NULL);
	gu_say("net_echo socketpair: %d rounds, %zu bytes echoed\n", ROUNDS, moved);
	return 0;
}

/* There is nothing outside the guest: a connection must fail at once, not hang. */
static int connect_outside(void)
{
	struct sockaddr_in far = {.sin_family = AF_INET, .sin_port = htons(80)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "192.0.2.1", &far.sin_addr); /* TEST-NET-1 */
	if (fd < 0)
		gu_die_errno("socket");
	if (connect(fd, (struct sockaddr *)&far, sizeof(far)) == 0)
		gu_die("connected to 192.0.2.1 from inside the guest");
	gu_say("net_echo outside: connect to 192.0.2.1:80: %s\n", strerror(errno));
	return 0;
}

static int resolve(const char *name)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *list, *ai;
	char text[INET6_ADDRSTRLEN];
	int rc = getaddrinfo(name, "80", &hints, &list);

	if (rc)
		gu_die("getaddrinfo(%s): %s", name, gai_strerror(rc));
	for (ai = list; ai; ai = ai->ai_next) {
		const void *a =
			ai->ai_family == AF_INET
				? (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr
				: (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;

		gu_say("net_echo names: %s -> %s\n", name,
		       inet_ntop(ai->ai_family, a, text, sizeof(text)));
	}
	freeaddrinfo(list);
	return 0;
}

static int names(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0)
		gu_die_errno("gethostname");
	gu_say("net_echo names: host name %s\n", host);
	resolve("localhost");
	return resolve(host);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "tcp";
	static const char *const streams[] = {"tcp", "tcp6", "udp", "unix", "unix-dgram"};

	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		if (!strcmp(mode, streams[i]))
			return echo_over(mode);
	if (!strcmp(mode, "socketpair"))
		return echo_over_socketpair();
	if (!strcmp(mode, "outside"))
		return connect_outside();
	if (!strcmp(mode, "names"))
		return names();
	gu_die("unknown mode %s (tcp, tcp6, udp, unix, unix-dgram, socketpair, outside, names)",
	       mode);
}
