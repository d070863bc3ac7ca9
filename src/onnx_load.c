/* onnx_load.c — ONNX ModelProto → fd_model. The only file that includes the
 * protobuf-c code generated from onnx.proto: the file is read whole, checked
 * for nesting depth, unpacked into a throw-away bump arena, converted into the
 * model's arena (names interned), and the protobuf tree is dropped in one go.
 * Then every graph is linked, checked and sorted (graph.c), symbolic dims are
 * bound and shape inference runs.
 *
 * Graphs: [0] is the main graph; a GRAPH / GRAPHS attribute reserves the next
 * index for its body, which is converted after its parent, so that a name a
 * body reads without producing it can be resolved against the enclosing
 * graphs (an outer-scope capture). Owner: h1-loader. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "onnx.pb-c.h"
#include "graph.h"
#include "onnx_const.h"
#include "vec.h"

#define MAX_GRAPH_DEPTH 64      /* nested If/Loop/Scan bodies */
#define MAX_MESSAGE_DEPTH 256   /* protobuf messages, checked before unpacking */
#define MAX_FILE_SIZE ((int64_t)2 << 30)

#define S(x) ((x) ? (x) : "")

/* ---- a bump allocator for the protobuf tree: no zeroing, freed at once ---- */

typedef struct pb_block {
	struct pb_block *next;
	size_t size, used;
	max_align_t data[];
} pb_block;

static void *pb_alloc(void *data, size_t size)
{
	pb_block **head = data, *b = *head;
	size = (size + 15) & ~(size_t)15;
	if (!b || b->size - b->used < size) {
		size_t want = b ? b->size * 2 : 256 * 1024;
		if (want > 64u << 20)
			want = 64u << 20;
		if (want < size)
			want = size;
		b = xmalloc(sizeof *b + want);
		b->size = want;
		b->used = 0;
		b->next = *head;
		*head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	return p;
}

static void pb_free(void *data, void *p)
{
	(void)data;
	(void)p; /* everything goes with pb_release */
}

static void pb_release(pb_block *b)
{
	while (b) {
		pb_block *next = b->next;
		free(b);
		b = next;
	}
}

/* ---- wire check: bounded nesting before protobuf-c recurses ------------- */

static int read_varint(const uint8_t *p, size_t len, size_t *at, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*at >= len)
			return -1;
		uint8_t c = p[(*at)++];
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

typedef struct wire_error {
	size_t at;
	const char *why;
} wire_error;

static int wire_check(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
                      size_t base, int depth, wire_error *err)
{
	if (depth > MAX_MESSAGE_DEPTH) {
		*err = (wire_error){ base, "messages nested too deeply" };
		return -1;
	}
	size_t at = 0;
	while (at < len) {
		size_t start = at;
		uint64_t key, v;
		if (read_varint(p, len, &at, &key) || (key >> 3) == 0) {
			*err = (wire_error){ base + start, at >= len ? "truncated" : "bad field key" };
			return -1;
		}
		switch (key & 7) {
		case 0:
			if (read_varint(p, len, &at, &v)) {
				*err = (wire_error){ base + start, "truncated" };
				return -1;
			}
			break;
		case 1:
		case 5: {
			size_t w = (key & 7) == 1 ? 8 : 4;
			if (len - at < w) {
				*err = (wire_error){ base + start, "truncated" };
				return -1;
			}
			at += w;
			break;
		}
		case 2: {
			if (read_varint(p, len, &at, &v) || v > len - at) {
				*err = (wire_error){ base + start, "truncated" };
				return -1;
			}
			const ProtobufCFieldDescriptor *f =
				protobuf_c_message_descriptor_get_field(desc, (unsigned)(key >> 3));
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    wire_check(f->descriptor, p + at, (size_t)v, base + at, depth + 1, err))
				return -1;
			at += (size_t)v;
			break;
		}
		default:
			*err = (wire_error){ base + start, "bad wire type" };
			return -1;
		}
	}
	return 0;
}

