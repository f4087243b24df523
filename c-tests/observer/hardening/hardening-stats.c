/*
 * Hardening of the counters' file (RDMAVERBS_STATS=1): its directory
 * under XDG_RUNTIME_DIR refused when a symbolic link, open to others, a
 * file, or too long a path; refused at load and put right before a fork;
 * the file of the image before an exec(2) replaced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hardening.h"

/* The counters' file (RDMAVERBS_STATS=1): its directory under
 * XDG_RUNTIME_DIR is refused when it is a symbolic link (to a directory of
 * the attacker's choosing: nothing is made there), open to others, or a
 * file; the program counts all the same and prints its table, with one
 * warning. */
void stats_dir_cases(void)
{
	/* the case run in the child, and the warning it must print once */
	static const struct { const char *mode, *why; } cases[] = {
		{ "stats-link", "cannot open its directory" },
		{ "stats-open", "its directory is not this user's own, or others may enter it" },
		{ "stats-file", "cannot open its directory" },
	};
	char xdg[4200], link[4300], elsewhere[4300], env_xdg[4400];
	const char *env[] = { "RDMAVERBS_STATS=1", env_xdg, NULL };
	int k, rc, bad = 0;

	for (k = 0; k < (int)(sizeof(cases) / sizeof(cases[0])); k++) {
		snprintf(xdg, sizeof(xdg), "%s/xdg%d", dir, k);
		snprintf(link, sizeof(link), "%s/rdmaverbs", xdg);
		snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", xdg);
		mkdir(xdg, 0700);
		mkdir(elsewhere, 0700);
		if (k == 0) {
			if (symlink(elsewhere, link) && errno != EEXIST)
				FAIL("stats dir: cannot make the symbolic link");
		} else if (k == 1) {
			mkdir(link, 0755);
			chmod(link, 0755);
		} else
			close(open(link, O_WRONLY | O_CREAT, 0600));	/* a file, the user's own */
		snprintf(env_xdg, sizeof(env_xdg), "XDG_RUNTIME_DIR=%s", xdg);
		rc = run(cases[k].mode, env);
		if (rc || lines_with(cases[k].why) != 1 || lines_with("rdmaverbs: calls of process") != 1 ||
		    count_in(elsewhere) != 0 || (k == 1 && count_in(link) != 0)) {
			FAIL("stats dir %d: exit %d, stderr: %s", k, rc, err_text());
			bad++;
		}
	}
	if (!bad)
		OK("stats dir: its directory a symbolic link, open to others, or a file of the user's: "
		   "refused, nothing made there, one warning, the table printed all the same");

	/* a directory whose path is longer than a line (512 bytes): refused,
	 * not cut */
	{
		char longer[700];

		memset(longer, 'a', sizeof(longer) - 1);
		longer[0] = '/';
		longer[300] = '/';
		longer[sizeof(longer) - 1] = 0;
		snprintf(env_xdg, sizeof(env_xdg), "XDG_RUNTIME_DIR=%s", longer);
		rc = run("stats-long", env);
		if (rc || lines_with("no directory for it (the path is too long)") != 1 ||
		    lines_with("rdmaverbs: calls of process") != 1)
			FAIL("stats long: exit %d, stderr: %s", rc, err_text());
		else
			OK("stats long: a directory path over 512 bytes: refused with one warning, the "
			   "table printed all the same");
	}

	/* a directory refused at load, put right before a fork: the child
	 * publishes nothing either (it makes a file only if its parent had) */
	snprintf(xdg, sizeof(xdg), "%s/xdgfixed", dir);
	snprintf(link, sizeof(link), "%s/rdmaverbs", xdg);
	mkdir(xdg, 0700);
	mkdir(link, 0755);
	chmod(link, 0755);
	snprintf(env_xdg, sizeof(env_xdg), "XDG_RUNTIME_DIR=%s", xdg);
	rc = run("fixed", env);
	if (rc || lines_with(cases[1].why) != 1 || lines_with("rdmaverbs: calls of process") != 2 ||
	    count_in(link) != 0)
		FAIL("stats fixed: exit %d (7: the child made a file), stderr: %s", rc, err_text());
	else
		OK("stats fixed: its directory refused at load, put right, then a fork: the child "
		   "made no file either, both tables printed");

	/* exec(2) runs no exit handler: the file of the image before is there
	 * when the new one makes its own, of the same pid, and is replaced */
	snprintf(xdg, sizeof(xdg), "%s/xdgexec", dir);
	snprintf(link, sizeof(link), "%s/rdmaverbs", xdg);
	mkdir(xdg, 0700);
	snprintf(env_xdg, sizeof(env_xdg), "XDG_RUNTIME_DIR=%s", xdg);
	rc = run("exec", env);
	if (rc || lines_with("warning") || lines_with("rdmaverbs: calls of process") != 1 ||
	    count_in(link) != 0)
		FAIL("stats exec: exit %d, %d files left, stderr: %s", rc, count_in(link), err_text());
	else
		OK("stats exec: the file of the image before exec(2) replaced by the new one's, no "
		   "warning, removed at exit");
}
