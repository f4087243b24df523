/* The cases of cases.h made at random (random_case): every argument and the
 * provider's answers, from random.h's numbers (a PRNG or the fuzzer's bytes). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cases.h"

/* A provider result: mostly 0, else a positive errno or a negative value. */
static int op_result(void)
{
	static const int bad[] = { ENOMEM, EINVAL, EAGAIN, EOPNOTSUPP, -1,
				   -ENOMEM, -EINVAL, 0x7fffffff, -0x7fffffff - 1 };

	return pick(3) ? 0 : bad[pick((int)(sizeof(bad) / sizeof(bad[0])))];
}

/* A completion loop script that ends: each step may end the call. */
static void comp_script(struct fake_script *s)
{
	static const int ev_err[] = { EINTR, EAGAIN, EBADF };
	int it;

	for (it = 0;; it++) {
		int force = it == 4;

		if (force || !pick(3)) {	/* first poll ends it */
			s->poll_ret[s->npoll++] = pick(4) ? 1 : -pick(100) - 1;
			return;
		}
		s->poll_ret[s->npoll++] = 0;
		if (!pick(6)) {			/* arming fails */
			int r = op_result();

			s->notify_ret[s->nnotify++] = r ? r : EINVAL;
			return;
		}
		s->notify_ret[s->nnotify++] = 0;
		if (!pick(3)) {			/* second poll ends it */
			s->poll_ret[s->npoll++] = pick(4) ? 1 : -pick(100) - 1;
			return;
		}
		s->poll_ret[s->npoll++] = 0;
		if (!pick(6)) {			/* waiting fails */
			s->event_ret[s->nevent] = -1;
			s->event_errno[s->nevent++] = ev_err[pick(3)];
			return;
		}
		s->event_ret[s->nevent++] = 0;
	}
}

/* Where a receive buffer lies in its MR (the original asserts that it is
 * inside): the exact ends, empty, whole, or anywhere inside. */
static void recv_place(struct args *a)
{
	uint64_t size = sizeof(mr_buf);

	switch (pick(6)) {
	case 0: a->length = (size_t)pick((int)size) + 1; a->addr = size - a->length; break;	/* ends at the MR's end */
	case 1: a->addr = 0; a->length = (size_t)size; break;					/* the whole MR */
	case 2: a->addr = size; a->length = 0; break;						/* empty, at the end */
	case 3: a->addr = (uint64_t)pick((int)size + 1); a->length = 0; break;			/* empty */
	default:
		a->addr = (uint64_t)pick((int)size + 1);
		a->length = (size_t)pick((int)(size - a->addr) + 1);
	}
}

void random_case(struct args *a)
{
	static const uint32_t opcodes[] = { IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
		IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD, IBV_WC_BIND_MW, IBV_WC_LOCAL_INV, IBV_WC_TSO,
		IBV_WC_RECV, IBV_WC_RECV_RDMA_WITH_IMM };
	int i;

	memset(a, 0, sizeof(*a));
	a->fn = (enum fn)pick(F_COUNT);
	a->seterrno_arg = pick(2) ? 0 : edge_int();
	a->ctx = pick(4) ? (void *)(uintptr_t)edge(UINT64_MAX) : NULL;
	a->nsge = pick(9);
	a->sgl_null = a->nsge == 0 && pick(2);
	for (i = 0; i < 8; i++) {
		a->sgl[i].addr = edge(UINT64_MAX);
		a->sgl[i].length = (uint32_t)edge(UINT32_MAX);
		a->sgl[i].lkey = (uint32_t)edge(UINT32_MAX);
	}
	a->flags = pick(2) ? pick(32) : edge_int();
	a->raddr = edge(UINT64_MAX);
	a->rkey = (uint32_t)edge(UINT32_MAX);
	a->mr_null = pick(2);
	a->srq = pick(2);
	a->ah = (struct ibv_ah *)(uintptr_t)(case_rnd() | 1);
	a->qpn = (uint32_t)edge(0xffffff);
	a->addr = edge(UINT64_MAX) >> pick(64);
	a->length = (size_t)edge(UINT32_MAX);
	if (a->fn == F_rdma_post_recv)
		recv_place(a);
	a->script.post_ret = op_result();
	a->script.wc.wr_id = edge(UINT64_MAX);
	a->script.wc.status = (enum ibv_wc_status)pick(22);
	a->script.wc.opcode = (enum ibv_wc_opcode)opcodes[pick(10)];
	a->script.wc.byte_len = (uint32_t)edge(UINT32_MAX);
	a->script.wc.qp_num = (uint32_t)edge(0xffffff);
	a->script.reg_ret = pick(4) ? &F.mr : NULL;
	a->script.reg_errno = pick(2) ? ENOMEM : EINVAL;
	a->script.dereg_ret = op_result();
	if (a->fn == F_rdma_get_send_comp || a->fn == F_rdma_get_recv_comp) {
		static const int timeouts[] = { -1, 60000, 0x7fffffff };

		comp_script(&a->script);
		a->bounded = !pick(3);
		a->timeout_ms = timeouts[pick(3)];
	}
}
