/* trace.c — the recording trace sink: events encoded compactly in one
 * growable byte array, attempts and side paths in flat growable arrays
 * (trace.h). No allocation per event: arrays grow by doubling, and
 * trace_clear keeps them for the next run.
 *
 * An event is encoded against a base: the event before it, except that
 * the fields its kind does not use (the "-" in trace.h's table, kind_uses
 * here) and reason are based on their defaults (-1, or 0 for a, b and
 * reason), so that they cost nothing when they hold them:
 *   header  kind | status << 5 | (rule or graph changed) << 7
 *           (kind bits 31: a kind past 30 or a status past 3, so kind
 *           and status follow as two raw bytes)
 *   mask    one bit per field that differs from the base:
 *           unit other a b op sub reason branch
 *   [ext]   when the header says so: rule graph
 *   then each changed field, in that order, as the zigzag varint of its
 *   difference from the base's value (64-bit wrap-around for a and b).
 * Consecutive events mostly share rule, graph, branch and op and have nearby
 * units, so most events take 2 to 8 bytes (the matcher's average: 6.6).
 * The event before is replaced by ev_defaults at every TRACE_BLOCK-th event
 * (a checkpoint), whose offset is kept in marks, relative to bases (one per
 * TRACE_GROUP events) so 32 bits suffice; a mark also lists the kinds in its
 * block, so that a search for a kind (the stepper's next fire) skips blocks
 * without decoding them. */
#include "trace/trace.h"
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"

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

/* ---- encoding ------------------------------------------------------------ */

/* The delta base at a checkpoint: the values fields take when they do not
 * apply (trace.h), so that they cost nothing there. */
static const fd_event ev_defaults = {
	.reason = 0, .branch = -1, .op = -1, .sub = -1, .rule = -1, .graph = 0,
	.unit = -1, .other = -1, .a = 0, .b = 0,
};

enum { U_UNIT = 1, U_OTHER = 2, U_A = 4, U_B = 8, U_SUB = 16, U_ALL = 31 };

/* Which of unit, other, a, b, sub each kind gives a meaning (trace.h). */
static const uint8_t kind_uses[EV_KIND_COUNT] = {
	[EV_RULE] = U_A,
	[EV_COMPOSITE] = U_UNIT | U_A,
	[EV_ANCHOR] = U_UNIT,
	[EV_BRANCH] = 0,
	[EV_TYPE] = U_UNIT | U_OTHER | U_A,
	[EV_ORDER] = U_UNIT | U_A,
	[EV_ARITY] = U_UNIT | U_A,
	[EV_PARAM] = U_UNIT | U_SUB,
	[EV_SOURCE] = U_UNIT | U_OTHER | U_A | U_B | U_SUB,
	[EV_ESCAPE] = U_UNIT | U_OTHER | U_A,
	[EV_INPUTS] = U_A,
	[EV_OUTPUTS] = U_A,
	[EV_CONSTRAINT] = U_UNIT | U_OTHER | U_A | U_B | U_SUB,
	[EV_CONFLICT] = U_UNIT | U_OTHER | U_A,
	[EV_CYCLE] = U_UNIT | U_A | U_B,
	[EV_FIRE] = U_UNIT | U_A,
	[EV_REWRITE] = U_UNIT | U_A,
};

/* The event before becomes the base of an event of this kind. */
static inline void rebase(fd_event *b, unsigned kind)
{
	unsigned u = kind < EV_KIND_COUNT ? kind_uses[kind] : U_ALL;
	if (!(u & U_UNIT))
		b->unit = ev_defaults.unit;
	if (!(u & U_OTHER))
		b->other = ev_defaults.other;
	if (!(u & U_A))
		b->a = ev_defaults.a;
	if (!(u & U_B))
		b->b = ev_defaults.b;
	if (!(u & U_SUB))
		b->sub = ev_defaults.sub;
	b->reason = ev_defaults.reason;
}

