/*
 * The USDT probes' arguments, on the fake provider, without a tracer: a
 * library built with the cargo feature c-tests (make mutants) writes each
 * firing, "NAME a0 a1 a2 a3 a4 a5", to the descriptor RDMAVERBS_TEST_PROBES
 * names, attached at load as a tracer attaches (rdmaverbs(7) lists the
 * arguments). Every kind of call, each argument checked.
 *
 * Usage: probes FILE [--must]
 * (re-executes itself with RDMAVERBS_TEST_PROBES=9, descriptor 9 on FILE).
 * A library built without the feature writes nothing: skipped, unless
 * --must (make test-mutant, where the library is built with it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include "fake.h"

static struct fake F;
static int failures, checked;
static FILE *records;

/* The next record is f with these arguments. */
static void expect(const char *what, const char *f, long a0, long a1, long a2, long a3, long a4,
		   long a5)
{
	char line[512], name[64];
	long a[6];

	checked++;
	if (!fgets(line, sizeof(line), records) ||
	    sscanf(line, "%63s %ld %ld %ld %ld %ld %ld", name, &a[0], &a[1], &a[2], &a[3], &a[4],
		   &a[5]) != 7) {
		printf("probes: FAIL: %s: no record\n", what);
		failures++;
		return;
	}
	if (strcmp(name, f) || a[0] != a0 || a[1] != a1 || a[2] != a2 || a[3] != a3 ||
	    a[4] != a4 || a[5] != a5) {
		printf("probes: FAIL: %s: got %s %ld %ld %ld %ld %ld %ld, want %s %ld %ld %ld %ld %ld "
		       "%ld\n", what, name, a[0], a[1], a[2], a[3], a[4], a[5], f, a0, a1, a2, a3, a4,
		       a5);
		failures++;
	}
}

#define L(p) ((long)(intptr_t)(p))

