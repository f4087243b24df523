/*
 * The verbs-trace child's calls of the extended QP and CQ: every ibv_wr_*
 * builder (a line per call), ibv_start_poll, ibv_next_poll and
 * ibv_end_poll (a found completion's line, none for ENOENT), and the 16
 * ibv_wc_read_* readers (counted, no line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "verbs-trace-shared.h"

/* The extended QP: a line per call of every ibv_wr_*. */
void builders(void)
{
	struct ibv_qp_ex *x = &W.qpx;
	struct ibv_data_buf bufs[2] = { { data, 7 }, { data + 100, 1000 } };
	struct ibv_mw_bind_info info = { 0 };
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	uint64_t atomic = 5;
#endif
	char hdr[16];
	int ret;

#define XQ p2u(x), x->qp_base.qp_num
	V(ibv_wr_start)(x);
	expect(F_ibv_wr_start, QP, XQ);
	count(F_ibv_wr_start, 0, 0);
	/* each opcode call: wr_id and flags as the QP has them, and the remote
	 * address and key of an RDMA or atomic one */
#define OPCODE(fn, id, flags, call, remote) do {                               \
	x->wr_id = id;                                                         \
	x->wr_flags = flags;                                                   \
	call;                                                                  \
	expect(F_##fn, QP " wr_id=0x%x flags=0x%x%s", XQ, id, flags, remote);  \
	count(F_##fn, 0, 0);                                                   \
} while (0)
	OPCODE(ibv_wr_rdma_write, 0x41, IBV_SEND_SIGNALED, V(ibv_wr_rdma_write)(x, 0x99, 0xabc000),
	       " remote_addr=0xabc000 rkey=0x99");
	OPCODE(ibv_wr_rdma_write_imm, 0x42, 0, V(ibv_wr_rdma_write_imm)(x, 0x98, 0xabd000, 7),
	       " remote_addr=0xabd000 rkey=0x98");
	OPCODE(ibv_wr_rdma_read, 0x43, IBV_SEND_FENCE,
	       V(ibv_wr_rdma_read)(x, UINT32_MAX, UINT64_MAX),
	       " remote_addr=0xffffffffffffffff rkey=0xffffffff");
	OPCODE(ibv_wr_atomic_cmp_swp, 0x44, IBV_SEND_SIGNALED,
	       V(ibv_wr_atomic_cmp_swp)(x, 0x55, 0x8000, 1, 2), " remote_addr=0x8000 rkey=0x55");
	OPCODE(ibv_wr_atomic_fetch_add, 0x45, 0, V(ibv_wr_atomic_fetch_add)(x, 0x56, 0x8008, 3),
	       " remote_addr=0x8008 rkey=0x56");
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	OPCODE(ibv_wr_atomic_write, 0x46, 0, V(ibv_wr_atomic_write)(x, 0x57, 0x8010, &atomic),
	       " remote_addr=0x8010 rkey=0x57");
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	OPCODE(ibv_wr_flush, 0x4d, IBV_SEND_SIGNALED, V(ibv_wr_flush)(x, 0x58, 0x8018, 64, 1, 2),
	       " remote_addr=0x8018 rkey=0x58");
#endif
	OPCODE(ibv_wr_send, 0x47, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED, V(ibv_wr_send)(x), "");
	OPCODE(ibv_wr_send_imm, 0x48, 0, V(ibv_wr_send_imm)(x, 0x12345678), "");
	OPCODE(ibv_wr_send_inv, 0x49, 0, V(ibv_wr_send_inv)(x, 0x66), "");
	OPCODE(ibv_wr_send_tso, 0x4a, 0, V(ibv_wr_send_tso)(x, hdr, sizeof(hdr), 1460), "");
	OPCODE(ibv_wr_local_inv, 0x4b, 0, V(ibv_wr_local_inv)(x, 0x67), "");
	OPCODE(ibv_wr_bind_mw, 0x4c, 0, V(ibv_wr_bind_mw)(x, &W.mw, 0x68, &info), "");
#undef OPCODE
	V(ibv_wr_set_sge)(x, 0x5, 0x6000, 123);
	expect(F_ibv_wr_set_sge, QP " lkey=0x5 addr=0x6000 length=123", XQ);
	count(F_ibv_wr_set_sge, 0, 123);
	V(ibv_wr_set_sge_list)(x, 3, sge);
	expect(F_ibv_wr_set_sge_list, QP " nsge=3 bytes=4126", XQ);
	count(F_ibv_wr_set_sge_list, 0, 4126);
	V(ibv_wr_set_inline_data)(x, data, 33);
	expect(F_ibv_wr_set_inline_data, QP " addr=0x%lx length=33", XQ, p2u(data));
	count(F_ibv_wr_set_inline_data, 0, 33);
	V(ibv_wr_set_inline_data_list)(x, 2, bufs);
	expect(F_ibv_wr_set_inline_data_list, QP " nbuf=2 bytes=1007", XQ);
	count(F_ibv_wr_set_inline_data_list, 0, 1007);
	V(ibv_wr_set_ud_addr)(x, &W.ah, 0x10, 0x11111111);
	expect(F_ibv_wr_set_ud_addr, QP " ah=0x%lx remote_qpn=16 remote_qkey=0x11111111", XQ,
	       p2u(&W.ah));
	count(F_ibv_wr_set_ud_addr, 0, 0);
	V(ibv_wr_set_xrc_srqn)(x, 77);
	expect(F_ibv_wr_set_xrc_srqn, QP " srqn=77", XQ);
	count(F_ibv_wr_set_xrc_srqn, 0, 0);
	for (ret = 0; ret <= ENOMEM; ret += ENOMEM) {
		answer(V_wr_complete, ret, 0);
		if (V(ibv_wr_complete)(x) != ret)
			FAIL("ibv_wr_complete did not return %d", ret);
		expect(F_ibv_wr_complete, QP " ret=%d", XQ, ret);
		count(F_ibv_wr_complete, ret, 0);
	}
	V(ibv_wr_start)(x);
	expect(F_ibv_wr_start, QP, XQ);
	count(F_ibv_wr_start, 0, 0);
	V(ibv_wr_abort)(x);
	expect(F_ibv_wr_abort, QP, XQ);
	count(F_ibv_wr_abort, 0, 0);
	/* refused: a NULL QP (nothing done, counted as an error; ibv_wr_complete:
	 * EINVAL) */
	V(ibv_wr_send)(NULL);
	expect(F_ibv_wr_send, " qp=0x0");
	count(F_ibv_wr_send, 1, 0);
	V(ibv_wr_complete)(NULL);
	expect(F_ibv_wr_complete, " qp=0x0 ret=22");
	count(F_ibv_wr_complete, 1, 0);
#undef XQ
}

/* Every reader of the current completion: counted, no line. */
static int reads(struct ibv_cq_ex *c)
{
	struct ibv_wc_tm_info tm;
	int n = 0;

#define READ(fn, ...) do { (void)V(fn)(__VA_ARGS__); count(F_##fn, 0, 0); n++; } while (0)
	READ(ibv_wc_read_opcode, c);
	READ(ibv_wc_read_vendor_err, c);
	READ(ibv_wc_read_byte_len, c);
	READ(ibv_wc_read_imm_data, c);
	READ(ibv_wc_read_invalidated_rkey, c);
	READ(ibv_wc_read_qp_num, c);
	READ(ibv_wc_read_src_qp, c);
	READ(ibv_wc_read_wc_flags, c);
	READ(ibv_wc_read_slid, c);
	READ(ibv_wc_read_sl, c);
	READ(ibv_wc_read_dlid_path_bits, c);
	READ(ibv_wc_read_completion_ts, c);
	READ(ibv_wc_read_completion_wallclock_ns, c);
	READ(ibv_wc_read_cvlan, c);
	READ(ibv_wc_read_flow_tag, c);
	READ(ibv_wc_read_tm_info, c, &tm);
#undef READ
	return n;
}

/* The extended CQ: a found completion's line, none for ENOENT. */
void extended_polls(void)
{
	struct ibv_cq_ex *c = &W.cqx;
	struct ibv_poll_cq_attr attr = { 0 };

	W.cqx.wr_id = 0x51;
	W.cqx.status = IBV_WC_SUCCESS;
	answer(V_start_poll, 0, 0);
	answer(V_read_opcode, IBV_WC_RECV, 0);
	answer(V_read_byte_len, 64, 0);
	answer(V_read_vendor_err, 0x7, 0);
	if (V(ibv_start_poll)(c, &attr))
		FAIL("ibv_start_poll did not return 0");
	expect(F_ibv_start_poll, " cq=0x%lx ret=0 wr_id=0x51 status=SUCCESS opcode=RECV byte_len=64",
	       p2u(c));
	count(F_ibv_start_poll, 0, 64);
	if (reads(c) != 16)
		FAIL("not every reader called");
	W.cqx.wr_id = 0x52;	/* a completion in error */
	W.cqx.status = IBV_WC_WR_FLUSH_ERR;
	answer(V_next_poll, 0, 0);
	V(ibv_next_poll)(c);
	expect(F_ibv_next_poll, " cq=0x%lx ret=0 wr_id=0x52 status=WR_FLUSH_ERR vendor_err=0x7",
	       p2u(c));
	count(F_ibv_next_poll, 0, 0);
	W.cqx.wr_id = 0x53;	/* a send's: no bytes counted */
	W.cqx.status = IBV_WC_SUCCESS;
	answer(V_read_opcode, IBV_WC_RDMA_WRITE, 0);
	V(ibv_next_poll)(c);
	expect(F_ibv_next_poll, " cq=0x%lx ret=0 wr_id=0x53 status=SUCCESS opcode=RDMA_WRITE "
	       "byte_len=64", p2u(c));
	count(F_ibv_next_poll, 0, 0);
	answer(V_next_poll, ENOENT, 0);	/* none left: counted, no line, no error */
	V(ibv_next_poll)(c);
	count(F_ibv_next_poll, 0, 0);
	answer(V_next_poll, EIO, 0);	/* failed: a line, an error */
	V(ibv_next_poll)(c);
	expect(F_ibv_next_poll, " cq=0x%lx ret=%d", p2u(c), EIO);
	count(F_ibv_next_poll, 1, 0);
	V(ibv_end_poll)(c);
	expect(F_ibv_end_poll, " cq=0x%lx", p2u(c));
	count(F_ibv_end_poll, 0, 0);
	answer(V_start_poll, ENOENT, 0);	/* an empty CQ */
	V(ibv_start_poll)(c, &attr);
	count(F_ibv_start_poll, 0, 0);
	/* refused */
	V(ibv_start_poll)(NULL, &attr);
	expect(F_ibv_start_poll, " cq=0x0 ret=22");
	count(F_ibv_start_poll, 1, 0);
	V(ibv_end_poll)(NULL);
	expect(F_ibv_end_poll, " cq=0x0");
	count(F_ibv_end_poll, 1, 0);
}
