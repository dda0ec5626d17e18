/* SPDX-License-Identifier: MIT */
/*
 * unix_sessions: a server on a Unix-domain stream socket keeps a table of
 * client sessions, made when the first client connects; each connection's
 * handler registers its session there (under the table's lock) and
 * answers with the session's number. The test connects two clients at the
 * same time and then asks how many sessions the server has.
 *
 * The bug: the table is made lazily, checked without the lock: two first
 * connections can each see no table, each make one and register in it,
 * and the later assignment of the table pointer drops the other table and
 * the session in it.
 *
 * The interleaving (one preemption, bug depth 2): the first handler is
 * preempted after it found no table and before it stored its new one; the
 * second handler then makes a table of its own.
 *
 * Detection: the server must have 2 sessions; otherwise
 * "unix_sessions: 1 sessions for 2 clients" and abort().
 *
 * Native failures: 29 of 200 runs (2026-12-01, 2 cores, Debian 12, while the
 * machine ran other jobs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CLIENTS	    2
#define SOCKET_PATH "/tmp/unix_sessions.sock"

struct session_table {
	pthread_mutex_t lock;
	int count;
	int fds[CLIENTS];
};

static struct session_table *volatile table;
static int listener;

static struct session_table *sessions(void)
{
	if (!table) {
		struct session_table *t = calloc(1, sizeof(*t));

		pthread_mutex_init(&t->lock, NULL);
		table = t;
	}
	return table;
}

static int register_session(int fd)
{
	struct session_table *t = sessions();
	int id;

	pthread_mutex_lock(&t->lock);
	id = t->count;
	t->fds[t->count++] = fd;
	pthread_mutex_unlock(&t->lock);
	return id;
}

static void *handle_connection(void *arg)
{
	int fd = (int)(long)arg;
	int id = register_session(fd);

	if (write(fd, &id, sizeof(id)) != sizeof(id))
		perror("unix_sessions: reply");
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
			perror("unix_sessions: accept");
			exit(2);
		}
	}
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(handlers[i], NULL);
	return NULL;
}

static void *client(void *arg)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = SOCKET_PATH};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), id;

	(void)arg;
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    read(fd, &id, sizeof(id)) != sizeof(id)) {
		perror("unix_sessions: client");
		exit(2);
	}
	close(fd);
	return NULL;
}

int main(void)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = SOCKET_PATH};
	pthread_t server, clients[CLIENTS];

	unlink(SOCKET_PATH);
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(listener, CLIENTS) < 0) {
		perror("unix_sessions: server");
		return 2;
	}
	if (pthread_create(&server, NULL, accept_loop, NULL) != 0)
		return 2;
	for (int i = 0; i < CLIENTS; i++)
		if (pthread_create(&clients[i], NULL, client, NULL) != 0)
			return 2;
	for (int i = 0; i < CLIENTS; i++)
		pthread_join(clients[i], NULL);
	pthread_join(server, NULL);
	unlink(SOCKET_PATH);
	if (table->count != CLIENTS) {
		fprintf(stderr, "unix_sessions: %d sessions for %d clients\n", table->count,
			CLIENTS);
		abort();
	}
	printf("unix_sessions: %d sessions\n", table->count);
	return 0;
}
