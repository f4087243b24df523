/*
 * RDMAVERBS_1.3 under the preload library, on the fake libibverbs
 * (fakeverbs.c): each call recorded once, whichever copy of the export the
 * program reaches.
 *
 * The preload library wraps the ops of a context opened through
 * libibverbs' ibv_open_device, and the calls of the extended QPs and CQs
 * made on it; it also exports what librdmaverbs.so.1 exports. This
 * program is linked with librdmaverbs.so.1 (and the fake libibverbs) and
 * run with LD_PRELOAD of the preload library, RDMAVERBS_TRACE and
 * RDMAVERBS_STATS. It opens a device (wrapped: its ops lie in the preload
 * library), then calls the 1.3 exports whose ops are wrapped
 * (ibv_post_send with a chain of 2, ibv_post_recv, ibv_post_srq_recv,
 * ibv_poll_cq, ibv_req_notify_cq, ibv_wr_start, ibv_wr_send,
 * ibv_wr_rdma_write, ibv_wr_set_sge, ibv_wr_complete, ibv_start_poll,
 * ibv_next_poll twice, ibv_end_poll), the creations of the extended QP and
 * CQ and a reader, in two ways (MODE, each run as "verbs-preload child DIR
 * MODE" by "verbs-preload PRELOAD_SO DIR"):
 *
 *   linked   by name, as linked (verbs-linked.c): the dynamic linker binds
 *            them to the preload library's copies, shown by dladdr. Each
 *            call must be recorded once, by the export; the wrapped op it
 *            calls must record nothing.
 *   library  by dlvsym in librdmaverbs.so.1 itself (as an FFI that opens
 *            the library by name does): its copies, which watch nothing
 *            when the preload library is there. Each call of a wrapped op
 *            must be recorded once, by the op; the rest not at all.
 *
 * Either way the provider's op is reached once per call, through the
 * preload library's wrapper (the fake counts its calls; the wrappers are
 * checked to be in place). The child writes the lines and exit table rows
 * it expects; the parent compares the trace file and the table with them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakeverbs.h"
#include "traced-run.h"
#include "verbs-linked.h"

static int failures;
#define FAIL(...) do { fprintf(stderr, "verbs-preload: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

/* The file of the library that `fn` (any function pointer's bytes) lies in. */
static const char *where(const void *fnp)
{
	Dl_info info;
	void *fn;

	memcpy(&fn, fnp, sizeof(fn));
	return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "?";
}

/* ---- the child ---- */

/* What the child expects: each call once (MODE.expected). */
static FILE *expected;

static void line(FILE *f, const char *name, const char *fmt, va_list ap)
{
	fprintf(f, "rdmaverbs[%d]: %s", (int)gettid(), name);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

/* A call's expected line (an extended QP's or CQ's call: recorded once
 * too, whichever copy of the export is called). */
static void expect_call(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(expected, name, fmt, ap);
	va_end(ap);
}
#define expect(...) expect_call(__VA_ARGS__)
#define expect_ex(...) expect_call(__VA_ARGS__)

/* A function's expected exit table row. */
static void row(int ex, const char *name, long calls, long bytes)
{
	(void)ex;
	fprintf(expected, "%s %ld %ld 0 -\n", name, calls, bytes);
}

/* Opens DIR/MODE.WHAT. */
static int open_expected(const char *dir, const char *mode, const char *what)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.%s", dir, mode, what);
	expected = fopen(path, "w");
	return expected ? 0 : -1;
}

static void close_expected(void)
{
	fclose(expected);
}

