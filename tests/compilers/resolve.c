/* SPDX-License-Identifier: MIT */
/*
 * resolve: what a static glibc test asks of the name services (NSS) in the
 * guest: getaddrinfo("localhost"), then a TCP connection over the loopback
 * to every address it gives; the host name; getpwnam("rewind"). glibc warns
 * at link time that a static getaddrinfo needs its shared NSS libraries.
 * tests/compilers/test-compilers builds it with guest/rewind-cc-glibc.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void close_if_open(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* A listener on the address (port 0), a connection to it, one byte each way. */
static int connect_once(const struct addrinfo *ai)
{
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	int server = socket(ai->ai_family, SOCK_STREAM, 0), client = -1, peer = -1, rc = -1;
	char byte = 'x';

	if (server < 0 || bind(server, ai->ai_addr, ai->ai_addrlen) < 0 || listen(server, 1) < 0 ||
	    getsockname(server, (struct sockaddr *)&addr, &len) < 0)
		goto out;
	client = socket(ai->ai_family, SOCK_STREAM, 0);
	if (client < 0 || connect(client, (struct sockaddr *)&addr, len) < 0)
		goto out;
	peer = accept(server, NULL, NULL);
	if (peer >= 0 && write(client, &byte, 1) == 1 && read(peer, &byte, 1) == 1 &&
	    write(peer, &byte, 1) == 1 && read(client, &byte, 1) == 1)
		rc = 0;
out:
	if (rc < 0)
		perror("resolve: loopback connection");
	close_if_open(server);
	close_if_open(client);
	close_if_open(peer);
	return rc;
}

/* The address of an IPv4 or IPv6 result as text. */
static const char *address_text(const struct addrinfo *ai, char *text, socklen_t len)
{
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)ai->ai_addr;
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ai->ai_addr;

	if (ai->ai_family == AF_INET)
		return inet_ntop(AF_INET, &v4->sin_addr, text, len);
	return inet_ntop(AF_INET6, &v6->sin6_addr, text, len);
}

/* Every address of name, each connected to; 0 or 1. */
static int resolve(const char *name)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *list, *ai;
	int rc = getaddrinfo(name, NULL, &hints, &list), failed = 0;

	if (rc) {
		fprintf(stderr, "resolve: getaddrinfo %s: %s\n", name, gai_strerror(rc));
		return 1;
	}
	for (ai = list; ai; ai = ai->ai_next) {
		char text[INET6_ADDRSTRLEN];

		if (!address_text(ai, text, sizeof(text)) || connect_once(ai) < 0)
			failed = 1;
		else
			printf("%s %s: connected\n", name, text);
	}
	freeaddrinfo(list);
	return failed;
}

int main(void)
{
	char host[256];
	struct passwd *pw = getpwnam("rewind");
	int failed = resolve("localhost");

	if (gethostname(host, sizeof(host)) < 0) {
		perror("resolve: gethostname");
		return 1;
	}
	failed |= resolve(host);
	if (!pw) {
		fprintf(stderr, "resolve: getpwnam rewind: no such user\n");
		return 1;
	}
	printf("user rewind: uid %u home %s\n", (unsigned)pw->pw_uid, pw->pw_dir);
	return failed;
}
