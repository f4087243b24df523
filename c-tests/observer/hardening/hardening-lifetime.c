/*
 * Hardening of the library's load, unload and signals: 1000 dlopen and
 * dlclose cycles leave no descriptor or thread, a fatal signal's handler
 * only where there are lines to write or a table to print, taken away at
 * unload (the program's own left), a SIGINT ignored before the load left
 * ignored; and a bad value's control characters escaped in its warning.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardening.h"

void lifetime_cases(void)
{
	char env1[4300];
	const char *env[3] = { env1, NULL, NULL };
	int rc;

	/* A copy of the library: this program is linked with the library itself,
	 * which dlclose would never unload. */
	{
		static char copy[4200];
		char cmd[9000];

		snprintf(copy, sizeof(copy), "%s/copy-librdmaverbs.so.1", dir);
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", lib, copy);
		if (system(cmd))
			FAIL("dlclose: cannot copy %s", lib);
		lib = copy;
	}
	snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=./trace");
	rc = run("dlclose", env);
	if (rc)
		FAIL("dlclose: exit %d (descriptors or threads left, or dlopen failed), stderr: %s", rc,
		     err_text());
	else
		OK("dlclose: 1000 dlopen/dlclose cycles, each with a traced call, leave no descriptor "
		   "open and no thread running (the trace's writer thread is joined at unload)");

	{	/* a handler only where it has lines to write or a table to print */
		static const char *const trace_stderr[] = { "RDMAVERBS_TRACE=1", NULL };
		static const char *const trace_file[] = { "RDMAVERBS_TRACE=./t", NULL };
		static const char *const stats[] = { "RDMAVERBS_STATS=1", NULL };
		int r1 = run("handlers", trace_stderr), r2 = run("handlers", trace_file),
		    r3 = run("handlers", stats), r4 = run("handlers", NULL);

		if (r1 != 0 || r2 != 1 || r3 != 1 || r4 != 0)
			FAIL("handlers: SIGTERM's action not the default: tracing to stderr %d (want 0), "
			     "to a file %d (1), counting %d (1), nothing set %d (0)", r1, r2, r3, r4);
		else
			OK("handlers: a SIGTERM handler when tracing to a file or counting, none when "
			   "tracing to stderr (lines written at once) or with nothing set");
	}
	rc = run("unload", NULL);
	if (rc != 128 + SIGTERM || lines_with("hup") != 1)
		FAIL("unload: exit %d (want %d, SIGTERM's), stderr: %s", rc, 128 + SIGTERM, err_text());
	else
		OK("unload: at dlclose the library's signal handlers are taken away (SIGTERM ends the "
		   "process), the program's own (SIGHUP) left");
	{
		static const char *const stats[] = { "RDMAVERBS_STATS=1", NULL };

		rc = run("ignored", stats);
		if (rc || lines_with("rdmaverbs: calls of process") != 1)
			FAIL("ignored: exit %d, stderr: %s", rc, err_text());
		else
			OK("ignored: a SIGINT ignored before the load stays ignored (the program goes on; "
			   "one table, at its exit)");
	}

	snprintf(env1, sizeof(env1), "RDMAVERBS_STATS=yes\nrdmaverbs[1]: rdma_post_send forged\t\x1b[2J");
	rc = run("escape", env);
	if (rc || strstr(err_text(), "\nrdmaverbs[1]") || !lines_with("yes\\x0ardmaverbs[1]: rdma_post_send forged\\x09\\x1b[2J"))
		FAIL("escape: exit %d, stderr: %s", rc, err_text());
	else
		OK("escape: control characters in a bad value are escaped in its warning");
}
