/*
 * The bindings' recording provider (make builds BUILD_DIR/bindings/
 * librecorder.so; bindings/run.sh names it in RDMAVERBS_RECORDER).
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* The ports of the fake route, in host order (test values). */
#define SRC_PORT 18577
#define DST_PORT 50000

static struct {
	struct verbs_context vctx;	/* its context: advise_mr set */
	struct ibv_pd pd;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_cq cq;
	struct rdma_cm_id id;
	struct ibv_qp_ex qpx;		/* an extended QP: wr_set_sge_list set */
} fake;

/* The fake context (an extended one, for ibv_advise_mr's verbs_get_ctx_op). */
#define CTX (fake.vctx.context)

static int posts, fail;
static int polled_array = -1;		/* recorder_polled_array */
static char last[2048];
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

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
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

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	return record_recvs("recv", wr, bad);
}

static int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	return record_recvs("srq_recv", wr, bad);
}

static int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
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

static void address(struct sockaddr *sa, uint16_t port, uint32_t addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr = { .s_addr = htonl(addr) } };

	memcpy(sa, &sin, sizeof(sin));
}

struct rdma_cm_id *recorder_id(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.vctx.sz = sizeof(fake.vctx);
	fake.vctx.advise_mr = advise_mr;
	CTX.abi_compat = __VERBS_ABI_IS_EXTENDED;
	CTX.ops.post_send = post_send;
	CTX.ops.post_recv = post_recv;
	CTX.ops.post_srq_recv = post_srq_recv;
	CTX.ops.poll_cq = poll_cq;
	CTX.ops.req_notify_cq = req_notify_cq;
	fake.pd.context = &CTX;
	fake.srq.context = &CTX;
	fake.srq.pd = &fake.pd;
	fake.cq.context = &CTX;
	fake.cq.cqe = 16;
	fake.qp.context = &CTX;
	fake.qp.pd = &fake.pd;
	fake.qp.qp_type = IBV_QPT_RC;
	fake.qpx.qp_base.context = &CTX;
	fake.qpx.qp_base.pd = &fake.pd;
	fake.qpx.qp_base.qp_type = IBV_QPT_RC;
	fake.qpx.wr_set_sge_list = wr_set_sge_list;
	fake.id.verbs = &CTX;
	fake.id.qp = &fake.qp;
	fake.id.pd = &fake.pd;
	fake.id.qp_type = IBV_QPT_RC;
	address(&fake.id.route.addr.src_addr, SRC_PORT, 0x0a000001);	/* 10.0.0.1 */
	address(&fake.id.route.addr.dst_addr, DST_PORT, 0x0a000002);	/* 10.0.0.2 */
	posts = 0;
	fail = 0;
	polled_array = -1;
	last[0] = '\0';
	read_late = 0;
	unsent.length = 0;
	sent_len = 0;
	return &fake.id;
}

struct ibv_qp *recorder_qp(void)
{
	return &fake.qp;
}

struct ibv_qp_ex *recorder_qp_ex(void)
{
	return &fake.qpx;
}

struct ibv_pd *recorder_pd(void)
{
	return &fake.pd;
}

struct ibv_srq *recorder_srq(void)
{
	return &fake.srq;
}

struct ibv_cq *recorder_cq(void)
{
	return &fake.cq;
}

static int poll_none(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	(void)n;
	(void)wc;
	return 0;
}

struct ibv_cq *recorder_empty_cq(void)
{
	static struct ibv_context ctx;
	static struct ibv_cq cq;

