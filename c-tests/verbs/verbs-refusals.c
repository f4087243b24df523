/*
 * The refusals of RDMAVERBS_1.3: ours given each NULL its doc refuses (the
 * object, the list of work requests or completions, the output written),
 * with every other argument valid, and a few pairs: the function's own
 * convention (an errno value returned with errno untouched; -1 or NULL
 * with errno EINVAL; 0 with errno EINVAL for a read; nothing for a void
 * function; a negative errno value for ibv_query_gid_table), no call of
 * the fake (no provider op, no libibverbs function), nothing written but
 * a post's *bad_wr, which names the list: NULL for a NULL list, the list
 * for a NULL queue (src/api/verbs/post.rs). Then the two other deviations
 * the docs state: ibv_close_xrcd without the op (EOPNOTSUPP, where the
 * original crashes) and ibv_is_qpt_supported beyond 31 (0). Each case in a
 * child process: a crash fails the case, not the run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs.h"

enum expect {
	R_STATUS,	/* EINVAL returned, errno untouched */
	R_MINUS1,	/* -1, errno EINVAL */
	R_NULL,		/* NULL, errno EINVAL */
	R_ZERO,		/* 0, errno EINVAL (a value read) */
	R_VOID,		/* nothing */
	R_SSIZE,	/* -EINVAL, errno untouched */
	R_EOPNOTSUPP,	/* EOPNOTSUPP returned, errno untouched */
	R_FALSE,	/* 0, errno untouched */
};

static const char *const expect_name[] = {
	"EINVAL returned, errno untouched", "-1 with errno EINVAL", "NULL with errno EINVAL",
	"0 with errno EINVAL", "nothing done", "-EINVAL returned, errno untouched",
	"EOPNOTSUPP returned, errno untouched", "0, errno untouched",
};

/* A post's *bad_wr afterwards: untouched (not a post), NULL, the list. */
enum bad { BAD_NONE, BAD_NULL, BAD_LIST };

struct refusal {
	enum vfn fn;
	const char *args;	/* which are NULL */
	size_t off[2];		/* their places in the argument struct */
	int n;
	enum expect expect;
	enum bad bad;
	enum vconfig config;
	unsigned int qpt;	/* ibv_is_qpt_supported's */
};

#define OFFS(fn, a) offsetof(struct a_##fn, a)
#define R(fn, a, e) { F_##fn, #a " NULL", { OFFS(fn, a), 0 }, 1, e, BAD_NONE, C_FULL, 0 }
#define RB(fn, a, e, b) { F_##fn, #a " NULL", { OFFS(fn, a), 0 }, 1, e, b, C_FULL, 0 }
#define R2(fn, a, b, e, bad) { F_##fn, #a " and " #b " NULL", { OFFS(fn, a), OFFS(fn, b) }, 2, e, bad, C_FULL, 0 }
#define RC(fn, e, config, what, qpt) { F_##fn, what, { 0, 0 }, 0, e, BAD_NONE, config, qpt }