/* Files people mistake for models, by their first bytes. */
static const struct magic {
	const char *bytes;
	size_t len;
	const char *what;
} magics[] = {
	{ "\x89PNG\r\n\x1a\n", 8, "a PNG image" },
	{ "\xff\xd8\xff", 3, "a JPEG image" },
	{ "GIF8", 4, "a GIF image" },
	{ "PK\x03\x04", 4, "a zip archive (a PyTorch checkpoint?)" },
	{ "\x1f\x8b", 2, "gzip data" },
	{ "\x7f" "ELF", 4, "an ELF binary" },
	{ "\x93NUMPY", 6, "a NumPy array" },
	{ "<?xml", 5, "an XML file" },
	{ "<", 1, "an XML or HTML file" },
	{ "ir_version", 10, "ONNX text format, not the binary protobuf" },
};

/* ---- the loader's working state ------------------------------------------ */

typedef struct graph_build {
	const Onnx__GraphProto *proto;
	VEC(fd_tensor) tensors;
	VEC(int32_t) inputs;
	VEC(int32_t) outputs;
	int32_t n_initializers;
} graph_build;

typedef struct loader {
	fd_model *m;
	fd_diags *d;
	fd_srcpos pos;
	VEC(fd_graph) graphs;
	VEC(graph_build) build;   /* parallel to graphs */
	VEC(fd_symdim) symdims;
	strmap symdim_index;
} loader;

static const char *intern(loader *L, const char *s)
{
	return strpool_intern(&L->m->names, S(s));
}

static int32_t tensor_find(loader *L, int32_t gi, const char *name)
{
	return strmap_get(&L->graphs.items[gi].tensor_by_name, name);
}

static int32_t tensor_add(loader *L, int32_t gi, const char *name, fd_tensor_kind kind)
{
	graph_build *b = &L->build.items[gi];
	fd_tensor x = {
		.name = name, .kind = kind, .dtype = DT_UNDEFINED, .shape = { -1, NULL },
		.producer = FD_NONE, .producer_port = FD_NONE, .outer = FD_NONE,
	};
	int32_t t = (int32_t)b->tensors.n;
	vec_push(&b->tensors, x);
	strmap_put(&L->graphs.items[gi].tensor_by_name, name, t);
	return t;
}

static int32_t tensor_get(loader *L, int32_t gi, const char *name)
{
	int32_t t = tensor_find(L, gi, name);
	return t >= 0 ? t : tensor_add(L, gi, name, TENSOR_ACTIVATION);
}

static fd_tensor *T(loader *L, int32_t gi, int32_t t)
{
	return &L->build.items[gi].tensors.items[t];
}

static void symdim_note(loader *L, const char *sym)
{
	if (strmap_get(&L->symdim_index, sym) >= 0)
		return;
	strmap_put(&L->symdim_index, sym, (int32_t)L->symdims.n);
	fd_symdim s = { sym, 1, false };
	vec_push(&L->symdims, s);
}

/* ---- tensors: shapes, dtypes, values ------------------------------------- */

static int read_dims(loader *L, const int64_t *dims, size_t n, fd_shape *shape, const char *what)
{
	shape->rank = (int32_t)n;
	shape->dims = n ? arena_array(&L->m->arena, n, sizeof *shape->dims) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0) {
			diag_error(L->d, L->pos, "%s has a negative dimension (%lld at axis %zu)",
			           what, (long long)dims[i], i);
			return -1;
		}
		shape->dims[i] = (fd_dim){ dims[i], NULL };
	}
	return 0;
}

/* Element count of literal dims, -1 on overflow. */
static int64_t dims_count(const int64_t *dims, size_t n)
{
	int64_t c = 1;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0 || (dims[i] && c > INT64_MAX / dims[i]))
			return -1;
		c *= dims[i];
	}
	return c;
}

