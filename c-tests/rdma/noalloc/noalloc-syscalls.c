/* noalloc's seccomp child (noalloc.h): the 1.3 data path's bursts under a
 * filter that traps every system call but the exit and the report's write. */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __x86_64__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "noalloc.h"

#ifdef __x86_64__
static volatile long trapped;
static volatile int first_trapped = -1;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (!trapped++)
		first_trapped = si->si_syscall;
}

/* In a child: the 1.3 bursts (once before) under a filter that traps
 * every system call but exit_group, rt_sigreturn (the trap handler's
 * return) and the write of the report on its pipe. -2 if the kernel
 * refused the filter, -1 if the child failed otherwise; else the calls
 * trapped (*nr the first one's number). */
long no_syscalls(long *nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 2, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),	/* the report's fd, set below */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	struct sigaction sa;
	long report[2] = { -1, -1 };
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		return -1;
	f[10].k = (uint32_t)p[1];
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigsys;
		sa.sa_flags = SA_SIGINFO;
		bursts13();	/* a forked child's first count claims its block */
		if (sigaction(SIGSYS, &sa, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(2);
		bursts13();
		report[0] = trapped;
		report[1] = first_trapped;
		if (write(p[1], report, sizeof(report)) != sizeof(report))
			syscall(__NR_exit_group, 3);
		syscall(__NR_exit_group, 0);
	}
	close(p[1]);
	if (read(p[0], report, sizeof(report)) != sizeof(report))
		report[0] = -1;
	close(p[0]);
	waitpid(pid, &st, 0);
	*nr = report[1];
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
		return -2;	/* no seccomp filter here */
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? report[0] : -1;
}
#endif

