/* test_lang.c — the rule language beyond the seed: where expressions parsed
 * (precedence, errors at their byte) and evaluated on real nodes (params,
 * shapes, unknown values, float tolerance, the words of a failure); each new
 * reason code decided where tests/tools/make_lang_models.py's models say;
 * the 33rd alternative of a rule fires (there was a silent cap at 32); an
 * optional op absent in the fusion's units; the outputs field that decided
 * named by the check (its what-if path, words and place); arithmetic exact
 * or a fault (FD-NM18 at the part's character), the lists' budget, constant
 * faults and literals out of range found as the rule is read; vec_grow
 * never wraps; an op linked by same_as or a graph input found where it
 * reads; qdq_dtype decided where onnxruntime converts an int8 pair, and
 * its words where it does not; same_value_as on a Q after a Reshape; a
 * dtype tied to another tensor, a dim repeated to any rank and the outputs
 * a node declares, each deciding with its words and what-if path; a group
 * of sibling Slices fused whole, and refused for each way its cover fails;
 * a group whose members each have their own Q; opJ.NAME, qmin, qmax and
 * float32 in onnxruntime's ClipQuantFusion, with NaN and values past
 * float's range. Run from
 * the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "explain/explain.h"
#include "match/match.h"
#include "onnx/onnx.h"
#include "rounds/rounds.h"
#include "rules/rule_expr.h"
#include "ruleset/rule_format.h"
#include "ruleset/ruleset.h"
#include "base/vec.h"

typedef struct run {
	fd_model m;
	fd_ruleset rs;
	fd_match_ctx ctx;
	fd_match_result r;
} run;

static void run_open(run *x, const char *model, const char *rules)
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
	assert_int_equal(match_run(&x->ctx, &x->rs, NULL, &x->r), 0);
}

static void run_close(run *x)
{
	match_result_release(&x->r);
	match_ctx_release(&x->ctx);
	ruleset_release(&x->rs);
	model_release(&x->m);
}

static int32_t node_id(run *x, const char *name)
{
	int32_t n = graph_find_node(&x->m.graphs[0], name);
	assert_true(n >= 0);
	return n;
}

static const fd_attempt *attempt_of(run *x, const char *rule, const char *node)
{
	int32_t ri = ruleset_find(&x->rs, rule);
	assert_true(ri >= 0);
	uint32_t a = explain_find_attempt(&x->r, ri, 0, node_id(x, node));
	assert_true(a != UINT32_MAX);
	return &x->r.trace.attempts[a];
}

/* ---- parsing -------------------------------------------------------------------- */

static void parse_error(const char *text, size_t at, const char *msg)
{
	fd_arena a;
	arena_init(&a);
	size_t err_at = 999;
	char err[200];
	fd_expr *e = expr_parse(&a, text, &err_at, err, sizeof err);
	if (e || err_at != at || !strstr(err, msg))
		fprintf(stderr, "%s: got %s at %zu: %s\n", text, e ? "a tree" : "an error", err_at, err);
	assert_null(e);
	assert_int_equal(err_at, at);
	assert_non_null(strstr(err, msg));
	arena_release(&a);
}

static void test_parse(void **state)
{
	(void)state;
	fd_arena a;
	arena_init(&a);
	size_t at;
	char err[200];
	/* precedence: || loosest, then &&, compare, +, * */
	fd_expr *e = expr_parse(&a, "a || b && c == 1 + 2 * 3", &at, err, sizeof err);
	assert_non_null(e);
	assert_int_equal(e->kind, EX_BINARY);
	assert_int_equal(e->op, XO_OR);
	const fd_expr *and = e->args[1];
	assert_int_equal(and->op, XO_AND);
	const fd_expr *eq = and->args[1];
	assert_int_equal(eq->op, XO_EQ);
	assert_int_equal(eq->args[1]->op, XO_ADD);
	assert_int_equal(eq->args[1]->args[1]->op, XO_MUL);
	int len;
	const char *t = expr_text(eq, &len);
	assert_int_equal(len, (int)strlen("c == 1 + 2 * 3"));
	assert_memory_equal(t, "c == 1 + 2 * 3", (size_t)len);
	/* slices, negative literals, calls, not in, strings */
	e = expr_parse(&a, "perm[:-2] == range(rank - 2) && mode not in ['edge', \"reflect\"]", &at, err, sizeof err);
	assert_non_null(e);
	assert_int_equal(e->args[0]->args[0]->kind, EX_SLICE);
	assert_null(e->args[0]->args[0]->args[1]);
	assert_int_equal(e->args[0]->args[0]->args[2]->i, -2);
	assert_int_equal(e->args[1]->op, XO_NOT_IN);
	e = expr_parse(&a, "input12", &at, err, sizeof err);
	assert_int_equal(e->tensor, 'i');
	assert_int_equal(e->i, 12);
	arena_release(&a);
	parse_error("perm[-1] = 2", 9, "'=' is not a comparison");
	parse_error("a & b", 2, "'&' is not an operator; write '&&'");
	parse_error("(a == 1", 7, "expected ')'");
	parse_error("perm[1", 6, "expected ']'");
	parse_error("lenn(x)", 0, "unknown function 'lenn'");
	parse_error("dim(input0)", 0, "dim() takes 2 arguments, got 1");
	parse_error("'abc", 0, "string not closed");
	parse_error("1.2.3 == x", 0, "malformed number");
	parse_error("a ==", 4, "expected a value, got the end");
	parse_error("a b", 2, "unexpected 'b'");
	char deep[300] = "";
	for (int i = 0; i < 70; i++)
		strcat(deep, "(");
	parse_error(deep, 64, "nested more than 64 deep");
}

/* ---- evaluation on nodes ------------------------------------------------------------- */

/* text evaluated on node of the main graph; ops: the units of earlier
 * pattern ops that opJ.NAME reads (NULL: none). */
static int eval_ops(run *x, const char *node, const char *type, const fd_where_ops *ops, const char *text, char *words,
                    size_t size)
{
	fd_arena a;
	arena_init(&a);
	size_t at;
	char err[200];
	fd_expr *e = expr_parse(&a, text, &at, err, sizeof err);
	assert_non_null(e);
	int r = match_where_eval(&x->ctx, 0, node_id(x, node), optable_lookup(type), ops, e, words, size, NULL);
	arena_release(&a);
	return r;
}

static int eval(run *x, const char *node, const char *type, const char *text, char *words, size_t size)
{
	return eval_ops(x, node, type, NULL, text, words, size);
}

/* outer(t): a body's value of the enclosing graph. In the VAD export's If
 * branches the LSTM state's Gathers read the main graph's input `state`,
 * the STFT's Slices the branch's own Conv. */
static void test_eval_outer(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/torch/torch_vad_opset16.onnx", "rules/onnxruntime");
	int32_t g = -1, gather = -1, slice = -1;
	for (int32_t k = 1; k < x.m.n_graphs && g < 0; k++)
		if ((gather = graph_find_node(&x.m.graphs[k], "/at16k/Gather_1")) >= 0)
			g = k;
	assert_true(g > 0);
	slice = graph_find_node(&x.m.graphs[g], "/at16k/Slice_2");
	assert_true(slice >= 0);
	fd_arena a;
	arena_init(&a);
	size_t at;
	char err[200], w[256];
	fd_expr *e = expr_parse(&a, "outer(input0)", &at, err, sizeof err);
	assert_non_null(e);
	assert_int_equal(match_where_eval(&x.ctx, g, gather, optable_lookup("Gather"), NULL, e, w, sizeof w, NULL), 1);
	assert_int_equal(match_where_eval(&x.ctx, g, slice, optable_lookup("Slice"), NULL, e, w, sizeof w, NULL), 0);
	assert_string_equal(w, "outer(input0) is false");
	arena_release(&a);
	run_close(&x);
}

