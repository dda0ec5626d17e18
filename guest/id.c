/* SPDX-License-Identifier: MIT */
/*
 * id: the job's user and groups, as coreutils' id prints them
 * ("uid=1000(rewind) gid=1000(rewind) groups=1000(rewind)"), then the
 * working directory, HOME, and whether the working directory is writable.
 * A tiny static tool, so the image needs no coreutils.
 */
#include "guest/util.h"

#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *user_name(uid_t uid)
{
	const struct passwd *pw = getpwuid(uid);

	return pw ? pw->pw_name : "?";
}

static const char *group_name(gid_t gid)
{
	const struct group *gr = getgrgid(gid);

	return gr ? gr->gr_name : "?";
}

int main(void)
{
	gid_t groups[64];
	char cwd[PATH_MAX], list[1024];
	int n = getgroups(64, groups);
	size_t at = 0;
	const char *home = getenv("HOME");

	if (n < 0)
		gu_die_errno("getgroups");
	list[0] = '\0';
	for (int i = 0; i < n && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u(%s)", i ? "," : "",
				       (unsigned int)groups[i], group_name(groups[i]));
	if (!getcwd(cwd, sizeof(cwd)))
		gu_die_errno("getcwd");
	gu_say("uid=%u(%s) gid=%u(%s) groups=%s\n", (unsigned int)getuid(), user_name(getuid()),
	       (unsigned int)getgid(), group_name(getgid()), list);
	gu_say("cwd=%s home=%s writable=%s\n", cwd, home ? home : "(unset)",
	       access(".", W_OK) == 0 ? "yes" : "no");
	return 0;
}
