/* noalloc's data path of RDMAVERBS_1.3 (noalloc.h): ours found by dlvsym,
 * objects of its own whose ops answer as told, and a burst of every function
 * of the data path over them. */
#define _GNU_SOURCE	/* dlvsym */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include "functions.h"
#include "noalloc.h"

static char buf13[256];

/* Ours, by dlvsym: V(ibv_post_send)(qp, wr, &bad). */
#define OURS13(ret, name, params, args) static ret (*ours_##name) params;
RDMAVERBS_VERBS_H_FUNCTIONS(OURS13)
#define V(name) ours_##name

int find13(void)
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

void init13(void)
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
	struct ibv_sge sge[2] = { { (uintptr_t)buf13, 8, 1 }, { (uintptr_t)buf13 + 8, 8, 1 } };
	struct ibv_send_wr s[2], *sbad;
	struct ibv_recv_wr r[2], *rbad;
	struct ibv_data_buf bufs[2] = { { buf13, 8 }, { buf13 + 8, 8 } };
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
	DO(V(ibv_wr_send_tso)(x, buf13, 16, 1460));
	DO(V(ibv_wr_rdma_write)(x, 1, 0x1000));
	DO(V(ibv_wr_rdma_write_imm)(x, 1, 0x1000, 9));
	DO(V(ibv_wr_rdma_read)(x, 1, 0x1000));
	DO(V(ibv_wr_atomic_cmp_swp)(x, 1, 0x1000, 2, 3));
	DO(V(ibv_wr_atomic_fetch_add)(x, 1, 0x1000, 4));
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	DO(V(ibv_wr_atomic_write)(x, 1, 0x1000, buf13));
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	DO(V(ibv_wr_flush)(x, 1, 0x1000, 64, 1, 2));
#endif
	DO(V(ibv_wr_bind_mw)(x, NULL, 5, &info));
	DO(V(ibv_wr_local_inv)(x, 6));
	DO(V(ibv_wr_set_sge)(x, 1, (uintptr_t)buf13, 8));
	DO(V(ibv_wr_set_sge_list)(x, 2, sge));
	DO(V(ibv_wr_set_inline_data)(x, buf13, 8));
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
long bursts13(void)
{
	return burst13(0, 2) + burst13(0, 0) + burst13(ENOMEM, 0);
}