int main(int argc, char **argv)
{
	struct ibv_wc wc;
	struct ibv_sge sgl[3] = { { 0, 1, 0 }, { 0, 2, 0 }, { 0, 3, 0 } };
	struct fake_script s = { 0 };
	char buf[64], line[64];
	struct sockaddr *(*local)(struct rdma_cm_id *);
	void *sym;
	long id;
	int must = argc == 3 && !strcmp(argv[2], "--must");

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s FILE [--must]\n", argv[0]);
		return 2;
	}
	if (!getenv("RDMAVERBS_TEST_PROBES")) {
		int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 9) < 0) {
			perror("probes: open");
			return 2;
		}
		setenv("RDMAVERBS_TEST_PROBES", "9", 1);
		execv("/proc/self/exe", argv);
		perror("probes: exec");
		return 2;
	}
	fake_init(&F);
	F.mr.addr = buf;	/* a receive's buffer must be in its MR */
	F.mr.length = sizeof(buf);
	id = L(&F.id);

	fake_reset(&F, &s);
	rdma_post_send(&F.id, (void *)0x11, buf, 8, &F.mr, IBV_SEND_SIGNALED);
	rdma_post_recv(&F.id, (void *)0x12, buf, 16, &F.mr);
	rdma_post_read(&F.id, (void *)0x13, buf, 32, &F.mr, 0, 0x1000, 7);
	rdma_post_write(&F.id, (void *)0x14, buf, 24, &F.mr, 0, 0x2000, 8);
	rdma_post_sendv(&F.id, (void *)0x15, sgl, 3, 0);
	rdma_post_ud_send(&F.id, (void *)0x16, buf, 4, &F.mr, 0, (struct ibv_ah *)&F, 9);
	s.post_ret = ENOMEM;
	fake_reset(&F, &s);
	rdma_post_send(&F.id, (void *)0x17, buf, 8, &F.mr, 0);

	memset(&s, 0, sizeof(s));
	s.npoll = 1;
	s.poll_ret[0] = 1;
	s.wc.wr_id = 0x21;
	s.wc.status = IBV_WC_SUCCESS;
	s.wc.opcode = IBV_WC_RDMA_READ;
	s.wc.byte_len = 40;
	fake_reset(&F, &s);
	rdma_get_send_comp(&F.id, &wc);
	s.wc.wr_id = 0x22;
	s.wc.status = IBV_WC_REM_ACCESS_ERR;
	s.wc.opcode = IBV_WC_RECV;
	s.wc.byte_len = 77;
	fake_reset(&F, &s);
	rdma_get_recv_comp(&F.id, &wc);
	s.poll_ret[0] = -7;
	fake_reset(&F, &s);
	rdma_get_recv_comp(&F.id, &wc);

	memset(&s, 0, sizeof(s));
	s.reg_ret = &F.mr;
	fake_reset(&F, &s);
	rdma_reg_msgs(&F.id, buf, 64);
	s.reg_ret = NULL;
	s.reg_errno = ENOMEM;
	fake_reset(&F, &s);
	rdma_reg_msgs(&F.id, buf, 64);
	s.dereg_ret = 0;
	fake_reset(&F, &s);
	rdma_dereg_mr(&F.mr);
	rdma_seterrno(5);
	sym = dlvsym(RTLD_DEFAULT, "rdma_get_local_addr", "RDMAVERBS_1.2");
	memcpy(&local, &sym, sizeof(sym));
	if (local) {
		local(&F.id);
		local(NULL);
	}

	records = fdopen(9, "r");
	if (!records || fseek(records, 0, SEEK_SET)) {
		perror("probes: the records");
		return 2;
	}
	if (!fgets(line, sizeof(line), records)) {
		if (must) {
			printf("probes: FAIL: no probe fired (a library built with the feature c-tests "
			       "records them)\n");
			return 1;
		}
		printf("probes: skipped (the library is not built with the cargo feature c-tests; "
		       "make mutants builds it so)\n");
		return 0;
	}
	rewind(records);
	/* posts: id, wr_id, IBV_WR_* opcode (-1 receive), SGEs, bytes, result */
	expect("send", "rdma_post_send", id, 0x11, IBV_WR_SEND, 1, 8, 0);
	expect("recv", "rdma_post_recv", id, 0x12, -1, 1, 16, 0);
	expect("read", "rdma_post_read", id, 0x13, IBV_WR_RDMA_READ, 1, 32, 0);
	expect("write", "rdma_post_write", id, 0x14, IBV_WR_RDMA_WRITE, 1, 24, 0);
	expect("sendv", "rdma_post_sendv", id, 0x15, IBV_WR_SEND, 3, 6, 0);
	expect("ud send", "rdma_post_ud_send", id, 0x16, IBV_WR_SEND, 1, 4, 0);
	expect("failed send", "rdma_post_send", id, 0x17, IBV_WR_SEND, 1, 0, -1);
	/* completions: id, wr_id, status, IBV_WC_* opcode (-1 in error), bytes, result */
	expect("completion", "rdma_get_send_comp", id, 0x21, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 40,
	       1);
	expect("completion in error", "rdma_get_recv_comp", id, 0x22, IBV_WC_REM_ACCESS_ERR, -1, 0,
	       1);
	expect("failed poll", "rdma_get_recv_comp", id, 0, 0, 0, 0, -1);
	/* registration: id, address, length, MR (0 failed), 0, result */
	expect("reg", "rdma_reg_msgs", id, L(buf), 64, L(&F.mr), 0, 0);
	expect("failed reg", "rdma_reg_msgs", id, L(buf), 64, 0, 0, -1);
	expect("dereg", "rdma_dereg_mr", L(&F.mr), 0, 0, 0, 0, 0);
	expect("seterrno", "rdma_seterrno", 5, 0, 0, 0, 0, -1);
	if (local) {
		expect("local addr", "rdma_get_local_addr", id, L(&F.id.route.addr.src_addr), 0, 0, 0,
		       0);
		expect("local addr of NULL", "rdma_get_local_addr", 0, 0, 0, 0, 0, -1);
	}
	if (fgets(line, sizeof(line), records)) {
		printf("probes: FAIL: a firing more: %s", line);
		failures++;
	}
	printf("probes: %d firings checked, argument by argument: %s\n", checked,
	       failures ? "FAILED" : "all passed");
	return failures != 0;
}