static void test_eval(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/transpose_matmul.onnx", "tests/data/lang/transpose_matmul.yaml");
	char w[256];
	const char *swap = "perm[:-2] == range(rank - 2) && perm[-2:] == [rank - 1, rank - 2]";
	assert_int_equal(eval(&x, "t4", "Transpose", swap, w, sizeof w), 1);
	assert_int_equal(eval(&x, "t2", "Transpose", swap, w, sizeof w), 1);
	assert_int_equal(eval(&x, "tattn", "Transpose", swap, w, sizeof w), 0);
	assert_string_equal(w, "perm[:-2] == range(rank - 2) is false: perm[:-2] is [0, 2]; range(rank - 2) is [0, 1]");
	/* perm absent: null; slicing it is undecided, and false && undecided is false */
	assert_int_equal(eval(&x, "tnoperm", "Transpose", swap, w, sizeof w), -1);
	assert_non_null(strstr(w, "slicing null"));
	assert_int_equal(eval(&x, "tnoperm", "Transpose", "perm == null", w, sizeof w), 1);
	assert_int_equal(eval(&x, "tnoperm", "Transpose", "rank == 3 && perm[0] == 1", w, sizeof w), 0);
	assert_int_equal(eval(&x, "tnoperm", "Transpose", "rank == 2 || perm[0] == 1", w, sizeof w), 1);
	/* shapes, dtypes, functions, arithmetic */
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "shape(input1) == [2, 3, 4, 6] && dim(input0, -1) == 4", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "dtype(input1) in ['float32', 'float16']", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "len(shape(output0)) == rank && consumers(input0) == 1", w, sizeof w), 1);
	/* the producer's op type; a graph input and an initializer have none */
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "producer(input0) == 'Transpose' && producer(input1) == null", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4", "Transpose", "producer(input0) != null", w, sizeof w), 0);
	assert_string_equal(w, "producer(input0) is null");
	/* the readers' op types; the model's opset of the node's domain */
	assert_int_equal(eval(&x, "t4", "Transpose", "readers(output0) == ['MatMul'] && readers(input0) == ['Transpose']", w,
	                      sizeof w), 1);
	assert_int_equal(eval(&x, "t4", "Transpose", "opset == 13 && opset < 17", w, sizeof w), 1);
	/* the op's version at that opset: Transpose's are 1 and 13, MatMul's 1, 9 and 13 */
	assert_int_equal(eval(&x, "t4", "Transpose", "since_version == 13", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "since_version in [1, 9]", w, sizeof w), 0);
	assert_string_equal(w, "since_version is 13");
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "7 / 2 == 3.5 && 6 / 2 == 3 && -7 % 3 == 2 && max([1, 9, 4]) == 9", w,
	                      sizeof w), 1);
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "sorted([3, 1, 2]) == [1, 2, 3] && [1] + [2] == [1, 2]", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4", "Transpose", "attr('perm') == [0, 1, 3, 2] && attr('nope') == null", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4", "Transpose", "perm[9] == 1", w, sizeof w), -1);
	assert_non_null(strstr(w, "index 9 is out of range (4 items)"));
	assert_int_equal(eval(&x, "t4", "Transpose", "perm < 3", w, sizeof w), -1);
	assert_non_null(strstr(w, "compares numbers or strings"));
	/* the node's own type and domain ('' for ONNX's), not the op table's */
	assert_int_equal(eval(&x, "t4_mm", "MatMul", "op_type == 'MatMul' && domain == ''", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4", "Transpose", "op_type in ['MatMul', 'FusedMatMul']", w, sizeof w), 0);
	assert_string_equal(w, "op_type is 'Transpose'");
	/* a passing expression's words are the values it read */
	assert_int_equal(eval(&x, "t3", "Transpose", "perm == [0, 2, 1]", w, sizeof w), 1);
	assert_string_equal(w, "perm is [0, 2, 1]");
	run_close(&x);
	/* floats compare with the params' tolerance: LeakyRelu alpha 0.1 is float32 0.100000001 */
	run_open(&x, "tests/data/lang/conv_fold.onnx", "tests/data/lang/conv_fold.yaml");
	assert_int_equal(eval(&x, "lrelu9", "LeakyRelu", "alpha == 0.1 && alpha <= 0.1 && alpha > 0.0999", w, sizeof w), 1);
	/* a symbolic dim is unknown to shape() */
	run_close(&x);
	run_open(&x, "tests/data/lang/operands.onnx", "tests/data/lang/operands.yaml");
	assert_int_equal(eval(&x, "mm1", "MatMul", "shape(input0)[1] == 8", w, sizeof w), -1);
	assert_non_null(strstr(w, "dim 0 of input0 is batch"));
	assert_int_equal(eval(&x, "mm1", "MatMul", "rank(input0) == 3 && dim(input0, 1) == 8", w, sizeof w), 1);
	/* known(): what this run cannot know is false, not undecided */
	assert_int_equal(eval(&x, "mm1", "MatMul", "!known(shape(input0)) && known(rank(input0))", w, sizeof w), 1);
	assert_int_equal(eval(&x, "mm1", "MatMul", "known(dim(input0, 1)) && known(dim(input0, 0))", w, sizeof w), 0);
	assert_int_equal(eval(&x, "mm1", "MatMul", "known(dim(input0, 9))", w, sizeof w), -1);   /* an error stays one */
	assert_int_equal(eval(&x, "div1", "Div", "value(input1) > 1.414 && value(input1) < 1.415", w, sizeof w), 1);
	/* a node's members are its own type */
	assert_int_equal(eval(&x, "div1", "Div", "members == ['Div'] && op_type == 'Div'", w, sizeof w), 1);
	/* a node has no recogniser */
	assert_int_equal(eval(&x, "div1", "Div", "recogniser == null", w, sizeof w), 1);
	run_close(&x);
	/* a decomposed form's members are its nodes' types, in order; it has no op_type */
	run_open(&x, "samples/layernorm_decomposed.onnx", "tests/data/lang/conv_fold.yaml");
	fd_arena a;
	arena_init(&a);
	size_t at;
	char err[200];
	fd_expr *e = expr_parse(&a, "'Pow' in members && members[0] == 'ReduceMean' && len(members) == 9 && op_type == null"
	                        " && recogniser == 'layernorm'", &at, err, sizeof err);
	assert_non_null(e);
	const fd_graph_index *ix = &x.ctx.graphs[0];
	assert_true(ix->canon.n > 0);
	assert_int_equal(match_where_eval(&x.ctx, 0, ix->g->n_nodes, optable_lookup("LayerNorm"), NULL, e, w, sizeof w, NULL), 1);
	arena_release(&a);
	run_close(&x);
}

/* ---- arithmetic exact or a fault, lists bounded -------------------------------------- */

/* text on node t4 of transpose_matmul (perm [0, 1, 3, 2], rank 4) cannot be
 * evaluated, told in those words and at byte at. */
static void faults(run *x, const char *text, const char *words, int32_t at)
{
	fd_arena a;
	arena_init(&a);
	size_t err_at;
	char err[200], w[256];
	fd_expr *e = expr_parse(&a, text, &err_at, err, sizeof err);
	assert_non_null(e);
	int32_t got_at = -7;
	int r = match_where_eval(&x->ctx, 0, node_id(x, "t4"), optable_lookup("Transpose"), NULL, e, w, sizeof w, &got_at);
	if (r != -2 || strcmp(w, words) || got_at != at)
		fprintf(stderr, "%s: %d, at %d: %s\n", text, r, got_at, w);
	assert_int_equal(r, -2);
	assert_string_equal(w, words);
	assert_int_equal(got_at, at);
	/* the condition is not true: the check says FD-NM18 */
	arena_release(&a);
}

/* text's constant part faults when the rule is read: at byte at, in words. */
static void constant_fault(const char *text, size_t at, const char *words)
{
	fd_arena a;
	arena_init(&a);
	size_t err_at = 999, got = 999;
	char err[200], w[200];
	fd_expr *e = expr_parse(&a, text, &err_at, err, sizeof err);
	assert_non_null(e);
	bool f = match_where_constant_fault(e, &got, w, sizeof w);
	if (!f || got != at || strcmp(w, words))
		fprintf(stderr, "%s: %s at %zu: %s\n", text, f ? "faults" : "no fault", got, f ? w : "");
	assert_true(f);
	assert_int_equal(got, at);
	assert_string_equal(w, words);
	arena_release(&a);
}

static void test_exact_arithmetic(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/transpose_matmul.onnx", "tests/data/lang/transpose_matmul.yaml");
	char w[256];
	/* INT64_MIN % -1 is 0 (C traps on it); the sign of a remainder is the divisor's */
	assert_int_equal(eval(&x, "t4", "Transpose", "(-9223372036854775807 - 1) % -1 == 0", w, sizeof w), 1);
	assert_int_equal(eval(&x, "t4", "Transpose", "(rank - 4 - 9223372036854775807 - 1) % -1 == 0 && "
	                      "-7 % 3 == 2 && 7 % -3 == -2 && 9223372036854775807 / -1 == -9223372036854775807", w, sizeof w), 1);
	/* SIGFPE before: INT64_MIN / -1 */
	faults(&x, "(rank - 4 - 9223372036854775807 - 1) / -1 > 0",
	       "cannot be evaluated at character 1: (rank - 4 - 9223372036854775807 - 1) / -1 overflows the 64-bit integers", 0);
	/* wrapped before: 9223372036854775807 + 1 < 0 held */
	faults(&x, "9223372036854775807 + rank < 0",
	       "cannot be evaluated at character 1: 9223372036854775807 + rank overflows the 64-bit integers", 0);
	faults(&x, "rank == 4 && perm[-1] * 9223372036854775807 > 0",
	       "cannot be evaluated at character 14: perm[-1] * 9223372036854775807 overflows the 64-bit integers", 13);
	faults(&x, "rank - 6 - 9223372036854775807 < 0",
	       "cannot be evaluated at character 1: rank - 6 - 9223372036854775807 overflows the 64-bit integers", 0);
	faults(&x, "-(rank - 4 - 9223372036854775807 - 1) > 0",
	       "cannot be evaluated at character 1: -(rank - 4 - 9223372036854775807 - 1) overflows the 64-bit integers", 0);
	faults(&x, "abs(rank - 4 - 9223372036854775807 - 1) > 0",
	       "cannot be evaluated at character 1: abs(rank - 4 - 9223372036854775807 - 1) overflows the 64-bit integers", 0);
	faults(&x, "rank * 1e308 > 0", "cannot be evaluated at character 1: rank * 1e308 overflows the floating-point numbers", 0);
	faults(&x, "perm[0] / 0 == 1", "cannot be evaluated at character 1: perm[0] / 0 divides by zero", 0);
	faults(&x, "rank % perm[0] == 1", "cannot be evaluated at character 1: rank % perm[0] divides by zero", 0);
	/* a fault ends the evaluation: true || does not hide one that came first */
	faults(&x, "perm[0] / 0 == 1 || true", "cannot be evaluated at character 1: perm[0] / 0 divides by zero", 0);
	assert_int_equal(eval(&x, "t4", "Transpose", "rank == 3 && perm[0] / 0 == 1", w, sizeof w), 0);
	/* range() and lists: one budget for all the lists of an evaluation */
	assert_int_equal(eval(&x, "t4", "Transpose", "len(range(rank * 2048)) == 8192", w, sizeof w), 1);
	faults(&x, "len(range(rank * 2048) + range(rank)) > 0",
	       "cannot be evaluated at character 26: range(rank) would build more than 8192 list items in one evaluation "
	       "(the budget)", 25);
	/* SIGSEGV before (the count wrapped); a loop for ever in vec_grow before */
	faults(&x, "len(range(rank - 4 - 9223372036854775807 - 1, 9223372036854775807)) > 0",
	       "cannot be evaluated at character 5: range(rank - 4 - 9223372036854775807 - 1, 9223372036854775807) would "
	       "build more than 8192 list items in one evaluation (the budget)", 4);
	faults(&x, "len(range(rank - 4 - 9223372036854775807 - 1, 1)) > 0",
	       "cannot be evaluated at character 5: range(rank - 4 - 9223372036854775807 - 1, 1) would build more than "
	       "8192 list items in one evaluation (the budget)", 4);
	/* 1 GB and 1.5 s per node before */
	faults(&x, "len(range(rank * 262144) + range(1048576) + range(1048576) + range(1048576) + range(1048576) + "
	       "range(1048576) + range(1048576)) > 0",
	       "cannot be evaluated at character 5: range(rank * 262144) would build more than 8192 list items in one "
	       "evaluation (the budget)", 4);
	/* the words of a fault become the where condition's facts, FD-NM18 */
	run_close(&x);
	/* constant parts fault as the rule is read */
	constant_fault("(-9223372036854775807 - 1) / -1 > 0", 0,
	               "(-9223372036854775807 - 1) / -1 overflows the 64-bit integers");
	constant_fault("9223372036854775807 + 1 < 0", 0, "9223372036854775807 + 1 overflows the 64-bit integers");
	constant_fault("rank > 0 && len(range(-9223372036854775807 - 1, 9223372036854775807)) > 0", 16,
	               "range(-9223372036854775807 - 1, 9223372036854775807) would build more than 8192 list items in one "
	               "evaluation (the budget)");
	constant_fault("len(range(1048576) + range(1048576) + range(1048576) + range(1048576) + range(1048576) + "
	               "range(1048576) + range(1048576)) > 0", 4,
	               "range(1048576) would build more than 8192 list items in one evaluation (the budget)");
	constant_fault("perm[0] == 1 % 0", 11, "1 % 0 divides by zero");
	fd_arena a;
	arena_init(&a);
	size_t at;
	char err[200];
	fd_expr *e = expr_parse(&a, "perm[0] / rank == 9223372036854775807 - 1", &at, err, sizeof err);
	assert_false(match_where_constant_fault(e, &at, err, sizeof err));
	arena_release(&a);
	/* a literal beyond int64 was clamped: 99999999999999999999 == 9223372036854775807 held */
	parse_error("99999999999999999999 == 9223372036854775807", 0,
	            "99999999999999999999 is out of range (integers are 64-bit: -9223372036854775807 - 1 .. 9223372036854775807)");
	parse_error("rank > -9223372036854775808", 8, "9223372036854775808 is out of range");
	parse_error("0x1ffffffffffffffff > 0", 0, "0x1ffffffffffffffff is out of range");
	parse_error("alpha < 1e999", 8, "1e999 is out of range (beyond the floating-point numbers)");
	/* a chain of operators nests: evaluating it never recurses deeper than the limit */
	char chain[400] = "1";
	for (int i = 0; i < 70; i++)
		strcat(chain, "+1");
	parse_error(chain, 128, "nested more than 64 deep");
	char subs[400] = "perm";
	for (int i = 0; i < 70; i++)
		strcat(subs, "[0]");
	parse_error(subs, 194, "nested more than 64 deep");
}

/* FD-NM18 in a run: the event's words and its place, the character of the
 * part that could not be evaluated. */
static void test_eval_fault_event(void **state)
{
	(void)state;
	char path[] = "/tmp/fd_test_nm18_XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "name: Overflow\npriority: 1\nmatch:\n  ops:\n    - type: Transpose\n"
	        "      where: \"rank == 4 && perm[-1] * 9223372036854775807 > 0\"\n"
	        "    - type: MatMul\n      input_sources:\n        input0: {from_op: 0}\nrewrite:\n  target_op: T\n");
	fclose(f);
	run x;
	run_open(&x, "tests/data/lang/transpose_matmul.onnx", path);
	const fd_attempt *a = attempt_of(&x, "Overflow", "t4");
	assert_int_equal(a->reason, REASON_NM18_WHERE_EVAL);
	fd_event_text tx;
	explain_event(&x.r, a->decisive, &tx);
	assert_string_equal(tx.reason, "cannot be evaluated at character 14: perm[-1] * 9223372036854775807 overflows the "
	                    "64-bit integers");
	assert_string_equal(tx.actual, "not evaluated");
	assert_int_equal(tx.where.line, 6);
	assert_int_equal(tx.where.col, (int)strlen("      where: \"rank == 4 && ") + 1);
	/* t2's perm is [1, 0]: 0 * 9223372036854775807 is exact, the where is false (FD-NM16) */
	assert_int_equal(attempt_of(&x, "Overflow", "t2")->reason, REASON_NM16_WHERE);
	run_close(&x);
	unlink(path);
}

