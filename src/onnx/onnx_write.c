/* onnx_write.c — `apply`: re-reads the model file, decodes it with
 * protobuf-c (the second file behind protobuf-c, after the loader), replaces
 * each fusion's member nodes by one node of the custom domain
 * "fusiondbg.fused", and packs it back atomically. What it writes is in
 * onnx_write.h. Node and graph identities come from the loaded fd_model:
 * fd node i is NodeProto i of its graph (file order), bodies are found
 * through the GRAPH / GRAPHS attributes the loader resolved. */
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "onnx.pb-c.h"
#include "onnx/onnx_write.h"
#include "session/session_internal.h"

typedef struct writer {
	const fd_match_result *r;
	const fd_model *m;
	fd_diags *d;
	fd_arena a;                      /* every message this file builds */
	Onnx__GraphProto **gp;           /* per fd graph */
	/* what was swapped into the decoded model, to put back before freeing it */
	struct swap {
		Onnx__GraphProto *g;
		size_t n_node, n_value_info;
		Onnx__NodeProto **node;
		Onnx__ValueInfoProto **value_info;
	} *swaps;
	size_t n_swaps;
	fd_apply_stats st;
} writer;

/* ---- graphs of the decoded model ↔ fd graphs ------------------------------- */

static int map_bodies(writer *w, int32_t gi, Onnx__GraphProto *gp)
{
	const fd_graph *g = &w->m->graphs[gi];
	w->gp[gi] = gp;
	if ((size_t)g->n_nodes != gp->n_node) {
		diag_error(w->d, srcpos_file(w->m->path), "graph %s: %zu nodes in the file, %d loaded; cannot rewrite",
		           g->name ? g->name : "?", gp->n_node, g->n_nodes);
		return -1;
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const Onnx__NodeProto *np = gp->node[i];
		const fd_node *n = &g->nodes[i];
		if (!np->op_type || strcmp(np->op_type, n->op_type)) {
			diag_error(w->d, srcpos_file(w->m->path), "node %s: the file changed since it was loaded", n->name);
			return -1;
		}
		for (size_t k = 0; k < np->n_attribute; k++) {
			const Onnx__AttributeProto *ap = np->attribute[k];
			const fd_attr *fa = ap->name ? node_attr(n, ap->name) : NULL;
			if (!fa)
				continue;
			if (ap->g && fa->type == ATTR_GRAPH && fa->u.g >= 0 && fa->u.g < w->m->n_graphs) {
				if (map_bodies(w, fa->u.g, ap->g) < 0)
					return -1;
			} else if (ap->n_graphs && fa->type == ATTR_GRAPHS && (size_t)fa->count == ap->n_graphs) {
				for (size_t j = 0; j < ap->n_graphs; j++)
					if (fa->u.graphs[j] >= 0 && fa->u.graphs[j] < w->m->n_graphs &&
					    map_bodies(w, fa->u.graphs[j], ap->graphs[j]) < 0)
						return -1;
			}
		}
	}
	return 0;
}

/* ---- attributes --------------------------------------------------------------- */

static Onnx__AttributeProto *new_attr(writer *w, const char *name, Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = arena_alloc(&w->a, sizeof *a);
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = type;
	return a;
}

static ProtobufCBinaryData bin(const char *s)
{
	return (ProtobufCBinaryData){ strlen(s), (uint8_t *)s };
}

static bool is_int(const fd_yval *v, int64_t *x)
{
	return v->kind == YV_SCALAR && !v->quoted && yval_int(v, x);
}

static bool is_num(const fd_yval *v, double *x)
{
	return v->kind == YV_SCALAR && !v->quoted && yval_float(v, x);
}