static const struct refusal refusals_[] = {
	R(ibv_wr_atomic_cmp_swp, qp, R_VOID), R(ibv_wr_atomic_fetch_add, qp, R_VOID),
	R(ibv_wr_bind_mw, qp, R_VOID), R(ibv_wr_local_inv, qp, R_VOID),
	R(ibv_wr_rdma_read, qp, R_VOID), R(ibv_wr_rdma_write, qp, R_VOID),
	R(ibv_wr_rdma_write_imm, qp, R_VOID), R(ibv_wr_send, qp, R_VOID),
	R(ibv_wr_send_imm, qp, R_VOID), R(ibv_wr_send_inv, qp, R_VOID),
	R(ibv_wr_send_tso, qp, R_VOID), R(ibv_wr_set_ud_addr, qp, R_VOID),
	R(ibv_wr_set_xrc_srqn, qp, R_VOID), R(ibv_wr_set_inline_data, qp, R_VOID),
	R(ibv_wr_set_inline_data_list, qp, R_VOID), R(ibv_wr_set_sge, qp, R_VOID),
	R(ibv_wr_set_sge_list, qp, R_VOID), R(ibv_wr_start, qp, R_VOID),
	R(ibv_wr_complete, qp, R_STATUS), R(ibv_wr_abort, qp, R_VOID),
#ifdef RDMAVERBS_HAS_ibv_wr_atomic_write
	R(ibv_wr_atomic_write, qp, R_VOID),
#endif
#ifdef RDMAVERBS_HAS_ibv_wr_flush
	R(ibv_wr_flush, qp, R_VOID),
#endif
#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
	R(ibv_query_comp_cntr_caps, context, R_STATUS), R(ibv_query_comp_cntr_caps, caps, R_STATUS),
	R2(ibv_query_comp_cntr_caps, context, caps, R_STATUS, BAD_NONE),
#endif
	R(ibv_start_poll, cq, R_STATUS), R(ibv_next_poll, cq, R_STATUS), R(ibv_end_poll, cq, R_VOID),
	R(ibv_wc_read_opcode, cq, R_ZERO), R(ibv_wc_read_vendor_err, cq, R_ZERO),
	R(ibv_wc_read_byte_len, cq, R_ZERO), R(ibv_wc_read_imm_data, cq, R_ZERO),
	R(ibv_wc_read_invalidated_rkey, cq, R_ZERO), R(ibv_wc_read_qp_num, cq, R_ZERO),
	R(ibv_wc_read_src_qp, cq, R_ZERO), R(ibv_wc_read_wc_flags, cq, R_ZERO),
	R(ibv_wc_read_slid, cq, R_ZERO), R(ibv_wc_read_sl, cq, R_ZERO),
	R(ibv_wc_read_dlid_path_bits, cq, R_ZERO), R(ibv_wc_read_completion_ts, cq, R_ZERO),
	R(ibv_wc_read_completion_wallclock_ns, cq, R_ZERO), R(ibv_wc_read_cvlan, cq, R_ZERO),
	R(ibv_wc_read_flow_tag, cq, R_ZERO), R(ibv_wc_read_tm_info, cq, R_VOID),
	RB(ibv_post_wq_recv, wq, R_STATUS, BAD_LIST), RB(ibv_post_wq_recv, recv_wr, R_STATUS, BAD_NULL),
	R2(ibv_post_wq_recv, wq, recv_wr, R_STATUS, BAD_NULL),
	R(___ibv_query_port, context, R_STATUS), R(___ibv_query_port, port_attr, R_STATUS),
	R2(___ibv_query_port, context, port_attr, R_STATUS, BAD_NONE),
	R(ibv_query_gid_ex, context, R_STATUS), R(ibv_query_gid_ex, entry, R_STATUS),
	R2(ibv_query_gid_ex, context, entry, R_STATUS, BAD_NONE),
	R(ibv_query_gid_table, context, R_SSIZE), R(ibv_query_gid_table, entries, R_SSIZE),
	R2(ibv_query_gid_table, context, entries, R_SSIZE, BAD_NONE),
	R(ibv_create_flow, qp, R_NULL), R(ibv_destroy_flow, flow_id, R_STATUS),
	R(ibv_create_flow_action_esp, ctx, R_NULL), R(ibv_modify_flow_action_esp, action, R_STATUS),
	R(ibv_destroy_flow_action, action, R_STATUS),
	R(ibv_open_xrcd, context, R_NULL), R(ibv_close_xrcd, xrcd, R_STATUS),
	R(__ibv_reg_mr, pd, R_NULL), R(__ibv_reg_mr_iova, pd, R_NULL),
	R(ibv_alloc_mw, pd, R_NULL), R(ibv_dealloc_mw, mw, R_STATUS),
	R(ibv_bind_mw, qp, R_STATUS), R(ibv_bind_mw, mw, R_STATUS), R(ibv_bind_mw, mw_bind, R_STATUS),
	R2(ibv_bind_mw, mw, mw_bind, R_STATUS, BAD_NONE),
	R(ibv_advise_mr, pd, R_STATUS), R(ibv_alloc_dm, context, R_NULL), R(ibv_free_dm, dm, R_STATUS),
	R(ibv_memcpy_to_dm, dm, R_STATUS), R(ibv_memcpy_from_dm, dm, R_STATUS),
	R(ibv_alloc_null_mr, pd, R_NULL), R(ibv_reg_dm_mr, pd, R_NULL),
	R(ibv_create_cq_ex, context, R_NULL),
	R(ibv_poll_cq, cq, R_MINUS1), R(ibv_poll_cq, wc, R_MINUS1), R2(ibv_poll_cq, cq, wc, R_MINUS1, BAD_NONE),
	/* a cast: NULL back, nothing else (the original's too) */
	R(ibv_cq_ex_to_cq, cq, R_FALSE),
	R(ibv_req_notify_cq, cq, R_STATUS), R(ibv_modify_cq, cq, R_STATUS),
	R(ibv_create_srq_ex, srq_init_attr_ex, R_NULL), R(ibv_create_srq_ex, context, R_NULL),
	R2(ibv_create_srq_ex, context, srq_init_attr_ex, R_NULL, BAD_NONE),
	R(ibv_get_srq_num, srq, R_STATUS), R(ibv_get_srq_num, srq_num, R_STATUS),
	R2(ibv_get_srq_num, srq, srq_num, R_STATUS, BAD_NONE),
	RB(ibv_post_srq_recv, srq, R_STATUS, BAD_LIST), RB(ibv_post_srq_recv, recv_wr, R_STATUS, BAD_NULL),
	R2(ibv_post_srq_recv, srq, recv_wr, R_STATUS, BAD_NULL),
	RB(ibv_post_srq_ops, srq, R_STATUS, BAD_LIST), RB(ibv_post_srq_ops, op, R_STATUS, BAD_NULL),
	R2(ibv_post_srq_ops, srq, op, R_STATUS, BAD_NULL),
	R(ibv_create_qp_ex, qp_init_attr_ex, R_NULL), R(ibv_create_qp_ex, context, R_NULL),
	R2(ibv_create_qp_ex, context, qp_init_attr_ex, R_NULL, BAD_NONE),
	R(ibv_alloc_td, context, R_NULL), R(ibv_dealloc_td, td, R_STATUS),
	R(ibv_alloc_parent_domain, context, R_NULL),
	R(ibv_query_rt_values_ex, context, R_STATUS), R(ibv_query_rt_values_ex, values, R_STATUS),
	R2(ibv_query_rt_values_ex, context, values, R_STATUS, BAD_NONE),
	R(ibv_query_device_ex, context, R_STATUS), R(ibv_query_device_ex, attr, R_STATUS),
	R2(ibv_query_device_ex, context, attr, R_STATUS, BAD_NONE),
	R(ibv_open_qp, context, R_NULL), R(ibv_modify_qp_rate_limit, qp, R_STATUS),
	R(ibv_create_wq, context, R_NULL), R(ibv_create_wq, wq_init_attr, R_NULL),
	R2(ibv_create_wq, context, wq_init_attr, R_NULL, BAD_NONE),
	R(ibv_modify_wq, wq, R_STATUS), R(ibv_destroy_wq, wq, R_STATUS),
	R(ibv_create_rwq_ind_table, context, R_NULL), R(ibv_destroy_rwq_ind_table, rwq_ind_table, R_STATUS),
	RB(ibv_post_send, qp, R_STATUS, BAD_LIST), RB(ibv_post_send, wr, R_STATUS, BAD_NULL),
	R2(ibv_post_send, qp, wr, R_STATUS, BAD_NULL),
	RB(ibv_post_recv, qp, R_STATUS, BAD_LIST), RB(ibv_post_recv, wr, R_STATUS, BAD_NULL),
	R2(ibv_post_recv, qp, wr, R_STATUS, BAD_NULL),
	R(ibv_create_counters, context, R_NULL), R(ibv_destroy_counters, counters, R_STATUS),
	R(ibv_attach_counters_point_flow, counters, R_STATUS),
	R(ibv_read_counters, counters, R_STATUS), R(ibv_read_counters, counters_value, R_STATUS),
	R2(ibv_read_counters, counters, counters_value, R_STATUS, BAD_NONE),
	/* the original calls close_xrcd without looking: here EOPNOTSUPP */
	RC(ibv_close_xrcd, R_EOPNOTSUPP, C_NOT_EXT, "a context not extended", 0),
	RC(ibv_close_xrcd, R_EOPNOTSUPP, C_OP_NULL, "close_xrcd NULL", 0),
	/* a QP type beyond 31, where the original's shift is undefined: 0 */
	RC(ibv_is_qpt_supported, R_FALSE, C_FULL, "qpt 32", 32),
	RC(ibv_is_qpt_supported, R_FALSE, C_FULL, "qpt 33", 33),
	RC(ibv_is_qpt_supported, R_FALSE, C_FULL, "qpt 64", 64),
	RC(ibv_is_qpt_supported, R_FALSE, C_FULL, "qpt UINT_MAX", 0xffffffffu),
};

