/* SPDX-License-Identifier: MIT */
/*
 * The loaders' search directories and tokens (ld_paths.h), as glibc's
 * ldconfig reads ld.so.conf and musl's ldso/dynlink.c its path file.
 */
#include "image/ld_paths.h"

#include "image/tree_path.h"
#include "lib/file.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CONF_DEPTH 16		 /* ld.so.conf includes within includes */
#define CONF_MAX_BYTES ((size_t)1 << 20) /* an ld.so.conf or musl path file */
#define ARRAY_LEN(a)   (sizeof(a) / sizeof((a)[0]))

#define MUSL_PATH_FILE	"/etc/ld-musl-x86_64.path"
#define GLIBC_GUEST_DIR "/lib/x86_64-linux-gnu"
#define MUSL_GUEST_DIR	"/lib"
#define GLIBC_LIB	"lib/x86_64-linux-gnu" /* $LIB in Debian's ld.so */
#define GLIBC_PLATFORM	"x86_64"	       /* $PLATFORM: AT_PLATFORM of an x86-64 kernel */

/*
 * The directories Debian's ld.so searches after its cache, as `ld.so --help`
 * lists them (not /lib64 or /usr/lib64: a library there would be found on
 * the host's but not by the guest's loader).
 */
static const char *const glibc_default_dirs[] = {"/lib/x86_64-linux-gnu",
						 "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"};
/* musl's when there is no /etc/ld-musl-x86_64.path, as in the guest. */
static const char *const musl_default_dirs[] = {"/lib", "/usr/local/lib", "/usr/lib"};

/* An ld.so.conf being read: the tree it is in, the directories found so far. */
struct ld_conf {
	const char *root;
	struct ld_dirs *dirs;
};

static bool fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len;
}

static void dir_list_add(struct ld_dirs *l, const char *dir, size_t n)
{
	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (size_t i = 0; i < l->count; i++)
		if (strlen(l->dirs[i]) == n && strncmp(l->dirs[i], dir, n) == 0)
			return;
	l->dirs = check_alloc(reallocarray(l->dirs, l->count + 1, sizeof(*l->dirs)));
	l->dirs[l->count++] = check_alloc(strndup(dir, n));
}

void ld_dirs_free(struct ld_dirs *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->dirs[i]);
	free(l->dirs);
	memset(l, 0, sizeof(*l));
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* A directory line of ld.so.conf, read as ldconfig reads it. */
static void conf_dir(struct ld_dirs *l, const char *line)
{
	size_t n = strcspn(line, "="); /* "DIR=TYPE": an old libc5 marker */

	while (n > 0 && is_space(line[n - 1]))
		n--;
	if (n > 0 && line[0] == '/') /* ldconfig ignores relative ones */
		dir_list_add(l, line, n);
}

/* s with glob's special characters escaped, so a root or directory matches only itself. */
static bool glob_escape(const char *s, char *out, size_t len)
{
	size_t at = 0;

	for (; *s; s++) {
		if (at + 2 >= len)
			return false;
		if (strchr("*?[\\", *s))
			out[at++] = '\\';
		out[at++] = *s;
	}
	out[at] = '\0';
	return true;
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int conf_load(const struct ld_conf *c, const char *conf, unsigned int depth);

/*
 * One "include PATTERN" of the file conf (both inside the tree): a relative
 * pattern is relative to conf's directory, as ldconfig reads it. The matches
 * are read in strcmp order, whatever the locale.
 */
static int conf_include(const struct ld_conf *c, const char *conf, const char *pattern,
			unsigned int depth)
{
	char root[TREE_PATH_LEN], dir[TREE_PATH_LEN], full[TREE_PATH_LEN];
	char *conf_dir_path = tree_parent(conf);
	size_t root_len = strlen(c->root);
	glob_t g;
	int rc = 0;
	bool ok = glob_escape(c->root, root, sizeof(root)) &&
		  glob_escape(pattern[0] == '/' ? "" : conf_dir_path, dir, sizeof(dir)) &&
		  fits(snprintf(full, sizeof(full), "%s%s%s%s", root, dir,
				pattern[0] == '/' ? "" : "/", pattern),
		       sizeof(full));

	free(conf_dir_path);
	if (!ok) {
		rw_err("%s%s: the include %s makes too long a path", c->root, conf, pattern);
		return -ENAMETOOLONG;
	}
	rc = glob(full, GLOB_NOSORT, NULL, &g);
	if (rc && rc != GLOB_NOMATCH)
		rw_err("%s%s: cannot expand the include %s", c->root, conf, pattern);
	if (rc) {
		globfree(&g);
		return rc == GLOB_NOMATCH ? 0 : -ENOMEM;
	}
	qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), compare_paths);
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		if (strncmp(g.gl_pathv[i], c->root, root_len) == 0)
			rc = conf_load(c, g.gl_pathv[i] + root_len, depth + 1);
	globfree(&g);
	return rc;
}

/* One line of the ld.so.conf file conf: a comment, an include, hwcap (ignored), a directory. */
static int conf_line(const struct ld_conf *c, const char *conf, char *line, unsigned int depth)
{
	int rc = 0;

	line[strcspn(line, "#")] = '\0';
	while (is_space(*line))
		line++;
	if (strncmp(line, "include", 7) == 0 && is_blank(line[7])) {
		for (char *p = line + 8; *p && !rc;) {
			size_t n = strcspn(p, " \t");
			bool last = !p[n];

			p[n] = '\0';
			if (n)
				rc = conf_include(c, conf, p, depth);
			p += last ? n : n + 1;
		}
	} else if (strncasecmp(line, "hwcap", 5) != 0 || !is_blank(line[5])) {
		conf_dir(c->dirs, line);
	}
	return rc;
}

