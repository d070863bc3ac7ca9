/* onnx_write_shapes.c — `infer`: the model written again with every
 * inferred shape (onnx_write.h says what goes where). The file is read and
 * decoded again, each graph's value_info replaced by one built here, the
 * inputs' and outputs' types replaced where they say less, packed, written
 * atomically (or to standard output for "-"), and the decoded model put back as protobuf-c made it before it
 * is freed (everything built here lives in one arena). */
#include <stdlib.h>
#include <string.h>
#include "onnx/onnx_write_internal.h"
#include "base/arena.h"

typedef struct shape_writer {
	const fd_model *m;
	fd_arena a;
	fd_infer_stats st;
	/* what was swapped into the decoded model, to put back */
	struct vi_swap {
		Onnx__GraphProto *g;
		size_t n;
		Onnx__ValueInfoProto **vi;
	} *graphs;
	size_t n_graphs;
	struct type_swap {
		Onnx__ValueInfoProto *vi;
		Onnx__TypeProto *type;
	} *types;
	size_t n_types, cap_types;
} shape_writer;

/* A dim: its number at the bindings, else its expression, else nothing. */
static void put_dim(shape_writer *w, Onnx__TensorShapeProto__Dimension *pd, fd_dim d, bool count)
{
	onnx__tensor_shape_proto__dimension__init(pd);
	if (d.value >= 0) {
		pd->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		pd->dim_value = d.value;
	} else if (d.expr) {
		pd->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
		pd->dim_param = (char *)dexpr_text(d.expr);
		w->st.symbolic_dims += count;
	} else {
		w->st.unknown_dims += count;
	}
}

/* A tensor type of t's dtype and shape; dims the declaration has (decl,
 * may be NULL) are kept where ours say nothing. */
static Onnx__TypeProto *tensor_type(shape_writer *w, const fd_tensor *t, const Onnx__TensorShapeProto *decl,
                                    bool count)
{
	Onnx__TypeProto *tp = arena_alloc(&w->a, sizeof *tp);
	Onnx__TypeProto__Tensor *tt = arena_alloc(&w->a, sizeof *tt);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = t->dtype;
	if (t->shape.rank < 0)
		return tp;
	Onnx__TensorShapeProto *sp = arena_alloc(&w->a, sizeof *sp);
	onnx__tensor_shape_proto__init(sp);
	sp->n_dim = (size_t)t->shape.rank;
	sp->dim = arena_array(&w->a, sp->n_dim + 1, sizeof *sp->dim);
	for (int32_t k = 0; k < t->shape.rank; k++) {
		sp->dim[k] = arena_alloc(&w->a, sizeof **sp->dim);
		put_dim(w, sp->dim[k], t->shape.dims[k], count);
		if (sp->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET && decl &&
		    decl->n_dim == sp->n_dim && decl->dim[k])
			*sp->dim[k] = *decl->dim[k];
	}
	tt->shape = sp;
	return tp;
}

static const fd_tensor *tensor_named(const fd_graph *g, const char *name)
{
	int32_t t = name ? graph_find_tensor(g, name) : FD_NONE;
	return t >= 0 ? &g->tensors[t] : NULL;
}

/* The declared tensor shape of vi, or NULL. */
static const Onnx__TensorShapeProto *declared_shape(const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto *tp = vi->type;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
		return NULL;
	return tp->tensor_type->shape;
}

static void swap_type(shape_writer *w, Onnx__ValueInfoProto *vi, Onnx__TypeProto *tp)
{
	if (w->n_types == w->cap_types) {
		w->cap_types = w->cap_types ? w->cap_types * 2 : 32;
		w->types = xrealloc(w->types, w->cap_types * sizeof *w->types);
	}
	w->types[w->n_types++] = (struct type_swap){ vi, vi->type };
	vi->type = tp;
}

/* Graph inputs (main graph) and outputs: their declared types, with what the
 * bindings and inference add. Only tensor types are touched. */
