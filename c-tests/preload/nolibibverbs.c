/*
 * The preload library with no libibverbs behind it (stubverbs.c first on
 * LD_LIBRARY_PATH): each function it interposes fails as a missing
 * function would be reported, NULL or -1 with errno ENOSYS, and nothing
 * crashes. Run preloaded: LD_PRELOAD=librdmaverbs-preload.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	static const char *const returning_int[] = { "ibv_close_device", "ibv_destroy_qp",
						     "ibv_destroy_cq" };
	void *(*open_device)(void *);
	int (*f)(void *);
	void *p;
	int failed = 0;
	size_t i;

	p = dlsym(RTLD_DEFAULT, "ibv_open_device");
	if (!p) {
		fprintf(stderr, "nolibibverbs: FAIL: not preloaded (no ibv_open_device)\n");
		return 1;
	}
	memcpy(&open_device, &p, sizeof(p));
	errno = 0;
	if (open_device(NULL) != NULL || errno != ENOSYS) {
		fprintf(stderr, "nolibibverbs: FAIL: ibv_open_device: errno %d (want ENOSYS)\n", errno);
		failed++;
	}
	for (i = 0; i < sizeof(returning_int) / sizeof(*returning_int); i++) {
		int ret;

		p = dlsym(RTLD_DEFAULT, returning_int[i]);
		if (!p) {
			fprintf(stderr, "nolibibverbs: FAIL: no %s\n", returning_int[i]);
			failed++;
			continue;
		}
		memcpy(&f, &p, sizeof(p));
		errno = 0;
		ret = f(NULL);
		if (ret != -1 || errno != ENOSYS) {
			fprintf(stderr, "nolibibverbs: FAIL: %s: %d, errno %d (want -1, ENOSYS)\n",
				returning_int[i], ret, errno);
			failed++;
		}
	}
	if (!failed)
		printf("nolibibverbs: ok: without libibverbs behind it, the 4 interposed functions "
		       "fail with ENOSYS\n");
	return failed != 0;
}
