/* SPDX-License-Identifier: MIT */
/*
 * config_publish: a service's live configuration, changed by ADMINS admin
 * sessions while the service reads it. The configuration is a version
 * number and the text it was parsed from. The service remembers the
 * version it last loaded and, whenever the published version differs,
 * reloads: it parses the text and checks that the text is of that version.
 *
 * The configuration module has a lock, and each of its calls takes it:
 * config_set_version(), config_set_text() and config_get(). An admin
 * publishes a change with the two setters, one after the other.
 *
 * The bug: a publish is two locked steps where it should be one: between
 * them the configuration holds the new version with the previous text.
 * The missing lock is the one around the pair.
 *
 * The interleaving (one preemption, bug depth 2): an admin is preempted
 * between its two steps (after it stored its version, before it stored its
 * text), and the service, still polling, reads the configuration before
 * any other admin publishes: an admin that publishes in the window stores
 * a whole change (version and text) and repairs the record, so the service
 * must run before every admin still publishing. The more admins, the fewer
 * priority orders put the service there. Without preemptions every publish
 * is whole.
 *
 * Detection: the service aborts when the text of the version it reloads
 * names another version ("config_publish: version 7 published with the
 * text of version 5").
 *
 * ADMINS is 4 here; config_publish_10.c and config_publish_20.c build the
 * same program with 10 and 20 admins (and their names as PROGRAM).
 *
 * Native failures: see README.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ADMINS
#define ADMINS	4
#define PROGRAM "config_publish"
#endif
#define CHANGES 3  /* per admin */
#define POLLS	64 /* the service's reads of the configuration */

struct config {
	int version;
	const char *text;
};

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static struct config active = {0, "version=0\nworkers=1\n"}; /* config_lock */
static char texts[ADMINS][CHANGES][40];			     /* each admin's own */

static void config_set_version(int version)
{
	pthread_mutex_lock(&config_lock);
	active.version = version;
	pthread_mutex_unlock(&config_lock);
}

static void config_set_text(const char *text)
{
	pthread_mutex_lock(&config_lock);
	active.text = text;
	pthread_mutex_unlock(&config_lock);
}

static struct config config_get(void)
{
	struct config c;

	pthread_mutex_lock(&config_lock);
	c = active;
	pthread_mutex_unlock(&config_lock);
	return c;
}

static void *admin(void *arg)
{
	int me = *(const int *)arg;

	for (int i = 0; i < CHANGES; i++) {
		int version = me * CHANGES + i + 1;
		char *text = texts[me][i];

		snprintf(text, sizeof(texts[me][i]), "version=%d\nworkers=%d\n", version,
			 2 + version % 7);
		config_set_version(version);
		config_set_text(text);
	}
	return NULL;
}

/* Parses the text of a reloaded configuration; returns its version. */
static int parse_version(const char *text)
{
	int version, workers;

	if (sscanf(text, "version=%d\nworkers=%d", &version, &workers) != 2) {
		fprintf(stderr, PROGRAM ": cannot parse \"%s\"\n", text);
		abort();
	}
	return version;
}

static void *service(void *arg)
{
	int loaded = 0;

	(void)arg;
	for (int i = 0; i < POLLS; i++) {
		struct config c = config_get();
		int text_version;

		if (c.version == loaded)
			continue;
		text_version = parse_version(c.text);
		if (text_version != c.version) {
			fprintf(stderr,
				PROGRAM ": version %d published with the text of version %d\n",
				c.version, text_version);
			abort();
		}
		loaded = c.version;
	}
	return NULL;
}

int main(void)
{
	static int ids[ADMINS];
	pthread_t reader, admins[ADMINS];

	if (pthread_create(&reader, NULL, service, NULL) != 0) {
		fputs(PROGRAM ": pthread_create failed\n", stderr);
		return 2;
	}
	for (int i = 0; i < ADMINS; i++) {
		ids[i] = i;
		if (pthread_create(&admins[i], NULL, admin, &ids[i]) != 0) {
			fputs(PROGRAM ": pthread_create failed\n", stderr);
			return 2;
		}
	}
	for (int i = 0; i < ADMINS; i++)
		pthread_join(admins[i], NULL);
	pthread_join(reader, NULL);
	printf(PROGRAM ": %d admins published %d changes, every reload consistent\n", ADMINS,
	       ADMINS * CHANGES);
	return 0;
}
