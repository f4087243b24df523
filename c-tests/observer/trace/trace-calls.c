/*
 * The trace child's calls (mode "calls"): every function of rdma_verbs.h
 * and the later nodes on the fake provider, successful and failing, each
 * with the line it should trace and the count it should add (trace.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"
#include "ours.h"

static void seterrno_calls(void)
{
	int in[] = { 0, EIO, -5 };
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		int ret = rdma_seterrno(in[i]), err = errno;

		expect(F_rdma_seterrno, " arg=%d%s", in[i], retf(ret, err));
		count(F_rdma_seterrno, ret < 0, 0);
	}
}

static void reg_calls(void)
{
	static char buf[256];
	struct fake_script s = { .reg_ret = &F.mr };
	struct ibv_mr *(*fn[3])(struct rdma_cm_id *, void *, size_t) = {
		rdma_reg_msgs, rdma_reg_read, rdma_reg_write };
	struct ibv_mr *mr;
	int i, ret, err;

	for (i = 0; i < 3; i++) {
		fake_reset(&F, &s);
		mr = fn[i](&F.id, buf, sizeof(buf));
		expect(F_rdma_reg_msgs + i, "%s addr=%#lx length=%zu ret=%#lx lkey=%#x rkey=%#x",
		       idf(&F.id), p2u(buf), sizeof(buf), p2u(mr), mr->lkey, mr->rkey);
		count(F_rdma_reg_msgs + i, 0, sizeof(buf));
	}
	s.reg_ret = NULL;		/* the provider refuses */
	s.reg_errno = ENOMEM;
	fake_reset(&F, &s);
	mr = rdma_reg_msgs(&F.id, buf, 8);
	err = errno;
	expect(F_rdma_reg_msgs, "%s addr=%#lx length=8 ret=NULL errno=%d", idf(&F.id), p2u(buf), err);
	count(F_rdma_reg_msgs, mr == NULL, 0);
	mr = rdma_reg_write(NULL, buf, 8);	/* input error */
	err = errno;
	expect(F_rdma_reg_write, " id=0x0 addr=%#lx length=8 ret=NULL errno=%d", p2u(buf), err);
	count(F_rdma_reg_write, mr == NULL, 0);

	ret = rdma_dereg_mr(&F.mr);
	err = errno;
	expect(F_rdma_dereg_mr, " mr=%#lx%s", p2u(&F.mr), retf(ret, err));
	count(F_rdma_dereg_mr, ret < 0, 0);
	ret = rdma_dereg_mr(NULL);
	err = errno;
	expect(F_rdma_dereg_mr, " mr=0x0%s", retf(ret, err));
	count(F_rdma_dereg_mr, ret < 0, 0);
}

/* The address functions (RDMAVERBS_1.2), by name: the pointer into the id,
 * or NULL and EINVAL for a NULL id. */
static void addr_calls(void)
{
	struct sockaddr *a;
	int err;

	a = ours_rdma_get_local_addr()(&F.id);
	expect(F_rdma_get_local_addr, "%s ret=%#lx", idf(&F.id), p2u(a));
	count(F_rdma_get_local_addr, a == NULL, 0);
	a = ours_rdma_get_peer_addr()(&F.id);
	expect(F_rdma_get_peer_addr, "%s ret=%#lx", idf(&F.id), p2u(a));
	count(F_rdma_get_peer_addr, a == NULL, 0);
	a = ours_rdma_get_peer_addr()(NULL);
	err = errno;
	expect(F_rdma_get_peer_addr, " id=0x0 ret=NULL errno=%d", err);
	count(F_rdma_get_peer_addr, a == NULL, 0);
}