enum {
	M_UNIT = 1, M_OTHER = 2, M_A = 4, M_B = 8, M_OP = 16, M_SUB = 32, M_REASON = 64, M_BRANCH = 128,
	X_RULE = 1, X_GRAPH = 2,
	H_EXT = 0x80, H_RAW = 31,
	EV_MAX_BYTES = 64,           /* 4 header bytes + 4 × 5 + 3 × 3 + 2 + 2 × 10 = 55 */
};

static inline uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline const uint8_t *get_uv(const uint8_t *p, uint64_t *v)
{
	uint64_t x = *p & 0x7f;
	unsigned s = 7;
	while (*p++ & 0x80) {
		x |= (uint64_t)(*p & 0x7f) << s;
		s += 7;
	}
	*v = x;
	return p;
}

/* Zigzag of the wrapped difference now - was: small either way, one byte. */
static inline uint8_t *put_delta(uint8_t *p, int64_t now, int64_t was)
{
	uint64_t d = (uint64_t)now - (uint64_t)was;
	return put_uv(p, d << 1 ^ (0 - (d >> 63)));
}

static inline const uint8_t *get_delta(const uint8_t *p, int64_t was, int64_t *now)
{
	uint64_t z;
	p = get_uv(p, &z);
	*now = (int64_t)((uint64_t)was + (z >> 1 ^ (0 - (z & 1))));
	return p;
}

/* One field: the zigzag delta now - was, written only when not 0 (it is
 * 0 exactly when the field equals its base), its bit set in *m. Written
 * without a branch on whether it changed: most deltas take one byte. */
static inline uint8_t *put_field(uint8_t *p, unsigned *m, unsigned bit, int64_t now, int64_t was)
{
	uint64_t d = (uint64_t)now - (uint64_t)was;
	uint64_t z = d << 1 ^ (0 - (d >> 63));
	*m |= z ? bit : 0;
	if (z < 0x80) {
		*p = (uint8_t)z;
		return p + (z != 0);
	}
	return put_uv(p, z);
}

/* Writes ev after prev at p (room for EV_MAX_BYTES); returns the end. */
static uint8_t *encode(uint8_t *p, const fd_event *prev, const fd_event *ev)
{
	unsigned u = ev->kind < EV_KIND_COUNT ? kind_uses[ev->kind] : U_ALL;
	unsigned x = (ev->rule != prev->rule ? X_RULE : 0) | (ev->graph != prev->graph ? X_GRAPH : 0);
	unsigned h = x ? H_EXT : 0;
	if (ev->kind < H_RAW && ev->status < 4) {
		*p++ = (uint8_t)(ev->kind | ev->status << 5 | h);
	} else {
		*p++ = (uint8_t)(H_RAW | h);
		*p++ = ev->kind;
		*p++ = ev->status;
	}
	uint8_t *mask = p++;
	unsigned m = 0;
	if (x)
		*p++ = (uint8_t)x;
	/* the base: the event before, rebase()d without branches */
	p = put_field(p, &m, M_UNIT, ev->unit, u & U_UNIT ? prev->unit : ev_defaults.unit);
	p = put_field(p, &m, M_OTHER, ev->other, u & U_OTHER ? prev->other : ev_defaults.other);
	p = put_field(p, &m, M_A, ev->a, u & U_A ? prev->a : ev_defaults.a);
	p = put_field(p, &m, M_B, ev->b, u & U_B ? prev->b : ev_defaults.b);
	p = put_field(p, &m, M_OP, ev->op, prev->op);
	p = put_field(p, &m, M_SUB, ev->sub, u & U_SUB ? prev->sub : ev_defaults.sub);
	p = put_field(p, &m, M_REASON, ev->reason, ev_defaults.reason);
	p = put_field(p, &m, M_BRANCH, ev->branch, prev->branch);
	*mask = (uint8_t)m;
	if (x & X_RULE)
		p = put_delta(p, ev->rule, prev->rule);
	if (x & X_GRAPH)
		p = put_delta(p, ev->graph, prev->graph);
	return p;
}