/* A capacity that would wrap is out of memory, never a loop or a wrap. */
static jmp_buf oom_jump;
static size_t oom_wanted;
static void oom_here(size_t wanted)
{
	oom_wanted = wanted;
	longjmp(oom_jump, 1);
}

static void test_vec_grow_wrap(void **state)
{
	(void)state;
	void (*saved)(size_t) = fd_oom;
	VEC(int64_t) v = { 0 };
	vec_push(&v, 1);
	fd_oom = oom_here;
	if (!setjmp(oom_jump)) {
		vec_grow(&v, SIZE_MAX / 4);
		fd_oom = saved;
		fail_msg("vec_grow(SIZE_MAX / 4 items of 8 bytes) returned");
	}
	fd_oom = saved;
	assert_int_equal(oom_wanted, SIZE_MAX);
	assert_int_equal(v.cap, 8);
	vec_grow(&v, 100);
	assert_int_equal(v.cap, 128);
	vec_release(&v);
}

/* ---- each code where the models say ----------------------------------------------------- */

typedef struct code_case {
	const char *model, *rule, *node;
	fd_reason reason;
} code_case;

static void test_codes(void **state)
{
	(void)state;
	static const code_case cases[] = {
		{ "conv_fold", "Conv_Fold_Act", "conv8", REASON_NM07_TYPE_LIST },
		{ "operands", "MatMul_Add_Gemm", "mm3", REASON_NM08_RANK },
		{ "conv_fold", "Conv_Fold_Act", "conv5", REASON_NM09_SHAPE },
		{ "operands", "MatMul_Add_Gemm", "mm1", REASON_NM10_STATIC },
		{ "operands", "Div_Erf", "div3", REASON_NM11_DTYPE },
		{ "quickgelu", "QuickGelu", "sig2", REASON_NM12_SAME_AS },
		{ "conv_fold", "Conv_Fold_Act", "conv7", REASON_NM13_OPTIONAL_INPUT },
		{ "conv_fold", "Conv_Fold_Act", "conv4", REASON_NM14_POSITION },
		{ "graph_out", "Add_Tanh", "add1", REASON_NM15_OUTPUT },
		{ "transpose_matmul", "MatMul_Transpose_Fold", "tattn", REASON_NM16_WHERE },
		{ "operands", "Div_Erf", "div2", REASON_NM17_VALUE },
		{ "conv_fold", "Conv_Fold_Act", "conv2", REASON_OK_FIRED },
		{ "quickgelu", "QuickGelu", "sig1", REASON_OK_FIRED },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const code_case *c = &cases[i];
		char model[128], rules[128];
		snprintf(model, sizeof model, "tests/data/lang/%s.onnx", c->model);
		snprintf(rules, sizeof rules, "tests/data/lang/%s.yaml", c->model);
		run x;
		run_open(&x, model, rules);
		const fd_attempt *a = attempt_of(&x, c->rule, c->node);
		if (a->reason != c->reason)
			fprintf(stderr, "%s on %s: %s, want %s\n", c->rule, c->node, reason_code((fd_reason)a->reason),
			        reason_code(c->reason));
		assert_int_equal(a->reason, c->reason);
		assert_true(a->decisive != UINT32_MAX);
		run_close(&x);
	}
}

