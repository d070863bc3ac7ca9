/* test_trace.c — the recording's compact event encoding (src/trace.c):
 * every event read back equals the one recorded — edge values (INT64_MIN /
 * MAX payloads, -1 fields, large rule and graph indices, every kind and
 * status), random runs, random access at every index against the
 * sequential and backward cursors, checkpoint and group boundaries, and
 * clear / reserve / fit around a recording; the asynchronous sink (many
 * chunks, re-runs, runs under a chunk) gives the synchronous one's bytes. */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace.h"

/* ---- helpers --------------------------------------------------------------- */

static void assert_event_equal(const fd_event *x, const fd_event *y, size_t i)
{
	if (memcmp(x, y, sizeof *x) == 0)
		return;
	print_error("event %zu differs: got kind %u status %u reason %u branch %d op %d sub %d rule %d graph %d "
	            "unit %d other %d a %lld b %lld; want kind %u status %u reason %u branch %d op %d sub %d "
	            "rule %d graph %d unit %d other %d a %lld b %lld\n", i,
	            x->kind, x->status, x->reason, x->branch, x->op, x->sub, x->rule, x->graph, x->unit,
	            x->other, (long long)x->a, (long long)x->b,
	            y->kind, y->status, y->reason, y->branch, y->op, y->sub, y->rule, y->graph, y->unit,
	            y->other, (long long)y->a, (long long)y->b);
	fail();
}

/* Records n events through the sink, as the matcher does; checks the indices. */
static void record(fd_trace *t, const fd_event *evs, size_t n)
{
	fd_trace_sink s = trace_sink(t);
	size_t base = t->n_events;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s.event(s.ctx, &evs[i]), base + i);
	assert_int_equal(t->n_events, base + n);
}

/* Every way of reading gives back want[0 .. n). */
static void check_reads(const fd_trace *t, const fd_event *want, size_t n)
{
	assert_int_equal(t->n_events, n);
	/* random access, every index */
	for (size_t i = 0; i < n; i++) {
		fd_event e = trace_event(t, i);
		assert_event_equal(&e, &want[i], i);
	}
	/* one forward pass */
	fd_trace_iter it;
	fd_event e;
	trace_iter_init(&it, t, 0);
	for (size_t i = 0; i < n; i++) {
		assert_true(trace_iter_next(&it, &e));
		assert_event_equal(&e, &want[i], i);
	}
	assert_false(trace_iter_next(&it, &e));
	/* one backward pass */
	fd_trace_riter rit;
	trace_riter_init(&rit, t, n);
	for (size_t i = n; i-- > 0;) {
		assert_true(trace_riter_prev(&rit, &e));
		assert_event_equal(&e, &want[i], i);
	}
	assert_false(trace_riter_prev(&rit, &e));
	/* a cursor started at every index (around each checkpoint, a few steps) */
	for (size_t i = 0; i < n; i++) {
		trace_iter_init(&it, t, i);
		for (size_t k = i; k < n && k < i + TRACE_BLOCK + 2; k++) {
			assert_true(trace_iter_next(&it, &e));
			assert_event_equal(&e, &want[k], k);
		}
		trace_riter_init(&rit, t, i + 1);
		for (size_t k = i + 1; k-- > 0 && k + TRACE_BLOCK + 2 > i;) {
			assert_true(trace_riter_prev(&rit, &e));
			assert_event_equal(&e, &want[k], k);
		}
	}
	/* past the end: nothing, and trace_event gives the defaults */
	trace_iter_init(&it, t, n);
	assert_false(trace_iter_next(&it, &e));
	e = trace_event(t, n);
	assert_int_equal(e.unit, -1);
	assert_int_equal(e.rule, -1);
	assert_true(trace_used_bytes(t) <= trace_bytes(t));
}

/* A small deterministic generator (xorshift64*): the test is the same on every run. */
static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717u;
}

static const int64_t edge64[] = { 0, 1, -1, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, INT32_MIN, INT32_MAX, 127, 128, -64, -65 };
static const int32_t edge32[] = { 0, 1, -1, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 63, 64, -64, -65, 1 << 20 };

/* A random event: each field kept from prev, nudged a little (as the
 * matcher's are), or set to an edge or random value. */
