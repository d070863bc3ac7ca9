/* thread.h — the helper threads' start: fusiondbg's worker threads (the
 * loader's decoder, the trace's encoder) run with every signal blocked, so
 * that signals (SIGWINCH, SIGINT, the TUI's handlers) stay with the thread
 * that handles them. */
#ifndef FD_THREAD_H
#define FD_THREAD_H
#include <pthread.h>
#include <stdbool.h>

/* Starts fn(arg) on *t; false when no thread could be made. */
bool thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
