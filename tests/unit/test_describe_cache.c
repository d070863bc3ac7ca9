/* test_describe_cache.c — what the writers of a big run keep between events
 * (explain_internal.h's describe_cache) changes no byte: a unit label
 * through the cache is explain_unit_label's at every buffer size (names of
 * 300 bytes cut head…tail, composites, no unit), on a first look and a
 * second, after other units took its slot; an event described through the
 * cache is explain_event's; a why line through one cache kept over every
 * attempt is explain_why_line's; the fields joined without a format
 * (text_join, text_decimal) are the formatted ones, cut alike. Run from the
 * repository root. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"
#include "match/match.h"
#include "ruleset/ruleset.h"
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "onnx/onnx.h"
#include "match_fixture.h"

static void run_model(run *x, const char *path)
{
	static const char *const dirs[] = { "rules", NULL };
	run_rules(x, path, dirs);
}

static const char *const models[] = {
	"tests/data/hostile/long_names.onnx",     /* 300-byte names: every label cut */
	"tests/data/hostile/hostile_names.onnx",
	"samples/conv_add_silu.onnx",             /* composites */
	"samples/attention_masked.onnx",
	"samples/symbolic_batch.onnx",            /* memory_limit on formulas: the size cache */
	"tests/data/match/symbolic_blocks.onnx",  /* the same on many equal shapes: cache hits */
};

static const size_t sizes[] = { 2, 5, 20, 64, 159, 160, 161, 191, 192, 193, 300, 1024 };

static void check_labels(run *x, describe_cache *dc, int32_t gi, int32_t u)
{
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		char want[1024], got[1024];
		explain_unit_label(x->r.ctx, gi, u, want, sizes[s]);
		const char *p = explain_cached_unit_label(dc, &x->r, gi, u, got, sizes[s]);
		assert_ptr_equal(p, got);
		assert_string_equal(got, want);
	}
}

/* check on every model, with one cache for the whole run (as a writer's piece) */
static void each_model(void (*check)(run *x, describe_cache *dc, const char *path))
{
	for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
		run x;
		run_model(&x, models[k]);
		describe_cache dc;
		explain_cache_init(&dc);
		check(&x, &dc, models[k]);
		run_release(&x);
	}
}

static void labels_of(run *x, describe_cache *dc, const char *path)
{
	(void)path;
	for (int pass = 0; pass < 2; pass++)   /* a miss, then a hit (or another unit's slot) */
		for (int32_t gi = 0; gi < x->ctx.n_graphs; gi++) {
			int32_t n = x->ctx.graphs[gi].n_units;
			for (int32_t u = -1; u <= n; u++)
				check_labels(x, dc, gi, pass ? n - 1 - u : u);
		}
}

static void test_labels(void **state)
{
	(void)state;
	each_model(labels_of);
}

static void assert_same_text(const fd_event_text *a, const fd_event_text *b)
{
	assert_string_equal(a->check, b->check);
	assert_string_equal(a->subject, b->subject);
	assert_string_equal(a->expected, b->expected);
	assert_string_equal(a->actual, b->actual);
	assert_string_equal(a->reason, b->reason);
	assert_ptr_equal(a->where.file, b->where.file);
	assert_int_equal(a->where.line, b->where.line);
	assert_int_equal(a->where.col, b->where.col);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->superseded, b->superseded);
}

static void events_and_why_lines_of(run *x, describe_cache *dc, const char *path)
{
	size_t superseded = 0, formulas = 0;
	for (uint32_t e = 0; e <= x->r.trace.n_events; e++) {   /* one past the end: the empty text */
		fd_event_text want, got;
		explain_event(&x->r, e, &want);
		explain_event_cached(&x->r, dc, e, &got);
		assert_same_text(&got, &want);
		superseded += want.superseded;
		formulas += strstr(want.reason, "within the limit for") != NULL;
	}
	for (uint32_t a = 0; a < x->r.trace.n_attempts; a++) {
		char want[1024], got[1024];
		explain_why_line(&x->r, a, want, sizeof want);
		explain_why_line_cached(&x->r, dc, a, got, sizeof got);
		assert_string_equal(got, want);
	}
	if (!strcmp(path, "samples/conv_add_silu.onnx"))
		assert_true(superseded > 0);   /* the look-ahead from the cursor was taken */
	if (strstr(path, "symbolic_blocks"))
		assert_true(formulas >= 10);   /* sizes asked again and again: the size cache's hits */
}

static void test_events_and_why_lines(void **state)
{
	(void)state;
	each_model(events_and_why_lines_of);
}

/* The joins the common fields are made with cut as the formatted field. */
static void test_put_parts(void **state)
{
	(void)state;
	const char *names[] = { "reads ", "Conv_1_out", " of ", "caf\xc3\xa9 \xe2\x80\xa6 (Conv)", "", "(null)" };
	for (size_t size = 1; size <= 48; size++) {
		char want[64], got[64];
		text_cutf(want, size, "%s%s%s%s", names[0], names[1], names[2], names[3]);
		text_join(got, size, 4, names[0], names[1], names[2], names[3]);
		assert_string_equal(got, want);
		text_cutf(want, size, "%s%s%s", names[4], names[5], names[1]);
		text_join(got, size, 3, names[4], NULL, names[1]);   /* NULL prints as printf's "(null)" */
		assert_string_equal(got, want);
	}
	const long long nums[] = { 0, 7, -7, 1234567890123LL, LLONG_MIN, LLONG_MAX };
	for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
		char want[32], d[24];
		snprintf(want, sizeof want, "%lld", nums[k]);
		assert_string_equal(text_decimal(nums[k], d), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_parts),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_events_and_why_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