/* position: either: Sub(mean, x) matches a rule written Sub(x, mean) — an op
 * that is not commutative tried swapped — and without it does not. */
static void test_position_either(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/position_either.onnx", "tests/data/lang/position_either.yaml");
	assert_int_equal(attempt_of(&x, "Sub_Mean_Either", "rm1")->reason, REASON_OK_FIRED);
	assert_int_equal(attempt_of(&x, "Sub_Mean_Either", "rm2")->reason, REASON_OK_FIRED);
	char why[512];
	uint32_t a = explain_find_attempt(&x.r, ruleset_find(&x.rs, "Sub_Mean_Either"), 0, node_id(&x, "rm2"));
	explain_why_line(&x.r, a, why, sizeof why);
	assert_non_null(strstr(why, "fires on rm2"));
	run_close(&x);
	run_open(&x, "tests/data/lang/position_either.onnx", "tests/data/lang/position_written.yaml");
	assert_int_equal(attempt_of(&x, "Sub_Mean_As_Written", "rm1")->reason, REASON_OK_FIRED);
	assert_int_not_equal(attempt_of(&x, "Sub_Mean_As_Written", "rm2")->reason, REASON_OK_FIRED);
	run_close(&x);
}

/* An op linked by what it reads: the Tanh found among the readers of the
 * tensor its same_as names (not the Sigmoid's consumers), a Tanh of another
 * tensor refused by same_as; an op whose source is a graph input found
 * among the graph inputs' readers. */
static void test_linked_by_input(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/siblings.onnx", "tests/data/lang/linked_by_input.yaml");
	assert_int_equal(attempt_of(&x, "SigTanh_Same_Input", "sig1")->reason, REASON_OK_FIRED);
	assert_int_equal(x.r.n_fusions, 1);
	assert_int_equal(match_fusion_unit(&x.r, &x.r.fusions[0], 1), node_id(&x, "tanh1"));
	assert_int_equal(match_fusion_unit(&x.r, &x.r.fusions[0], 2), node_id(&x, "mul1"));
	assert_int_not_equal(attempt_of(&x, "SigTanh_Same_Input", "sig2")->reason, REASON_OK_FIRED);
	run_close(&x);
	char path[] = "/tmp/fd_test_param_link_XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "name: Sig_Tanh_Input\npriority: 1\nmatch:\n  ops:\n    - type: Sigmoid\n    - type: Tanh\n"
	        "      input_sources:\n        input0: {source_type: param}\n    - type: Mul\n      input_sources:\n"
	        "        input0: {from_op: 0}\n        input1: {from_op: 1}\nrewrite:\n  target_op: T\n");
	fclose(f);
	run_open(&x, "tests/data/lang/siblings.onnx", path);
	assert_int_equal(attempt_of(&x, "Sig_Tanh_Input", "sig2")->reason, REASON_OK_FIRED);
	assert_int_equal(match_fusion_unit(&x.r, &x.r.fusions[0], 1), node_id(&x, "tanh2"));
	assert_int_not_equal(attempt_of(&x, "Sig_Tanh_Input", "sig1")->reason, REASON_OK_FIRED);
	run_close(&x);
	unlink(path);
}

/* A rule of one op of outputs conditions, on graph_out.onnx, in a file of its own. */
static void run_outputs(run *x, const char *outputs, char *path, size_t size)
{
	snprintf(path, size, "/tmp/fd_test_outputs_XXXXXX.yaml");
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "name: Tanh_Out\npriority: 1\nmatch:\n  ops:\n    - type: Add\n    - type: Tanh\n      outputs: %s\n"
	        "rewrite:\n  target_op: T\n", outputs);
	fclose(f);
	run_open(x, "tests/data/lang/graph_out.onnx", path);
}

/* The outputs check says which of its fields decided: the what-if path of
 * the failing event names it, and the words and the place agree; a field
 * that holds is not named when another fails. */
