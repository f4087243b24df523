/*
 * The preload library's trace lines and counts of the wrapped ops, field by
 * field, on the fake libibverbs (fakeverbs.c), with tracing and counting on
 * together.
 *
 * The parent re-executes this program ("opstrace PRELOAD_SO DIR MODE") with
 * LD_PRELOAD and RDMAVERBS_* set and its stderr in DIR/MODE.err:
 *
 *   ops   every wrapped op, classic and extended, succeeding and failing:
 *         chains of send work requests of each kind (RC and UD), receives
 *         to a QP and an SRQ, polls that find four completions of each kind
 *         (receives, a send, one in error), none, or fail; arming; the
 *         extended QP's every builder and the extended CQ's polls. The
 *         child writes the trace line it expects of each (built here with
 *         snprintf) to DIR/expected, and its own count of calls, bytes and
 *         errors per op to DIR/expected-stats; the parent compares the
 *         trace file (its t= aside) and the exit table with them. Then the
 *         device is closed and the QP and CQ destroyed: the fake checks
 *         that every op was put back first.
 *   full  the trace on stderr, which is /dev/full: every write fails; the
 *         program's errno is what it was before each op, as without the
 *         preload library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "child.h"
#include "fakeverbs.h"

static int failures;
#define FAIL(...) do { fprintf(stderr, "opstrace: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

static FILE *expected;

/* The ops, in the order of the exit table's rows checked. */
enum op {
	POST_SEND, POST_RECV, POST_SRQ_RECV, POLL_CQ, REQ_NOTIFY_CQ,
	WR_START, WR_SEND, WR_SEND_IMM, WR_RDMA_WRITE, WR_RDMA_WRITE_IMM, WR_RDMA_READ,
	WR_SET_SGE, WR_SET_SGE_LIST, WR_SET_INLINE_DATA, WR_COMPLETE, WR_ABORT,
	START_POLL, NEXT_POLL, END_POLL, N_OP
};
static const char *const op_name[N_OP] = {
	"ibv_post_send", "ibv_post_recv", "ibv_post_srq_recv", "ibv_poll_cq", "ibv_req_notify_cq",
	"ibv_wr_start", "ibv_wr_send", "ibv_wr_send_imm", "ibv_wr_rdma_write",
	"ibv_wr_rdma_write_imm", "ibv_wr_rdma_read", "ibv_wr_set_sge", "ibv_wr_set_sge_list",
	"ibv_wr_set_inline_data", "ibv_wr_complete", "ibv_wr_abort",
	"ibv_start_poll", "ibv_next_poll", "ibv_end_poll",
};
static struct { long calls, bytes, errors; } counts[N_OP];

static unsigned long p2u(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}

/* One expected line: "rdmaverbs[TID]: NAME" and the fields. */
static void expect(enum op o, const char *fmt, ...)
{
	va_list ap;

	fprintf(expected, "rdmaverbs[%d]: %s", (int)gettid(), op_name[o]);
	va_start(ap, fmt);
	vfprintf(expected, fmt, ap);
	va_end(ap);
	fputc('\n', expected);
}

static void count(enum op o, int failed, long bytes)
{
	counts[o].calls++;
	counts[o].errors += failed;
	counts[o].bytes += bytes;
}

/* A completion as the trace shows it. */
static const char *wcf(const struct ibv_wc *wc)
{
	static char s[200];
	const char *status = wc->status == IBV_WC_SUCCESS ? "SUCCESS" :
			     wc->status == IBV_WC_WR_FLUSH_ERR ? "WR_FLUSH_ERR" : "REM_ACCESS_ERR";
	const char *opcode = wc->opcode == IBV_WC_RECV ? "RECV" :
			     wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM ? "RECV_RDMA_WITH_IMM" :
			     wc->opcode == IBV_WC_SEND ? "SEND" : "RDMA_READ";

	if (wc->status == IBV_WC_SUCCESS)
		snprintf(s, sizeof(s), " wr_id=0x%llx status=%s opcode=%s byte_len=%u",
			 (unsigned long long)wc->wr_id, status, opcode, wc->byte_len);
	else
		snprintf(s, sizeof(s), " wr_id=0x%llx status=%s vendor_err=0x%x",
			 (unsigned long long)wc->wr_id, status, wc->vendor_err);
	return s;
}

static long wc_bytes(const struct ibv_wc *wc)
{
	return wc->status == IBV_WC_SUCCESS && (wc->opcode & IBV_WC_RECV) ? wc->byte_len : 0;
}

