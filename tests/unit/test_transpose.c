/* test_transpose.c — the transpose optimizer (src/transpose/) on the small
 * models of tests/data/transpose (tests/tools/make_transpose_models.py): the
 * Transposes that cancel are gone with their QDQ units, the nodes between
 * read what the removed ones read, with remapped axes and permuted shapes;
 * a Transpose blocked by an op without a handler, or pushed where
 * fusiondbg does not model onnxruntime, stays. The expected graphs are
 * onnxruntime 1.30.0's level-1 graphs of the same models, read by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ir/graph.h"
#include "onnx/onnx.h"
#include "transpose/transpose.h"

#define DATA "tests/data/transpose/"

typedef struct run {
	fd_model m;
	fd_transpose_result r;
} run;

static run *optimize(const char *path)
{
	static run w;
	fd_load_options opt = { 0 };
	fd_diags d;
	diags_init(&d);
	if (onnx_load_model(&w.m, path, &opt, &d) != 0)
		fail_msg("cannot load %s", path);
	transpose_result_init(&w.r);
	assert_int_equal(transpose_optimize(&w.m, &w.r, &d), 0);
	assert_int_equal(d.errors, 0);
	diags_release(&d);
	return &w;
}

static void done(run *w)
{
	transpose_result_release(&w->r);
	model_release(&w->m);
}

static int32_t count_op(const fd_model *m, const char *op)
{
	int32_t n = 0;
	for (int32_t i = 0; i < m->graphs[0].n_nodes; i++)
		n += !strcmp(m->graphs[0].nodes[i].op_type, op);
	return n;
}

static const fd_node *node(const fd_model *m, const char *name)
{
	int32_t i = graph_find_node(&m->graphs[0], name);
	if (i < 0)
		fail_msg("no node %s", name);
	return &m->graphs[0].nodes[i];
}

static const char *input_name(const fd_model *m, const char *name, int32_t k)
{
	const fd_node *n = node(m, name);
	assert_true(k < n->n_inputs && n->inputs[k] >= 0);
	return m->graphs[0].tensors[n->inputs[k]].name;
}

static const fd_tpose_event *event(const fd_transpose_result *r, const char *name, fd_tpose_kind kind)
{
	for (size_t k = 0; k < r->events.n; k++)
		if (!strcmp(r->events.items[k].node, name) && r->events.items[k].kind == kind)
			return &r->events.items[k];
	fail_msg("no event of kind %d for %s", kind, name);
	return NULL;
}

static void dims_are(const fd_model *m, const char *tensor, const int64_t *want, int32_t rank)
{
	int32_t t = graph_find_tensor(&m->graphs[0], tensor);
	assert_true(t >= 0);
	const fd_shape *s = &m->graphs[0].tensors[t].shape;
	assert_int_equal(s->rank, rank);
	for (int32_t k = 0; k < rank; k++)
		assert_int_equal(s->dims[k].value, want[k]);
}

/* every Transpose cancels: Slice -> Unsqueeze -> Concat -> Slice -> Add */
static void test_cancel_float(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_cancel_float.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_cancelled, 4);
	assert_int_equal(w->r.n_not_modelled, 0);
	assert_int_equal(count_op(&w->r.model, "Transpose"), 0);
	assert_int_equal(w->r.model.graphs[0].n_nodes, 8);
	/* the readers of a removed Transpose read what it read */
	assert_string_equal(input_name(&w->r.model, "Unsqueeze_0", 0), "Slice_0_out");
	assert_string_equal(input_name(&w->r.model, "Add", 0), "Slice_2_out");
	/* HandleSlice: the axes a new constant, perm [0,1,2,4,3] keeps axis 2 */
	assert_string_equal(input_name(&w->r.model, "Slice_2", 3), "const_transpose_optimizer");
	/* the tensors between carry the data before the Transpose: Unsqueeze_0's
	 * output was 1x4x1x3x8 behind Transpose [0,1,3,2], it is now 1x4x1x8x3 */
	dims_are(&w->r.model, "Unsqueeze_0_out", (const int64_t[]){ 1, 4, 1, 8, 3 }, 5);
	dims_are(&w->r.model, "Concat_out", (const int64_t[]){ 1, 4, 2, 8, 3 }, 5);
	const fd_tpose_event *e = event(&w->r, "Transpose_0", TPOSE_CANCELLED);
	assert_string_equal(e->other, "Transpose_2");
	assert_int_equal(e->n_through, 3);
	assert_string_equal(e->through[0], "Unsqueeze_0");
	assert_string_equal(e->through[1], "Concat");
	assert_string_equal(e->through[2], "Slice_2");
	assert_non_null(strstr(e->text, "against Transpose_2"));
	e = event(&w->r, "Transpose_3", TPOSE_CANCELLED);
	assert_string_equal(e->other, "Transpose_0");
	done(w);
}

