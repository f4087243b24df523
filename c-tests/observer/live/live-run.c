/*
 * The live parent's way of running a child: "self child MODE FILE" traced
 * to FILE, its stderr in FILE.err, its stdout read line by line; waited
 * for; its warnings counted.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"

char out[4200];
pid_t pid;
FILE *from_child;

void start(const char *mode, const char *file, void (*before)(void))
{
	char env[4300], err[4300];
	const char *envs[] = { env, NULL };
	int p[2];

	snprintf(env, sizeof(env), "RDMAVERBS_TRACE=%s", file);
	snprintf(err, sizeof(err), "%s.err", file);
	unlink(file);
	if (pipe2(p, O_CLOEXEC))	/* the child keeps only its stdout end */
		abort();
	pid = spawn_child(err, envs, -1, p[1], before, mode, file);
	close(p[1]);
	from_child = fdopen(p[0], "r");
}

int finish(void)
{
	fclose(from_child);
	return wait_child(pid);
}

int warnings(const char *file, const char *what, int *total)
{
	char path[4300], line[1024];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s.err", file);
	*total = 0;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		++*total;
		n += strstr(line, what) != NULL;
	}
	if (f)
		fclose(f);
	return n;
}

int run(const char *mode, char *line, size_t size)
{
	snprintf(out, sizeof(out), "%s/%s.log", dir, mode);
	start(mode, out, NULL);
	if (!fgets(line, (int)size, from_child))
		line[0] = 0;
	return finish();
}
