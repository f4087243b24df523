/*
 * None of the functions allocates: malloc and its kin are replaced here,
 * counting, and a burst of calls of every function, on every path (success,
 * provider errors, the blocking completion loop, invalid input) must leave
 * the count at zero (after one burst before counting: see main). The
 * functions of <rdma/rdma_verbs.h> on the fake of fake.c; the data path of
 * RDMAVERBS_1.3 (the posts, ibv_poll_cq, ibv_req_notify_cq, every ibv_wr_*,
 * the extended CQ's polls and every ibv_wc_read_*), found with dlvsym, on
 * objects of its own here (burst13).
 *
 * Unwatched, and counted (RDMAVERBS_STATS=1 alone), the 1.3 data path also
 * makes no system call: a child runs its bursts (once first: a forked
 * child's first count claims its block) under a seccomp filter that traps
 * every system call (SIGSYS) but the exit, and the write of its report.
 * (Traced, a thread writes its buffer out itself when it fills.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __x86_64__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include <rdma/rdma_verbs.h>
#include <rdmaverbs.h>
#include "fake.h"
#include "functions.h"
#include "ours.h"

/* How many functions the table has (burst() calls each of them). */
#define ONE(ret, name, params, args) +1
enum { N_FN = 0 RDMAVERBS_FUNCTIONS(ONE) };

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile long allocs;	/* counted only while `counting` */
static volatile int counting;

void *malloc(size_t n)
{
	allocs += counting;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	allocs += counting;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	allocs += counting;
	return __libc_realloc(p, n);
}

void *memalign(size_t a, size_t n)
{
	allocs += counting;
	return __libc_memalign(a, n);
}

int posix_memalign(void **p, size_t a, size_t n)
{
	allocs += counting;
	*p = __libc_memalign(a, n);
	return *p ? 0 : ENOMEM;
}

void *aligned_alloc(size_t a, size_t n)
{
	allocs += counting;
	return __libc_memalign(a, n);
}

void free(void *p)
{
	__libc_free(p);
}

static struct fake F;
static char buf[256];

/* Every function once, on the script `s`. */
static long burst(const struct fake_script *s, int srq)
{
	struct ibv_sge sge[2] = { { (uintptr_t)buf, 8, 1 }, { (uintptr_t)buf, 8, 1 } };
	struct ibv_ah *ah = (struct ibv_ah *)&F;
	struct ibv_wc wc;
	long calls = 0;

	F.id.srq = srq ? &F.srq : NULL;
	F.mr.addr = buf;
	F.mr.length = sizeof(buf);
#define DO(call) do { fake_reset(&F, s); (void)(call); calls++; } while (0)
	DO(rdma_seterrno(s->post_ret));
	DO(rdma_reg_msgs(&F.id, buf, 8));
	DO(rdma_reg_read(&F.id, buf, 8));
	DO(rdma_reg_write(&F.id, buf, 8));
	DO(rdma_dereg_mr(&F.mr));
	DO(rdma_post_recvv(&F.id, NULL, sge, 2));
	DO(rdma_post_sendv(&F.id, NULL, sge, 2, 0));
	DO(rdma_post_readv(&F.id, NULL, sge, 2, 0, 1, 2));
	DO(rdma_post_writev(&F.id, NULL, sge, 2, 0, 1, 2));
	DO(rdma_post_recv(&F.id, NULL, buf, 8, &F.mr));
	DO(rdma_post_send(&F.id, NULL, buf, 8, NULL, IBV_SEND_INLINE));
	DO(rdma_post_read(&F.id, NULL, buf, 8, &F.mr, 0, 1, 2));
	DO(rdma_post_write(&F.id, NULL, buf, 8, &F.mr, 0, 1, 2));
	DO(rdma_post_ud_send(&F.id, NULL, buf, 8, &F.mr, 0, ah, 3));
	DO(rdma_get_send_comp(&F.id, &wc));
	DO(rdma_get_recv_comp(&F.id, &wc));
	DO(rdma_get_send_comp_timeout(&F.id, &wc, 1000));
	DO(rdma_get_recv_comp_timeout(&F.id, &wc, -1));
	DO(ours_rdma_get_local_addr()(&F.id));
	DO(ours_rdma_get_peer_addr()(&F.id));
	/* invalid input */
	DO(rdma_post_send(NULL, NULL, buf, 8, NULL, 0));
	DO(rdma_post_recv(&F.id, NULL, buf, (size_t)1 << 40, &F.mr));
	DO(rdma_get_send_comp(&F.id, NULL));
	DO(rdma_reg_msgs(NULL, buf, 8));
	DO(ours_rdma_get_peer_addr()(NULL));
	return calls;
}