static int tensor_proto_read(loader *L, const Onnx__TensorProto *p, const char *what,
                             int32_t *dtype, fd_shape *shape, fd_const **value, bool *external)
{
	*dtype = p->has_data_type ? p->data_type : DT_UNDEFINED;
	if (read_dims(L, p->dims, p->n_dims, shape, what))
		return -1;
	*external = p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	*value = NULL;
	int64_t count = dims_count(p->dims, p->n_dims);
	if (*external || count < 0 || count > FD_CONST_MAX)
		return 0; /* weights: only dtype and shape are kept */
	onnx_tensor_src src = {
		.raw = p->raw_data.data, .raw_len = p->raw_data.len, .has_raw = p->has_raw_data,
		.f32 = p->float_data, .n_f32 = p->n_float_data,
		.i32 = p->int32_data, .n_i32 = p->n_int32_data,
		.i64 = p->int64_data, .n_i64 = p->n_int64_data,
		.f64 = p->double_data, .n_f64 = p->n_double_data,
		.u64 = p->uint64_data, .n_u64 = p->n_uint64_data,
	};
	*value = onnx_const_decode(&L->m->arena, *dtype, count, &src);
	return 0;
}

static fd_attr_tensor *attr_tensor(loader *L, const Onnx__TensorProto *p, const char *what)
{
	fd_attr_tensor *t = arena_alloc(&L->m->arena, sizeof *t);
	bool external;
	if (tensor_proto_read(L, p, what, &t->dtype, &t->shape, &t->value, &external))
		return NULL;
	return t;
}

/* A sparse tensor: dtype from its values, shape from its dims, no values. */
static fd_attr_tensor *attr_sparse(loader *L, const Onnx__SparseTensorProto *p, const char *what)
{
	fd_attr_tensor *t = arena_alloc(&L->m->arena, sizeof *t);
	t->dtype = p->values && p->values->has_data_type ? p->values->data_type : DT_UNDEFINED;
	if (read_dims(L, p->dims, p->n_dims, &t->shape, what))
		return NULL;
	return t;
}

/* Declared type of a value (graph input, output, value_info). The first
 * declaration wins; an initializer's own dims always win. */
static int apply_type(loader *L, int32_t gi, int32_t t, const Onnx__ValueInfoProto *vi)
{
	fd_tensor *x = T(L, gi, t);
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
			s.dims[i].sym = intern(L, dim->dim_param);
			symdim_note(L, s.dims[i].sym);
		}
	}
	x = T(L, gi, t);
	x->shape = s;
	x->shape_declared = true;
	return 0;
}

/* ---- nodes and attributes ------------------------------------------------ */

static fd_attr_type attr_kind(const Onnx__AttributeProto *p)
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
	if (p->tp) return ATTR_TYPE_PROTO;
	if (p->has_f) return ATTR_FLOAT;
	if (p->has_i) return ATTR_INT;
	if (p->has_s) return ATTR_STRING;
	return ATTR_UNDEFINED;
}

/* Reserves the next graph index for a body; it is converted later. */
static int32_t body_reserve(loader *L, int32_t parent, int32_t node, const char *attr,
                            const Onnx__GraphProto *proto)
{
	fd_graph g = { 0 };
	g.index = (int32_t)L->graphs.n;
	g.parent = parent;
	g.owner_node = node;
	g.owner_attr = attr;
	g.depth = L->graphs.items[parent].depth + 1;
	g.name = intern(L, proto ? proto->name : "");
	graph_build b = { 0 };
	b.proto = proto;
	vec_push(&L->graphs, g);
	vec_push(&L->build, b);
	return g.index;
}

