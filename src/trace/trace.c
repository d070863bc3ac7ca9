/* trace.c — an fd_trace's life and size: init, clear, release (with its
 * async state), the reserve before a run and the fit after it, the bytes it
 * holds, and the names of event kinds and statuses. Recording is
 * trace_record.c (and trace_async.c), reading trace_read.c, the byte format
 * trace_codec.h. */
#include "trace/trace.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "trace/trace_codec.h"

static const char *const kind_names[] = {
#define NAME(id, name, uses) [EV_##id] = name,
	FD_EVENT_KINDS(NAME)
#undef NAME
};
static_assert(sizeof kind_names / sizeof *kind_names == EV_KIND_COUNT, "one name per event kind");

static const char *const status_names[] = {
#define NAME(id, name) [ST_##id] = name,
	FD_EV_STATUSES(NAME)
#undef NAME
};
static_assert(sizeof status_names / sizeof *status_names == ST_COUNT, "one name per status");

const char *trace_event_kind_name(fd_event_kind k)
{
	return k < EV_KIND_COUNT ? kind_names[k] : "?";
}

const char *trace_status_name(fd_ev_status s)
{
	return s < ST_COUNT ? status_names[s] : "?";
}

void trace_init(fd_trace *t)
{
	memset(t, 0, sizeof *t);
}

void trace_clear(fd_trace *t)
{
	t->n_events = t->n_bytes = t->n_attempts = t->n_paths = 0;
}

void trace_release(fd_trace *t)
{
	trace_async_release(t);
	free(t->bytes);
	free(t->marks);
	free(t->bases);
	free(t->attempts);
	free(t->paths);
	trace_init(t);
}

/* What a reserve allows an event: the matcher's events average 6 to 7
 * bytes; a reserve is address space until written, so room to spare costs
 * nothing, and trace_fit gives it back. */
#define RESERVE_BYTES_PER_EVENT 8

/* *p (elements of size sz) at least want, exactly: an estimate should not be
 * doubled again. */
static void *reserve(void *p, size_t *cap, size_t want, size_t sz)
{
	if (want <= *cap)
		return p;
	*cap = want;
	return xrealloc(p, want * sz);
}

void trace_reserve(fd_trace *t, size_t events, size_t attempts)
{
	t->bytes = reserve(t->bytes, &t->cap_bytes, events * RESERVE_BYTES_PER_EVENT + EV_MAX_BYTES, 1);
	t->marks = reserve(t->marks, &t->cap_marks, events / TRACE_BLOCK + 1, sizeof *t->marks);
	t->bases = reserve(t->bases, &t->cap_bases, events / TRACE_GROUP + 1, sizeof *t->bases);
	t->attempts = reserve(t->attempts, &t->cap_attempts, attempts, sizeof *t->attempts);
}

/* *p down to n elements when more than a quarter of its capacity is unused. */
static void *fit(void *p, size_t *cap, size_t n, size_t sz)
{
	if (!n || *cap <= n + n / 4)
		return p;
	*cap = n;
	return xrealloc(p, n * sz);
}

/* Gives back what a run's reserve did not fill when that is more than a
 * quarter, so that the recording holds its events and little more
 * (trace_bytes; tests/bench measures bytes per event). Shrinking a large
 * block is a remap, not a copy. A small slack is kept: a what-if re-run
 * reuses these arrays without growing them again. The byte array keeps
 * EV_MAX_BYTES beyond its end, which the recording needs free to write. */
void trace_fit(fd_trace *t)
{
	if (t->n_events)
		t->bytes = fit(t->bytes, &t->cap_bytes, t->n_bytes + EV_MAX_BYTES, 1);
	t->marks = fit(t->marks, &t->cap_marks, (t->n_events + TRACE_BLOCK - 1) / TRACE_BLOCK, sizeof *t->marks);
	t->bases = fit(t->bases, &t->cap_bases, (t->n_events + TRACE_GROUP - 1) / TRACE_GROUP, sizeof *t->bases);
	t->attempts = fit(t->attempts, &t->cap_attempts, t->n_attempts, sizeof *t->attempts);
}

size_t trace_bytes(const fd_trace *t)
{
	return t->cap_bytes + t->cap_marks * sizeof *t->marks + t->cap_bases * sizeof *t->bases
	       + t->cap_attempts * sizeof *t->attempts + t->cap_paths * sizeof *t->paths;
}

size_t trace_used_bytes(const fd_trace *t)
{
	return t->n_bytes + (t->n_events + TRACE_BLOCK - 1) / TRACE_BLOCK * sizeof *t->marks
	       + (t->n_events + TRACE_GROUP - 1) / TRACE_GROUP * sizeof *t->bases
	       + t->n_attempts * sizeof *t->attempts + t->n_paths * sizeof *t->paths;
}
