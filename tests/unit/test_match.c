/* test_match.c — the matcher's units: param values through the
 * op table (aliases, defaults, derived, no such param) and their comparison
 * (float tolerance, lists, "none", dtype names); the canonical-form
 * recognisers on the samples; the ladder (each rung reached where the sample
 * says); the reason table; a re-run giving the same result. Run from the
 * repository root (tests/run-all does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "match/match.h"
#include "rules/optable.h"
#include "match/param_value.h"
#include "trace/reason.h"
#include "ruleset/ruleset.h"
#include "explain/explain.h"
#include "onnx/onnx.h"
#include "match_fixture.h"

static void load(fd_model *m, const char *path)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	assert_int_equal(onnx_load_model(m, path, &lo, &d), 0);
	diags_release(&d);
}

/* One YAML scalar or list as an fd_yval (the value of key "v"). */
static const fd_yval *yv(fd_yfile *f, const char *text)
{
	char buf[256];
	fd_diags d;
	diags_init(&d);
	snprintf(buf, sizeof buf, "v: %s\n", text);
	assert_int_equal(yfile_load_buffer(f, "t.yaml", buf, strlen(buf), &d), 0);
	diags_release(&d);
	return yval_get(f->docs[0].root, "v");
}

static bool matches(const char *yaml, const fd_pval *v, const fd_param_def *def)
{
	fd_yfile f;
	bool r = param_matches(yv(&f, yaml), def, v);
	yfile_release(&f);
	return r;
}

static void test_float_tolerance(void **state)
{
	(void)state;
	assert_true(param_float_eq(1e-5, (double)1e-5f));
	assert_true(param_float_eq(0.1, (double)0.1f));
	assert_false(param_float_eq(1e-5, 1.1e-5));
	assert_false(param_float_eq(0.0, 1e-9 + 1e-11));
	fd_pval v = { .kind = PV_FLOAT, .f = (double)1e-5f };
	assert_true(matches("1e-5", &v, NULL));
	assert_true(matches("0.00001", &v, NULL));
	assert_false(matches("1e-3", &v, NULL));
}

static void test_compare_kinds(void **state)
{
	(void)state;
	fd_pval ints = { .kind = PV_INTS, .n = 2 };
	ints.buf[0] = ints.buf[1] = 3;
	assert_true(matches("[3, 3]", &ints, NULL));
	assert_true(matches("3", &ints, NULL));     /* kernel_size: 3 */
	assert_false(matches("[3, 1]", &ints, NULL));
	assert_false(matches("[3]", &ints, NULL));
	fd_pval absent = { .kind = PV_ABSENT };
	assert_true(matches("\"none\"", &absent, NULL));
	assert_true(matches("null", &absent, NULL));
	assert_false(matches("1", &absent, NULL));
	fd_pval none = { .kind = PV_STRING, .s = "NONE" };
	assert_true(matches("none", &none, NULL));
	fd_pval b = { .kind = PV_BOOL, .i = 0 };
	assert_true(matches("false", &b, NULL));
	assert_true(matches("0", &b, NULL));
	assert_false(matches("true", &b, NULL));
	fd_pval nosuch = { .kind = PV_NO_SUCH };
	assert_false(matches("0.0", &nosuch, NULL));
	/* Cast's `to`: a dtype name equals its number */
	int cast = optable_lookup("Cast");
	fd_pval to = { .kind = PV_INT, .i = 1 };
	assert_true(matches("float32", &to, optable_param(cast, "to")));
	assert_false(matches("float16", &to, optable_param(cast, "to")));
	/* an axis compares after normalising by the input's rank: -1 == 3 on rank 4 */
	const fd_param_def *axis = optable_param(optable_lookup("Softmax"), "axis");
	fd_pval last = { .kind = PV_INT, .i = 3, .axis_rank = 4 };
	assert_true(matches("-1", &last, axis));
	assert_true(matches("3", &last, axis));
	assert_false(matches("-2", &last, axis));
	fd_pval unranked = { .kind = PV_INT, .i = 3 };
	assert_false(matches("-1", &unranked, axis));
}

