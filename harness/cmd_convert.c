/* SPDX-License-Identifier: MIT */
/* --to-json and --from-json (harness/cmd_convert.h). */
#include "harness/cmd_convert.h"

#include "harness/cli.h"
#include "lib/file.h"
#include "lib/log.h"

#include <stdlib.h>

/* The input of a JSON input file, or of an artifact's "input". */
static int json_input(const char *path, struct exec_input *input)
{
	uint8_t *data;
	size_t len;
	char why[160];
	cJSON *root, *in;
	int rc;

	if (file_read_max(path, INPUT_FILE_MAX, "JSON input", &data, &len) < 0)
		return -ENOENT;
	root = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	if (!root) {
		rw_err("%s is not valid JSON", path);
		return -EINVAL;
	}
	in = cJSON_GetObjectItemCaseSensitive(root, "input");
	rc = input_from_json(cJSON_IsObject(in) ? in : root, input, why, sizeof(why));
	if (rc < 0)
		rw_err("%s: %s", path, why);
	cJSON_Delete(root);
	return rc;
}

/*
 * Whether the bytes are a JSON object (an input as JSON, or an artifact):
 * any other bytes, "0000" from afl-tmin included, are a binary input.
 */
static bool is_json_object(const uint8_t *data, size_t len)
{
	cJSON *root = cJSON_ParseWithLength((const char *)data, len);
	bool object = cJSON_IsObject(root);

	cJSON_Delete(root);
	return object;
}

/* --to-json FILE: a binary input (decoded as the harness would), a JSON input, or an artifact's. */
int cmd_to_json(const char *path)
{
	struct exec_input input;
	uint8_t *data;
	size_t len;
	char *text;
	cJSON *json;

	if (file_read_max(path, INPUT_FILE_MAX, "input", &data, &len) < 0)
		return STATUS_BAD_FILE;
	if (is_json_object(data, len)) {
		free(data);
		if (json_input(path, &input) < 0)
			return STATUS_BAD_FILE;
	} else {
		cli_say_if_decoded(path, data, len, "this is the input the harness makes of it");
		input_decode(data, len, &input);
		free(data);
	}
	json = input_to_json(&input);
	text = cJSON_Print(json);
	cJSON_Delete(json);
	if (!text)
		return STATUS_BAD_FILE;
	printf("%s\n", text);
	free(text);
	return STATUS_OK;
}

int cmd_from_json(const char *path, const char *out)
{
	struct exec_input input;
	uint8_t buf[INPUT_MAX_SIZE];
	struct file_part part = {buf, 0};

	if (!out) {
		rw_err("--from-json needs -o OUT, the binary input to write");
		return STATUS_BAD_FILE;
	}
	if (json_input(path, &input) < 0)
		return STATUS_BAD_FILE;
	part.len = input_encode(&input, buf);
	return file_write_atomic(out, &part, 1) < 0 ? STATUS_HOST : STATUS_OK;
}