/* ---- the data path of RDMAVERBS_1.3, on objects of its own ---- */

/* Ours, by dlvsym: V(ibv_post_send)(qp, wr, &bad). */
#define OURS13(ret, name, params, args) static ret (*ours_##name) params;
RDMAVERBS_VERBS_H_FUNCTIONS(OURS13)
#define V(name) ours_##name

static int find13(void)
{
	void *lib = dlopen("librdmaverbs.so.1", RTLD_NOW), *p;
	int missing = 0;

	if (!lib)
		return -1;
#define FIND13(ret, name, params, args)                                        \
	p = dlvsym(lib, #name, RDMAVERBS_NODE_##name);                               \
	missing += !p;                                                         \
	memcpy(&ours_##name, &p, sizeof(p));
	RDMAVERBS_VERBS_H_FUNCTIONS(FIND13)
	return missing ? -1 : 0;
}

/* What the objects' ops answer: 0 or an errno value (a poll: its
 * negative); how many completions a poll finds. */
static int answer13, found13;

static int p_post_send(struct ibv_qp *q, struct ibv_send_wr *w, struct ibv_send_wr **b)
{
	(void)q; (void)w; (void)b;
	return answer13;
}
static int p_post_recv(struct ibv_qp *q, struct ibv_recv_wr *w, struct ibv_recv_wr **b)
{
	(void)q; (void)w; (void)b;
	return answer13;
}
static int p_post_srq_recv(struct ibv_srq *q, struct ibv_recv_wr *w, struct ibv_recv_wr **b)
{
	(void)q; (void)w; (void)b;
	return answer13;
}
static int p_wq_post_recv(struct ibv_wq *q, struct ibv_recv_wr *w, struct ibv_recv_wr **b)
{
	(void)q; (void)w; (void)b;
	return answer13;
}
static int p_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	if (answer13)
		return -answer13;
	for (i = 0; i < found13 && i < n; i++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = (uint64_t)i;
		wc[i].opcode = i ? IBV_WC_SEND : IBV_WC_RECV;
		wc[i].byte_len = 8;
	}
	return i;
}
static int p_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq; (void)solicited;
	return answer13;
}

static void x_atomic_cmp_swp(struct ibv_qp_ex *q, uint32_t k, uint64_t a, uint64_t c, uint64_t s)
{
	(void)q; (void)k; (void)a; (void)c; (void)s;
}
static void x_atomic_fetch_add(struct ibv_qp_ex *q, uint32_t k, uint64_t a, uint64_t add)
{
	(void)q; (void)k; (void)a; (void)add;
}
static void x_bind_mw(struct ibv_qp_ex *q, struct ibv_mw *mw, uint32_t k,
		      const struct ibv_mw_bind_info *i)
{
	(void)q; (void)mw; (void)k; (void)i;
}
static void x_qp_u32(struct ibv_qp_ex *q, uint32_t v) { (void)q; (void)v; }
static void x_rdma(struct ibv_qp_ex *q, uint32_t k, uint64_t a) { (void)q; (void)k; (void)a; }
static void x_rdma_imm(struct ibv_qp_ex *q, uint32_t k, uint64_t a, __be32 imm)
{
	(void)q; (void)k; (void)a; (void)imm;
}
static void x_qp(struct ibv_qp_ex *q) { (void)q; }
static void x_send_imm(struct ibv_qp_ex *q, __be32 imm) { (void)q; (void)imm; }
static void x_send_tso(struct ibv_qp_ex *q, void *h, uint16_t hs, uint16_t mss)
{
	(void)q; (void)h; (void)hs; (void)mss;
}
static void x_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	(void)q; (void)ah; (void)qpn; (void)qkey;
}
static void x_inline(struct ibv_qp_ex *q, void *a, size_t n) { (void)q; (void)a; (void)n; }
static void x_inline_list(struct ibv_qp_ex *q, size_t n, const struct ibv_data_buf *l)
{
	(void)q; (void)n; (void)l;
}
static void x_sge(struct ibv_qp_ex *q, uint32_t k, uint64_t a, uint32_t n)
{
	(void)q; (void)k; (void)a; (void)n;
}
static void x_sge_list(struct ibv_qp_ex *q, size_t n, const struct ibv_sge *l)
{
	(void)q; (void)n; (void)l;
}
static int x_complete(struct ibv_qp_ex *q) { (void)q; return answer13; }
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
static void x_atomic_write(struct ibv_qp_ex *q, uint32_t k, uint64_t a, const void *w)
{
	(void)q; (void)k; (void)a; (void)w;
}
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
static void x_flush(struct ibv_qp_ex *q, uint32_t k, uint64_t a, size_t n, uint8_t t, uint8_t l)
{
	(void)q; (void)k; (void)a; (void)n; (void)t; (void)l;
}
#endif