static Onnx__AttributeProto *yaml_attr(writer *w, const char *name, const fd_yval *v)
{
	int64_t i;
	double f;
	bool b;
	Onnx__AttributeProto *a;
	if (!v || v->kind == YV_NULL)
		return NULL;
	if (v->kind == YV_SCALAR) {
		if (is_int(v, &i)) {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
			a->has_i = 1;
			a->i = i;
		} else if (is_num(v, &f)) {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
			a->has_f = 1;
			a->f = (float)f;
		} else if (!v->quoted && yval_bool(v, &b)) {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
			a->has_i = 1;
			a->i = b;
		} else {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
			a->has_s = 1;
			a->s = bin(v->text);
		}
		return a;
	}
	if (v->kind == YV_SEQ) {
		bool ints = true, nums = true;
		for (size_t k = 0; k < v->n; k++) {
			ints = ints && is_int(v->items[k], &i);
			nums = nums && is_num(v->items[k], &f);
		}
		if (v->n && ints) {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
			a->n_ints = v->n;
			a->ints = arena_array(&w->a, v->n, sizeof *a->ints);
			for (size_t k = 0; k < v->n; k++)
				yval_int(v->items[k], &a->ints[k]);
		} else if (v->n && nums) {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
			a->n_floats = v->n;
			a->floats = arena_array(&w->a, v->n, sizeof *a->floats);
			for (size_t k = 0; k < v->n; k++) {
				yval_float(v->items[k], &f);
				a->floats[k] = (float)f;
			}
		} else {
			a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
			a->n_strings = v->n;
			a->strings = arena_array(&w->a, v->n ? v->n : 1, sizeof *a->strings);
			for (size_t k = 0; k < v->n; k++) {
				const fd_yval *it = v->items[k];
				char *t = it->kind == YV_SCALAR ? arena_strdup(&w->a, it->text) : NULL;
				if (!t) {
					char *c = yval_canon_dup(it);
					t = arena_strdup(&w->a, c);
					free(c);
				}
				a->strings[k] = bin(t);
			}
		}
		return a;
	}
	char *c = yval_canon_dup(v);
	a = new_attr(w, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	a->has_s = 1;
	a->s = bin(arena_strdup(&w->a, c));
	free(c);
	return a;
}

/* ---- one fused node ------------------------------------------------------------ */

/* External inputs of match op `op` (its member nodes' inputs, slot order, not
 * made inside the fusion). */
static int32_t unit_external_inputs(const writer *w, const fd_fusion *fu, int op, int32_t *out, int32_t max)
{
	const fd_graph *g = &w->m->graphs[fu->graph];
	const int32_t *members;
	int32_t unit = w->r->pool[fu->units + (uint32_t)op];
	int32_t nm = match_unit_nodes(w->r->ctx, fu->graph, unit, &members);
	const int32_t *claim = w->r->claim[fu->graph];
	int32_t fi = (int32_t)(fu - w->r->fusions);
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

static const char *unique_name(writer *w, const fd_graph *g, const char *base)
{
	char *name = arena_printf(&w->a, "fused_%s", base);
	for (int k = 2; graph_find_node(g, name) >= 0; k++)
		name = arena_printf(&w->a, "fused_%s_%d", base, k);
	return name;
}

static Onnx__NodeProto *fused_node(writer *w, size_t fi)
{
	const fd_fusion *fu = &w->r->fusions[fi];
	const fd_rule *rule = &w->r->rules->rules[fu->rule];
	const fd_graph *g = &w->m->graphs[fu->graph];
	Onnx__NodeProto *np = arena_alloc(&w->a, sizeof *np);
	onnx__node_proto__init(np);
	int32_t anchor = match_unit_node(w->r->ctx, fu->graph, fu->anchor);
	np->name = (char *)unique_name(w, g, anchor >= 0 ? g->nodes[anchor].name : rule->name);
	np->op_type = (char *)(rule->target_op && *rule->target_op ? rule->target_op : "FusedOp");
	np->domain = (char *)FUSED_DOMAIN;

	/* inputs: the declared ports, then every other external input */
	const int32_t *ext = fusion_ids(w->r, fu->inputs);
	size_t cap = (size_t)fu->n_inputs + (size_t)rule->n_rewrite_inputs + 1;
	const char **in = arena_array(&w->a, cap, sizeof *in);
	bool *used = arena_array(&w->a, (size_t)fu->n_inputs + 1, sizeof *used);
	size_t n_in = 0;
	for (int k = 0; k < rule->n_rewrite_inputs; k++) {
		const fd_rewrite_input *ri = &rule->rewrite_inputs[k];
		if (ri->input_port < 0 || (size_t)ri->input_port >= cap - 1)
			continue;
		int32_t t = FD_NONE;
		if (ri->from_op >= 0 && ri->from_op < fu->n_ops) {
			int32_t buf[64];
			int32_t n = unit_external_inputs(w, fu, ri->from_op, buf, 64);
			int idx = ri->output_idx >= 0 ? ri->output_idx : 0;
			if (idx < n)
				t = buf[idx];
		}
		if (t == FD_NONE) {
			diag_warning(w->d, yval_pos(ri->where), "%s: rewrite.inputs[%d] (from_op %d, output_idx %d) names no "
			             "external input of the fusion at %s; port %d left empty", rule->name, k, ri->from_op,
			             ri->output_idx, np->name, ri->input_port);
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
			diag_warning(w->d, yval_pos(rule->root), "%s: fused node %s has no input at port %zu", rule->name,
			             np->name, k);
	for (int32_t j = 0; j < fu->n_inputs; j++)
		if (!used[j] && n_in < cap)
			in[n_in++] = g->tensors[ext[j]].name;
	np->n_input = n_in;
	np->input = (char **)in;

	const int32_t *outs = fusion_ids(w->r, fu->outputs);
	np->n_output = (size_t)fu->n_outputs;
	np->output = arena_array(&w->a, (size_t)fu->n_outputs + 1, sizeof *np->output);
	for (int32_t j = 0; j < fu->n_outputs; j++)
		np->output[j] = (char *)g->tensors[outs[j]].name;

	/* attributes */
	const fd_yval *attrs = rule->rewrite_attributes;
	size_t n_attrs = (attrs && attrs->kind == YV_MAP ? attrs->n : 0) + 2;
	np->attribute = arena_array(&w->a, n_attrs, sizeof *np->attribute);
	for (size_t k = 0; attrs && attrs->kind == YV_MAP && k < attrs->n; k++) {
		const char *key = attrs->keys[k]->text;
		if (!strcmp(key, "fused_nodes") || !strcmp(key, "fusion_rule")) {
			diag_warning(w->d, yval_pos(attrs->keys[k]), "%s: rewrite.attributes.%s is fusiondbg's own; ignored",
			             rule->name, key);
			continue;
		}
		Onnx__AttributeProto *a = yaml_attr(w, key, attrs->items[k]);
		if (a)
			np->attribute[np->n_attribute++] = a;
	}
	Onnx__AttributeProto *a = new_attr(w, "fused_nodes", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
	const int32_t *nodes = fusion_ids(w->r, fu->nodes);
	a->n_strings = (size_t)fu->n_nodes;
	a->strings = arena_array(&w->a, (size_t)fu->n_nodes + 1, sizeof *a->strings);
	for (int32_t j = 0; j < fu->n_nodes; j++)
		a->strings[j] = bin(g->nodes[nodes[j]].name);
	np->attribute[np->n_attribute++] = a;
	a = new_attr(w, "fusion_rule", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	a->has_s = 1;
	a->s = bin(rule->name);
	np->attribute[np->n_attribute++] = a;
	return np;
}

/* ---- one graph ------------------------------------------------------------------ */

/* Min-heap of node positions (the stable topological sort). */
typedef struct heap {
	int32_t *v;
	size_t n;
} heap;

static void heap_push(heap *h, int32_t x)
{
	size_t i = h->n++;
	h->v[i] = x;
	while (i && h->v[(i - 1) / 2] > h->v[i]) {
		int32_t t = h->v[i];
		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static int32_t heap_pop(heap *h)
{
	int32_t top = h->v[0];
	h->v[0] = h->v[--h->n];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->v[l] < h->v[m])
			m = l;
		if (r < h->n && h->v[r] < h->v[m])
			m = r;
		if (m == i)
			break;
		int32_t t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
	return top;
}

static int rewrite_graph(writer *w, int32_t gi)
{
	const fd_graph *g = &w->m->graphs[gi];
	Onnx__GraphProto *gp = w->gp[gi];
	const int32_t *claim = w->r->claim[gi];
	int32_t n = g->n_nodes;
	bool any = false;
	for (int32_t i = 0; i < n && !any; i++)
		any = claim[i] >= 0;
	w->st.nodes_before += n;
	if (!any) {
		w->st.nodes_after += n;
		return 0;
	}
	/* each fusion stands at its last member's file position */
	int32_t *rep = arena_array(&w->a, (size_t)n + 1, sizeof *rep);
	int32_t *fpos = arena_array(&w->a, w->r->n_fusions + 1, sizeof *fpos);
	for (size_t f = 0; f < w->r->n_fusions; f++)
		fpos[f] = -1;
	for (int32_t i = 0; i < n; i++)
		if (claim[i] >= 0 && i > fpos[claim[i]])
			fpos[claim[i]] = i;
	for (int32_t i = 0; i < n; i++)
		rep[i] = claim[i] >= 0 ? fpos[claim[i]] : i;
	/* edges between positions, from producers to consumers (outer reads included) */
	int32_t *indeg = arena_array(&w->a, (size_t)n + 1, sizeof *indeg);
	int32_t *off = arena_array(&w->a, (size_t)n + 2, sizeof *off);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		if (x->producer < 0)
			continue;
		for (int32_t c = 0; c < x->n_consumers; c++)
			if (rep[x->consumers[c]] != rep[x->producer])
				off[rep[x->producer] + 1]++;
	}
	for (int32_t i = 0; i < n; i++)
		off[i + 1] += off[i];
	int32_t *adj = arena_array(&w->a, (size_t)off[n] + 1, sizeof *adj);
	int32_t *fill = arena_array(&w->a, (size_t)n + 1, sizeof *fill);
	for (int32_t t = 0; t < g->n_tensors; t++) {
		const fd_tensor *x = &g->tensors[t];
		if (x->producer < 0)
			continue;
		int32_t p = rep[x->producer];
		for (int32_t c = 0; c < x->n_consumers; c++) {
			int32_t q = rep[x->consumers[c]];
			if (q != p) {
				adj[off[p] + fill[p]++] = q;
				indeg[q]++;
			}
		}
	}
	heap h = { arena_array(&w->a, (size_t)n + 1, sizeof(int32_t)), 0 };
	for (int32_t i = 0; i < n; i++)
		if (rep[i] == i && indeg[i] == 0)
			heap_push(&h, i);
	Onnx__NodeProto **nodes = arena_array(&w->a, (size_t)n + 1, sizeof *nodes);
	size_t out = 0;
	while (h.n) {
		int32_t p = heap_pop(&h);
		nodes[out++] = claim[p] >= 0 ? fused_node(w, (size_t)claim[p]) : gp->node[p];
		if (claim[p] >= 0)
			w->st.fusions++;
		for (int32_t k = off[p]; k < off[p + 1]; k++)
			if (--indeg[adj[k]] == 0)
				heap_push(&h, adj[k]);
	}
	size_t units = 0;
	for (int32_t i = 0; i < n; i++)
		units += rep[i] == i;
	if (out != units) {
		diag_error(w->d, srcpos_file(w->m->path), "graph %s: the fused graph would have a cycle; not written",
		           g->name ? g->name : "?");
		return -1;
	}
	w->st.nodes_after += (int64_t)out;
	/* value_info of tensors that no longer exist */
	Onnx__ValueInfoProto **vi = arena_array(&w->a, gp->n_value_info + 1, sizeof *vi);
	size_t n_vi = 0;
	for (size_t k = 0; k < gp->n_value_info; k++) {
		const char *name = gp->value_info[k]->name;
		int32_t t = name ? graph_find_tensor(g, name) : FD_NONE;
		bool gone = t >= 0 && g->tensors[t].producer >= 0 && claim[g->tensors[t].producer] >= 0;
		if (gone) {
			/* still there when some fusion outputs it */
			const fd_fusion *fu = &w->r->fusions[claim[g->tensors[t].producer]];
			const int32_t *outs = fusion_ids(w->r, fu->outputs);
			for (int32_t j = 0; j < fu->n_outputs; j++)
				gone = gone && outs[j] != t;
		}
		if (!gone)
			vi[n_vi++] = gp->value_info[k];
	}
	w->swaps = xrealloc(w->swaps, (w->n_swaps + 1) * sizeof *w->swaps);
	w->swaps[w->n_swaps++] = (struct swap){ gp, gp->n_node, gp->n_value_info, gp->node, gp->value_info };
	gp->node = nodes;
	gp->n_node = out;
	gp->value_info = vi;
	gp->n_value_info = n_vi;
	return 0;
}

int onnx_write_fused(const fd_match_result *r, const char *out_path, fd_apply_stats *st, fd_diags *d)
{
	const fd_model *m = r->ctx->model;
	size_t size;
	char *bytes = file_read_all(m->path, &size, d);
	if (!bytes)
		return -1;
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, (const uint8_t *)bytes);
	if (!mp || !mp->graph) {
		diag_error(d, srcpos_file(m->path), "cannot decode the model again");
		if (mp)
			onnx__model_proto__free_unpacked(mp, NULL);
		free(bytes);
		return -1;
	}
	writer w = { .r = r, .m = m, .d = d };
	arena_init(&w.a);
	w.gp = xcalloc((size_t)m->n_graphs + 1, sizeof *w.gp);
	int rc = map_bodies(&w, 0, mp->graph);
	for (int32_t gi = 0; rc == 0 && gi < m->n_graphs; gi++) {
		if (!w.gp[gi]) {
			diag_error(d, srcpos_file(m->path), "graph %d not found in the file again", gi);
			rc = -1;
		} else {
			rc = rewrite_graph(&w, gi);
		}
	}
	/* declare the custom domain */
	size_t old_n_opset = mp->n_opset_import;
	Onnx__OperatorSetIdProto **old_opset = mp->opset_import;
	bool declared = false;
	for (size_t k = 0; k < mp->n_opset_import; k++)
		declared = declared || (mp->opset_import[k]->domain && !strcmp(mp->opset_import[k]->domain, FUSED_DOMAIN));
	if (rc == 0 && w.st.fusions && !declared) {
		Onnx__OperatorSetIdProto *os = arena_alloc(&w.a, sizeof *os);
		onnx__operator_set_id_proto__init(os);
		os->domain = (char *)FUSED_DOMAIN;
		os->has_version = 1;
		os->version = 1;
		Onnx__OperatorSetIdProto **arr = arena_array(&w.a, old_n_opset + 1, sizeof *arr);
		if (old_n_opset)
			memcpy(arr, old_opset, old_n_opset * sizeof *arr);
		arr[old_n_opset] = os;
		mp->opset_import = arr;
		mp->n_opset_import = old_n_opset + 1;
	}
	if (rc == 0) {
		size_t packed = onnx__model_proto__get_packed_size(mp);
		uint8_t *buf = xmalloc(packed ? packed : 1);
		size_t got = onnx__model_proto__pack(mp, buf);
		if (got != packed) {
			diag_error(d, srcpos_file(out_path), "packing the model failed");
			rc = -1;
		} else {
			rc = atomic_write(out_path, buf, packed, -1, d);
		}
		free(buf);
	}
	/* put the decoded model back as protobuf-c made it, then free it */
	mp->opset_import = old_opset;
	mp->n_opset_import = old_n_opset;
	for (size_t k = w.n_swaps; k-- > 0;) {
		struct swap *s = &w.swaps[k];
		s->g->node = s->node;
		s->g->n_node = s->n_node;
		s->g->value_info = s->value_info;
		s->g->n_value_info = s->n_value_info;
	}
	onnx__model_proto__free_unpacked(mp, NULL);
	if (st)
		*st = w.st;
	free(w.swaps);
	free(w.gp);
	arena_release(&w.a);
	free(bytes);
	return rc;
}
