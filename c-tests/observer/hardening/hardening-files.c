/*
 * Hardening of the trace file itself: deleted (the trace stopped) or
 * renamed before a fork, a file per process (./t.%p, mode 0600), a
 * symbolic link, a FIFO and /dev/null refused, and a program that reuses
 * the trace's descriptor numbers for its own file.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hardening.h"

void file_cases(void)
{
	char path[4500], env1[4600];
	const char *env[3] = { env1, NULL, NULL };
	struct stat st;
	int rc, fifo_reader;

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
		char pdir[4200], line[600], lead[64];
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
}
