/* SPDX-License-Identifier: MIT */
/*
 * hup_poller: a correct program, no bug. A tiny event loop in the shape of
 * nng's POSIX poller: a socket is registered with epoll as soon as it is
 * made, with no events asked for yet, and the poller thread already waits
 * on it while main binds and listens. A stream socket that is neither
 * listening nor connected reports EPOLLHUP whatever was asked, so until
 * main calls listen() the poller's epoll_wait returns at once, again and
 * again: a loop of system calls. Then main asks for EPOLLIN, connects a
 * client, and the poller accepts it. On one CPU the loop lasts until the
 * scheduler's tick lets main run; a run must never end stuck.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

struct loop {
	int epoll_fd;
	int listen_fd;
	long wakeups; /* epoll_wait returns that found nothing to do */
	int accepted;
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The poller: dispatches EPOLLIN on the listening socket, ignores the rest. */
static void *poller(void *arg)
{
	struct loop *l = arg;
	struct epoll_event ev[4];

	while (!l->accepted) {
		int n = epoll_wait(l->epoll_fd, ev, 4, -1);

		if (n < 0)
			die("hup_poller: epoll_wait");
		for (int i = 0; i < n; i++) {
			if (!(ev[i].events & (EPOLLIN | EPOLLERR))) {
				l->wakeups++;
				continue;
			}
			int c = accept(l->listen_fd, NULL, NULL);

			if (c < 0)
				die("hup_poller: accept");
			close(c);
			l->accepted = 1;
		}
	}
	return NULL;
}

int main(void)
{
	struct loop l = {.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)};
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(addr);
	struct epoll_event ev = {.events = 0, .data.fd = l.listen_fd};
	pthread_t t;
	int client;

	l.epoll_fd = epoll_create1(0);
	if (l.listen_fd < 0 || l.epoll_fd < 0)
		die("hup_poller: socket");
	if (epoll_ctl(l.epoll_fd, EPOLL_CTL_ADD, l.listen_fd, &ev) < 0)
		die("hup_poller: epoll_ctl");
	if (pthread_create(&t, NULL, poller, &l) != 0)
		die("hup_poller: pthread_create");
	if (bind(l.listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(l.listen_fd, 1) < 0 ||
	    getsockname(l.listen_fd, (struct sockaddr *)&addr, &len) < 0)
		die("hup_poller: listen");
	ev.events = EPOLLIN;
	if (epoll_ctl(l.epoll_fd, EPOLL_CTL_MOD, l.listen_fd, &ev) < 0)
		die("hup_poller: epoll_ctl");
	client = socket(AF_INET, SOCK_STREAM, 0);
	if (client < 0 || connect(client, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("hup_poller: connect");
	pthread_join(t, NULL);
	close(client);
	printf("hup_poller: accepted %d connection\n", l.accepted);
	return 0;
}
