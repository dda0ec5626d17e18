/* --replay, --bundle and --explain (harness/cmd_replay.h). */
#include "harness/cmd_replay.h"

#include "harness/explain/explain.h"
#include "vmm/log.h"

/* How bad a replay's status is: a setup failure, then an unreadable file, then a difference. */
static int replay_severity(int rc)
{
	return rc == REPLAY_SETUP ? 3 : rc == REPLAY_BAD_FILE ? 2 : rc == REPLAY_DIFFERS ? 1 : 0;
}

/* --replay FILE [FILE...]: each in turn; the status is the worst. */
static int replay_files(const struct cli *c, const struct replay_options *ro)
{
	int worst = REPLAY_SAME;

	for (size_t i = 0; i <= c->file_count; i++) {
		const char *path = i ? c->files[i - 1] : c->file;
		int rc;

		if (c->file_count)
			fprintf(stderr, "rewind-harness: replaying %s (%zu of %zu)\n", path, i + 1,
				c->file_count + 1);
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
				      .repeat = (unsigned int)c->repeat};
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
	return replay_bundle(c->file, replay_options_of(c, &ro), c->output);
}

int cmd_explain(struct cli *c)
{
	struct replay_options ro;

	return explain_file(c->file, replay_options_of(c, &ro), c->output);
}
