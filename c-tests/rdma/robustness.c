/*
 * Input the inline original crashes on, asserts on or silently truncates:
 * each case returns -1 with errno EINVAL (NULL with EINVAL for the
 * registration helpers) and calls nothing, or -1 with EIO for a completion
 * event of another CQ (acknowledged where it belongs). Each case runs in a
 * child process, so that a crash fails that case and not the run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>
#include "fake.h"
#include "ours.h"

static struct fake F;
static struct ibv_sge sgl[2];
static struct ibv_wc wc;
static char buf[256];
static struct ibv_ah ah;

/* What a case returns: its result, and whether the fake must stay silent. */
struct res { int ret; int err; };

static struct res result(int ret)
{
	struct res r = { ret, errno };
	return r;
}

static struct res result_ptr(void *p)
{
	struct res r = { p ? 0 : -1, errno };
	return r;
}

#define ID (&F.id)
#define BIG ((size_t)UINT32_MAX + 1)

/* ---- the cases ---- */
#define CASE(name) static struct res name(void)

CASE(null_id_reg_msgs) { return result_ptr(rdma_reg_msgs(NULL, buf, 8)); }
CASE(null_id_reg_read) { return result_ptr(rdma_reg_read(NULL, buf, 8)); }
CASE(null_id_reg_write) { return result_ptr(rdma_reg_write(NULL, buf, 8)); }
CASE(null_id_post_recvv) { return result(rdma_post_recvv(NULL, NULL, sgl, 1)); }
CASE(null_id_post_sendv) { return result(rdma_post_sendv(NULL, NULL, sgl, 1, 0)); }
CASE(null_id_post_readv) { return result(rdma_post_readv(NULL, NULL, sgl, 1, 0, 1, 2)); }
CASE(null_id_post_writev) { return result(rdma_post_writev(NULL, NULL, sgl, 1, 0, 1, 2)); }
CASE(null_id_post_recv) { return result(rdma_post_recv(NULL, NULL, buf, 8, &F.mr)); }
CASE(null_id_post_send) { return result(rdma_post_send(NULL, NULL, buf, 8, &F.mr, 0)); }
CASE(null_id_post_read) { return result(rdma_post_read(NULL, NULL, buf, 8, &F.mr, 0, 1, 2)); }
CASE(null_id_post_write) { return result(rdma_post_write(NULL, NULL, buf, 8, &F.mr, 0, 1, 2)); }
CASE(null_id_post_ud_send) { return result(rdma_post_ud_send(NULL, NULL, buf, 8, &F.mr, 0, &ah, 1)); }
CASE(null_id_get_send_comp) { return result(rdma_get_send_comp(NULL, &wc)); }
CASE(null_id_get_recv_comp) { return result(rdma_get_recv_comp(NULL, &wc)); }
CASE(null_id_get_send_comp_timeout) { return result(rdma_get_send_comp_timeout(NULL, &wc, 10)); }
CASE(null_id_get_recv_comp_timeout) { return result(rdma_get_recv_comp_timeout(NULL, &wc, 10)); }
/* The address functions, found by name (RDMAVERBS_1.2). */
CASE(null_id_get_local_addr) { return result_ptr(ours_rdma_get_local_addr()(NULL)); }
CASE(null_id_get_peer_addr) { return result_ptr(ours_rdma_get_peer_addr()(NULL)); }
CASE(null_wc_get_send_comp_timeout) { return result(rdma_get_send_comp_timeout(ID, NULL, 10)); }
CASE(null_wc_get_recv_comp_timeout) { return result(rdma_get_recv_comp_timeout(ID, NULL, 10)); }

CASE(no_qp_post_sendv) { F.id.qp = NULL; return result(rdma_post_sendv(ID, NULL, sgl, 1, 0)); }
CASE(no_qp_post_readv) { F.id.qp = NULL; return result(rdma_post_readv(ID, NULL, sgl, 1, 0, 1, 2)); }
CASE(no_qp_post_writev) { F.id.qp = NULL; return result(rdma_post_writev(ID, NULL, sgl, 1, 0, 1, 2)); }
CASE(no_qp_post_send) { F.id.qp = NULL; return result(rdma_post_send(ID, NULL, buf, 8, NULL, 0)); }
CASE(no_qp_post_read) { F.id.qp = NULL; return result(rdma_post_read(ID, NULL, buf, 8, &F.mr, 0, 1, 2)); }
CASE(no_qp_post_write) { F.id.qp = NULL; return result(rdma_post_write(ID, NULL, buf, 8, NULL, 0, 1, 2)); }
CASE(no_qp_post_ud_send) { F.id.qp = NULL; return result(rdma_post_ud_send(ID, NULL, buf, 8, NULL, 0, &ah, 1)); }
CASE(no_qp_no_srq_post_recvv) { F.id.qp = NULL; return result(rdma_post_recvv(ID, NULL, sgl, 1)); }
CASE(no_qp_no_srq_post_recv) { F.id.qp = NULL; return result(rdma_post_recv(ID, NULL, buf, 8, &F.mr)); }

