/* The directed cases of the differential test of RDMAVERBS_1.3 (verbs.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "verbs.h"

/* ---- every function, every context, every answer ---- */

static void generic(void)
{
	static const enum vconfig ctx[] = { C_FULL, C_EXACT, C_SHORT, C_OP_NULL, C_NOT_EXT };
	static const enum vconfig any[] = { C_FULL, C_EXACT, C_SHORT };
	static const enum vconfig legacy[] = { C_FULL, C_SHORT, C_NOT_EXT, C_OP_NULL };
	static const enum vconfig other[] = { C_FULL, C_NOT_EXT };
	int f, k;
	size_t i, n;
	const enum vconfig *configs;

	for (f = 0; f < F_COUNT; f++) {
		switch (vinfo[f].kind) {
		case K_CTX: configs = ctx; n = 5; break;
		case K_CTX_ANY: configs = any; n = 3; break;
		case K_LEGACY: configs = legacy; n = f == F_ibv_alloc_mw ? 4 : 3; break;
		default: configs = other; n = 2; break;
		}
		for (i = 0; i < n; i++)
			for (k = 0; k < NVARIANTS; k++)
				directed_one((enum vfn)f, configs[i], k, "every context, every answer");
	}
}

/* Random arguments, one function at a time: the values of the wr_* and
 * the reads, the lengths, the pointers passed on. */
static void values(void)
{
	int f, i;

	for (f = 0; f < F_COUNT; f++) {
		for (i = 0; i < 48; i++) {
			struct vcase c;

			begin(&c, (enum vfn)f, C_FULL, "random arguments");
			fill_args(&c, 1);
			script_random(&c.script);
			script_fit(&c);
			test(&c);
		}
	}
}

/* ibv_query_device_ex: its input's comp_mask, the op missing, answering
 * EOPNOTSUPP or ENOSYS (the legacy query into the cleared struct) or
 * anything else (returned), and the legacy query's answers. */
static void query_device_ex(void)
{
	static const int ex[] = { 0, EOPNOTSUPP, ENOSYS, EINVAL, ENOMEM, -1, -ENOSYS, -EOPNOTSUPP };
	static const int legacy[] = { 0, EINVAL, ENOMEM };
	static const enum vconfig configs[] = { C_FULL, C_EXACT, C_SHORT, C_OP_NULL, C_NOT_EXT };
	int input, ci, e, l;

	for (input = 0; input < 4; input++)
		for (ci = 0; ci < 5; ci++)
			for (e = 0; e < 8; e++)
				for (l = 0; l < 3; l++) {
					struct vcase c;

					begin(&c, F_ibv_query_device_ex, configs[ci], "comp_mask and the legacy query");
					fill_args(&c, 0);
					c.u.ibv_query_device_ex.input = input ? &W.qd_input : NULL;
					W.qd_input.comp_mask = input == 2 ? 1 : input == 3 ? 0x80000000u : 0;
					apply_config(&c);
					script_ok(&c.script);
					c.script.a[V_query_device_ex].ret = ex[e];
					c.script.a[V_ibv_query_device].ret = legacy[l];
					test(&c);
				}
}

/* The answers of a creation: made, NULL with errno, NULL without. */
static void creation_answers(struct vscript *s, int k, int op1, int op2)
{
	script_ok(s);
	s->a[op1].ret = s->a[op2].ret = k == 0;
	s->a[op1].err = s->a[op2].err = k == 1 ? ENOMEM : 0;
}

/* ibv_create_qp_ex: only IBV_QP_INIT_ATTR_PD takes ibv_create_qp on the
 * PD (with or without a context); anything else the extended op. */
static void create_qp_ex(void)
{
	static const uint32_t masks[] = { IBV_QP_INIT_ATTR_PD, 0, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, IBV_QP_INIT_ATTR_PD | 0x80000000u, 0xffffffffu,
		IBV_QP_INIT_ATTR_CREATE_FLAGS, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD };
	static const enum vconfig configs[] = { C_FULL, C_SHORT, C_OP_NULL, C_NOT_EXT };
	int m, ci, k, noctx;

	for (m = 0; m < 8; m++)
		for (ci = 0; ci < 4; ci++)
			for (k = 0; k < 3; k++)
				for (noctx = 0; noctx < 1 + (m == 0); noctx++) {
					struct vcase c;

					begin(&c, F_ibv_create_qp_ex, configs[ci], "comp_mask");
					fill_args(&c, 0);
					W.qp_attr.comp_mask = masks[m];
					if (noctx)
						c.u.ibv_create_qp_ex.context = NULL;
					apply_config(&c);
					creation_answers(&c.script, k, V_create_qp_ex, V_ibv_create_qp);
					test(&c);
				}
}

