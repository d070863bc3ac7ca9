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

int32_t cond_qdq_dtype_of(const fd_graph_index *ix, int32_t node, int slot, int32_t t, int32_t *data, char *why,
                          size_t size)
{
	const fd_graph *g = ix->g;
	int32_t d = t;
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
