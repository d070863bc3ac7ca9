/* test_view_state.c — the TUI's curses-free view logic (src/view_state.c):
 * list cursor and scrolling, smartcase search, names cut to their tail,
 * graph rows, breakpoints, the
 * trace stepper both ways and the why-not landing, on the real trace of
 * samples/conv_add_silu.onnx with rules/ and samples/rules/. Runs from the
 * repository root (tests/run-all does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "session/session.h"
#include "view_state.h"
#include "explain/explain.h"

/* ---- list ---------------------------------------------------------------- */

static void test_list_moves(void **state)
{
	vs_list l = { 0 };
	vs_list_set_rows(&l, 100);
	vs_list_set_height(&l, 10);
	assert_int_equal(l.cursor, 0);
	vs_list_move(&l, -1);
	assert_int_equal(l.cursor, 0);               /* clamped at the top */
	vs_list_move(&l, 9);
	assert_int_equal(l.cursor, 9);
	assert_int_equal(l.top, 0);                  /* still visible */
	vs_list_move(&l, 1);
	assert_int_equal(l.cursor, 10);
	assert_int_equal(l.top, 1);                  /* scrolled by one */
	vs_list_end(&l);
	assert_int_equal(l.cursor, 99);
	assert_int_equal(l.top, 90);                 /* no empty space below the last row */
	vs_list_move(&l, 5);
	assert_int_equal(l.cursor, 99);
	vs_list_home(&l);
	assert_int_equal(l.cursor, 0);
	assert_int_equal(l.top, 0);
	vs_list_page(&l, 1);
	assert_int_equal(l.top, 9);                  /* a page is height - 1: one line of context */
	assert_int_equal(l.cursor, 9);
	vs_list_page(&l, -1);
	assert_int_equal(l.top, 0);
	assert_int_equal(l.cursor, 0);
	/* shrinking the window keeps the cursor visible */
	vs_list_goto(&l, 50);
	vs_list_set_height(&l, 3);
	assert_true(l.cursor >= l.top && l.cursor < l.top + 3);
	/* fewer rows than before clamps the cursor */
	vs_list_set_rows(&l, 20);
	assert_int_equal(l.cursor, 19);
	assert_true(l.top <= 17);
}

static void test_list_goto_scroll_click(void **state)
{
	vs_list l = { 0 };
	vs_list_set_rows(&l, 1000);
	vs_list_set_height(&l, 30);
	vs_list_goto(&l, 500);
	assert_int_equal(l.cursor, 500);
	assert_int_equal(l.top, 490);                /* a third of the way down */
	vs_list_goto(&l, 505);
	assert_int_equal(l.top, 490);                /* already visible: no jump */
	vs_list_scroll(&l, 3);
	assert_int_equal(l.top, 493);
	assert_int_equal(l.cursor, 505);             /* the cursor stays while visible */
	vs_list_scroll(&l, 20);
	assert_int_equal(l.top, 513);
	assert_int_equal(l.cursor, 513);             /* dragged along at the top */
	vs_list_scroll(&l, -1000);
	assert_int_equal(l.top, 0);
	assert_true(vs_list_click(&l, 4));
	assert_int_equal(l.cursor, 4);
	assert_false(vs_list_click(&l, 30));         /* below the view */
	/* an empty list never moves */
	vs_list e = { 0 };
	vs_list_set_height(&e, 5);
	vs_list_move(&e, 3);
	vs_list_end(&e);
	vs_list_goto(&e, 7);
	assert_int_equal(e.cursor, 0);
	assert_false(vs_list_click(&e, 0));
}

/* ---- search -------------------------------------------------------------- */

static const char *const words[] = { "conv1 Conv", "add1 Add", "Sigmoid_1", "mul1 Mul", "conv2 Conv", "ADD2" };

static const char *word_row(void *ctx, size_t row, char *buf, size_t size)
{
	return words[row];
}