/* the QDQ unit DQ -> Transpose -> Q leaves with its Transpose */
static void test_cancel_qdq(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_cancel_qdq.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_cancelled, 4);
	assert_int_equal(w->r.n_qdq_removed, 8);
	assert_int_equal(count_op(&w->r.model, "Transpose"), 0);
	assert_int_equal(count_op(&w->m, "QuantizeLinear") - count_op(&w->r.model, "QuantizeLinear"), 4);
	/* Slice_0 -> Q -> DQ of Transpose_0's output -> Unsqueeze_0 */
	assert_string_equal(input_name(&w->r.model, "Transpose_0_out_DQ", 0), "Slice_0_out_q");
	assert_int_equal(graph_find_node(&w->r.model.graphs[0], "Slice_0_out_DQ"), FD_NONE);
	assert_int_equal(graph_find_node(&w->r.model.graphs[0], "Transpose_0_out_Q"), FD_NONE);
	const fd_tpose_event *e = event(&w->r, "Slice_0_out_DQ", TPOSE_EMPTY_QDQ);
	assert_string_equal(e->other, "Transpose_0_out_DQ");
	e = event(&w->r, "Transpose_0_out_Q", TPOSE_EMPTY_QDQ);
	assert_string_equal(e->other, "Transpose_0_out_DQ");
	done(w);
}

/* Elu has no handler: onnxruntime's cost check keeps the Transpose */
static void test_blocked(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_blocked.onnx");
	assert_false(w->r.changed);
	assert_int_equal(w->r.events.n, 0);
	done(w);
}

/* pushed through Softmax (HandleSoftHardMax): not modelled, left, said */
static void test_not_modelled(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_not_modelled.onnx");
	assert_false(w->r.changed);
	assert_int_equal(w->r.n_not_modelled, 1);
	const fd_tpose_event *e = event(&w->r, "Transpose_0", TPOSE_NOT_MODELLED);
	assert_string_equal(e->other, "Softmax");
	assert_non_null(strstr(e->text, "does not model"));
	done(w);
}

static void int_attr_is(const fd_model *m, const char *name, const char *attr, int64_t want)
{
	const fd_attr *a = node_attr(node(m, name), attr);
	assert_non_null(a);
	if (a->type == ATTR_INTS) {
		assert_int_equal(a->count, 1);
		assert_int_equal(a->u.ints[0], want);
	} else {
		assert_int_equal(a->u.i, want);
	}
}

/* LayerNorm2d below opset 17: both Transposes cancel through the reductions
 * (HandleReduceOps: axes [-1] -> [1]) and the broadcast ops, whose
 * per-channel constants become 1xCx1x1 (HandleSimpleNodeBroadcast) */
