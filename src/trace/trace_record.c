/* trace_record.c — the synchronous recording sink (trace.h): events encoded
 * one after another in one growable byte array (trace_codec.h), a
 * checkpoint every TRACE_BLOCK events, attempts and side paths in flat
 * growable arrays. No allocation per event: arrays grow by doubling, and
 * trace_clear keeps them for the next run. trace_async.c runs trace_append
 * on its encoder thread. */
#include "trace/trace.h"
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "trace/trace_codec.h"

/* Grows *p (elements of size sz) to hold want; returns the new pointer. */
static void *grow(void *p, size_t *cap, size_t want, size_t sz)
{
	if (want <= *cap)
		return p;
	size_t c = *cap ? *cap : 256;
	while (c < want)
		c *= 2;
	*cap = c;
	return xrealloc(p, c * sz);
}

/* A checkpoint: note where event n starts and encode it from the defaults. */
static void checkpoint(fd_trace *t)
{
	size_t n = t->n_events;
	if (n % TRACE_GROUP == 0) {
		t->bases = grow(t->bases, &t->cap_bases, n / TRACE_GROUP + 1, sizeof *t->bases);
		t->bases[n / TRACE_GROUP] = t->n_bytes;
	}
	t->marks = grow(t->marks, &t->cap_marks, n / TRACE_BLOCK + 1, sizeof *t->marks);
	t->marks[n / TRACE_BLOCK] = (fd_trace_mark){ (uint32_t)(t->n_bytes - t->bases[n / TRACE_GROUP]), 0 };
	t->last = ev_defaults;
}

static uint32_t rec_event(void *ctx, const fd_event *ev)
{
	fd_trace *t = ctx;
	if (t->n_events % TRACE_BLOCK == 0)
		checkpoint(t);
	if (t->cap_bytes - t->n_bytes < EV_MAX_BYTES)
		t->bytes = grow(t->bytes, &t->cap_bytes, t->n_bytes + EV_MAX_BYTES, 1);
	uint8_t *end = ev_encode(t->bytes + t->n_bytes, &t->last, ev);
	t->n_bytes = (size_t)(end - t->bytes);
	t->marks[t->n_events / TRACE_BLOCK].kinds |= EV_BIT(ev->kind);
	t->last = *ev;
	return (uint32_t)t->n_events++;
}

/* The encoder's state is worked on in a copy and stored back once: on the
 * encoder thread (trace_async.c) t's counters share cache lines with the
 * attempts the matcher appends meanwhile. */
void trace_append(fd_trace *t, const fd_event *evs, size_t n)
{
	fd_trace w = {
		.bytes = t->bytes, .n_bytes = t->n_bytes, .cap_bytes = t->cap_bytes,
		.marks = t->marks, .cap_marks = t->cap_marks, .bases = t->bases, .cap_bases = t->cap_bases,
		.last = t->last, .n_events = t->n_events,
	};
	for (size_t i = 0; i < n; i++)
		rec_event(&w, &evs[i]);
	t->bytes = w.bytes;
	t->n_bytes = w.n_bytes;
	t->cap_bytes = w.cap_bytes;
	t->marks = w.marks;
	t->cap_marks = w.cap_marks;
	t->bases = w.bases;
	t->cap_bases = w.cap_bases;
	t->last = w.last;
	t->n_events = w.n_events;
}

static void rec_attempt(void *ctx, const fd_attempt *at)
{
	fd_trace *t = ctx;
	t->attempts = grow(t->attempts, &t->cap_attempts, t->n_attempts + 1, sizeof *t->attempts);
	t->attempts[t->n_attempts++] = *at;
}

static uint32_t rec_path(void *ctx, const int32_t *ids, uint32_t n)
{
	fd_trace *t = ctx;
	t->paths = grow(t->paths, &t->cap_paths, t->n_paths + n, sizeof *t->paths);
	memcpy(t->paths + t->n_paths, ids, n * sizeof *ids);
	uint32_t off = (uint32_t)t->n_paths;
	t->n_paths += n;
	return off;
}

fd_trace_sink trace_sink(fd_trace *t)
{
	return (fd_trace_sink){ .ctx = t, .event = rec_event, .attempt = rec_attempt, .path = rec_path };
}
