/* fuse.c — fused nodes from a match result (fuse.h says what each one is):
 * name, ports, and the attributes — the rewrite's, then the members'
 * namespaced by member. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "base/strmap.h"
#include "rounds/fuse.h"

typedef struct builder {
	const fd_match_result *r;
	const fd_model *m;
	fd_rewrite *rw;
	fd_diags *d;
	int32_t round;
	fd_fuse_names *names_made;  /* members' dotted names, shared across rounds, or NULL */
	const fd_rule *rule;       /* of the node being built */
	VEC(fd_attr) attrs;        /* the node's attributes, being built */
	strmap names;              /* their names → index: a nested fused node has as many as
	                            * the rounds before it made, so no scan per attribute */
} builder;

/* ---- attributes ---------------------------------------------------------------- */

static const char *const reserved[] = { "fused_nodes", "fused_op_types", "fusion_rule", "fusion_round",
	                                       "original_nodes" };

static bool is_reserved(const char *name)
{
	for (size_t k = 0; k < sizeof reserved / sizeof *reserved; k++)
		if (!strcmp(name, reserved[k]))
			return true;
	return false;
}

/* Adds a unless the node has an attribute of that name already (the first
 * one stays; the warning names the rule's line when there is one). */
static void add_attr(builder *b, const fd_attr *a, const fd_yval *where)
{
	if (strmap_put(&b->names, a->name, (int32_t)b->attrs.n) != (int32_t)b->attrs.n) {
		diag_warning(b->d, yval_pos(where ? where : b->rule->root),
		             "%s: the fused node has two attributes named %s; the first is kept", b->rule->name, a->name);
		return;
	}
	vec_push(&b->attrs, *a);
}

/* "PREFIX.NAME" in the arena, by copies: a member's name is as long as
 * the rounds that nested it. */
static const char *dotted(fd_arena *a, const char *prefix, const char *name)
{
	size_t np = strlen(prefix), nn = strlen(name);
	char *s = arena_alloc(a, np + 1 + nn + 1);
	memcpy(s, prefix, np);
	s[np] = '.';
	memcpy(s + np + 1, name, nn + 1);
	return s;
}

static bool is_int(const fd_yval *v, int64_t *x)
{
	return v->kind == YV_SCALAR && !v->quoted && yval_int(v, x);
}

static bool is_num(const fd_yval *v, double *x)
{
	return v->kind == YV_SCALAR && !v->quoted && yval_float(v, x);
}

static void scalar_attr(fd_arena *a, const fd_yval *v, fd_attr *out)
{
	int64_t i;
	double f;
	bool t;
	if (is_int(v, &i)) {
		out->type = ATTR_INT;
		out->u.i = i;
	} else if (is_num(v, &f)) {
		out->type = ATTR_FLOAT;
		out->u.f = f;
	} else if (!v->quoted && yval_bool(v, &t)) {
		out->type = ATTR_INT;
		out->u.i = t;
	} else {
		out->type = ATTR_STRING;
		out->u.s = arena_strdup(a, v->text ? v->text : "");
	}
}

/* A list of scalars: INTS when every item is an integer, FLOATS when every
 * one is a number, else STRINGS. */
static void list_attr(fd_arena *a, const fd_yval *v, fd_attr *out)
{
	int64_t i;
	double f;
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
			out->u.strings[k] = arena_strdup(a, v->items[k]->text ? v->items[k]->text : "");
	}
}

static bool holds_collections(const fd_yval *v)
{
	for (size_t k = 0; k < v->n; k++)
		if (v->items[k]->kind == YV_SEQ || v->items[k]->kind == YV_MAP)
			return true;
	return false;
}

/* A YAML value as attributes named name: a scalar or a list of scalars is
 * one; a map's entries and the items of a list holding collections are
 * name.KEY / name.INDEX, recursively; null is none. */