	ctx.ops.poll_cq = poll_none;
	cq.context = &ctx;
	return &cq;
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

/*
 * Buffers kept alive (issue 34): what a card does with a request after the
 * post returned, for a binding's test that drops every reference to a
 * posted buffer. Both read the requests of the last post from `last` (the
 * record above), so that the posts themselves are recorded as before.
 *
 *   const char *recorder_bytes(void)   the bytes at each SGE of the last
 *                                      post, read now: in hex, a space
 *                                      before each SGE's, " |" between
 *                                      requests (up to 256 bytes an SGE)
 *   void recorder_complete_last(void)  the next polls give the last post's
 *                                      requests' completions, in order:
 *                                      wr_id, SUCCESS, opcode (SEND for
 *                                      send and send_imm, RDMA_WRITE,
 *                                      RDMA_READ, COMP_SWAP, FETCH_ADD, RECV
 *                                      for recv and srq_recv), byte_len the
 *                                      sum of its SGEs' lengths, the rest 0;
 *                                      then polls are as before
 */
#define LAST_WRS 16
#define LAST_SGES 64

static struct {
	int wrs, sges, polled;
	uint64_t wr_id[LAST_WRS];
	enum ibv_wc_opcode opcode[LAST_WRS];
	uint32_t len[LAST_WRS];
	int first_sge[LAST_WRS + 1];
	uint64_t addr[LAST_SGES];
	uint32_t sge_len[LAST_SGES];
} parsed;

/* The requests of `last`, into `parsed`. */
static void parse_last(void)
{
	char copy[sizeof(last)], *save, *tok;
	int starting = 1;

	memset(&parsed, 0, sizeof(parsed));
	memcpy(copy, last, sizeof(last));
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		uint64_t u64;
		uint32_t len, lkey;
		int w = parsed.wrs - 1;

		if (!strcmp(tok, "|")) {
			starting = 1;
		} else if (starting) {
			if (parsed.wrs == LAST_WRS)
				break;
			w = parsed.wrs++;
			parsed.first_sge[w] = parsed.sges;
			parsed.opcode[w] = !strcmp(tok, "write") ? IBV_WC_RDMA_WRITE :
					   !strcmp(tok, "read") ? IBV_WC_RDMA_READ :
					   !strcmp(tok, "cas") ? IBV_WC_COMP_SWAP :
					   !strcmp(tok, "fadd") ? IBV_WC_FETCH_ADD :
					   strstr(tok, "recv") ? IBV_WC_RECV : IBV_WC_SEND;
			starting = 0;
		} else if (sscanf(tok, "wr_id=0x%" SCNx64, &u64) == 1) {
			parsed.wr_id[w] = u64;
		} else if (sscanf(tok, "sge=0x%" SCNx64 ":0x%" SCNx32 ":0x%" SCNx32, &u64, &len, &lkey) == 3 &&
			   parsed.sges < LAST_SGES) {
			parsed.addr[parsed.sges] = u64;
			parsed.sge_len[parsed.sges++] = len;
			parsed.len[w] += len;
		}
	}
	parsed.first_sge[parsed.wrs] = parsed.sges;
}

const char *recorder_bytes(void)
{
	static char hex[LAST_SGES * (2 * 256 + 1) + 2 * LAST_WRS + 1];
	size_t at = 0;

	parse_last();
	hex[0] = '\0';
	for (int w = 0; w < parsed.wrs; w++) {
		if (w)
			at += (size_t)snprintf(hex + at, sizeof(hex) - at, " |");
		for (int s = parsed.first_sge[w]; s < parsed.first_sge[w + 1]; s++) {
			const uint8_t *p = (const uint8_t *)(uintptr_t)parsed.addr[s];
			uint32_t n = parsed.sge_len[s] < 256 ? parsed.sge_len[s] : 256;

			at += (size_t)snprintf(hex + at, sizeof(hex) - at, " ");
			for (uint32_t i = 0; i < n; i++)
				at += (size_t)snprintf(hex + at, sizeof(hex) - at, "%02x", p[i]);
		}
	}
	return hex;
}

static int poll_last(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	posts++;
	for (i = 0; i < n && parsed.polled < parsed.wrs; i++, parsed.polled++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = parsed.wr_id[parsed.polled];
		wc[i].status = IBV_WC_SUCCESS;
		wc[i].opcode = parsed.opcode[parsed.polled];
		wc[i].byte_len = parsed.len[parsed.polled];
	}
	if (parsed.polled == parsed.wrs)
		CTX.ops.poll_cq = poll_cq;
	return i;
}

