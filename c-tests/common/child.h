/*
 * What a test sets in a child process before it runs the case, so that the
 * case does not depend on how the tests were started: a shell starts a
 * background job (`make check &`, `nohup`) with SIGINT and SIGQUIT ignored,
 * a runner may start it with signals blocked. The library installs its
 * fatal-signal handler only where the action is the default at load, and a
 * case that raises a signal expects the signal's default action: both are
 * set here, in the child, before the exec that loads the library.
 */
#ifndef RDMAVERBS_CHILD_H
#define RDMAVERBS_CHILD_H

#include <signal.h>

/* The fatal signals the library handles get their default action, and no
 * signal is blocked. */
static inline void default_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
				    SIGILL, SIGFPE, SIGABRT };
	sigset_t none;
	unsigned i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, 0);
}

#endif