static void patch_values(shape_writer *w, const fd_graph *g, Onnx__ValueInfoProto **vis, size_t n, bool inputs)
{
	for (size_t i = 0; i < n; i++) {
		Onnx__ValueInfoProto *vi = vis[i];
		const fd_tensor *t = tensor_named(g, vi->name);
		const Onnx__TypeProto *tp = vi->type;
		if (!t || t->dtype == DT_UNDEFINED || (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) ||
		    t->kind == TENSOR_INITIALIZER || (inputs && g->index != 0))
			continue;
		const Onnx__TensorShapeProto *decl = declared_shape(vi);
		bool says_less = !decl && t->shape.rank >= 0;
		for (size_t k = 0; decl && k < decl->n_dim && !says_less; k++)
			says_less = !decl->dim[k] || decl->dim[k]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		if (says_less || inputs)
			swap_type(w, vi, tensor_type(w, t, inputs ? NULL : decl, false));
	}
}

static void write_graph(shape_writer *w, int32_t gi, Onnx__GraphProto *gp)
{
	const fd_graph *g = &w->m->graphs[gi];
	size_t n = 0;
	Onnx__ValueInfoProto **vi = arena_array(&w->a, (size_t)g->n_tensors + gp->n_value_info + 1, sizeof *vi);
	bool *ours = arena_array(&w->a, (size_t)g->n_tensors + 1, sizeof *ours);
	for (int32_t k = 0; k < g->n_nodes; k++) {
		const fd_node *nd = &g->nodes[g->topo_order ? g->topo_order[k] : k];
		for (int32_t o = 0; o < nd->n_outputs; o++) {
			int32_t ti = nd->outputs[o];
			if (ti < 0 || ours[ti])
				continue;
			const fd_tensor *t = &g->tensors[ti];
			if (t->is_graph_output || t->dtype == DT_UNDEFINED)
				continue;
			ours[ti] = true;
			Onnx__ValueInfoProto *v = arena_alloc(&w->a, sizeof *v);
			onnx__value_info_proto__init(v);
			v->name = (char *)t->name;
			v->type = tensor_type(w, t, NULL, true);
			vi[n++] = v;
			w->st.value_infos++;
		}
	}
	/* the model's own entries for what we say nothing about stay */
	for (size_t k = 0; k < gp->n_value_info; k++) {
		int32_t ti = gp->value_info[k]->name ? graph_find_tensor(g, gp->value_info[k]->name) : FD_NONE;
		if (ti < 0 || !ours[ti])
			vi[n++] = gp->value_info[k];
	}
	w->graphs = xrealloc(w->graphs, (w->n_graphs + 1) * sizeof *w->graphs);
	w->graphs[w->n_graphs++] = (struct vi_swap){ gp, gp->n_value_info, gp->value_info };
	gp->value_info = vi;
	gp->n_value_info = n;
	patch_values(w, g, gp->input, gp->n_input, true);
	patch_values(w, g, gp->output, gp->n_output, false);
}

int onnx_write_inferred(const fd_model *m, const char *out_path, fd_infer_stats *st, fd_diags *d)
{
	fd_doing("writing the model %s with its shapes", out_path);
	char *bytes;
	Onnx__ModelProto *mp = onnx_read_again(m, &bytes, d);
	if (!mp)
		return -1;
	shape_writer w = { .m = m };
	arena_init(&w.a);
	Onnx__GraphProto **gp = xcalloc((size_t)m->n_graphs + 1, sizeof *gp);
	int rc = onnx_map_graphs(m, 0, mp->graph, gp, d);
	for (int32_t gi = 0; rc == 0 && gi < m->n_graphs; gi++) {
		if (!gp[gi]) {
			diag_error(d, srcpos_file(m->path), "graph %d not found in the file again", gi);
			rc = -1;
		} else {
			write_graph(&w, gi, gp[gi]);
		}
	}
	if (rc == 0)
		rc = onnx_pack_write(mp, out_path, d);
	for (size_t k = w.n_types; k-- > 0;)
		w.types[k].vi->type = w.types[k].type;
	for (size_t k = w.n_graphs; k-- > 0;) {
		w.graphs[k].g->value_info = w.graphs[k].vi;
		w.graphs[k].g->n_value_info = w.graphs[k].n;
	}
	onnx__model_proto__free_unpacked(mp, NULL);
	if (st)
		*st = w.st;
	free(w.types);
	free(w.graphs);
	free(gp);
	arena_release(&w.a);
	free(bytes);
	return rc;
}