CASE(null_sgl_post_recvv) { return result(rdma_post_recvv(ID, NULL, NULL, 1)); }
CASE(null_sgl_post_sendv) { return result(rdma_post_sendv(ID, NULL, NULL, 2, 0)); }
CASE(null_sgl_post_readv) { return result(rdma_post_readv(ID, NULL, NULL, 1, 0, 1, 2)); }
CASE(null_sgl_post_writev) { return result(rdma_post_writev(ID, NULL, NULL, 1, 0, 1, 2)); }
CASE(negative_nsge_post_recvv) { return result(rdma_post_recvv(ID, NULL, sgl, -1)); }
CASE(negative_nsge_post_sendv) { return result(rdma_post_sendv(ID, NULL, sgl, -5, 0)); }
CASE(negative_nsge_post_readv) { return result(rdma_post_readv(ID, NULL, sgl, -1, 0, 1, 2)); }
CASE(negative_nsge_post_writev) { return result(rdma_post_writev(ID, NULL, sgl, -1, 0, 1, 2)); }

CASE(long_post_recv) { F.mr.length = SIZE_MAX / 2; return result(rdma_post_recv(ID, NULL, buf, BIG, &F.mr)); }
CASE(long_post_send) { return result(rdma_post_send(ID, NULL, buf, BIG, &F.mr, 0)); }
CASE(long_post_read) { return result(rdma_post_read(ID, NULL, buf, BIG, &F.mr, 0, 1, 2)); }
CASE(long_post_write) { return result(rdma_post_write(ID, NULL, buf, BIG, &F.mr, 0, 1, 2)); }
CASE(long_post_ud_send) { return result(rdma_post_ud_send(ID, NULL, buf, BIG, &F.mr, 0, &ah, 1)); }

CASE(null_mr_post_recv) { return result(rdma_post_recv(ID, NULL, buf, 8, NULL)); }
CASE(null_mr_post_read) { return result(rdma_post_read(ID, NULL, buf, 8, NULL, 0, 1, 2)); }
CASE(before_mr_post_recv) { return result(rdma_post_recv(ID, NULL, buf + 15, 8, &F.mr)); }
CASE(past_mr_post_recv) { return result(rdma_post_recv(ID, NULL, buf + 16, 129, &F.mr)); }
CASE(wrapping_post_recv) { return result(rdma_post_recv(ID, NULL, buf + 16, SIZE_MAX, &F.mr)); }
CASE(null_ah_post_ud_send) { return result(rdma_post_ud_send(ID, NULL, buf, 8, NULL, 0, NULL, 1)); }

CASE(null_wc_get_send_comp) { return result(rdma_get_send_comp(ID, NULL)); }
CASE(null_wc_get_recv_comp) { return result(rdma_get_recv_comp(ID, NULL)); }
CASE(null_cq_get_send_comp) { F.id.send_cq = NULL; return result(rdma_get_send_comp(ID, &wc)); }
CASE(null_cq_get_recv_comp) { F.id.recv_cq = NULL; return result(rdma_get_recv_comp(ID, &wc)); }
CASE(null_cq_get_send_comp_timeout) { F.id.send_cq = NULL; return result(rdma_get_send_comp_timeout(ID, &wc, 10)); }
CASE(null_cq_get_recv_comp_timeout) { F.id.recv_cq = NULL; return result(rdma_get_recv_comp_timeout(ID, &wc, 0)); }

CASE(null_pd_reg_msgs) { F.id.pd = NULL; return result_ptr(rdma_reg_msgs(ID, buf, 8)); }
CASE(null_pd_reg_read) { F.id.pd = NULL; return result_ptr(rdma_reg_read(ID, buf, 8)); }
CASE(null_pd_reg_write) { F.id.pd = NULL; return result_ptr(rdma_reg_write(ID, buf, 8)); }
CASE(null_mr_dereg_mr) { return result(rdma_dereg_mr(NULL)); }

/* The completion loop: these cases call the fake before they fail. */
static const struct fake_script wait_once = {
	.npoll = 2, .poll_ret = { 0, 0 }, .nnotify = 1, .notify_ret = { 0 },
	.nevent = 1, .event_ret = { 0 },
};
static const struct fake_script ready = { .npoll = 1, .poll_ret = { 1 } };