static void post_calls(void)
{
	static char a[10], b[20], c[30];
	struct ibv_sge sgl[3] = {
		{ (uintptr_t)a, sizeof(a), 1 }, { (uintptr_t)b, sizeof(b), 2 },
		{ (uintptr_t)c, sizeof(c), 3 } };
	struct fake_script ok = { 0 }, refused = { .post_ret = ENOMEM };
	struct ibv_ah *ah = (struct ibv_ah *)&F.pd;	/* any non-NULL pointer */
	void *ctx = (void *)0xc0ffee;
	int ret, err;

	F.mr.addr = a;
	F.mr.length = sizeof(a);
	fake_reset(&F, &ok);

#define POST(fn, call, fmt, ...) do {						\
	ret = call;								\
	err = errno;								\
	expect(fn, "%s wr_id=%#lx " fmt "%s", idf(&F.id), p2u(ctx), __VA_ARGS__, \
	       retf(ret, err));							\
} while (0)

	POST(F_rdma_post_recvv, rdma_post_recvv(&F.id, ctx, sgl, 3), "opcode=RECV nsge=3 bytes=%d", 60);
	count(F_rdma_post_recvv, ret < 0, 60);
	POST(F_rdma_post_sendv, rdma_post_sendv(&F.id, ctx, sgl, 2, IBV_SEND_SIGNALED),
	     "opcode=SEND nsge=2 bytes=%d flags=%#x", 30, IBV_SEND_SIGNALED);
	count(F_rdma_post_sendv, ret < 0, 30);
	POST(F_rdma_post_readv, rdma_post_readv(&F.id, ctx, sgl, 3, 0, 0xabc000, 0x77),
	     "opcode=RDMA_READ nsge=3 bytes=60 flags=0x%x remote_addr=%#x rkey=%#x",
	     0, 0xabc000, 0x77);
	count(F_rdma_post_readv, ret < 0, 60);
	POST(F_rdma_post_writev, rdma_post_writev(&F.id, ctx, sgl + 1, 1, IBV_SEND_FENCE, 0x1000, 0x5),
	     "opcode=RDMA_WRITE nsge=1 bytes=20 flags=%#x remote_addr=%#x rkey=%#x",
	     IBV_SEND_FENCE, 0x1000, 0x5);
	count(F_rdma_post_writev, ret < 0, 20);
	POST(F_rdma_post_recv, rdma_post_recv(&F.id, ctx, a, sizeof(a), &F.mr),
	     "opcode=RECV nsge=1 bytes=%zu", sizeof(a));
	count(F_rdma_post_recv, ret < 0, sizeof(a));
	POST(F_rdma_post_send, rdma_post_send(&F.id, ctx, b, 16, NULL, IBV_SEND_INLINE),
	     "opcode=SEND nsge=1 bytes=16 flags=%#x", IBV_SEND_INLINE);
	count(F_rdma_post_send, ret < 0, 16);
	POST(F_rdma_post_read, rdma_post_read(&F.id, ctx, a, 4, &F.mr, 0, 0xfeed, 0x42),
	     "opcode=RDMA_READ nsge=1 bytes=4 flags=0x%x remote_addr=%#x rkey=%#x",
	     0, 0xfeed, 0x42);
	count(F_rdma_post_read, ret < 0, 4);
	POST(F_rdma_post_write, rdma_post_write(&F.id, ctx, a, 5, &F.mr, IBV_SEND_SIGNALED, 0xbeef, 0x43),
	     "opcode=RDMA_WRITE nsge=1 bytes=5 flags=%#x remote_addr=%#x rkey=%#x",
	     IBV_SEND_SIGNALED, 0xbeef, 0x43);
	count(F_rdma_post_write, ret < 0, 5);
	POST(F_rdma_post_ud_send, rdma_post_ud_send(&F.id, ctx, c, 30, NULL, IBV_SEND_INLINE, ah, 77),
	     "opcode=SEND nsge=1 bytes=30 flags=%#x ah=%#lx remote_qpn=%d",
	     IBV_SEND_INLINE, p2u(ah), 77);
	count(F_rdma_post_ud_send, ret < 0, 30);

	/* Failures: the provider's error, and input errors (no bytes shown). */
	fake_reset(&F, &refused);
	POST(F_rdma_post_send, rdma_post_send(&F.id, ctx, b, 16, NULL, 0), "opcode=SEND nsge=1 flags=0x%x", 0);
	count(F_rdma_post_send, ret < 0, 0);
	fake_reset(&F, &ok);
	POST(F_rdma_post_sendv, rdma_post_sendv(&F.id, ctx, NULL, 2, 0), "opcode=SEND nsge=2 flags=0x%x", 0);
	count(F_rdma_post_sendv, ret < 0, 0);
	POST(F_rdma_post_recv, rdma_post_recv(&F.id, ctx, b, sizeof(b), &F.mr), "opcode=RECV nsge=%d", 1);
	count(F_rdma_post_recv, ret < 0, 0);	/* b is not inside the MR */
	ret = rdma_post_write(NULL, ctx, a, 1, NULL, 0, 0, 0);
	err = errno;
	expect(F_rdma_post_write, " id=0x0 wr_id=%#lx opcode=RDMA_WRITE nsge=1 flags=0x0 "
	       "remote_addr=0x0 rkey=0x0%s", p2u(ctx), retf(ret, err));
	count(F_rdma_post_write, ret < 0, 0);

	/* An SRQ: the line shows it. */
	F.id.srq = &F.srq;
	POST(F_rdma_post_recvv, rdma_post_recvv(&F.id, ctx, sgl, 1), "opcode=RECV nsge=1 bytes=%d", 10);
	count(F_rdma_post_recvv, ret < 0, 10);
	F.id.srq = NULL;