static void test_layernorm2d(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_layernorm2d.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_cancelled, 2);
	assert_int_equal(w->r.n_not_modelled, 0);
	assert_int_equal(count_op(&w->r.model, "Transpose"), 0);
	assert_string_equal(input_name(&w->r.model, "ReduceMean", 0), "x");
	assert_string_equal(input_name(&w->r.model, "Sub", 0), "x");
	assert_string_equal(input_name(&w->r.model, "Relu", 0), "b");
	int_attr_is(&w->r.model, "ReduceMean", "axes", 1);
	int_attr_is(&w->r.model, "ReduceMean_1", "axes", 1);
	dims_are(&w->r.model, "gamma", (const int64_t[]){ 1, 4, 1, 1 }, 4);
	dims_are(&w->r.model, "beta", (const int64_t[]){ 1, 4, 1, 1 }, 4);
	dims_are(&w->r.model, "mean", (const int64_t[]){ 1, 1, 6, 8 }, 4);
	dims_are(&w->r.model, "d", (const int64_t[]){ 1, 4, 6, 8 }, 4);
	/* the scalars are not transposible inputs (NonScalarInputs) */
	dims_are(&w->r.model, "eps", NULL, 0);
	const fd_tpose_event *e = event(&w->r, "Mul", TPOSE_CHANGED);
	assert_non_null(strstr(e->text, "gamma"));
	e = event(&w->r, "Transpose_0", TPOSE_CANCELLED);
	assert_string_equal(e->other, "Transpose_1");
	assert_int_equal(e->n_through, 9);
	done(w);
}

/* HandleGather of a scalar index: axis 0 -> perm[0] = 1, and the perm left
 * once that axis is squeezed is the identity: the Transpose just goes */
static void test_gather(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_gather.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_cancelled, 1);
	assert_int_equal(count_op(&w->r.model, "Transpose"), 0);
	assert_string_equal(input_name(&w->r.model, "Gather", 0), "x");
	int_attr_is(&w->r.model, "Gather", "axis", 1);
	dims_are(&w->r.model, "g", (const int64_t[]){ 2, 4, 5 }, 3);
	const fd_tpose_event *e = event(&w->r, "Transpose_0", TPOSE_CANCELLED);
	assert_null(e->other);
	assert_non_null(strstr(e->text, "identity"));
	done(w);
}

/* the Mul's constant has another reader: onnxruntime would give it a
 * Squeeze and a Transpose (UnsqueezeInput, TransposeInputImpl Case 1),
 * which fusiondbg does not add: left, said */
static void test_shared_const(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_shared_const.onnx");
	assert_false(w->r.changed);
	assert_int_equal(w->r.n_not_modelled, 1);
	const fd_tpose_event *e = event(&w->r, "Transpose_0", TPOSE_NOT_MODELLED);
	assert_string_equal(e->other, "Mul");
	assert_non_null(strstr(e->text, "another node reads"));
	done(w);
}

/* ReduceSum's axes an input (opset 13): [-1] becomes a new constant [1];
 * without keepdims the perm left is the identity, so nothing follows */
static void test_reduce_sum(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_reduce_sum.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_cancelled, 1);
	assert_int_equal(count_op(&w->r.model, "Transpose"), 0);
	assert_string_equal(input_name(&w->r.model, "ReduceSum", 0), "x");
	assert_string_equal(input_name(&w->r.model, "ReduceSum", 1), "const_transpose_optimizer");
	const fd_graph *g = &w->r.model.graphs[0];
	const fd_tensor *axes = &g->tensors[graph_find_tensor(g, "const_transpose_optimizer")];
	assert_int_equal(axes->value->count, 1);
	assert_int_equal(axes->value->i64[0], 1);
	dims_are(&w->r.model, "r", (const int64_t[]){ 1, 6, 8 }, 3);
	assert_non_null(strstr(event(&w->r, "ReduceSum", TPOSE_CHANGED)->text, "HandleReduceOps"));
	done(w);
}

/* a push that does not cancel: the Transpose merges into the one it meets
 * (HandleTransposeImpl Case 2) and stays after the Gather whose reader
 * has no handler (TransposeOutputs), as in onnxruntime's level-1 graph */