CASE(null_channel_get_send_comp) { F.id.send_cq_channel = NULL; fake_reset(&F, &wait_once); return result(rdma_get_send_comp(ID, &wc)); }
CASE(null_channel_get_recv_comp) { F.id.recv_cq_channel = NULL; fake_reset(&F, &wait_once); return result(rdma_get_recv_comp(ID, &wc)); }
CASE(null_channel_ready_get_send_comp) { F.id.send_cq_channel = NULL; fake_reset(&F, &ready); return result(rdma_get_send_comp(ID, &wc)); }
CASE(null_channel_ready_get_recv_comp) { F.id.recv_cq_channel = NULL; fake_reset(&F, &ready); return result(rdma_get_recv_comp(ID, &wc)); }
CASE(null_channel_get_send_comp_timeout) { F.id.send_cq_channel = NULL; fake_reset(&F, &wait_once); return result(rdma_get_send_comp_timeout(ID, &wc, 10)); }
CASE(null_channel_get_recv_comp_timeout) { F.id.recv_cq_channel = NULL; fake_reset(&F, &wait_once); return result(rdma_get_recv_comp_timeout(ID, &wc, -1)); }

static struct fake_script foreign(struct ibv_cq *cq, void *ctx)
{
	struct fake_script s = wait_once;

	s.event_cq = cq;
	s.event_ctx = ctx;
	return s;
}

static struct ibv_cq other_cq;
CASE(other_cq_get_send_comp) { struct fake_script s = foreign(&other_cq, ID); fake_reset(&F, &s); return result(rdma_get_send_comp(ID, &wc)); }
CASE(other_cq_get_recv_comp) { struct fake_script s = foreign(&F.send_cq, ID); fake_reset(&F, &s); return result(rdma_get_recv_comp(ID, &wc)); }
CASE(other_ctx_get_send_comp) { struct fake_script s = foreign(&F.send_cq, buf); fake_reset(&F, &s); return result(rdma_get_send_comp(ID, &wc)); }
CASE(other_ctx_get_recv_comp) { struct fake_script s = foreign(&F.recv_cq, buf); fake_reset(&F, &s); return result(rdma_get_recv_comp(ID, &wc)); }

/* What each case must give, and which provider calls it may make. */
enum expect_calls { NOTHING, POLL_ARM_POLL, POLL_ONLY, WAIT_THEN_ACK };

static const struct {
	const char *name;
	struct res (*run)(void);
	int ret, err;
	enum expect_calls calls;
	const void *ack_cq;	/* WAIT_THEN_ACK: the CQ acknowledged */
} cases[] = {
#define EINVAL_CASE(fn) { #fn, fn, -1, EINVAL, NOTHING, NULL }
	EINVAL_CASE(null_id_reg_msgs), EINVAL_CASE(null_id_reg_read),
	EINVAL_CASE(null_id_reg_write), EINVAL_CASE(null_id_post_recvv),
	EINVAL_CASE(null_id_post_sendv), EINVAL_CASE(null_id_post_readv),
	EINVAL_CASE(null_id_post_writev), EINVAL_CASE(null_id_post_recv),
	EINVAL_CASE(null_id_post_send), EINVAL_CASE(null_id_post_read),
	EINVAL_CASE(null_id_post_write), EINVAL_CASE(null_id_post_ud_send),
	EINVAL_CASE(null_id_get_send_comp), EINVAL_CASE(null_id_get_recv_comp),
	EINVAL_CASE(null_id_get_send_comp_timeout), EINVAL_CASE(null_id_get_recv_comp_timeout),
	EINVAL_CASE(null_id_get_local_addr), EINVAL_CASE(null_id_get_peer_addr),
	EINVAL_CASE(null_wc_get_send_comp_timeout), EINVAL_CASE(null_wc_get_recv_comp_timeout),
	EINVAL_CASE(null_cq_get_send_comp_timeout), EINVAL_CASE(null_cq_get_recv_comp_timeout),
	EINVAL_CASE(no_qp_post_sendv), EINVAL_CASE(no_qp_post_readv),
	EINVAL_CASE(no_qp_post_writev), EINVAL_CASE(no_qp_post_send),
	EINVAL_CASE(no_qp_post_read), EINVAL_CASE(no_qp_post_write),
	EINVAL_CASE(no_qp_post_ud_send), EINVAL_CASE(no_qp_no_srq_post_recvv),
	EINVAL_CASE(no_qp_no_srq_post_recv),
	EINVAL_CASE(null_sgl_post_recvv), EINVAL_CASE(null_sgl_post_sendv),
	EINVAL_CASE(null_sgl_post_readv), EINVAL_CASE(null_sgl_post_writev),
	EINVAL_CASE(negative_nsge_post_recvv), EINVAL_CASE(negative_nsge_post_sendv),
	EINVAL_CASE(negative_nsge_post_readv), EINVAL_CASE(negative_nsge_post_writev),
	EINVAL_CASE(long_post_recv), EINVAL_CASE(long_post_send),
	EINVAL_CASE(long_post_read), EINVAL_CASE(long_post_write),
	EINVAL_CASE(long_post_ud_send),
	EINVAL_CASE(null_mr_post_recv), EINVAL_CASE(null_mr_post_read),
	EINVAL_CASE(before_mr_post_recv), EINVAL_CASE(past_mr_post_recv),
	EINVAL_CASE(wrapping_post_recv), EINVAL_CASE(null_ah_post_ud_send),
	EINVAL_CASE(null_wc_get_send_comp), EINVAL_CASE(null_wc_get_recv_comp),
	EINVAL_CASE(null_cq_get_send_comp), EINVAL_CASE(null_cq_get_recv_comp),
	EINVAL_CASE(null_pd_reg_msgs), EINVAL_CASE(null_pd_reg_read),
	EINVAL_CASE(null_pd_reg_write), EINVAL_CASE(null_mr_dereg_mr),
	{ "null_channel_get_send_comp", null_channel_get_send_comp, -1, EINVAL, POLL_ARM_POLL, NULL },
	{ "null_channel_get_recv_comp", null_channel_get_recv_comp, -1, EINVAL, POLL_ARM_POLL, NULL },
	{ "null_channel_ready_get_send_comp", null_channel_ready_get_send_comp, 1, 4242, POLL_ONLY, NULL },
	{ "null_channel_ready_get_recv_comp", null_channel_ready_get_recv_comp, 1, 4242, POLL_ONLY, NULL },
	{ "null_channel_get_send_comp_timeout", null_channel_get_send_comp_timeout, -1, EINVAL, POLL_ARM_POLL, NULL },
	{ "null_channel_get_recv_comp_timeout", null_channel_get_recv_comp_timeout, -1, EINVAL, POLL_ARM_POLL, NULL },
	{ "other_cq_get_send_comp", other_cq_get_send_comp, -1, EIO, WAIT_THEN_ACK, &other_cq },
	{ "other_cq_get_recv_comp", other_cq_get_recv_comp, -1, EIO, WAIT_THEN_ACK, &F.send_cq },
	{ "other_ctx_get_send_comp", other_ctx_get_send_comp, -1, EIO, WAIT_THEN_ACK, &F.send_cq },
	{ "other_ctx_get_recv_comp", other_ctx_get_recv_comp, -1, EIO, WAIT_THEN_ACK, &F.recv_cq },
};

