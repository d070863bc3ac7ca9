/* model_info.c — counts and lists for `info`: nodes, op histogram, tensors by
 * kind, inputs and outputs, shape coverage, unknown op types, symbolic dims.
 * Sorting makes every list independent of hash order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/model_info.h"
#include "ir/onnx_ops.h"
#include "base/strmap.h"

static const char *const kind_names[] = {
	[TENSOR_ACTIVATION] = "activation", [TENSOR_GRAPH_INPUT] = "graph_input",
	[TENSOR_INITIALIZER] = "initializer", [TENSOR_CONSTANT] = "constant",
	[TENSOR_OUTER_SCOPE] = "outer_scope",
};

const char *tensor_kind_name(fd_tensor_kind k)
{
	return k <= TENSOR_OUTER_SCOPE ? kind_names[k] : "unknown";
}

static int by_count_then_key(const void *a, const void *b)
{
	const fd_op_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int by_domain_then_type(const void *a, const void *b)
{
	const fd_op_count *x = a, *y = b;
	int r = strcmp(x->domain, y->domain);
	return r ? r : strcmp(x->op_type, y->op_type);
}

static char *op_key(const char *domain, const char *op_type)
{
	if (!domain[0])
		return xstrdup(op_type);
	size_t n = strlen(domain) + strlen(op_type) + 2;
	char *k = xmalloc(n);
	snprintf(k, n, "%s.%s", domain, op_type);
	return k;
}

static void count_ops(const fd_model *m, fd_model_info *info)
{
	strmap index;        /* key → histogram slot */
	size_t cap = 0;
	strmap_init(&index);
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		for (int32_t i = 0; i < g->n_nodes; i++) {
			const fd_node *n = &g->nodes[i];
			char *key = op_key(n->domain, n->op_type);
			int32_t slot = strmap_get(&index, key);
			if (slot >= 0) {
				info->histogram[slot].count++;
				free(key);
				continue;
			}
			if ((size_t)info->n_histogram == cap) {
				cap = cap ? cap * 2 : 64;
				info->histogram = xrealloc(info->histogram, cap * sizeof *info->histogram);
			}
			slot = info->n_histogram++;
			info->histogram[slot] = (fd_op_count){ n->domain, n->op_type, key, 1 };
			strmap_put(&index, key, slot);
		}
	}
	strmap_release(&index);
	for (int32_t i = 0; i < info->n_histogram; i++) {
		const fd_op_count *c = &info->histogram[i];
		if (onnx_op_is_standard(c->domain, c->op_type))
			continue;
		info->unknown_ops = xrealloc(info->unknown_ops, ((size_t)info->n_unknown_ops + 1) * sizeof *c);
		info->unknown_ops[info->n_unknown_ops] = *c;
		info->unknown_ops[info->n_unknown_ops++].key = xstrdup(c->key);
	}
	qsort(info->histogram, (size_t)info->n_histogram, sizeof *info->histogram, by_count_then_key);
	if (info->n_unknown_ops)
		qsort(info->unknown_ops, (size_t)info->n_unknown_ops, sizeof *info->unknown_ops, by_domain_then_type);
}

static fd_value_info *value_list(const fd_graph *g, const int32_t *ids, int32_t n)
{
	fd_value_info *v = xcalloc((size_t)n + 1, sizeof *v);
	for (int32_t i = 0; i < n; i++) {
		const fd_tensor *x = &g->tensors[ids[i]];
		v[i] = (fd_value_info){ x->name, x->dtype, &x->shape };
	}
	return v;
}

void model_info_compute(const fd_model *m, fd_model_info *info)
{
	memset(info, 0, sizeof *info);
	info->ir_version = m->ir_version;
	info->n_opsets = m->n_opsets;
	info->opsets = m->opsets;
	info->producer_name = m->producer_name ? m->producer_name : "";
	info->producer_version = m->producer_version ? m->producer_version : "";
	info->file_size = m->file_size;
	info->graphs = m->n_graphs;
	info->n_symdims = m->n_symdims;
	info->symdims = m->symdims;
	if (m->n_graphs == 0)
		return;
	info->nodes = m->graphs[0].n_nodes;
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		const fd_graph *g = &m->graphs[gi];
		info->nodes_total += g->n_nodes;
		if (g->depth > info->max_depth)
			info->max_depth = g->depth;
		for (int32_t t = 0; t < g->n_tensors; t++) {
			const fd_tensor *x = &g->tensors[t];
			if (x->kind <= TENSOR_OUTER_SCOPE)
				info->tensors_by_kind[x->kind]++;
			if (x->kind != TENSOR_OUTER_SCOPE)
				info->tensors++;
			if (x->kind == TENSOR_INITIALIZER || x->kind == TENSOR_CONSTANT)
				info->constants++;
			if (x->external_data)
				info->external_tensors++;
		}
	}
	count_ops(m, info);
	info->shape_coverage = model_shape_coverage(m);
	const fd_graph *g = &m->graphs[0];
	info->n_inputs = g->n_inputs;
	info->inputs = value_list(g, g->inputs, g->n_inputs);
	info->n_declared_inputs = g->n_declared_inputs;
	int32_t *listed = xcalloc((size_t)g->n_tensors + 1, sizeof *listed);
	for (int32_t t = 0; t < g->n_tensors; t++)
		if (g->tensors[t].kind == TENSOR_INITIALIZER && g->tensors[t].listed_input) {
			listed[info->n_listed_initializers++] = t;
			info->n_overridable += g->tensors[t].overridable;
		}
	info->listed_initializers = value_list(g, listed, info->n_listed_initializers);
	free(listed);
	info->n_outputs = g->n_outputs;
	info->outputs = value_list(g, g->outputs, g->n_outputs);
}

void model_info_release(fd_model_info *info)
{
	for (int32_t i = 0; i < info->n_histogram; i++)
		free(info->histogram[i].key);
	for (int32_t i = 0; i < info->n_unknown_ops; i++)
		free(info->unknown_ops[i].key);
	free(info->histogram);
	free(info->unknown_ops);
	free(info->inputs);
	free(info->outputs);
	free(info->listed_initializers);
	memset(info, 0, sizeof *info);
}