static int attr_convert(loader *L, int32_t gi, int32_t ni, const fd_node *n, fd_attr *a,
                        const Onnx__AttributeProto *p, int32_t *subs, int32_t *n_subs)
{
	fd_arena *ar = &L->m->arena;
	char what[512];
	a->name = intern(L, p->name);
	a->ref_attr_name = p->ref_attr_name && p->ref_attr_name[0] ? intern(L, p->ref_attr_name) : NULL;
	a->type = attr_kind(p);
	a->count = 1;
	snprintf(what, sizeof what, "attribute '%s' of node '%s' (%s)", a->name, n->name, n->op_type);
	if ((a->type == ATTR_GRAPH || a->type == ATTR_GRAPHS) &&
	    L->graphs.items[gi].depth + 1 > MAX_GRAPH_DEPTH) {
		diag_error(L->d, L->pos, "node '%s' (%s): subgraphs nested more than %d deep",
		           n->name, n->op_type, MAX_GRAPH_DEPTH);
		return -1;
	}
	switch (a->type) {
	case ATTR_FLOAT: a->u.f = p->f; break;
	case ATTR_INT: a->u.i = p->i; break;
	case ATTR_STRING:
		a->u.s = p->s.data ? strpool_internn(&L->m->names, (const char *)p->s.data, p->s.len) : intern(L, "");
		break;
	case ATTR_TENSOR:
		if (p->t && !(a->u.t = attr_tensor(L, p->t, what)))
			return -1;
		break;
	case ATTR_SPARSE_TENSOR:
		if (p->sparse_tensor && !(a->u.t = attr_sparse(L, p->sparse_tensor, what)))
			return -1;
		break;
	case ATTR_GRAPH:
		a->u.g = FD_NONE;
		if (p->g)
			subs[(*n_subs)++] = a->u.g = body_reserve(L, gi, ni, a->name, p->g);
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
			a->u.strings[i] = p->strings[i].data
			                  ? strpool_internn(&L->m->names, (const char *)p->strings[i].data, p->strings[i].len)
			                  : intern(L, "");
		break;
	case ATTR_TENSORS:
	case ATTR_SPARSE_TENSORS: {
		size_t k = a->type == ATTR_TENSORS ? p->n_tensors : p->n_sparse_tensors;
		a->count = (int64_t)k;
		a->u.tensors = arena_array(ar, k + 1, sizeof(fd_attr_tensor *));
		for (size_t i = 0; i < k; i++) {
			a->u.tensors[i] = a->type == ATTR_TENSORS ? attr_tensor(L, p->tensors[i], what)
			                                          : attr_sparse(L, p->sparse_tensors[i], what);
			if (!a->u.tensors[i])
				return -1;
		}
		break;
	}
	case ATTR_GRAPHS:
		a->count = (int64_t)p->n_graphs;
		a->u.graphs = arena_array(ar, p->n_graphs + 1, sizeof(int32_t));
		for (size_t i = 0; i < p->n_graphs; i++)
			subs[(*n_subs)++] = a->u.graphs[i] = body_reserve(L, gi, ni, a->name, p->graphs[i]);
		break;
	case ATTR_TYPE_PROTOS:
		a->count = (int64_t)p->n_type_protos;
		break;
	default:
		break;
	}
	return 0;
}

/* A Constant node's output takes its value from whichever attribute it has. */
static void constant_output(loader *L, int32_t gi, const fd_node *n)
{
	if (n->n_outputs < 1 || n->outputs[0] < 0 || n->n_attrs < 1)
		return;
	fd_tensor *x = T(L, gi, n->outputs[0]);
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
	bool list = a->type == ATTR_FLOATS || a->type == ATTR_INTS || a->type == ATTR_STRINGS;
	if (list) {
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
	if (a->count > FD_CONST_MAX)
		return;
	fd_const *c = arena_alloc(ar, sizeof *c);
	c->count = a->count;
	if (a->type == ATTR_FLOAT || a->type == ATTR_FLOATS) {
		x->dtype = c->dtype = DT_FLOAT;
		c->f64 = a->type == ATTR_FLOAT ? arena_memdup(ar, &a->u.f, sizeof(double))
		                               : arena_memdup(ar, a->u.floats, (size_t)a->count * sizeof(double));
	} else {
		x->dtype = c->dtype = DT_INT64;
		c->i64 = a->type == ATTR_INT ? arena_memdup(ar, &a->u.i, sizeof(int64_t))
		                             : arena_memdup(ar, a->u.ints, (size_t)a->count * sizeof(int64_t));
	}
	x->value = c;
}

static int32_t *name_list(loader *L, int32_t gi, char **names, size_t n)
{
	int32_t *ids = arena_array(&L->m->arena, n + 1, sizeof *ids);
	for (size_t i = 0; i < n; i++)
		ids[i] = names[i] && names[i][0] ? tensor_get(L, gi, intern(L, names[i])) : FD_NONE;
	return ids;
}

/* Unnamed nodes are called "<op_type>_<index>", made unique in their graph. */
static const char *synth_name(loader *L, fd_graph *g, const char *op, int32_t index)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s_%d", op, index);
	for (int k = 1; strmap_get(&g->node_by_name, buf) >= 0; k++)
		snprintf(buf, sizeof buf, "%s_%d_%d", op, index, k);
	return strpool_intern(&L->m->names, buf);
}

