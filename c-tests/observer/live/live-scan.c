/*
 * What the live tests read of a child: its trace file (every line whole,
 * the t= of each thread in order, the lines of a wr_id or a thread) and
 * its writer thread in /proc (its policy, CPU time and wake-ups).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

void scan(const char *path, struct scan *s)
{
	static struct { int tid; double t; } last[64];
	char *line = NULL;
	size_t room = 0;
	ssize_t n;
	int nlast = 0, c = '\n', i;
	FILE *f = fopen(path, "r");

	memset(s, 0, sizeof(*s));
	s->in_order = 1;
	s->first = 1e300;
	while (f && (n = getline(&line, &room, f)) > 0) {
		char *t = strstr(line, " t="), *w = strstr(line, " wr_id=");
		unsigned long id = 0;
		int tid = 0;
		double v = 0;

		s->bytes += (long)n;
		c = line[n - 1];
		if (memchr(line, 0, (size_t)n)) {	/* a hole: bytes never written */
			s->lines++;
			s->bad++;
			continue;
		}
		if (!line[strspn(line, " \n")]) {
			s->padding++;
			continue;
		}
		s->lines++;
		if (sscanf(line, "rdmaverbs[%d]: rdma_post_send ", &tid) != 1 || !t || !w ||
		    sscanf(t, " t=%lf", &v) != 1 || sscanf(w, " wr_id=%lx", &id) != 1 ||
		    id < 1 || id > 3 || c != '\n' || !strstr(line, " ret=0\n")) {
			s->bad++;
			continue;
		}
		s->per[id]++;
		s->first = v < s->first ? v : s->first;
		s->last = v > s->last ? v : s->last;
		for (i = 0; i < nlast && last[i].tid != tid; i++)
			;
		if (i == nlast && nlast < 64)
			last[nlast++].tid = tid;
		if (i < 64) {
			s->in_order &= v >= last[i].t;
			last[i].t = v;
		}
	}
	s->ends_whole = c == '\n';
	free(line);
	if (f)
		fclose(f);
}

const char *first_id(const char *path)
{
	static char id[8];
	char line[1024], *w;
	FILE *f = fopen(path, "r");

	strcpy(id, "none");
	while (f && fgets(line, sizeof(line), f))
		if ((w = strstr(line, " wr_id=0x")) != NULL) {
			snprintf(id, sizeof(id), "%c", w[9]);
			break;
		}
	if (f)
		fclose(f);
	return id;
}

int lines_of(const char *path, int tid, int id)
{
	char line[1024], head[32], want[32];
	FILE *f = fopen(path, "r");
	int n = 0;

	snprintf(head, sizeof(head), "rdmaverbs[%d]: ", tid);
	snprintf(want, sizeof(want), " wr_id=0x%x ", id);
	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, head, strlen(head)) && strstr(line, want);
	if (f)
		fclose(f);
	return n;
}

struct seen thread_seen(pid_t p, const char *name)
{
	char path[300], comm[64], stat[1024];
	struct seen seen = { -1, 0, 0 };
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)p, e->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name))) {
			FILE *s;
			char *c, *tok;
			int field = 2;

			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)p, e->d_name);
			s = fopen(path, "r");
			if (s && fgets(stat, sizeof(stat), s) && (c = strrchr(stat, ')')))
				for (tok = strtok(c + 1, " "); tok; tok = strtok(NULL, " ")) {
					if (++field == 41)
						seen.policy = atoi(tok);
					if (field == 14 || field == 15)
						seen.ticks += atol(tok);
				}
			if (s)
				fclose(s);
			snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)p, e->d_name);
			s = fopen(path, "r");
			while (s && fgets(stat, sizeof(stat), s))
				sscanf(stat, "voluntary_ctxt_switches: %ld", &seen.wakeups);
			if (s)
				fclose(s);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return seen;
}
