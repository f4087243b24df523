/*
 * The e2e program's checks (fail, CHECK's end; expect: a message's bytes;
 * comp: one completion) and what every scenario sets up (the address, the
 * QP's attributes, the listening and the connecting endpoint).
 */
#include "e2e.h"


const char *scenario;
const char *port;
const char *role = "";	/* "", "server" or "client" */
sem_t listening;
long msgs, bytes;	/* messages and bytes verified */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL: %s: ", scenario);
	vprintf(fmt, ap);
	printf(" (errno %d %s)\n", errno, strerror(errno));
	printf("RESULT %s FAIL msgs=%ld bytes=%ld\n", scenario, msgs, bytes);
	va_end(ap);
	fflush(stdout);
	_exit(1);
}

/* obs: lines are compared between the two builds: print only what the
 * library decides (results, statuses, lengths), never pointers or numbers
 * the kernel picks. */
void obs(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	va_start(ap, fmt);
	printf("obs: %s: ", scenario);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&lock);
}

void verified(long n_msgs, long n_bytes)
{
	pthread_mutex_lock(&lock);
	msgs += n_msgs;
	bytes += n_bytes;
	pthread_mutex_unlock(&lock);
}

uint8_t pattern(int seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

void fill(void *buf, size_t len, int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pattern(seed, i);
}

/* Checks `len` bytes of message `seed` starting at byte `from`. */
void expect(const void *buf, size_t len, int seed, size_t from, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(((const uint8_t *)buf)[i] == pattern(seed, from + i),
		      "%s: byte %zu differs", what, from + i);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One completion, checked: 1 returned, success, the context posted. */
void comp(struct rdma_cm_id *id, int send, void *ctx, struct ibv_wc *wc,
		 const char *what)
{
	int ret = send ? rdma_get_send_comp(id, wc) : rdma_get_recv_comp(id, wc);

	CHECK(ret == 1, "%s: rdma_get_%s_comp returned %d", what,
	      send ? "send" : "recv", ret);
	CHECK(wc->status == IBV_WC_SUCCESS, "%s: completion status %s", what,
	      ibv_wc_status_str(wc->status));
	CHECK(wc->wr_id == (uintptr_t)ctx, "%s: wr_id is not the context posted", what);
}

/* An iWARP device (siw), not RoCE (rxe). */
int is_iwarp(struct rdma_cm_id *id)
{
	return id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

struct rdma_addrinfo *resolve(int passive, int udp)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = udp ? RDMA_PS_UDP : RDMA_PS_TCP;
	hints.ai_qp_type = udp ? IBV_QPT_UD : IBV_QPT_RC;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	CHECK(!rdma_getaddrinfo(ADDR, port, &hints, &res), "rdma_getaddrinfo");
	return res;
}

void qp_attr(struct ibv_qp_init_attr *attr, int udp)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = attr->cap.max_recv_wr = 32;
	attr->cap.max_send_sge = attr->cap.max_recv_sge = 4;
	attr->cap.max_inline_data = 64;
	attr->qp_type = udp ? IBV_QPT_UD : IBV_QPT_RC;
	attr->sq_sig_all = 1;
}

struct rdma_conn_param *conn_param(void)
{
	static struct rdma_conn_param p;

	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 3;
	p.rnr_retry_count = 0;	/* a send without a receive fails at once */
	return &p;
}

/* Listening ids: destroyed at the end, since destroying one waits until the
 * connection request it delivered has been accepted. */
static struct rdma_cm_id *listeners[4];
static int nlisteners;

void close_listeners(void)
{
	while (nlisteners)
		rdma_destroy_ep(listeners[--nlisteners]);
}

/* Server: listen (with or without a QP template), then take one request. */
struct rdma_cm_id *accept_one(int udp, int with_qp)
{
	struct rdma_addrinfo *res = resolve(1, udp);
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *listen_id, *id;

	qp_attr(&attr, udp);
	CHECK(!rdma_create_ep(&listen_id, res, NULL, with_qp ? &attr : NULL),
	      "server rdma_create_ep");
	rdma_freeaddrinfo(res);
	CHECK(!rdma_listen(listen_id, 1), "rdma_listen");
	sem_post(&listening);
	if (!strcmp(role, "server"))
		printf("listening\n");
	CHECK(!rdma_get_request(listen_id, &id), "rdma_get_request");
	listeners[nlisteners++] = listen_id;
	return id;
}

/* Client: an endpoint with a QP, not yet connected. */
struct rdma_cm_id *client_ep(int udp)
{
	struct rdma_addrinfo *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;

	if (strcmp(role, "client"))
		sem_wait(&listening);
	res = resolve(0, udp);
	qp_attr(&attr, udp);
	CHECK(!rdma_create_ep(&id, res, NULL, &attr), "client rdma_create_ep");
	rdma_freeaddrinfo(res);
	CHECK(attr.cap.max_inline_data >= 64, "inline data of 64 bytes not supported");
	return id;
}

size_t msg_size(int i)
{
	return 1 + (size_t)(i * 397) % 2000;
}

/* Signalled by the errors and iwarp clients when they are done. */
sem_t client_done;
