/* Ours and libibverbs' own functions (verbs.h): ours calls the test's own
 * libibverbs functions, not libibverbs', and ibv_poll_cq answered 95 by
 * libibverbs' stub reads nothing past the room given. */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs.h"

/* ---- ours calls this program's libibverbs functions ---- */

/* Each replaced function, and a case that reaches it. */
static void reach(struct vcase *c, int op)
{
	static const struct { int op; enum vfn fn; enum vconfig config; } r[] = {
		{ V_ibv_query_port, F____ibv_query_port, C_NOT_EXT },
		{ V__ibv_query_gid_ex, F_ibv_query_gid_ex, C_FULL },
		{ V__ibv_query_gid_table, F_ibv_query_gid_table, C_FULL },
		{ V_ibv_reg_mr, F___ibv_reg_mr, C_FULL },
		{ V_ibv_reg_mr_iova, F___ibv_reg_mr_iova, C_FULL },
		{ V_ibv_reg_mr_iova2, F___ibv_reg_mr, C_FULL },
		{ V_ibv_create_srq, F_ibv_create_srq_ex, C_FULL },
		{ V_ibv_create_qp, F_ibv_create_qp_ex, C_FULL },
		{ V_ibv_query_device, F_ibv_query_device_ex, C_NOT_EXT },
#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
		{ V__ibv_query_comp_cntr_caps, F_ibv_query_comp_cntr_caps, C_FULL },
#endif
	};
	size_t i;

	for (i = 0; r[i].op != op; i++)
		;
	begin(c, r[i].fn, r[i].config, "reaches a replaced function");
	fill_args(c, 0);
	if (op == V_ibv_reg_mr_iova2)
		c->u.__ibv_reg_mr.is_access_const = 0;
	if (op == V_ibv_create_srq)
		W.srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	if (op == V_ibv_create_qp)
		W.qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	apply_config(c);
	script_ok(&c->script);
}

int replaced(void)
{
	static const int ops[] = { V_ibv_query_port, V__ibv_query_gid_ex, V__ibv_query_gid_table,
		V_ibv_reg_mr, V_ibv_reg_mr_iova, V_ibv_reg_mr_iova2, V_ibv_create_srq, V_ibv_create_qp,
		V_ibv_query_device,
#ifdef RDMAVERBS_HAS_ibv_query_comp_cntr_caps
		V__ibv_query_comp_cntr_caps,
#endif
	};
	int n = (int)(sizeof(ops) / sizeof(ops[0])), i, ok = 0;
	uint64_t ret;

	for (i = 0; i < n; i++) {
		struct vcase c;

		reach(&c, ops[i]);
		vfake_script = &c.script;
		call(&c, 1, &ret);
		if (W.nlog == 1 && W.log[0].op == ops[i]) {
			ok++;
		} else {
			fprintf(stderr, "FAIL: ours' %s did not call this program's %s (%d calls seen)\n",
				vfn_name[c.fn], vop_name[ops[i]], W.nlog);
		}
	}
	printf("verbs: ours called this program's own");
	for (i = 0; i < n; i++)
		printf("%s %s", i ? "," : "", vop_name[ops[i]]);
	printf(": %d of %d\n", ok, n);
	return ok != n;
}

/* libibverbs' poll_cq stub (a provider without the op) answers EOPNOTSUPP,
 * 95, which the original returns as a count, whatever num_entries was
 * (docs/deviations.md). Here the caller's array of one completion ends at
 * an unreadable page: ours must return 95 too, and read nothing past the
 * room it was given. In a child process: a crash fails this case only. */
int poll_overrun(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int status, n;
	pid_t pid;

	if (map == MAP_FAILED || mprotect(map + page, (size_t)page, PROT_NONE)) {
		perror("verbs: mmap");
		return 1;
	}
	for (n = 1; n <= 2; n++) {
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid == 0) {
			struct vcase c;

			begin(&c, F_ibv_poll_cq, C_FULL, "EOPNOTSUPP from libibverbs' stub, room before an unreadable page");
			fill_args(&c, 0);
			c.u.ibv_poll_cq.num_entries = n;
			c.u.ibv_poll_cq.wc = (struct ibv_wc *)(map + page - (size_t)n * sizeof(struct ibv_wc));
			script_ok(&c.script);
			c.script.a[V_poll_cq].ret = EOPNOTSUPP;
			test(&c);
			fflush(stderr);
			_exit(failed != 0);
		}
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("FAIL: ibv_poll_cq answered EOPNOTSUPP (95, libibverbs' stub) for %d completion%s "
			       "ending at an unreadable page: ours %s%d (the original returns 95)\n", n,
			       n > 1 ? "s" : "", WIFSIGNALED(status) ? "was killed by signal " : "differed: status ",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			return 1;
		}
	}
	munmap(map, (size_t)page * 2);
	printf("verbs: ibv_poll_cq answering 95 (libibverbs' stub) for 1 and 2 completions before an "
	       "unreadable page: as the original\n");
	return 0;
}
