/* float_ops.c — the ops a quantized model leaves in float: which nodes of a
 * graph with QuantizeLinear / DequantizeLinear read a DequantizeLinear's
 * output or write what a QuantizeLinear reads, and are in no fusion of the
 * Q/DQ nodes around them. These are the ops a compiler runs in float
 * between a dequantize and a quantize: export marks them, `why --float`
 * answers for them (why_float.c). */
#include <string.h>
#include "explain/explain.h"

/* onnxruntime's contrib QuantizeLinear / DequantizeLinear count as ONNX's. */
static bool is_qdq_op(const fd_node *n, const char *type)
{
	return node_is(n, type) || (!strcmp(n->domain, "com.microsoft") && !strcmp(n->op_type, type));
}

bool explain_is_qdq_node(const fd_node *n)
{
	return is_qdq_op(n, "QuantizeLinear") || is_qdq_op(n, "DequantizeLinear");
}

bool explain_graph_quantized(const fd_graph *g)
{
	bool q = false, dq = false;
	for (int32_t n = 0; n < g->n_nodes && !(q && dq); n++) {
		q |= is_qdq_op(&g->nodes[n], "QuantizeLinear");
		dq |= is_qdq_op(&g->nodes[n], "DequantizeLinear");
	}
	return q && dq;
}

/* A fusion of quantize or dequantize nodes: the integer kernel a QDQ rule makes. */
static bool qdq_fusion(const fd_match_result *r, int32_t f)
{
	const fd_fusion *fu = &r->fusions[f];
	const fd_graph *g = &r->ctx->model->graphs[fu->graph];
	const int32_t *nodes = fusion_ids(r, fu->nodes);
	for (int32_t i = 0; i < fu->n_nodes; i++)
		if (explain_is_qdq_node(&g->nodes[nodes[i]]))
			return true;
	return false;
}

bool explain_left_in_float(const fd_match_result *r, int32_t graph, int32_t node)
{
	const fd_graph_index *ix = &r->ctx->graphs[graph];
	const fd_graph *g = ix->g;
	const fd_node *n = &g->nodes[node];
	if (explain_is_qdq_node(n) || match_node_is_constant(ix, node))
		return false;
	int32_t f = r->claim && graph < r->n_claim ? r->claim[graph][node] : -1;
	if (f >= 0 && qdq_fusion(r, f))
		return false;
	bool between = false;
	for (int32_t k = 0; k < n->n_inputs && !between; k++) {
		int32_t t = n->inputs[k];
		int32_t p = t != FD_NONE ? g->tensors[t].producer : FD_NONE;
		between = p != FD_NONE && is_qdq_op(&g->nodes[p], "DequantizeLinear");
	}
	for (int32_t k = 0; k < n->n_outputs && !between; k++) {
		int32_t t = n->outputs[k];
		for (int32_t c = 0; t != FD_NONE && c < g->tensors[t].n_consumers && !between; c++)
			between = is_qdq_op(&g->nodes[g->tensors[t].consumers[c]], "QuantizeLinear");
	}
	return between;
}

int32_t explain_float_ops(const fd_match_result *r, int32_t graph, bool *out)
{
	const fd_graph *g = &r->ctx->model->graphs[graph];
	int32_t count = 0;
	bool quantized = explain_graph_quantized(g);
	for (int32_t n = 0; n < g->n_nodes; n++) {
		bool f = quantized && explain_left_in_float(r, graph, n);
		if (out)
			out[n] = f;
		count += f;
	}
	return count;
}
