/* cond_qdq_dtype.c — operand condition qdq_dtype: the type quantized data
 * runs as on onnxruntime's CPU. Without int8 support (QDQIsInt8Allowed is
 * false on x86 without VNNI) onnxruntime's QDQS8ToU8Transformer turns an
 * int8 QuantizeLinear -> DequantizeLinear pair into uint8 before the QDQ
 * selectors look at the types, so whether an int8 model's Conv becomes a
 * QLinearConv depends on each pair around it. Its reading, its words and
 * the decision; the check is the operand family's (cond_operand.c). */
#include "match/cond_qdq_dtype.h"
#include <stdio.h>
#include <string.h>
#include "base/text.h"
#include "ir/dtype.h"
#include "ir/onnx_ops.h"
#include "match/conditions.h"
#include "match/match.h"

bool cond_qdq_dtype_parse(fd_schema *s, fd_cond_site *at, const fd_yval *v, const char *path)
{
	return cond_dtype_list_parse(s, v, path, &at->input->qdq_dtypes, &at->input->n_qdq_dtypes);
}

void cond_qdq_dtype_describe(const fd_cond_check *c, char *buf, size_t size)
{
	size_t at = text_appendf(buf, size, 0, "runs as ");
	for (int k = 0; k < c->input->n_qdq_dtypes; k++)
		at = text_appendf(buf, size, at, "%s%s", k ? " | " : "", dtype_name(c->input->qdq_dtypes[k]));
}

/* A zero point QDQS8ToU8 takes: a constant int8 scalar that the caller may
 * not override; its value in *v. */
static bool int8_scalar(const fd_graph *g, const fd_node *n, int64_t *v)
{
	int32_t z = n->n_inputs > 2 ? n->inputs[2] : FD_NONE;
	if (z < 0)
		return false;
	const fd_tensor *x = &g->tensors[z];
	bool constant = (x->kind == TENSOR_INITIALIZER && !x->overridable) || x->kind == TENSOR_CONSTANT;
	if (!constant || x->dtype != DT_INT8 || !x->value || !x->value->i64 || x->value->count != 1)
		return false;
	*v = x->value->i64[0];
	return true;
}

/* The readers of x that stay: a node that only computes constants (a Shape
 * of a static tensor) is folded before the QDQ transformers run. */
static int readers(const fd_graph_index *ix, const fd_tensor *x, int32_t *first)
{
	int n = 0;
	*first = FD_NONE;
	for (int k = 0; k < x->n_consumers; k++) {
		if (match_node_folds(ix, x->consumers[k]))
			continue;
		if (!n++)
			*first = x->consumers[k];
	}
	return n;
}

/* Whether QDQS8ToU8Transformer converts the pair q -> the reader of d
 * (onnxruntime: the Q's only output edge goes to a DQ, after
 * EnsureUniqueDQForNodeUnit gave each further reader of that DQ a copy of
 * its own; both zero points constant int8 scalars of one value). */
static bool converts(const fd_graph_index *ix, int32_t q, int32_t d, char *why, size_t size)
{
	const fd_graph *g = ix->g;
	const fd_tensor *x = &g->tensors[d];
	const char *qn = g->nodes[q].name;
	if (x->is_graph_output) {
		text_cutf(why, size, "%s is a graph output", x->name);
		return false;
	}
	int32_t dq;
	int nq = readers(ix, x, &dq);
	if (nq != 1) {
		text_cutf(why, size, "%s has %d readers, not one DequantizeLinear", qn, nq);
		return false;
	}
	if (!graph_node_is(g, dq, "DequantizeLinear")) {
		text_cutf(why, size, "%s's reader %s is no DequantizeLinear", qn, g->nodes[dq].name);
		return false;
	}
	const fd_node *dn = &g->nodes[dq];
	const fd_tensor *o = dn->n_outputs > 0 && dn->outputs[0] >= 0 ? &g->tensors[dn->outputs[0]] : NULL;
	int32_t first;
	int nd = o ? readers(ix, o, &first) : 0;
	int copies = nd == 0 ? 1 : nd + (o->is_graph_output ? 1 : 0);
	if (copies != 1) {
		text_cutf(why, size, "%s is read %d times, so %s feeds %d copies of it (EnsureUniqueDQForNodeUnit)", dn->name,
		          nd + (o->is_graph_output ? 1 : 0), qn, copies);
		return false;
	}
	int64_t zq, zd;
	if (!int8_scalar(g, &g->nodes[q], &zq) || !int8_scalar(g, dn, &zd)) {
		text_cutf(why, size, "a zero point of %s -> %s is no constant int8 scalar", qn, dn->name);
		return false;
	}
	if (zq != zd) {
		text_cutf(why, size, "the zero points of %s (%lld) and %s (%lld) differ", qn, (long long)zq,
		          dn->name, (long long)zd);
		return false;
	}
	text_cutf(why, size, "QDQS8ToU8Transformer turns %s -> %s into uint8", qn, dn->name);
	return true;
}

/* The ops (at these versions) onnxruntime's QDQPropagationTransformer moves
 * a DequantizeLinear forward through (qdq_propagation.cc, CanNodePropagate). */