static struct ibv_device dev;
static struct ibv_context *ctx;
static struct ibv_qp rc, ud;
static struct ibv_srq srq;
static struct ibv_cq cq;
static struct ibv_sge sges[4] = {
	{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 4096, 3 }, { 0x4000, 0xffffffffu, 4 },
};

/* The classic ops: chains of send and receive work requests, polls, arming. */
static void classic(void)
{
	struct ibv_send_wr s[3], *sbad;
	struct ibv_recv_wr r[2], *rbad;
	struct ibv_wc wc[4];
	struct ibv_ah *ah = (struct ibv_ah *)(uintptr_t)0xa4;
	int ret, i;

	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x51, .next = &s[1], .sg_list = sges, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	s[1] = (struct ibv_send_wr){ .wr_id = 0x52, .next = &s[2], .sg_list = &sges[2],
		.num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_FENCE };
	s[1].wr.rdma.remote_addr = 0xfeed0000;
	s[1].wr.rdma.rkey = 0x77;
	s[2] = (struct ibv_send_wr){ .wr_id = UINT64_MAX, .sg_list = &sges[3], .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ };
	s[2].wr.rdma.remote_addr = UINT64_MAX;
	s[2].wr.rdma.rkey = UINT32_MAX;
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {	/* succeeding, then failing */
		fakeverbs_script.post_ret = ret;
		ibv_post_send(&rc, s, &sbad);
		for (i = 0; i < 3; i++) {
			char bytes[40] = "";
			long b = 0;

			for (int k = 0; k < s[i].num_sge; k++)
				b += s[i].sg_list[k].length;
			if (!ret)
				snprintf(bytes, sizeof(bytes), " bytes=%ld", b);
			expect(POST_SEND, " qp=0x%lx qpn=%u wr_id=0x%llx opcode=%s nsge=%d%s flags=0x%x%s%s ret=%d",
			       p2u(&rc), rc.qp_num, (unsigned long long)s[i].wr_id,
			       i == 0 ? "SEND" : i == 1 ? "RDMA_WRITE" : "RDMA_READ", s[i].num_sge,
			       bytes, s[i].send_flags, i ? " remote_addr=0x" : "",
			       i == 1 ? "feed0000 rkey=0x77" : i == 2 ? "ffffffffffffffff rkey=0xffffffff" : "",
			       ret);
		}
		count(POST_SEND, ret != 0, ret ? 0 : 10 + 20 + 4096 + 0xffffffffL);
	}
	/* UD: the address handle and remote QP number; an immediate send */
	fakeverbs_script.post_ret = 0;
	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x61, .sg_list = sges, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED };
	s[0].wr.ud.ah = ah;
	s[0].wr.ud.remote_qpn = 0xffffff;
	ibv_post_send(&ud, s, &sbad);
	expect(POST_SEND, " qp=0x%lx qpn=%u wr_id=0x61 opcode=SEND_WITH_IMM nsge=1 bytes=10 flags=0xa "
	       "ah=0x%lx remote_qpn=16777215 ret=0", p2u(&ud), ud.qp_num, p2u(ah));
	count(POST_SEND, 0, 10);

	memset(r, 0, sizeof(r));
	r[0] = (struct ibv_recv_wr){ .wr_id = 0x71, .next = &r[1], .sg_list = &sges[2], .num_sge = 1 };
	r[1] = (struct ibv_recv_wr){ .wr_id = 0x72, .sg_list = sges, .num_sge = 2 };
	for (ret = 0; ret <= EAGAIN; ret += EAGAIN) {
		fakeverbs_script.post_ret = ret;
		ibv_post_recv(&rc, r, &rbad);
		if (ret) {
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x71 nsge=1 ret=%d", p2u(&rc), rc.qp_num, ret);
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x72 nsge=2 ret=%d", p2u(&rc), rc.qp_num, ret);
		} else {
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x71 nsge=1 bytes=4096 ret=0", p2u(&rc), rc.qp_num);
			expect(POST_RECV, " qp=0x%lx qpn=%u wr_id=0x72 nsge=2 bytes=30 ret=0", p2u(&rc), rc.qp_num);
		}
		count(POST_RECV, ret != 0, ret ? 0 : 4126);
		ibv_post_srq_recv(&srq, &r[1], &rbad);
		if (ret)
			expect(POST_SRQ_RECV, " srq=0x%lx wr_id=0x72 nsge=2 ret=%d", p2u(&srq), ret);
		else
			expect(POST_SRQ_RECV, " srq=0x%lx wr_id=0x72 nsge=2 bytes=30 ret=0", p2u(&srq));
		count(POST_SRQ_RECV, ret != 0, ret ? 0 : 30);
	}

	/* four completions: two receives (counted), a send, a receive in error */
	fakeverbs_script.poll_ret = 4;
	memset(fakeverbs_script.wc, 0, sizeof(fakeverbs_script.wc));
	fakeverbs_script.wc[0] = (struct ibv_wc){ .wr_id = 0x71, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV, .byte_len = 100, .qp_num = 17 };
	fakeverbs_script.wc[1] = (struct ibv_wc){ .wr_id = 0x72, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .byte_len = 200, .qp_num = 18 };
	fakeverbs_script.wc[2] = (struct ibv_wc){ .wr_id = 0x51, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_SEND, .byte_len = 300, .qp_num = 17 };
	fakeverbs_script.wc[3] = (struct ibv_wc){ .wr_id = 0x73, .status = IBV_WC_WR_FLUSH_ERR,
		.opcode = IBV_WC_RECV, .byte_len = 400, .vendor_err = 0x11, .qp_num = 17 };
	ret = ibv_poll_cq(&cq, 4, wc);
	for (i = 0; i < 4; i++)
		expect(POLL_CQ, " cq=0x%lx ret=4 qpn=%u%s", p2u(&cq), wc[i].qp_num, wcf(&wc[i]));
	count(POLL_CQ, 0, wc_bytes(&wc[0]) + wc_bytes(&wc[1]) + wc_bytes(&wc[2]) + wc_bytes(&wc[3]));
	fakeverbs_script.poll_ret = 0;	/* nothing: counted, not traced */
	ibv_poll_cq(&cq, 4, wc);
	count(POLL_CQ, 0, 0);
	fakeverbs_script.poll_ret = -2;
	ibv_poll_cq(&cq, 4, wc);
	expect(POLL_CQ, " cq=0x%lx ret=-2", p2u(&cq));
	count(POLL_CQ, 1, 0);
	for (ret = 0; ret <= EINVAL; ret += EINVAL) {
		fakeverbs_script.notify_ret = ret;
		ibv_req_notify_cq(&cq, 0);
		expect(REQ_NOTIFY_CQ, " cq=0x%lx ret=%d", p2u(&cq), ret);
		count(REQ_NOTIFY_CQ, ret != 0, 0);
	}
}

