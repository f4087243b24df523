/*
 * The e2e scenarios of failures: errors (a send nobody receives, a write
 * with a wrong rkey, what the provider refuses) and iwarp (what an iWARP
 * device refuses or does instead).
 */
#include "e2e.h"

/* ---- errors: a send nobody receives, a write with a wrong rkey ---- */


void *errors_server(void *arg)
{
	static char target[256];
	static struct remote info;
	static int ctx;
	struct rdma_cm_id *id;
	struct ibv_mr *wmr, *imr;
	struct ibv_wc wc;

	(void)arg;
	/* 1: accept, post no receive at all */
	id = accept_one(0, 1);
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	close_listeners();	/* the port is listened on again below */
	sem_wait(&client_done);
	rdma_disconnect(id);
	rdma_destroy_ep(id);

	/* 2: give the client an address and a key */
	id = accept_one(0, 1);
	wmr = rdma_reg_write(id, target, sizeof(target));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	CHECK(wmr && imr, "registration");
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	info.addr = (uintptr_t)target;
	info.wkey = wmr->rkey;
	CHECK(!rdma_post_send(id, &ctx, &info, sizeof(info), imr, 0), "send key");
	comp(id, 1, &ctx, &wc, "send key");
	sem_wait(&client_done);
	rdma_dereg_mr(wmr);
	rdma_dereg_mr(imr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

/* Posts a send on a QP now in the error state: what the API returns. */
static void post_after_error(struct rdma_cm_id *id, const char *what)
{
	static int ctx;
	struct ibv_wc wc;
	int ret, err;

	errno = 0;
	ret = rdma_post_send(id, &ctx, "x", 2, NULL, IBV_SEND_INLINE);
	err = errno;
	obs("%s: rdma_post_send returns %d, errno %s", what, ret, ret ? strerror(err) : "-");
	if (ret == 0) {
		ret = rdma_get_send_comp(id, &wc);
		obs("%s: rdma_get_send_comp returns %d, status %s", what, ret,
		    ibv_wc_status_str(wc.status));
	}
}

/* Work requests the provider itself refuses (more SGEs than the QP has):
 * the return value and errno. Nothing is posted, the QP stays usable. */
static void provider_refuses(struct rdma_cm_id *id)
{
	static char buf[64];
	static int ctx;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_sge sge[256];
	int k, ret;

	CHECK(!ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &qia), "ibv_query_qp");
	CHECK(qa.cap.max_send_sge < 255 && qa.cap.max_recv_sge < 255, "SGE limits");
	for (k = 0; k < 256; k++) {
		sge[k].addr = (uintptr_t)buf;
		sge[k].length = 1;
		sge[k].lkey = 0;
	}
	errno = 0;
	ret = rdma_post_sendv(id, &ctx, sge, (int)qa.cap.max_send_sge + 1, 0);
	obs("rdma_post_sendv with one SGE too many: returns %d, errno %s", ret,
	    strerror(errno));
	errno = 0;
	ret = rdma_post_recvv(id, &ctx, sge, (int)qa.cap.max_recv_sge + 1);
	obs("rdma_post_recvv with one SGE too many: returns %d, errno %s", ret,
	    strerror(errno));
}

void errors_client(void)
{
	static char src[256];
	static struct remote info;
	static int ctx[3];
	struct rdma_cm_id *id;
	struct ibv_mr *smr, *imr;
	struct ibv_wc wc;
	int ret;

	/* 1: a send that no receive is waiting for (no RNR retries) */
	id = client_ep(0);
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	provider_refuses(id);
	ret = rdma_post_send(id, &ctx[0], "hello", 6, NULL, IBV_SEND_INLINE);
	obs("send without receive: rdma_post_send returns %d", ret);
	ret = rdma_get_send_comp(id, &wc);
	CHECK(wc.wr_id == (uintptr_t)&ctx[0], "wr_id of the failed send");
	obs("send without receive: rdma_get_send_comp returns %d, status %s",
	    ret, ibv_wc_status_str(wc.status));
	CHECK(ret == 1 && wc.status == IBV_WC_RNR_RETRY_EXC_ERR, "want an RNR error");
	post_after_error(id, "after the RNR error");
	verified(1, 0);
	sem_post(&client_done);	/* both sides disconnect together */
	rdma_disconnect(id);
	rdma_destroy_ep(id);

	/* 2: an RDMA write with a wrong rkey */
	id = client_ep(0);
	smr = rdma_reg_msgs(id, src, sizeof(src));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	CHECK(smr && imr, "registration");
	CHECK(!rdma_post_recv(id, &ctx[1], &info, sizeof(info), imr), "post recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	comp(id, 0, &ctx[1], &wc, "receive key");
	ret = rdma_post_write(id, &ctx[2], src, sizeof(src), smr, 0, info.addr,
			      info.wkey ^ 0xff);
	obs("write with a wrong rkey: rdma_post_write returns %d", ret);
	ret = rdma_get_send_comp(id, &wc);
	CHECK(wc.wr_id == (uintptr_t)&ctx[2], "wr_id of the failed write");
	obs("write with a wrong rkey: rdma_get_send_comp returns %d, status %s",
	    ret, ibv_wc_status_str(wc.status));
	CHECK(ret == 1 && wc.status == IBV_WC_REM_ACCESS_ERR, "want a remote access error");
	post_after_error(id, "after the access error");
	verified(1, 0);
	sem_post(&client_done);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(imr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
}

/* ---- iwarp: what an iWARP device refuses or does instead ---- */

static void refused(const char *what, int ret, int err);

/* The server: a connection with no receive posted; then one that gives
 * the client a key once the client has spoken (iWARP: the client first). */
void *iwarp_server(void *arg)
{
	static char target[256], go[8];
	static struct remote info;
	static int ctx, go_ctx;
	struct rdma_cm_id *id;
	struct ibv_mr *wmr, *imr, *gmr;
	struct ibv_wc wc;

	(void)arg;
	id = accept_one(0, 1);
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	close_listeners();	/* the port is listened on again below */
	sem_wait(&client_done);
	rdma_disconnect(id);
	rdma_destroy_ep(id);

	id = accept_one(0, 1);
	wmr = rdma_reg_write(id, target, sizeof(target));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	gmr = rdma_reg_msgs(id, go, sizeof(go));
	CHECK(wmr && imr && gmr, "registration");
	CHECK(!rdma_post_recv(id, &go_ctx, go, sizeof(go), gmr), "post recv");
	CHECK(!rdma_accept(id, conn_param()), "rdma_accept");
	comp(id, 0, &go_ctx, &wc, "go message");
	info.addr = (uintptr_t)target;
	info.wkey = wmr->rkey;
	CHECK(!rdma_post_send(id, &ctx, &info, sizeof(info), imr, 0), "send key");
	comp(id, 1, &ctx, &wc, "send key");
	sem_wait(&client_done);
	rdma_dereg_mr(wmr);
	rdma_dereg_mr(imr);
	rdma_dereg_mr(gmr);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

/* The completion of a request the peer answers with a TERMINATE: siw
 * completes a send or a write once TCP has it, so it is successful, unless
 * the TERMINATE came first, which makes it a local QP operation error (seen
 * both ways in one boot, stock and ours alike). Which one is siw's race,
 * not the library's: it is checked to be one of the two and printed, not
 * compared. */
static void siw_race(const char *what, int ret, const struct ibv_wc *wc)
{
	obs("%s: rdma_get_send_comp returns %d, the request's wr_id", what, ret);
	printf("note: %s: status %s\n", what, ibv_wc_status_str(wc->status));
	CHECK(wc->status == IBV_WC_SUCCESS || wc->status == IBV_WC_LOC_QP_OP_ERR,
	      "%s: status %s", what, ibv_wc_status_str(wc->status));
}

/* After a completion that ends the connection on iWARP (the peer answers
 * with a TERMINATE): the connection manager's event (the id's own channel,
 * waited on 10 s at most; read here, so the caller must not wait for it
 * again in rdma_disconnect), then a send posted and the send CQ polled for
 * 2 s, not waited on (siw leaves a request posted to a QP in error
 * unanswered: rdma_get_send_comp would wait for ever). */
static void after_terminate(struct rdma_cm_id *id, const char *what)
{
	static int ctx;
	struct pollfd p = { .fd = id->channel->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct ibv_wc wc;
	double end;
	int ret, err, n = 0;

	CHECK(poll(&p, 1, 10000) == 1, "%s: no connection event within 10 s", what);
	CHECK(!rdma_get_cm_event(id->channel, &ev), "rdma_get_cm_event");
	obs("%s: the connection manager's event: %s", what, rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	errno = 0;
	ret = rdma_post_send(id, &ctx, "x", 2, NULL, IBV_SEND_INLINE);
	err = errno;
	refused(what, ret, err);
	for (end = now() + 2; ret == 0 && n == 0 && now() < end;) {
		n = ibv_poll_cq(id->send_cq, 1, &wc);
		if (n == 0)
			usleep(1000);
	}
	if (ret == 0 && n == 1)
		obs("%s: its completion: status %s", what, ibv_wc_status_str(wc.status));
	else if (ret == 0)
		obs("%s: ibv_poll_cq for 2 s: %d", what, n);
}

/* The value and errno of a call, as obs prints them: errno by number too
 * (siw's library returns its errors negated, -EINVAL, which rdma_seterrno
 * leaves in errno as they are). */
static void refused(const char *what, int ret, int err)
{
	obs("%s: returns %d, errno %d (%s)", what, ret, ret ? err : 0, ret ? strerror(err) : "-");
}

void iwarp_client(void)
{
	static char src[256];
	static struct remote info;
	static int ctx[4];
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct ibv_device_attr da;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct rdma_cm_id *id;
	struct ibv_mr *smr, *imr;
	struct ibv_sge sge[64];
	struct ibv_wc wc;
	char big[256];
	int k, ret;

	/* 1: a UD endpoint (iWARP is connected only) */
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_UDP;
	hints.ai_qp_type = IBV_QPT_UD;
	CHECK(!rdma_getaddrinfo(ADDR, port, &hints, &res), "rdma_getaddrinfo (UD)");
	qp_attr(&attr, 1);
	errno = 0;
	ret = rdma_create_ep(&id, res, NULL, &attr);
	refused("rdma_create_ep of a UD endpoint", ret, errno);
	CHECK(ret == -1, "a UD endpoint on iWARP");
	rdma_freeaddrinfo(res);

	/* 2: the limits, on a connected RC QP: one SGE more than the device
	 * takes, an empty receive, inline data one byte too long; the server
	 * posts no receive, so a send that is taken meets none. */
	id = client_ep(0);
	CHECK(is_iwarp(id), "the device is not iWARP");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	CHECK(!ibv_query_device(id->verbs, &da), "ibv_query_device");
	CHECK(!ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &qia), "ibv_query_qp");
	obs("device: max_sge %d, max_sge_rd %d, atomic_cap %d; QP: max_send_sge %u, "
	    "max_recv_sge %u, max_inline_data %u", da.max_sge, da.max_sge_rd, da.atomic_cap,
	    qa.cap.max_send_sge, qa.cap.max_recv_sge, qa.cap.max_inline_data);
	CHECK(da.max_sge < 63 && qa.cap.max_inline_data < sizeof(big), "limits");
	for (k = 0; k < 64; k++)
		sge[k] = (struct ibv_sge){ (uintptr_t)src, 1, 0 };
	memset(big, 'x', sizeof(big));
	errno = 0;
	ret = rdma_post_sendv(id, &ctx[0], sge, da.max_sge + 1, 0);
	refused("rdma_post_sendv of the device's max_sge+1 SGEs", ret, errno);
	CHECK(ret == -1, "too many SGEs taken");
	errno = 0;
	ret = rdma_post_recvv(id, &ctx[0], sge, da.max_sge + 1);
	refused("rdma_post_recvv of the device's max_sge+1 SGEs", ret, errno);
	CHECK(ret == -1, "too many SGEs taken");
	errno = 0;
	ret = rdma_post_recvv(id, &ctx[0], sge, 0);
	refused("rdma_post_recvv of no SGE", ret, errno);
	errno = 0;
	ret = rdma_post_send(id, &ctx[0], big, qa.cap.max_inline_data + 1, NULL, IBV_SEND_INLINE);
	refused("rdma_post_send of max_inline_data+1 bytes inline", ret, errno);
	CHECK(ret == -1, "inline data too long taken");
	smr = rdma_reg_msgs(id, src, sizeof(src));
	CHECK(smr, "rdma_reg_msgs");
	for (k = 0; k <= (int)qa.cap.max_send_sge; k++)
		sge[k] = (struct ibv_sge){ (uintptr_t)src + 16 * k, 16, smr->lkey };
	errno = 0;
	ret = rdma_post_sendv(id, &ctx[1], sge, (int)qa.cap.max_send_sge + 1, 0);
	refused("rdma_post_sendv of the QP's max_send_sge+1 SGEs (no receive posted)", ret, errno);
	CHECK(ret == 0, "the send");
	ret = rdma_get_send_comp(id, &wc);
	CHECK(ret == 1 && wc.wr_id == (uintptr_t)&ctx[1], "its completion");
	siw_race("the send no receive waits for", ret, &wc);
	after_terminate(id, "after the send no receive waits for");
	verified(1, 0);
	sem_post(&client_done);
	rdma_dereg_mr(smr);
	rdma_destroy_ep(id);	/* no rdma_disconnect: its event came */

	/* 3: an RDMA write with a wrong key */
	id = client_ep(0);
	smr = rdma_reg_msgs(id, src, sizeof(src));
	imr = rdma_reg_msgs(id, &info, sizeof(info));
	CHECK(smr && imr, "registration");
	CHECK(!rdma_post_recv(id, &ctx[2], &info, sizeof(info), imr), "post recv");
	CHECK(!rdma_connect(id, conn_param()), "rdma_connect");
	CHECK(!rdma_post_send(id, &ctx[0], "go", 3, NULL, IBV_SEND_INLINE), "send go");
	comp(id, 1, &ctx[0], &wc, "send go");
	comp(id, 0, &ctx[2], &wc, "receive key");
	ret = rdma_post_write(id, &ctx[3], src, sizeof(src), smr, 0, info.addr, info.wkey ^ 0xff);
	obs("write with a wrong rkey: rdma_post_write returns %d", ret);
	ret = rdma_get_send_comp(id, &wc);
	CHECK(ret == 1 && wc.wr_id == (uintptr_t)&ctx[3], "the write's completion");
	siw_race("write with a wrong rkey", ret, &wc);
	after_terminate(id, "after the write with a wrong rkey");
	verified(1, 0);
	sem_post(&client_done);
	rdma_dereg_mr(smr);
	rdma_dereg_mr(imr);
	rdma_destroy_ep(id);	/* no rdma_disconnect: its event came */
}