static bool propagates(const fd_model *m, const fd_node *n)
{
	static const struct { const char *op; int versions[4]; } OPS[] = {
		{ "MaxPool", { 12 } }, { "Reshape", { 5, 13, 14, 19 } }, { "Transpose", { 1, 13 } },
		{ "Squeeze", { 1, 11, 13 } }, { "Unsqueeze", { 1, 11, 13 } }, { "Slice", { 1, 10, 11, 13 } },
	};
	if (!m || !n->op_type || (n->domain && n->domain[0]))
		return false;
	int64_t opset = -1;
	for (int32_t k = 0; k < m->n_opsets; k++)
		if (!m->opsets[k].domain[0])
			opset = m->opsets[k].version;
	for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++) {
		if (strcmp(n->op_type, OPS[i].op))
			continue;
		int since = opset > 0 ? onnx_op_since_version("", n->op_type, (int)opset) : -1;
		for (int k = 0; k < 4 && OPS[i].versions[k]; k++)
			if (since == OPS[i].versions[k])
				return true;
	}
	return false;
}

/* A constant scale or zero point of one element (QOrDQNodeHasConstantScalar-
 * ScaleAndZeroPoint: rank 0, or rank 1 of size 1); an absent zero point passes. */
static bool scalar_param(const fd_graph *g, const fd_node *n, int slot)
{
	int32_t t = n->n_inputs > slot ? n->inputs[slot] : FD_NONE;
	if (t < 0)
		return slot == 2;
	const fd_tensor *x = &g->tensors[t];
	bool constant = (x->kind == TENSOR_INITIALIZER && !x->overridable) || x->kind == TENSOR_CONSTANT;
	return constant && (x->shape.rank == 0 || (x->shape.rank == 1 && x->shape.dims[0].value == 1));
}

/* The DequantizeLinear whose pair QDQPropagationTransformer copies onto the
 * output t of a node it propagates through, or FD_NONE: back from t through
 * such nodes (input 0, none of their outputs a graph output) to a DQ read
 * once, not a graph output, with a constant one-element scale and zero
 * point. Each reader of t but a QuantizeLinear then reads a copy of the DQ. */
static int32_t propagated_dq(const fd_graph_index *ix, const fd_model *m, int32_t t)
{
	const fd_graph *g = ix->g;
	for (int depth = 0; depth < 64 && t >= 0; depth++) {
		int32_t p = g->tensors[t].producer;
		if (p < 0 || g->tensors[t].is_graph_output)
			return FD_NONE;
		const fd_node *n = &g->nodes[p];
		if (graph_node_is(g, p, "DequantizeLinear")) {
			if (depth == 0 || g->tensors[t].n_consumers != 1 || !scalar_param(g, n, 1) || !scalar_param(g, n, 2))
				return FD_NONE;
			return p;
		}
		if (!propagates(m, n) || n->n_inputs < 1)
			return FD_NONE;
		t = n->inputs[0];
	}
	return FD_NONE;
}

int32_t cond_qdq_dtype_of(const fd_graph_index *ix, const fd_model *m, int32_t node, int slot, int32_t t,
                          int32_t *data, char *why, size_t size)
{
	const fd_graph *g = ix->g;
	int32_t d = t, dq;
	if (slot != 2 && t >= 0 && !graph_node_is(g, node, "QuantizeLinear") && (dq = propagated_dq(ix, m, t)) >= 0) {
		/* the copied pair's data is the DQ's; its Q writes for as many DQs as
		 * t has readers other than a Q: int8 turns uint8 only for one */
		*data = g->nodes[dq].n_inputs > 0 ? g->nodes[dq].inputs[0] : FD_NONE;
		if (*data < 0)
			return DT_UNDEFINED;
		int32_t dt = g->tensors[*data].dtype, first;
		int n = readers(ix, &g->tensors[t], &first);
		int64_t z;
		text_cutf(why, size, "QDQPropagationTransformer copies %s's pair after %s", g->nodes[dq].name,
		          g->nodes[g->tensors[t].producer].name);
		return dt == DT_INT8 && n == 1 && int8_scalar(g, &g->nodes[dq], &z) ? DT_UINT8 : dt;
	}
	if (slot == 2 && graph_node_is(g, node, "QuantizeLinear") && g->nodes[node].n_outputs > 0)
		d = g->nodes[node].outputs[0];
	else if (slot == 2 && graph_node_is(g, node, "DequantizeLinear") && g->nodes[node].n_inputs > 0)
		d = g->nodes[node].inputs[0];
	else if (d >= 0 && graph_node_is(g, g->tensors[d].producer, "DequantizeLinear"))
		d = g->nodes[g->tensors[d].producer].n_inputs > 0 ? g->nodes[g->tensors[d].producer].inputs[0] : FD_NONE;
	why[0] = '\0';
	*data = d;
	if (d < 0)
		return DT_UNDEFINED;
	const fd_tensor *x = &g->tensors[d];
	if (x->dtype != DT_INT8 || !graph_node_is(g, x->producer, "QuantizeLinear"))
		return x->dtype;
	return converts(ix, x->producer, d, why, size) ? DT_UINT8 : DT_INT8;
}