static const fd_node *node(const fd_model *m, const char *name)
{
	int32_t n = graph_find_node(&m->graphs[0], name);
	assert_true(n >= 0);
	return &m->graphs[0].nodes[n];
}

static void test_param_lookup(void **state)
{
	(void)state;
	fd_model m;
	load(&m, "samples/conv_bn_relu.onnx");
	const fd_graph *g = &m.graphs[0];
	int conv = optable_lookup("Conv2d"), bn = optable_lookup("BatchNorm"), relu = optable_lookup("Relu");
	fd_pval v;
	char buf[64];
	param_unit_value(g, node(&m, "conv1"), NULL, NULL, conv, "groups", &v);
	assert_int_equal(v.kind, PV_INT);
	assert_int_equal(v.i, 1);
	param_unit_value(g, node(&m, "conv1"), NULL, NULL, conv, "group", &v);   /* alias */
	assert_int_equal(v.i, 1);
	param_unit_value(g, node(&m, "conv1"), NULL, NULL, conv, "activation_type", &v);
	assert_int_equal(v.kind, PV_STRING);
	assert_string_equal(v.s, "none");
	param_unit_value(g, node(&m, "conv1"), NULL, NULL, conv, "kernel_size", &v);
	assert_int_equal(v.kind, PV_INTS);
	assert_string_equal(explain_pval(&v, buf, sizeof buf), "[3, 3]");
	param_unit_value(g, node(&m, "bn1"), NULL, NULL, bn, "eps", &v);
	assert_int_equal(v.kind, PV_FLOAT);
	assert_true(param_float_eq(v.f, 1e-5));
	param_unit_value(g, node(&m, "bn1"), NULL, NULL, bn, "momentum", &v);
	assert_true(v.source == PVS_ATTR || v.source == PVS_DEFAULT);
	param_unit_value(g, node(&m, "relu1"), NULL, NULL, relu, "clip_max", &v);
	assert_int_equal(v.kind, PV_NO_SUCH);
	model_release(&m);
}

static int count_recog(const fd_match_ctx *ctx, fd_recogniser r, int *members)
{
	int n = 0;
	for (int32_t c = 0; c < ctx->graphs[0].canon.n; c++)
		if (ctx->graphs[0].canon.items[c].recogniser == r) {
			n++;
			*members = ctx->graphs[0].canon.items[c].n_members;
		}
	return n;
}

static void canon_case(const char *path, fd_recogniser r, int want, int want_members)
{
	fd_model m;
	fd_match_ctx ctx;
	int members = -1;
	load(&m, path);
	match_ctx_init(&ctx, &m, true, NULL);
	assert_int_equal(count_recog(&ctx, r, &members), want);
	if (want_members >= 0)
		assert_int_equal(members, want_members);
	match_ctx_release(&ctx);
	match_ctx_init(&ctx, &m, false, NULL);      /* --no-canonicalize */
	assert_int_equal(ctx.graphs[0].canon.n, 0);
	match_ctx_release(&ctx);
	model_release(&m);
}

static void test_canon(void **state)
{
	(void)state;
	canon_case("samples/conv_add_silu.onnx", RECOG_SILU, 3, 2);
	canon_case("samples/gelu_erf.onnx", RECOG_GELU_ERF, 1, 5);
	canon_case("samples/gelu_tanh.onnx", RECOG_GELU_TANH, 1, 8);
	/* BLOOM's tanh form, factored without a cube: one per block, none of them also the cubic form */
	canon_case("tests/data/torch/torch_bloom_opset13.onnx", RECOG_GELU_TANH_FACTORED, 2, 9);
	canon_case("tests/data/torch/torch_bloom_opset13.onnx", RECOG_GELU_TANH, 0, -1);
	canon_case("samples/layernorm_decomposed.onnx", RECOG_LAYERNORM, 1, 9);
	canon_case("samples/gelu_erf.onnx", RECOG_BIASADD_ADD, 1, 1);
	/* x a graph input: an activation, not a constant, so Add(x, c) is a BiasAdd */
	canon_case("tests/data/lang/graph_out.onnx", RECOG_BIASADD_ADD, 2, 1);
}

