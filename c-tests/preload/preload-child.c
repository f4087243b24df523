/* The preload test's child (preload.h): one case, as the parent names it
 * (contexts, leaked, quiet, idle, once, fork, race, forkwait, extended,
 * nodelete), on the fake libibverbs; with forkwait's calloc, held. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>

#include "fakeverbs.h"
#include "preload.h"

static struct ibv_device dev;

/* Opens a context; a QP and CQ of it. */
struct handles {
	struct ibv_context *ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct ibv_srq srq;
};

static int open_one(struct handles *h)
{
	h->ctx = ibv_open_device(&dev);
	if (!h->ctx)
		return -1;
	h->qp.context = h->srq.context = h->cq.context = h->ctx;
	h->qp.qp_num = 99;
	return 0;
}

/* One call of each wrapped op. */
static void use(struct handles *h)
{
	struct ibv_sge sge = { .addr = 0, .length = 64, .lkey = 1 };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr *sbad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc;

	ibv_post_send(&h->qp, &swr, &sbad);
	ibv_post_recv(&h->qp, &rwr, &rbad);
	ibv_post_srq_recv(&h->srq, &rwr, &rbad);
	ibv_poll_cq(&h->cq, 1, &wc);
	ibv_req_notify_cq(&h->cq, 0);
}

/* Whether the context's post_send op lies in the preload library (is
 * wrapped). (memcpy: ISO C has no cast from a function pointer to void *.) */
static int wrapped(struct ibv_context *ctx)
{
	Dl_info info;
	void *fn;

	memcpy(&fn, &ctx->ops.post_send, sizeof(fn));
	return dladdr(fn, &info) && strstr(info.dli_fname, "rdmaverbs-preload");
}

/* ---- forkwait: a calloc of the preload library's held until released ---- */

static int hold;		/* the next calloc from the preload library blocks */
static int held, release;	/* it is blocked; it may go on */
static uintptr_t pl_start, pl_end;	/* the preload library's text */

extern void *__libc_calloc(size_t, size_t);