static int convert_nodes(loader *L, int32_t gi)
{
	const Onnx__GraphProto *gp = L->build.items[gi].proto;
	int32_t nn = (int32_t)gp->n_node;
	fd_node *nodes = arena_array(&L->m->arena, (size_t)nn + 1, sizeof *nodes);
	L->graphs.items[gi].nodes = nodes;
	L->graphs.items[gi].n_nodes = nn;
	for (int32_t i = 0; i < nn; i++) {
		const Onnx__NodeProto *p = gp->node[i];
		fd_node *n = &nodes[i];
		n->op_type = intern(L, p->op_type);
		n->domain = intern(L, p->domain && strcmp(p->domain, "ai.onnx") ? p->domain : "");
		if (p->name && p->name[0]) {
			n->name = intern(L, p->name);
			strmap_put(&L->graphs.items[gi].node_by_name, n->name, i);
		}
	}
	for (int32_t i = 0; i < nn; i++) {
		const Onnx__NodeProto *p = gp->node[i];
		fd_node *n = &nodes[i];
		if (!n->name) {
			n->name = synth_name(L, &L->graphs.items[gi], n->op_type[0] ? n->op_type : "node", i);
			n->name_synthesized = true;
			strmap_put(&L->graphs.items[gi].node_by_name, n->name, i);
		}
		n->topo = FD_NONE;
		n->n_inputs = (int32_t)p->n_input;
		n->n_outputs = (int32_t)p->n_output;
		n->inputs = name_list(L, gi, p->input, p->n_input);
		n->outputs = name_list(L, gi, p->output, p->n_output);
		for (int32_t s = 0; s < n->n_outputs; s++) {
			fd_tensor *x = n->outputs[s] >= 0 ? T(L, gi, n->outputs[s]) : NULL;
			if (x && x->producer < 0) { /* graph_link reports a second producer */
				x->producer = i;
				x->producer_port = s;
			}
		}
		size_t n_subs = 0;
		for (size_t a = 0; a < p->n_attribute; a++)
			if (p->attribute[a])
				n_subs += (p->attribute[a]->g ? 1 : 0) + p->attribute[a]->n_graphs;
		int32_t *subs = arena_array(&L->m->arena, n_subs + 1, sizeof *subs);
		fd_attr *attrs = arena_array(&L->m->arena, p->n_attribute + 1, sizeof *attrs);
		int32_t k = 0, ns = 0;
		for (size_t a = 0; a < p->n_attribute; a++) {
			if (!p->attribute[a])
				continue;
			if (attr_convert(L, gi, i, n, &attrs[k++], p->attribute[a], subs, &ns))
				return -1;
		}
		n->attrs = attrs;
		n->n_attrs = k;
		n->subgraphs = subs;
		n->n_subgraphs = ns;
		if (!strcmp(n->op_type, "Constant") && !n->domain[0])
			constant_output(L, gi, n);
	}
	return 0;
}

/* ---- graphs ---------------------------------------------------------------- */

/* Finds name in the graphs enclosing gi, creating captures in the graphs in
 * between; returns the tensor index in gi's parent, or FD_NONE. */
static int32_t resolve_outer(loader *L, int32_t gi, const char *name)
{
	int32_t p = L->graphs.items[gi].parent;
	if (p < 0)
		return FD_NONE;
	int32_t t = tensor_find(L, p, name);
	if (t >= 0)
		return t;
	int32_t up = resolve_outer(L, p, name);
	if (up < 0)
		return FD_NONE;
	t = tensor_add(L, p, name, TENSOR_OUTER_SCOPE);
	T(L, p, t)->outer = up;
	return t;
}

