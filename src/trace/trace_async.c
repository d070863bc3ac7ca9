/* trace_async.c — the recording sink of a large run, with the encoding on a
 * second thread (trace.h). The matcher's event() copies the flat event into
 * the chunk being filled and returns its index from a counter; a full chunk
 * goes round a ring of TRACE_RING chunks to one encoder thread, which runs
 * trace_append on it — the same encoder, in the same order, as the
 * synchronous sink — so the bytes come out the same. The thread starts when
 * the first chunk fills (a smaller run is encoded on the caller's thread at
 * trace_async_finish) and is joined by trace_async_finish, after which the
 * recording is read as any other.
 *
 * Who owns what during a run: the caller fills ring[head % TRACE_RING]
 * (fill events so far); the thread owns the fd_trace's event arrays (bytes,
 * marks, bases, last, n_events) and the chunks between tail and head; the
 * caller keeps attempts and paths. head, tail, count and done are shared
 * under lock. The ring, lock and conditions live as long as the fd_trace, so
 * a re-run (what-if) finds them ready and faulted in; a small run touches
 * only what it uses of the first chunk. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "base/arena.h"
#include "base/thread.h"
#include "trace/trace.h"

struct fd_trace_async {
	fd_trace *t;
	fd_trace_sink sync;              /* attempts and paths go straight to it */
	fd_event *ring[TRACE_RING];      /* chunks of TRACE_CHUNK events: the first made with
	                                  * the sink, the others when the thread starts */
	fd_event *cur;                   /* the chunk being filled (caller) */
	uint32_t fill;                   /* events in it */
	size_t next;                     /* the next event's index in the run */
	bool running;                    /* the encoder thread is up */
	pthread_t thread;
	char apart[64];                  /* the caller's fields above, every event, off the lock's line */
	pthread_mutex_t lock;
	pthread_cond_t work, space;      /* a chunk came in / one was encoded */
	uint64_t head, tail;             /* chunks handed over / encoded (under lock) */
	uint32_t count[TRACE_RING];      /* events in each handed-over chunk */
	bool done;                       /* no more chunks this run */
	/* the thread's own: the attempts' reserve still to fault in (below) */
	char *pre, *pre_end;
};

/* Memory the matcher is about to write for the first time — the ring's
 * other chunks, the attempts' reserve (trace_reserve left it untouched) —
 * is faulted in by the thread, ahead of it, so that the kernel's zeroing of
 * fresh pages leaves the matcher's thread too. MADV_POPULATE_WRITE touches
 * no contents. A hint: where it is missing or fails, the matcher takes the
 * faults itself. */
#define PREFAULT_STEP ((size_t)2 << 20)

static bool populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	return end <= start || madvise((void *)start, end - start, MADV_POPULATE_WRITE) == 0;
#else
	(void)p;
	(void)n;
	return false;
#endif
}

/* The next stretch of the attempts' reserve (one a chunk: far ahead of them). */
static void prefault_some(fd_trace_async *a)
{
	if (a->pre >= a->pre_end)
		return;
	size_t n = (size_t)(a->pre_end - a->pre) < PREFAULT_STEP ? (size_t)(a->pre_end - a->pre) : PREFAULT_STEP;
	if (!populate(a->pre, n))
		a->pre_end = a->pre;    /* not here: stop asking */
	a->pre += n;
}