static void yaml_attrs(builder *b, const char *name, const fd_yval *v, const fd_yval *where, int depth)
{
	fd_arena *a = &b->rw->arena;
	if (!v || v->kind == YV_NULL || depth > 16)
		return;
	if (v->kind == YV_MAP || (v->kind == YV_SEQ && holds_collections(v))) {
		for (size_t k = 0; k < v->n; k++) {
			if (v->kind == YV_MAP && (!v->keys[k]->text || !*v->keys[k]->text))
				continue;   /* no attribute without a name */
			const char *sub = v->kind == YV_MAP ? dotted(a, name, v->keys[k]->text)
			                                    : arena_printf(a, "%s.%zu", name, k);
			yaml_attrs(b, sub, v->items[k], v->kind == YV_MAP ? v->keys[k] : v->items[k], depth + 1);
		}
		return;
	}
	fd_attr at = { .name = name, .count = 1 };
	if (v->kind == YV_SCALAR)
		scalar_attr(a, v, &at);
	else
		list_attr(a, v, &at);
	add_attr(b, &at, where);
}

static void rewrite_attrs(builder *b)
{
	const fd_yval *attrs = b->rule->rewrite_attributes;
	for (size_t k = 0; attrs && attrs->kind == YV_MAP && k < attrs->n; k++) {
		const char *key = attrs->keys[k]->text;
		if (!key || !*key)
			continue;   /* the schema refuses it; an ONNX attribute never has an empty name */
		if (is_reserved(key)) {
			diag_warning(b->d, yval_pos(attrs->keys[k]), "%s: rewrite.attributes.%s is fusiondbg's own; ignored",
			             b->rule->name, key);
			continue;
		}
		yaml_attrs(b, key, attrs->items[k], attrs->keys[k], 0);
	}
}