static int convert_graph(loader *L, int32_t gi)
{
	const Onnx__GraphProto *gp = L->build.items[gi].proto;
	char what[512];
	if (!gp)
		return 0;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *p = gp->initializer[i];
		if (!p || !p->name || !p->name[0])
			continue;
		const char *name = intern(L, p->name);
		if (tensor_find(L, gi, name) >= 0) {
			diag_error(L->d, L->pos, "initializer '%s' is listed twice", name);
			return -1;
		}
		int32_t t = tensor_add(L, gi, name, TENSOR_INITIALIZER);
		fd_tensor x = *T(L, gi, t);
		snprintf(what, sizeof what, "initializer '%s'", name);
		if (tensor_proto_read(L, p, what, &x.dtype, &x.shape, &x.value, &x.external_data))
			return -1;
		x.shape_declared = true;
		*T(L, gi, t) = x;
		L->build.items[gi].n_initializers++;
	}
	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *p = gp->sparse_initializer[i];
		if (!p || !p->values || !p->values->name || !p->values->name[0])
			continue;
		const char *name = intern(L, p->values->name);
		if (tensor_find(L, gi, name) >= 0)
			continue;
		int32_t t = tensor_add(L, gi, name, TENSOR_INITIALIZER);
		snprintf(what, sizeof what, "sparse initializer '%s'", name);
		fd_shape s;
		if (read_dims(L, p->dims, p->n_dims, &s, what))
			return -1;
		fd_tensor *x = T(L, gi, t);
		x->shape = s;
		x->dtype = p->values->has_data_type ? p->values->data_type : DT_UNDEFINED;
		x->shape_declared = true;
		L->build.items[gi].n_initializers++;
	}
	/* IR < 4 lists initializers among the inputs: they stay initializers */
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		if (!vi || !vi->name || !vi->name[0])
			continue;
		const char *name = intern(L, vi->name);
		int32_t t = tensor_find(L, gi, name);
		if (t >= 0)
			continue;
		t = tensor_add(L, gi, name, TENSOR_GRAPH_INPUT);
		vec_push(&L->build.items[gi].inputs, t);
		if (apply_type(L, gi, t, vi))
			return -1;
	}
	if (convert_nodes(L, gi))
		return -1;
	for (size_t i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vi = gp->output[i];
		if (!vi || !vi->name || !vi->name[0])
			continue;
		int32_t t = tensor_get(L, gi, intern(L, vi->name));
		vec_push(&L->build.items[gi].outputs, t);
		if (apply_type(L, gi, t, vi))
			return -1;
	}
	for (size_t i = 0; i < gp->n_value_info; i++) {
		const Onnx__ValueInfoProto *vi = gp->value_info[i];
		if (!vi || !vi->name || !vi->name[0])
			continue;
		int32_t t = tensor_find(L, gi, intern(L, vi->name));
		if (t >= 0 && apply_type(L, gi, t, vi))
			return -1;
	}
	/* what a body reads but neither produces nor declares comes from outside;
	 * what stays unresolved is reported by graph_link, naming the reader */
	if (L->graphs.items[gi].parent >= 0) {
		size_t n = L->build.items[gi].tensors.n;
		for (size_t t = 0; t < n; t++) {
			fd_tensor *x = T(L, gi, (int32_t)t);
			if (x->kind != TENSOR_ACTIVATION || x->producer >= 0)
				continue;
			int32_t up = resolve_outer(L, gi, x->name);
			if (up >= 0) {
				x = T(L, gi, (int32_t)t);
				x->kind = TENSOR_OUTER_SCOPE;
				x->outer = up;
			}
		}
	}
	return 0;
}

/* Moves the working arrays into the model's arena. */
static void finalize(loader *L)
{
	fd_model *m = L->m;
	m->n_graphs = (int32_t)L->graphs.n;
	m->graphs = arena_array(&m->arena, L->graphs.n + 1, sizeof *m->graphs);
	for (size_t i = 0; i < L->graphs.n; i++) {
		fd_graph *g = &m->graphs[i];
		graph_build *b = &L->build.items[i];
		*g = L->graphs.items[i];
		g->n_tensors = (int32_t)b->tensors.n;
		g->tensors = arena_memdup(&m->arena, b->tensors.items, b->tensors.n * sizeof(fd_tensor));
		g->n_inputs = (int32_t)b->inputs.n;
		g->inputs = arena_memdup(&m->arena, b->inputs.items, b->inputs.n * sizeof(int32_t));
		g->n_outputs = (int32_t)b->outputs.n;
		g->outputs = arena_memdup(&m->arena, b->outputs.items, b->outputs.n * sizeof(int32_t));
		g->n_initializers = b->n_initializers;
		vec_release(&b->tensors);
		vec_release(&b->inputs);
		vec_release(&b->outputs);
	}
	vec_release(&L->graphs);
	vec_release(&L->build);
}

