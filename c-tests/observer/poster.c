/*
 * A program for the commands' tests (commands.sh), built against our
 * header, on the fake provider: N rdma_post_send calls of 8 bytes, SLEEP_MS
 * apart, then exit status 3, or death by signal SIG.
 *
 * Usage: poster N [SLEEP_MS [SIG]]
 *        poster fork N     N posts, and a forked child's N more
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include "fake.h"

static struct fake F;

static int nop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp; (void)wr; (void)bad;
	return 0;
}

static void post(long n, long sleep_ms)
{
	char buf[8];
	long i;

	for (i = 0; i < n; i++) {
		rdma_post_send(&F.id, (void *)(uintptr_t)(i + 1), buf, sizeof(buf), NULL,
			       IBV_SEND_INLINE);
		if (sleep_ms)
			usleep(sleep_ms * 1000);
	}
}

int main(int argc, char **argv)
{
	int st;
	pid_t pid;

	fake_init(&F);
	F.ctx.ops.post_send = nop_post_send;
	if (argc == 3 && !strcmp(argv[1], "fork")) {
		post(atol(argv[2]), 0);
		pid = fork();
		if (pid == 0) {
			post(atol(argv[2]), 0);
			exit(0);
		}
		waitpid(pid, &st, 0);
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 3 : 1;
	}
	if (argc == 4 && !strcmp(argv[1], "idlefork")) {	/* a child that counts nothing */
		post(atol(argv[2]), 0);
		pid = fork();
		if (pid == 0)
			exit(0);
		waitpid(pid, &st, 0);
		usleep(atol(argv[3]) * 1000);
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 3 : 1;
	}
	if (argc == 4 && !strcmp(argv[1], "comp")) {	/* a completion, then the posts */
		struct fake_script s = { .npoll = 1, .poll_ret = { 1 } };
		struct ibv_wc wc;

		fake_reset(&F, &s);
		if (rdma_get_send_comp(&F.id, &wc) != 1)
			return 1;
		post(atol(argv[2]), atol(argv[3]));
		return 3;
	}
	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: poster N [SLEEP_MS [SIG]] | poster fork N | poster comp N "
			"SLEEP_MS | poster idlefork N SLEEP_MS\n");
		return 2;
	}
	post(atol(argv[1]), argc > 2 ? atol(argv[2]) : 0);
	if (argc > 3) {
		signal(atoi(argv[3]), SIG_DFL);	/* whatever its starter left */
		raise(atoi(argv[3]));
	}
	return 3;
}
