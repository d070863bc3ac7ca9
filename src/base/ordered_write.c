/* ordered_write.c — see ordered_write.h.
 *
 * Shared under lock: next (the first piece nobody has taken), written (the
 * first piece not yet written to dst) and the window's slots, slot i %
 * WINDOW holding piece i's text once it is made. Any thread takes the next
 * piece when its slot is free (next < written + WINDOW) and makes it with
 * the lock released; the caller's thread also writes: whenever piece
 * `written` is made it takes the text out of the slot and writes it, lock
 * released, which frees the slot. */
#include "base/ordered_write.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "base/arena.h"
#include "base/thread.h"

#define WINDOW (2 * THREAD_MAX + 2)

typedef struct slot {
	char *text;
	size_t len;
	bool made;
} slot;

typedef struct ordered {
	ordered_piece_fn make;
	void *arg;
	size_t n;
	pthread_mutex_t lock;
	pthread_cond_t changed;   /* a piece was made, written or taken */
	size_t next, written;
	slot slots[WINDOW];
} ordered;

/* Makes piece i into its slot (called without the lock, returns with it). */
static void make_piece(ordered *o, size_t i)
{
	slot s = { NULL, 0, true };
	FILE *m = open_memstream(&s.text, &s.len);
	if (!m)
		fd_oom(BUFSIZ);
	o->make(o->arg, i, m);
	if (fclose(m) != 0)
		fd_oom(s.len);
	pthread_mutex_lock(&o->lock);
	o->slots[i % WINDOW] = s;
	pthread_cond_broadcast(&o->changed);
}

/* The next piece to make, under the lock; false when none is left. Waits
 * while the window is full. */
static bool take(ordered *o, size_t *i)
{
	while (o->next < o->n && o->next >= o->written + WINDOW)
		pthread_cond_wait(&o->changed, &o->lock);
	if (o->next >= o->n)
		return false;
	*i = o->next++;
	return true;
}

static void *helper(void *arg)
{
	ordered *o = arg;
	size_t i;
	pthread_mutex_lock(&o->lock);
	while (take(o, &i)) {
		pthread_mutex_unlock(&o->lock);
		make_piece(o, i);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

void ordered_write(FILE *dst, size_t n, ordered_piece_fn make, void *arg)
{
	int threads = n > 1 ? thread_budget() : 1;
	if (threads == 1) {
		for (size_t i = 0; i < n; i++)
			make(arg, i, dst);
		return;
	}
	ordered o = { .make = make, .arg = arg, .n = n };
	pthread_mutex_init(&o.lock, NULL);
	pthread_cond_init(&o.changed, NULL);
	pthread_t tid[THREAD_MAX];
	int started = 0;
	for (int k = 1; k < threads && (size_t)k < n; k++)
		if (thread_start(&tid[started], helper, &o))
			started++;
	pthread_mutex_lock(&o.lock);
	while (o.written < n) {
		slot *s = &o.slots[o.written % WINDOW];
		size_t i = 0;
		if (s->made) {
			slot out = *s;
			*s = (slot){ 0 };
			o.written++;
			pthread_cond_broadcast(&o.changed);
			pthread_mutex_unlock(&o.lock);
			fwrite(out.text, 1, out.len, dst);
			free(out.text);
			pthread_mutex_lock(&o.lock);
		} else if (o.next < n && o.next < o.written + WINDOW) {
			take(&o, &i);
			pthread_mutex_unlock(&o.lock);
			make_piece(&o, i);
		} else {
			pthread_cond_wait(&o.changed, &o.lock);
		}
	}
	pthread_mutex_unlock(&o.lock);
	for (int k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	pthread_cond_destroy(&o.changed);
	pthread_mutex_destroy(&o.lock);
}
