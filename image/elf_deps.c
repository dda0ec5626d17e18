/* SPDX-License-Identifier: MIT */
/*
 * The shared objects an ELF program needs (elf_deps.h), found as glibc's
 * ld.so (elf/dl-load.c) and musl's (ldso/dynlink.c) find them: breadth
 * first from the program, each library where the loader would find it,
 * and where the guest's loader will find it. The program and every library
 * are untrusted files, read by image/elf_file.c; the loaders' directories
 * and tokens are image/ld_paths.c's.
 *
 * Paths inside the tree (the host's /, or the config's root in tests) are
 * handled as the loaders see them (image/tree_path.c); root + such a path is
 * the host file.
 */
#include "image/elf_deps.h"

#include "image/elf_file.h"
#include "image/ld_paths.h"
#include "image/tree_path.h"
#include "lib/file.h"
#include "lib/log.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_LOADER    SIZE_MAX
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define LIBGCC_S "libgcc_s.so.1"
#define LIBC_SO	 "libc.so.6"

/* One ELF object: the program (index 0), its interpreter, a library. */
struct dso {
	char *name;   /* what it was needed as (the interpreter: its path; the program: NULL) */
	char *vpath;  /* where it was found, inside the tree, symlinks kept */
	char *origin; /* $ORIGIN on the host, inside the tree */
	char *host;   /* root + vpath with every symlink resolved: the file itself */
	char *guest;  /* where the guest's loader finds it */
	char *guest_origin;	/* $ORIGIN in the guest */
	char *shown;		/* how messages name it: the program's and interpreter's paths as
				   given, a library's host file */
	struct elf_dynamic dyn; /* its SONAME, search paths and needs */
	uint64_t size;
	size_t loader; /* the object that first needed it; NO_LOADER for the program */
	bool is_interp;
};

/* One resolution: its settings, the system's directories, the objects found so far. */
struct walk {
	char root[TREE_PATH_LEN];
	const char *ld_so_conf;
	size_t max_objects;
	uint64_t max_bytes, bytes;
	bool musl;
	struct ld_dirs system; /* glibc: ld.so.conf's, then the defaults; musl: its path file's */
	struct dso *dsos;
	size_t count;
};

/* One library looked for: its name, who needs it, where it was looked for, what was found. */
struct search {
	const char *name;
	size_t loader;
	char tried[1024]; /* the directories tried, for the message */
	struct dso found;
};

static bool fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len;
}

/* --- the search ---------------------------------------------------------- */

/*
 * Reads d->host, a candidate library (or the interpreter): 1 if it is an
 * x86-64 shared object (its dynamic section read into d), 0 if a loader
 * would pass it over (elf_library), -errno if it is corrupt or cannot be
 * read (message printed).
 */
static int read_library(const struct walk *w, struct dso *d)
{
	struct elf_file f = {0};
	uint8_t *data;
	char *what;
	int rc = file_read_max(d->host, w->max_bytes, "shared library", &data, &f.size);

	if (rc)
		return rc;
	what = d->is_interp ? xasprintf("%s (the interpreter of %s)", d->shown, w->dsos[0].shown)
			    : xasprintf("%s (%s, needed by %s)", d->shown, d->name,
					w->dsos[d->loader].shown);
	f.data = data;
	f.shown = what;
	d->size = f.size;
	rc = elf_library(&f, &d->dyn);
	free(what);
	free(data);
	return rc;
}

static void dso_free(struct dso *d)
{
	free(d->name);
	free(d->vpath);
	free(d->origin);
	free(d->host);
	free(d->guest);
	free(d->guest_origin);
	free(d->shown);
	elf_dynamic_free(&d->dyn);
	memset(d, 0, sizeof(*d));
}

/* Is d what the loader would take for name? glibc matches a SONAME too, musl does not. */
static bool dso_matches(const struct dso *d, const char *name, bool by_soname)
{
	return (d->name && strcmp(d->name, name) == 0) ||
	       (d->vpath && d->loader != NO_LOADER && strcmp(d->vpath, name) == 0) ||
	       (by_soname && d->dyn.soname && strcmp(d->dyn.soname, name) == 0);
}