static void test_moved(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_moved.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_cancelled, 0);
	assert_int_equal(w->r.n_not_modelled, 0);
	assert_int_equal(graph_find_node(&w->r.model.graphs[0], "Transpose_0"), FD_NONE);
	assert_string_equal(input_name(&w->r.model, "Gather_a", 0), "x");
	assert_string_equal(input_name(&w->r.model, "Gather_b", 0), "x");
	int_attr_is(&w->r.model, "Gather_b", "axis", 1);
	/* merged: Transpose_1 reads Gather_a's output, perm [1, 2, 0] */
	const fd_attr *perm = node_attr(node(&w->r.model, "Transpose_1"), "perm");
	assert_int_equal(perm->count, 3);
	assert_int_equal(perm->u.ints[0], 1);
	assert_int_equal(perm->u.ints[1], 2);
	assert_int_equal(perm->u.ints[2], 0);
	dims_are(&w->r.model, "a", (const int64_t[]){ 2, 4, 5 }, 3);
	/* moved: Gather_b makes a new tensor, a new Transpose [1, 0, 2] makes b */
	assert_string_equal(input_name(&w->r.model, "Elu_b", 0), "b");
	const fd_graph *g = &w->r.model.graphs[0];
	const fd_node *tr = &g->nodes[g->tensors[graph_find_tensor(g, "b")].producer];
	assert_string_equal(tr->op_type, "Transpose");
	assert_string_equal(g->tensors[tr->inputs[0]].name, "Gather_b");
	assert_int_equal(g->tensors[tr->inputs[0]].producer, graph_find_node(g, "Gather_b"));
	dims_are(&w->r.model, "Gather_b", (const int64_t[]){ 2, 4, 5 }, 3);
	dims_are(&w->r.model, "b", (const int64_t[]){ 4, 2, 5 }, 3);
	const fd_tpose_event *e = event(&w->r, "Transpose_0", TPOSE_MOVED);
	assert_non_null(strstr(e->text, "moved"));
	done(w);
}

static const fd_node *producer_of(const fd_model *m, const char *tensor)
{
	const fd_graph *g = &m->graphs[0];
	int32_t t = graph_find_tensor(g, tensor);
	assert_true(t >= 0 && g->tensors[t].producer >= 0);
	return &g->nodes[g->tensors[t].producer];
}

/* LLaMA's rotary pattern: HandleShape gives the Shape a new Gather; the
 * Mul's computed rank-2 input gets a new Unsqueeze and Transpose
 * (NormalizeInputRanks, TransposeInputImpl Case 4); the push merges into
 * Transpose_1, whose perm [0, 1, 3, 2] becomes [0, 2, 3, 1] */
static void test_rotary(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_rotary.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_not_modelled, 0);
	const fd_model *m = &w->r.model;
	assert_int_equal(graph_find_node(&m->graphs[0], "Transpose_0"), FD_NONE);
	assert_string_equal(input_name(m, "Shape", 0), "x");
	const fd_node *gather = producer_of(m, "shape");
	assert_string_equal(gather->op_type, "Gather");
	assert_string_equal(m->graphs[0].tensors[gather->inputs[0]].name, m->graphs[0].tensors[node(m, "Shape")->outputs[0]].name);
	const fd_tensor *idx = &m->graphs[0].tensors[gather->inputs[1]];
	assert_int_equal(idx->value->count, 4);
	assert_int_equal(idx->value->i64[1], 2);
	assert_string_equal(input_name(m, "Mul", 0), "x");
	const fd_node *tr = producer_of(m, input_name(m, "Mul", 1));
	assert_string_equal(tr->op_type, "Transpose");
	const fd_node *unsq = &m->graphs[0].nodes[m->graphs[0].tensors[tr->inputs[0]].producer];
	assert_string_equal(unsq->op_type, "Unsqueeze");
	assert_string_equal(m->graphs[0].tensors[unsq->inputs[0]].name, "c");
	dims_are(m, input_name(m, "Mul", 1), (const int64_t[]){ 1, 4, 1, 8 }, 4);
	const fd_attr *perm = node_attr(node(m, "Transpose_1"), "perm");
	assert_int_equal(perm->u.ints[1], 2);
	assert_int_equal(perm->u.ints[2], 3);
	assert_int_equal(perm->u.ints[3], 1);
	assert_string_equal(input_name(m, "Transpose_1", 0), "m");
	dims_are(m, "m", (const int64_t[]){ 1, 4, 3, 8 }, 4);
	done(w);
}

