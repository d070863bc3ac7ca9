/* shape_onnx_mode.c — shapes as ONNX's standard inference derives them
 * (`--shapes onnx`, the rule set's `shapes: onnx`). A value every input of
 * whose node is a folded constant is one too: a compiler folds it before
 * it fuses (a Shape of static dims included). A value computed from a
 * Shape of dynamic dims is known only by data propagation, which ONNX does
 * through a few ops: Shape, Size, Cast, Concat, Gather, Slice, Squeeze,
 * Unsqueeze, Identity, and Add, Sub, Mul from opset 14 on, and with numbers
 * only: a symbolic element (batch) is unknown there. Past any other op (a
 * Div, an opset-13 Mul) the value is gone, and so are the dims a Reshape or
 * an Expand would have read from it. Older inference functions do not read
 * a propagated value at all: Reshape before opset 14 infers its output only
 * from a constant shape, and nothing, not even the rank, without one. And
 * nearly every ONNX inference function needs the shapes of all its inputs:
 * where one has none (not even a rank), its outputs get none either. */
#include <string.h>
#include "shape/shape_infer.h"

static bool propagates(const char *op_type, int64_t opset)
{
	static const char *const always[] = { "Shape", "Size", "Cast", "Concat", "Gather", "Slice", "Squeeze",
	                                      "Unsqueeze", "Identity" };
	for (size_t k = 0; k < sizeof always / sizeof *always; k++)
		if (!strcmp(op_type, always[k]))
			return true;
	return opset >= 14 && (!strcmp(op_type, "Add") || !strcmp(op_type, "Sub") || !strcmp(op_type, "Mul"));
}

/* Node n's inputs give a folded value: each has one, not propagated; a
 * Shape or Size needs only its input's dims, every one a number. */
static bool inputs_folded(const fd_graph *g, const fd_node *n)
{
	bool of_dims = node_is(n, "Shape") || node_is(n, "Size");
	for (int32_t k = 0; k < n->n_inputs; k++) {
		if (n->inputs[k] == FD_NONE)
			continue;
		const fd_tensor *t = &g->tensors[n->inputs[k]];
		if (of_dims && k == 0) {
			if (!shape_is_known(&t->shape))
				return false;
			continue;
		}
		if (!t->value || t->value->propagated)
			return false;
	}
	return true;
}

bool shape_onnx_mode_reads_folded_only(const shape_ctx *c, int i)
{
	/* Reshape-5 and -13 read the shape with getInputData: a constant only */
	bool folded_only = node_is(c->n, "Reshape") && c->opset >= 5 && c->opset < 14 && i == 1;
	if (!c->m->shapes_onnx || !folded_only)
		return false;
	const fd_tensor *t = sh_in(c, i);
	return !(t && t->value && !t->value->propagated);
}

/* The ONNX ops whose inference gives a shape without knowing every input's:
 * Shape and Size (a rank-1 or scalar output), the generators, Reshape from
 * opset 14 (its target), and the ops with bodies (their outputs). */
static bool infers_without_input_shapes(const char *op_type)
{
	static const char *const ops[] = { "Shape", "Size", "Constant", "ConstantOfShape", "Range", "Reshape",
	                                   "If", "Loop", "Scan", "RandomNormal", "RandomUniform" };
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
		if (!strcmp(op_type, ops[k]))
			return true;
	return false;
}

/* The ONNX ops whose inference reads input 0's shape only: the data a
 * scatter writes into. */
static bool needs_input0_shape_only(const char *op_type)
{
	return !strcmp(op_type, "ScatterND") || !strcmp(op_type, "ScatterElements") || !strcmp(op_type, "Scatter");
}

/* Node n has an input without a shape that ONNX's inference of it needs,
 * which then gives nothing: its inferred output shapes are dropped. */
static void drop_shapes_without_inputs(shape_ctx *c)
{
	const fd_node *n = c->n;
	bool blind = false;
	if (n->domain[0] || infers_without_input_shapes(n->op_type))
		return;
	int32_t needed = needs_input0_shape_only(n->op_type) ? 1 : n->n_inputs;
	for (int32_t k = 0; k < needed && k < n->n_inputs && !blind; k++)
		blind = n->inputs[k] != FD_NONE && c->g->tensors[n->inputs[k]].shape.rank < 0;
	for (int32_t o = 0; blind && o < n->n_outputs; o++) {
		if (n->outputs[o] == FD_NONE)
			continue;
		fd_tensor *t = &c->g->tensors[n->outputs[o]];
		if (t->shape_declared || (t->value && !t->value->propagated))
			continue;
		t->shape.rank = -1;
		t->shape.dims = NULL;
	}
}

/* After node n's fn: its output shapes and values as ONNX's inference
 * would have them. */
void shape_onnx_mode_settle(shape_ctx *c)
{
	const fd_node *n = c->n;
	if (!c->m->shapes_onnx)
		return;
	drop_shapes_without_inputs(c);
	if (inputs_folded(c->g, n))
		return;
	bool keep = !n->domain[0] && propagates(n->op_type, c->opset);
	for (int32_t o = 0; o < n->n_outputs; o++) {
		if (n->outputs[o] == FD_NONE)
			continue;
		fd_tensor *t = &c->g->tensors[n->outputs[o]];
		if (!t->value || t->value->propagated)
			continue;
		if (!keep) {
			t->value = NULL;
			continue;
		}
		/* a value passed on from an input is that input's too: mark a copy */
		fd_const *v = arena_alloc(&c->m->arena, sizeof *v);
		*v = *t->value;
		v->propagated = true;
		if (v->sym) {
			fd_sint *nums = arena_array(&c->m->arena, (size_t)v->count + 1, sizeof *nums);
			for (int64_t k = 0; k < v->count; k++)
				nums[k] = v->sym[k].e ? sint_unknown() : v->sym[k];
			v->sym = nums;
			v->i64 = NULL;   /* some element is not a number */
		}
		t->value = v;
	}
}

/* After the whole model: a dim no rule could name (a fresh unk__N, which
 * fusiondbg's own inference carries from one tensor to the next) is unknown
 * to ONNX's inference, and two of them are never the same dim there. */
void shape_onnx_mode_finish(fd_model *m)
{
	if (!m->shapes_onnx)
		return;
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++) {
			fd_shape *sh = &g->tensors[t].shape;
			bool fresh = false;
			for (int32_t k = 0; k < sh->rank && !fresh; k++)
				fresh = sh->dims[k].expr && dexpr_has_fresh(sh->dims[k].expr);
			if (!fresh)
				continue;
			fd_dim *dims = arena_array(&m->arena, (size_t)sh->rank, sizeof *dims);
			for (int32_t k = 0; k < sh->rank; k++)
				dims[k] = sh->dims[k].expr && dexpr_has_fresh(sh->dims[k].expr) ? dim_unknown() : sh->dims[k];
			sh->dims = dims;   /* the old array may be shared: never written */
		}
	}
}