static bool is_loaded(const struct walk *w, const char *name)
{
	for (size_t i = 0; i < w->count; i++)
		if (dso_matches(&w->dsos[i], name, !w->musl))
			return true;
	return false;
}

/* musl's loader is its libc and answers for these names itself (ldso/dynlink.c). */
static bool musl_builtin(const char *name)
{
	static const char *const reserved[] = {"c.",  "pthread.", "rt.",  "m.",
					       "dl.", "util.",	  "xnet."};

	if (strncmp(name, "lib", 3) != 0)
		return false;
	for (size_t i = 0; i < ARRAY_LEN(reserved); i++)
		if (strncmp(name + 3, reserved[i], strlen(reserved[i])) == 0)
			return true;
	return false;
}

static void note_tried(struct search *s, const char *dir)
{
	size_t at = strlen(s->tried);
	int n;

	if (at >= 3 && strcmp(s->tried + at - 3, "...") == 0)
		return;
	n = snprintf(s->tried + at, sizeof(s->tried) - at, "%s%s", at ? ", " : "", dir);
	if (!fits(n, sizeof(s->tried) - at))
		snprintf(s->tried + (sizeof(s->tried) - 4), 4, "...");
}

/*
 * dir/file, dir inside the tree: 1 if it is an x86-64 shared object (in
 * s->found, to go to guest_dir/file in the guest), 0 if it is not there or
 * not one, -errno.
 */
static int try_candidate(const struct walk *w, const char *dir, const char *guest_dir,
			 const char *file, struct search *s)
{
	char vpath[TREE_PATH_LEN], host[TREE_PATH_LEN], guest_raw[TREE_PATH_LEN],
		guest[TREE_PATH_LEN];
	struct dso *d = &s->found;
	int rc;

	note_tried(s, dir);
	if (!fits(snprintf(vpath, sizeof(vpath), "%s/%s", dir, file), sizeof(vpath)) ||
	    !fits(snprintf(guest_raw, sizeof(guest_raw), "%s/%s", guest_dir, file),
		  sizeof(guest_raw)) ||
	    !tree_normalize(guest_raw, guest, sizeof(guest)) ||
	    tree_resolve_file(w->root, vpath, host, sizeof(host)) < 0)
		return 0; /* not there, or not a file: the loader goes on */
	*d = (struct dso){.name = xstrdup(s->name),
			  .vpath = xstrdup(vpath),
			  .origin = tree_parent(vpath),
			  .host = xstrdup(host),
			  .guest = xstrdup(guest),
			  .guest_origin = tree_parent(guest),
			  .shown = xstrdup(host),
			  .loader = s->loader};
	rc = read_library(w, d);
	if (rc <= 0)
		dso_free(d);
	return rc;
}

/* One entry of an RPATH or RUNPATH of the object at index of, expanded for host and guest. */
static int try_entry(const struct walk *w, const char *entry, size_t of, struct search *s)
{
	char dir[TREE_PATH_LEN], guest_dir[TREE_PATH_LEN];
	const struct dso *o = &w->dsos[of];

	if (!ld_expand_tokens(entry, o->origin, w->musl, dir, sizeof(dir)) ||
	    !ld_expand_tokens(entry, o->guest_origin, w->musl, guest_dir, sizeof(guest_dir)))
		return 0;
	if (dir[0] != '/')
		return 0; /* relative to the working directory: unknown in the guest */
	return try_candidate(w, dir, guest_dir, s->name, s);
}

/* The directories of list, an RPATH or a RUNPATH of the object at index of, in order. */
static int try_path_list(const struct walk *w, const char *list, size_t of, struct search *s)
{
	const char *seps = w->musl ? ":\n" : ":";
	char entry[TREE_PATH_LEN];
	int rc = 0;

	if (!list || (w->musl && !ld_musl_rpath_usable(list)))
		return 0;
	for (const char *p = list + strspn(list, seps); *p && !rc; p += strspn(p, seps)) {
		size_t n = strcspn(p, seps);

		if (n < sizeof(entry)) {
			memcpy(entry, p, n);
			entry[n] = '\0';
			rc = try_entry(w, entry, of, s);
		}
		p += n;
	}
	return rc;
}