static uint8_t tflags_of(const fd_match_ctx *ctx, const char *tensor)
{
	int32_t t = graph_find_tensor(ctx->graphs[0].g, tensor);
	assert_true(t >= 0);
	return ctx->graphs[0].tflags[t];
}

/* What is constant: an overridable initializer is a graph input (a
 * constant under the `constant` policy); Shape of a static tensor is a
 * constant and so is what only it computes; Shape of a tensor with an
 * unbound symbolic dim is not, until --dim binds it. And the derived param
 * form: "decomposed" through a canonical form, "node" otherwise. */
static void test_constness(void **state)
{
	(void)state;
	fd_model m;
	fd_match_ctx ctx;
	load(&m, "samples/initializer_inputs.onnx");
	match_ctx_init(&ctx, &m, true, NULL);
	assert_int_equal(tflags_of(&ctx, "add2_b") & (TF_CONST | TF_INPUT), TF_INPUT);
	match_ctx_release(&ctx);
	model_set_initializer_policy(&m, true);
	match_ctx_init(&ctx, &m, true, NULL);
	assert_int_equal(tflags_of(&ctx, "add2_b") & (TF_CONST | TF_INPUT), TF_CONST);
	match_ctx_release(&ctx);
	model_release(&m);

	load(&m, "tests/data/match/shape_constant.onnx");
	match_ctx_init(&ctx, &m, true, NULL);
	assert_true(tflags_of(&ctx, "sx") & TF_CONST);
	assert_true(tflags_of(&ctx, "cx_f") & TF_CONST);
	assert_false(tflags_of(&ctx, "ss") & TF_CONST);
	match_ctx_release(&ctx);
	model_release(&m);
	fd_dim_binding batch = { "batch", 2 };
	fd_load_options lo = { .dims = &batch, .n_dims = 1 };
	fd_diags d;
	diags_init(&d);
	assert_int_equal(onnx_load_model(&m, "tests/data/match/shape_constant.onnx", &lo, &d), 0);
	diags_release(&d);
	match_ctx_init(&ctx, &m, true, NULL);
	assert_true(tflags_of(&ctx, "ss") & TF_CONST);
	match_ctx_release(&ctx);
	model_release(&m);

	load(&m, "samples/conv_add_silu.onnx");
	match_ctx_init(&ctx, &m, true, NULL);
	int swish = optable_lookup("Swish");
	const fd_graph_index *ix = &ctx.graphs[0];
	fd_pval v;
	assert_true(ix->canon.n > 0);
	const fd_composite_rec *c = &ix->canon.items[0];
	param_unit_value(ix->g, &ix->g->nodes[c->last], c, ix->canon.pool, swish, "form", &v);
	assert_int_equal(v.kind, PV_STRING);
	assert_string_equal(v.s, "decomposed");
	param_unit_value(ix->g, node(&m, "sigmoid1"), NULL, NULL, swish, "form", &v);
	assert_string_equal(v.s, "node");
	match_ctx_release(&ctx);
	model_release(&m);
}

/* Runs rules/ + samples/rules on a sample. */
static void run_sample(run *x, const char *path)
{
	static const char *const dirs[] = { "rules", "samples/rules", NULL };
	run_rules(x, path, dirs);
}

static const fd_attempt *attempt(run *x, const char *rule, const char *nd)
{
	int32_t ri = ruleset_find(&x->rs, rule);
	assert_true(ri >= 0);
	uint32_t a = explain_find_attempt(&x->r, ri, 0, graph_find_node(&x->m.graphs[0], nd));
	assert_true(a != UINT32_MAX);
	return &x->r.trace.attempts[a];
}

