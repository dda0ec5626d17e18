/* SPDX-License-Identifier: MIT */
/* What rewind-harness's front-ends share (harness/cli.h). */
#include "harness/cli.h"

#include "harness/reach.h"
#include "lib/log.h"

/* Says on stderr when the bytes at path are not in the documented format (they are decoded). */
void cli_say_if_decoded(const char *path, const uint8_t *data, size_t len, const char *doing)
{
	struct exec_input input;
	char why[160];

	if (input_parse(data, len, &input, why, sizeof(why)) < 0)
		fprintf(stderr, "%s: %s is not in the documented input format (%s); %s\n",
			rw_log.program, path, why, doing);
}

void cli_harness_settings(struct harness *h, const struct cli *c)
{
	h->job = c->job;
	h->map_size = c->map_size;
	h->artifact_dir = c->artifact_dir;
	h->progress_path = c->progress_path;
}

int cli_prepare_harness(struct harness *h, struct cli *c, FILE *output)
{
	struct executor_config cfg = {.run = c->job.run,
				      .wall_ms = c->job.wall_ms,
				      .slice_blocks = c->job.slice_blocks,
				      .block_ns = c->job.block_ns,
				      .skip_status = c->job.skip_status,
				      .output = output,
				      .event_log = c->event_log.at ? &c->event_log : NULL};

	return executor_prepare(&h->ex, &cfg);
}

int cli_boot_harness(struct harness *h, const struct cli *c)
{
	int rc = executor_boot(&h->ex);

	/* a random search of another mode never runs steps-mode inputs */
	return rc ? rc
		  : reach_check(&h->ex,
				c->mode != MODE_RANDOM || c->random_mode == INPUT_MODE_STEPS);
}

int cli_open_harness(struct harness *h, struct cli *c, FILE *output)
{
	int rc;

	cli_harness_settings(h, c);
	rc = cli_prepare_harness(h, c, output);
	return rc ? rc : cli_boot_harness(h, c);
}