/* "conv", or "mul_2" for the second of two Mul members. */
static const char *member_prefix(builder *b, const fd_graph *g, const int32_t *members, int32_t n, int32_t j)
{
	const char *type = g->nodes[members[j]].op_type;
	int32_t same = 0, index = 0;
	for (int32_t k = 0; k < n; k++)
		if (!strcmp(g->nodes[members[k]].op_type, type)) {
			same++;
			if (k <= j)
				index++;
		}
	char *p = same > 1 ? arena_printf(&b->rw->arena, "%s_%d", type, (int)index) : arena_strdup(&b->rw->arena, type);
	for (char *c = p; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return p;
}


static bool writable(fd_attr_type t)
{
	return t == ATTR_FLOAT || t == ATTR_INT || t == ATTR_STRING || t == ATTR_FLOATS || t == ATTR_INTS ||
	       t == ATTR_STRINGS;
}

/* Every member's attributes under its prefix; the first member of type
 * target_op's (or the one member's) unprefixed too. */
/* Whether member nd's names under prefix need no check for repeats: a
 * fused node's names are unique (this file made them), prefixes without a
 * dot cannot make one member's name another's, and no rewrite attribute (the
 * first n_rewrite) is under the prefix. A nested node has as many names as
 * the rounds before it made: not even hashed then. */
static bool unique_under(const builder *b, const fd_node *nd, const char *prefix, size_t n_rewrite,
                         bool dotted_prefixes)
{
	if (dotted_prefixes || strcmp(nd->domain, FD_FUSED_DOMAIN))
		return false;
	size_t np = strlen(prefix);
	for (size_t k = 0; k < n_rewrite; k++)
		if (!strncmp(b->attrs.items[k].name, prefix, np) && b->attrs.items[k].name[np] == '.')
			return false;
	return true;
}

static void member_attrs(builder *b, const fd_graph *g, const int32_t *members, int32_t n, const char *target)
{
	bool own_done = false, dotted_prefixes = false;
	size_t n_rewrite = b->attrs.n;
	for (int32_t j = 0; j < n; j++)
		dotted_prefixes = dotted_prefixes || strchr(g->nodes[members[j]].op_type, '.');
	for (int32_t j = 0; j < n; j++) {
		const fd_node *nd = &g->nodes[members[j]];
		const char *prefix = member_prefix(b, g, members, n, j);
		bool unique = unique_under(b, nd, prefix, n_rewrite, dotted_prefixes);
		for (int32_t k = 0; k < nd->n_attrs; k++) {
			const fd_attr *src = &nd->attrs[k];
			if (src->type == ATTR_GRAPH || src->type == ATTR_GRAPHS)
				continue;   /* the fused node owns the bodies */
			if (!writable(src->type)) {
				diag_warning(b->d, yval_pos(b->rule->root), "%s: attribute %s of member %s (%s) is not a plain "
				             "value; the fused node leaves it out", b->rule->name, src->name, nd->name, nd->op_type);
				continue;
			}
			if (fuse_names_dots(b->names_made, src->name) >= FUSE_MAX_NESTING) {   /* fuse.h */
				if (!b->names_made || fuse_names_first_deep(b->names_made))
					diag_warning(b->d, yval_pos(b->rule->root), "%s: attribute %s of member %s (%s) is nested %d "
					             "fusions deep already; the fused node leaves it out (and every one like it)",
					             b->rule->name, src->name, nd->name, nd->op_type, FUSE_MAX_NESTING);
				continue;
			}
			fd_attr at = *src;
			at.name = b->names_made ? fuse_names_dotted(b->names_made, prefix, src->name)
			                        : dotted(&b->rw->arena, prefix, src->name);
			if (unique)
				vec_push(&b->attrs, at);
			else
				add_attr(b, &at, NULL);
		}
		/* a fusion of one node is that node under another type (CANN's
		 * Transpose -> TransposeD): its attributes stay its own */
		if (own_done || (strcmp(nd->op_type, target) && n > 1))
			continue;
		own_done = true;
		for (int32_t k = 0; k < nd->n_attrs; k++)   /* its own, not those it nests */
			if (writable(nd->attrs[k].type) && !is_reserved(nd->attrs[k].name) && !strchr(nd->attrs[k].name, '.'))
				add_attr(b, &nd->attrs[k], NULL);
	}
}

static void own_attrs(builder *b, const fd_graph *g, const int32_t *members, int32_t n)
{
	fd_arena *a = &b->rw->arena;
	fd_attr names = { .name = "fused_nodes", .type = ATTR_STRINGS, .count = n };
	fd_attr types = { .name = "fused_op_types", .type = ATTR_STRINGS, .count = n };
	names.u.strings = arena_array(a, (size_t)n + 1, sizeof *names.u.strings);
	types.u.strings = arena_array(a, (size_t)n + 1, sizeof *types.u.strings);
	for (int32_t j = 0; j < n; j++) {
		names.u.strings[j] = g->nodes[members[j]].name;
		types.u.strings[j] = g->nodes[members[j]].op_type;
	}
	vec_push(&b->attrs, names);
	vec_push(&b->attrs, types);
	vec_push(&b->attrs, ((fd_attr){ .name = "fusion_rule", .type = ATTR_STRING, .count = 1, .u.s = b->rule->name }));
	vec_push(&b->attrs, ((fd_attr){ .name = "fusion_round", .type = ATTR_INT, .count = 1, .u.i = b->round }));
}

/* ---- ports ----------------------------------------------------------------------- */

/* External inputs of match op `op` (its member nodes' inputs, slot order, not
 * made inside the fusion). */
static int32_t unit_external_inputs(const builder *b, const fd_fusion *fu, int op, int32_t *out, int32_t max)
{
	const fd_graph *g = &b->m->graphs[fu->graph];
	const int32_t *members;
	int32_t unit = match_fusion_stand_in(b->r, fu, op);   /* an absent optional op: the op it stood for */
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

/* Whether constant t is computed from what the fusion fi makes (a Shape of
 * a member's output, and what reads only such): the compiler folds it
 * before it fuses, and the match allowed the fusion for that reason
 * (match_node_folds), so the fused node must not read it back. */
static bool computed_from_fusion(const fd_graph_index *ix, const int32_t *claim, int32_t fi, int32_t t, int depth)
{
	const fd_graph *g = ix->g;
	int32_t p = g->tensors[t].producer;
	if (p < 0 || depth > 64 || !match_node_folds(ix, p))
		return false;
	for (int32_t s = 0; s < g->nodes[p].n_inputs; s++) {
		int32_t x = g->nodes[p].inputs[s];
		if (x < 0)
			continue;
		int32_t q = g->tensors[x].producer;
		if ((q >= 0 && claim[q] == fi) || computed_from_fusion(ix, claim, fi, x, depth + 1))
			return true;
	}
	return false;
}

/* The declared ports, then every other external input. */
static void fused_inputs(builder *b, const fd_fusion *fu, fd_fused_node *fn)
{
	const fd_rule *rule = b->rule;
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
	/* with declared ports, the other constants are folded into the node for
	 * the next round (fuse.h), and so is, always, a constant computed from
	 * the fusion's own outputs; apply still writes them */
	bool *folded = arena_array(&b->rw->arena, cap, sizeof *folded);
	const uint8_t *tflags = b->r->ctx->graphs[fu->graph].tflags;
	const int32_t *claim = b->r->claim[fu->graph];
	int32_t fi = (int32_t)(fu - b->r->fusions);
	for (int32_t j = 0; j < fu->n_inputs; j++)
		if (!used[j] && n_in < cap) {
			bool constant = (tflags[ext[j]] & TF_CONST) != 0;
			folded[n_in] = constant && (rule->n_rewrite_inputs > 0 ||
			                            computed_from_fusion(&b->r->ctx->graphs[fu->graph], claim, fi, ext[j], 0));
			in[n_in++] = g->tensors[ext[j]].name;
		}
	fn->n_inputs = (int32_t)n_in;
	fn->inputs = in;
	fn->folded = folded;
}

/* ---- one fused node -------------------------------------------------------------- */

static bool is_member(const int32_t *members, int32_t n, int32_t node)
{
	for (int32_t k = 0; k < n; k++)
		if (members[k] == node)
			return true;
	return false;
}

/* "fused_<anchor>", or the anchor's own name when it is a fused node; made
 * unique against the graph's other nodes (not the members it replaces). */
static const char *node_name(builder *b, const fd_graph *g, int32_t anchor, const fd_fused_node *fn)
{
	fd_arena *a = &b->rw->arena;
	bool nested = anchor >= 0 && !strcmp(g->nodes[anchor].domain, FD_FUSED_DOMAIN);
	const char *base = anchor >= 0 ? g->nodes[anchor].name : b->rule->name;
	const char *name = nested ? arena_strdup(a, base) : arena_printf(a, "fused_%s", base);
	for (int k = 2;; k++) {
		int32_t other = graph_find_node(g, name);
		if (other < 0 || is_member(fn->members, fn->n_members, other))
			return name;
		name = nested ? arena_printf(a, "%s_%d", base, k) : arena_printf(a, "fused_%s_%d", base, k);
	}
}

static void fused_node(builder *b, size_t fi)
{
	const fd_fusion *fu = &b->r->fusions[fi];
	const fd_graph *g = &b->m->graphs[fu->graph];
	fd_arena *a = &b->rw->arena;
	b->rule = &b->r->rules->rules[fu->rule];
	fd_fused_node *fn = rewrite_add(b->rw, fu->graph);
	fn->fusion = (int32_t)fi;
	fn->round = b->round;
	fn->n_members = fu->n_nodes;
	fn->members = arena_memdup(a, fusion_ids(b->r, fu->nodes), (size_t)fu->n_nodes * sizeof *fn->members);
	fn->name = node_name(b, g, match_unit_node(b->r->ctx, fu->graph, fu->anchor), fn);
	fn->op_type = b->rule->target_op && *b->rule->target_op ? b->rule->target_op : "FusedOp";
	fn->domain = FD_FUSED_DOMAIN;
	fused_inputs(b, fu, fn);
	const int32_t *outs = fusion_ids(b->r, fu->outputs);
	fn->n_outputs = fu->n_outputs;
	fn->outputs = arena_array(a, (size_t)fu->n_outputs + 1, sizeof *fn->outputs);
	for (int32_t j = 0; j < fu->n_outputs; j++)
		fn->outputs[j] = g->tensors[outs[j]].name;
	b->attrs.n = 0;
	if (b->names.n) {
		strmap_release(&b->names);
		strmap_init(&b->names);
	}
	rewrite_attrs(b);
	member_attrs(b, g, fn->members, fn->n_members, fn->op_type);
	own_attrs(b, g, fn->members, fn->n_members);
	fn->n_attrs = (int32_t)b->attrs.n;
	fn->attrs = arena_memdup(a, b->attrs.items, b->attrs.n * sizeof *fn->attrs);
}

void fuse_rewrite(const fd_match_result *r, int32_t round, fd_rewrite *rw, fd_fuse_names *names, fd_diags *d)
{
	builder b = { .r = r, .m = r->ctx->model, .rw = rw, .d = d, .round = round, .names_made = names };
	strmap_init(&b.names);
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
	vec_release(&b.attrs);
	strmap_release(&b.names);
	free(last);
}