static void test_search(void **state)
{
	bool wrapped;
	assert_int_equal(vs_search(6, 0, 1, "add", word_row, NULL, &wrapped), 1);
	assert_false(wrapped);
	assert_int_equal(vs_search(6, 1, 1, "add", word_row, NULL, &wrapped), 5);   /* lower case: any case */
	assert_int_equal(vs_search(6, 5, 1, "add", word_row, NULL, &wrapped), 1);   /* n wraps */
	assert_true(wrapped);
	assert_int_equal(vs_search(6, 1, 1, "Add", word_row, NULL, &wrapped), 1);   /* smartcase: only "Add" */
	assert_true(wrapped);
	assert_int_equal(vs_search(6, 1, -1, "conv", word_row, NULL, &wrapped), 0); /* N goes back */
	assert_int_equal(vs_search(6, 0, -1, "conv", word_row, NULL, &wrapped), 4);
	assert_true(wrapped);
	assert_int_equal(vs_search(6, 0, 1, "gelu", word_row, NULL, &wrapped), VS_NONE);
	assert_int_equal(vs_search(6, 0, 1, "", word_row, NULL, &wrapped), VS_NONE);
	assert_int_equal(vs_search(0, 0, 1, "x", word_row, NULL, &wrapped), VS_NONE);
	assert_true(vs_text_matches("Conv_BN_Relu", "bn_relu"));
	assert_false(vs_text_matches("Conv_BN_Relu", "Bn_relu"));
}

/* ---- a real trace -------------------------------------------------------- */

static fd_session S;

static int open_session(void **state)
{
	static const char *const paths[] = { "rules", "samples/rules" };
	fd_session_options o = { 0 };
	o.model_path = "samples/conv_add_silu.onnx";
	o.rule_paths = paths;
	o.n_rule_paths = 2;
	o.no_env = true;
	fd_diags d;
	diags_init(&d);
	int rc = session_open(&S, &o, &d);
	diags_release(&d);
	return rc;
}

static int close_session(void **state)
{
	session_close(&S);
	return 0;
}

static void test_graph_rows(void **state)
{
	const fd_model *m = session_model(&S);
	vs_graph_rows gr;
	vs_graph_rows_init(&gr, m);
	assert_int_equal(vs_graph_rows_count(&gr), (size_t)m->graphs[0].n_nodes);
	for (size_t row = 0; row < vs_graph_rows_count(&gr); row++) {
		int32_t g, n;
		vs_graph_row_node(&gr, m, row, &g, &n);
		assert_int_equal(g, 0);
		assert_int_equal(m->graphs[0].nodes[n].topo, (int32_t)row);   /* topological order */
		assert_int_equal(vs_graph_node_row(&gr, m, g, n), row);
	}
	int32_t g, n;
	vs_graph_row_node(&gr, m, 999, &g, &n);
	assert_int_equal(g, FD_NONE);
	assert_int_equal(vs_graph_node_row(&gr, m, 0, 999), VS_NONE);
	vs_graph_rows_release(&gr);
}

static uint32_t move(const vs_breakpoints *bp, uint32_t cur, vs_step how, bool *moved)
{
	return vs_stepper_move(session_result(&S), bp, cur, how, moved);
}

static void test_stepper_events_and_ends(void **state)
{
	const fd_trace *t = &session_result(&S)->trace;
	assert_true(t->n_events > 10);
	bool moved;
	assert_int_equal(move(NULL, 0, STEP_NEXT_EVENT, &moved), 1);
	assert_true(moved);
	assert_int_equal(move(NULL, 1, STEP_PREV_EVENT, &moved), 0);
	assert_int_equal(move(NULL, 0, STEP_PREV_EVENT, &moved), 0);
	assert_false(moved);                                   /* nowhere before the start */
	uint32_t last = (uint32_t)t->n_events - 1;
	assert_int_equal(move(NULL, 5, STEP_END, &moved), last);
	assert_int_equal(move(NULL, last, STEP_NEXT_EVENT, &moved), last);
	assert_false(moved);
	assert_int_equal(move(NULL, last, STEP_START, &moved), 0);
	assert_true(moved);
}

static void test_stepper_attempts(void **state)
{
	const fd_trace *t = &session_result(&S)->trace;
	bool moved;
	/* forward over every attempt lands on each attempt's first event, in order */
	uint32_t cur = 0;
	size_t seen = 0;
	for (;;) {
		uint32_t to = move(NULL, cur, STEP_NEXT_ATTEMPT, &moved);
		if (!moved)
			break;
		uint32_t a = vs_attempt_of(t, to);
		assert_int_not_equal(a, UINT32_MAX);
		assert_int_equal(t->attempts[a].first_event, to);
		assert_true(to > cur);
		cur = to;
		seen++;
	}
	size_t with_events = 0;
	for (size_t i = 0; i < t->n_attempts; i++)
		with_events += t->attempts[i].n_events > 0;
	assert_int_equal(seen + (vs_attempt_of(t, 0) == 0 ? 1 : 0), with_events);
	/* back: from inside an attempt to its start, then to the one before */
	uint32_t a1 = UINT32_MAX;
	for (size_t i = 1; i < t->n_attempts; i++)
		if (t->attempts[i].n_events > 2 && t->attempts[i - 1].n_events > 0) {
			a1 = (uint32_t)i;
			break;
		}
	assert_int_not_equal(a1, UINT32_MAX);
	uint32_t inside = t->attempts[a1].first_event + 2;
	uint32_t to = move(NULL, inside, STEP_PREV_ATTEMPT, &moved);
	assert_int_equal(to, t->attempts[a1].first_event);
	to = move(NULL, to, STEP_PREV_ATTEMPT, &moved);
	assert_int_equal(to, t->attempts[a1 - 1].first_event);
	/* an event between attempts (a rule start) belongs to none */
	for (size_t e = 0; e < t->n_events; e++)
		if (trace_event(t, e).kind == EV_RULE)
			assert_int_equal(vs_attempt_of(t, (uint32_t)e), UINT32_MAX);
}

