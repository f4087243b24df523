/*
 * The environment and the trace file, as an attacker or an unlucky user
 * would meet them. The parent re-executes this program ("hardening LIB DIR
 * CASE") with RDMAVERBS_* set, in DIR/CASE/ as its working directory, with
 * its stderr in DIR/CASE.err, and checks:
 *
 *   setuid     a set-user-ID-root copy (SELF-static: linked with the static
 *              archive), in a directory of its own under /tmp, run by nobody
 *              with RDMAVERBS_TRACE naming a root-only directory and
 *              RDMAVERBS_STATS=1, obeys neither (secure_getenv); the same
 *              copy without the set-uid bit does (needs root, and a /tmp
 *              that allows set-user-ID programs: skipped with a message
 *              otherwise);
 *   values     RDMAVERBS_TRACE=yes, 2, -1, " 1": a warning each, and no file;
 *   percent    ./t.%p: a file named after the process, mode 0600; a forked
 *              child's lines in a file of its own;
 *   stopped    ./t.%p, the file deleted under the program (one warning, the
 *              trace stopped), then a fork: the child makes no file;
 *   renamed    ./t.log renamed to t.old, then a fork: the child's line goes
 *              to the parent's file (t.old), no new t.log is made;
 *   symlink    a path whose last component is a symbolic link: refused, the
 *              link's target untouched;
 *   fifo       a FIFO with no reader: refused at once (the load does not
 *              block); with a reader, and /dev/null: not regular files;
 *   reused     the program closes every descriptor above 2 and opens its own
 *              file on each number: no trace line gets into it; one warning;
 *   dlclose    1,000 dlopen/dlclose cycles of the library with a trace file,
 *              each with a traced call: no descriptor is left open, no
 *              thread left running (the writer thread is joined);
 *   long       a path over PATH_MAX: refused as too long; one of 4095 bytes:
 *              tried, and cannot be opened;
 *   nofile     RLIMIT_NOFILE 32 (no descriptor free at 256): traced on the
 *              descriptor open() gave;
 *   fixed      counting, its directory refused at load, then put right
 *              (0700), then a fork: the child counts in memory too, and
 *              makes no file (it publishes what its parent published);
 *   nostdin    as nofile, and standard input closed (as daemons do): the
 *              trace on descriptor 0, a forked child's (%p) too, each
 *              process's lines in its own file; counting as well, its file
 *              made and mapped;
 *   handlers   a fatal signal's handler installed when tracing to a file or
 *              counting, not when tracing to stderr or with nothing set;
 *   unload     at dlclose the handlers of fatal signals are taken away, and
 *              only the library's own;
 *   ignored    a SIGINT ignored since before the load stays ignored;
 *   escape     a value with a newline and other control characters: one
 *              warning line, the characters escaped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include "child.h"

static int failures, passed;
#define FAIL(...) do { fprintf(stderr, "hardening: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)
#define OK(...) do { printf("hardening: ok: " __VA_ARGS__); putchar('\n'); passed++; } while (0)

/* The entries of a /proc/self directory. */
static int count_in(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int count_fds(void)
{
	return count_in("/proc/self/fd") - 1;	/* the directory's own */
}

static int count_threads(void)
{
	return count_in("/proc/self/task");
}

/* ---- the child: one case ---- */

static const char *self, *lib, *dir;

static void on_hup(int sig)
{
	(void)sig;
	if (write(2, "hup\n", 4) != 4)
		_exit(11);
}

/* A fork whose child makes one traced call (rdma_seterrno(2)) and exits,
 * then one more call in the parent (3); 0 when the child exited 0. */
static int fork_line(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		rdma_seterrno(2);
		exit(0);
	}
	waitpid(pid, &st, 0);
	rdma_seterrno(3);
	return !WIFEXITED(st) || WEXITSTATUS(st);
}

