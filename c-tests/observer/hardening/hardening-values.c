/*
 * Hardening of the settings' values and the descriptors: bad values of
 * RDMAVERBS_TRACE (a warning each, no file), a path over PATH_MAX and one
 * of 4095 bytes, few descriptors (RLIMIT_NOFILE 32), standard input closed,
 * and RDMAVERBS_TRACE=0 with RDMAVERBS_STATS=0 (off, without a word).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardening.h"

void value_cases(void)
{
	static const char *bad[] = { "yes", "2", "-1", " 1" };
	char path[4200], env1[4300];
	const char *env[3] = { env1, NULL, NULL };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=%s", bad[i]);
		snprintf(path, sizeof(path), "%s/values", dir);
		rc = run("values", env);
		snprintf(path, sizeof(path), "%s/values/%s", dir, bad[i]);
		if (rc || exists(path) || lines_with("not 0, 1 or a path") != (int)i + 1)
			FAIL("values: RDMAVERBS_TRACE='%s': exit %d, file %s, stderr: %s", bad[i], rc,
			     exists(path) ? "created" : "not created", err_text());
	}
	if (!failures)
		OK("values: RDMAVERBS_TRACE=yes, 2, -1, ' 1' each give a warning and create no file");
	{
		/* a path longer than PATH_MAX: refused as such; one of 4095
		 * bytes (PATH_MAX with its NUL) is tried, and cannot be opened */
		static char var[6000];
		const char *const one[] = { var, NULL };
		size_t k;

		for (k = 0; k < 2; k++) {
			size_t len = k ? 4095 : 5000, at = strlen("RDMAVERBS_TRACE=");

			memcpy(var, "RDMAVERBS_TRACE=", at);
			memset(var + at, 'a', len);
			for (i = at + 1; i < at + len; i += 200)
				var[i] = '/';
			var[at + len] = 0;
			rc = run(k ? "long2" : "long", one);
			if (rc || lines_with(k ? "cannot open it; not tracing" : "too long a path; not tracing") != 1 ||
			    lines_with("rdmaverbs") != 1)
				FAIL("long: a path of %zu bytes: exit %d, stderr: %.300s", len, rc, err_text());
			else
				OK("long: a path of %zu bytes: '%s'", len,
				   k ? "cannot open it" : "too long a path");
		}
	}
	{
		static const char *const nofile[] = { "RDMAVERBS_TRACE=./t.log", NULL };

		rc = run("nofile", nofile);
		snprintf(path, sizeof(path), "%s/nofile/t.log", dir);
		if (rc || !exists(path) || err_text()[0])
			FAIL("nofile: RLIMIT_NOFILE 32: exit %d, file %s, stderr: %s", rc,
			     exists(path) ? "made" : "missing", err_text());
		else {
			char cmd[4300];

			snprintf(cmd, sizeof(cmd), "grep -q '^rdmaverbs\\[[0-9]*\\]: rdma_seterrno ' %s", path);
			if (system(cmd))
				FAIL("nofile: no rdma_seterrno line in %s", path);
			else
				OK("nofile: with 32 descriptors at most (none free at 256), the trace on the one open() gave");
		}
	}
	{
		static const char *const nostdin[] = { "RDMAVERBS_TRACE=./t.%p", "RDMAVERBS_STATS=1",
						       NULL };
		char cmd[4400];
		int files;

		rc = run("nostdin", nostdin);
		/* two files: the parent's 2 lines, the child's 1 (its own number) */
		snprintf(cmd, sizeof(cmd),
			 "cd %s/nostdin && test $(ls t.* | wc -l) = 2 && "
			 "for f in t.*; do p=${f#t.}; grep -c \"^rdmaverbs\\[$p\\]: rdma_seterrno \" $f; done "
			 "| sort | tr '\\n' ' ' | grep -qx '1 2 '", dir);
		files = system(cmd);
		if (rc || files || lines_with("rdmaverbs: calls of process") != 2 || lines_with("warning"))
			FAIL("nostdin: standard input closed, 32 descriptors: exit %d (5: no counters file "
			     "mapped), files %s, stderr: %s", rc, files ? "not as expected" : "ok", err_text());
		else
			OK("nostdin: standard input closed, 32 descriptors: the trace on descriptor 0, a "
			   "forked child's in its own file; the counters' file mapped; both tables");
	}
	{
		static const char *const zero[] = { "RDMAVERBS_TRACE=0", "RDMAVERBS_STATS=0", NULL };

		rc = run("zero", zero);
		if (rc || err_text()[0])
			FAIL("zero: RDMAVERBS_TRACE=0 RDMAVERBS_STATS=0: exit %d, stderr: %s", rc,
			     err_text());
		else
			OK("zero: RDMAVERBS_TRACE=0 and RDMAVERBS_STATS=0: off, without a word");
	}
}
