/*
 * The bindings' recording provider (make builds BUILD_DIR/bindings/
 * librecorder.so; bindings/run.sh names it in RDMAVERBS_RECORDER): this
 * file, the record and the ops that make it; objects.c, the fake objects;
 * last.c, the bytes and completions of the last post; loopback.c, a device
 * that completes what was posted.
 *
 * Each binding's test loads it with its own FFI, posts through
 * librdmaverbs (the vectored calls rdma_post_sendv, recvv, readv, writev
 * on the fake id; ibv_post_send, ibv_post_recv, ibv_post_srq_recv,
 * ibv_poll_cq and ibv_req_notify_cq, RDMAVERBS_1.3, on its QP, SRQ and CQ;
 * ibv_wr_set_sge_list on its extended QP; ibv_advise_mr on its PD)
 * with the language's own arrays and structs, and compares what the
 * provider received, field by field, with what it passed. No RDMA device,
 * no libibverbs call: the objects share a context whose ops record what
 * they are handed. The id's route holds two IPv4 addresses with known
 * ports, for rdma_get_src_port and rdma_get_dst_port (librdmacm reads them
 * there).
 *
 *   struct rdma_cm_id *recorder_id(void)   the fake id, the record cleared
 *   struct ibv_qp *recorder_qp(void)       its QP (RC)
 *   struct ibv_srq *recorder_srq(void)     an SRQ
 *   struct ibv_cq *recorder_cq(void)       a CQ: a poll of n fills
 *                                          min(n, 3) completions (below)
 *   struct ibv_cq *recorder_empty_cq(void) a CQ (of a context of its own)
 *                                          whose polls find nothing: a
 *                                          wait on it waits (the tests of
 *                                          a wait that a close ends)
 *   struct ibv_qp_ex *recorder_qp_ex(void) an extended QP: its
 *                                          ibv_wr_set_sge_list is recorded
 *   struct ibv_pd *recorder_pd(void)       the PD, on a context whose
 *                                          ibv_advise_mr is recorded
 *   void recorder_fail(int err)            the next post returns err (*bad:
 *                                          its first work request), or the
 *                                          next poll -1 with errno err;
 *                                          nothing recorded
 *   int recorder_posts(void)               calls recorded so far
 *   int recorder_polled_array(void)        whether the last poll of the CQ
 *                                          was given an array (1) or NULL
 *                                          (0); -1 before any
 *   void recorder_read_late(void)          the next post_send's first SGE is
 *                                          read by the poll after it (below)
 *   int recorder_sent(void *out, int max)  the bytes that poll read (256 at
 *                                          most): how many
 *   const char *recorder_last(void)        the last one, as text:
 *     "send wr_id=0x300 flags=0x2 sge=ADDR:LENGTH:LKEY sge=..."
 *     "send_imm wr_id=... flags=... imm=0x... sge=..."
 *     "write wr_id=... flags=... remote=0x... rkey=0x... sge=..." (read too)
 *     "cas wr_id=... flags=... remote=0x... rkey=0x... compare=0x... swap=0x... sge=..."
 *     "fadd wr_id=... flags=... remote=0x... rkey=0x... add=0x... sge=..."
 *     "recv wr_id=... sge=...", "srq_recv wr_id=... sge=..."
 *     "notify solicited_only=N"
 *     "sge_list sge=...", "advise advice=0x... flags=0x... sge=..."
 *   each number in hex, every SGE of the request in order, the work
 *   requests of a list (next) joined by " | ".
 *
 * The completions of a poll, i = 0, 1, 2: wr_id 0x5000+i, status
 * SUCCESS, SUCCESS, REM_ACCESS_ERR, opcode RECV, COMP_SWAP, FETCH_ADD,
 * vendor_err 0x100+i, byte_len 0x40+i, imm_data 0xa0b0c0d0+i, qp_num
 * 0x1100+i, src_qp 0x2200+i, wc_flags WITH_IMM, 0, 0, pkey_index 0x30+i,
 * slid 0x4400+i, sl 1+i, dlid_path_bits 0x50+i.
 *
 * The card's late read, for the buffer-lifetime tests: after
 * recorder_read_late, a post_send's first SGE is read when the next poll is
 * made (a card reads a buffer when it sends it, after the post returned),
 * not when it is posted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "recorder.h"

struct recorder_fake fake;

int posts;
static int fail;
static int polled_array = -1;		/* recorder_polled_array */
char last[2048];
static int read_late;			/* recorder_read_late: the next post_send's SGE to read */
static struct ibv_sge unsent;		/* that SGE, not yet read */
static unsigned char sent[256];		/* what the poll after it read there */
static uint32_t sent_len;

/* Appends to `last`; what does not fit is cut (the comparison then fails). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	size_t used = strlen(last);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last + used, sizeof(last) - used, fmt, ap);
	va_end(ap);
}

static void record_sges(const struct ibv_sge *sgl, int n)
{
	for (int i = 0; i < n; i++)
		say(" sge=0x%" PRIx64 ":0x%" PRIx32 ":0x%" PRIx32, sgl[i].addr, sgl[i].length,
		    sgl[i].lkey);
}

static const char *opcode_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND: return "send";
	case IBV_WR_SEND_WITH_IMM: return "send_imm";
	case IBV_WR_RDMA_WRITE: return "write";
	case IBV_WR_RDMA_READ: return "read";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "cas";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "fadd";
	default: return NULL;
	}
}

/* Whether a post is to fail (recorder_fail): then nothing is recorded. */
static int failing(void)
{
	int err = fail;

	fail = 0;
	return err;
}

