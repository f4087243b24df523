/*
 * The verbs-trace child's calls of the control path (the object a call is
 * on, its result: an object, NULL with errno, an errno value, a count) and
 * of the values (ibv_inc_rkey, ibv_is_qpt_supported, ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "verbs-trace-shared.h"

/* The control path: the object the call is on, the result (an object,
 * NULL with errno, an errno value, a count); the values. */
void control(void)
{
	struct ibv_gid_entry gid[4];
	struct ibv_port_attr port;
	void *p;
	int ret, err;

	answer(V_create_cq_ex, 1, 0);
	p = V(ibv_create_cq_ex)(VCTX, &W.cq_attr);
	expect(F_ibv_create_cq_ex, " ctx=0x%lx ret=0x%lx", p2u(VCTX), p2u(&W.cqx));
	count(F_ibv_create_cq_ex, 0, 0);
	if (p != &W.cqx)
		FAIL("ibv_create_cq_ex did not return the fake's CQ");
	answer(V_create_cq_ex, 0, ENOMEM);
	p = V(ibv_create_cq_ex)(VCTX, &W.cq_attr);
	err = errno;
	expect(F_ibv_create_cq_ex, " ctx=0x%lx ret=NULL errno=12", p2u(VCTX));
	count(F_ibv_create_cq_ex, 1, 0);
	if (p || err != ENOMEM)
		FAIL("ibv_create_cq_ex: %p errno %d, want NULL ENOMEM", p, err);
	V(ibv_create_cq_ex)(NULL, &W.cq_attr);
	expect(F_ibv_create_cq_ex, " ctx=0x0 ret=NULL errno=22");
	count(F_ibv_create_cq_ex, 1, 0);

	answer(V_query_port, 0, 0);
	V(___ibv_query_port)(VCTX, 1, &port);
	expect(F____ibv_query_port, " ctx=0x%lx ret=0", p2u(VCTX));
	count(F____ibv_query_port, 0, 0);
	answer(V_query_port, ENODEV, 0);
	ret = V(___ibv_query_port)(VCTX, 1, &port);
	expect(F____ibv_query_port, " ctx=0x%lx ret=19", p2u(VCTX));
	count(F____ibv_query_port, 1, 0);
	if (ret != ENODEV)
		FAIL("___ibv_query_port returned %d, want ENODEV", ret);

	answer(V_alloc_td, 1, 0);
	p = V(ibv_alloc_td)(VCTX, &W.td_attr);
	expect(F_ibv_alloc_td, " ctx=0x%lx ret=0x%lx", p2u(VCTX), p2u(&W.td));
	count(F_ibv_alloc_td, p == NULL, 0);
	answer(V_alloc_td, 0, EOPNOTSUPP);
	V(ibv_alloc_td)(VCTX, &W.td_attr);
	expect(F_ibv_alloc_td, " ctx=0x%lx ret=NULL errno=95", p2u(VCTX));
	count(F_ibv_alloc_td, 1, 0);
	answer(V_dealloc_td, 0, 0);
	V(ibv_dealloc_td)(&W.td);
	expect(F_ibv_dealloc_td, " td=0x%lx ret=0", p2u(&W.td));
	count(F_ibv_dealloc_td, 0, 0);

	/* a registration: the MR and its keys */
	W.new_mr.lkey = 0x1234;
	W.new_mr.rkey = 0xabcd;
	answer(V_ibv_reg_mr, 1, 0);
	p = V(__ibv_reg_mr)(&W.pd, data, sizeof(data), IBV_ACCESS_LOCAL_WRITE, 1);
	expect(F___ibv_reg_mr, " pd=0x%lx addr=0x%lx length=%zu ret=0x%lx lkey=0x1234 rkey=0xabcd",
	       p2u(&W.pd), p2u(data), sizeof(data), p2u(&W.new_mr));
	count(F___ibv_reg_mr, p == NULL, p ? (long)sizeof(data) : 0);

	/* ssize_t: a count (0 too), or a negative errno value (errno
	 * untouched); four counts (two of them 0) and one failure, so that
	 * the errors tell which failed: 1, where taking 0 for the failure
	 * would count 2 */
	for (unsigned k = 0; k < 4; k++) {
		static const int entries[] = { 2, 0, 3, 0 };

		answer(V__ibv_query_gid_table, entries[k], 0);
		V(ibv_query_gid_table)(VCTX, gid, 4, 0);
		expect(F_ibv_query_gid_table, " ctx=0x%lx ret=%d", p2u(VCTX), entries[k]);
		count(F_ibv_query_gid_table, 0, 0);
	}
	answer(V__ibv_query_gid_table, -EINVAL, 0);
	V(ibv_query_gid_table)(VCTX, gid, 4, 0);
	expect(F_ibv_query_gid_table, " ctx=0x%lx ret=-22", p2u(VCTX));
	count(F_ibv_query_gid_table, 1, 0);

	/* the values: the argument and the result */
	V(ibv_inc_rkey)(0x12345678);
	expect(F_ibv_inc_rkey, " arg=0x12345678 ret=0x12345679");
	count(F_ibv_inc_rkey, 0, 0);
	V(ibv_inc_rkey)(0xabcdefff);	/* the tag wraps */
	expect(F_ibv_inc_rkey, " arg=0xabcdefff ret=0xabcdef00");
	count(F_ibv_inc_rkey, 0, 0);
	V(ibv_is_qpt_supported)(0x14, IBV_QPT_RC);	/* bit 2: yes, an int */
	expect(F_ibv_is_qpt_supported, " arg=0x14 ret=1");
	count(F_ibv_is_qpt_supported, 0, 0);
	V(ibv_flow_label_to_udp_sport)(0xfffff);	/* 0x3fff ^ 0x3f | 0xc000 */
	expect(F_ibv_flow_label_to_udp_sport, " arg=0xfffff ret=0xffc0");
	count(F_ibv_flow_label_to_udp_sport, 0, 0);
	V(ibv_cq_ex_to_cq)(&W.cqx);	/* the same address */
	expect(F_ibv_cq_ex_to_cq, " arg=0x%lx ret=0x%lx", p2u(&W.cqx), p2u(&W.cqx));
	count(F_ibv_cq_ex_to_cq, 0, 0);
}