#undef POST
}

static void comp_calls(void)
{
	struct fake_script ready = { .npoll = 1, .poll_ret = { 1 } };
	struct fake_script wait = { .npoll = 3, .poll_ret = { 0, 0, 1 },
		.nnotify = 1, .nevent = 1 };
	struct fake_script broken = { .npoll = 1, .poll_ret = { -7 } };
	struct ibv_wc wc;
	int ret, err;

	ready.wc.wr_id = 0x1001;
	ready.wc.status = IBV_WC_SUCCESS;
	ready.wc.opcode = IBV_WC_SEND;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp(&F.id, &wc);
	expect(F_rdma_get_send_comp, "%s ret=%d wr_id=0x1001 status=SUCCESS opcode=SEND byte_len=0",
	       idf(&F.id), ret);
	count(F_rdma_get_send_comp, ret < 0, 0);

	wait.wc.wr_id = 0x2002;
	wait.wc.status = IBV_WC_SUCCESS;
	wait.wc.opcode = IBV_WC_RECV;
	wait.wc.byte_len = 100;
	fake_reset(&F, &wait);
	ret = rdma_get_recv_comp(&F.id, &wc);	/* blocks once */
	expect(F_rdma_get_recv_comp, "%s ret=%d wr_id=0x2002 status=SUCCESS opcode=RECV byte_len=100",
	       idf(&F.id), ret);
	count(F_rdma_get_recv_comp, ret < 0, 100);
	counts[F_rdma_get_recv_comp].blocked++;

	ready.wc.status = IBV_WC_REM_ACCESS_ERR;	/* a failed completion */
	ready.wc.opcode = IBV_WC_RDMA_WRITE;
	ready.wc.vendor_err = 42;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp(&F.id, &wc);
	/* in error, a completion's opcode and length are undefined: not shown */
	expect(F_rdma_get_send_comp, "%s ret=%d wr_id=0x1001 status=REM_ACCESS_ERR vendor_err=0x2a",
	       idf(&F.id), ret);
	count(F_rdma_get_send_comp, ret < 0, 0);

	fake_reset(&F, &broken);
	ret = rdma_get_recv_comp(&F.id, &wc);
	err = errno;
	expect(F_rdma_get_recv_comp, "%s%s", idf(&F.id), retf(ret, err));
	count(F_rdma_get_recv_comp, ret < 0, 0);
	ret = rdma_get_send_comp(&F.id, NULL);
	err = errno;
	expect(F_rdma_get_send_comp, "%s%s", idf(&F.id), retf(ret, err));
	count(F_rdma_get_send_comp, ret < 0, 0);

	/* a wait twice over: one call that blocked; an immediate receive's
	 * bytes are received bytes */
	{
		struct fake_script twice = { .npoll = 5, .poll_ret = { 0, 0, 0, 0, 1 },
			.nnotify = 2, .nevent = 2 };

		twice.wc.wr_id = 0x3003;
		twice.wc.status = IBV_WC_SUCCESS;
		twice.wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		twice.wc.byte_len = 300;
		fake_reset(&F, &twice);
		ret = rdma_get_recv_comp(&F.id, &wc);
		expect(F_rdma_get_recv_comp, "%s ret=%d wr_id=0x3003 status=SUCCESS "
		       "opcode=RECV_RDMA_WITH_IMM byte_len=300", idf(&F.id), ret);
		count(F_rdma_get_recv_comp, ret < 0, 300);
		counts[F_rdma_get_recv_comp].blocked++;
	}
	/* no bytes for a receive in error, nor for a read's completion */
	ready.wc.wr_id = 0x4004;
	ready.wc.status = IBV_WC_WR_FLUSH_ERR;
	ready.wc.opcode = IBV_WC_RECV;
	ready.wc.byte_len = 500;
	ready.wc.vendor_err = 7;
	fake_reset(&F, &ready);
	ret = rdma_get_recv_comp(&F.id, &wc);
	expect(F_rdma_get_recv_comp, "%s ret=%d wr_id=0x4004 status=WR_FLUSH_ERR vendor_err=0x7",
	       idf(&F.id), ret);
	count(F_rdma_get_recv_comp, ret < 0, 0);
	ready.wc.wr_id = 0x5005;
	ready.wc.status = IBV_WC_SUCCESS;
	ready.wc.opcode = IBV_WC_RDMA_READ;
	ready.wc.byte_len = 600;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp(&F.id, &wc);
	expect(F_rdma_get_send_comp, "%s ret=%d wr_id=0x5005 status=SUCCESS opcode=RDMA_READ "
	       "byte_len=600", idf(&F.id), ret);
	count(F_rdma_get_send_comp, ret < 0, 0);
	/* each other opcode of a send queue by its name, and one unknown */
	{
		static const struct { enum ibv_wc_opcode op; const char *name; } ops[] = {
			{ IBV_WC_RDMA_WRITE, "RDMA_WRITE" }, { IBV_WC_COMP_SWAP, "COMP_SWAP" },
			{ IBV_WC_FETCH_ADD, "FETCH_ADD" }, { IBV_WC_BIND_MW, "BIND_MW" },
			{ IBV_WC_LOCAL_INV, "LOCAL_INV" }, { (enum ibv_wc_opcode)99, "OTHER" },
		};
		size_t i;

		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			ready.wc.wr_id = 0x6000 + i;
			ready.wc.opcode = ops[i].op;
			ready.wc.byte_len = 8;
			fake_reset(&F, &ready);
			ret = rdma_get_send_comp(&F.id, &wc);
			expect(F_rdma_get_send_comp, "%s ret=%d wr_id=%#zx status=SUCCESS opcode=%s "
			       "byte_len=8", idf(&F.id), ret, 0x6000 + i, ops[i].name);
			count(F_rdma_get_send_comp, ret < 0, 0);
		}
	}
	ready.wc.wr_id = 0x1001;
	ready.wc.byte_len = 0;

	/* the bounded forms: a ready completion, one after a wait, a miss */
	ready.wc.status = IBV_WC_SUCCESS;
	ready.wc.vendor_err = 0;
	ready.wc.opcode = IBV_WC_SEND;
	fake_reset(&F, &ready);
	ret = rdma_get_send_comp_timeout(&F.id, &wc, 1000);
	expect(F_rdma_get_send_comp_timeout, "%s timeout_ms=1000 ret=%d wr_id=0x1001 status=SUCCESS "
	       "opcode=SEND byte_len=0", idf(&F.id), ret);
	count(F_rdma_get_send_comp_timeout, ret < 0, 0);
	fake_reset(&F, &wait);
	ret = rdma_get_recv_comp_timeout(&F.id, &wc, 1000);	/* blocks once */
	expect(F_rdma_get_recv_comp_timeout, "%s timeout_ms=1000 ret=%d wr_id=0x2002 status=SUCCESS "
	       "opcode=RECV byte_len=100", idf(&F.id), ret);
	count(F_rdma_get_recv_comp_timeout, ret < 0, 100);
	counts[F_rdma_get_recv_comp_timeout].blocked++;
	{
		struct fake_script empty = { .npoll = 1, .poll_ret = { 0 } };

		fake_reset(&F, &empty);
		ret = rdma_get_recv_comp_timeout(&F.id, &wc, 0);
		err = errno;
		expect(F_rdma_get_recv_comp_timeout, "%s timeout_ms=0%s", idf(&F.id),
		       retf(ret, err));
		count(F_rdma_get_recv_comp_timeout, ret < 0, 0);
	}
}

int calls_child(const char *dir)
{
	expected = create_in(dir, "expected");
	if (!expected)
		return 1;
	seterrno_calls();
	reg_calls();
	post_calls();
	comp_calls();
	addr_calls();
	fclose(expected);
	return write_stats(dir);
}