/* two Gathers a push stops behind: each makes a new tensor named after it
 * as onnxruntime's MoveOutput does (a name the model has takes a token),
 * never one name for both, and the new Transposes are named after their
 * op type as onnxruntime's CreateNodeHelper names them */
static void test_two_moved(void **state)
{
	(void)state;
	run *w = optimize(DATA "tpose_two_moved.onnx");
	assert_true(w->r.changed);
	const fd_model *m = &w->r.model;
	const fd_graph *g = &m->graphs[0];
	const char *first = input_name(m, producer_of(m, "b_x")->name, 0);
	const char *second = input_name(m, producer_of(m, "c")->name, 0);
	assert_string_equal(first, "c_before_transpose");
	assert_int_equal(g->tensors[graph_find_tensor(g, first)].producer, graph_find_node(g, "c_before_transpose"));
	assert_int_equal(strncmp(second, "b_token_", 8), 0);
	assert_int_equal(g->tensors[graph_find_tensor(g, second)].producer, graph_find_node(g, "b"));
	assert_string_equal(producer_of(m, "b_x")->op_type, "Transpose");
	assert_string_equal(producer_of(m, "b_x")->name, "Transpose");
	assert_int_equal(strncmp(producer_of(m, "c")->name, "Transpose_token_", 16), 0);
	done(w);
}

/* a Linear's weight under QDQ (torch's fake-quant form, per channel):
 * W -> Q -> DQ -> Transpose -> MatMul. FixQDQNodeUnits and ConstantFolding
 * fold the Transpose into the weight: the MatMul reads the DQ, whose axis
 * moves from 0 to 1 and whose output takes the Transpose's shape */
static void test_weight_transpose_folds(void **state)
{
	(void)state;
	run *w = optimize("tests/data/torchq/torchq_trt_block.onnx");
	assert_true(w->r.changed);
	assert_int_equal(w->r.n_folded, 4);
	const fd_tpose_event *e = event(&w->r, "/fc1/Transpose", TPOSE_FOLDED);
	assert_string_equal(e->other, "/fc1/DequantizeLinear_1");
	assert_non_null(strstr(e->text, "TryFixTransposeMissingQ"));
	assert_int_equal(count_op(&w->r.model, "Transpose"), count_op(&w->m, "Transpose") - 4);
	assert_string_equal(input_name(&w->r.model, "/fc1/MatMul", 1), "/fc1/DequantizeLinear_1_output_0");
	const fd_attr *axis = node_attr(node(&w->r.model, "/fc1/DequantizeLinear_1"), "axis");
	assert_non_null(axis);
	assert_int_equal(axis->u.i, 1);
	dims_are(&w->r.model, "/fc1/DequantizeLinear_1_output_0", (const int64_t[]){ 16, 64 }, 2);
	done(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cancel_float),
		cmocka_unit_test(test_cancel_qdq),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_not_modelled),
		cmocka_unit_test(test_layernorm2d),
		cmocka_unit_test(test_gather),
		cmocka_unit_test(test_shared_const),
		cmocka_unit_test(test_reduce_sum),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_two_moved),
		cmocka_unit_test(test_rotary),
		cmocka_unit_test(test_weight_transpose_folds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