/* ibv_create_srq_ex: a PD, with no type or the basic type and nothing else,
 * takes ibv_create_srq; anything else the extended op. */
static void create_srq_ex(void)
{
	static const uint32_t masks[] = { IBV_SRQ_INIT_ATTR_PD, IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		IBV_SRQ_INIT_ATTR_TYPE, 0, IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ,
		IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_TYPE,
		IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_RESERVED, 0xffffffffu };
	static const int types[] = { IBV_SRQT_BASIC, IBV_SRQT_XRC, IBV_SRQT_TM, 7 };
	static const enum vconfig configs[] = { C_FULL, C_SHORT, C_OP_NULL, C_NOT_EXT };
	int m, t, ci, k, noctx;

	for (m = 0; m < 8; m++)
		for (t = 0; t < 4; t++)
			for (ci = 0; ci < 4; ci++)
				for (k = 0; k < 3; k++)
					for (noctx = 0; noctx < 2; noctx++) {
						struct vcase c;
						int plain = m == 0 || (m == 1 && t == 0);

						if (noctx && !plain)
							continue;	/* the original needs it */
						begin(&c, F_ibv_create_srq_ex, configs[ci], "comp_mask and srq_type");
						fill_args(&c, 0);
						W.srq_attr.comp_mask = masks[m];
						W.srq_attr.srq_type = (enum ibv_srq_type)types[t];
						if (noctx)
							c.u.ibv_create_srq_ex.context = NULL;
						apply_config(&c);
						creation_answers(&c.script, k, V_create_srq_ex, V_ibv_create_srq);
						test(&c);
					}
}

/* ibv_create_cq_ex of rdma-core 44: any comp_mask and wc_flags go to the
 * provider as they are (no EINVAL for unknown bits, EOPNOTSUPP without
 * the op). */
static void create_cq_ex(void)
{
	static const uint32_t masks[] = { 0, IBV_CQ_INIT_ATTR_MASK_FLAGS, IBV_CQ_INIT_ATTR_MASK_PD, 3, 4,
					  0x80000000u, 0xffffffffu };
	static const enum vconfig configs[] = { C_FULL, C_EXACT, C_SHORT, C_OP_NULL, C_NOT_EXT };
	int m, ci, k, wc;

	for (m = 0; m < 7; m++)
		for (wc = 0; wc < 3; wc++)
			for (ci = 0; ci < 5; ci++)
				for (k = 0; k < 3; k++) {
					struct vcase c;

					begin(&c, F_ibv_create_cq_ex, configs[ci], "comp_mask passed through");
					fill_args(&c, 0);
					W.cq_attr.comp_mask = masks[m];
					W.cq_attr.wc_flags = wc == 0 ? 0 : wc == 1 ? IBV_WC_EX_WITH_BYTE_LEN : UINT64_MAX;
					W.cq_attr.flags = wc == 2 ? 0xffffffffu : 0;
					apply_config(&c);
					creation_answers(&c.script, k, V_create_cq_ex, V_create_cq_ex);
					test(&c);
				}
}

/* ibv_bind_mw's three tests, in its order: the window's type, an address
 * or a length without an MR, an MR of another PD; then the op. */
static void bind_mw(void)
{
	static const int types[] = { IBV_MW_TYPE_1, IBV_MW_TYPE_2, 0, 99 };
	static const int answers[] = { 0, EINVAL, -1 };
	int t, mr, addr, len, k;

	for (t = 0; t < 4; t++)
		for (mr = 0; mr < 3; mr++)
			for (addr = 0; addr < 2; addr++)
				for (len = 0; len < 2; len++)
					for (k = 0; k < 3; k++) {
						struct vcase c;

						begin(&c, F_ibv_bind_mw, C_FULL, "the window's checks");
						fill_args(&c, 0);
						W.mw.type = (enum ibv_mw_type)types[t];
						W.mw_bind.bind_info.mr = mr == 0 ? NULL : mr == 1 ? &W.mr : &W.other_mr;
						W.mw_bind.bind_info.addr = addr ? 0x1000 : 0;
						W.mw_bind.bind_info.length = len ? 64 : 0;
						script_ok(&c.script);
						c.script.a[V_bind_mw].ret = answers[k];
						test(&c);
					}
}

/* __ibv_reg_mr and __ibv_reg_mr_iova: the plain registration only for
 * constant access flags without an optional one; else ibv_reg_mr_iova2
 * (with the address as the IOVA for __ibv_reg_mr). */
