/* SPDX-License-Identifier: MIT */
/* --replay, --bundle and --explain (harness/cmd_replay.h). */
#include "harness/cmd_replay.h"

#include "harness/explain/explain.h"
#include "lib/log.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * How bad a replay's status is, to report the worst of several: a host
 * error, then usage or setup, then a difference, then a failure.
 */
static int replay_severity(int rc)
{
	return rc == REPLAY_HOST       ? 4
	       : rc == REPLAY_BAD_FILE ? 3
	       : rc == REPLAY_DIFFERS  ? 2
	       : rc == REPLAY_FAILS    ? 1
				       : 0;
}

/* --replay FILE [FILE...]: each in turn; the status is the worst. */
static int replay_files(const struct cli *c, const struct replay_options *ro)
{
	int worst = REPLAY_OK;

	for (size_t i = 0; i <= c->file_count; i++) {
		const char *path = i ? c->files[i - 1] : c->file;
		int rc;

		if (c->file_count)
			fprintf(stderr, "%s: replaying %s (%zu of %zu)\n", rw_log.program, path,
				i + 1, c->file_count + 1);
		rc = replay_file(path, ro);
		if (replay_severity(rc) > replay_severity(worst))
			worst = rc;
	}
	return worst;
}

static const struct replay_options *replay_options_of(struct cli *c, struct replay_options *ro)
{
	*ro = (struct replay_options){.job = &c->job,
				      .changes = c->changes,
				      .change_count = c->change_count,
				      .command = c->command,
				      .command_len = c->command_len,
				      .trust = c->trust,
				      .expect_fixed = c->expect_fixed,
				      .repeat = (unsigned int)c->repeat,
				      .raw = c->raw,
				      .json = c->json};
	return ro;
}

int cmd_replay(struct cli *c)
{
	struct replay_options ro;

	return replay_files(c, replay_options_of(c, &ro));
}

int cmd_bundle(struct cli *c)
{
	struct replay_options ro;

	if (!c->output) {
		rw_err("a bundle needs --out DIR (or -o DIR), the bundle directory to create");
		return STATUS_BAD_FILE;
	}
	/* checked before the boot: bundle_write makes the directory, and no other */
	if (access(c->output, F_OK) == 0) {
		rw_err("%s already exists: a bundle goes into a new directory; give another "
		       "--out DIR",
		       c->output);
		return STATUS_BAD_FILE;
	}
	if (errno != ENOENT) {
		rw_err_errno(errno, "cannot make the bundle directory %s", c->output);
		return STATUS_BAD_FILE;
	}
	return replay_bundle(c->file, replay_options_of(c, &ro), c->output);
}

/* --out FILE: its folder is there, checked before the explanation's work. */
static int check_out_folder(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	rw_err("--out %s: there is no folder %s to write it in", path, dir);
	return -ENOENT;
}

int cmd_explain(struct cli *c)
{
	struct replay_options ro;

	if (c->output && check_out_folder(c->output) < 0)
		return STATUS_BAD_FILE;
	return explain_file(c->file, replay_options_of(c, &ro), c->output);
}
