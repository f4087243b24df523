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
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_verbs.h>
#include "fake.h"
#include "probe-records.h"

static struct fake F;

int main(int argc, char **argv)
{
	struct ibv_wc wc;
	struct ibv_sge sgl[3] = { { 0, 1, 0 }, { 0, 2, 0 }, { 0, 3, 0 } };
	struct fake_script s = { 0 };
	char buf[64];
	struct sockaddr *(*local)(struct rdma_cm_id *);
	void *sym;
	long id;
	int ret, must = argc == 3 && !strcmp(argv[2], "--must");

	if ((ret = probes_start("probes", argc, argv)) != -1)
		return ret;
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

	if ((ret = probes_records(must)) != -1)
		return ret;
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
	return probes_end("firings");
}
