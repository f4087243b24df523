/*
 * Hardening: a set-user-ID-root copy of the program, run by nobody with
 * RDMAVERBS_TRACE naming a root-only directory and RDMAVERBS_STATS=1,
 * obeys neither (secure_getenv); the same copy without the bit does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hardening.h"

/* Where nobody can run a program, whatever the build tree's place: a
 * directory of its own under /tmp (not $TMPDIR, which may be under a home
 * closed to others), 0755, on a file system that honours set-user-ID bits
 * and lets programs run; "" with the reason in `why` when there is none. */
static const char *scene_for_nobody(char *out, size_t size, const char **why)
{
	struct statvfs vfs;

	snprintf(out, size, "/tmp/rdmaverbs-setuid.XXXXXX");
	if (!mkdtemp(out) || chmod(out, 0755)) {
		*why = "cannot make a directory under /tmp";
		return "";
	}
	if (statvfs(out, &vfs) || vfs.f_flag & (ST_NOSUID | ST_NOEXEC)) {
		*why = "/tmp is mounted nosuid or noexec";
		rmdir(out);
		return "";
	}
	return out;
}

void setuid_case(void)
{
	char scene[64], copy[128], secret[128], open_dir[128], target[160], statik[4200];
	char trace_env[256], cmd[4600];
	const char *env[] = { trace_env, "RDMAVERBS_STATS=1", NULL };
	const char *why = "";
	int rc, i;

	if (getuid() != 0) {
		printf("hardening: skipped: setuid (needs root: a set-user-ID-root copy run by nobody)\n");
		return;
	}
	/* The copy is the program linked with the static archive (SELF-static):
	 * a set-user-ID program finds its libraries by its run path only, and
	 * nobody may not be able to reach the build tree's. */
	snprintf(statik, sizeof(statik), "%s-static", self);
	if (!*scene_for_nobody(scene, sizeof(scene), &why)) {
		printf("hardening: skipped: setuid (%s)\n", why);
		return;
	}
	snprintf(copy, sizeof(copy), "%s/setuid-bin", scene);
	snprintf(secret, sizeof(secret), "%s/secret", scene);
	snprintf(open_dir, sizeof(open_dir), "%s/open", scene);
	mkdir(secret, 0700);
	mkdir(open_dir, 0777);
	chmod(open_dir, 0777);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chown root:root '%s'", statik, copy, copy);
	if (system(cmd)) {
		FAIL("setuid: cannot copy %s", statik);
		goto out;
	}
	for (i = 0; i < 2; i++) {
		int suid = i == 0;

		chmod(copy, suid ? 04755 : 0755);
		snprintf(target, sizeof(target), "%s/x", suid ? secret : open_dir);
		snprintf(trace_env, sizeof(trace_env), "RDMAVERBS_TRACE=%s", target);
		unlink(target);
		unlink(err_path);
		rc = run_as(copy, "setuid", env, 65534);
		if (rc == 127 || rc == 125) {
			FAIL("setuid: could not run the copy as nobody (%d)", rc);
			goto out;
		}
		if (suid && (rc || exists(target) || lines_with("rdmaverbs")))
			FAIL("setuid: the set-user-ID run obeyed RDMAVERBS_*: exit %d, %s %s, stderr: %s",
			     rc, target, exists(target) ? "created" : "not created", err_text());
		if (!suid && (rc || !exists(target) || !lines_with("rdmaverbs: rdma_seterrno ")))
			FAIL("setuid: the control run (no set-uid bit) did not trace and count: "
			     "exit %d, stderr: %s", rc, err_text());
	}
	OK("setuid: run by nobody, a set-user-ID-root program ignores RDMAVERBS_TRACE "
	   "and RDMAVERBS_STATS (its control run without the bit obeys them)");
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scene);
	if (system(cmd))
		FAIL("setuid: cannot remove %s", scene);
}
