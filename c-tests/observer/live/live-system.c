/*
 * What the live child's library asks of the system, counted or refused:
 * this program defines pthread_create (refused in mode "alone") and writev
 * (its calls on the trace file counted, those of the writer thread apart;
 * one held in mode "forkwrite"), which the library's calls reach: it is
 * linked with -rdynamic, or with the library's archive.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "live.h"

int hold_writev, writev_held, writev_go;
int refuse_threads;	/* pthread_create fails with EAGAIN */
volatile long writes;	/* writev calls on a descriptor above 2 */
volatile long writer_writes;	/* those of them by the writer thread */

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

	if (refuse_threads)
		return EAGAIN;
	if (!real) {
		void *p = dlsym(RTLD_NEXT, "pthread_create");

		memcpy(&real, &p, sizeof(p));
	}
	return real(t, a, f, arg);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	char name[16] = "";

	if (fd > 2) {
		__atomic_add_fetch(&writes, 1, __ATOMIC_RELAXED);
		prctl(PR_GET_NAME, name);
		if (!strcmp(name, "rdmaverbs-trace"))
			__atomic_add_fetch(&writer_writes, 1, __ATOMIC_RELAXED);
		if (__atomic_exchange_n(&hold_writev, 0, __ATOMIC_ACQ_REL)) {
			__atomic_store_n(&writev_held, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&writev_go, __ATOMIC_ACQUIRE))
				usleep(1000);
		}
	}
	return syscall(SYS_writev, fd, iov, n);
}