static fd_event random_event(const fd_event *prev)
{
	fd_event e = *prev;
	e.kind = (uint8_t)(rnd() % EV_KIND_COUNT);
	e.status = (uint8_t)(rnd() % 4);
#define MUTATE(field, type, edges)                                                      \
	switch (rnd() % 6) {                                                            \
	case 0: case 1: break;                                                          \
	case 2: e.field = (type)((uint64_t)e.field + rnd() % 9 - 4); break;            \
	case 3: e.field = (type)edges[rnd() % (sizeof edges / sizeof edges[0])]; break; \
	case 4: e.field = (type)rnd(); break;                                           \
	default: e.field = (type)-1; break;                                             \
	}
	MUTATE(reason, uint8_t, edge32)
	MUTATE(branch, int8_t, edge32)
	MUTATE(op, int16_t, edge32)
	MUTATE(sub, int16_t, edge32)
	MUTATE(rule, int32_t, edge32)
	MUTATE(graph, int32_t, edge32)
	MUTATE(unit, int32_t, edge32)
	MUTATE(other, int32_t, edge32)
	MUTATE(a, int64_t, edge64)
	MUTATE(b, int64_t, edge64)
#undef MUTATE
	return e;
}

static fd_event *random_events(size_t n)
{
	fd_event *v = malloc(n * sizeof *v);
	fd_event prev = { .branch = -1, .op = -1, .sub = -1, .rule = -1, .unit = -1, .other = -1 };
	for (size_t i = 0; i < n; i++)
		prev = v[i] = random_event(&prev);
	return v;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_empty(void **state)
{
	(void)state;
	fd_trace t;
	trace_init(&t);
	check_reads(&t, NULL, 0);
	fd_trace_riter rit;
	fd_event e;
	trace_riter_init(&rit, &t, 5);
	assert_false(trace_riter_prev(&rit, &e));
	trace_fit(&t);
	trace_release(&t);
}

/* Extremes in every field, each against defaults and against each other. */
static void test_edges(void **state)
{
	(void)state;
	enum { N = 2 * 64 + 40 };
	fd_event v[N];
	size_t n = 0;
	static const fd_event all_min = {
		.kind = 0, .status = 0, .reason = 0, .branch = INT8_MIN, .op = INT16_MIN, .sub = INT16_MIN,
		.rule = INT32_MIN, .graph = INT32_MIN, .unit = INT32_MIN, .other = INT32_MIN,
		.a = INT64_MIN, .b = INT64_MIN,
	};
	static const fd_event all_max = {
		.kind = EV_KIND_COUNT - 1, .status = ST_WARN, .reason = UINT8_MAX, .branch = INT8_MAX,
		.op = INT16_MAX, .sub = INT16_MAX, .rule = INT32_MAX, .graph = INT32_MAX, .unit = INT32_MAX,
		.other = INT32_MAX, .a = INT64_MAX, .b = INT64_MAX,
	};
	static const fd_event none = {
		.kind = EV_ANCHOR, .status = ST_INFO, .branch = -1, .op = -1, .sub = -1, .rule = -1,
		.graph = -1, .unit = -1, .other = -1, .a = -1, .b = -1,
	};
	/* min, max alternating: the widest deltas both ways */
	for (int k = 0; k < 64; k++) {
		v[n++] = k % 2 ? all_max : all_min;
		v[n++] = none;
	}
	/* every kind and status, with a large rule and graph */
	for (int k = 0; k < EV_KIND_COUNT; k++) {
		fd_event e = none;
		e.kind = (uint8_t)k;
		e.status = (uint8_t)(k % 4);
		e.rule = 1000000 + k;
		e.graph = 70000 - k;
		e.a = k % 2 ? INT64_MIN : INT64_MAX;
		e.b = k % 3 ? INT64_MAX : INT64_MIN;
		v[n++] = e;
	}
	/* kinds and statuses outside the enums still come back as they went in */
	static const uint8_t odd[][2] = { { 31, 0 }, { 32, 1 }, { 200, 4 }, { 255, 255 }, { 0, 255 }, { 30, 3 } };
	for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
		fd_event e = all_max;
		e.kind = odd[k][0];
		e.status = odd[k][1];
		v[n++] = e;
	}
	/* the checkpoint defaults themselves, then all zero */
	v[n++] = (fd_event){ .branch = -1, .op = -1, .sub = -1, .rule = -1, .unit = -1, .other = -1 };
	v[n++] = (fd_event){ 0 };
	for (; n < N; n++)
		v[n] = n % 2 ? all_max : none;
	fd_trace t;
	trace_init(&t);
	record(&t, v, n);
	check_reads(&t, v, n);
	trace_release(&t);
}