static int child(const char *lib, const char *mode)
{
	int i;

	if (!strcmp(mode, "reused")) {
		int fd;

		for (i = 3; i < 1024; i++)
			close(i);
		fd = open("data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		for (i = 3; i < 300; i++)
			if (i != fd)
				dup2(fd, i);
		dprintf(fd, "the program's own data\n");
		for (i = 0; i < 10; i++)
			rdma_seterrno(i);
		return 0;
	}
	if (!strcmp(mode, "dlclose")) {
		int before = count_fds(), threads = count_threads();

		for (i = 0; i < 1000; i++) {
			void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
			int (*seterrno)(int);
			void *p;

			if (!h) {
				fprintf(stderr, "dlopen: %s\n", dlerror());
				return 10;
			}
			p = dlsym(h, "rdma_seterrno");
			memcpy(&seterrno, &p, sizeof(p));
			seterrno(0);
			dlclose(h);
		}
		printf("%d descriptors before, %d after; %d threads before, %d after\n", before,
		       count_fds(), threads, count_threads());
		return count_fds() != before || count_threads() != threads;
	}
	if (!strcmp(mode, "percent")) {	/* a line, a child's line, a line */
		rdma_seterrno(1);
		return fork_line();
	}
	if (!strcmp(mode, "stopped") || !strcmp(mode, "renamed")) {
		char name[64];

		rdma_seterrno(1);
		usleep(150000);		/* in the file (the writer thread's turn) */
		snprintf(name, sizeof(name), "t.%d", (int)getpid());
		if (!strcmp(mode, "stopped")) {
			unlink(name);
			rdma_seterrno(1);
			usleep(150000);	/* the write-out finds it deleted: stopped */
		} else if (rename("t.log", "t.old"))
			return 6;
		return fork_line();
	}
	if (!strcmp(mode, "fixed")) {	/* 7: the child made a file */
		char path[4200];
		pid_t pid;
		int st;

		snprintf(path, sizeof(path), "%s/rdmaverbs", getenv("XDG_RUNTIME_DIR"));
		rdma_seterrno(0);
		if (chmod(path, 0700))
			return 6;
		pid = fork();
		if (pid == 0) {
			rdma_seterrno(0);
			exit(count_in(path) ? 7 : 0);
		}
		waitpid(pid, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 8;
	}
	if (!strcmp(mode, "nostdin")) {	/* percent's calls on descriptor 0; 5 without a counters file */
		char maps[65536], mine[64];
		int rc, fd;
		ssize_t n;

		rdma_seterrno(1);
		rc = fork_line();
		fd = open("/proc/self/maps", O_RDONLY);
		n = fd < 0 ? -1 : read(fd, maps, sizeof(maps) - 1);
		maps[n > 0 ? n : 0] = 0;
		snprintf(mine, sizeof(mine), "rdmaverbs/%d\n", (int)getpid());
		if (!strstr(maps, mine)) {
			snprintf(mine, sizeof(mine), "rdmaverbs-%d/%d\n", (int)getuid(), (int)getpid());
			if (!strstr(maps, mine))
				return 5;
		}
		return rc;
	}
	if (!strcmp(mode, "handlers")) {	/* 1 when SIGTERM's action is no longer the default */
		struct sigaction sa;

		rdma_seterrno(0);
		sigaction(SIGTERM, NULL, &sa);
		return sa.sa_handler != SIG_DFL;
	}
	if (!strcmp(mode, "ignored")) {	/* SIGINT ignored since before the load */
		rdma_seterrno(0);
		raise(SIGINT);
		return 0;
	}
	if (!strcmp(mode, "unload")) {	/* handlers taken away at unload, ours only */
		void *h;
		void *p;
		int (*seterrno)(int);

		signal(SIGHUP, on_hup);
		setenv("RDMAVERBS_STATS", "1", 1);
		h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return 10;
		p = dlsym(h, "rdma_seterrno");
		memcpy(&seterrno, &p, sizeof(p));
		seterrno(0);
		dlclose(h);
		raise(SIGHUP);	/* the program's own handler, still */
		raise(SIGTERM);	/* the default again: the process ends by it */
		return 0;
	}
	if (!strcmp(mode, "exec")) {	/* a count, then the same process anew */
		rdma_seterrno(0);
		execl("/proc/self/exe", "hardening", lib, dir, "exec2", (char *)NULL);
		return 127;
	}
	/* every other case: one traced, counted call */
	rdma_seterrno(0);
	return 0;
}

/* ---- the parent ---- */

static char cwd[4096], err[4096];

/* Runs CASE with the environment `env` (NULL-terminated "VAR=value"s), as
 * `uid` unless it is -1; returns its exit status (128 + signal). */
static int run_as(const char *exe, const char *mode, const char *const *env, int uid)
{
	pid_t pid;
	int st;

	snprintf(cwd, sizeof(cwd), "%s/%s", dir, mode);
	snprintf(err, sizeof(err), "%s/%s.err", dir, mode);
	mkdir(cwd, 0777);
	chmod(cwd, 0777);
	pid = fork();
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_APPEND, 0666);

		dup2(fd, 2);
		if (chdir(cwd))
			_exit(126);
		unsetenv("RDMAVERBS_TRACE");
		unsetenv("RDMAVERBS_STATS");
		unsetenv("RDMAVERBS_POLL_SPIN");
		while (env && *env)
			putenv((char *)*env++);
		if (!strcmp(mode, "nofile") || !strcmp(mode, "nostdin")) {
			/* fewer descriptors than the trace's high one */
			struct rlimit r = { 32, 32 };

			setrlimit(RLIMIT_NOFILE, &r);
		}
		if (!strcmp(mode, "nostdin"))
			close(0);
		default_signals();
		if (!strcmp(mode, "ignored"))
			signal(SIGINT, SIG_IGN);
		alarm(20);	/* a load that blocks fails the case */
		if (uid >= 0 && (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(125);
		execl(exe, exe, lib, dir, mode, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int run(const char *mode, const char *const *env)
{
	return run_as(self, mode, env, -1);
}

/* The case's stderr, whole. */
static const char *err_text(void)
{
	static char text[65536];
	FILE *f = fopen(err, "r");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;

	text[n] = 0;
	if (f)
		fclose(f);
	return text;
}

static int lines_with(const char *needle)
{
	const char *t = err_text();
	int n = 0;

	while ((t = strstr(t, needle))) {
		n++;
		t += strlen(needle);
	}
	return n;
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

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

static void setuid_case(void)
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
		unlink(err);
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

/* The counters' file (RDMAVERBS_STATS=1): its directory under
 * XDG_RUNTIME_DIR is refused when it is a symbolic link (to a directory of
 * the attacker's choosing: nothing is made there), open to others, or a
 * file; the program counts all the same and prints its table, with one
 * warning. */
static void stats_dir_cases(void)
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

int main(int argc, char **argv)
{
	static const char *bad[] = { "yes", "2", "-1", " 1" };
	char exe[4096], path[4200], env1[4300];
	const char *env[3] = { env1, NULL, NULL };
	struct stat st;
	ssize_t n;
	size_t i;
	int rc, fifo_reader;

	if (argc == 4) {
		dir = argv[2];
		return child(argv[1], argv[3]);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s LIBRDMAVERBS_SO DIR\n", argv[0]);
		return 2;
	}
	lib = argv[1];
	dir = argv[2];
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	self = exe;

	setuid_case();
	stats_dir_cases();

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

	snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=./t.%%p");
	{
		/* after the trace stopped (its file deleted), a forked child
		 * makes no file of its own; without %p, after a rename, the
		 * child writes to its parent's file, under its new name */
		static const char *const pct[] = { "RDMAVERBS_TRACE=./t.%p", NULL };
		static const char *const log[] = { "RDMAVERBS_TRACE=./t.log", NULL };
		char cmd[4400];
		int files;

		rc = run("stopped", pct);
		snprintf(path, sizeof(path), "%s/stopped", dir);
		files = count_in(path);
		if (rc || files || lines_with("the trace file was deleted") != 1 ||
		    lines_with("rdmaverbs") != 1)
			FAIL("stopped: exit %d, %d files (want 0), stderr: %s", rc, files, err_text());
		else
			OK("stopped: the trace stopped (its file deleted), then a fork: the child made "
			   "no file of its own");
		rc = run("renamed", log);
		snprintf(cmd, sizeof(cmd),
			 "cd %s/renamed && test ! -e t.log && test $(grep -c ' arg=1 ret=' t.old) = 1 && "
			 "test $(grep -c ' arg=2 ret=' t.old) = 1 && "
			 "test $(grep -c ' arg=3 ret=' t.old) = 1", dir);
		files = system(cmd);
		if (rc || files || err_text()[0])
			FAIL("renamed: exit %d, files %s, stderr: %s", rc, files ? "not as expected" : "ok",
			     err_text());
		else
			OK("renamed: t.log renamed to t.old, then a fork: the child's line in t.old with "
			   "its parent's, no new t.log");
	}
	rc = run("percent", env);
	{
		/* t.PARENT with 2 lines, t.CHILD with 1, each line of its own pid */
		char pdir[2048], line[600], lead[64];
		DIR *d;
		struct dirent *e;
		int files = 0, lines[2] = { 0, 0 }, wrong = 0, mode_ok = 1;

		snprintf(pdir, sizeof(pdir), "%s/percent", dir);
		d = opendir(pdir);
		while (d && (e = readdir(d))) {
			FILE *f;
			int n = 0;

			if (e->d_name[0] == '.')
				continue;
			files++;
			snprintf(path, sizeof(path), "%s/%s", pdir, e->d_name);
			if (strncmp(e->d_name, "t.", 2) || stat(path, &st) ||
			    (st.st_mode & 0777) != 0600)
				mode_ok = 0;
			snprintf(lead, sizeof(lead), "rdmaverbs[%d]: rdma_seterrno ", atoi(e->d_name + 2));
			f = fopen(path, "r");
			while (f && fgets(line, sizeof(line), f)) {
				n++;
				wrong += strncmp(line, lead, strlen(lead)) != 0;
			}
			if (f)
				fclose(f);
			if (n == 1 || n == 2)
				lines[n - 1]++;
		}
		if (d)
			closedir(d);
		if (rc || files != 2 || lines[0] != 1 || lines[1] != 1 || wrong || !mode_ok)
			FAIL("percent: exit %d, %d files (%d of 1 line, %d of 2), %d lines of another pid, "
			     "modes %s", rc, files, lines[0], lines[1], wrong, mode_ok ? "0600" : "wrong");
		else
			OK("percent: ./t.%%p made a file per process, mode 0600: the parent's 2 lines, "
			   "its forked child's 1, each in its own");
	}

	snprintf(path, sizeof(path), "%s/symlink", dir);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/symlink/target", dir);
	close(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	snprintf(path, sizeof(path), "%s/symlink/link", dir);
	symlink("target", path);
	snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=%s", path);
	rc = run("symlink", env);
	snprintf(path, sizeof(path), "%s/symlink/target", dir);
	if (rc || stat(path, &st) || st.st_size != 0 || !lines_with("a symbolic link"))
		FAIL("symlink: exit %d, target has %ld bytes, stderr: %s", rc, (long)st.st_size,
		     err_text());
	else
		OK("symlink: a trace path that is a symbolic link is refused, its target untouched");

	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/fifo/pipe", dir);
	mkfifo(path, 0666);
	snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=%s", path);
	rc = run("fifo", env);
	if (rc || !lines_with("a FIFO with no reader"))
		FAIL("fifo: exit %d (142: it blocked), stderr: %s", rc, err_text());
	fifo_reader = open(path, O_RDONLY | O_NONBLOCK);
	rc = run("fifo", env);
	close(fifo_reader);
	if (rc || lines_with("not a regular file") != 1)
		FAIL("fifo with a reader: exit %d, stderr: %s", rc, err_text());
	snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=/dev/null");
	rc = run("fifo", env);
	if (rc || lines_with("not a regular file") != 2)
		FAIL("/dev/null: exit %d, stderr: %s", rc, err_text());
	else
		OK("fifo: a FIFO without a reader is refused at once, with one and /dev/null are "
		   "not regular files");

	snprintf(env1, sizeof(env1), "RDMAVERBS_TRACE=./trace");
	rc = run("reused", env);
	{
		char data[4096] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/reused/data", dir);
		f = fopen(path, "r");
		if (f) {
			data[fread(data, 1, sizeof(data) - 1, f)] = 0;
			fclose(f);
		}
		if (rc || strstr(data, "rdmaverbs") || lines_with("is no longer the trace file") != 1)
			FAIL("reused: exit %d, the program's file holds '%s', stderr: %s", rc, data,
			     err_text());
		else
			OK("reused: no trace line in the program's own file; one warning");
	}

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

	printf("hardening: %d passed, %d failed\n", passed, failures);
	return failures != 0;
}
