/* SPDX-License-Identifier: MIT */
/*
 * env: prints the environment, one NAME=VALUE a line, in its order (a tiny
 * static tool, as coreutils' env without arguments).
 */
#include "guest/util.h"

extern char **environ;

int main(void)
{
	for (char **e = environ; *e; e++)
		gu_say("%s\n", *e);
	return 0;
}