static void *encoder(void *arg)
{
	fd_trace_async *a = arg;
	for (int k = 1; k < TRACE_RING; k++)
		populate(a->ring[k], TRACE_CHUNK * sizeof *a->ring[k]);
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (a->tail == a->head && !a->done)
			pthread_cond_wait(&a->work, &a->lock);
		if (a->tail == a->head)
			break;
		unsigned k = (unsigned)(a->tail % TRACE_RING);
		uint32_t n = a->count[k];
		pthread_mutex_unlock(&a->lock);
		trace_append(a->t, a->ring[k], n);
		prefault_some(a);
		pthread_mutex_lock(&a->lock);
		a->tail++;
		pthread_cond_signal(&a->space);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* The encoder thread; false when it cannot start. The run is large: the
 * whole ring is made now. */
static bool start(fd_trace_async *a)
{
	for (int k = 1; k < TRACE_RING; k++)
		if (!a->ring[k])
			a->ring[k] = xmalloc(TRACE_CHUNK * sizeof *a->ring[k]);
	a->head = a->tail = 0;
	a->done = false;
	a->running = thread_budget() > 1 && thread_start(&a->thread, encoder, a);
	return a->running;
}

/* The filled chunk goes to the thread (started on the first); waits while
 * the ring is full. Without a thread, encodes it here. */
static void hand_over(fd_trace_async *a)
{
	if (!a->running && !start(a)) {
		trace_append(a->t, a->cur, a->fill);
		a->fill = 0;
		return;
	}
	pthread_mutex_lock(&a->lock);
	a->count[a->head % TRACE_RING] = a->fill;
	a->head++;
	pthread_cond_signal(&a->work);
	while (a->head - a->tail >= TRACE_RING)
		pthread_cond_wait(&a->space, &a->lock);
	unsigned k = (unsigned)(a->head % TRACE_RING);
	pthread_mutex_unlock(&a->lock);
	a->cur = a->ring[k];
	a->fill = 0;
}

static uint32_t async_event(void *ctx, const fd_event *ev)
{
	fd_trace_async *a = ctx;
	a->cur[a->fill++] = *ev;
	if (a->fill == TRACE_CHUNK)
		hand_over(a);
	return (uint32_t)a->next++;
}

/* Attempts and paths are the caller's, as in the synchronous sink. */
static void async_attempt(void *ctx, const fd_attempt *at)
{
	fd_trace_async *a = ctx;
	a->sync.attempt(a->sync.ctx, at);
}

static uint32_t async_path(void *ctx, const int32_t *ids, uint32_t n)
{
	fd_trace_async *a = ctx;
	return a->sync.path(a->sync.ctx, ids, n);
}

fd_trace_sink trace_async_sink(fd_trace *t)
{
	fd_trace_async *a = t->async;
	if (!a) {
		a = t->async = xcalloc(1, sizeof *a);
		a->ring[0] = xmalloc(TRACE_CHUNK * sizeof *a->ring[0]);
		pthread_mutex_init(&a->lock, NULL);
		pthread_cond_init(&a->work, NULL);
		pthread_cond_init(&a->space, NULL);
	}
	a->t = t;
	a->sync = trace_sink(t);
	a->cur = a->ring[0];
	a->fill = 0;
	a->next = t->n_events;
	/* taken here, before the thread starts: the matcher owns these fields */
	a->pre = a->pre_end = NULL;
	if (t->attempts) {
		a->pre = (char *)(t->attempts + t->n_attempts);
		a->pre_end = (char *)(t->attempts + t->cap_attempts);
	}
	a->running = false;
	return (fd_trace_sink){ .ctx = a, .event = async_event, .attempt = async_attempt, .path = async_path };
}

void trace_async_finish(fd_trace *t)
{
	fd_trace_async *a = t->async;
	if (!a)
		return;
	if (!a->running) {
		trace_append(t, a->cur, a->fill);
		a->fill = 0;
		return;
	}
	pthread_mutex_lock(&a->lock);
	if (a->fill) {
		/* the last, partial chunk: its slot is free (the ring waits for one) */
		a->count[a->head % TRACE_RING] = a->fill;
		a->head++;
	}
	a->done = true;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	a->running = false;
	a->fill = 0;
	a->cur = a->ring[0];
}

void trace_async_release(fd_trace *t)
{
	fd_trace_async *a = t->async;
	if (!a)
		return;
	if (a->running)
		trace_async_finish(t);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->space);
	for (int k = 0; k < TRACE_RING; k++)
		free(a->ring[k]);
	free(a);
	t->async = NULL;
}

bool trace_async_running(const fd_trace *t)
{
	return t->async && t->async->running;
}
