/* trace.c — the recording trace sink: events, attempts and side paths in
 * three flat growable arrays (trace.h). No allocation per event: arrays grow
 * by doubling, and trace_clear keeps them for the next run. */
#include "trace.h"
#include <stdlib.h>
#include <string.h>
#include "arena.h"

static const char *const kind_names[EV_KIND_COUNT] = {
	"rule", "composite", "anchor", "branch", "type", "order", "arity", "param",
	"source", "escape", "inputs", "outputs", "constraint", "conflict", "cycle",
	"fire", "rewrite",
};

static const char *const status_names[] = { "info", "pass", "FAIL", "warn" };

const char *event_kind_name(fd_event_kind k)
{
	return k < EV_KIND_COUNT ? kind_names[k] : "?";
}

const char *ev_status_name(fd_ev_status s)
{
	return s <= ST_WARN ? status_names[s] : "?";
}

void trace_init(fd_trace *t)
{
	memset(t, 0, sizeof *t);
}

void trace_clear(fd_trace *t)
{
	t->n_events = t->n_attempts = t->n_paths = 0;
}

void trace_release(fd_trace *t)
{
	free(t->events);
	free(t->attempts);
	free(t->paths);
	trace_init(t);
}

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

static uint32_t rec_event(void *ctx, const fd_event *ev)
{
	fd_trace *t = ctx;
	t->events = grow(t->events, &t->cap_events, t->n_events + 1, sizeof *t->events);
	t->events[t->n_events] = *ev;
	return (uint32_t)t->n_events++;
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

/* Exactly the size asked for: an estimate should not be doubled again. */
void trace_reserve(fd_trace *t, size_t events, size_t attempts)
{
	if (events > t->cap_events) {
		t->events = xrealloc(t->events, events * sizeof *t->events);
		t->cap_events = events;
	}
	if (attempts > t->cap_attempts) {
		t->attempts = xrealloc(t->attempts, attempts * sizeof *t->attempts);
		t->cap_attempts = attempts;
	}
}

/* Gives back what a run's reserve did not fill when that is more than a
 * quarter, so that the recording holds its events and little more
 * (trace_bytes; tests/bench measures bytes per event). Shrinking a large
 * block is a remap, not a copy. A small slack is kept: a what-if re-run
 * reuses these arrays without growing them again. */
void trace_fit(fd_trace *t)
{
	if (t->n_events && t->cap_events > t->n_events + t->n_events / 4) {
		t->events = xrealloc(t->events, t->n_events * sizeof *t->events);
		t->cap_events = t->n_events;
	}
	if (t->n_attempts && t->cap_attempts > t->n_attempts + t->n_attempts / 4) {
		t->attempts = xrealloc(t->attempts, t->n_attempts * sizeof *t->attempts);
		t->cap_attempts = t->n_attempts;
	}
}

fd_trace_sink trace_sink(fd_trace *t)
{
	return (fd_trace_sink){ .ctx = t, .event = rec_event, .attempt = rec_attempt, .path = rec_path };
}

size_t trace_bytes(const fd_trace *t)
{
	return t->cap_events * sizeof *t->events + t->cap_attempts * sizeof *t->attempts
	       + t->cap_paths * sizeof *t->paths;
}