/* Random runs of lengths around the checkpoint size. */
static void test_random_lengths(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 3 * TRACE_BLOCK + 1; n++) {
		fd_event *v = random_events(n);
		fd_trace t;
		trace_init(&t);
		record(&t, v, n);
		check_reads(&t, v, n);
		trace_release(&t);
		free(v);
	}
}

/* A long random run crossing a 32-bit-offset group (TRACE_GROUP events). */
static void test_random_long(void **state)
{
	(void)state;
	size_t n = TRACE_GROUP * 2 + 37;
	fd_event *v = random_events(n);
	fd_trace t;
	trace_init(&t);
	record(&t, v, n);
	/* random access at every index, and a forward and backward pass */
	fd_trace_iter it;
	fd_trace_riter rit;
	fd_event e;
	trace_iter_init(&it, &t, 0);
	for (size_t i = 0; i < n; i++) {
		fd_event x = trace_event(&t, i);
		assert_event_equal(&x, &v[i], i);
		assert_true(trace_iter_next(&it, &e));
		assert_event_equal(&e, &v[i], i);
	}
	trace_riter_init(&rit, &t, n);
	for (size_t i = n; i-- > 0;) {
		assert_true(trace_riter_prev(&rit, &e));
		assert_event_equal(&e, &v[i], i);
	}
	/* cursors at the group boundaries and at random places, and seeks */
	size_t starts[] = { TRACE_GROUP - 1, TRACE_GROUP, TRACE_GROUP + 1, 2 * TRACE_GROUP - 17, 2 * TRACE_GROUP, n - 1 };
	for (size_t k = 0; k < sizeof starts / sizeof starts[0] + 200; k++) {
		size_t s = k < sizeof starts / sizeof starts[0] ? starts[k] : rnd() % n;
		trace_iter_init(&it, &t, s);
		for (size_t i = s; i < n && i < s + 40; i++) {
			assert_true(trace_iter_next(&it, &e));
			assert_event_equal(&e, &v[i], i);
		}
		size_t to = rnd() % n;   /* either way, near or far */
		trace_iter_seek(&it, to);
		assert_true(trace_iter_next(&it, &e));
		assert_event_equal(&e, &v[to], to);
		size_t step = rnd() % 20;    /* a little ahead, or (0) just behind */
		to = to + step < n ? to + step : to;
		trace_iter_seek(&it, to);
		assert_true(trace_iter_next(&it, &e));
		assert_event_equal(&e, &v[to], to);
	}
	trace_release(&t);
	free(v);
}

/* The kind searches agree with a plain scan, from every start, for sparse
 * kinds (whole blocks skipped), common ones, odd ones and none. */
static void test_find_kind(void **state)
{
	(void)state;
	size_t n = 40 * TRACE_BLOCK + 5;
	fd_event *v = random_events(n);
	/* sparse: most blocks hold no EV_FIRE; one event of a kind past 30 */
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == EV_FIRE && i % 97 != 3)
			v[i].kind = EV_TYPE;
	v[200].kind = 77;
	fd_trace t;
	trace_init(&t);
	record(&t, v, n);
	const uint32_t sets[] = {
		EV_BIT(EV_FIRE), EV_BIT(EV_TYPE), EV_BIT(EV_RULE) | EV_BIT(EV_ANCHOR), EV_BIT(77), EV_BIT(EV_KIND_COUNT),
		UINT32_MAX, 0,
	};
	for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
		for (size_t from = 0; from <= n; from++) {
			/* forward: every match from here, in order */
			fd_trace_iter it;
			fd_event e;
			trace_iter_init(&it, &t, from);
			size_t want = from;
			for (;;) {
				while (want < n && !(EV_BIT(v[want].kind) & sets[s]))
					want++;
				bool got = trace_iter_next_of(&it, sets[s], &e);
				assert_int_equal(got, want < n);
				if (!got)
					break;
				assert_int_equal(it.i - 1, want);
				assert_event_equal(&e, &v[want], want);
				want++;
			}
			/* backward: the first two matches before here */
			fd_trace_riter rit;
			trace_riter_init(&rit, &t, from);
			want = from;
			for (int k = 0; k < 2; k++) {
				while (want > 0 && !(EV_BIT(v[want - 1].kind) & sets[s]))
					want--;
				bool got = trace_riter_prev_of(&rit, sets[s], &e);
				assert_int_equal(got, want > 0);
				if (!got)
					break;
				want--;
				assert_int_equal(rit.i, want);
				assert_event_equal(&e, &v[want], want);
			}
		}
	trace_release(&t);
	free(v);
}

