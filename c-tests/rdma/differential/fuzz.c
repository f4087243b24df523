/*
 * The fuzz target (libFuzzer): the fuzzer's bytes are the numbers from which
 * a case is made (cases.c): the function, every argument (lengths, counts,
 * flags, NULL or not), the provider's answers, and possibly one thing made
 * invalid (enum brk). Valid input must give the original's result; invalid
 * input a clear error with nothing posted or registered.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

static const uint8_t *fuzz_data;
static size_t fuzz_left;

/* The next 8 bytes of the input (zeros past its end). */
static uint64_t from_input(void)
{
	uint64_t v = 0;
	size_t n = fuzz_left < 8 ? fuzz_left : 8;

	memcpy(&v, fuzz_data, n);
	fuzz_data += n;
	fuzz_left -= n;
	return v;
}

/* Whether breakage `b` makes a call of `f` invalid (else it is valid input,
 * compared with the original like any other case). */
static int applies(const struct args *a, enum brk b)
{
	enum fn f = a->fn;
	int post = f >= F_rdma_post_recvv && f <= F_rdma_post_ud_send;
	int comp = f == F_rdma_get_send_comp || f == F_rdma_get_recv_comp;
	int waits = a->script.nevent > 0;	/* the loop reaches the event wait */

	switch (b) {
	case BRK_NULL_ID: return f != F_rdma_seterrno && f != F_rdma_dereg_mr;
	case BRK_NO_QP: return post;
	case BRK_NULL_SGL: return is_vectored(f) && a->nsge > 0;
	case BRK_NEG_NSGE: return is_vectored(f);
	case BRK_BIG_LENGTH: return post && !is_vectored(f);
	case BRK_NULL_MR: return f == F_rdma_post_recv || f == F_rdma_post_read || f == F_rdma_dereg_mr;
	case BRK_OUTSIDE_MR: return f == F_rdma_post_recv && a->length > 0;
	case BRK_NULL_AH: return f == F_rdma_post_ud_send;
	case BRK_NULL_WC: case BRK_NULL_CQ: return comp;
	case BRK_NULL_CHANNEL: return comp && waits;
	case BRK_NULL_PD: return f >= F_rdma_reg_msgs && f <= F_rdma_reg_write;
	case BRK_FOREIGN_EVENT: return comp && waits && a->script.event_ret[0] == 0;
	default: return 0;
	}
}

/* Invalid input: ours alone (the original would crash). The properties: a
 * clear error (-1 or NULL, errno EINVAL, EIO for a foreign event), nothing
 * posted or registered, no wait on a NULL channel. */
static int clear_error(const struct args *a, const struct outcome *o)
{
	int want = a->brk == BRK_FOREIGN_EVENT ? EIO : EINVAL;
	int i, ret = returns_pointer(a->fn) ? (o->pret ? 0 : -1) : o->ret;

	if (ret != -1 || o->err != want)
		return 0;
	for (i = 0; i < o->nlog; i++) {
		enum fake_call c = o->log[i].call;

		if (c == FC_POST_SEND || c == FC_POST_RECV || c == FC_POST_SRQ_RECV ||
		    c == FC_REG_MR || c == FC_DEREG_MR)
			return 0;
		if (c == FC_GET_CQ_EVENT && a->brk == BRK_NULL_CHANNEL)
			return 0;
	}
	/* a foreign event is acknowledged on its own CQ */
	if (a->brk == BRK_FOREIGN_EVENT &&
	    (o->log[o->nlog - 1].call != FC_ACK_CQ_EVENTS || o->log[o->nlog - 1].obj != &other_cq))
		return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct args a;

	if (!ready) {
		case_rnd = from_input;
		cases_init();
		ready = 1;
	}
	fuzz_data = data;
	fuzz_left = size;
	random_case(&a);
	a.brk = (enum brk)pick(BRK_COUNT);
	if (a.brk == BRK_NEG_NSGE)
		a.nsge = (int)(case_rnd() | 0x80000000u);
	if (a.brk == BRK_BIG_LENGTH)
		a.length = (size_t)UINT32_MAX + 1 + (size_t)(case_rnd() >> 1);
	if (a.brk == BRK_NULL_AH)
		a.ah = NULL;
	if (!applies(&a, (enum brk)a.brk))
		a.brk = BRK_NONE;
	if (a.brk == BRK_NONE) {
		const struct outcome *ref;

		if (!check(&a, &ref)) {
			fprintf(stderr, "valid input, different results: %s\n", why);
			abort();
		}
	} else {
		static struct outcome o;

		run(&a, 1, &o);
		if (!clear_error(&a, &o)) {
			fprintf(stderr, "invalid input (kind %d) on %s: returned %d errno %d "
				"after %d provider calls\n", a.brk, fn_name[a.fn], o.ret,
				o.err, o.nlog);
			abort();
		}
	}
	return 0;
}