static void test_stepper_fire_failure(void **state)
{
	const fd_match_result *r = session_result(&S);
	const fd_trace *t = &r->trace;
	bool moved;
	uint32_t f1 = move(NULL, 0, STEP_NEXT_FIRE, &moved);
	assert_true(moved);
	assert_int_equal(trace_event(t, f1).kind, EV_FIRE);
	uint32_t f2 = move(NULL, f1, STEP_NEXT_FIRE, &moved);
	assert_true(moved && f2 > f1);
	assert_int_equal(trace_event(t, f2).kind, EV_FIRE);
	assert_int_equal(move(NULL, f2, STEP_PREV_FIRE, &moved), f1);
	for (uint32_t e = 0; e < f1; e++)
		assert_int_not_equal(trace_event(t, e).kind, EV_FIRE);   /* f1 is the first */
	/* failures: the deciding check of an attempt that did not fire */
	uint32_t x = move(NULL, 0, STEP_NEXT_FAILURE, &moved);
	assert_true(moved);
	uint32_t a = vs_attempt_of(t, x);
	assert_int_not_equal(a, UINT32_MAX);
	assert_int_not_equal(t->attempts[a].rung, RUNG_FIRED);
	assert_int_equal(t->attempts[a].decisive, x);
	assert_int_equal(trace_event(t, x).status, ST_FAIL);
	uint32_t x2 = move(NULL, x, STEP_NEXT_FAILURE, &moved);
	assert_true(moved && x2 > x);
	assert_int_equal(move(NULL, x2, STEP_PREV_FAILURE, &moved), x);
	/* a failed candidate inside an attempt that fired is not a failure stop */
	for (uint32_t e = x; e < x2; e++) {
		uint32_t ea = vs_attempt_of(t, e);
		if (ea != UINT32_MAX && t->attempts[ea].rung != RUNG_FIRED && t->attempts[ea].decisive == e)
			assert_int_equal(e, x);
	}
}

