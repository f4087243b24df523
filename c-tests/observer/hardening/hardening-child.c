/*
 * The hardening child ("hardening LIB DIR CASE", in DIR/CASE/): each
 * case's calls of the library, with the trace or the counters set by the
 * parent, and what it finds itself (descriptors and threads left, files
 * made, signal actions) in its exit status or on its stdout.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include "hardening.h"

static int count_fds(void)
{
	return count_in("/proc/self/fd") - 1;	/* the directory's own */
}

static int count_threads(void)
{
	return count_in("/proc/self/task");
}

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

int child(const char *lib, const char *mode)
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