/* An ld.so.conf file (a path inside the tree), its includes read where they stand. */
static int conf_load(const struct ld_conf *c, const char *conf, unsigned int depth)
{
	char host[TREE_PATH_LEN];
	uint8_t *data;
	char *text;
	size_t size;
	int rc;

	if (depth > MAX_CONF_DEPTH) {
		rw_err("%s%s: ld.so.conf includes nest more than %d deep (an include loop?)",
		       c->root, conf, MAX_CONF_DEPTH);
		return -ELOOP;
	}
	rc = tree_resolve_file(c->root, conf, host, sizeof(host));
	if (rc == -ENOENT)
		return 0; /* none: the default directories only */
	if (rc) {
		rw_err_errno(-rc, "cannot read %s%s", c->root, conf);
		return rc;
	}
	rc = file_read_max(host, CONF_MAX_BYTES, "ld.so.conf file", &data, &size);
	if (rc)
		return rc;
	text = check_alloc(strndup((const char *)data, size));
	free(data);
	for (char *line = text; line && !rc;) {
		char *next = strchr(line, '\n');

		if (next)
			*next++ = '\0';
		rc = conf_line(c, conf, line, depth);
		line = next;
	}
	free(text);
	return rc;
}

/*
 * musl's directories: those of /etc/ld-musl-x86_64.path (':' or newline
 * between them; an empty file: none), or its defaults when there is none.
 */
static int musl_system_dirs(const char *root, struct ld_dirs *l)
{
	char host[TREE_PATH_LEN];
	uint8_t *data;
	char *text;
	size_t size;
	int rc = tree_resolve_file(root, MUSL_PATH_FILE, host, sizeof(host));

	if (rc == -ENOENT) {
		for (size_t i = 0; i < ARRAY_LEN(musl_default_dirs); i++)
			dir_list_add(l, musl_default_dirs[i], strlen(musl_default_dirs[i]));
		return 0;
	}
	if (!rc)
		rc = file_read_max(host, CONF_MAX_BYTES, "musl path file", &data, &size);
	else
		rw_err_errno(-rc, "cannot read %s%s", root, MUSL_PATH_FILE);
	if (rc)
		return rc;
	text = check_alloc(strndup((const char *)data, size)); /* musl reads up to a NUL too */
	free(data);
	for (const char *p = text + strspn(text, ":\n"); *p; p += strspn(p, ":\n")) {
		size_t n = strcspn(p, ":\n");

		if (p[0] == '/')
			dir_list_add(l, p, n);
		p += n;
	}
	free(text);
	return 0;
}

int ld_system_dirs(const char *root, const char *ld_so_conf, bool musl, struct ld_dirs *out)
{
	const struct ld_conf c = {root, out};
	int rc;

	memset(out, 0, sizeof(*out));
	if (musl)
		return musl_system_dirs(root, out);
	rc = conf_load(&c, ld_so_conf, 0);
	for (size_t i = 0; i < ARRAY_LEN(glibc_default_dirs) && !rc; i++)
		dir_list_add(out, glibc_default_dirs[i], strlen(glibc_default_dirs[i]));
	return rc;
}

/* The length of the token at s, a '$' ("$NAME", "${NAME}"), or 0; musl takes a prefix. */
static size_t token_len(const char *s, const char *name, bool musl)
{
	size_t n = strlen(name);
	char after;

	if (s[1] == '{')
		return strncmp(s + 2, name, n) == 0 && s[2 + n] == '}' ? n + 3 : 0;
	if (strncmp(s + 1, name, n) != 0)
		return 0;
	after = s[1 + n];
	if (!musl && ((after >= 'A' && after <= 'Z') || (after >= 'a' && after <= 'z') ||
		      (after >= '0' && after <= '9') || after == '_'))
		return 0;
	return n + 1;
}

/* What replaces the token at s, a '$', and its length in *n; NULL: the '$' stays. */
static const char *token_value(const char *s, const char *origin, bool musl, size_t *n)
{
	*n = token_len(s, "ORIGIN", musl);
	if (*n)
		return origin;
	if (musl)
		return NULL;
	*n = token_len(s, "LIB", false);
	if (*n)
		return GLIBC_LIB;
	*n = token_len(s, "PLATFORM", false);
	return *n ? GLIBC_PLATFORM : NULL;
}

bool ld_expand_tokens(const char *entry, const char *origin, bool musl, char *out, size_t len)
{
	size_t at = 0;

	for (const char *s = entry; *s;) {
		size_t n = 0;
		const char *value = *s == '$' ? token_value(s, origin, musl, &n) : NULL;
		size_t value_len = value ? strlen(value) : 1;

		if (at + value_len >= len)
			return false;
		memcpy(out + at, value ? value : s, value_len);
		at += value_len;
		s += value ? n : 1;
	}
	out[at] = '\0';
	return true;
}

bool ld_musl_rpath_usable(const char *list)
{
	for (const char *s = strchr(list, '$'); s; s = strchr(s + 1, '$'))
		if (!token_len(s, "ORIGIN", true))
			return false;
	return true;
}

const char *ld_guest_dir(bool musl, const char *dir)
{
	const char *const *defaults = musl ? musl_default_dirs : glibc_default_dirs;
	size_t count = musl ? ARRAY_LEN(musl_default_dirs) : ARRAY_LEN(glibc_default_dirs);

	for (size_t i = 0; i < count; i++)
		if (strcmp(dir, defaults[i]) == 0)
			return dir;
	return musl ? MUSL_GUEST_DIR : GLIBC_GUEST_DIR;
}
