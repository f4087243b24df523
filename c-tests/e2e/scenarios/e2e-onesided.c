/*
 * The e2e onesided scenario: RDMA write and read, the keys exchanged in a
 * message (on iWARP the client speaks first and reads back with one SGE a read).
 */
#include "e2e.h"

/* ---- onesided: RDMA write and read, keys exchanged in a message ---- */


#define OS_LEN 4096

void *onesided_server(void *arg)
{
	struct rdma_cm_id *id = accept_one(0, 1);
	static char target[OS_LEN], done[8], go[8];
	static struct remote info;
	static int info_ctx, done_ctx, go_ctx;
	struct ibv_mr *wmr = rdma_reg_write(id, target, sizeof(target));
	struct ibv_mr *rmr = rdma_reg_read(id, target, sizeof(target));
	struct ibv_mr *imr = rdma_reg_msgs(id, &info, sizeof(info));
	struct ibv_mr *dmr = rdma_reg_msgs(id, done, sizeof(done));
	struct ibv_mr *gmr = rdma_reg_msgs(id, go, sizeof(go));
	struct ibv_wc wc;

	(void)arg;
	CHECK(wmr && rmr && imr && dmr && gmr, "registration");
	if (is_iwarp(id))	/* the client speaks first */
		CHECK(!rdma_post_recv(id, &go_ctx, go, sizeof(go), gmr), "post recv");
	CHECK(!rdma_post_recv(id, &done_ctx, done, sizeof(done), dmr), "post recv");
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	if (is_iwarp(id)) {
		comp(id, 0, &go_ctx, &wc, "go message");
		CHECK(wc.byte_len == 3 && !memcmp(go, "go", 3), "the go message");
		obs("iWARP: the client's go message came first");
	}
	rdma_dereg_mr(gmr);
	info.addr = (uintptr_t)target;
	info.wkey = wmr->rkey;
	info.rkey = rmr->rkey;
	CHECK(!rdma_post_send(id, &info_ctx, &info, sizeof(info), imr, 0), "send keys");
	comp(id, 1, &info_ctx, &wc, "send keys");
	comp(id, 0, &done_ctx, &wc, "done message");
	/* what the client wrote: 2048 bytes with rdma_post_write, then 2048
	 * with rdma_post_writev */
	expect(target, 2048, 1, 0, "written by rdma_post_write");
	expect(target + 2048, 2048, 2, 0, "written by rdma_post_writev");
	verified(2, OS_LEN);
	obs("target buffer holds the %d bytes written", OS_LEN);
	obs("server rdma_dereg_mr: %d %d %d %d", rdma_dereg_mr(wmr), rdma_dereg_mr(rmr),
	    rdma_dereg_mr(imr), rdma_dereg_mr(dmr));
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

/* iWARP: an RDMA read has one sink SGE (max_sge_rd 1). rdma_post_readv of
 * the three SGEs: what it returns, the completion, the bytes that land in
 * each SGE (of a zeroed buffer). Then the SGEs become one of 2048 bytes,
 * which the caller reads with. (The buffer is filled with 0xee first:
 * what the read left alone shows.) */
static void onesided_iwarp_readv(struct rdma_cm_id *id, void *ctx, struct ibv_sge *sge,
				 char *dst, struct remote info)
{
	struct ibv_device_attr da;
	struct ibv_wc wc;
	uint32_t k, i, from = 0;
	int ret;

	CHECK(!ibv_query_device(id->verbs, &da), "ibv_query_device");
	obs("iWARP: the device's max_sge_rd is %d", da.max_sge_rd);
	memset(dst, 0xee, 2048);
	ret = rdma_post_readv(id, ctx, sge, 3, 0, info.addr + 2048, info.rkey);
	obs("rdma_post_readv of 3 SGEs (1000/48/1000): returns %d", ret);
	if (ret == 0) {
		ret = rdma_get_send_comp(id, &wc);
		CHECK(ret == 1 && wc.wr_id == (uintptr_t)ctx, "the 3-SGE read's completion");
		obs("rdma_post_readv of 3 SGEs: status %s, opcode %s, byte_len %u",
		    ibv_wc_status_str(wc.status), wc.opcode == IBV_WC_RDMA_READ ? "RDMA_READ" : "other",
		    wc.byte_len);
	}
	for (k = 0; k < 3; from += sge[k].length, k++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)sge[k].addr;
		uint32_t read = 0, untouched = 0;

		while (read < sge[k].length && p[read] == pattern(2, from + read))
			read++;
		for (i = read; i < sge[k].length; i++)
			untouched += p[i] == 0xee;
		obs("rdma_post_readv of 3 SGEs: SGE %u (%u bytes): the first %u the peer's, "
		    "%u of the rest untouched", k, sge[k].length, read, untouched);
	}
	memset(dst, 0, 2048);
	sge[0].length = 2048;
}