static void loader_release(loader *L)
{
	for (size_t i = 0; i < L->build.n; i++) {
		vec_release(&L->build.items[i].tensors);
		vec_release(&L->build.items[i].inputs);
		vec_release(&L->build.items[i].outputs);
	}
	for (size_t i = 0; i < L->graphs.n; i++) {
		strmap_release(&L->graphs.items[i].tensor_by_name);
		strmap_release(&L->graphs.items[i].node_by_name);
	}
	vec_release(&L->graphs);
	vec_release(&L->build);
	vec_release(&L->symdims);
	strmap_release(&L->symdim_index);
}

/* --dim values, or 1 (assumed), written into every symbolic dim. */
static void bind_symdims(loader *L, const fd_load_options *opt)
{
	fd_model *m = L->m;
	for (size_t i = 0; i < L->symdims.n; i++)
		for (int k = 0; opt && k < opt->n_dims; k++)
			if (opt->dims[k].name && !strcmp(opt->dims[k].name, L->symdims.items[i].name)) {
				L->symdims.items[i].value = opt->dims[k].value;
				L->symdims.items[i].bound = true;
			}
	for (int k = 0; opt && k < opt->n_dims; k++)
		if (opt->dims[k].name && strmap_get(&L->symdim_index, opt->dims[k].name) < 0)
			diag_warning(L->d, L->pos, "--dim %s: the model has no symbolic dim of that name",
			             opt->dims[k].name);
	m->n_symdims = (int32_t)L->symdims.n;
	m->symdims = arena_memdup(&m->arena, L->symdims.items, L->symdims.n * sizeof(fd_symdim));
	for (int32_t gi = 0; gi < m->n_graphs; gi++) {
		fd_graph *g = &m->graphs[gi];
		for (int32_t t = 0; t < g->n_tensors; t++) {
			fd_shape *s = &g->tensors[t].shape;
			for (int32_t i = 0; i < s->rank; i++)
				if (s->dims[i].sym)
					s->dims[i].value = m->symdims[strmap_get(&L->symdim_index, s->dims[i].sym)].value;
		}
	}
}

static void model_header(loader *L, const Onnx__ModelProto *mp)
{
	fd_model *m = L->m;
	m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
	m->model_version = mp->has_model_version ? mp->model_version : 0;
	m->producer_name = intern(L, mp->producer_name);
	m->producer_version = intern(L, mp->producer_version);
	m->domain = intern(L, mp->domain);
	m->doc_string = arena_strdup(&m->arena, S(mp->doc_string));
	m->opsets = arena_array(&m->arena, mp->n_opset_import + 1, sizeof *m->opsets);
	for (size_t i = 0; i < mp->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
		if (!o)
			continue;
		const char *dom = o->domain && strcmp(o->domain, "ai.onnx") ? o->domain : "";
		m->opsets[m->n_opsets++] = (fd_opset){ intern(L, dom), o->has_version ? o->version : 0 };
	}
	if (m->ir_version < 3 || m->ir_version > 10)
		diag_warning(L->d, L->pos, "IR version %lld is outside 3..10; loading it anyway",
		             (long long)m->ir_version);
}

static int convert_model(loader *L, const Onnx__ModelProto *mp, const fd_load_options *opt)
{
	model_header(L, mp);
	fd_graph main_graph = { 0 };
	main_graph.parent = main_graph.owner_node = FD_NONE;
	main_graph.name = intern(L, mp->graph->name);
	graph_build b = { 0 };
	b.proto = mp->graph;
	vec_push(&L->graphs, main_graph);
	vec_push(&L->build, b);
	/* bodies are appended while their parents convert */
	for (size_t gi = 0; gi < L->graphs.n; gi++)
		if (convert_graph(L, (int32_t)gi))
			return -1;
	finalize(L);
	fd_model *m = L->m;
	for (int32_t gi = 0; gi < m->n_graphs; gi++)
		if (graph_link(m, &m->graphs[gi], L->d) || graph_topo_sort(m, &m->graphs[gi], L->d))
			return -1;
	bind_symdims(L, opt);
	return 0;
}