int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int err = failing();

	(void)qp;
	if (err) {
		*bad = wr;
		return err;
	}
	posts++;
	last[0] = '\0';
	if (read_late && wr && wr->num_sge > 0) {
		unsent = wr->sg_list[0];
		read_late = 0;
	}
	for (; wr; wr = wr->next) {
		const char *name = opcode_name(wr->opcode);

		if (name)
			say("%s wr_id=0x%" PRIx64 " flags=0x%x", name, wr->wr_id, wr->send_flags);
		else
			say("opcode%d wr_id=0x%" PRIx64, (int)wr->opcode, wr->wr_id);
		switch (wr->opcode) {
		case IBV_WR_SEND_WITH_IMM:
			say(" imm=0x%" PRIx32, wr->imm_data);
			break;
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_READ:
			say(" remote=0x%" PRIx64 " rkey=0x%" PRIx32, wr->wr.rdma.remote_addr,
			    wr->wr.rdma.rkey);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			say(" remote=0x%" PRIx64 " rkey=0x%" PRIx32 " compare=0x%" PRIx64 " swap=0x%" PRIx64,
			    wr->wr.atomic.remote_addr, wr->wr.atomic.rkey, wr->wr.atomic.compare_add,
			    wr->wr.atomic.swap);
			break;
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			say(" remote=0x%" PRIx64 " rkey=0x%" PRIx32 " add=0x%" PRIx64,
			    wr->wr.atomic.remote_addr, wr->wr.atomic.rkey, wr->wr.atomic.compare_add);
			break;
		default:
			break;
		}
		record_sges(wr->sg_list, wr->num_sge);
		if (wr->next)
			say(" | ");
	}
	return 0;
}

static int record_recvs(const char *name, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int err = failing();

	if (err) {
		*bad = wr;
		return err;
	}
	posts++;
	last[0] = '\0';
	for (; wr; wr = wr->next) {
		say("%s wr_id=0x%" PRIx64, name, wr->wr_id);
		record_sges(wr->sg_list, wr->num_sge);
		if (wr->next)
			say(" | ");
	}
	return 0;
}

int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	return record_recvs("recv", wr, bad);
}

int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	return record_recvs("srq_recv", wr, bad);
}

int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	static const enum ibv_wc_status status[] = { IBV_WC_SUCCESS, IBV_WC_SUCCESS,
						     IBV_WC_REM_ACCESS_ERR };
	static const enum ibv_wc_opcode opcode[] = { IBV_WC_RECV, IBV_WC_COMP_SWAP,
						     IBV_WC_FETCH_ADD };
	int err = failing(), i;

	(void)cq;
	polled_array = wc != NULL;
	if (err) {
		errno = err;
		return -1;
	}
	posts++;
	if (unsent.length) {
		sent_len = unsent.length < sizeof(sent) ? unsent.length : sizeof(sent);
		memcpy(sent, (const void *)(uintptr_t)unsent.addr, sent_len);
		unsent.length = 0;
	}
	for (i = 0; i < n && i < 3; i++) {
		wc[i].wr_id = 0x5000 + (uint64_t)i;
		wc[i].status = status[i];
		wc[i].opcode = opcode[i];
		wc[i].vendor_err = 0x100 + (uint32_t)i;
		wc[i].byte_len = 0x40 + (uint32_t)i;
		wc[i].imm_data = 0xa0b0c0d0 + (uint32_t)i;
		wc[i].qp_num = 0x1100 + (uint32_t)i;
		wc[i].src_qp = 0x2200 + (uint32_t)i;
		wc[i].wc_flags = i == 0 ? IBV_WC_WITH_IMM : 0;
		wc[i].pkey_index = (uint16_t)(0x30 + i);
		wc[i].slid = (uint16_t)(0x4400 + i);
		wc[i].sl = (uint8_t)(1 + i);
		wc[i].dlid_path_bits = (uint8_t)(0x50 + i);
	}
	return i;
}

static int req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	posts++;
	last[0] = '\0';
	say("notify solicited_only=%d", solicited_only);
	return 0;
}

static void wr_set_sge_list(struct ibv_qp_ex *qp, size_t n, const struct ibv_sge *sgl)
{
	(void)qp;
	posts++;
	last[0] = '\0';
	say("sge_list");
	record_sges(sgl, (int)n);
}

static int advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		     struct ibv_sge *sgl, uint32_t n)
{
	int err = failing();

	(void)pd;
	if (err)
		return err;
	posts++;
	last[0] = '\0';
	say("advise advice=0x%x flags=0x%" PRIx32, (unsigned)advice, flags);
	record_sges(sgl, (int)n);
	return 0;
}

/* The record cleared, the recording ops in the fake context (a new
 * recorder_id). */
void record_start(void)
{
	fake.vctx.advise_mr = advise_mr;
	CTX.ops.post_send = post_send;
	CTX.ops.post_recv = post_recv;
	CTX.ops.post_srq_recv = post_srq_recv;
	CTX.ops.poll_cq = poll_cq;
	CTX.ops.req_notify_cq = req_notify_cq;
	fake.qpx.wr_set_sge_list = wr_set_sge_list;
	posts = 0;
	fail = 0;
	polled_array = -1;
	last[0] = '\0';
	read_late = 0;
	unsent.length = 0;
	sent_len = 0;
}

void recorder_fail(int err)
{
	fail = err;
}

int recorder_posts(void)
{
	return posts;
}

int recorder_polled_array(void)
{
	return polled_array;
}

const char *recorder_last(void)
{
	return last;
}

void recorder_read_late(void)
{
	read_late = 1;
}

int recorder_sent(void *out, int max)
{
	int n = (int)sent_len < max ? (int)sent_len : max;

	memcpy(out, sent, (size_t)(n > 0 ? n : 0));
	return n;
}