/* The extended CQ: found13 completions, then ENOENT (an answer13 fails
 * the poll). */
static int left13;
static int c_next(struct ibv_cq_ex *cq)
{
	if (answer13)
		return answer13;
	if (!left13)
		return ENOENT;
	cq->wr_id = (uint64_t)left13--;
	cq->status = IBV_WC_SUCCESS;
	return 0;
}
static int c_start(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *a)
{
	(void)a;
	left13 = found13;
	return c_next(cq);
}
static void c_end(struct ibv_cq_ex *cq) { (void)cq; }
static enum ibv_wc_opcode c_opcode(struct ibv_cq_ex *cq) { (void)cq; return IBV_WC_RECV; }
static uint32_t c_u32(struct ibv_cq_ex *cq) { (void)cq; return 8; }
static unsigned int c_uint(struct ibv_cq_ex *cq) { (void)cq; return 0; }
static uint8_t c_u8(struct ibv_cq_ex *cq) { (void)cq; return 1; }
static uint16_t c_u16(struct ibv_cq_ex *cq) { (void)cq; return 2; }
static uint64_t c_u64(struct ibv_cq_ex *cq) { (void)cq; return 3; }
static void c_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *t)
{
	(void)cq;
	t->tag = 4;
	t->priv = 5;
}

static struct ibv_context ctx13;
static struct ibv_qp qp13;
static struct ibv_srq srq13;
static struct ibv_cq cq13;
static struct ibv_wq wq13;
static struct ibv_qp_ex qpx13;
static struct ibv_cq_ex cqx13;

static void init13(void)
{
	struct ibv_qp_ex *x = &qpx13;
	struct ibv_cq_ex *c = &cqx13;

	ctx13.ops.post_send = p_post_send;
	ctx13.ops.post_recv = p_post_recv;
	ctx13.ops.post_srq_recv = p_post_srq_recv;
	ctx13.ops.poll_cq = p_poll_cq;
	ctx13.ops.req_notify_cq = p_req_notify_cq;
	qp13.context = srq13.context = cq13.context = wq13.context = &ctx13;
	qp13.qp_num = 13;
	wq13.post_recv = p_wq_post_recv;
	x->qp_base.context = &ctx13;
	x->qp_base.qp_num = 14;
	x->wr_atomic_cmp_swp = x_atomic_cmp_swp;
	x->wr_atomic_fetch_add = x_atomic_fetch_add;
	x->wr_bind_mw = x_bind_mw;
	x->wr_local_inv = x_qp_u32;
	x->wr_rdma_read = x_rdma;
	x->wr_rdma_write = x_rdma;
	x->wr_rdma_write_imm = x_rdma_imm;
	x->wr_send = x_qp;
	x->wr_send_imm = x_send_imm;
	x->wr_send_inv = x_qp_u32;
	x->wr_send_tso = x_send_tso;
	x->wr_set_ud_addr = x_ud_addr;
	x->wr_set_xrc_srqn = x_qp_u32;
	x->wr_set_inline_data = x_inline;
	x->wr_set_inline_data_list = x_inline_list;
	x->wr_set_sge = x_sge;
	x->wr_set_sge_list = x_sge_list;
	x->wr_start = x_qp;
	x->wr_complete = x_complete;
	x->wr_abort = x_qp;
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	x->wr_atomic_write = x_atomic_write;
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	x->wr_flush = x_flush;
#endif
	c->context = &ctx13;
	c->start_poll = c_start;
	c->next_poll = c_next;
	c->end_poll = c_end;
	c->read_opcode = c_opcode;
	c->read_vendor_err = c_u32;
	c->read_byte_len = c_u32;
	c->read_imm_data = c_u32;
	c->read_qp_num = c_u32;
	c->read_src_qp = c_u32;
	c->read_wc_flags = c_uint;
	c->read_slid = c_u32;
	c->read_sl = c_u8;
	c->read_dlid_path_bits = c_u8;
	c->read_completion_ts = c_u64;
	c->read_cvlan = c_u16;
	c->read_flow_tag = c_u32;
	c->read_tm_info = c_tm_info;
	c->read_completion_wallclock_ns = c_u64;
}

/* The data path of 1.3 once: every function of it, the ops answering
 * `answer`, polls finding `found` completions; then refused input. */
