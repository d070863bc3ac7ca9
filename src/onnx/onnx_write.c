/* onnx_write.c — writing a model with a rewrite (onnx_write.h): re-reads
 * the model file, decodes it with protobuf-c, replaces each fused node's
 * members by the node, and packs it back atomically. Node and graph
 * identities come from the loaded fd_model: fd node i is NodeProto i of its
 * graph (file order), bodies are found through the GRAPH / GRAPHS attributes
 * the loader resolved. */
#include <stdlib.h>
#include <string.h>
#include "base/atomic_file.h"
#include "base/input_file.h"
#include "onnx/onnx_write_internal.h"
#include "base/arena.h"

typedef struct writer {
	const fd_model *m;
	const fd_rewrite *rw;
	fd_diags *d;
	fd_arena a;                      /* every message this file builds */
	Onnx__GraphProto **gp;           /* per fd graph */
	int32_t **claim;                 /* [graph][node]: fused node index, or -1 */
	/* what was swapped into the decoded model, to put back before freeing it */
	struct swap {
		Onnx__GraphProto *g;
		size_t n_node, n_value_info;
		Onnx__NodeProto **node;
		Onnx__ValueInfoProto **value_info;
	} *swaps;
	size_t n_swaps;
	fd_write_stats st;
} writer;
/* ---- graphs of the decoded model ↔ fd graphs ------------------------------- */

int onnx_map_graphs(const fd_model *m, int32_t gi, Onnx__GraphProto *gp, Onnx__GraphProto **out, fd_diags *d)
{
	const fd_graph *g = &m->graphs[gi];
	out[gi] = gp;
	if ((size_t)g->n_nodes != gp->n_node) {
		diag_error(d, srcpos_file(m->path), "graph %s: %zu nodes in the file, %d loaded; cannot rewrite",
		           g->name ? g->name : "?", gp->n_node, g->n_nodes);
		return -1;
	}
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const Onnx__NodeProto *np = gp->node[i];
		const fd_node *n = &g->nodes[i];
		if (!np->op_type || strcmp(np->op_type, n->op_type)) {
			diag_error(d, srcpos_file(m->path), "node %s: the file changed since it was loaded", n->name);
			return -1;
		}
		for (size_t k = 0; k < np->n_attribute; k++) {
			const Onnx__AttributeProto *ap = np->attribute[k];
			const fd_attr *fa = ap->name ? node_attr(n, ap->name) : NULL;
			if (!fa)
				continue;
			if (ap->g && fa->type == ATTR_GRAPH && fa->u.g >= 0 && fa->u.g < m->n_graphs) {
				if (onnx_map_graphs(m, fa->u.g, ap->g, out, d) < 0)
					return -1;
			} else if (ap->n_graphs && fa->type == ATTR_GRAPHS && (size_t)fa->count == ap->n_graphs) {
				for (size_t j = 0; j < ap->n_graphs; j++)
					if (fa->u.graphs[j] >= 0 && fa->u.graphs[j] < m->n_graphs &&
					    onnx_map_graphs(m, fa->u.graphs[j], ap->graphs[j], out, d) < 0)
						return -1;
			}
		}
	}
	return 0;
}

/* ---- the rewrite's nodes ------------------------------------------------------ */

/* claim[graph][node]; -1 + d when a member is out of range or taken twice. */
static int claim_members(writer *w)
{
	w->claim = arena_array(&w->a, (size_t)w->m->n_graphs + 1, sizeof *w->claim);
	for (int32_t gi = 0; gi < w->m->n_graphs; gi++) {
		int32_t n = w->m->graphs[gi].n_nodes;
		w->claim[gi] = arena_array(&w->a, (size_t)n + 1, sizeof **w->claim);
		for (int32_t i = 0; i < n; i++)
			w->claim[gi][i] = -1;
	}
	for (size_t k = 0; k < w->rw->nodes.n; k++) {
		const fd_fused_node *fn = &w->rw->nodes.items[k];
		bool ok = fn->graph >= 0 && fn->graph < w->m->n_graphs;
		for (int32_t j = 0; ok && j < fn->n_members; j++) {
			int32_t id = fn->members[j];
			ok = id >= 0 && id < w->m->graphs[fn->graph].n_nodes && w->claim[fn->graph][id] < 0;
			if (ok)
				w->claim[fn->graph][id] = (int32_t)k;
		}
		if (!ok) {
			diag_error(w->d, srcpos_file(w->m->path), "fused node %s: a member is not a node of its graph or "
			           "belongs to another fused node", fn->name);
			return -1;
		}
	}
	return 0;
}

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

