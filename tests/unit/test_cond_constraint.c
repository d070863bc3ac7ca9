/* test_cond_constraint.c — the constraint conditions (match/cond_*.c, scope
 * CONSTRAINT) asked for their facts: on every CONSTRAINT event of the
 * samples that exercise the five types, the facts are the event's words
 * (explain_event), the failure's code, and the value that decided — the
 * field of the constraint's map whose what-if path explain_constraint_path
 * gives (the edit path the TUI used to compute from its own table, here
 * the oracle) — and every type, a failure, a warning and an unbound size
 * are seen. A type the format does not know is COND_COUNT, reads none of
 * its fields and passes with FD-WN01 (no path); a field of another type is
 * a warning and is not read. Run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "explain/explain.h"
#include "explain/explain_internal.h"
#include "match/cond_constraint.h"
#include "match_fixture.h"

static const char *const models[] = {
	"samples/channel_divisibility.onnx",
	"samples/conv_add_silu.onnx",
	"samples/workspace_spill.onnx",
	"samples/symbolic_batch.onnx",   /* memory_limit and shape_constraint unbound */
	"samples/memory_limit.onnx",
	"samples/dtype_mismatch.onnx",
};

/* The edit path as the TUI made it before the facts: a field by type. */
static const char *oracle_field(const fd_constraint *c, const fd_event *ev)
{
	switch (c->kind) {
	case COND_DTYPE_MATCH: return "allowed_dtypes";
	case COND_MEMORY_LIMIT: return ev->op == 0 ? "max_intermediate_size" : "max_output_size";
	case COND_WORKSPACE_SIZE: return "max_workspace";
	case COND_CHANNEL_DIVISIBILITY: return "divisor";
	default: return NULL;
	}
}

typedef struct seen {
	int kinds[COND_COUNT + 1];
	int fail, warn, unbound;
} seen;

static void check_events(const fd_match_result *r, seen *sn)
{
	fd_trace_iter it;
	fd_event ev;
	trace_iter_init(&it, &r->trace, 0);
	for (uint32_t i = 0; trace_iter_next(&it, &ev); i++) {
		if (ev.kind != EV_CONSTRAINT)
			continue;
		const fd_constraint *k = &r->rules->rules[ev.rule].constraints[ev.sub];
		fd_cond_check c;
		fd_cond_facts facts;
		assert_true(explain_constraint_facts(r, &ev, NULL, &c, &facts));
		fd_event_text text;
		explain_event(r, i, &text);
		assert_string_equal(text.expected, facts.expected);
		assert_string_equal(text.actual, facts.actual);
		if (facts.reason_text[0])
			assert_string_equal(text.reason, facts.reason_text);
		else
			assert_true(ev.status == ST_FAIL || !text.reason[0]);
		assert_int_equal(facts.reason, ev.status == ST_FAIL ? ev.reason : REASON_NONE);

		char path[160], want[160] = "";
		const char *field = oracle_field(k, &ev);
		if (field)
			snprintf(want, sizeof want, "constraints.%s.%s", k->type, field);
		assert_int_equal(explain_constraint_path(r, &ev, path, sizeof path), field != NULL);
		assert_string_equal(path, want);
		assert_string_equal(facts.path, want);
		assert_ptr_equal(facts.decided, field ? yval_get(k->where, field) : k->where);
		assert_non_null(facts.decided);
		assert_false(explain_constraint_path(r, &ev, path, strlen(want)));   /* a cut path names nothing */

		sn->kinds[k->kind]++;
		sn->fail += ev.status == ST_FAIL;
		sn->warn += ev.status == ST_WARN;
		sn->unbound += ev.reason == REASON_CF06_UNBOUND;
	}
}

static void test_facts_are_the_words(void **state)
{
	(void)state;
	static const char *const dirs[] = { "rules", NULL };
	seen sn;
	memset(&sn, 0, sizeof sn);
	for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
		run x;
		run_rules(&x, models[m], dirs);
		check_events(&x.r, &sn);
		run_release(&x);
	}
	assert_true(sn.kinds[COND_DTYPE_MATCH] > 0);
	assert_true(sn.kinds[COND_SHAPE_CONSTRAINT] > 0);
	assert_true(sn.kinds[COND_MEMORY_LIMIT] > 0);
	assert_true(sn.kinds[COND_WORKSPACE_SIZE] > 0);
	assert_true(sn.kinds[COND_CHANNEL_DIVISIBILITY] > 0);
	assert_true(sn.fail > 0 && sn.warn > 0 && sn.unbound > 0);
}