void recorder_complete_last(void)
{
	parse_last();
	CTX.ops.poll_cq = poll_last;
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

/*
 * Loopback (Python's test of buffers kept alive, bindings/python/tests):
 * recorder_loopback() puts ops in the fake context that record as above
 * and also queue each work request posted to the QP or the SRQ; a poll
 * then completes them in the order posted, as a device would, touching
 * their memory only then: a send's SGEs are read (the bytes kept for
 * recorder_wire) and written into the SGEs of the oldest receive not yet
 * filled. A completion: wr_id, SUCCESS, IBV_WC_SEND or IBV_WC_RECV,
 * byte_len, the QP's qp_num, all else 0. recorder_id() ends it.
 *
 *   void recorder_loopback(void)            the queue and the wire emptied
 *   size_t recorder_wire(void *out, size_t max)  the last send's bytes, as read
 */
#define LOOP_WRS 32
#define LOOP_SGES 4

static struct loop_wr {
	uint64_t wr_id;
	int recv, filled;
	uint32_t byte_len;
	int n;
	struct ibv_sge sge[LOOP_SGES];
} loop[LOOP_WRS];
static int loop_len;
static unsigned char wire[4096];
static size_t wire_len;

static void loop_queue(uint64_t wr_id, int recv, const struct ibv_sge *sge, int n)
{
	struct loop_wr *w = &loop[loop_len++];

	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->recv = recv;
	w->n = n < LOOP_SGES ? n : LOOP_SGES;
	if (w->n > 0)
		memcpy(w->sge, sge, sizeof(*sge) * (size_t)w->n);
	else
		w->n = 0;
}

static int loop_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int err = post_send(qp, wr, bad);

	for (; !err && wr && loop_len < LOOP_WRS; wr = wr->next)
		loop_queue(wr->wr_id, 0, wr->sg_list, wr->num_sge);
	return err;
}

static int loop_recvs(struct ibv_recv_wr *wr)
{
	for (; wr && loop_len < LOOP_WRS; wr = wr->next)
		loop_queue(wr->wr_id, 1, wr->sg_list, wr->num_sge);
	return 0;
}

static int loop_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int err = post_recv(qp, wr, bad);

	return err ? err : loop_recvs(wr);
}

static int loop_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int err = post_srq_recv(srq, wr, bad);

	return err ? err : loop_recvs(wr);
}

/* The device's work for a send: its bytes read now, into the wire and the
 * oldest receive not yet filled. */
static void loop_deliver(struct loop_wr *w)
{
	size_t at = 0;

	wire_len = 0;
	for (int i = 0; i < w->n; i++) {
		size_t len = w->sge[i].length;

		if (wire_len + len > sizeof(wire))
			len = sizeof(wire) - wire_len;
		memcpy(wire + wire_len, (const void *)(uintptr_t)w->sge[i].addr, len);
		wire_len += len;
	}
	w->byte_len = (uint32_t)wire_len;
	for (int k = 0; k < loop_len; k++) {
		struct loop_wr *r = &loop[k];

		if (!r->recv || r->filled)
			continue;
		for (int i = 0; i < r->n && at < wire_len; i++) {
			size_t len = r->sge[i].length < wire_len - at ? r->sge[i].length : wire_len - at;

			memcpy((void *)(uintptr_t)r->sge[i].addr, wire + at, len);
			at += len;
		}
		r->byte_len = (uint32_t)at;
		r->filled = 1;
		break;
	}
}

static int loop_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0;

	(void)cq;
	posts++;
	while (got < n) {
		int k = 0;

		/* the first work request that can complete: a send, or a receive filled */
		while (k < loop_len && loop[k].recv && !loop[k].filled)
			k++;
		if (k == loop_len)
			break;
		if (!loop[k].recv)
			loop_deliver(&loop[k]);
		memset(&wc[got], 0, sizeof(wc[got]));
		wc[got].wr_id = loop[k].wr_id;
		wc[got].status = IBV_WC_SUCCESS;
		wc[got].opcode = loop[k].recv ? IBV_WC_RECV : IBV_WC_SEND;
		wc[got].byte_len = loop[k].byte_len;
		wc[got].qp_num = fake.qp.qp_num;
		got++;
		memmove(&loop[k], &loop[k + 1], sizeof(loop[k]) * (size_t)(loop_len - k - 1));
		loop_len--;
	}
	return got;
}

void recorder_loopback(void)
{
	CTX.ops.post_send = loop_post_send;
	CTX.ops.post_recv = loop_post_recv;
	CTX.ops.post_srq_recv = loop_post_srq_recv;
	CTX.ops.poll_cq = loop_poll_cq;
	loop_len = 0;
	wire_len = 0;
}

size_t recorder_wire(void *out, size_t max)
{
	size_t n = wire_len < max ? wire_len : max;

	memcpy(out, wire, n);
	return n;
}