static void ladder_case(const char *path, const char *rule, const char *nd, fd_rung rung, fd_reason why)
{
	run x;
	run_sample(&x, path);
	const fd_attempt *a = attempt(&x, rule, nd);
	assert_int_equal(a->rung, rung);
	assert_int_equal(a->reason, why);
	assert_true(a->decisive != UINT32_MAX);
	assert_int_equal(trace_event(&x.r.trace, a->decisive).reason, why);
	run_release(&x);
}

static void test_ladder(void **state)
{
	(void)state;
	ladder_case("samples/conv_bn_relu.onnx", "Conv_BN_Relu_Fusion", "conv1", RUNG_FIRED, REASON_OK_FIRED);
	ladder_case("samples/priority_conflict.onnx", "BN_Relu_Fusion", "bn1", RUNG_CONFLICT, REASON_CL01_CONFLICT);
	ladder_case("samples/would_cycle.onnx", "Conv_Add_Residual_Fusion", "conv1", RUNG_CYCLE, REASON_WC01_CYCLE);
	ladder_case("samples/memory_limit.onnx", "Conv_Add_SiLU_Fusion", "conv1", RUNG_CONDITION, REASON_CF03_MEMORY);
	ladder_case("samples/escape_intermediate.onnx", "Conv_Add_SiLU_Fusion", "conv1", RUNG_NO_MATCH, REASON_NM05_ESCAPE);
	ladder_case("samples/param_mismatch.onnx", "BN_Relu_Fusion", "bn2", RUNG_NO_MATCH, REASON_NM03_PARAM);
}

/* A what-if re-run: lower a priority, the conflict flips; restore, it flips back. */
static void test_rerun(void **state)
{
	(void)state;
	run x;
	run_sample(&x, "samples/priority_conflict.onnx");
	size_t fusions = x.r.n_fusions, events = x.r.trace.n_events;
	int32_t bn = ruleset_find(&x.rs, "BN_Relu_Fusion");
	int64_t old = x.rs.rules[bn].priority;
	x.rs.rules[bn].priority = 1000;
	match_run(&x.ctx, &x.rs, NULL, &x.r);
	assert_int_equal(attempt(&x, "BN_Relu_Fusion", "bn1")->rung, RUNG_FIRED);
	assert_int_equal(attempt(&x, "Conv_BN_Relu_Fusion", "conv1")->rung, RUNG_CONFLICT);
	x.rs.rules[bn].priority = old;
	match_run(&x.ctx, &x.rs, NULL, &x.r);
	assert_int_equal(x.r.n_fusions, fusions);
	assert_int_equal(x.r.trace.n_events, events);
	x.rs.rules[bn].enabled = false;
	match_run(&x.ctx, &x.rs, NULL, &x.r);
	uint32_t idx[4];
	assert_int_equal(explain_rank_attempts(&x.r, bn, idx, 4), 1);
	assert_int_equal(x.r.trace.attempts[idx[0]].reason, REASON_NR01_DISABLED);
	run_release(&x);
}

static void test_reason_table(void **state)
{
	(void)state;
	for (int r = REASON_NONE + 1; r < REASON_COUNT; r++) {
		const fd_reason_def *d = reason_get((fd_reason)r);
		assert_non_null(d);
		assert_int_equal(reason_from_code(d->code), r);
		assert_true(d->rung < RUNG_COUNT);
	}
	assert_string_equal(reason_code(REASON_NM03_PARAM), "FD-NM03");
	assert_true(sizeof(fd_event) <= 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_tolerance),
		cmocka_unit_test(test_compare_kinds),
		cmocka_unit_test(test_param_lookup),
		cmocka_unit_test(test_canon),
		cmocka_unit_test(test_ladder),
		cmocka_unit_test(test_constness),
		cmocka_unit_test(test_rerun),
		cmocka_unit_test(test_reason_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