static void test_breakpoints(void **state)
{
	const fd_match_result *r = session_result(&S);
	const fd_trace *t = &r->trace;
	vs_breakpoints b;
	vs_bp_init(&b);
	bool moved;
	assert_int_equal(move(&b, 0, STEP_CONTINUE, &moved), 0);
	assert_false(moved);                                     /* no breakpoints: stays */

	vs_breakpoint code = { .kind = BP_REASON, .reason = REASON_CL01_CONFLICT };
	assert_true(vs_bp_toggle(&b, &code));
	uint32_t hit = move(&b, 0, STEP_CONTINUE, &moved);
	assert_true(moved);
	assert_int_equal(trace_event(t, hit).reason, REASON_CL01_CONFLICT);
	uint32_t hit2 = move(&b, hit, STEP_CONTINUE, &moved);
	assert_true(moved && hit2 > hit);
	assert_int_equal(move(&b, hit2, STEP_REVERSE_CONTINUE, &moved), hit);
	char buf[128];
	vs_bp_describe(&code, r, buf, sizeof buf);
	assert_int_equal(strncmp(buf, "reason FD-CL01 ", 15), 0);   /* then the code's summary */

	/* toggling the same breakpoint removes it */
	assert_false(vs_bp_toggle(&b, &code));
	assert_int_equal(b.n, 0);

	/* FD-NM01 stops at real type failures only: never at a direct-form check that
	 * Swish's canonical form made good (explain_superseded_by) */
	vs_breakpoint nm01 = { .kind = BP_REASON, .reason = REASON_NM01_TYPE };
	vs_bp_toggle(&b, &nm01);
	size_t superseded = 0, stops = 0;
	for (uint32_t at = 0, was = 0;; was = at) {
		at = move(&b, at, STEP_CONTINUE, &moved);
		if (!moved || at <= was)
			break;
		stops++;
		assert_int_equal(explain_superseded_by(r, at), UINT32_MAX);
	}
	for (uint32_t i = 0; i < t->n_events; i++)
		superseded += explain_superseded_by(r, i) != UINT32_MAX;
	assert_true(superseded > 0 && stops > 0);
	fd_event_text tx;
	for (uint32_t i = 0; i < t->n_events; i++)
		if (explain_superseded_by(r, i) != UINT32_MAX) {
			explain_event(r, i, &tx);
			assert_int_equal(tx.status, ST_INFO);
			assert_true(tx.superseded);
			assert_int_equal(strncmp(tx.reason, "direct form absent, canonical form matched: ", 44), 0);
			break;
		}
	vs_bp_remove(&b, 0);

	/* a rule stops at its start and each attempt; a node where an attempt reaches it */
	int32_t ri = ruleset_find(session_rules(&S), "Conv_Add_Residual_Fusion");
	assert_true(ri >= 0);
	vs_breakpoint rule = { .kind = BP_RULE, .rule = ri };
	vs_bp_toggle(&b, &rule);
	uint32_t e = move(&b, 0, STEP_CONTINUE, &moved);
	assert_true(moved);
	assert_int_equal(trace_event(t, e).rule, ri);
	assert_true(trace_event(t, e).kind == EV_RULE || trace_event(t, e).kind == EV_ANCHOR);
	assert_string_equal(vs_bp_describe(&rule, r, buf, sizeof buf), "rule Conv_Add_Residual_Fusion");
	vs_bp_remove(&b, 0);

	int32_t add2 = graph_find_node(&session_model(&S)->graphs[0], "add2");
	vs_breakpoint node = { .kind = BP_NODE, .graph = 0, .node = add2 };
	vs_bp_toggle(&b, &node);
	e = move(&b, 0, STEP_CONTINUE, &moved);
	assert_true(moved);
	assert_true(vs_event_touches(r, e, 0, add2));
	assert_int_equal(trace_event(t, e).kind, EV_TYPE);             /* add2 is reached as op1, never an anchor */
	assert_string_equal(vs_bp_describe(&node, r, buf, sizeof buf), "node add2");
	vs_bp_release(&b);
}

static void test_why_not(void **state)
{
	const fd_match_result *r = session_result(&S);
	const fd_trace *t = &r->trace;
	const fd_graph *g = &session_model(&S)->graphs[0];
	int32_t conv1 = graph_find_node(g, "conv1");
	int32_t residual = ruleset_find(session_rules(&S), "Conv_Add_Residual_Fusion");
	int32_t bn = ruleset_find(session_rules(&S), "Conv_BN_Relu_Fusion");
	int32_t qkv = ruleset_find(session_rules(&S), "Attention_QKV_Fusion");

	uint32_t a = vs_why_not(r, residual, 0, conv1);
	assert_int_not_equal(a, UINT32_MAX);
	assert_int_equal(t->attempts[a].rung, RUNG_CONFLICT);
	uint32_t ev = vs_attempt_focus(t, a);
	assert_int_equal(trace_event(t, ev).kind, EV_CONFLICT);   /* lands on the deciding check */

	a = vs_why_not(r, bn, 0, conv1);
	assert_int_equal(t->attempts[a].reason, REASON_NM01_TYPE);
	ev = vs_attempt_focus(t, a);
	fd_event_text tx;
	explain_event(r, ev, &tx);
	assert_string_equal(tx.expected, "BatchNorm");
	assert_string_equal(tx.actual, "Add");
	assert_true(tx.where.line > 0);                      /* the rule's file:line */

	/* all rules: the one that got furthest without firing */
	a = vs_why_not(r, -1, 0, conv1);
	assert_int_not_equal(a, UINT32_MAX);
	assert_int_not_equal(t->attempts[a].rung, RUNG_FIRED);
	assert_int_equal(t->attempts[a].rung, RUNG_CONFLICT);

	/* a rule with no attempt near the node */
	assert_int_equal(vs_why_not(r, qkv, 0, conv1), UINT32_MAX);
}

