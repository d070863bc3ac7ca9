/* apply.c — `apply`'s rewrite from a match result and its rules (apply.h
 * says what each fused node is); onnx/onnx_write.c writes it. */
#include <stdlib.h>
#include <string.h>
#include "export/apply.h"
#include "session/session_internal.h"

typedef struct builder {
	const fd_match_result *r;
	const fd_model *m;
	fd_rewrite *rw;
	fd_diags *d;
} builder;

/* ---- attributes from YAML values ---------------------------------------------- */

static bool is_int(const fd_yval *v, int64_t *x)
{
	return v->kind == YV_SCALAR && !v->quoted && yval_int(v, x);
}

static bool is_num(const fd_yval *v, double *x)
{
	return v->kind == YV_SCALAR && !v->quoted && yval_float(v, x);
}

/* A value's YAML text (scalars as written, collections in flow style). */
static const char *yaml_text(fd_arena *a, const fd_yval *v)
{
	if (v->kind == YV_SCALAR && v->text)
		return arena_strdup(a, v->text);
	char *c = yval_canon_dup(v);
	char *t = arena_strdup(a, c);
	free(c);
	return t;
}

/* false for a null value (no attribute). */
static bool yaml_attr(fd_arena *a, const char *name, const fd_yval *v, fd_attr *out)
{
	int64_t i;
	double f;
	bool b;
	if (!v || v->kind == YV_NULL)
		return false;
	*out = (fd_attr){ .name = name, .count = 1 };
	if (v->kind == YV_SCALAR) {
		if (is_int(v, &i)) {
			out->type = ATTR_INT;
			out->u.i = i;
		} else if (is_num(v, &f)) {
			out->type = ATTR_FLOAT;
			out->u.f = f;
		} else if (!v->quoted && yval_bool(v, &b)) {
			out->type = ATTR_INT;
			out->u.i = b;
		} else {
			out->type = ATTR_STRING;
			out->u.s = yaml_text(a, v);
		}
		return true;
	}
	if (v->kind != YV_SEQ) {
		out->type = ATTR_STRING;
		out->u.s = yaml_text(a, v);
		return true;
	}
	bool ints = true, nums = true;
	for (size_t k = 0; k < v->n; k++) {
		ints = ints && is_int(v->items[k], &i);
		nums = nums && is_num(v->items[k], &f);
	}
	out->count = (int64_t)v->n;
	if (v->n && ints) {
		out->type = ATTR_INTS;
		out->u.ints = arena_array(a, v->n, sizeof *out->u.ints);
		for (size_t k = 0; k < v->n; k++)
			yval_int(v->items[k], &out->u.ints[k]);
	} else if (v->n && nums) {
		out->type = ATTR_FLOATS;
		out->u.floats = arena_array(a, v->n, sizeof *out->u.floats);
		for (size_t k = 0; k < v->n; k++)
			yval_float(v->items[k], &out->u.floats[k]);
	} else {
		out->type = ATTR_STRINGS;
		out->u.strings = arena_array(a, v->n + 1, sizeof *out->u.strings);
		for (size_t k = 0; k < v->n; k++)
			out->u.strings[k] = yaml_text(a, v->items[k]);
	}
	return true;
}

/* ---- one fused node ------------------------------------------------------------ */

/* External inputs of match op `op` (its member nodes' inputs, slot order, not
 * made inside the fusion). */
static int32_t unit_external_inputs(const builder *b, const fd_fusion *fu, int op, int32_t *out, int32_t max)
{
	const fd_graph *g = &b->m->graphs[fu->graph];
	const int32_t *members;
	int32_t unit = match_fusion_stand_in(b->r, fu, op);
	if (unit == FD_NONE)
		return 0;
	int32_t nm = match_unit_nodes(b->r->ctx, fu->graph, unit, &members);
	const int32_t *claim = b->r->claim[fu->graph];
	int32_t fi = (int32_t)(fu - b->r->fusions);
	int32_t n = 0;
	for (int32_t k = 0; k < nm; k++) {
		const fd_node *nd = &g->nodes[members[k]];
		for (int32_t s = 0; s < nd->n_inputs && n < max; s++) {
			int32_t t = nd->inputs[s];
			if (t < 0)
				continue;
			int32_t p = g->tensors[t].producer;
			if (p >= 0 && claim[p] == fi)
				continue;
			bool dup = false;
			for (int32_t j = 0; j < n; j++)
				dup = dup || out[j] == t;
			if (!dup)
				out[n++] = t;
		}
	}
	return n;
}

static const char *unique_name(fd_arena *a, const fd_graph *g, const char *base)
{
	char *name = arena_printf(a, "fused_%s", base);
	for (int k = 2; graph_find_node(g, name) >= 0; k++)
		name = arena_printf(a, "fused_%s_%d", base, k);
	return name;
}

