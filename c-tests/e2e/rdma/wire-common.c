/*
 * What wire.c's server and client share (wire-common.h says what).
 */
#include "wire-common.h"

static volatile const char *waiting_in = "nothing";

void watchdog(int sig)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "RESULT hung in %s (watchdog)\n", waiting_in);

	(void)sig;
	if (write(1, line, (size_t)n) < 0)
		_exit(125);
	_exit(124);
}

uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + 1);
}

uint32_t checksum(const uint8_t *p, size_t n)
{
	uint32_t s = 2166136261u;

	while (n--)
		s = (s ^ *p++) * 16777619u;
	return s;
}

void fill_msg(struct msg *m, uint32_t tag, uint32_t seq)
{
	size_t i;

	m->tag = tag;
	m->seq = seq;
	for (i = 0; i < sizeof(m->body); i++)
		m->body[i] = pattern(seq, i);
	m->sum = checksum(m->body, sizeof(m->body));
}

int slot_ok(const uint8_t *p, uint32_t seq)
{
	size_t i;

	for (i = 0; i < SIZE; i++)
		if (p[i] != pattern(seq, i))
			return 0;
	return 1;
}

void fill_slot(uint8_t *p, uint32_t seq)
{
	size_t i;

	for (i = 0; i < SIZE; i++)
		p[i] = pattern(seq, i);
}

void die(const char *what)
{
	printf("RESULT failed: %s (errno %d %s)\n", what, errno, strerror(errno));
	exit(1);
}

/* The next completion: the bounded wait in our build, the blocking
 * original in the stock one (then the watchdog bounds it). */
int next_comp(struct rdma_cm_id *id, int recv, struct ibv_wc *wc, int timeout_ms)
{
	waiting_in = recv ? "rdma_get_recv_comp" : "rdma_get_send_comp";
#ifdef RDMAVERBS_H
	waiting_in = recv ? "rdma_get_recv_comp_timeout" : "rdma_get_send_comp_timeout";
	return recv ? rdma_get_recv_comp_timeout(id, wc, timeout_ms) :
		      rdma_get_send_comp_timeout(id, wc, timeout_ms);
#else
	(void)timeout_ms;
	return recv ? rdma_get_recv_comp(id, wc) : rdma_get_send_comp(id, wc);
#endif
}

struct rdma_addrinfo *resolve(const char *addr, const char *port, int passive)
{
	struct rdma_addrinfo hints, *res;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	hints.ai_qp_type = IBV_QPT_RC;
	hints.ai_flags = passive ? RAI_PASSIVE : 0;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	return res;
}

void qp_attr(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = attr->cap.max_recv_wr = 64;
	attr->cap.max_send_sge = attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 1;
}
