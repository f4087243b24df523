/* The traced child run again and its files read (traced-run.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "traced-run.h"

void traced_self(char *self, size_t size)
{
	ssize_t len = readlink("/proc/self/exe", self, size - 1);

	self[len > 0 ? len : 0] = 0;
}

int traced_run(const char *self, const char *preload, const char *err, const char *trace,
	       int no_spin, const char *arg1, const char *dir, const char *mode)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		setenv("LD_PRELOAD", preload, 1);
		setenv("RDMAVERBS_TRACE", trace, 1);
		setenv("RDMAVERBS_STATS", "1", 1);
		if (no_spin)
			unsetenv("RDMAVERBS_POLL_SPIN");
		default_signals();
		execl(self, self, arg1, dir, mode, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int traced_lines(const char *dir, const char *name, const char *prefix, char out[][400], int max)
{
	char path[4200], line[400];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	while (f && n < max && fgets(line, sizeof(line), f)) {
		char *t = strstr(line, " t="), *e;

		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (t) {
			e = t + 3 + strspn(t + 3, "0123456789.");
			e += strspn(e, " ");
			memmove(t + 1, e, strlen(e) + 1);
			if (t[1] == 0)
				t[0] = 0;
		}
		snprintf(out[n++], 400, "%s", line);
	}
	if (f)
		fclose(f);
	return n;
}

unsigned long p2u(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}