/* Reads the event at p into *ev, which holds the event before; returns the end. */
static const uint8_t *decode(const uint8_t *p, fd_event *ev)
{
	unsigned h = *p++;
	if ((h & 31) == H_RAW) {
		ev->kind = *p++;
		ev->status = *p++;
	} else {
		ev->kind = (uint8_t)(h & 31);
		ev->status = (uint8_t)(h >> 5 & 3);
	}
	unsigned m = *p++;
	unsigned x = h & H_EXT ? *p++ : 0;
	int64_t v;
	rebase(ev, ev->kind);
	if (m & M_UNIT) {
		p = get_delta(p, ev->unit, &v);
		ev->unit = (int32_t)v;
	}
	if (m & M_OTHER) {
		p = get_delta(p, ev->other, &v);
		ev->other = (int32_t)v;
	}
	if (m & M_A)
		p = get_delta(p, ev->a, &ev->a);
	if (m & M_B)
		p = get_delta(p, ev->b, &ev->b);
	if (m & M_OP) {
		p = get_delta(p, ev->op, &v);
		ev->op = (int16_t)v;
	}
	if (m & M_SUB) {
		p = get_delta(p, ev->sub, &v);
		ev->sub = (int16_t)v;
	}
	if (m & M_REASON) {
		p = get_delta(p, ev->reason, &v);
		ev->reason = (uint8_t)v;
	}
	if (m & M_BRANCH) {
		p = get_delta(p, ev->branch, &v);
		ev->branch = (int8_t)v;
	}
	if (x & X_RULE) {
		p = get_delta(p, ev->rule, &v);
		ev->rule = (int32_t)v;
	}
	if (x & X_GRAPH) {
		p = get_delta(p, ev->graph, &v);
		ev->graph = (int32_t)v;
	}
	return p;
}

/* ---- the recording ------------------------------------------------------- */

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
	uint8_t *end = encode(t->bytes + t->n_bytes, &t->last, ev);
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

/* What a reserve allows an event: the matcher's events average 6 to 7
 * bytes; a reserve is address space until written, so room to spare costs
 * nothing, and trace_fit gives it back. */
#define RESERVE_BYTES_PER_EVENT 8

