/* SPDX-License-Identifier: MIT */
/*
 * tcp_stats: a tiny request server over TCP on the loopback, with a thread
 * per connection, and its test: two clients connect at the same time and
 * each sends 20 requests; every reply carries the request's number. At the
 * end the test asks the server how many requests it served.
 *
 * The bug: each connection's handler counts the requests it served into
 * the server-wide total with a plain `served++`, outside the lock that
 * guards the connection list. Two handlers that count at the same time
 * can lose one count.
 *
 * The interleaving (one preemption, bug depth 2): a handler is preempted
 * between reading `served` and storing it back, and the other handler
 * counts one or more requests before it resumes and stores the stale
 * value plus one.
 *
 * Detection: the server's total must be 40; otherwise
 * "tcp_stats: served 39 requests, the clients sent 40" and abort().
 *
 * Native failures: 1 of 200 runs (2026-12-01, 2 cores, Debian 12, while the
 * machine ran other jobs).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENTS	 2
#define REQUESTS 20

static volatile unsigned long served;
static int listener;
static struct sockaddr_in server_addr;

static int read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* One connection: read a request (a number), reply with it plus one. */
static void *handle_connection(void *arg)
{
	int fd = (int)(long)arg;
	unsigned int request, reply;

	while (read_full(fd, &request, sizeof(request)) == 0) {
		reply = request + 1;
		served++;
		if (write(fd, &reply, sizeof(reply)) != sizeof(reply))
			break;
	}
	close(fd);
	return NULL;
}

static void *accept_loop(void *arg)
{
	pthread_t handlers[CLIENTS];

	(void)arg;
	for (int i = 0; i < CLIENTS; i++) {
		int fd = accept(listener, NULL, NULL);

		if (fd < 0 ||
		    pthread_create(&handlers[i], NULL, handle_connection, (void *)(long)fd) != 0) {
			perror("tcp_stats: accept");
			exit(2);
		}
	}
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(handlers[i], NULL);
	return NULL;
}

static void *client(void *arg)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned int reply;

	(void)arg;
	if (fd < 0 || connect(fd, (struct sockaddr *)&server_addr, sizeof(server_addr)) < 0) {
		perror("tcp_stats: connect");
		exit(2);
	}
	for (unsigned int i = 0; i < REQUESTS; i++) {
		if (write(fd, &i, sizeof(i)) != sizeof(i) ||
		    read_full(fd, &reply, sizeof(reply)) < 0 || reply != i + 1) {
			fprintf(stderr, "tcp_stats: request %u got no right reply\n", i);
			exit(2);
		}
	}
	close(fd);
	return NULL;
}

static void start_server(void)
{
	socklen_t len = sizeof(server_addr);

	server_addr.sin_family = AF_INET;
	server_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listener = socket(AF_INET, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&server_addr, len) < 0 ||
	    listen(listener, CLIENTS) < 0 ||
	    getsockname(listener, (struct sockaddr *)&server_addr, &len) < 0) {
		perror("tcp_stats: server");
		exit(2);
	}
}

int main(void)
{
	pthread_t server, clients[CLIENTS];

	start_server();
	if (pthread_create(&server, NULL, accept_loop, NULL) != 0)
		return 2;
	for (int i = 0; i < CLIENTS; i++)
		if (pthread_create(&clients[i], NULL, client, NULL) != 0)
			return 2;
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(clients[i], NULL);
	pthread_join(server, NULL);
	if (served != CLIENTS * REQUESTS) {
		fprintf(stderr, "tcp_stats: served %lu requests, the clients sent %d\n", served,
			CLIENTS * REQUESTS);
		abort();
	}
	printf("tcp_stats: served %lu requests\n", served);
	return 0;
}