/* Runs case i in this (child) process; 0 if it behaved. */
static int run_case(size_t i)
{
	static const enum fake_call want[][5] = {
		[NOTHING] = { 0 },
		[POLL_ARM_POLL] = { FC_POLL_CQ, FC_REQ_NOTIFY_CQ, FC_POLL_CQ, 0 },
		[POLL_ONLY] = { FC_POLL_CQ, 0 },
		[WAIT_THEN_ACK] = { FC_POLL_CQ, FC_REQ_NOTIFY_CQ, FC_POLL_CQ,
				    FC_GET_CQ_EVENT, FC_ACK_CQ_EVENTS },
	};
	static const struct fake_script none;
	const enum fake_call *calls = want[cases[i].calls];
	struct res r;
	int k, n = 0, bad = 0;

	fake_init(&F);
	fake_reset(&F, &none);
	F.mr.addr = buf + 16;
	F.mr.length = 128;
	sgl[0].addr = (uintptr_t)buf;
	sgl[0].length = 8;
	errno = 4242;
	r = cases[i].run();
	if (r.ret != cases[i].ret || r.err != cases[i].err) {
		printf("FAIL: %s: returned %d errno %d, want %d errno %d\n", cases[i].name,
		       r.ret, r.err, cases[i].ret, cases[i].err);
		bad = 1;
	}
	while (n < 5 && calls[n])
		n++;
	for (k = 0; k < n && k < F.nlog; k++)
		bad |= F.log[k].call != calls[k];
	if (F.nlog != n || bad) {
		printf("FAIL: %s: made %d provider calls, want %d\n", cases[i].name, F.nlog, n);
		bad = 1;
	}
	if (cases[i].ack_cq && F.nlog == n && F.log[n - 1].obj != cases[i].ack_cq) {
		printf("FAIL: %s: acknowledged the event on the wrong CQ\n", cases[i].name);
		bad = 1;
	}
	return bad;
}

int main(void)
{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);
	int pass = 0, fail = 0;

	for (i = 0; i < n; i++) {
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(run_case(i));
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			pass++;
		} else {
			if (WIFSIGNALED(status))
				printf("FAIL: %s: crashed with signal %d\n", cases[i].name,
				       WTERMSIG(status));
			fail++;
		}
	}
	printf("robustness: %d passed, %d failed\n", pass, fail);
	return fail != 0;
}