/* Events as the matcher makes them — runs of checks on nearby units — are
 * small; the random ones above are not the point for size. */
static void test_matcher_like_size(void **state)
{
	(void)state;
	size_t n = 100000;
	fd_event *v = malloc(n * sizeof *v);
	int32_t unit = 0;
	for (size_t i = 0; i < n; i++) {
		fd_event e = { .kind = EV_TYPE, .status = ST_PASS, .branch = -1, .op = (int16_t)(i % 3),
		               .sub = -1, .rule = (int32_t)(i / 5000), .graph = 0, .unit = unit,
		               .other = unit - 1, .a = unit + 7, .b = 0 };
		if (i % 3 == 0) {
			e.kind = EV_ANCHOR;
			unit += 3;
			e.unit = unit;
			e.other = -1;
			e.a = 0;
		}
		v[i] = e;
	}
	fd_trace t;
	trace_init(&t);
	trace_reserve(&t, n, 10);
	record(&t, v, n);
	trace_fit(&t);
	check_reads(&t, v, n);
	assert_true(t.n_bytes < n * 8);    /* 40 bytes flat */
	assert_true(trace_bytes(&t) < n * 10);
	trace_release(&t);
	free(v);
}

/* clear keeps the buffers, a second recording reads back as itself; fit
 * after a big reserve gives the room back and recording can go on. */
static void test_clear_reserve_fit(void **state)
{
	(void)state;
	size_t n = 1000;
	fd_event *v = random_events(n);
	fd_trace t;
	trace_init(&t);
	trace_reserve(&t, 100000, 1000);
	size_t reserved = trace_bytes(&t);
	record(&t, v, n);
	check_reads(&t, v, n);
	assert_int_equal(trace_bytes(&t), reserved);     /* no growth within a reserve */
	trace_fit(&t);
	assert_true(trace_bytes(&t) < reserved);
	check_reads(&t, v, n);
	/* a re-run: the next recording replaces this one */
	trace_clear(&t);
	check_reads(&t, v, 0);
	record(&t, v + 500, 300);
	check_reads(&t, v + 500, 300);
	/* and grows past what fit left */
	record(&t, v, n);
	fd_event *both = malloc((300 + n) * sizeof *both);
	memcpy(both, v + 500, 300 * sizeof *both);
	memcpy(both + 300, v, n * sizeof *both);
	check_reads(&t, both, 300 + n);
	free(both);
	trace_release(&t);
	free(v);
}

/* ---- the asynchronous sink (trace_async.c) ------------------------------- */

/* Threads of this process, or -1 where /proc cannot say. */
static int n_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Records n events and an attempt every 1000 through the async sink, as
 * match_run does; checks the indices, that the encoder thread runs exactly
 * when a chunk filled, and that the events are all there after
 * trace_async_finish. */
static void record_async(fd_trace *t, const fd_event *evs, size_t n)
{
	fd_trace_sink s = trace_async_sink(t);
	size_t base = t->n_events, base_attempts = t->n_attempts;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s.event(s.ctx, &evs[i]), base + i);
		if (i % 1000 == 0) {
			fd_attempt at = { .rule = (int32_t)i, .first_event = (uint32_t)(base + i), .n_events = 1 };
			s.attempt(s.ctx, &at);
			/* attempts stay synchronous: readable during the run */
			assert_int_equal(t->n_attempts, base_attempts + i / 1000 + 1);
			assert_int_equal(t->attempts[t->n_attempts - 1].rule, (int32_t)i);
		}
	}
	/* the thread is up (and a thread really is: a sanitizer may add its own) */
	assert_int_equal(trace_async_running(t), n >= TRACE_CHUNK);
	int threads = n_threads();
	if (n >= TRACE_CHUNK && threads >= 0)
		assert_true(threads >= 2);
	trace_async_finish(t);
	assert_false(trace_async_running(t));
	assert_int_equal(t->n_events, base + n);
}

/* The same events through the synchronous sink, for comparison. */
static void record_sync(fd_trace *t, const fd_event *evs, size_t n)
{
	fd_trace_sink s = trace_sink(t);
	for (size_t i = 0; i < n; i++) {
		s.event(s.ctx, &evs[i]);
		if (i % 1000 == 0) {
			fd_attempt at = { .rule = (int32_t)i, .first_event = (uint32_t)(t->n_events - 1), .n_events = 1 };
			s.attempt(s.ctx, &at);
		}
	}
}