static long burst13(int answer, int found)
{
	struct ibv_sge sge[2] = { { (uintptr_t)buf, 8, 1 }, { (uintptr_t)buf + 8, 8, 1 } };
	struct ibv_send_wr s[2], *sbad;
	struct ibv_recv_wr r[2], *rbad;
	struct ibv_data_buf bufs[2] = { { buf, 8 }, { buf + 8, 8 } };
	struct ibv_mw_bind_info info;
	struct ibv_poll_cq_attr attr = { 0 };
	struct ibv_wc_tm_info tm;
	struct ibv_wc wc[4];
	struct ibv_qp_ex *x = &qpx13;
	struct ibv_cq_ex *c = &cqx13;
	long calls = 0;
	int more;

	answer13 = answer;
	found13 = found;
	memset(s, 0, sizeof(s));
	s[0].next = &s[1];
	s[0].sg_list = sge;
	s[0].num_sge = 2;
	s[1].sg_list = sge;
	s[1].num_sge = 1;
	s[1].opcode = IBV_WR_RDMA_WRITE;
	memset(r, 0, sizeof(r));
	r[0].next = &r[1];
	r[0].sg_list = sge;
	r[0].num_sge = 2;
	r[1].sg_list = sge;
	r[1].num_sge = 1;
	memset(&info, 0, sizeof(info));
#undef DO
#define DO(call) do { (void)(call); calls++; } while (0)
	DO(V(ibv_post_send)(&qp13, s, &sbad));
	DO(V(ibv_post_recv)(&qp13, r, &rbad));
	DO(V(ibv_post_srq_recv)(&srq13, r, &rbad));
	DO(V(ibv_post_wq_recv)(&wq13, r, &rbad));
	DO(V(ibv_poll_cq)(&cq13, 4, wc));
	DO(V(ibv_req_notify_cq)(&cq13, 1));
	DO(V(ibv_wr_start)(x));
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	DO(V(ibv_wr_send)(x));
	DO(V(ibv_wr_send_imm)(x, 7));
	DO(V(ibv_wr_send_inv)(x, 8));
	DO(V(ibv_wr_send_tso)(x, buf, 16, 1460));
	DO(V(ibv_wr_rdma_write)(x, 1, 0x1000));
	DO(V(ibv_wr_rdma_write_imm)(x, 1, 0x1000, 9));
	DO(V(ibv_wr_rdma_read)(x, 1, 0x1000));
	DO(V(ibv_wr_atomic_cmp_swp)(x, 1, 0x1000, 2, 3));
	DO(V(ibv_wr_atomic_fetch_add)(x, 1, 0x1000, 4));
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	DO(V(ibv_wr_atomic_write)(x, 1, 0x1000, buf));
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	DO(V(ibv_wr_flush)(x, 1, 0x1000, 64, 1, 2));
#endif
	DO(V(ibv_wr_bind_mw)(x, NULL, 5, &info));
	DO(V(ibv_wr_local_inv)(x, 6));
	DO(V(ibv_wr_set_sge)(x, 1, (uintptr_t)buf, 8));
	DO(V(ibv_wr_set_sge_list)(x, 2, sge));
	DO(V(ibv_wr_set_inline_data)(x, buf, 8));
	DO(V(ibv_wr_set_inline_data_list)(x, 2, bufs));
	DO(V(ibv_wr_set_ud_addr)(x, NULL, 10, 11));
	DO(V(ibv_wr_set_xrc_srqn)(x, 12));
	DO(V(ibv_wr_complete)(x));
	DO(V(ibv_wr_abort)(x));
	DO(more = V(ibv_start_poll)(c, &attr));
	do {	/* every reader of each completion found */
		DO(V(ibv_wc_read_opcode)(c));
		DO(V(ibv_wc_read_vendor_err)(c));
		DO(V(ibv_wc_read_byte_len)(c));
		DO(V(ibv_wc_read_imm_data)(c));
		DO(V(ibv_wc_read_invalidated_rkey)(c));
		DO(V(ibv_wc_read_qp_num)(c));
		DO(V(ibv_wc_read_src_qp)(c));
		DO(V(ibv_wc_read_wc_flags)(c));
		DO(V(ibv_wc_read_slid)(c));
		DO(V(ibv_wc_read_sl)(c));
		DO(V(ibv_wc_read_dlid_path_bits)(c));
		DO(V(ibv_wc_read_completion_ts)(c));
		DO(V(ibv_wc_read_completion_wallclock_ns)(c));
		DO(V(ibv_wc_read_cvlan)(c));
		DO(V(ibv_wc_read_flow_tag)(c));
		DO(V(ibv_wc_read_tm_info)(c, &tm));
		DO(more = V(ibv_next_poll)(c));
	} while (!more);
	DO(V(ibv_end_poll)(c));
	/* invalid input */
	DO(V(ibv_post_send)(NULL, s, &sbad));
	DO(V(ibv_post_recv)(&qp13, NULL, &rbad));
	DO(V(ibv_poll_cq)(&cq13, 4, NULL));
	DO(V(ibv_req_notify_cq)(NULL, 0));
	DO(V(ibv_wr_send)(NULL));
	DO(V(ibv_wr_complete)(NULL));
	DO(V(ibv_start_poll)(NULL, &attr));
	DO(V(ibv_end_poll)(NULL));
	DO(V(ibv_wc_read_byte_len)(NULL));
	DO(V(ibv_wc_read_tm_info)(NULL, &tm));
	return calls;
}