/* The declared ports, then every other external input. */
static void fused_inputs(builder *b, const fd_fusion *fu, fd_fused_node *fn)
{
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_graph *g = &b->m->graphs[fu->graph];
	const int32_t *ext = fusion_ids(b->r, fu->inputs);
	size_t cap = (size_t)fu->n_inputs + (size_t)rule->n_rewrite_inputs + 1;
	const char **in = arena_array(&b->rw->arena, cap, sizeof *in);
	bool *used = arena_array(&b->rw->arena, (size_t)fu->n_inputs + 1, sizeof *used);
	size_t n_in = 0;
	for (int k = 0; k < rule->n_rewrite_inputs; k++) {
		const fd_rewrite_input *ri = &rule->rewrite_inputs[k];
		if (ri->input_port < 0 || (size_t)ri->input_port >= cap - 1)
			continue;
		int32_t t = FD_NONE;
		if (ri->from_op >= 0 && ri->from_op < fu->n_ops) {
			int32_t buf[64];
			int32_t n = unit_external_inputs(b, fu, ri->from_op, buf, 64);
			int idx = ri->output_idx >= 0 ? ri->output_idx : 0;
			if (idx < n)
				t = buf[idx];
		}
		if (t == FD_NONE) {
			diag_warning(b->d, yval_pos(ri->where), "%s: rewrite.inputs[%d] (from_op %d, output_idx %d) names no "
			             "external input of the fusion at %s; port %d left empty", rule->name, k, ri->from_op,
			             ri->output_idx, fn->name, ri->input_port);
			continue;
		}
		while (n_in <= (size_t)ri->input_port)
			in[n_in++] = "";
		in[ri->input_port] = g->tensors[t].name;
		for (int32_t j = 0; j < fu->n_inputs; j++)
			if (ext[j] == t)
				used[j] = true;
	}
	for (size_t k = 0; k < n_in; k++)
		if (!*in[k])
			diag_warning(b->d, yval_pos(rule->root), "%s: fused node %s has no input at port %zu", rule->name,
			             fn->name, k);
	for (int32_t j = 0; j < fu->n_inputs; j++)
		if (!used[j] && n_in < cap)
			in[n_in++] = g->tensors[ext[j]].name;
	fn->n_inputs = (int32_t)n_in;
	fn->inputs = in;
}

/* rewrite.attributes, then fused_nodes and fusion_rule. */
static void fused_attrs(builder *b, const fd_fusion *fu, fd_fused_node *fn)
{
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_graph *g = &b->m->graphs[fu->graph];
	fd_arena *a = &b->rw->arena;
	const fd_yval *attrs = rule->rewrite_attributes;
	size_t n_yaml = attrs && attrs->kind == YV_MAP ? attrs->n : 0;
	fn->attrs = arena_array(a, n_yaml + 2, sizeof *fn->attrs);
	for (size_t k = 0; k < n_yaml; k++) {
		const char *key = attrs->keys[k]->text;
		if (!key || !*key)
			continue;   /* the schema refuses it; an ONNX attribute never has an empty name */
		if (!strcmp(key, "fused_nodes") || !strcmp(key, "fusion_rule")) {
			diag_warning(b->d, yval_pos(attrs->keys[k]), "%s: rewrite.attributes.%s is fusiondbg's own; ignored",
			             rule->name, key);
			continue;
		}
		if (yaml_attr(a, key, attrs->items[k], &fn->attrs[fn->n_attrs]))
			fn->n_attrs++;
	}
	fd_attr *nodes = &fn->attrs[fn->n_attrs++];
	*nodes = (fd_attr){ .name = "fused_nodes", .type = ATTR_STRINGS, .count = fn->n_members };
	nodes->u.strings = arena_array(a, (size_t)fn->n_members + 1, sizeof *nodes->u.strings);
	for (int32_t j = 0; j < fn->n_members; j++)
		nodes->u.strings[j] = g->nodes[fn->members[j]].name;
	fn->attrs[fn->n_attrs++] = (fd_attr){ .name = "fusion_rule", .type = ATTR_STRING, .count = 1,
	                                      .u.s = rule->name };
}

static void fused_node(builder *b, size_t fi)
{
	const fd_fusion *fu = &b->r->fusions[fi];
	const fd_rule *rule = &b->r->rules->rules[fu->rule];
	const fd_graph *g = &b->m->graphs[fu->graph];
	fd_arena *a = &b->rw->arena;
	fd_fused_node *fn = rewrite_add(b->rw, fu->graph);
	fn->n_members = fu->n_nodes;
	fn->members = arena_memdup(a, fusion_ids(b->r, fu->nodes), (size_t)fu->n_nodes * sizeof *fn->members);
	int32_t anchor = match_unit_node(b->r->ctx, fu->graph, fu->anchor);
	fn->name = unique_name(a, g, anchor >= 0 ? g->nodes[anchor].name : rule->name);
	fn->op_type = rule->target_op && *rule->target_op ? rule->target_op : "FusedOp";
	fn->domain = FD_FUSED_DOMAIN;
	fused_inputs(b, fu, fn);
	const int32_t *outs = fusion_ids(b->r, fu->outputs);
	fn->n_outputs = fu->n_outputs;
	fn->outputs = arena_array(a, (size_t)fu->n_outputs + 1, sizeof *fn->outputs);
	for (int32_t j = 0; j < fu->n_outputs; j++)
		fn->outputs[j] = g->tensors[outs[j]].name;
	fused_attrs(b, fu, fn);
}

void apply_rewrite(const fd_match_result *r, fd_rewrite *rw, fd_diags *d)
{
	builder b = { r, r->ctx->model, rw, d };
	/* a fusion's place: its last member in file order */
	int32_t *last = xcalloc(r->n_fusions + 1, sizeof *last);
	for (size_t f = 0; f < r->n_fusions; f++) {
		const int32_t *nodes = fusion_ids(r, r->fusions[f].nodes);
		last[f] = -1;
		for (int32_t j = 0; j < r->fusions[f].n_nodes; j++)
			if (nodes[j] > last[f])
				last[f] = nodes[j];
	}
	for (int32_t gi = 0; gi < b.m->n_graphs; gi++)
		for (int32_t i = 0; i < b.m->graphs[gi].n_nodes; i++) {
			int32_t f = r->claim[gi][i];
			if (f >= 0 && last[f] == i)
				fused_node(&b, (size_t)f);
		}
	free(last);
}
