/* SPDX-License-Identifier: MIT */
/* JSON documents written atomically: artifacts, explanations, plans, results. */
#include "lib/json_file.h"

#include "lib/file.h"
#include "lib/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cJSON *json_read_file(const char *path, size_t max, const char *what)
{
	uint8_t *data;
	size_t len;
	cJSON *o;

	if (access(path, F_OK) || file_read_max(path, max, what, &data, &len))
		return NULL;
	o = cJSON_ParseWithLength((const char *)data, len);
	free(data);
	return o;
}

int json_write_atomic(const char *path, const cJSON *json)
{
	char *text = json ? cJSON_Print(json) : NULL;
	struct file_part part;
	int rc;

	if (!text) {
		rw_err("out of memory for %s", path);
		return -ENOMEM;
	}
	part = (struct file_part){text, strlen(text)};
	rc = file_write_atomic(path, &part, 1); /* says why it failed */
	free(text);
	return rc;
}

int json_print_line(cJSON *json, const char *what)
{
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;

	cJSON_Delete(json);
	if (!text) {
		rw_err("out of memory for %s", what);
		return -ENOMEM;
	}
	printf("%s\n", text);
	free(text);
	if (fflush(stdout) != 0) {
		rw_err_errno(errno, "cannot write %s", what);
		return -EIO;
	}
	return 0;
}

void json_add_hex(cJSON *o, const char *key, uint64_t v, enum json_hex kind)
{
	char hex[19];

	snprintf(hex, sizeof(hex),
		 kind == JSON_HEX_HASH	  ? "0x%016" PRIx64
		 : kind == JSON_HEX_PLAIN ? "%016" PRIx64
					  : "0x%" PRIx64,
		 v);
	cJSON_AddStringToObject(o, key, hex);
}