/* Another event, an event of a constraint the rule does not have: no path. */
static void test_no_path_for_other_events(void **state)
{
	(void)state;
	static const char *const dirs[] = { "rules", NULL };
	run x;
	run_rules(&x, "samples/conv_bn_relu.onnx", dirs);
	fd_trace_iter it;
	fd_event ev;
	char path[160] = "x";
	trace_iter_init(&it, &x.r.trace, 0);
	while (trace_iter_next(&it, &ev)) {
		if (ev.kind == EV_CONSTRAINT) {
			fd_event beyond = ev;
			beyond.sub = (int16_t)x.r.rules->rules[ev.rule].n_constraints;
			assert_false(explain_constraint_path(&x.r, &beyond, path, sizeof path));
		} else {
			assert_false(explain_constraint_path(&x.r, &ev, path, sizeof path));
		}
		assert_string_equal(path, "");
	}
	run_release(&x);
}

static bool said(const fd_diags *d, fd_severity sev, const char *part)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].severity == sev && strstr(d->items[i].message, part))
			return true;
	return false;
}

static void test_unknown_type_and_foreign_field(void **state)
{
	(void)state;
	fd_diags d;
	diags_init(&d);
	fd_ruleset rs;
	ruleset_init(&rs);
	assert_int_equal(ruleset_load(&rs, "tests/data/cond_constraint", &d), 0);
	assert_int_equal(d.errors, 0);
	assert_true(said(&d, DIAG_WARNING, "constraints[0]: 'divisor' has no meaning for a memory_limit constraint"));
	assert_int_equal(rs.n_rules, 2);
	const fd_constraint *unknown = &rs.rules[0].constraints[0], *mem = &rs.rules[1].constraints[0];
	assert_int_equal(unknown->kind, COND_COUNT);
	assert_int_equal(unknown->max_output_size, -1);   /* "32 parsecs" read by nobody */
	assert_int_equal(mem->kind, COND_MEMORY_LIMIT);
	assert_int_equal(mem->max_output_size, 1 << 20);
	assert_int_equal(mem->divisor, 0);                /* -3 not read */
	ruleset_release(&rs);
	diags_release(&d);

	static const char *const dirs[] = { "tests/data/cond_constraint", NULL };
	run x;
	run_rules(&x, "samples/conv_bn_relu.onnx", dirs);
	fd_trace_iter it;
	fd_event ev;
	int wn01 = 0, memory = 0;
	trace_iter_init(&it, &x.r.trace, 0);
	for (uint32_t i = 0; trace_iter_next(&it, &ev); i++) {
		if (ev.kind != EV_CONSTRAINT)
			continue;
		char path[160];
		fd_event_text text;
		explain_event(&x.r, i, &text);
		if (ev.reason == REASON_WN01_UNKNOWN_CONSTRAINT) {
			wn01++;
			assert_int_equal(ev.status, ST_WARN);
			assert_false(explain_constraint_path(&x.r, &ev, path, sizeof path));
			assert_string_equal(text.check, "constraint latency_budget");
			assert_string_equal(text.reason, "unknown constraint type, ignored");
		} else {
			memory++;
			assert_true(explain_constraint_path(&x.r, &ev, path, sizeof path));
			assert_string_equal(path, "constraints.memory_limit.max_output_size");
			assert_string_equal(text.check, "constraint memory_limit max_output_size");
			assert_string_equal(text.expected, "<= 1.0 MiB (1048576)");
		}
	}
	assert_int_equal(wn01, 1);
	assert_true(memory > 0);
	run_release(&x);
}

/* The lint's list of known types is the entries' keys, in the list's order. */
static void test_names(void **state)
{
	(void)state;
	char names[256];
	cond_keys(cond_rows(SCOPE_CONSTRAINT, EV_KIND_COUNT), ", ", names, sizeof names);
	assert_string_equal(names, "dtype_match, shape_constraint, memory_limit, workspace_size, channel_divisibility");
	for (int k = 0; k < COND_COUNT; k++)
		if (cond_def((fd_cond_kind)k)->scope == SCOPE_CONSTRAINT)
			assert_non_null(strstr(names, cond_def((fd_cond_kind)k)->key));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_are_the_words),
		cmocka_unit_test(test_no_path_for_other_events),
		cmocka_unit_test(test_unknown_type_and_foreign_field),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
