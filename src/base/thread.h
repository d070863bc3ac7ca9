/* thread.h — the helper threads' start: fusiondbg's worker threads (the
 * loader's decoder, the trace's encoder, the writers' pieces) run with every
 * signal blocked, so that signals (SIGWINCH, SIGINT, the TUI's handlers) stay
 * with the thread that handles them; and how many of them a stage may use. */
#ifndef FD_THREAD_H
#define FD_THREAD_H
#include <pthread.h>
#include <stdbool.h>

/* Starts fn(arg) on *t; false when no thread could be made. */
bool thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* How many threads the work of one stage may use, the caller's included:
 * the cores online, at most THREAD_MAX; FUSIONDBG_THREADS=N sets it (1:
 * no helper thread at all — the loader's decoder, the trace's encoder and
 * the writers' pieces all stay on the caller's thread). */
#define THREAD_MAX 4
int thread_budget(void);

#endif
