/* test_memo.c — the search's memo (src/match/match_memo.c) keys a failed
 * state on everything the rest of the pattern reads: on the models of
 * tests/data/memo/ (tests/tools/make_memo_models.py), each in two node
 * orders, the memo from the first step and no memo give the same verdicts
 * and the same decisive checks in words, and the rule fires in all four.
 * Then a feeds producer that is an earlier op of the match already is
 * told as such, not as another node's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "explain/explain.h"
#include "match/match.h"
#include "onnx/onnx.h"
#include "ruleset/ruleset.h"

typedef struct run { fd_model m; fd_ruleset rs; fd_match_ctx ctx; fd_match_result r; } run;

static void run_open(run *x, const char *model, const char *rules, fd_match_memo memo)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	assert_int_equal(onnx_load_model(&x->m, model, &lo, &d), 0);
	ruleset_init(&x->rs);
	assert_int_equal(ruleset_load(&x->rs, rules, &d), 0);
	diags_release(&d);
	match_ctx_init(&x->ctx, &x->m, true, NULL);
	match_result_init(&x->r);
	fd_match_options opt = { .memo = memo };
	assert_int_equal(match_run(&x->ctx, &x->rs, &opt, &x->r), 0);
}

static void run_close(run *x)
{
	match_result_release(&x->r);
	match_ctx_release(&x->ctx);
	ruleset_release(&x->rs);
	model_release(&x->m);
}

/* Every attempt of the run in words, by node names (not ids: the orders
 * differ): its anchor, reason, depth and decisive check. */
static void verdicts(const run *x, char *out, size_t size)
{
	size_t at = 0;
	out[0] = '\0';
	for (size_t k = 0; k < x->r.trace.n_attempts && at < size; k++) {
		const fd_attempt *a = &x->r.trace.attempts[k];
		fd_event_text tx = { 0 };
		if (a->decisive != UINT32_MAX)
			explain_event(&x->r, a->decisive, &tx);
		const char *anchor = a->anchor >= 0 ? x->m.graphs[a->graph].nodes[a->anchor].name : "-";
		at += (size_t)snprintf(out + at, size - at, "%s @ %s: reason %d, %d ops; %s | %s | %s | %s\n",
		                       x->rs.rules[a->rule].name, anchor, a->reason, a->ops_matched, tx.check,
		                       tx.expected, tx.actual, tx.reason);
	}
}

static void same_in_any_order(const char *name)
{
	static const char *const orders[] = { "ab", "ba" };
	static const fd_match_memo memos[] = { MATCH_MEMO_OFF, MATCH_MEMO_AT_ONCE };
	char rules[128], model[128], first[4096], got[4096];
	snprintf(rules, sizeof rules, "tests/data/memo/%s.yaml", name);
	for (int o = 0; o < 2; o++)
		for (int k = 0; k < 2; k++) {
			snprintf(model, sizeof model, "tests/data/memo/%s_%s.onnx", name, orders[o]);
			run x;
			run_open(&x, model, rules, memos[k]);
			verdicts(&x, o || k ? got : first, sizeof first);
			if (o || k) {
				if (strcmp(first, got))
					fprintf(stderr, "%s, memo %s:\n%s\nis not, as with %s_ab without the memo:\n%s\n", model,
					        k ? "on" : "off", got, name, first);
				assert_string_equal(got, first);
			}
			assert_int_equal(x.r.n_fusions, 1);
			run_close(&x);
		}
}

static void test_same_value_as(void **state) { (void)state; same_in_any_order("same_value"); }
static void test_dtype_same_as(void **state) { (void)state; same_in_any_order("dtype_same"); }
static void test_feeds_taken(void **state) { (void)state; same_in_any_order("feeds_taken"); }
static void test_input_reader(void **state) { (void)state; same_in_any_order("input_reader"); }

/* The producer the feeds names is op1 already: no match, and the words say
 * so, not that the tensor comes from some other node. */
static void test_feeds_in_match(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/memo/feeds_self.onnx", "tests/data/memo/feeds_taken.yaml", MATCH_MEMO_DEFAULT);
	assert_int_equal(x.r.n_fusions, 0);
	const fd_attempt *a = &x.r.trace.attempts[0];
	assert_int_equal(a->reason, REASON_NM04_SOURCE);
	fd_event_text tx;
	explain_event(&x.r, a->decisive, &tx);
	assert_string_equal(tx.actual, "n comes from neg (Neg), op1 of this match already");
	assert_string_equal(tx.reason, "the producer of op2's input0 is op1 of this match: one node is not two ops");
	run_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_value_as),
		cmocka_unit_test(test_dtype_same_as),
		cmocka_unit_test(test_feeds_taken),
		cmocka_unit_test(test_input_reader),
		cmocka_unit_test(test_feeds_in_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
