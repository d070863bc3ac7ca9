/* thread.c — see thread.h. */
#include <signal.h>
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