static void reg_mr(void)
{
	static const unsigned int access[] = { 0, IBV_ACCESS_LOCAL_WRITE, 0xfffff, IBV_ACCESS_RELAXED_ORDERING,
		1u << 29, IBV_ACCESS_OPTIONAL_RANGE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING,
		0xffffffffu, 0x40000000u };
	static const int cnst[] = { 0, 1, 2, -1 };
	int f, a, k, i;

	for (f = 0; f < 2; f++)
		for (a = 0; a < 9; a++)
			for (i = 0; i < 4; i++)
				for (k = 0; k < 3; k++) {
					struct vcase c;

					begin(&c, f ? F___ibv_reg_mr_iova : F___ibv_reg_mr, C_FULL, "which registration");
					fill_args(&c, 0);
					if (f) {
						c.u.__ibv_reg_mr_iova.access = access[a];
						c.u.__ibv_reg_mr_iova.is_access_const = cnst[i];
					} else {
						c.u.__ibv_reg_mr.access = access[a];
						c.u.__ibv_reg_mr.is_access_const = cnst[i];
					}
					script_ok(&c.script);
					creation_answers(&c.script, k, V_ibv_reg_mr, V_ibv_reg_mr_iova);
					c.script.a[V_ibv_reg_mr_iova2] = c.script.a[V_ibv_reg_mr];
					test(&c);
				}
}

/* ___ibv_query_port at each size of the context, each answer. */
static void query_port(void)
{
	static const size_t sizes[] = { 0, 8, 639, 640, 647, 648, SIZE_MAX };
	int s, k;

	for (s = 0; s < 7; s++)
		for (k = 0; k < NVARIANTS; k++) {
			struct vcase c;

			begin(&c, F____ibv_query_port, C_FULL, "the context's size");
			fill_args(&c, 0);
			W.vctx.sz = sizes[s];
			script_variant(&c.script, k);
			test(&c);
		}
}

/* The outputs' sizes: GID entries, counters, completions, as many as the
 * provider answers within the room given. */
static void outputs(void)
{
	static const size_t max[] = { 0, 1, 3, 4 };
	static const int64_t table[] = { 0, 1, 2, 3, 4, -EINVAL, -1 };
	static const uint32_t ncounters[] = { 0, 1, 7, 8 };
	static const int entries[] = { 0, 1, 2, 4, -1 };
	static const int polled[] = { 0, 1, 2, 4, 3, -1, -EINVAL };
	struct vcase c;
	int i, j, k;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 7; j++)
			for (k = 0; k < 2; k++) {
				if (table[j] > (int64_t)max[i] || max[i] + (size_t)k > 4)
					continue;
				begin(&c, F_ibv_query_gid_table, C_FULL, "GID entries written");
				fill_args(&c, 0);
				c.u.ibv_query_gid_table.max_entries = max[i];
				c.u.ibv_query_gid_table.entries = &W.gid[k];
				script_ok(&c.script);
				c.script.a[V__ibv_query_gid_table].ret = table[j];
				test(&c);
			}
	for (i = 0; i < 4; i++)
		for (k = 0; k < 2; k++) {
			begin(&c, F_ibv_read_counters, C_FULL, "counters written");
			fill_args(&c, 0);
			c.u.ibv_read_counters.ncounters = ncounters[i];
			script_variant(&c.script, k);
			test(&c);
		}
	for (i = 0; i < 5; i++)
		for (j = 0; j < 7; j++) {
			if (polled[j] > 0 && polled[j] > entries[i])
				continue;
			begin(&c, F_ibv_poll_cq, C_FULL, "completions written");
			fill_args(&c, 0);
			c.u.ibv_poll_cq.num_entries = entries[i];
			script_ok(&c.script);
			c.script.a[V_poll_cq].ret = polled[j];
			test(&c);
		}
	/* no room asked for and no array: the provider's call, as the original's */
	for (i = 0; i < 5; i++)
		if (entries[i] <= 0)
			for (j = 0; j < 7; j++) {
				if (polled[j] > 0)
					continue;
				begin(&c, F_ibv_poll_cq, C_FULL, "no array, no room");
				fill_args(&c, 0);
				c.u.ibv_poll_cq.num_entries = entries[i];
				c.u.ibv_poll_cq.wc = NULL;
				script_ok(&c.script);
				c.script.a[V_poll_cq].ret = polled[j];
				test(&c);
			}
}

void directed(void)
{
	generic();
	values();
	query_device_ex();
	create_qp_ex();
	create_srq_ex();
	create_cq_ex();
	bind_mw();
	reg_mr();
	query_port();
	outputs();
}