/* NULL + d for the kinds not written (tensors, graphs, types). */
static Onnx__AttributeProto *attr_proto(writer *w, const fd_fused_node *fn, const fd_attr *fa)
{
	Onnx__AttributeProto *a = new_attr(w, fa->name, (Onnx__AttributeProto__AttributeType)fa->type);
	a->ref_attr_name = (char *)fa->ref_attr_name;
	size_t n = fa->count > 0 ? (size_t)fa->count : 0;
	switch (fa->type) {
	case ATTR_FLOAT:
		a->has_f = 1;
		a->f = (float)fa->u.f;
		return a;
	case ATTR_INT:
		a->has_i = 1;
		a->i = fa->u.i;
		return a;
	case ATTR_STRING:
		a->has_s = 1;
		a->s = bin(fa->u.s);
		return a;
	case ATTR_FLOATS:
		a->n_floats = n;
		a->floats = arena_array(&w->a, n + 1, sizeof *a->floats);
		for (size_t k = 0; k < n; k++)
			a->floats[k] = (float)fa->u.floats[k];
		return a;
	case ATTR_INTS:
		a->n_ints = n;
		a->ints = fa->u.ints;
		return a;
	case ATTR_STRINGS:
		a->n_strings = n;
		a->strings = arena_array(&w->a, n + 1, sizeof *a->strings);
		for (size_t k = 0; k < n; k++)
			a->strings[k] = bin(fa->u.strings[k]);
		return a;
	default:
		diag_error(w->d, srcpos_file(w->m->path), "fused node %s: attribute %s of type %d cannot be written",
		           fn->name, fa->name, (int)fa->type);
		return NULL;
	}
}