void onesided_client(void)
{
	struct rdma_cm_id *id = client_ep(0);
	static char src[OS_LEN], dst[OS_LEN];
	static struct remote info;
	static int ctx[5];
	struct ibv_mr *smr = rdma_reg_msgs(id, src, sizeof(src));
	struct ibv_mr *dmr = rdma_reg_msgs(id, dst, sizeof(dst));
	struct ibv_mr *imr = rdma_reg_msgs(id, &info, sizeof(info));
	struct ibv_sge sge[3];
	static const uint32_t part[3] = { 1000, 48, 1000 };
	struct ibv_wc wc;
	uint32_t off;
	int k;

	CHECK(smr && dmr && imr, "registration");
	CHECK(!rdma_post_recv(id, &ctx[0], &info, sizeof(info), imr), "post recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	if (is_iwarp(id)) {	/* the client speaks first */
		CHECK(!rdma_post_send(id, &ctx[1], "go", 3, NULL, IBV_SEND_INLINE), "send go");
		comp(id, 1, &ctx[1], &wc, "send go");
	}
	comp(id, 0, &ctx[0], &wc, "receive keys");
	fill(src, 2048, 1);
	fill(src + 2048, 2048, 2);

	CHECK(!rdma_post_write(id, &ctx[1], src, 2048, smr, IBV_SEND_SIGNALED,
			       info.addr, info.wkey), "rdma_post_write");
	comp(id, 1, &ctx[1], &wc, "rdma_post_write");
	for (k = 0, off = 2048; k < 3; off += part[k], k++) {
		sge[k].addr = (uintptr_t)(src + off);
		sge[k].length = part[k];
		sge[k].lkey = smr->lkey;
	}
	CHECK(!rdma_post_writev(id, &ctx[2], sge, 3, IBV_SEND_SIGNALED,
				info.addr + 2048, info.wkey), "rdma_post_writev");
	comp(id, 1, &ctx[2], &wc, "rdma_post_writev");
	obs("rdma_post_write and rdma_post_writev completed");

	CHECK(!rdma_post_read(id, &ctx[3], dst, 2048, dmr, 0, info.addr, info.rkey),
	      "rdma_post_read");
	comp(id, 1, &ctx[3], &wc, "rdma_post_read");
	CHECK(wc.opcode == IBV_WC_RDMA_READ, "read opcode");
	expect(dst, 2048, 1, 0, "read back by rdma_post_read");
	for (k = 0, off = 2048; k < 3; off += part[k], k++) {
		sge[k].addr = (uintptr_t)(dst + off);
		sge[k].length = part[k];
		sge[k].lkey = dmr->lkey;
	}
	if (is_iwarp(id))
		onesided_iwarp_readv(id, &ctx[4], sge, dst + 2048, info);
	CHECK(!rdma_post_readv(id, &ctx[4], sge, is_iwarp(id) ? 1 : 3, 0, info.addr + 2048,
			       info.rkey), "rdma_post_readv");
	comp(id, 1, &ctx[4], &wc, "rdma_post_readv");
	expect(dst + 2048, 2048, 2, 0, "read back by rdma_post_readv");
	verified(2, OS_LEN);
	obs("rdma_post_read and rdma_post_readv read back the %d bytes written%s", OS_LEN,
	    is_iwarp(id) ? " (rdma_post_readv into one SGE: iWARP)" : "");
	CHECK(!rdma_post_send(id, &ctx[0], "done", 5, NULL, IBV_SEND_INLINE), "send done");
	comp(id, 1, &ctx[0], &wc, "send done");
	obs("client rdma_dereg_mr: %d %d %d", rdma_dereg_mr(smr), rdma_dereg_mr(dmr),
	    rdma_dereg_mr(imr));
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}