/* Byte for byte what the synchronous encoder made: events, checkpoints,
 * bases and attempts. */
static void assert_same_recording(const fd_trace *x, const fd_trace *y)
{
	assert_int_equal(x->n_events, y->n_events);
	assert_int_equal(x->n_bytes, y->n_bytes);
	assert_int_equal(x->n_attempts, y->n_attempts);
	if (x->n_bytes)
		assert_memory_equal(x->bytes, y->bytes, x->n_bytes);
	size_t marks = (x->n_events + TRACE_BLOCK - 1) / TRACE_BLOCK;
	size_t bases = (x->n_events + TRACE_GROUP - 1) / TRACE_GROUP;
	if (marks)
		assert_memory_equal(x->marks, y->marks, marks * sizeof *x->marks);
	if (bases)
		assert_memory_equal(x->bases, y->bases, bases * sizeof *x->bases);
	if (x->n_attempts)
		assert_memory_equal(x->attempts, y->attempts, x->n_attempts * sizeof *x->attempts);
}

/* Many chunks (the ring full over and over, a group boundary, a partial last
 * chunk) come out as the synchronous encoder's bytes. */
static void test_async_many_chunks(void **state)
{
	(void)state;
	size_t n = TRACE_CHUNK * (TRACE_RING + 3) + 123;
	fd_event *v = random_events(n);
	fd_trace sync, async;
	trace_init(&sync);
	trace_init(&async);
	record_sync(&sync, v, n);
	record_async(&async, v, n);
	assert_same_recording(&sync, &async);
	check_reads(&async, v, n);
	trace_release(&sync);
	trace_release(&async);
	free(v);
}

/* A re-run after trace_clear (what-if): the ring and arrays are reused, the
 * thread starts again, and each run equals its synchronous twin — a large
 * one, one of exactly whole chunks, one of exactly one chunk, a small one,
 * an empty one, and after a fit. */
static void test_async_rerun(void **state)
{
	(void)state;
	size_t n = TRACE_CHUNK * (TRACE_RING + 2) + 77;
	fd_event *v = random_events(n);
	const size_t runs[][2] = {
		{ 0, TRACE_CHUNK * (TRACE_RING + 2) + 77 },
		{ 1000, TRACE_CHUNK * (TRACE_RING + 1) },
		{ 5, TRACE_CHUNK },
		{ 17, TRACE_CHUNK - 1 },
		{ 3, 0 },
		{ 40000, TRACE_CHUNK * 2 + 1 },
		{ 9, 300 },
	};
	fd_trace async;
	trace_init(&async);
	trace_reserve(&async, 20000, 100);
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		const fd_event *e = v + runs[k][0];
		size_t m = runs[k][1];
		assert_true(runs[k][0] + m <= n);
		fd_trace sync;
		trace_init(&sync);
		record_sync(&sync, e, m);
		trace_clear(&async);
		record_async(&async, e, m);
		assert_same_recording(&sync, &async);
		check_reads(&async, e, m);
		if (k == 4)
			trace_fit(&async);
		trace_release(&sync);
	}
	trace_release(&async);
	free(v);
}

/* A run under a chunk never starts the thread (record_async checks the
 * thread count) and reads back as the synchronous one; the async sink and
 * the synchronous one may follow each other on one trace. */
static void test_async_small(void **state)
{
	(void)state;
	size_t n = 200;
	fd_event *v = random_events(n);
	fd_trace sync, async;
	trace_init(&sync);
	trace_init(&async);
	record_sync(&sync, v, n);
	record_async(&async, v, 120);
	record_sync(&async, v + 120, 80);
	/* indices of the attempts differ (they follow the first_event) but the events do not */
	assert_int_equal(async.n_bytes, sync.n_bytes);
	assert_memory_equal(async.bytes, sync.bytes, sync.n_bytes);
	check_reads(&async, v, n);
	trace_release(&sync);
	trace_release(&async);
	/* released without a run, and after a sink that saw nothing */
	trace_init(&async);
	trace_async_sink(&async);
	trace_async_finish(&async);
	check_reads(&async, v, 0);
	trace_release(&async);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_lengths),
		cmocka_unit_test(test_random_long),
		cmocka_unit_test(test_find_kind),
		cmocka_unit_test(test_matcher_like_size),
		cmocka_unit_test(test_clear_reserve_fit),
		cmocka_unit_test(test_async_many_chunks),
		cmocka_unit_test(test_async_rerun),
		cmocka_unit_test(test_async_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