#define SENTINEL 4242

/* The post's *bad_wr in the world, and the list it was given. */
static void *const *bad_of(const struct vcase *c, struct vworld *w, void **list)
{
	switch (c->fn) {
	case F_ibv_post_send: *list = c->u.ibv_post_send.wr; return (void *const *)&w->bad_swr;
	case F_ibv_post_recv: *list = c->u.ibv_post_recv.wr; return (void *const *)&w->bad_rwr;
	case F_ibv_post_srq_recv: *list = c->u.ibv_post_srq_recv.recv_wr; return (void *const *)&w->bad_rwr;
	case F_ibv_post_wq_recv: *list = c->u.ibv_post_wq_recv.recv_wr; return (void *const *)&w->bad_rwr;
	case F_ibv_post_srq_ops: *list = c->u.ibv_post_srq_ops.op; return (void *const *)&w->bad_op;
	default: *list = NULL; return NULL;
	}
}

static struct vworld base_of_case;

/* Runs refusal i in this (child) process: 0 when ours behaved. */
static int refuse(const struct refusal *r)
{
	static struct vworld expect;
	struct vcase c;
	void *list = NULL, *bad_wanted;
	uint64_t ret;
	int err, k, ok;
	size_t at;

	begin(&c, r->fn, r->config, r->args);
	base_of_case = W;
	fill_args(&c, 0);
	for (k = 0; k < r->n; k++)
		memset((char *)&c.u + r->off[k], 0, sizeof(void *));
	if (r->fn == F_ibv_is_qpt_supported) {
		c.u.ibv_is_qpt_supported.caps = 0xffffffffu;
		c.u.ibv_is_qpt_supported.qpt = r->qpt;
	}
	apply_config(&c);
	script_ok(&c.script);
	vfake_script = &c.script;
	expect = W;
	bad_wanted = NULL;
	if (r->bad != BAD_NONE) {
		void *const *b = bad_of(&c, &expect, &list);

		bad_wanted = r->bad == BAD_LIST ? list : NULL;
		memcpy((void *)b, &bad_wanted, sizeof(bad_wanted));
	}
	errno = SENTINEL;
	call(&c, 1, &ret);
	err = errno;
	switch (r->expect) {
	case R_STATUS: ok = (int)ret == EINVAL && err == SENTINEL; break;
	case R_MINUS1: ok = (int)ret == -1 && err == EINVAL; break;
	case R_NULL: case R_ZERO: ok = ret == 0 && err == EINVAL; break;
	case R_VOID: ok = err == SENTINEL; break;
	case R_SSIZE: ok = (int64_t)ret == -EINVAL && err == SENTINEL; break;
	case R_EOPNOTSUPP: ok = (int)ret == EOPNOTSUPP && err == SENTINEL; break;
	default: ok = ret == 0 && err == SENTINEL; break;
	}
	if (!ok)
		printf("FAIL: %s(%s): returned %#llx, errno %d; want %s\n", vfn_name[r->fn], r->args,
		       (unsigned long long)ret, err, expect_name[r->expect]);
	if (W.nlog) {
		printf("FAIL: %s(%s): called the fake's %s\n", vfn_name[r->fn], r->args,
		       vop_name[W.log[0].op]);
		return 1;
	}
	if (r->bad != BAD_NONE) {
		void *const *b = bad_of(&c, &W, &list);

		if (*b != bad_wanted) {
			printf("FAIL: %s(%s): *bad_wr is %p%s, want %p (%s)\n", vfn_name[r->fn], r->args, *b,
			       *b == *bad_of(&c, &base_of_case, &list) ? " (untouched)" : "", bad_wanted,
			       r->bad == BAD_LIST ? "the list: none of it posted" : "NULL: the list");
			return 1;
		}
	}
	for (at = 0; at < sizeof(W); at++) {
		if (((unsigned char *)&W)[at] != ((unsigned char *)&expect)[at]) {
			size_t start;
			const char *name = vfake_region(at, &start);

			printf("FAIL: %s(%s): byte %zu of %s is %#x, want %#x%s\n", vfn_name[r->fn], r->args,
			       at - start, name, ((unsigned char *)&W)[at], ((unsigned char *)&expect)[at],
			       r->bad == BAD_LIST ? " (*bad_wr: the list)" : r->bad == BAD_NULL ? " (*bad_wr: NULL)" : "");
			return 1;
		}
	}
	return !ok;
}

int refusals(void)
{
	size_t i, n = sizeof(refusals_) / sizeof(refusals_[0]);
	int pass = 0, fail = 0;
	int fns[F_COUNT] = { 0 }, nfns = 0;

	for (i = 0; i < n; i++) {
		int status;
		pid_t pid;

		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid == 0) {
			int r = refuse(&refusals_[i]);

			fflush(stdout);
			_exit(r);
		}
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			pass++;
		} else {
			if (WIFSIGNALED(status))
				printf("FAIL: %s(%s): crashed with signal %d\n", vfn_name[refusals_[i].fn],
				       refusals_[i].args, WTERMSIG(status));
			fail++;
		}
		nfns += !fns[refusals_[i].fn]++;
	}
	printf("verbs: refusals: %d of %zu passed (%d functions), %d failed\n", pass, n, nfns, fail);
	return fail != 0;
}