/* ---- entry points ---------------------------------------------------------- */

void model_release(fd_model *m)
{
	for (int32_t i = 0; i < m->n_graphs; i++) {
		strmap_release(&m->graphs[i].tensor_by_name);
		strmap_release(&m->graphs[i].node_by_name);
	}
	strpool_release(&m->names);
	arena_release(&m->arena);
	memset(m, 0, sizeof *m);
}

static int not_a_model(fd_diags *d, fd_srcpos pos, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (size >= magics[i].len && !memcmp(data, magics[i].bytes, magics[i].len)) {
			diag_error(d, pos, "not an ONNX model (it is %s)", magics[i].what);
			return -1;
		}
	return 0;
}

int model_load_onnx_buffer(fd_model *m, const char *name, const void *data, size_t size,
                           const fd_load_options *opt, fd_diags *d)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	strpool_init(&m->names, &m->arena);
	m->path = arena_strdup(&m->arena, S(name));
	m->file_size = (int64_t)size;
	fd_srcpos pos = srcpos_file(m->path);
	const uint8_t *bytes = data;
	wire_error werr = { 0, NULL };
	size_t errors = d->errors;

	if (size == 0) {
		diag_error(d, pos, "empty file, not an ONNX model");
		goto fail;
	}
	if ((int64_t)size > MAX_FILE_SIZE) {
		diag_error(d, pos, "file is larger than 2 GiB, the protobuf limit; not loaded");
		goto fail;
	}
	if (not_a_model(d, pos, bytes, size))
		goto fail;
	if (wire_check(&onnx__model_proto__descriptor, bytes, size, 0, 0, &werr)) {
		diag_error(d, pos, "not a valid ONNX protobuf (%s at byte %zu of %zu)", werr.why, werr.at, size);
		goto fail;
	}
	pb_block *blocks = NULL;
	ProtobufCAllocator alloc = { pb_alloc, pb_free, &blocks };
	Onnx__ModelProto *mp = onnx__model_proto__unpack(&alloc, size, bytes);
	if (!mp) {
		pb_release(blocks);
		diag_error(d, pos, "not a valid ONNX protobuf");
		goto fail;
	}
	if (!mp->graph) {
		pb_release(blocks);
		diag_error(d, pos, "not an ONNX model: it has no graph");
		goto fail;
	}
	loader L = { .m = m, .d = d, .pos = pos };
	int rc = convert_model(&L, mp, opt);
	loader_release(&L);
	pb_release(blocks);
	if (rc)
		goto fail;
	if (!(opt && opt->no_shape_inference) && shape_infer(m, d) < 0)
		goto fail;
	return 0;
fail:
	if (d->errors == errors)
		diag_error(d, pos, "cannot load the model");
	model_release(m);
	return -1;
}

int model_load_onnx(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d)
{
	fd_srcpos pos = srcpos_file(path);
	memset(m, 0, sizeof *m);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		diag_error(d, pos, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		diag_error(d, pos, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		diag_error(d, pos, "cannot read: it is a directory");
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode) && st.st_size > MAX_FILE_SIZE) {
		diag_error(d, pos, "file is %lld bytes, larger than 2 GiB (the protobuf limit); not loaded",
		           (long long)st.st_size);
		close(fd);
		return -1;
	}
	/* regular files are read in one go; pipes grow the buffer up to the limit */
	size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 1 << 20, size = 0;
	uint8_t *buf = xmalloc(cap);
	for (;;) {
		if (size == cap) {
			if ((int64_t)cap > MAX_FILE_SIZE) {
				diag_error(d, pos, "input is larger than 2 GiB (the protobuf limit); not loaded");
				free(buf);
				close(fd);
				return -1;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + size, cap - size);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			diag_error(d, pos, "cannot read: %s", strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		size += (size_t)r;
	}
	close(fd);
	int rc = model_load_onnx_buffer(m, path, buf, size, opt, d);
	free(buf);
	return rc;
}