/* NULL + d when an attribute cannot be written. */
static Onnx__NodeProto *node_proto(writer *w, const fd_fused_node *fn)
{
	Onnx__NodeProto *np = arena_alloc(&w->a, sizeof *np);
	onnx__node_proto__init(np);
	np->name = (char *)fn->name;
	np->op_type = (char *)fn->op_type;
	np->domain = (char *)fn->domain;
	np->n_input = (size_t)fn->n_inputs;
	np->input = (char **)fn->inputs;
	np->n_output = (size_t)fn->n_outputs;
	np->output = (char **)fn->outputs;
	np->attribute = arena_array(&w->a, (size_t)fn->n_attrs + 1, sizeof *np->attribute);
	for (int32_t k = 0; k < fn->n_attrs; k++)
		if (!(np->attribute[np->n_attribute++] = attr_proto(w, fn, &fn->attrs[k])))
			return NULL;
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

/* Each fused node at its last member's file position, then a stable
 * topological sort of the positions (outer reads count as edges): nodes[]
 * gets the graph's new node list. Returns its length, or -1 + d. */
static int64_t order_nodes(writer *w, int32_t gi, Onnx__NodeProto **nodes)
{
	const fd_graph *g = &w->m->graphs[gi];
	const int32_t *claim = w->claim[gi];
	int32_t n = g->n_nodes;
	int32_t *rep = arena_array(&w->a, (size_t)n + 1, sizeof *rep);
	int32_t *fpos = arena_array(&w->a, w->rw->nodes.n + 1, sizeof *fpos);
	for (size_t f = 0; f < w->rw->nodes.n; f++)
		fpos[f] = -1;
	for (int32_t i = 0; i < n; i++)
		if (claim[i] >= 0 && i > fpos[claim[i]])
			fpos[claim[i]] = i;
	for (int32_t i = 0; i < n; i++)
		rep[i] = claim[i] >= 0 ? fpos[claim[i]] : i;
	/* edges between positions, from producers to consumers */
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
	int64_t out = 0;
	while (h.n) {
		int32_t p = heap_pop(&h);
		if (claim[p] >= 0) {
			if (!(nodes[out++] = node_proto(w, &w->rw->nodes.items[claim[p]])))
				return -1;
			w->st.fused++;
		} else {
			nodes[out++] = w->gp[gi]->node[p];
		}
		for (int32_t k = off[p]; k < off[p + 1]; k++)
			if (--indeg[adj[k]] == 0)
				heap_push(&h, adj[k]);
	}
	int64_t units = 0;
	for (int32_t i = 0; i < n; i++)
		units += rep[i] == i;
	if (out != units) {
		diag_error(w->d, srcpos_file(w->m->path), "graph %s: the fused graph would have a cycle; not written",
		           g->name ? g->name : "?");
		return -1;
	}
	return out;
}

/* false when the tensor named `name` was made by a member node and no fused
 * node outputs it. */
static bool tensor_kept(const writer *w, int32_t gi, const char *name)
{
	const fd_graph *g = &w->m->graphs[gi];
	int32_t t = name ? graph_find_tensor(g, name) : FD_NONE;
	if (t < 0 || g->tensors[t].producer < 0 || w->claim[gi][g->tensors[t].producer] < 0)
		return true;
	const fd_fused_node *fn = &w->rw->nodes.items[w->claim[gi][g->tensors[t].producer]];
	for (int32_t j = 0; j < fn->n_outputs; j++)
		if (!strcmp(fn->outputs[j], name))
			return true;
	return false;
}

/* ---- value_info of the fused nodes' ports ----------------------------------------- */

static Onnx__ValueInfoProto *value_info(writer *w, const fd_tensor *x)
{
	Onnx__TensorShapeProto *shape = NULL;
	if (x->shape.rank >= 0) {
		shape = arena_alloc(&w->a, sizeof *shape);
		onnx__tensor_shape_proto__init(shape);
		shape->n_dim = (size_t)x->shape.rank;
		shape->dim = arena_array(&w->a, shape->n_dim + 1, sizeof *shape->dim);
		for (size_t k = 0; k < shape->n_dim; k++) {
			Onnx__TensorShapeProto__Dimension *dim = arena_alloc(&w->a, sizeof *dim);
			onnx__tensor_shape_proto__dimension__init(dim);
			const fd_dim *fd = &x->shape.dims[k];
			if (fd->expr) {   /* a symbol or an expression stays one: the model stays dynamic */
				dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
				dim->dim_param = (char *)dexpr_text(fd->expr);
			} else if (fd->value >= 0) {
				dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
				dim->dim_value = fd->value;
			}
			shape->dim[k] = dim;
		}
	}
	Onnx__TypeProto__Tensor *tt = arena_alloc(&w->a, sizeof *tt);
	onnx__type_proto__tensor__init(tt);
	tt->has_elem_type = 1;
	tt->elem_type = x->dtype;
	tt->shape = shape;
	Onnx__TypeProto *type = arena_alloc(&w->a, sizeof *type);
	onnx__type_proto__init(type);
	type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type->tensor_type = tt;
	Onnx__ValueInfoProto *vi = arena_alloc(&w->a, sizeof *vi);
	onnx__value_info_proto__init(vi);
	vi->name = (char *)x->name;
	vi->type = type;
	return vi;
}

static bool listed(Onnx__ValueInfoProto **vi, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (vi[k]->name && !strcmp(vi[k]->name, name))
			return true;
	return false;
}

/* The shape and dtype of every tensor a fused node reads or makes that the
 * graph does not declare already (an input, an output, an initializer or a
 * value_info entry): a checker cannot infer them through a custom op. vi
 * has room for them (count_ports). */
static size_t add_port_infos(writer *w, int32_t gi, Onnx__ValueInfoProto **vi, size_t n)
{
	const fd_graph *g = &w->m->graphs[gi];
	for (size_t k = 0; k < w->rw->nodes.n; k++) {
		const fd_fused_node *fn = &w->rw->nodes.items[k];
		for (int32_t j = 0; fn->graph == gi && j < fn->n_inputs + fn->n_outputs; j++) {
			const char *name = j < fn->n_inputs ? fn->inputs[j] : fn->outputs[j - fn->n_inputs];
			int32_t t = name && *name ? graph_find_tensor(g, name) : FD_NONE;
			if (t < 0)
				continue;
			const fd_tensor *x = &g->tensors[t];
			if (x->kind == TENSOR_GRAPH_INPUT || x->kind == TENSOR_INITIALIZER || x->is_graph_output || x->dtype == DT_UNDEFINED ||
			    listed(vi, n, name))
				continue;
			vi[n++] = value_info(w, x);
		}
	}
	return n;
}

static size_t count_ports(const writer *w, int32_t gi)
{
	size_t n = 0;
	for (size_t k = 0; k < w->rw->nodes.n; k++)
		if (w->rw->nodes.items[k].graph == gi)
			n += (size_t)(w->rw->nodes.items[k].n_inputs + w->rw->nodes.items[k].n_outputs);
	return n;
}

static int rewrite_graph(writer *w, int32_t gi)
{
	const fd_graph *g = &w->m->graphs[gi];
	Onnx__GraphProto *gp = w->gp[gi];
	int32_t n = g->n_nodes;
	bool any = false;
	for (int32_t i = 0; i < n && !any; i++)
		any = w->claim[gi][i] >= 0;
	w->st.nodes_before += n;
	if (!any) {
		w->st.nodes_after += n;
		return 0;
	}
	Onnx__NodeProto **nodes = arena_array(&w->a, (size_t)n + 1, sizeof *nodes);
	int64_t out = order_nodes(w, gi, nodes);
	if (out < 0)
		return -1;
	w->st.nodes_after += out;
	Onnx__ValueInfoProto **vi = arena_array(&w->a, gp->n_value_info + count_ports(w, gi) + 1, sizeof *vi);
	size_t n_vi = 0;
	for (size_t k = 0; k < gp->n_value_info; k++)
		if (tensor_kept(w, gi, gp->value_info[k]->name))
			vi[n_vi++] = gp->value_info[k];
	n_vi = add_port_infos(w, gi, vi, n_vi);
	w->swaps = xrealloc(w->swaps, (w->n_swaps + 1) * sizeof *w->swaps);
	w->swaps[w->n_swaps++] = (struct swap){ gp, gp->n_node, gp->n_value_info, gp->node, gp->value_info };
	gp->node = nodes;
	gp->n_node = (size_t)out;
	gp->value_info = vi;
	gp->n_value_info = n_vi;
	return 0;
}

/* Adds each fused node's domain that opset_import lacks, version 1; the old
 * list stays with protobuf-c (the caller puts it back). */
static void declare_domains(writer *w, Onnx__ModelProto *mp)
{
	for (size_t k = 0; k < w->rw->nodes.n; k++) {
		const char *dom = w->rw->nodes.items[k].domain;
		bool declared = !dom || !*dom;
		for (size_t j = 0; j < mp->n_opset_import && !declared; j++)
			declared = mp->opset_import[j]->domain && !strcmp(mp->opset_import[j]->domain, dom);
		if (declared)
			continue;
		Onnx__OperatorSetIdProto *os = arena_alloc(&w->a, sizeof *os);
		onnx__operator_set_id_proto__init(os);
		os->domain = (char *)dom;
		os->has_version = 1;
		os->version = 1;
		Onnx__OperatorSetIdProto **arr = arena_array(&w->a, mp->n_opset_import + 1, sizeof *arr);
		if (mp->n_opset_import)
			memcpy(arr, mp->opset_import, mp->n_opset_import * sizeof *arr);
		arr[mp->n_opset_import] = os;
		mp->opset_import = arr;
		mp->n_opset_import++;
	}
}

Onnx__ModelProto *onnx_read_again(const fd_model *m, char **bytes, fd_diags *d)
{
	size_t size;
	*bytes = input_read(m->path, &INPUT_LIMIT_MODEL, &size, d);
	if (!*bytes)
		return NULL;
	Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, (const uint8_t *)*bytes);
	if (!mp || !mp->graph) {
		diag_error(d, srcpos_file(m->path), "cannot decode the model again");
		if (mp)
			onnx__model_proto__free_unpacked(mp, NULL);
		free(*bytes);
		*bytes = NULL;
		return NULL;
	}
	return mp;
}