static int try_system(const struct walk *w, struct search *s)
{
	int rc = 0;

	if (!w->musl && w->dsos[s->loader].dyn.nodeflib)
		return 0;
	for (size_t i = 0; i < w->system.count && !rc; i++)
		rc = try_candidate(w, w->system.dirs[i], ld_guest_dir(w->musl, w->system.dirs[i]),
				   s->name, s);
	return rc;
}

/* What the loader searches in the chain of loaders: glibc DT_RPATH, musl either. */
static const char *search_path(const struct walk *w, const struct dso *d)
{
	return w->musl && d->dyn.runpath ? d->dyn.runpath : d->dyn.rpath;
}

/*
 * glibc: the DT_RPATHs of the needing object and of those that loaded it
 * (only if the needing object has no DT_RUNPATH), its DT_RUNPATH, the system.
 * musl: the RPATH or RUNPATH of the needing object and of those that loaded
 * it, the system. 1 found (s->found), 0 not, -errno.
 */
static int find_library(const struct walk *w, struct search *s)
{
	const struct dso *loader = &w->dsos[s->loader];
	int rc = 0;

	if (w->musl || !loader->dyn.runpath)
		for (size_t l = s->loader; l != NO_LOADER && !rc; l = w->dsos[l].loader)
			rc = try_path_list(w, search_path(w, &w->dsos[l]), l, s);
	if (!rc && !w->musl)
		rc = try_path_list(w, loader->dyn.runpath, s->loader, s);
	return rc ? rc : try_system(w, s);
}

/* A needed name with a '/': a path, absolute once glibc has expanded its tokens. */
static int find_by_path(const struct walk *w, struct search *s)
{
	char path[TREE_PATH_LEN] = "", guest[TREE_PATH_LEN] = "", *dir, *guest_dir;
	const struct dso *o = &w->dsos[s->loader];
	int rc;

	if (w->musl) {
		snprintf(path, sizeof(path), "%s", s->name);
		snprintf(guest, sizeof(guest), "%s", s->name);
	} else if (!ld_expand_tokens(s->name, o->origin, false, path, sizeof(path)) ||
		   !ld_expand_tokens(s->name, o->guest_origin, false, guest, sizeof(guest))) {
		path[0] = '\0'; /* too long: refused below */
	}
	if (path[0] != '/' || guest[0] != '/') {
		rw_err("%s needs %s, a relative path: the guest's loader would look for it from "
		       "its working directory",
		       o->shown, s->name);
		return -EINVAL;
	}
	dir = tree_parent(path);
	guest_dir = tree_parent(guest);
	rc = try_candidate(w, dir, guest_dir, strrchr(path, '/') + 1, s);
	free(dir);
	free(guest_dir);
	return rc;
}

static int add_dso(struct walk *w, struct dso *d)
{
	const char *needer = w->dsos[d->loader].shown;

	if (w->count > w->max_objects) {
		rw_err("%s needs more than %zu shared objects (%s, needed by %s, is one too many)",
		       w->dsos[0].shown, w->max_objects, d->name, needer);
		dso_free(d);
		return -E2BIG;
	}
	if (d->size > w->max_bytes - w->bytes) {
		rw_err("the shared objects %s needs come to more than %" PRIu64
		       " bytes with %s (%" PRIu64 " bytes, needed by %s)",
		       w->dsos[0].shown, w->max_bytes, d->name, d->size, needer);
		dso_free(d);
		return -EFBIG;
	}
	w->dsos = check_alloc(reallocarray(w->dsos, w->count + 1, sizeof(*w->dsos)));
	w->dsos[w->count++] = *d;
	w->bytes += d->size;
	memset(d, 0, sizeof(*d));
	return 0;
}

/* name, needed by the object at index loader: found and added, or already there. */
static int need(struct walk *w, size_t loader, const char *name)
{
	struct search s = {.name = name, .loader = loader};
	int rc;

	if (is_loaded(w, name) || (w->musl && musl_builtin(name)))
		return 0;
	rc = strchr(name, '/') ? find_by_path(w, &s) : find_library(w, &s);
	if (rc == 0) {
		rw_err("cannot find %s, needed by %s, in any directory %s's loader searches (%s)",
		       name, w->dsos[loader].shown, w->musl ? "musl" : "glibc", s.tried);
		return -ENOENT;
	}
	return rc < 0 ? rc : add_dso(w, &s.found);
}