/* The extended QP's builders and the extended CQ's polls. */
static int extended(void)
{
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct ibv_cq_init_attr_ex ca = { .cqe = 16 };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_qp_ex *x;
	struct ibv_cq_ex *c;
	struct ibv_qp *qp;
	char inl[33];
	int i, ret;

	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	qp = ibv_create_qp_ex(ctx, &qa);
	c = ibv_create_cq_ex(ctx, &ca);
	if (!qp || !c)
		return 1;
	x = ibv_qp_to_qp_ex(qp);
#define QP " qp=0x%lx qpn=%u"
#define Q p2u(x), qp->qp_num
	ibv_wr_start(x);
	expect(WR_START, QP, Q);
	count(WR_START, 0, 0);
	x->wr_id = 0x81;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	expect(WR_SEND, QP " wr_id=0x81 flags=0x2", Q);
	count(WR_SEND, 0, 0);
	x->wr_id = 0x82;
	ibv_wr_send_imm(x, 0x12345678);
	expect(WR_SEND_IMM, QP " wr_id=0x82 flags=0x2", Q);
	count(WR_SEND_IMM, 0, 0);
	x->wr_id = 0x83;
	x->wr_flags = IBV_SEND_FENCE;
	ibv_wr_rdma_write(x, 0x99, 0xabc000);
	expect(WR_RDMA_WRITE, QP " wr_id=0x83 flags=0x1 remote_addr=0xabc000 rkey=0x99", Q);
	count(WR_RDMA_WRITE, 0, 0);
	x->wr_id = 0x84;
	ibv_wr_rdma_write_imm(x, 0x98, 0xabd000, 7);
	expect(WR_RDMA_WRITE_IMM, QP " wr_id=0x84 flags=0x1 remote_addr=0xabd000 rkey=0x98", Q);
	count(WR_RDMA_WRITE_IMM, 0, 0);
	x->wr_id = 0x85;
	x->wr_flags = 0;
	ibv_wr_rdma_read(x, UINT32_MAX, UINT64_MAX);
	expect(WR_RDMA_READ, QP " wr_id=0x85 flags=0x0 remote_addr=0xffffffffffffffff rkey=0xffffffff", Q);
	count(WR_RDMA_READ, 0, 0);
	ibv_wr_set_sge(x, 0x5, 0x6000, 123);
	expect(WR_SET_SGE, QP " lkey=0x5 addr=0x6000 length=123", Q);
	count(WR_SET_SGE, 0, 123);
	ibv_wr_set_sge_list(x, 2, sges);
	expect(WR_SET_SGE_LIST, QP " nsge=2 bytes=30", Q);
	count(WR_SET_SGE_LIST, 0, 30);
	ibv_wr_set_inline_data(x, inl, sizeof(inl));
	expect(WR_SET_INLINE_DATA, QP " addr=0x%lx length=33", Q, p2u(inl));
	count(WR_SET_INLINE_DATA, 0, 33);
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {
		fakeverbs_script.complete_ret = ret;
		if (ibv_wr_complete(x) != ret)
			return 2;
		expect(WR_COMPLETE, QP " ret=%d", Q, ret);
		count(WR_COMPLETE, ret != 0, 0);
	}
	ibv_wr_start(x);
	expect(WR_START, QP, Q);
	count(WR_START, 0, 0);
	ibv_wr_abort(x);
	expect(WR_ABORT, QP, Q);
	count(WR_ABORT, 0, 0);

	/* three completions: a receive, one in error, an immediate receive */
	fakeverbs_script.nex = 3;
	fakeverbs_script.ex[0] = (struct ibv_wc){ .wr_id = 0x91, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV, .byte_len = 64 };
	fakeverbs_script.ex[1] = (struct ibv_wc){ .wr_id = 0x92, .status = IBV_WC_REM_ACCESS_ERR,
		.vendor_err = 0x33 };
	fakeverbs_script.ex[2] = (struct ibv_wc){ .wr_id = 0x93, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM, .byte_len = 1000 };
	if (ibv_start_poll(c, &pa))
		return 3;
	expect(START_POLL, " cq=0x%lx ret=0%s", p2u(c), wcf(&fakeverbs_script.ex[0]));
	count(START_POLL, 0, 64);
	for (i = 1; i < 3; i++) {
		if (ibv_next_poll(c))
			return 4;
		expect(NEXT_POLL, " cq=0x%lx ret=0%s", p2u(c), wcf(&fakeverbs_script.ex[i]));
		count(NEXT_POLL, 0, i == 2 ? 1000 : 0);
	}
	if (ibv_next_poll(c) != ENOENT)	/* none left: counted, not traced */
		return 5;
	count(NEXT_POLL, 0, 0);
	ibv_end_poll(c);
	expect(END_POLL, " cq=0x%lx", p2u(c));
	count(END_POLL, 0, 0);
	if (ibv_start_poll(c, &pa) != ENOENT)	/* an empty CQ */
		return 6;
	count(START_POLL, 0, 0);
	if (ibv_destroy_qp(qp) || ibv_destroy_cq(ibv_cq_ex_to_cq(c)))
		return 7;
	return 0;
}

