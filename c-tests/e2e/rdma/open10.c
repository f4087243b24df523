/*
 * A context opened with libibverbs' oldest entry points, seen by the preload
 * library (c-tests/e2e/guest/guest.sh runs it preloaded, counting on).
 *
 *   open10 N
 *
 * Takes ibv_get_device_list and ibv_open_device at version IBVERBS_1.0
 * (dlvsym: what a program linked against libibverbs 1.0 calls), opens the
 * first device, and on the real context inside the 1.0 one (libibverbs'
 * compat-1_0.c opens it through ibv_open_device@IBVERBS_1.1, by its PLT)
 * makes a CQ, arms it once and polls it N times with the inline
 * ibv_poll_cq, which calls the context's op. It prints
 *
 *   calls: ibv_poll_cq N
 *   calls: ibv_req_notify_cq 1
 *   open10: PASS
 *
 * and the preload library's exit table must count exactly that: proof that
 * the 1.0 open was wrapped. The 1.0 structs are not in any header; the
 * layout below is compat-1_0.c's, checked at run time (the real context's
 * device must be the 1.0 device's real one).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

struct device_1_0 {
	void *obsolete_sysfs_dev, *obsolete_sysfs_ibdev;
	struct ibv_device *real_device;
};

struct context_1_0 {
	struct device_1_0 *device;
	void (*ops[27])(void);	/* struct ibv_context_ops_1_0 */
	int cmd_fd, async_fd, num_comp_vectors;
	struct ibv_context *real_context;
};

typedef struct device_1_0 **(*list_fn)(int *);
typedef void (*free_list_fn)(struct device_1_0 **);
typedef struct context_1_0 *(*open_fn)(struct device_1_0 *);
typedef int (*close_fn)(struct context_1_0 *);

/* fn = name@IBVERBS_1.0 (memcpy: ISO C has no cast from void * to a
 * function pointer). */
#define V10(fn, name) v10(&(fn), sizeof(fn), name)
static void v10(void *fn, size_t size, const char *name)
{
	void *f = dlvsym(RTLD_DEFAULT, name, "IBVERBS_1.0");

	if (!f || size != sizeof(f)) {
		printf("open10: FAIL: no %s@IBVERBS_1.0\n", name);
		exit(1);
	}
	memcpy(fn, &f, size);
}

int main(int argc, char **argv)
{
	list_fn get_list;
	free_list_fn free_list;
	open_fn open10;
	close_fn close10;
	int n = argc > 1 ? atoi(argv[1]) : 100, i, num = 0, got = 0;
	struct device_1_0 **list;
	struct context_1_0 *ctx;
	struct ibv_cq *cq;
	struct ibv_wc wc;

	V10(get_list, "ibv_get_device_list");
	V10(free_list, "ibv_free_device_list");
	V10(open10, "ibv_open_device");
	V10(close10, "ibv_close_device");
	list = get_list(&num);
	if (!list || num < 1) {
		printf("open10: FAIL: no device\n");
		return 1;
	}
	ctx = open10(list[0]);
	if (!ctx || !ctx->real_context || ctx->device != list[0] ||
	    ctx->real_context->device != list[0]->real_device) {
		printf("open10: FAIL: the 1.0 context is not as compat-1_0.c lays it out\n");
		return 1;
	}
	cq = ibv_create_cq(ctx->real_context, 4, NULL, NULL, 0);
	if (!cq || ibv_req_notify_cq(cq, 0)) {
		printf("open10: FAIL: CQ\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		got += ibv_poll_cq(cq, 1, &wc);
	if (got || ibv_destroy_cq(cq) || close10(ctx)) {
		printf("open10: FAIL: %d completions on an idle CQ, or teardown\n", got);
		return 1;
	}
	free_list(list);
	printf("calls: ibv_poll_cq %d\ncalls: ibv_req_notify_cq 1\nopen10: PASS\n", n);
	return 0;
}