int onnx_pack_write(const Onnx__ModelProto *mp, const char *path, fd_diags *d)
{
	size_t packed = onnx__model_proto__get_packed_size(mp);
	uint8_t *buf = xmalloc(packed ? packed : 1);
	int rc;
	if (onnx__model_proto__pack(mp, buf) != packed) {
		diag_error(d, srcpos_file(path), "packing the model failed");
		rc = -1;
	} else {
		rc = file_write_output(path, buf, packed, d);
	}
	free(buf);
	return rc;
}

int onnx_write_rewrite(const fd_model *m, const fd_rewrite *rw, const char *out_path, fd_write_stats *st,
                       fd_diags *d)
{
	fd_doing("writing the model %s", out_path);
	char *bytes;
	Onnx__ModelProto *mp = onnx_read_again(m, &bytes, d);
	if (!mp)
		return -1;
	writer w = { .m = m, .rw = rw, .d = d };
	arena_init(&w.a);
	w.gp = xcalloc((size_t)m->n_graphs + 1, sizeof *w.gp);
	int rc = onnx_map_graphs(m, 0, mp->graph, w.gp, d);
	if (rc == 0)
		rc = claim_members(&w);
	for (int32_t gi = 0; rc == 0 && gi < m->n_graphs; gi++) {
		if (!w.gp[gi]) {
			diag_error(d, srcpos_file(m->path), "graph %d not found in the file again", gi);
			rc = -1;
		} else {
			rc = rewrite_graph(&w, gi);
		}
	}
	size_t old_n_opset = mp->n_opset_import;
	Onnx__OperatorSetIdProto **old_opset = mp->opset_import;
	if (rc == 0 && w.st.fused)
		declare_domains(&w, mp);
	if (rc == 0)
		rc = onnx_pack_write(mp, out_path, d);
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