/* Exactly the size asked for: an estimate should not be doubled again. */
void trace_reserve(fd_trace *t, size_t events, size_t attempts)
{
	size_t bytes = events * RESERVE_BYTES_PER_EVENT + EV_MAX_BYTES;
	size_t marks = events / TRACE_BLOCK + 1, bases = events / TRACE_GROUP + 1;
	if (bytes > t->cap_bytes) {
		t->bytes = xrealloc(t->bytes, bytes);
		t->cap_bytes = bytes;
	}
	if (marks > t->cap_marks) {
		t->marks = xrealloc(t->marks, marks * sizeof *t->marks);
		t->cap_marks = marks;
	}
	if (bases > t->cap_bases) {
		t->bases = xrealloc(t->bases, bases * sizeof *t->bases);
		t->cap_bases = bases;
	}
	if (attempts > t->cap_attempts) {
		t->attempts = xrealloc(t->attempts, attempts * sizeof *t->attempts);
		t->cap_attempts = attempts;
	}
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
 * EV_MAX_BYTES beyond its end, which rec_event needs free to write. */
void trace_fit(fd_trace *t)
{
	if (t->n_events)
		t->bytes = fit(t->bytes, &t->cap_bytes, t->n_bytes + EV_MAX_BYTES, 1);
	t->marks = fit(t->marks, &t->cap_marks, (t->n_events + TRACE_BLOCK - 1) / TRACE_BLOCK, sizeof *t->marks);
	t->bases = fit(t->bases, &t->cap_bases, (t->n_events + TRACE_GROUP - 1) / TRACE_GROUP, sizeof *t->bases);
	t->attempts = fit(t->attempts, &t->cap_attempts, t->n_attempts, sizeof *t->attempts);
}

fd_trace_sink trace_sink(fd_trace *t)
{
	return (fd_trace_sink){ .ctx = t, .event = rec_event, .attempt = rec_attempt, .path = rec_path };
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

/* ---- reading ------------------------------------------------------------- */

/* The bytes of checkpoint event i (i a multiple of TRACE_BLOCK). */
static const uint8_t *block_start(const fd_trace *t, size_t i)
{
	return t->bytes + t->bases[i / TRACE_GROUP] + t->marks[i / TRACE_BLOCK].offset;
}

fd_event trace_event(const fd_trace *t, size_t i)
{
	fd_event ev = ev_defaults;
	if (i >= t->n_events)
		return ev;
	const uint8_t *p = block_start(t, i - i % TRACE_BLOCK);
	for (size_t k = i % TRACE_BLOCK + 1; k > 0; k--)
		p = decode(p, &ev);
	return ev;
}

void trace_iter_init(fd_trace_iter *it, const fd_trace *t, size_t i)
{
	it->t = t;
	it->ev = ev_defaults;
	if (i >= t->n_events) {
		it->i = t->n_events;
		it->p = NULL;
		return;
	}
	it->i = i - i % TRACE_BLOCK;
	it->p = block_start(t, it->i);
	for (; it->i < i; it->i++)
		it->p = decode(it->p, &it->ev);
}

bool trace_iter_next(fd_trace_iter *it, fd_event *out)
{
	if (it->i >= it->t->n_events)
		return false;
	if (it->i % TRACE_BLOCK == 0)
		it->ev = ev_defaults;
	it->p = decode(it->p, &it->ev);
	it->i++;
	*out = it->ev;
	return true;
}

void trace_iter_seek(fd_trace_iter *it, size_t i)
{
	/* forward from here beats the checkpoint when fewer events lie between */
	if (i >= it->i && i - it->i <= i % TRACE_BLOCK && it->i < it->t->n_events) {
		fd_event skip;
		while (it->i < i && trace_iter_next(it, &skip))
			;
		return;
	}
	trace_iter_init(it, it->t, i);
}

bool trace_iter_next_of(fd_trace_iter *it, uint32_t kinds, fd_event *out)
{
	const fd_trace *t = it->t;
	if (!kinds)
		it->i = t->n_events;
	while (it->i < t->n_events) {
		if (!(t->marks[it->i / TRACE_BLOCK].kinds & kinds)) {
			/* none here: on to the next checkpoint, which needs no base */
			it->i += TRACE_BLOCK - it->i % TRACE_BLOCK;
			if (it->i < t->n_events)
				it->p = block_start(t, it->i);
			continue;
		}
		trace_iter_next(it, out);
		if (EV_BIT(out->kind) & kinds)
			return true;
	}
	it->i = t->n_events;
	return false;
}

void trace_riter_init(fd_trace_riter *it, const fd_trace *t, size_t end)
{
	it->t = t;
	it->i = end < t->n_events ? end : t->n_events;
	it->block = SIZE_MAX;
}

bool trace_riter_prev(fd_trace_riter *it, fd_event *out)
{
	if (it->i == 0)
		return false;
	size_t i = --it->i;
	size_t b = i - i % TRACE_BLOCK;
	if (it->block != b) {
		/* the whole block up to i, forwards */
		const uint8_t *p = block_start(it->t, b);
		fd_event ev = ev_defaults;
		for (size_t k = 0; k <= i - b; k++) {
			p = decode(p, &ev);
			it->ev[k] = ev;
		}
		it->block = b;
	}
	*out = it->ev[i - b];
	return true;
}

bool trace_riter_prev_of(fd_trace_riter *it, uint32_t kinds, fd_event *out)
{
	while (it->i > 0) {
		size_t b = (it->i - 1) - (it->i - 1) % TRACE_BLOCK;
		if (!(it->t->marks[b / TRACE_BLOCK].kinds & kinds)) {
			it->i = b;
			continue;
		}
		trace_riter_prev(it, out);
		if (EV_BIT(out->kind) & kinds)
			return true;
	}
	return false;
}