static int child(const char *dir, const char *mode)
{
	char path[4096];
	int i;

	fakeverbs_scripted = 1;
	ctx = ibv_open_device(&dev);
	if (!ctx)
		return 10;
	rc.context = ud.context = srq.context = cq.context = ctx;
	rc.qp_num = 17;
	rc.qp_type = IBV_QPT_RC;
	ud.qp_num = 4660;
	ud.qp_type = IBV_QPT_UD;
	if (!strcmp(mode, "full")) {	/* each op leaves errno as it was */
		struct ibv_send_wr s = { .wr_id = 1, .sg_list = sges, .num_sge = 1 }, *bad;
		struct ibv_wc wc[4];

		fakeverbs_script.poll_ret = 1;
		errno = 1234;
		ibv_post_send(&rc, &s, &bad);
		i = errno == 1234;
		fakeverbs_script.post_ret = ENOMEM;
		ibv_post_send(&rc, &s, &bad);
		i &= errno == 1234;
		errno = 4321;
		ibv_poll_cq(&cq, 1, wc);
		i &= errno == 4321;
		ibv_close_device(ctx);
		return i ? 0 : 11;
	}
	snprintf(path, sizeof(path), "%s/expected", dir);
	expected = fopen(path, "w");
	if (!expected)
		return 12;
	classic();
	if ((i = extended()))
		return 20 + i;
	fclose(expected);
	ibv_close_device(ctx);
	if (fakeverbs_calls.closed_wrapped || fakeverbs_calls.destroyed_wrapped)
		return 13;	/* an op was not put back before the close or destroy */
	snprintf(path, sizeof(path), "%s/expected-stats", dir);
	expected = fopen(path, "w");
	for (i = 0; i < N_OP; i++)
		fprintf(expected, "%s %ld %ld %ld -\n", op_name[i], counts[i].calls, counts[i].bytes,
			counts[i].errors);
	fclose(expected);
	return 0;
}

