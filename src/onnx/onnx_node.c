/* onnx_node.c — NodeProto, AttributeProto, TensorProto and ValueInfoProto →
 * the IR of graph.h: attributes of every kind, small tensor values decoded
 * (onnx_const.c), Constant nodes' outputs, declared dtypes and shapes with
 * symbolic dims. A GRAPH / GRAPHS attribute reserves its body's graph index
 * (onnx_loader.c); onnx_load.c converts the bodies right after the node,
 * while the node's protobuf is alive. */
#include <stdio.h>
#include <string.h>
#include "base/strbuf.h"
#include "onnx/onnx_const.h"
#include "onnx/onnx_loader.h"
#include "ir/onnx_ops.h"

/* Literal dims; -1 (and L->bad_dim / bad_axis) on a negative one. */
static int read_dims(loader *L, const int64_t *dims, size_t n, fd_shape *shape)
{
	shape->rank = (int32_t)n;
	shape->dims = n ? arena_array(&L->m->arena, n, sizeof *shape->dims) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0) {
			L->bad_dim = dims[i];
			L->bad_axis = i;
			return -1;
		}
		shape->dims[i] = (fd_dim){ dims[i], NULL };
	}
	return 0;
}

int onnx_tensor_read(loader *L, const onnx_tensor_msg *p, int32_t *dtype, fd_shape *shape,
                     fd_const **value, bool *external)
{
	*dtype = p->has_data_type ? p->data_type : DT_UNDEFINED;
	*value = NULL;
	*external = p->external;
	if (read_dims(L, p->dims, p->n_dims, shape))
		return -1;
	if (!onnx_tensor_small(p->dims, p->n_dims, p->external))
		return 0; /* weights: only dtype and shape are kept, their bytes never read */
	*value = onnx_const_decode(&L->m->arena, *dtype, onnx_dims_count(p->dims, p->n_dims), &p->values);
	return 0;
}

static fd_attr_tensor *attr_tensor(loader *L, const onnx_tensor_msg *p)
{
	fd_attr_tensor *t = arena_alloc(&L->m->arena, sizeof *t);
	bool external;
	return onnx_tensor_read(L, p, &t->dtype, &t->shape, &t->value, &external) ? NULL : t;
}

/* A sparse tensor: dtype from its values, shape from its dims, no values. */
static fd_attr_tensor *attr_sparse(loader *L, const Onnx__SparseTensorProto *p)
{
	fd_attr_tensor *t = arena_alloc(&L->m->arena, sizeof *t);
	t->dtype = p->values && p->values->has_data_type ? p->values->data_type : DT_UNDEFINED;
	return read_dims(L, p->dims, p->n_dims, &t->shape) ? NULL : t;
}

/* Declared type of a value (graph input, output, value_info). The first
 * declaration wins; an initializer's own dims always win. */
int onnx_apply_type(loader *L, int32_t gi, int32_t t, const Onnx__ValueInfoProto *vi)
{
	fd_tensor *x = loader_tensor(L, gi, t);
	const Onnx__TypeProto *tp = vi->type;
	if (!tp || x->shape_declared)
		return 0;
	const Onnx__TensorShapeProto *sp = NULL;
	int32_t elem = DT_UNDEFINED;
	if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type) {
		elem = tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : DT_UNDEFINED;
		sp = tp->tensor_type->shape;
	} else if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE && tp->sparse_tensor_type) {
		elem = tp->sparse_tensor_type->has_elem_type ? tp->sparse_tensor_type->elem_type : DT_UNDEFINED;
		sp = tp->sparse_tensor_type->shape;
	}
	if (x->dtype == DT_UNDEFINED)
		x->dtype = elem;
	if (!sp)
		return 0;
	fd_shape s = { (int32_t)sp->n_dim, NULL };
	s.dims = sp->n_dim ? arena_array(&L->m->arena, sp->n_dim, sizeof *s.dims) : NULL;
	for (size_t i = 0; i < sp->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
		s.dims[i] = (fd_dim){ -1, NULL };
		if (!dim)
			continue;
		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			if (dim->dim_value < 0) {
				diag_error(L->d, L->pos, "tensor '%s' has a negative dimension (%lld at axis %zu)",
				           x->name, (long long)dim->dim_value, i);
				return -1;
			}
			s.dims[i].value = dim->dim_value;
		} else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		           dim->dim_param && dim->dim_param[0]) {
			s.dims[i] = dimtab_symbol(L->m->dimtab, dim->dim_param);
		}
	}
	x = loader_tensor(L, gi, t);
	x->shape = s;
	x->shape_declared = true;
	return 0;
}