static void test_outputs_field(void **state)
{
	(void)state;
	/* tanh1 (after add1) is a graph output with no consumer, tanh2 (after add2) one with a consumer */
	static const struct { const char *outputs, *anchor, *field, *reason; } cases[] = {
		{ "{graph_output: true, min_consumers: 3}", "add1", "min_consumers", "consumer count outside the range" },
		{ "{graph_output: false, max_consumers: 9}", "add1", "graph_output", "the output is a graph output" },
		{ "{min_consumers: 0, graph_output: false, max_consumers: 0}", "add2", "max_consumers",
		  "consumer count outside the range" },
		{ "{max_consumers: 1, not_read_by: [Sigmoid, Relu]}", "add2", "not_read_by",
		  "the output is read by relu2 (Relu)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		run x;
		char path[64], got[160], want[96];
		run_outputs(&x, cases[i].outputs, path, sizeof path);
		const fd_attempt *a = attempt_of(&x, "Tanh_Out", cases[i].anchor);
		assert_int_equal(a->reason, REASON_NM15_OUTPUT);
		assert_true(explain_event_path(&x.r, a->decisive, got, sizeof got));
		snprintf(want, sizeof want, "match.ops.1.outputs.%s", cases[i].field);
		if (strcmp(got, want))
			fprintf(stderr, "%s: path %s, want %s\n", cases[i].outputs, got, want);
		assert_string_equal(got, want);
		fd_event_text tx;
		explain_event(&x.r, a->decisive, &tx);
		assert_string_equal(tx.reason, cases[i].reason);
		assert_string_equal(tx.check, "op1 Tanh outputs");
		/* the place is the field's value: its column is past the key's */
		const char *at = strstr(cases[i].outputs, cases[i].field);
		assert_int_equal(tx.where.line, 7);
		assert_int_equal(tx.where.col, (int)(strlen("      outputs: ") + (size_t)(at - cases[i].outputs) +
		                                     strlen(cases[i].field) + 2) + 1);
		run_close(&x);
		unlink(path);
	}
}

/* The decisive event's what-if path, words and place, of attempt a. */
/* The decisive event's reason holds words (printed when it does not). */
static void expect_words(run *x, const fd_attempt *a, const char *words)
{
	fd_event_text tx;
	explain_event(&x->r, a->decisive, &tx);
	if (!strstr(tx.reason, words))
		fprintf(stderr, "want '%s' in: %s\n", words, tx.reason);
	assert_non_null(strstr(tx.reason, words));
}

static void expect_decided(run *x, const fd_attempt *a, const char *path, const char *expected, const char *actual,
                           int line, int col)
{
	char got[160];
	assert_true(explain_event_path(&x->r, a->decisive, got, sizeof got));
	assert_string_equal(got, path);
	fd_event_text tx;
	explain_event(&x->r, a->decisive, &tx);
	if (!strstr(tx.expected, expected) || !strstr(tx.actual, actual))
		fprintf(stderr, "expected '%s', actual '%s'\n", tx.expected, tx.actual);
	assert_non_null(strstr(tx.expected, expected));
	assert_non_null(strstr(tx.actual, actual));
	assert_int_equal(tx.where.line, line);
	assert_int_equal(tx.where.col, col);
}

/* dtype: {same_as: …}: a Cast to the type it reads is a no-op, one to
 * float16 is not (op 0's own output); a Mul's constant of the Cast's input
 * type (an earlier op's input) fits after the no-op Cast, not after the
 * float16 one. The failing event names the tied tensor and its type. */
static void test_dtype_same_as(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/dtype_tied.onnx", "tests/data/lang/dtype_tied.yaml");
	assert_int_equal(attempt_of(&x, "Noop_Cast", "cast1")->reason, REASON_OK_FIRED);
	const fd_attempt *a = attempt_of(&x, "Noop_Cast", "cast2");
	assert_int_equal(a->reason, REASON_NM23_DTYPE_SAME_AS);
	expect_decided(&x, a, "match.ops.0.input_sources.input0.dtype.same_as", "dtype of op0's output0 (cast2_out float16)",
	               "x2 float32", 12, 35);
	a = attempt_of(&x, "Cast_Mul_Of_Input_Type", "cast2");
	assert_int_equal(a->reason, REASON_NM23_DTYPE_SAME_AS);
	expect_decided(&x, a, "match.ops.1.input_sources.input1.dtype.same_as", "dtype of op0's input0 (x2 float32)",
	               "s2 float16", 24, 55);
	run_close(&x);
}

/* shape: [1, C, 1...]: one pattern for the per-channel constant of a
 * Conv1d, Conv2d and Conv3d; [1, 4, 2, 1] has a dim after C that is not 1. */
static void test_shape_repeat(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/conv_any_rank.onnx", "tests/data/lang/conv_any_rank.yaml");
	assert_int_equal(attempt_of(&x, "Conv_Add_Channel", "conv1")->reason, REASON_OK_FIRED);
	assert_int_equal(attempt_of(&x, "Conv_Add_Channel", "conv2")->reason, REASON_OK_FIRED);
	assert_int_equal(attempt_of(&x, "Conv_Add_Channel", "conv3")->reason, REASON_OK_FIRED);
	const fd_attempt *a = attempt_of(&x, "Conv_Add_Channel", "conv2_near");
	assert_int_equal(a->reason, REASON_NM09_SHAPE);
	expect_decided(&x, a, "match.ops.1.input_sources.input1.shape", "shape [1, C, 1...] with C = 4", "1×4×2×1", 13, 45);
	run_close(&x);
}

/* outputs: {count: 1}: a BatchNormalization with its training outputs and a
 * MaxPool with its indices declare more; outputs written "" are not there. */
static void test_outputs_count(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/declared_outputs.onnx", "tests/data/lang/declared_outputs.yaml");
	assert_int_equal(attempt_of(&x, "Conv_BN_Inference", "bn1_conv")->reason, REASON_OK_FIRED);
	assert_int_equal(attempt_of(&x, "Conv_BN_Inference", "bn3_conv")->reason, REASON_OK_FIRED);
	const fd_attempt *a = attempt_of(&x, "Conv_BN_Inference", "bn2_conv");
	assert_int_equal(a->reason, REASON_NM22_OUTPUT_COUNT);
	expect_decided(&x, a, "match.ops.1.outputs.count", "1 output declared", "3 outputs declared", 12, 24);
	assert_int_equal(attempt_of(&x, "Pad_MaxPool_No_Indices", "pool1_pad")->reason, REASON_OK_FIRED);
	a = attempt_of(&x, "Pad_MaxPool_No_Indices", "pool2_pad");
	assert_int_equal(a->reason, REASON_NM22_OUTPUT_COUNT);
	expect_decided(&x, a, "match.ops.1.outputs.count", "1 output declared", "2 outputs declared", 23, 24);
	run_close(&x);
}

/* from_type: a Relu reading what a Conv makes fires, one reading a
 * BatchNormalization fails with FD-NM04 at its key, the producer named. */
static void test_from_type(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/conv_fold.onnx", "tests/data/lang/from_type.yaml");
	assert_int_equal(attempt_of(&x, "Relu_After_Conv", "relu3")->reason, REASON_OK_FIRED);
	const fd_attempt *a = attempt_of(&x, "Relu_After_Conv", "relu2");
	assert_int_equal(a->reason, REASON_NM04_SOURCE);
	expect_decided(&x, a, "match.ops.0.input_sources.input0.from_type", "from a Conv2d", "BatchNormalization", 10, 17);
	run_close(&x);
}

/* siblings: three readers of one tensor that cover its axis 1 (a Gather
 * among them, one Slice ending past the end) are one fusion, its outputs in
 * the order of their slices; a gap, an overlap, a step of 2, a member that
 * is a graph output and a lone Slice each refuse the group with FD-NM24,
 * the words naming what decided and the what-if path its key. */
static void test_siblings(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/slice_groups.onnx", "tests/data/lang/slice_groups.yaml");
	assert_int_equal(attempt_of(&x, "Slices_To_Split", "cover_a")->reason, REASON_OK_FIRED);
	int32_t fi = x.r.claim[0][node_id(&x, "cover_a")];
	assert_true(fi >= 0);
	assert_int_equal(x.r.claim[0][node_id(&x, "cover_b")], fi);
	assert_int_equal(x.r.claim[0][node_id(&x, "cover_c")], fi);
	const fd_fusion *f = &x.r.fusions[fi];
	assert_int_equal(f->n_nodes, 3);
	assert_int_equal(f->n_outputs, 3);
	static const char *const outs[] = { "cover_a", "cover_b", "cover_c" };
	for (int k = 0; k < 3; k++) {
		int32_t t = fusion_ids(&x.r, f->outputs)[k];
		assert_int_equal(x.m.graphs[0].tensors[t].producer, node_id(&x, outs[k]));
	}
	static const struct { const char *node, *path, *words; int col; } cases[] = {
		{ "gap_a", "match.ops.0.siblings.cover", "no member slices index 3 of axis 1 (size 8): the next starts at gap_b", 33 },
		{ "overlap_a", "match.ops.0.siblings.cover", "members overlap_b and overlap_a both slice index 4 of axis 1", 33 },
		{ "step_a", "match.ops.0.siblings.cover", "member step_b slices with step 2, not 1", 33 },
		{ "out_a", "match.ops.0.siblings", "member out_b fails the op's own conditions (FD-NM15", 17 },
		{ "single_a", "match.ops.0.siblings.min", "1 reader of single_out is of the op's types, fewer than 2", 23 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const fd_attempt *a = attempt_of(&x, "Slices_To_Split", cases[i].node);
		assert_int_equal(a->reason, REASON_NM24_SIBLINGS);
		fd_event_text tx;
		explain_event(&x.r, a->decisive, &tx);
		if (!strstr(tx.reason, cases[i].words))
			fprintf(stderr, "%s: %s\n", cases[i].node, tx.reason);
		assert_non_null(strstr(tx.reason, cases[i].words));
		char path[160];
		assert_true(explain_event_path(&x.r, a->decisive, path, sizeof path));
		assert_string_equal(path, cases[i].path);
		assert_int_equal(tx.where.line, 12);
		assert_int_equal(tx.where.col, cases[i].col);
	}
	run_close(&x);
}

/* The bounds of a group: a tensor of 1025 readers makes none, one of 300
 * Slices more than 256 members; each attempt of each reader says so. */
static void test_siblings_bounds(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/many_readers.onnx", "tests/data/lang/many_readers.yaml");
	static const struct { const char *node, *words; } cases[] = {
		{ "wide_0", "wide_out has 1025 readers, more than the 1024 a group is looked for among" },
		{ "wide_1024", "wide_out has 1025 readers" },
		{ "many_0", "more than 256 readers of many_out are of the op's types" },
		{ "many_299", "more than 256 readers of many_out" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const fd_attempt *a = attempt_of(&x, "Slices_Group", cases[i].node);
		assert_int_equal(a->reason, REASON_NM24_SIBLINGS);
		expect_words(&x, a, cases[i].words);
	}
	assert_int_equal(x.r.n_fusions, 0);
	run_close(&x);
}

/* A group's own ops: two Slices of one DQ, each with its own Q, are one
 * fusion with the DQ, its outputs the Qs' in slice order; a second Q of
 * another scale refuses the group, naming the member and the op. */
static void test_siblings_own_ops(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/qdq_slice_groups.onnx", "tests/data/lang/qdq_slice_groups.yaml");
	assert_int_equal(attempt_of(&x, "QDQ_Slices_To_Split", "same_a")->reason, REASON_OK_FIRED);
	int32_t fi = x.r.claim[0][node_id(&x, "same_a")];
	assert_true(fi >= 0);
	static const char *const members[] = { "same_dq", "same_b", "same_a_q", "same_b_q" };
	for (size_t k = 0; k < sizeof members / sizeof *members; k++)
		assert_int_equal(x.r.claim[0][node_id(&x, members[k])], fi);
	const fd_fusion *f = &x.r.fusions[fi];
	assert_int_equal(f->n_nodes, 5);
	assert_int_equal(f->n_outputs, 2);
	assert_int_equal(x.m.graphs[0].tensors[fusion_ids(&x.r, f->outputs)[0]].producer, node_id(&x, "same_a_q"));
	assert_int_equal(x.m.graphs[0].tensors[fusion_ids(&x.r, f->outputs)[1]].producer, node_id(&x, "same_b_q"));
	const fd_attempt *a = attempt_of(&x, "QDQ_Slices_To_Split", "other_a");
	assert_int_equal(a->reason, REASON_NM24_SIBLINGS);
	assert_int_equal(x.r.claim[0][node_id(&x, "other_b_q")], -1);
	expect_words(&x, a, "member other_b has no op2 of its own that meets op2's conditions (FD-NM21");
	run_close(&x);
}

/* qdq_dtype: int8 data runs as uint8 where onnxruntime's QDQS8ToU8Transformer
 * converts its Q -> DQ pair, asked of the data behind a DQ's output and of a
 * Q's zero point alike; where it stays int8 the words say why; the what-if
 * path names the key. */
static void test_qdq_dtype(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/qdq_pairs.onnx", "tests/data/lang/qdq_pairs.yaml");
	static const struct { const char *rule, *node, *words; } cases[] = {
		{ "Relu_U8", "relu_q1", NULL },
		{ "Relu_U8", "relu_q4", NULL },
		{ "Relu_U8", "relu_q2a", "q2_out runs as int8, QDQS8ToU8Transformer leaves it: dq2 is read 2 times" },
		{ "Relu_U8", "relu_q3", "the zero points of q3 (0) and dq3 (1) differ" },
		{ "Q_U8", "q1", NULL },
		{ "Q_U8", "q2", "dq2 is read 2 times, so q2 feeds 2 copies of it" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const fd_attempt *a = attempt_of(&x, cases[i].rule, cases[i].node);
		assert_int_equal(a->reason, cases[i].words ? REASON_NM20_QDQ_DTYPE : REASON_OK_FIRED);
		if (!cases[i].words)
			continue;
		expect_words(&x, a, cases[i].words);
		char path[160];
		assert_true(explain_event_path(&x.r, a->decisive, path, sizeof path));
		assert_non_null(strstr(path, ".qdq_dtype"));
	}
	/* same_value_as: the Q after a Reshape with the DQ's scale, and with another */
	assert_int_equal(attempt_of(&x, "Reshape_Same_Quant", "reshape_same")->reason, REASON_OK_FIRED);
	const fd_attempt *a = attempt_of(&x, "Reshape_Same_Quant", "reshape_other");
	assert_int_equal(a->reason, REASON_NM21_SAME_VALUE);
	expect_words(&x, a, "s2 = 0.100000001, but op1 reads s = 0.0500000007");
	char path[160];
	assert_true(explain_event_path(&x.r, a->decisive, path, sizeof path));
	assert_non_null(strstr(path, "input_sources.input1.same_value_as"));
	run_close(&x);
}


/* opJ.NAME, qmin(), qmax(), float32(): onnxruntime's ClipQuantFusion and
 * ReluQuantFusion as rules/onnxruntime states them, on the Clips of
 * tests/data/lang/clip_quant.onnx; the names of an earlier op read directly,
 * absent, and not matched; NaN and values past float's range. */
static void test_other_ops(void **state)
{
	(void)state;
	/* parsing: opJ.NAME is one name of op J; a function or a literal after the dot is not */
	fd_arena a;
	arena_init(&a);
	size_t at;
	char err[200];
	fd_expr *e = expr_parse(&a, "op12.input2", &at, err, sizeof err);
	assert_non_null(e);
	assert_int_equal(e->kind, EX_NAME);
	assert_int_equal(e->op_ref, 12);
	assert_int_equal(e->tensor, 'i');
	assert_int_equal(e->i, 2);
	e = expr_parse(&a, "op0.min + 1", &at, err, sizeof err);
	assert_int_equal(e->args[0]->op_ref, 0);
	assert_string_equal(e->args[0]->s, "min");
	int len;
	expr_text(e->args[0], &len);
	assert_int_equal(len, 7);
	e = expr_parse(&a, "op == 1 && op1x == 1", &at, err, sizeof err);   /* names, not opJ. */
	assert_non_null(e);
	assert_int_equal(e->args[0]->args[0]->op_ref, -1);
	assert_int_equal(e->args[1]->args[0]->op_ref, -1);
	arena_release(&a);
	parse_error("op0. == 1", 4, "expected a name after 'op0.'");
	parse_error("op0.len(input0) == 1", 4, "not a function");
	parse_error("op0.true", 4, "not a literal");
	parse_error("qmin(input2, input1) == 0", 0, "qmin() takes 1 argument, got 2");

	run x;
	run_open(&x, "tests/data/lang/clip_quant.onnx", "rules/onnxruntime");
	char w[256];
	/* the Q holds [0, 6] (float(6/255) * 255 is 6 in float): the Clip goes */
	assert_int_equal(attempt_of(&x, "ORT_ClipQuantFusion", "clip_cover")->reason, REASON_OK_FIRED);
	/* 4/255 * 255 is 4 in float, 4.0000002 in double: onnxruntime's float decides, the Clip goes */
	assert_int_equal(attempt_of(&x, "ORT_ClipQuantFusion", "clip_f32")->reason, REASON_OK_FIRED);
	/* the Q holds up to 8.16: the Clip clamps more and stays, the words read op0's max */
	const fd_attempt *at_narrow = attempt_of(&x, "ORT_ClipQuantFusion", "clip_narrow");
	assert_int_equal(at_narrow->reason, REASON_NM16_WHERE);
	fd_event_text tx;
	explain_event(&x.r, at_narrow->decisive, &tx);
	if (!strstr(tx.reason, "op0.max is 6; float32(float32(value(input1) * (qmax(input2) - value(input2))) - op0.max) is 2.16"))
		fprintf(stderr, "clip_narrow: %s\n", tx.reason);
	assert_non_null(strstr(tx.reason, "op0.max is 6; float32(float32(value(input1) * (qmax(input2) - value(input2))) - "
	                                  "op0.max) is 2.16"));
	char path[160];
	assert_true(explain_event_path(&x.r, at_narrow->decisive, path, sizeof path));
	assert_string_equal(path, "match.ops.1.where");
	/* hostile values: a NaN max, a range past float's: FD-NM18 at the part, never a verdict */
	const fd_attempt *at_nan = attempt_of(&x, "ORT_ClipQuantFusion", "clip_nan");
	assert_int_equal(at_nan->reason, REASON_NM18_WHERE_EVAL);
	explain_event(&x.r, at_nan->decisive, &tx);
	assert_string_equal(tx.reason, "cannot be evaluated at character 55: float32(value(input1) * (qmax(input2) - "
	                    "value(input2))) - op0.max is not a number (NaN)");
	const fd_attempt *at_huge = attempt_of(&x, "ORT_ClipQuantFusion", "clip_huge");
	assert_int_equal(at_huge->reason, REASON_NM18_WHERE_EVAL);
	explain_event(&x.r, at_huge->decisive, &tx);
	assert_string_equal(tx.reason, "cannot be evaluated at character 55: float32(value(input1) * (qmax(input2) - "
	                    "value(input2))) overflows the 32-bit floats");
	/* ReluQuantFusion: the zero point is its type's least value */
	assert_int_equal(attempt_of(&x, "ORT_ReluQuantFusion", "relu_min")->reason, REASON_OK_FIRED);
	const fd_attempt *at_zero = attempt_of(&x, "ORT_ReluQuantFusion", "relu_zero");
	assert_int_equal(at_zero->reason, REASON_NM16_WHERE);
	explain_event(&x.r, at_zero->decisive, &tx);
	assert_non_null(strstr(tx.reason, "value(input2) is 0; qmin(input2) is -128"));

	/* directly: op0 the Clip, as a run binds it; absent; past the ops bound */
	int32_t units[2] = { node_id(&x, "clip_narrow"), FD_NONE };
	int ids[2] = { optable_lookup("Clip"), optable_lookup("Relu") };
	fd_where_ops ops = { units, ids, 2 };
	assert_int_equal(eval_ops(&x, "q_clip_narrow", "QuantizeLinear", &ops, "op0.min == 0 && op0.max == 6 && op0.op_type == "
	                          "'Clip' && value(op0.input2) == 6 && producer(op0.input0) == 'Sigmoid' && op0.rank == 2",
	                          w, sizeof w), 1);
	assert_int_equal(eval_ops(&x, "q_clip_narrow", "QuantizeLinear", &ops, "qmin(input2) == 0 && qmax(input2) == 255 && "
	                          "qmin(op0.input1) == 0", w, sizeof w), -1);
	assert_non_null(strstr(w, "qmin() wants a tensor of an integer type: op0.input1 is float32"));
	assert_int_equal(eval_ops(&x, "q_relu_zero", "QuantizeLinear", &ops, "qmin(input2) == -128 && qmax(input2) == 127",
	                          w, sizeof w), 1);
	assert_int_equal(eval_ops(&x, "q_clip_narrow", "QuantizeLinear", &ops, "op1.min == null && op1.op_type == null", w,
	                          sizeof w), 1);
	assert_int_equal(eval_ops(&x, "q_clip_narrow", "QuantizeLinear", &ops, "op2.min == 0", w, sizeof w), -1);
	assert_non_null(strstr(w, "op2 is not matched before this op"));
	assert_int_equal(eval_ops(&x, "q_clip_narrow", "QuantizeLinear", NULL, "op0.min == 0", w, sizeof w), -1);
	/* float32(): C's rounding; past float's range a fault */
	assert_int_equal(eval(&x, "q_clip_narrow", "QuantizeLinear", "float32(0.1) == 0.10000000149011612 && "
	                      "float32(16777217) == 16777216 && !(float32(0.1) < 0.10000000149011612)", w, sizeof w), 1);
	assert_int_equal(eval(&x, "q_clip_narrow", "QuantizeLinear", "float32(value(input1) * 1e41) > 0", w, sizeof w), -2);
	assert_string_equal(w, "cannot be evaluated at character 1: float32(value(input1) * 1e41) overflows the 32-bit floats");
	assert_int_equal(eval(&x, "q_clip_narrow", "QuantizeLinear", "value(input1) * 1e308 * 1e308 > 0", w, sizeof w), -2);
	assert_non_null(strstr(w, "overflows the floating-point numbers"));
	/* NaN: computed from a constant, compared, rounded: each a fault */
	units[0] = node_id(&x, "clip_nan");
	assert_int_equal(eval_ops(&x, "q_clip_nan", "QuantizeLinear", &ops, "op0.max == op0.max", w, sizeof w), -2);
	assert_string_equal(w, "cannot be evaluated at character 1: op0.max == op0.max is not a number (NaN)");
	assert_int_equal(eval_ops(&x, "q_clip_nan", "QuantizeLinear", &ops, "op0.max - 1 < 0 || true", w, sizeof w), -2);
	assert_int_equal(eval_ops(&x, "q_clip_nan", "QuantizeLinear", &ops, "float32(op0.max) > 0", w, sizeof w), -2);
	assert_int_equal(eval_ops(&x, "q_clip_nan", "QuantizeLinear", &ops, "op0.min < 1 && !known(op0.max) == false", w,
	                          sizeof w), 1);
	/* NaN inside a list, a membership, min/max/sorted: a fault, never a verdict */
	static const char *const nan_decides[] = {
		"op0.max in [1, 2]", "op0.max not in [1, 2]", "1 in [op0.max, 1]", "1 not in [op0.max]",
		"[op0.max] == [op0.max]", "[1, op0.max] != [1, 2]", "max([1, op0.max]) > 0", "min(op0.max, 1) > 0",
		"min([op0.max, 1]) < 2", "sorted([op0.max, 1])[0] == 1", "len(sorted([2, op0.max])) == 2",
	};
	for (size_t k = 0; k < sizeof nan_decides / sizeof *nan_decides; k++) {
		int r = eval_ops(&x, "q_clip_nan", "QuantizeLinear", &ops, nan_decides[k], w, sizeof w);
		if (r != -2)
			fprintf(stderr, "%s: %d %s\n", nan_decides[k], r, w);
		assert_int_equal(r, -2);
		assert_non_null(strstr(w, "is not a number (NaN)"));
	}
	run_close(&x);
}

/* Conv+BN+Relu fuses with Mul and Add absent: their units are FD_NONE, the
 * stand-in of an absent op is the op it would have read. */
static void test_optional_units(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/conv_fold.onnx", "tests/data/lang/conv_fold.yaml");
	int32_t fi = x.r.claim[0][node_id(&x, "conv2")];
	assert_true(fi >= 0);
	const fd_fusion *f = &x.r.fusions[fi];
	assert_int_equal(f->n_ops, 5);
	assert_int_equal(f->n_nodes, 3);
	assert_int_equal(match_fusion_unit(&x.r, f, 1), node_id(&x, "bn2"));
	assert_int_equal(match_fusion_unit(&x.r, f, 2), FD_NONE);
	assert_int_equal(match_fusion_unit(&x.r, f, 3), FD_NONE);
	assert_int_equal(match_fusion_stand_in(&x.r, f, 3), node_id(&x, "bn2"));
	assert_int_equal(match_fusion_unit(&x.r, f, 4), node_id(&x, "relu2"));
	run_close(&x);
}

/* Shape patterns written in the seed's style, every string quoted ("C",
 * "...", "scalar"), read as the plain ones: the same fusions, unit by unit. */
static void test_quoted_shapes(void **state)
{
	(void)state;
	FILE *in = fopen("tests/data/lang/conv_fold.yaml", "r");
	assert_non_null(in);
	char text[4096];
	size_t n = fread(text, 1, sizeof text - 1, in);
	fclose(in);
	text[n] = 0;
	static const char *const plain[] = { "[C, ...]", "[[], [C, 1, 1]", "[[C, 1, 1], [1, C, 1, 1]]}" };
	static const char *const quoted[] = { "[\"C\", \"...\"]", "[\"scalar\", [\"C\", 1, 1]",
	                                      "[[\"C\", 1, 1], [1, \"C\", 1, 1]]}" };
	char out[4200] = "";
	const char *p = text;
	for (size_t k = 0; k < 3; k++) {
		const char *at = strstr(p, plain[k]);
		assert_non_null(at);
		strncat(out, p, (size_t)(at - p));
		strcat(out, quoted[k]);
		p = at + strlen(plain[k]);
	}
	strcat(out, p);
	char path[] = "/tmp/fd-quoted-XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(out, f);
	fclose(f);
	run a, b;
	run_open(&a, "tests/data/lang/conv_fold.onnx", "tests/data/lang/conv_fold.yaml");
	run_open(&b, "tests/data/lang/conv_fold.onnx", path);
	unlink(path);
	assert_true(a.r.n_fusions > 0);
	assert_int_equal(b.r.n_fusions, a.r.n_fusions);
	for (size_t i = 0; i < a.r.n_fusions; i++) {
		assert_int_equal(b.r.fusions[i].n_ops, a.r.fusions[i].n_ops);
		for (int32_t u = 0; u < a.r.fusions[i].n_ops; u++)
			assert_int_equal(match_fusion_unit(&b.r, &b.r.fusions[i], u),
			                 match_fusion_unit(&a.r, &a.r.fusions[i], u));
	}
	run_close(&a);
	run_close(&b);
}

/* 33 alternatives: the last one fires; a type list of 40 is whole too. */
static void test_many_alternatives(void **state)
{
	(void)state;
	run x;
	run_open(&x, "samples/conv_bn_relu.onnx", "tests/data/lang/many_alternatives.yaml");
	int32_t ri = ruleset_find(&x.rs, "Many_Alternatives");
	assert_int_equal(x.rs.rules[ri].n_branches, 32);
	assert_int_equal(x.r.stats[ri].effect_times, 1);
	assert_int_equal(x.r.fusions[0].rule, ri);
	assert_int_equal(x.r.fusions[0].branch, 31);
	assert_int_equal(x.r.fusions[0].n_nodes, 3);
	int32_t li = ruleset_find(&x.rs, "Long_Type_List");
	assert_int_equal(x.rs.rules[li].match.ops[1].n_types, 40);
	/* alone, the type list's 40th type fires */
	x.rs.rules[ri].enabled = false;
	match_run(&x.ctx, &x.rs, NULL, &x.r);
	assert_int_equal(x.r.stats[li].effect_times, 1);
	run_close(&x);
}

/* effect: and change: (conditions checked after the match): a BatchNorm
 * declaring its training outputs is matched and declined, its decisive
 * event in the effect stage with its what-if path and words; a MaxPool
 * declaring its indices takes effect without a fusion. run_once: over two
 * rounds the declined match is counted once, the rule's own Conv never
 * re-fused, the round-2 verdict FD-NM25. */
static void test_effect_change(void **state)
{
	(void)state;
	run x;
	run_open(&x, "tests/data/lang/declared_outputs.onnx", "tests/data/lang/effect_change.yaml");
	int32_t bn = ruleset_find(&x.rs, "Conv_BN_Declined"), pool = ruleset_find(&x.rs, "Pad_MaxPool_Unchanged");
	assert_int_equal(x.r.stats[bn].match_times, 3);
	assert_int_equal(x.r.stats[bn].effect_times, 2);
	assert_int_equal(x.r.stats[bn].declined, 1);
	const fd_attempt *a = attempt_of(&x, "Conv_BN_Declined", "bn2_conv");
	assert_int_equal(a->reason, REASON_NM22_OUTPUT_COUNT);
	assert_int_equal(trace_event(&x.r.trace, a->decisive).branch, FD_BRANCH_EFFECT);
	expect_decided(&x, a, "match.ops.1.effect.outputs.count", "1 output declared", "3 outputs declared", 13, 26);
	expect_words(&x, a, "matched, then declined");
	/* a what-if reaches it: the path is an op condition's below effect */
	assert_non_null(rule_field("match.ops.1.effect.outputs.count"));
	assert_ptr_equal(rule_field("match.ops.1.effect.outputs.count"), rule_field("match.ops.1.outputs.count"));
	assert_ptr_equal(rule_field("match.ops.0.change.input_sources.input1.value"),
	                 rule_field("match.ops.0.input_sources.input1.value"));
	char line[1024];
	assert_non_null(strstr(explain_why_line(&x.r, (uint32_t)(a - x.r.trace.attempts), line, sizeof line),
	                       "Conv_BN_Declined matched bn2_conv (Conv), then declined: op1 BatchNorm outputs"));
	assert_int_equal(x.r.stats[pool].match_times, 2);
	assert_int_equal(x.r.stats[pool].effect_times, 2);
	assert_int_equal(x.r.stats[pool].unchanged, 1);
	int fused = 0;
	for (size_t k = 0; k < x.r.n_fusions; k++)
		fused += x.r.fusions[k].rule == pool;
	assert_int_equal(fused, 1);
	expect_words(&x, attempt_of(&x, "Pad_MaxPool_Unchanged", "pool2_pad"), "matched, took effect without change");
	run_close(&x);

	/* run_once over rounds: Conv_BN_Once alone (as the default rules
	 * would, Conv_BN_Declined declines bn2_conv again in round 2) */
	run y;
	run_open(&y, "tests/data/lang/declared_outputs.onnx", "tests/data/lang/effect_change.yaml");
	int32_t once = ruleset_find(&y.rs, "Conv_BN_Once");
	assert_true(y.rs.rules[once].run_once);
	for (int32_t i = 0; i < y.rs.n_rules; i++)
		y.rs.rules[i].enabled = i == once || i == bn;
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			y.rs.rules[bn].enabled = false;
		fd_rounds rd;
		rounds_init(&rd);
		fd_diags d;
		diags_init(&d);
		fd_match_options mo = { 0 };
		assert_int_equal(rounds_run(&rd, &y.ctx, &y.rs, &mo, NULL, &y.r, &d), 0);
		assert_true(rd.n >= 2);
		int64_t matched = 0, effect = 0;
		int32_t rule = pass ? once : bn;
		for (int32_t k = 0; k < rd.n; k++) {
			matched += rd.items[k]->result->stats[rule].match_times;
			effect += rd.items[k]->result->stats[rule].effect_times;
		}
		/* without run_once the decline of bn2_conv is counted in each round */
		assert_int_equal(matched, pass ? 3 : 4);
		assert_int_equal(effect, 2);
		if (pass) {
			const fd_match_result *r2 = rd.items[1]->result;
			uint32_t ai = explain_find_attempt(r2, once, 0, graph_find_node(&rd.items[1]->model->graphs[0], "bn2_conv"));
			assert_true(ai != UINT32_MAX);
			assert_int_equal(r2->trace.attempts[ai].reason, REASON_NM25_RAN_ONCE);
		}
		rounds_release(&rd);
		diags_release(&d);
	}
	run_close(&y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_eval_outer),
		cmocka_unit_test(test_exact_arithmetic),
		cmocka_unit_test(test_eval_fault_event),
		cmocka_unit_test(test_vec_grow_wrap),
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_position_either),
		cmocka_unit_test(test_linked_by_input),
		cmocka_unit_test(test_optional_units),
		cmocka_unit_test(test_outputs_field),
		cmocka_unit_test(test_dtype_same_as),
		cmocka_unit_test(test_shape_repeat),
		cmocka_unit_test(test_outputs_count),
		cmocka_unit_test(test_qdq_dtype),
		cmocka_unit_test(test_from_type),
		cmocka_unit_test(test_siblings),
		cmocka_unit_test(test_siblings_own_ops),
		cmocka_unit_test(test_siblings_bounds),
		cmocka_unit_test(test_other_ops),
		cmocka_unit_test(test_many_alternatives),
		cmocka_unit_test(test_quoted_shapes),
		cmocka_unit_test(test_effect_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