/* The resolver behind vs_why_not and `fusiondbg why`: each kind of answer. */
static void test_explain_why(void **state)
{
	const fd_match_result *r = session_result(&S);
	const fd_trace *t = &r->trace;
	const fd_graph *g = &session_model(&S)->graphs[0];
	int32_t conv1 = graph_find_node(g, "conv1"), add1 = graph_find_node(g, "add1");
	int32_t residual = ruleset_find(session_rules(&S), "Conv_Add_Residual_Fusion");
	int32_t silu = ruleset_find(session_rules(&S), "Conv_Add_SiLU_Fusion");
	int32_t qkv = ruleset_find(session_rules(&S), "Attention_QKV_Fusion");
	fd_why w;

	explain_why(r, residual, 0, conv1, &w);
	assert_int_equal(w.kind, WHY_ATTEMPT);
	assert_int_equal(w.attempt, vs_why_not(r, residual, 0, conv1));
	assert_int_equal(w.decisive, t->attempts[w.attempt].decisive);
	assert_false(w.fired);
	assert_non_null(strstr(w.line, "why: Conv_Add_Residual_Fusion did not fire on conv1 (Conv): conflict"));

	/* a member of the rule's fusion that is not its anchor: the fusion answers */
	explain_why(r, silu, 0, add1, &w);
	assert_int_equal(w.kind, WHY_FUSED);
	assert_true(w.fired);
	assert_int_equal(w.attempt, (uint32_t)r->fusions[w.fusion].attempt);
	assert_non_null(strstr(w.line, "fires on add1 (Add): part of the fusion at conv1 (Conv)"));

	explain_why(r, qkv, 0, conv1, &w);
	assert_int_equal(w.kind, WHY_UNREACHED);
	assert_int_equal(w.attempt, UINT32_MAX);
	assert_non_null(strstr(w.line, "no attempt of this rule reached the node [FD-NM01]"));
}

/* ---- names cut to their tail -------------------------------------------- */

/* Columns of a string, one a byte but for the ellipsis: enough for ASCII names. */
static int ascii_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void test_cut_name_tail(void **state)
{
	(void)state;
	char out[128];
	/* a scoped name keeps its tail, from a scope when one is near */
	assert_true(vs_cut_name_tail("/encoder/layer.0/attention/self/query/MatMul", 30, "…", ascii_width, out,
	                             sizeof out));
	assert_string_equal(out, "…/attention/self/query/MatMul");
	assert_true(vs_cut_name_tail("/features/features.1/features.1.0/Add", 20, "…", ascii_width, out, sizeof out));
	assert_string_equal(out, "…/features.1.0/Add");
	/* no scope near: the longest tail that fits */
	assert_true(vs_cut_name_tail("/a/abcdefghijklmnopqrstuvwxyz", 12, "…", ascii_width, out, sizeof out));
	assert_string_equal(out, "…pqrstuvwxyz");
	/* a name that fits, or one without a scope, is left to the caller */
	strcpy(out, "untouched");
	assert_false(vs_cut_name_tail("/conv1/Conv", 30, "…", ascii_width, out, sizeof out));
	assert_false(vs_cut_name_tail("onnx::MatMul_encoder_layer_0_attention_self_value", 20, "…", ascii_width, out,
	                              sizeof out));
	assert_false(vs_cut_name_tail("/Conv_with_a_very_long_name_and_no_scope", 20, "…", ascii_width, out, sizeof out));
	assert_string_equal(out, "untouched");
}

/* After a what-if edit the stepper reads the new trace. */
static void test_stepper_after_edit(void **state)
{
	int32_t residual = ruleset_find(session_rules(&S), "Conv_Add_Residual_Fusion");
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_bump_priority(&S, residual, 20, &d), 0);
	const fd_match_result *r = session_result(&S);
	bool moved;
	uint32_t f = vs_stepper_move(r, NULL, 0, STEP_NEXT_FIRE, &moved);
	assert_true(moved);
	assert_int_equal(trace_event(&r->trace, f).rule, residual);   /* now it runs first and fires */
	const fd_graph *g = &session_model(&S)->graphs[0];
	uint32_t a = vs_why_not(r, residual, 0, graph_find_node(g, "conv1"));
	assert_int_equal(r->trace.attempts[a].rung, RUNG_FIRED);
	assert_int_equal(session_undo(&S, &d), 0);
	diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_list_moves),
		cmocka_unit_test(test_list_goto_scroll_click),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_cut_name_tail),
	};
	const struct CMUnitTest traced[] = {
		cmocka_unit_test(test_graph_rows),
		cmocka_unit_test(test_stepper_events_and_ends),
		cmocka_unit_test(test_stepper_attempts),
		cmocka_unit_test(test_stepper_fire_failure),
		cmocka_unit_test(test_breakpoints),
		cmocka_unit_test(test_why_not),
		cmocka_unit_test(test_explain_why),
		cmocka_unit_test(test_stepper_after_edit),
	};
	int failed = cmocka_run_group_tests_name("view_state", pure, NULL, NULL);
	failed += cmocka_run_group_tests_name("view_state on a trace", traced, open_session, close_session);
	return failed ? 1 : 0;
}