/* The needs of the objects from index from on, breadth first, each name once. */
static int walk_needed(struct walk *w, size_t from)
{
	int rc = 0;

	for (size_t i = from; i < w->count && !rc; i++)
		for (size_t j = 0; !w->dsos[i].is_interp && j < w->dsos[i].dyn.needed_count && !rc;
		     j++)
			rc = need(w, i, w->dsos[i].dyn.needed[j]);
	return rc;
}

/*
 * glibc's libc.so.6 dlopens libgcc_s.so.1 when a thread exits or is
 * cancelled (pthread_exit and pthread_cancel unwind the thread's stack with
 * it), so a glibc program gets it, looked for as that dlopen looks: with libc
 * as the loader. The host may not have it: then the guest does without.
 */
static int add_libgcc_s(struct walk *w)
{
	struct search s = {.name = LIBGCC_S, .loader = 0};
	size_t first = w->count;
	int rc;

	if (is_loaded(w, LIBGCC_S))
		return 0;
	for (size_t i = 1; i < w->count && !s.loader; i++)
		if (dso_matches(&w->dsos[i], LIBC_SO, true))
			s.loader = i;
	rc = find_library(w, &s);
	if (rc <= 0)
		return rc;
	rc = add_dso(w, &s.found);
	return rc ? rc : walk_needed(w, first);
}

/* --- the program ---------------------------------------------------------- */

/* The interpreter, at exactly its path in the guest. */
static int load_interp(struct walk *w, const char *interp)
{
	char host[TREE_PATH_LEN];
	struct dso d;
	int rc = tree_resolve_file(w->root, interp, host, sizeof(host));

	if (rc) {
		rw_err_errno(-rc, "%s asks for the interpreter %s, which this host cannot provide",
			     w->dsos[0].shown, interp);
		return rc;
	}
	d = (struct dso){.name = xstrdup(interp),
			 .vpath = xstrdup(interp),
			 .origin = tree_parent(interp),
			 .host = xstrdup(host),
			 .guest = xstrdup(interp),
			 .guest_origin = tree_parent(interp),
			 .shown = xasprintf("%s%s", w->root, interp),
			 .loader = 0,
			 .is_interp = true};
	rc = read_library(w, &d);
	if (rc == 0) {
		rw_err("the interpreter %s of %s is not an x86-64 shared object", d.shown,
		       w->dsos[0].shown);
		rc = -ENOEXEC;
	}
	if (rc < 0) {
		dso_free(&d);
		return rc;
	}
	return add_dso(w, &d);
}

/*
 * Where the program is: inside the tree, every symlink resolved (its $ORIGIN,
 * as the loader takes it from /proc/self/exe), and in the guest.
 */
static int place_program(struct walk *w, const char *host_path, const char *guest_path)
{
	char real[PATH_MAX], real_root[PATH_MAX] = "", guest[TREE_PATH_LEN];
	struct dso *d = &w->dsos[0];
	size_t root_len;

	if (!realpath(host_path, real) || (w->root[0] && !realpath(w->root, real_root))) {
		int err = errno;

		rw_err_errno(err, "cannot resolve the path of the program %s", host_path);
		return -err;
	}
	root_len = strcmp(real_root, "/") == 0 ? 0 : strlen(real_root);
	if (strncmp(real, real_root, root_len) != 0 || real[root_len] != '/') {
		rw_err("the program %s is outside %s, the tree its libraries are looked for in",
		       host_path, w->root);
		return -EINVAL;
	}
	if (!tree_normalize(guest_path, guest, sizeof(guest))) {
		rw_err("the program's guest path %s is too long", guest_path);
		return -ENAMETOOLONG;
	}
	d->vpath = xstrdup(real + root_len);
	d->origin = tree_parent(d->vpath);
	d->guest = xstrdup(guest);
	d->guest_origin = tree_parent(guest);
	return 0;
}

/* Reads the program: out->dynamic, out->interp, and its own dynamic section. */
static int load_program(struct walk *w, const char *host_path, const char *guest_path,
			struct elf_deps *out)
{
	struct elf_file f = {.shown = host_path};
	struct elf_segments seg = {0};
	uint8_t *data;
	int rc = file_read_max(host_path, FILE_READ_DEFAULT_MAX, "program", &data, &f.size);