void *calloc(size_t n, size_t size)
{
	uintptr_t from = (uintptr_t)__builtin_return_address(0);

	if (from >= pl_start && from < pl_end &&
	    __atomic_exchange_n(&hold, 0, __ATOMIC_ACQ_REL)) {
		__atomic_store_n(&held, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
			usleep(1000);
	}
	return __libc_calloc(n, size);
}

static int find_preload(struct dl_phdr_info *info, size_t size, void *arg)
{
	int i;

	(void)size;
	(void)arg;
	if (!strstr(info->dlpi_name, "rdmaverbs-preload"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
			pl_start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			pl_end = pl_start + info->dlpi_phdr[i].p_memsz;
		}
	return 1;
}

/* What the registering thread does while the calloc is armed. */
static struct handles fw;
static void *register_one(void *what)
{
	if (!strcmp(what, "context"))
		open_one(&fw);
	else if (!strcmp(what, "qp")) {
		struct ibv_qp_init_attr_ex qa;

		memset(&qa, 0, sizeof(qa));
		qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
		ibv_create_qp_ex(fw.ctx, &qa);
	} else {
		struct ibv_cq_init_attr_ex ca;

		memset(&ca, 0, sizeof(ca));
		ca.cqe = 16;
		ibv_create_cq_ex(fw.ctx, &ca);
	}
	return NULL;
}

static void *releaser(void *arg)
{
	(void)arg;
	usleep(300000);
	__atomic_store_n(&release, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A fork while a thread is held inside the registration of `what`: how
 * long the fork took, in ms (-1 when the registration never got there). */
static long fork_during(const char *what)
{
	pthread_t t, r;
	struct timespec a, b;
	int i, st;
	pid_t pid;

	hold = 1;
	held = release = 0;
	pthread_create(&t, NULL, register_one, (void *)what);
	for (i = 0; i < 2000 && !__atomic_load_n(&held, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	if (!held) {
		hold = 0;
		release = 1;
		pthread_join(t, NULL);
		return -1;
	}
	pthread_create(&r, NULL, releaser, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0)
		_exit(0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	waitpid(pid, &st, 0);
	pthread_join(r, NULL);
	pthread_join(t, NULL);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

static void *opener(void *stop)
{
	struct handles h;

	while (!__atomic_load_n((int *)stop, __ATOMIC_RELAXED)) {
		if (!open_one(&h))
			ibv_close_device(h.ctx);
	}
	return NULL;
}

int preload_child(const char *preload, const char *mode)
{
	static struct handles hs[300];
	int i;

	if (!strcmp(mode, "contexts")) {
		for (i = 0; i < 200; i++) {
			if (open_one(&hs[i]) || !wrapped(hs[i].ctx))
				return 10;
			use(&hs[i]);
		}
		for (i = 0; i < 200; i++)
			ibv_close_device(hs[i].ctx);
		return fakeverbs_calls.closed_wrapped ? 11 : 0;
	}
	if (!strcmp(mode, "leaked")) {
		for (i = 0; i < 300; i++) {
			if (open_one(&hs[i]))
				return 10;
			use(&hs[i]);	/* the first 200 are never closed */
		}
		for (i = 200; i < 300; i++)
			ibv_close_device(hs[i].ctx);
		return 0;
	}
	if (!strcmp(mode, "quiet")) {
		if (open_one(&hs[0]) || wrapped(hs[0].ctx))
			return 10;
		use(&hs[0]);
		return ibv_close_device(hs[0].ctx);
	}
	if (!strcmp(mode, "idle"))
		return 0;
	if (!strcmp(mode, "once")) {
		struct rdma_cm_id id;
		char buf[64];

		memset(&id, 0, sizeof(id));
		if (open_one(&hs[0]))
			return 10;
		id.qp = &hs[0].qp;
		id.verbs = hs[0].ctx;
		if (rdma_post_send(&id, NULL, buf, sizeof(buf), NULL, IBV_SEND_INLINE))
			return 11;
		{	/* then the op itself, outside any export: counted as the op */
			struct ibv_sge sge = { (uintptr_t)buf, 16, 1 };
			struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND }, *bad;

			if (ibv_post_send(&hs[0].qp, &wr, &bad))
				return 12;
		}
		if (getenv("RDMAVERBS_TRACE")) {	/* 13: the file open more than once */
			char want[4096], fd[300], got[4096];
			DIR *d = opendir("/proc/self/fd");
			struct dirent *e;
			int n = 0;
			ssize_t k;

			if (!realpath(getenv("RDMAVERBS_TRACE"), want))
				return 14;
			while (d && (e = readdir(d))) {
				snprintf(fd, sizeof(fd), "/proc/self/fd/%s", e->d_name);
				k = readlink(fd, got, sizeof(got) - 1);
				got[k > 0 ? k : 0] = 0;
				n += !strcmp(got, want);
			}
			if (d)
				closedir(d);
			if (n != 1)
				return 13;
		}
		return ibv_close_device(hs[0].ctx) || fakeverbs_calls.post_send != 2;
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid;
		int st;

		if (open_one(&hs[0]))
			return 10;
		for (i = 0; i < 5; i++)
			use(&hs[0]);
		pid = fork();
		if (pid == 0) {
			use(&hs[0]);
			use(&hs[0]);
			exit(0);	/* atexit: the child's table */
		}
		waitpid(pid, &st, 0);
		return !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (!strcmp(mode, "race")) {
		pthread_t t;
		/* 300 under make mutants (RDMAVERBS_TEST_QUICK): a mutant is a
		 * wrong value, not a rare race. */
		int stop = 0, hung = 0, n = getenv("RDMAVERBS_TEST_QUICK") ? 300 : 3000;

		pthread_create(&t, NULL, opener, &stop);
		for (i = 0; i < n; i++) {
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				struct handles h;

				alarm(10);	/* a child stuck on a lock dies of SIGALRM */
				if (!open_one(&h))
					ibv_close_device(h.ctx);
				_exit(0);
			}
			waitpid(pid, &st, 0);
			hung += WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
		}
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		pthread_join(t, NULL);
		printf("%d forks, %d children hung\n", n, hung);
		return hung != 0;
	}
	if (!strcmp(mode, "forkwait")) {	/* each fork waited for the registration */
		static const char *const what[] = { "context", "qp", "cq" };
		long ms;

		dl_iterate_phdr(find_preload, NULL);
		if (!pl_start)
			return 20;
		for (i = 0; i < 3; i++) {
			ms = fork_during(what[i]);
			printf("forkwait: %s: %ld ms\n", what[i], ms);
			if (ms < 200)	/* released after 300 ms */
				return 21 + i;
		}
		return 0;
	}
	if (!strcmp(mode, "extended")) {
		struct ibv_qp_init_attr_ex qa;
		struct ibv_cq_init_attr_ex ca;
		struct ibv_poll_cq_attr pa = { 0 };
		struct ibv_qp_ex *qpx;
		struct ibv_qp *qp;
		struct ibv_cq_ex *cq;
		int got = 0;

		if (open_one(&hs[0]))
			return 10;
		memset(&qa, 0, sizeof(qa));
		qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
		qp = ibv_create_qp_ex(hs[0].ctx, &qa);
		qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
		memset(&ca, 0, sizeof(ca));
		ca.cqe = 16;
		cq = ibv_create_cq_ex(hs[0].ctx, &ca);
		if (!qpx || !cq)
			return 11;
		for (i = 0; i < 1500; i++) {
			if (i % 100 == 0)
				ibv_wr_start(qpx);
			qpx->wr_id = (uint64_t)i;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			if (i % 3 == 2)
				ibv_wr_rdma_write(qpx, 0x42, 0x1000);
			else
				ibv_wr_send(qpx);
			ibv_wr_set_sge(qpx, 1, 0x2000, 64);
			if (i % 100 == 99 && ibv_wr_complete(qpx))
				return 12;
		}
		fakeverbs_pending = 1500;
		while (got < 1500) {	/* batches of up to 10 */
			int n = 0;

			if (ibv_start_poll(cq, &pa))
				continue;
			do
				got++;
			while (++n < 10 && !ibv_next_poll(cq));
			ibv_end_poll(cq);
		}
		if (ibv_destroy_qp(qp) || ibv_destroy_cq(ibv_cq_ex_to_cq(cq)))
			return 13;
		ibv_close_device(hs[0].ctx);
		return fakeverbs_calls.destroyed_wrapped || fakeverbs_calls.closed_wrapped ||
		       fakeverbs_calls.wr_send != 1000 || fakeverbs_calls.wr_rdma_write != 500 ? 14 : 0;
	}
	if (!strcmp(mode, "nodelete")) {
		void *h = dlopen(preload, RTLD_NOW | RTLD_LOCAL);
		int (*seterrno)(int);
		void *p;

		if (!h)
			return 10;
		p = dlsym(h, "rdma_seterrno");
		memcpy(&seterrno, &p, sizeof(p));
		dlclose(h);
		return seterrno(0);	/* SIGSEGV if the code was unmapped */
	}
	return 99;
}
