/* thread.c — see thread.h. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "base/thread.h"

bool thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);   /* the new thread inherits the mask */
	bool ok = pthread_create(t, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

int thread_budget(void)
{
	const char *env = getenv("FUSIONDBG_THREADS");
	long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > THREAD_MAX ? THREAD_MAX : (int)n;
}