	if (rc)
		return rc;
	f.data = data;
	w->dsos[0].shown = xstrdup(host_path);
	rc = elf_program(&f, &seg);
	if (rc == 1)
		rc = elf_interp(&f, &seg.interp, out->interp, sizeof(out->interp));
	if (!rc && out->interp[0])
		rc = place_program(w, host_path, guest_path);
	if (!rc && out->interp[0] && seg.has_dynamic)
		rc = elf_dynamic_read(&f, &seg.dynamic, &w->dsos[0].dyn);
	free(data);
	out->dynamic = !rc && out->interp[0];
	w->musl = strstr(out->interp, "ld-musl") != NULL;
	return rc;
}

static int walk_init(struct walk *w, const struct elf_deps_config *cfg)
{
	static const struct elf_deps_config defaults;
	const struct elf_deps_config *c = cfg ? cfg : &defaults;
	const char *root = c->root ? c->root : "";
	size_t n = strlen(root);

	memset(w, 0, sizeof(*w));
	while (n > 0 && root[n - 1] == '/')
		n--;
	if ((n > 0 && root[0] != '/') || n >= sizeof(w->root)) {
		rw_err("the root %s to find shared libraries in is not an absolute path", root);
		return -EINVAL;
	}
	memcpy(w->root, root, n);
	w->root[n] = '\0';
	w->ld_so_conf = c->ld_so_conf ? c->ld_so_conf : LD_SO_CONF;
	w->max_objects = c->max_objects ? c->max_objects : ELF_DEPS_MAX_OBJECTS;
	w->max_bytes = c->max_bytes ? c->max_bytes : ELF_DEPS_MAX_BYTES;
	w->dsos = check_alloc(calloc(1, sizeof(*w->dsos)));
	w->dsos[0].loader = NO_LOADER;
	w->count = 1;
	return 0;
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->count; i++)
		dso_free(&w->dsos[i]);
	free(w->dsos);
	ld_dirs_free(&w->system);
}

/* The objects in the order found, the program left out, each guest path once. */
static void collect(struct walk *w, struct elf_deps *out)
{
	/* NOLINTNEXTLINE(clang-analyzer-optin.portability.UnixAPI): the program makes count >= 1 */
	out->items = check_alloc(calloc(w->count, sizeof(*out->items)));
	for (size_t i = 1; i < w->count; i++) {
		struct dso *d = &w->dsos[i];
		bool listed = false;

		/* NOLINTBEGIN(clang-analyzer-core.NonNullParamChecker): each has a guest path */
		for (size_t j = 0; j < out->count && !listed; j++)
			listed = strcmp(out->items[j].guest_path, d->guest) == 0;
		/* NOLINTEND(clang-analyzer-core.NonNullParamChecker) */
		if (listed)
			continue;
		out->items[out->count++] = (struct elf_dep){d->host, d->guest};
		d->host = NULL;
		d->guest = NULL;
	}
}

int elf_deps_find(const char *host_path, const char *guest_path, const struct elf_deps_config *cfg,
		  struct elf_deps *out)
{
	struct walk w;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = walk_init(&w, cfg);
	if (rc)
		return rc;
	rc = load_program(&w, host_path, guest_path, out);
	if (!rc && out->dynamic)
		rc = ld_system_dirs(w.root, w.ld_so_conf, w.musl, &w.system);
	if (!rc && out->dynamic)
		rc = load_interp(&w, out->interp);
	if (!rc && out->dynamic)
		rc = walk_needed(&w, 0);
	if (!rc && out->dynamic && !w.musl)
		rc = add_libgcc_s(&w);
	if (!rc && out->dynamic)
		collect(&w, out);
	walk_free(&w);
	if (rc)
		elf_deps_free(out);
	return rc;
}

void elf_deps_free(struct elf_deps *d)
{
	for (size_t i = 0; i < d->count; i++) {
		free(d->items[i].host_path);
		free(d->items[i].guest_path);
	}
	free(d->items);
	memset(d, 0, sizeof(*d));
}