/* Each way through the 1.3 data path: completions found, none, failures. */
static long bursts13(void)
{
	return burst13(0, 2) + burst13(0, 0) + burst13(ENOMEM, 0);
}

#ifdef __x86_64__
static volatile long trapped;
static volatile int first_trapped = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (!trapped++)
		first_trapped = si->si_syscall;
}

/* In a child: the 1.3 bursts (once before) under a filter that traps
 * every system call but exit_group, rt_sigreturn (the trap handler's
 * return) and the write of the report on its pipe. -2 if the kernel
 * refused the filter, -1 if the child failed otherwise; else the calls
 * trapped (*nr the first one's number). */
static long no_syscalls(long *nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 2, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),	/* the report's fd, set below */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	struct sigaction sa;
	long report[2] = { -1, -1 };
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		return -1;
	f[10].k = (uint32_t)p[1];
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		bursts13();	/* a forked child's first count claims its block */
		if (sigaction(SIGSYS, &sa, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(2);
		bursts13();
		report[0] = trapped;
		report[1] = first_trapped;
		if (write(p[1], report, sizeof(report)) != sizeof(report))
			syscall(__NR_exit_group, 3);
		syscall(__NR_exit_group, 0);
	}
	close(p[1]);
	if (read(p[0], report, sizeof(report)) != sizeof(report))
		report[0] = -1;
	close(p[0]);
	waitpid(pid, &st, 0);
	*nr = report[1];
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
		return -2;	/* no seccomp filter here */
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? report[0] : -1;
}
#endif

int main(void)
{
	/* a completion after one wait; then provider failures of each kind */
	static const struct fake_script ok = {
		.npoll = 3, .poll_ret = { 0, 0, 1 }, .nnotify = 1, .nevent = 1,
	};
	static struct fake_script fail = {
		.post_ret = ENOMEM, .npoll = 2, .poll_ret = { 0, -5 }, .nnotify = 1,
		.dereg_ret = EBUSY, .reg_errno = ENOMEM,
	};
	long calls = 0, calls13 = 0;
	int i, traced = getenv("RDMAVERBS_TRACE") != NULL;
	const char *how = traced ? "traced" : getenv("RDMAVERBS_STATS") ? "counted" : "unwatched";

	fake_init(&F);
	fail.reg_ret = NULL;
	if (find13()) {
		fprintf(stderr, "noalloc: ours not found at RDMAVERBS_1.3\n");
		return 2;
	}
	init13();
	/* Once, before counting: with RDMAVERBS_TRACE=FILE the first line a
	 * process traces starts the trace's writer thread, whose creation
	 * allocates (its stack, glibc's thread structures). Every call after
	 * that allocates nothing. */
	burst(&ok, 0);
	bursts13();
	counting = 1;
	for (i = 0; i < 1000; i++) {
		calls += burst(&ok, i & 1);
		calls += burst(&fail, i & 1);
		calls13 += bursts13();
	}
	counting = 0;
	printf("noalloc: %s: %ld calls of the 20 functions of <rdma/rdma_verbs.h> and %ld of "
	       "the 46 of RDMAVERBS_1.3's data path, %ld allocations\n", how, calls, calls13,
	       allocs);
	i = allocs != 0;
#ifdef __x86_64__
	if (!traced) {
		long nr, n = no_syscalls(&nr);

		if (n == -2)
			printf("noalloc: %s: system calls not checked: this kernel refused the seccomp "
			       "filter\n", how);
		else if (n)
			printf("noalloc: FAIL: %s: the 1.3 data path under seccomp: %ld system calls "
			       "(the first: number %ld; -1: the child could not run)\n", how, n, nr);
		else
			printf("noalloc: %s: the 1.3 data path makes no system call (seccomp)\n", how);
		i += n != 0 && n != -2;
	}
#endif
	printf("noalloc: %d passed, %d failed\n", !i, i != 0);
	return i != 0;
}
