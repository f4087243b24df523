/*
 * Running a hardening case and reading what it left: the child's
 * environment, limits, working directory (DIR/CASE) and user set before
 * its exec, its stderr (DIR/CASE.err) read back, files and directory
 * entries counted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "hardening.h"

char err_path[8400];
static char cwd[8400];

int count_in(const char *path)
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

int run_as(const char *exe, const char *mode, const char *const *env, int uid)
{
	pid_t pid;
	int st;

	snprintf(cwd, sizeof(cwd), "%s/%s", dir, mode);
	snprintf(err_path, sizeof(err_path), "%s/%s.err", dir, mode);
	mkdir(cwd, 0777);
	chmod(cwd, 0777);
	pid = fork();
	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_APPEND, 0666);

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

int run(const char *mode, const char *const *env)
{
	return run_as(self, mode, env, -1);
}

/* The case's stderr, whole. */
const char *err_text(void)
{
	static char text[65536];
	FILE *f = fopen(err_path, "r");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;

	text[n] = 0;
	if (f)
		fclose(f);
	return text;
}

int lines_with(const char *needle)
{
	const char *t = err_text();
	int n = 0;

	while ((t = strstr(t, needle))) {
		n++;
		t += strlen(needle);
	}
	return n;
}

int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}