static fd_attr_type attr_kind(const onnx_attr_msg *p)
{
	if (p->has_type && p->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
		return (fd_attr_type)p->type;
	/* old exporters left the type out: infer it from the field that is set */
	if (p->n_floats) return ATTR_FLOATS;
	if (p->n_ints) return ATTR_INTS;
	if (p->n_strings) return ATTR_STRINGS;
	if (p->n_tensors) return ATTR_TENSORS;
	if (p->n_graphs) return ATTR_GRAPHS;
	if (p->n_sparse_tensors) return ATTR_SPARSE_TENSORS;
	if (p->n_type_protos) return ATTR_TYPE_PROTOS;
	if (p->t) return ATTR_TENSOR;
	if (p->g) return ATTR_GRAPH;
	if (p->sparse_tensor) return ATTR_SPARSE_TENSOR;
	if (p->has_tp) return ATTR_TYPE_PROTO;
	if (p->has_f) return ATTR_FLOAT;
	if (p->has_i) return ATTR_INT;
	if (p->has_s) return ATTR_STRING;
	return ATTR_UNDEFINED;
}


/* The node's name for messages, before unnamed nodes get theirs. */
static const char *display_name(const fd_node *n, int32_t i, char *buf, size_t size)
{
	if (n->name)
		return n->name;
	snprintf(buf, size, "%s_%d", n->op_type, i);
	return buf;
}

static int attr_convert(loader *L, int32_t gi, int32_t ni, const fd_node *n, fd_attr *a,
                        const onnx_attr_msg *p, int32_t *subs, int32_t *n_subs)
{
	fd_arena *ar = &L->m->arena;
	char nb[300];
	a->name = onnx_loader_internv(L, p->name);
	a->ref_attr_name = onnx_str_empty(p->ref_attr_name) ? NULL : onnx_loader_internv(L, p->ref_attr_name);
	a->type = attr_kind(p);
	a->count = 1;
	if ((a->type == ATTR_GRAPH || a->type == ATTR_GRAPHS) &&
	    L->graphs.items[gi].depth + 1 > MAX_GRAPH_DEPTH) {
		diag_error(L->d, L->pos, "node '%s' (%s): subgraphs nested more than %d deep",
		           display_name(n, ni, nb, sizeof nb), n->op_type, MAX_GRAPH_DEPTH);
		return -1;
	}
	bool ok = true;
	switch (a->type) {
	case ATTR_FLOAT: a->u.f = p->f; break;
	case ATTR_INT: a->u.i = p->i; break;
	case ATTR_STRING: a->u.s = onnx_loader_internv(L, p->s); break;
	/* a declared tensor or graph that is absent reads as an empty one, so
	 * u.t and u.g are always valid */
	case ATTR_TENSOR:
		ok = (a->u.t = p->t ? attr_tensor(L, p->t) : arena_alloc(ar, sizeof *a->u.t)) != NULL;
		break;
	case ATTR_SPARSE_TENSOR:
		ok = (a->u.t = p->sparse_tensor ? attr_sparse(L, p->sparse_tensor) : arena_alloc(ar, sizeof *a->u.t)) != NULL;
		break;
	case ATTR_GRAPH:
		subs[(*n_subs)++] = a->u.g = onnx_loader_body(L, gi, ni, a->name, p->g);
		break;
	case ATTR_FLOATS:
		a->count = (int64_t)p->n_floats;
		a->u.floats = arena_array(ar, p->n_floats + 1, sizeof(double));
		for (size_t i = 0; i < p->n_floats; i++)
			a->u.floats[i] = p->floats[i];
		break;
	case ATTR_INTS:
		a->count = (int64_t)p->n_ints;
		a->u.ints = arena_memdup(ar, p->ints, p->n_ints * sizeof(int64_t));
		break;
	case ATTR_STRINGS:
		a->count = (int64_t)p->n_strings;
		a->u.strings = arena_array(ar, p->n_strings + 1, sizeof(char *));
		for (size_t i = 0; i < p->n_strings; i++)
			a->u.strings[i] = onnx_loader_internv(L, p->strings[i]);
		break;
	case ATTR_TENSORS:
	case ATTR_SPARSE_TENSORS: {
		size_t k = a->type == ATTR_TENSORS ? p->n_tensors : p->n_sparse_tensors;
		a->count = (int64_t)k;
		a->u.tensors = arena_array(ar, k + 1, sizeof(fd_attr_tensor *));
		for (size_t i = 0; i < k && ok; i++) {
			a->u.tensors[i] = a->type == ATTR_TENSORS ? attr_tensor(L, &p->tensors[i])
			                                          : attr_sparse(L, p->sparse_tensors[i]);
			ok = a->u.tensors[i] != NULL;
		}
		break;
	}
	case ATTR_GRAPHS:
		a->count = (int64_t)p->n_graphs;
		a->u.graphs = arena_array(ar, p->n_graphs + 1, sizeof(int32_t));
		for (size_t i = 0; i < p->n_graphs; i++)
			subs[(*n_subs)++] = a->u.graphs[i] = onnx_loader_body(L, gi, ni, a->name, p->graphs[i]);
		break;
	case ATTR_TYPE_PROTOS:
		a->count = (int64_t)p->n_type_protos;
		break;
	default:
		break;
	}
	if (!ok)
		diag_error(L->d, L->pos, "attribute '%s' of node '%s' (%s) has a negative dimension (%lld at axis %zu)",
		           a->name, display_name(n, ni, nb, sizeof nb), n->op_type, (long long)L->bad_dim, L->bad_axis);
	return ok ? 0 : -1;
}

/* A Constant node's output takes its value from whichever attribute it has. */
static void constant_output(loader *L, int32_t gi, const fd_node *n)
{
	if (n->n_outputs < 1 || n->outputs[0] < 0 || n->n_attrs < 1)
		return;
	fd_tensor *x = loader_tensor(L, gi, n->outputs[0]);
	const fd_attr *a = &n->attrs[0];
	fd_arena *ar = &L->m->arena;
	x->kind = TENSOR_CONSTANT;
	x->shape_declared = true;
	x->shape = (fd_shape){ 0, NULL };
	if ((a->type == ATTR_TENSOR || a->type == ATTR_SPARSE_TENSOR) && a->u.t) {
		x->dtype = a->u.t->dtype;
		x->shape = a->u.t->shape;
		x->value = a->u.t->value;
		return;
	}
	if (a->type == ATTR_FLOATS || a->type == ATTR_INTS || a->type == ATTR_STRINGS) {
		x->shape.rank = 1;
		x->shape.dims = arena_alloc(ar, sizeof *x->shape.dims);
		x->shape.dims[0] = (fd_dim){ a->count, NULL };
	}
	if (a->type == ATTR_STRING || a->type == ATTR_STRINGS) {
		x->dtype = DT_STRING;
		return;
	}
	if (a->type != ATTR_FLOAT && a->type != ATTR_FLOATS && a->type != ATTR_INT && a->type != ATTR_INTS) {
		x->shape_declared = false;
		x->shape.rank = -1;
		return;
	}
	bool is_float = a->type == ATTR_FLOAT || a->type == ATTR_FLOATS;
	x->dtype = is_float ? DT_FLOAT : DT_INT64;
	if (a->count > FD_CONST_MAX)
		return;
	fd_const *c = arena_alloc(ar, sizeof *c);
	c->count = a->count;
	c->dtype = x->dtype;
	if (a->type == ATTR_FLOAT)
		c->f64 = arena_memdup(ar, &a->u.f, sizeof(double));
	else if (a->type == ATTR_FLOATS)
		c->f64 = arena_memdup(ar, a->u.floats, (size_t)a->count * sizeof(double));
	else if (a->type == ATTR_INT)
		c->i64 = arena_memdup(ar, &a->u.i, sizeof(int64_t));
	else
		c->i64 = arena_memdup(ar, a->u.ints, (size_t)a->count * sizeof(int64_t));
	x->value = c;
}

static bool str_is(onnx_str s, const char *word)
{
	size_t n = strlen(word);
	return strnlen(s.s, s.n) == n && !memcmp(s.s, word, n);
}

int onnx_node_convert(loader *L, int32_t gi, int32_t i, const onnx_node_msg *p)
{
	fd_node *n = &L->graphs.items[gi].nodes[i];
	n->op_type = onnx_loader_internv(L, p->op_type);
	/* onnx_domain_normal's answer, from the message's unterminated view */
	n->domain = str_is(p->domain, ONNX_DOMAIN) ? onnx_loader_intern(L, "") : onnx_loader_internv(L, p->domain);
	if (!onnx_str_empty(p->name))   /* unique: no interning */
		n->name = arena_strndup(&L->m->arena, p->name.s, strnlen(p->name.s, p->name.n));
	n->topo = FD_NONE;
	n->n_inputs = (int32_t)p->n_input;
	n->n_outputs = (int32_t)p->n_output;
	/* one allocation: the outputs follow the inputs */
	n->inputs = arena_array(&L->m->arena, p->n_input + p->n_output + 1, sizeof *n->inputs);
	n->outputs = n->inputs + p->n_input;
	onnx_loader_node_tensors(L, gi, p->input, p->n_input + p->n_output, n->inputs);
	for (int32_t s = 0; s < n->n_outputs; s++) {
		fd_tensor *x = n->outputs[s] >= 0 ? loader_tensor(L, gi, n->outputs[s]) : NULL;
		if (x && x->producer < 0) { /* graph_link reports a second producer */
			x->producer = i;
			x->producer_port = s;
		}
	}
	size_t n_subs = 0;
	for (size_t a = 0; a < p->n_attribute; a++) {
		fd_attr_type kind = attr_kind(&p->attribute[a]);
		n_subs += kind == ATTR_GRAPH ? 1 : kind == ATTR_GRAPHS ? p->attribute[a].n_graphs : 0;
	}
	int32_t *subs = n_subs ? arena_array(&L->m->arena, n_subs, sizeof *subs) : NULL;
	fd_attr *attrs = p->n_attribute ? arena_array(&L->m->arena, p->n_attribute, sizeof *attrs) : NULL;
	int32_t k = 0, ns = 0;
	for (size_t a = 0; a < p->n_attribute; a++)
		if (attr_convert(L, gi, i, n, &attrs[k++], &p->attribute[a], subs, &ns))
			return -1;
	n->attrs = attrs;
	n->n_attrs = k;
	n->subgraphs = subs;
	n->n_subgraphs = ns;
	if (node_is(n, "Constant"))
		constant_output(L, gi, n);
	return 0;
}

void onnx_name_nodes(loader *L, int32_t gi)
{
	fd_graph *g = &L->graphs.items[gi];
	strbuf buf = { 0 };   /* grows: a name cut short could repeat another one forever */
	int32_t i = 0;
	while (i < g->n_nodes && g->nodes[i].name)
		i++;
	if (i == g->n_nodes)
		return;   /* all named: the name index waits for its first use */
	for (; i < g->n_nodes; i++) {
		fd_node *n = &g->nodes[i];
		if (n->name)
			continue;
		const char *op = n->op_type[0] ? n->op_type : "node";
		sb_clear(&buf);
		sb_printf(&buf, "%s_%d", op, i);
		for (int k = 1; graph_find_node(g, sb_str(&buf)) >= 0; k++) {
			sb_clear(&buf);
			sb_printf(&buf, "%s_%d_%d", op, i, k);
		}
		n->name = arena_strdup(&L->m->arena, sb_str(&buf));
		n->name_synthesized = true;
		strmap_put(&g->node_by_name, n->name, i);
	}
	sb_release(&buf);
}