/* ---- the parent ---- */

static char dir[4096];

static int run(const char *self, const char *preload, const char *mode, const char *err,
	       const char *trace)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		setenv("LD_PRELOAD", preload, 1);
		setenv("RDMAVERBS_TRACE", trace, 1);
		setenv("RDMAVERBS_STATS", "1", 1);
		default_signals();
		execl(self, self, preload, dir, mode, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The lines of DIR/NAME that start with `prefix`, each without its t=
 * field (and the padding after it). */
static int lines(const char *name, const char *prefix, char out[][400], int max)
{
	char path[4200], line[400];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	while (f && n < max && fgets(line, sizeof(line), f)) {
		char *t = strstr(line, " t="), *e;

		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		if (t) {
			e = t + 3 + strspn(t + 3, "0123456789.");
			e += strspn(e, " ");
			memmove(t + 1, e, strlen(e) + 1);
			if (t[1] == 0)
				t[0] = 0;
		}
		snprintf(out[n++], 400, "%s", line);
	}
	if (f)
		fclose(f);
	return n;
}

static char got[200][400], want[200][400];

int main(int argc, char **argv)
{
	char self[4096], err[4200], trace[4200];
	ssize_t len;
	int rc, n, m, i;

	if (argc == 4)
		return child(argv[2], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: %s PRELOAD_SO DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = 0;

	snprintf(err, sizeof(err), "%s/ops.err", dir);
	snprintf(trace, sizeof(trace), "%s/trace.log", dir);
	unlink(trace);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((rc = run(self, argv[1], "ops", err, trace)))
		FAIL("ops: the child exited %d (13: an op not put back before the close or destroy)", rc);
	n = lines("trace.log", "rdmaverbs[", got, 200);
	m = lines("expected", "rdmaverbs[", want, 200);
	if (n != m)
		FAIL("ops: %d trace lines for %d expected", n, m);
	for (i = 0; i < n && i < m; i++)
		if (strcmp(got[i], want[i]))
			FAIL("ops: trace line %d:\n  got  %s\n  want %s", i + 1, got[i], want[i]);
	n = lines("ops.err", "rdmaverbs: ibv_", got, 200);
	m = lines("expected-stats", "ibv_", want, 200);
	for (i = 0; i < m; i++) {
		char b[5][64];
		int j;

		if (sscanf(want[i], "%63s %63s %63s %63s %63s", b[0], b[1], b[2], b[3], b[4]) != 5)
			continue;
		for (j = 0; j < n; j++) {
			char a[5][64];

			if (sscanf(got[j], "rdmaverbs: %63s %63s %63s %63s %63s", a[0], a[1], a[2], a[3],
				   a[4]) == 5 && !strcmp(a[0], b[0]) && !strcmp(a[1], b[1]) &&
			    !strcmp(a[2], b[2]) && !strcmp(a[3], b[3]) && !strcmp(a[4], b[4]))
				break;
		}
		if (j == n)
			FAIL("ops: the exit table has no row \"%s\"", want[i]);
	}
	if (n != m)
		FAIL("ops: %d rows of ops in the exit table, %d expected", n, m);
	if (!failures)
		printf("opstrace: ok: %d trace lines of the 19 wrapped ops (classic and extended), each "
		       "field as expected; the exit table's %d rows; every op put back before the "
		       "close and destroy\n", lines("expected", "rdmaverbs[", want, 200), m);

	snprintf(err, sizeof(err), "/dev/full");
	if ((rc = run(self, argv[1], "full", err, "1")))
		FAIL("full: the child exited %d (11: an op changed errno)", rc);
	else
		printf("opstrace: ok: the trace on /dev/full: every op leaves the program's errno as it was\n");
	return failures != 0;
}
