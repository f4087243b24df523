/*
 * The scaffolding the observer's test programs share (scaffold.h): starting
 * and ending a program, running its child, reading its files back, the
 * clock and the t= of a trace line, the exit table's columns.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "scaffold.h"

const char *test_name = "observer";
int failures, passed;
char self[4096], dir[4096];
char got[10000][LINE], want[1000][LINE];

int start_program(const char *name, int argc, char **argv,
		  int (*child)(const char *, const char *), int extra, const char *usage)
{
	test_name = name;
	if (argc == 4 && !strcmp(argv[1], "child"))
		return child(argv[2], argv[3]);
	if (argc < 2 || argc > 2 + extra) {
		fprintf(stderr, "usage: %s %s\n", argv[0], usage);
		return 2;
	}
	if (!realpath("/proc/self/exe", self) || !realpath(argv[1], dir)) {
		char what[64];

		snprintf(what, sizeof(what), "%s: realpath", name);
		perror(what);
		return 2;
	}
	return -1;
}

int end_program(void)
{
	printf("%s: %s\n", test_name, failures ? "FAILED" : "all checks passed");
	return failures != 0;
}

pid_t spawn_child(const char *errpath, const char *const *env, int in, int out,
		  void (*before)(void), const char *a, const char *b)
{
	pid_t pid = fork();

	if (pid == 0) {
		unsetenv("RDMAVERBS_TRACE");
		unsetenv("RDMAVERBS_STATS");
		unsetenv("RDMAVERBS_POLL_SPIN");
		for (; env && *env; env++)
			putenv((char *)*env);
		if (in != -1)
			dup2(in, 0);
		if (out != -1)
			dup2(out, 1);
		if (!freopen(errpath, "w", stderr))
			_exit(126);
		default_signals();
		if (before)
			before();
		execl(self, self, "child", a, b, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int wait_child(pid_t pid)
{
	int st;

	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void expect_line(FILE *f, const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "rdmaverbs[%d]: %s", (int)gettid(), name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

FILE *create_in(const char *dir, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

int padding(const char *line)
{
	return line[strspn(line, " ")] == '\n' || line[strspn(line, " ")] == 0;
}

int lines(const char *name, char out[][LINE], int max)
{
	char path[4200];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fgets(out[n], LINE, f)) {
		if (padding(out[n]))
			continue;
		out[n][strcspn(out[n], "\n")] = 0;
		n++;
	}
	fclose(f);
	return n;
}

double monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int take_time(char *line, double *last, double from, double to)
{
	char *colon = strchr(line, ':'), *t = strstr(line, " t="), *end;
	double v;

	if (strncmp(line, "rdmaverbs[", 10) || !colon || !t || t < colon ||
	    strchr(colon + 2, ' ') != t)
		return 0;
	v = strtod(t + 3, &end);
	if (!strchr(t, '.') || end - strchr(t, '.') != 10 || (*end != ' ' && *end != 0) ||
	    v < *last || v < from - 1e-6 || v > to + 1e-6)
		return 0;
	*last = v;
	while (end[0] == ' ' && end[1] == ' ')
		end++;
	memmove(t, end, strlen(end) + 1);
	return 1;
}

/* A row of the table: a function's (rdma_*, ibv_*, __*) or the header. */
static int is_row(const char *l, int header)
{
	return !strncmp(l, "rdmaverbs: ibv_", 15) || !strncmp(l, "rdmaverbs: __", 13) ||
	       !strncmp(l, "rdmaverbs: rdma_", 16) ||
	       (header && !strncmp(l, "rdmaverbs: function ", 20));
}

void check_columns(const char *what, char l[][LINE], int n)
{
	const size_t pre = strlen("rdmaverbs: ");
	size_t w = 20, len, end;
	int i;

	for (i = 0; i < n; i++)
		if (is_row(l[i], 0) && (len = strcspn(l[i] + pre, " ")) + 1 > w)
			w = len + 1;
	end = pre + w + 13;
	for (i = 0; i < n; i++) {
		if (!is_row(l[i], 1))
			continue;
		len = strcspn(l[i] + pre, " ");
		if (strlen(l[i]) <= end || l[i][end] != ' ' || l[i][end - 1] == ' ' ||
		    strspn(l[i] + pre + len, " ") < w - len)
			FAIL("%s: the exit table's columns: \"%s\" (names %zu wide, calls ending at %zu)",
			     what, l[i], w, end);
	}
}