static int child(const char *dir, const char *mode)
{
	static struct ibv_device dev;
	static struct ibv_qp qp;
	static struct ibv_srq srq;
	static struct ibv_cq cq;
	struct ibv_sge sge[2] = { { 0x1000, 64, 1 }, { 0x2000, 100, 2 } };
	struct ibv_send_wr s[2], *sbad;
	struct ibv_recv_wr r = { .wr_id = 0x21, .sg_list = sge, .num_sge = 1 }, *rbad;
	struct ibv_qp_init_attr_ex qa;
	struct ibv_cq_init_attr_ex ca;
	struct ibv_poll_cq_attr pa = { 0 };
	struct verbs_linked t;
	struct ibv_context *ctx;
	struct ibv_qp *xqp;
	struct ibv_qp_ex *x;
	struct ibv_cq_ex *c;
	struct ibv_wc wc[2];
	int linked = !strcmp(mode, "linked");

	if (linked) {
		verbs_linked(&t);
	} else {
		void *lib = dlopen("librdmaverbs.so.1", RTLD_NOW | RTLD_NOLOAD), *p;

		if (!lib)
			return 10;	/* not loaded: the program is linked with it */
#define FIND(ret, name, params)                                                \
		p = dlvsym(lib, "ibv_" #name, "RDMAVERBS_1.3");                \
		if (!p)                                                        \
			return 11;                                             \
		memcpy(&t.name, &p, sizeof(p));
		VERBS_LINKED(FIND)
	}
	/* which copy: the preload library's, or librdmaverbs.so.1's */
	if (!strstr(where(&t.post_send), linked ? "librdmaverbs-preload.so" : "librdmaverbs.so.1") ||
	    !strstr(where(&t.wr_send), linked ? "librdmaverbs-preload.so" : "librdmaverbs.so.1")) {
		fprintf(stderr, "verbs-preload: %s: ibv_post_send is in %s\n", mode,
			where(&t.post_send));
		return 12;
	}

	ctx = ibv_open_device(&dev);
	if (!ctx || !strstr(where(&ctx->ops.post_send), "librdmaverbs-preload.so"))
		return 13;	/* the context's ops are not wrapped */
	qp.context = srq.context = cq.context = ctx;
	qp.qp_num = 99;
	if (open_expected(dir, mode, "expected"))
		return 14;

	memset(s, 0, sizeof(s));
	s[0] = (struct ibv_send_wr){ .wr_id = 0x11, .next = &s[1], .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	s[1] = (struct ibv_send_wr){ .wr_id = 0x12, .sg_list = sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ };
	s[1].wr.rdma.remote_addr = 0x8000;
	s[1].wr.rdma.rkey = 0x42;
	if (t.post_send(&qp, s, &sbad))
		return 20;
	expect("ibv_post_send", " qp=0x%lx qpn=99 wr_id=0x11 opcode=SEND nsge=2 bytes=164 "
	       "flags=0x2 ret=0", p2u(&qp));
	expect("ibv_post_send", " qp=0x%lx qpn=99 wr_id=0x12 opcode=RDMA_READ nsge=1 bytes=64 "
	       "flags=0x0 remote_addr=0x8000 rkey=0x42 ret=0", p2u(&qp));
	if (t.post_recv(&qp, &r, &rbad) || t.post_srq_recv(&srq, &r, &rbad))
		return 21;
	expect("ibv_post_recv", " qp=0x%lx qpn=99 wr_id=0x21 nsge=1 bytes=64 ret=0", p2u(&qp));
	expect("ibv_post_srq_recv", " srq=0x%lx wr_id=0x21 nsge=1 bytes=64 ret=0", p2u(&srq));
	if (t.poll_cq(&cq, 2, wc) != 1 || wc[0].wr_id != 7)	/* the fake's one completion */
		return 22;
	expect("ibv_poll_cq", " cq=0x%lx ret=1 qpn=0 wr_id=0x7 status=SUCCESS opcode=RECV "
	       "byte_len=64", p2u(&cq));
	if (t.req_notify_cq(&cq, 0))
		return 23;
	expect("ibv_req_notify_cq", " cq=0x%lx ret=0", p2u(&cq));

	memset(&qa, 0, sizeof(qa));
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	xqp = t.create_qp_ex(ctx, &qa);
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	c = t.create_cq_ex(ctx, &ca);
	if (!xqp || !c)
		return 24;
	if (linked) {	/* the control path: the export's own lines */
		expect("ibv_create_qp_ex", " ctx=0x%lx ret=0x%lx", p2u(ctx), p2u(xqp));
		expect("ibv_create_cq_ex", " ctx=0x%lx ret=0x%lx", p2u(ctx), p2u(c));
	}
	x = ibv_qp_to_qp_ex(xqp);
	if (!strstr(where(&x->wr_send), "librdmaverbs-preload.so") ||
	    !strstr(where(&c->start_poll), "librdmaverbs-preload.so"))
		return 25;	/* the extended QP's and CQ's calls are not wrapped */
#define XQ " qp=0x%lx qpn=77"
	t.wr_start(x);
	expect_ex("ibv_wr_start", XQ, p2u(x));
	x->wr_id = 0x31;
	x->wr_flags = IBV_SEND_SIGNALED;
	t.wr_send(x);
	expect_ex("ibv_wr_send", XQ " wr_id=0x31 flags=0x2", p2u(x));
	t.wr_set_sge(x, 1, 0x2000, 64);
	expect_ex("ibv_wr_set_sge", XQ " lkey=0x1 addr=0x2000 length=64", p2u(x));
	x->wr_id = 0x32;
	x->wr_flags = 0;
	t.wr_rdma_write(x, 0x43, 0x9000);
	expect_ex("ibv_wr_rdma_write", XQ " wr_id=0x32 flags=0x0 remote_addr=0x9000 rkey=0x43", p2u(x));
	t.wr_set_sge(x, 2, 0x3000, 100);
	expect_ex("ibv_wr_set_sge", XQ " lkey=0x2 addr=0x3000 length=100", p2u(x));
	if (t.wr_complete(x))
		return 26;
	expect_ex("ibv_wr_complete", XQ " ret=0", p2u(x));

	fakeverbs_pending = 2;	/* wr_id 100 and 101, RECV, 64 bytes */
	if (t.start_poll(c, &pa) || t.wc_read_byte_len(c) != 64 || t.next_poll(c) ||
	    t.next_poll(c) != ENOENT)
		return 27;
	expect_ex("ibv_start_poll", " cq=0x%lx ret=0 wr_id=0x64 status=SUCCESS opcode=RECV byte_len=64",
	       p2u(c));
	expect_ex("ibv_next_poll", " cq=0x%lx ret=0 wr_id=0x65 status=SUCCESS opcode=RECV byte_len=64",
	       p2u(c));
	t.end_poll(c);
	expect_ex("ibv_end_poll", " cq=0x%lx", p2u(c));
	close_expected();

	if (ibv_destroy_qp(xqp) || ibv_destroy_cq(ibv_cq_ex_to_cq(c)) || ibv_close_device(ctx) ||
	    fakeverbs_calls.destroyed_wrapped || fakeverbs_calls.closed_wrapped)
		return 28;
	/* the provider's own ops, each reached once per call */
	if (fakeverbs_calls.post_send != 1 || fakeverbs_calls.post_recv != 1 ||
	    fakeverbs_calls.post_srq_recv != 1 || fakeverbs_calls.poll_cq != 1 ||
	    fakeverbs_calls.req_notify_cq != 1 || fakeverbs_calls.wr_start != 1 ||
	    fakeverbs_calls.wr_send != 1 || fakeverbs_calls.wr_rdma_write != 1 ||
	    fakeverbs_calls.wr_set_sge != 2 || fakeverbs_calls.wr_complete != 1 ||
	    fakeverbs_calls.start_poll != 1 || fakeverbs_calls.next_poll != 2 ||
	    fakeverbs_calls.end_poll != 1)
		return 29;

	/* the exit table: one row per function, each call once (an empty
	 * next_poll counted, not traced; the reader and the creations are
	 * exports the preload library's copies record, not wrapped ops) */
	if (open_expected(dir, mode, "expected-stats"))
		return 14;
	row(1, "ibv_wr_rdma_write", 1, 0);
	row(1, "ibv_wr_send", 1, 0);
	row(1, "ibv_wr_set_sge", 2, 164);
	row(1, "ibv_wr_start", 1, 0);
	row(1, "ibv_wr_complete", 1, 0);
	row(1, "ibv_start_poll", 1, 64);
	row(1, "ibv_next_poll", 2, 64);
	row(1, "ibv_end_poll", 1, 0);
	if (linked) {
		row(0, "ibv_wc_read_byte_len", 1, 0);
		row(0, "ibv_create_cq_ex", 1, 0);
		row(0, "ibv_create_qp_ex", 1, 0);
	}
	row(0, "ibv_poll_cq", 1, 64);
	row(0, "ibv_req_notify_cq", 1, 0);
	row(0, "ibv_post_srq_recv", 1, 64);
	row(0, "ibv_post_send", 1, 228);
	row(0, "ibv_post_recv", 1, 64);
	close_expected();
	return 0;
}

/* ---- the parent ---- */

static char dir[4096];

static int run(const char *self, const char *preload, const char *mode)
{
	char err[4200], trace[4200];

	snprintf(err, sizeof(err), "%s/%s.err", dir, mode);
	snprintf(trace, sizeof(trace), "%s/%s.trace", dir, mode);
	unlink(trace);
	return traced_run(self, preload, err, trace, 1, "child", dir, mode);
}

static char got[200][400], want[200][400];

/* Mismatches of MODE's trace file and exit table with what the child
 * expected (SUFFIX "": each call once),
 * each said when `say`. */
static int compare(const char *mode, const char *suffix, int say)
{
	char name[64];
	int n, m, i, j, tables = 0, bad = 0;

#define MISMATCH(...) do { bad++; if (say) FAIL(__VA_ARGS__); } while (0)
	snprintf(name, sizeof(name), "%s.trace", mode);
	n = traced_lines(dir, name, "rdmaverbs[", got, 200);
	snprintf(name, sizeof(name), "%s.expected%s", mode, suffix);
	m = traced_lines(dir, name, "rdmaverbs[", want, 200);
	if (n != m)
		MISMATCH("%s: %d trace lines, %d expected", mode, n, m);
	for (i = 0; i < n || i < m; i++)
		if (i >= n || i >= m || strcmp(got[i], want[i]))
			MISMATCH("%s: trace line %d:\n  got  %s\n  want %s", mode, i + 1,
				 i < n ? got[i] : "(none)", i < m ? want[i] : "(none)");
	/* the exit table: once, every row as expected, none more */
	snprintf(name, sizeof(name), "%s.err", mode);
	n = traced_lines(dir, name, "rdmaverbs: ", got, 200);
	snprintf(name, sizeof(name), "%s.expected-stats%s", mode, suffix);
	m = traced_lines(dir, name, "", want, 200);
	for (i = 0; i < n; i++) {
		char f[64], a[4][64], row[400];

		tables += !strncmp(got[i], "rdmaverbs: calls of process", 27);
		if (sscanf(got[i], "rdmaverbs: %63s %63s %63s %63s %63s", f, a[0], a[1], a[2],
			   a[3]) != 5 || !strcmp(f, "function") || !strcmp(f, "calls"))
			continue;
		snprintf(row, sizeof(row), "%s %s %s %s %s", f, a[0], a[1], a[2], a[3]);
		for (j = 0; j < m && strcmp(row, want[j]); j++)
			;
		if (j == m)
			MISMATCH("%s: exit table row \"%s\" not expected", mode, row);
		else
			want[j][0] = 0;
	}
	for (j = 0; j < m; j++)
		if (want[j][0])
			MISMATCH("%s: no exit table row \"%s\"", mode, want[j]);
	if (tables != 1)
		MISMATCH("%s: %d exit tables, want 1", mode, tables);
#undef MISMATCH
	return bad;
}

/* MODE's calls, each recorded once. */
static void check(const char *self, const char *preload, const char *mode)
{
	char name[64];
	int rc, before = failures;

	if ((rc = run(self, preload, mode))) {
		FAIL("%s: the child exited %d (10-12: the library or the copy of the exports "
		     "reached; 13, 25: not wrapped; 29: a provider op not reached once per "
		     "call; see %s/%s.err)", mode, rc, dir, mode);
		return;
	}
	snprintf(name, sizeof(name), "%s.expected", mode);
	compare(mode, "", 1);
	if (failures == before) {
		int n = traced_lines(dir, name, "rdmaverbs[", want, 200);

		snprintf(name, sizeof(name), "%s.expected-stats", mode);
		printf("verbs-preload: ok: %s: %d trace lines and %d exit table rows, each call "
		       "recorded once; every provider op reached once, through its wrapper\n",
		       mode, n, traced_lines(dir, name, "", want, 200));
	}
}

int main(int argc, char **argv)
{
	char self[4096];

	if (argc == 4 && !strcmp(argv[1], "child"))
		return child(argv[2], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: %s PRELOAD_SO DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	traced_self(self, sizeof(self));
	setvbuf(stdout, NULL, _IOLBF, 0);
	check(self, argv[1], "linked");
	check(self, argv[1], "library");
	printf("verbs-preload: %s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
