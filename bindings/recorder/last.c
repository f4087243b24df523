/*
 * The recording provider (recorder.c): buffers kept alive (issue 34): what a card does with a request after the
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
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "recorder.h"

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
