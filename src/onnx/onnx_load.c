/* onnx_load.c — ONNX ModelProto → fd_model: reading the file, the model
 * header, graphs and their order, outer-scope captures, symbolic dims.
 *
 * Not the whole file at once: after a wire check (onnx_wire.c) the main
 * graph's nodes and initializers are decoded in place one message at a time
 * (onnx_decode.c, views into the file; protobuf-c for what it leaves) and its
 * value infos unpacked by protobuf-c, into a scratch arena reset between
 * them, so a million-node model never exists twice in memory. Bodies of If / Loop / Scan arrive unpacked inside
 * their owner's NodeProto and are converted right after it.
 *
 * Graphs: [0] is the main graph; a GRAPH / GRAPHS attribute reserves the next
 * index for its body, so a parent always comes before its bodies. Once every
 * graph is converted, a name a body reads but neither produces nor declares is
 * resolved against the enclosing graphs, innermost first (an outer-scope
 * capture, created in the graphs in between as needed). Then each graph is
 * linked, checked and sorted (graph.c), symbols are bound (onnx_bind.c) and
 * shape inference runs. The file itself is opened, checked and mapped by
 * base/input_file.c. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/onnx_loader.h"
#include "ir/onnx_ops.h"
#include "shape/shape.h"
#include "base/arena.h"
#include "base/input_file.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "onnx/onnx_holes.h"

enum { GRAPH_NODE = 1, GRAPH_NAME = 2, GRAPH_INITIALIZER = 5, GRAPH_INPUT = 11, GRAPH_OUTPUT = 12,
       GRAPH_VALUE_INFO = 13, GRAPH_SPARSE_INITIALIZER = 15, MODEL_GRAPH = 7 };

/* ---- the messages of one repeated GraphProto field ------------------------ */

/* What onnx_wire_check or onnx_wire_unpack refused, in one line. */
static void wire_refusal(fd_diags *d, fd_srcpos pos, const wire_error *e, size_t file_size)
{
	if (!e->name) {
		diag_error(d, pos, "not a valid ONNX protobuf (%s at byte %zu of %zu)", e->why, e->at, file_size);
		return;
	}
	strbuf name = { 0 };
	text_escape_n(&name, (const char *)e->name, e->name_len);
	diag_error(d, pos, "tensor name '%s' holds a NUL byte (at byte %zu): names that differ after it would be "
	           "one tensor; not loaded", sb_str(&name), e->at);
	sb_release(&name);
}

static const void *node_msg(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth, wire_error *err)
{
	return onnx_msg_node(a, p, len, base, depth, err);
}

static const void *tensor_msg(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth, wire_error *err)
{
	return onnx_msg_tensor(a, p, len, base, depth, err);
}

/* The views (onnx_msg.h) the messages of a field are converted as: NULL
 * for the fields read as protobuf-c's messages. */
static msg_decoder decoder_of(unsigned field)
{
	return field == GRAPH_NODE ? node_msg : field == GRAPH_INITIALIZER ? tensor_msg : NULL;
}

typedef struct msg_iter {
	loader *L;
	graph_src src;            /* a copy: bodies reserved meanwhile move L->build */
	const ProtobufCFieldDescriptor *field;
	msg_decoder decode;       /* nodes and initializers: views */
	size_t at;                /* wire offset, or index into the unpacked array */
	bool failed;
	msg_stream *stream;       /* main graph's initializers and nodes, decoded on another thread */
	pb_arena views;           /* an unpacked graph's: the view of its current message */
} msg_iter;

static msg_iter msg_begin(loader *L, int32_t gi, unsigned field)
{
	msg_iter it = { L, L->build.items[gi].src, NULL, decoder_of(field), 0, false, NULL, { 0 } };
	it.field = protobuf_c_message_descriptor_get_field(&onnx__graph_proto__descriptor, field);
	onnx_pb_arena_init(&it.views);
	if (it.src.wire)
		it.at = it.src.span[field].first;
	if (!gi && it.decode)
		it.stream = L->stream;
	return it;
}

static void msg_end(msg_iter *it)
{
	onnx_pb_arena_release(&it->views);
}

/* The next message, or NULL at the end (it->failed when it did not decode).
 * A wire message, and a view, lives until the next call. */
static const void *msg_next(msg_iter *it)
{
	const graph_src *s = &it->src;
	if (s->proto) {
		size_t n = *(const size_t *)((const char *)s->proto + it->field->quantifier_offset);
		void *const *v = *(void *const *const *)((const char *)s->proto + it->field->offset);
		while (it->at < n && !v[it->at])
			it->at++;
		if (it->at == n)
			return NULL;
		const void *p = v[it->at++];
		if (!it->decode)
			return p;
		onnx_pb_arena_reset(&it->views);
		return it->field->id == GRAPH_NODE ? (const void *)onnx_msg_from_node(&it->views, p)
		                                   : (const void *)onnx_msg_from_tensor(&it->views, p);
	}
	wire_error bad;
	const void *msg = NULL;
	if (it->stream) {
		msg = onnx_stream_next(it->stream, &it->failed, &bad);
	} else {
		const uint8_t *data;
		size_t len;
		if (!onnx_wire_next(s->wire, s->span[it->field->id].end, &it->at, it->field->id, &data, &len))
			return NULL;
		/* the first check left the main graph's initializers and nodes to be checked here */
		onnx_pb_arena_reset(&it->L->scratch);
		size_t base = (size_t)(data - it->L->file);
		msg = it->decode ? it->decode(&it->L->scratch, data, len, base, 2, &bad)
		                 : onnx_wire_unpack(it->field->descriptor, &it->L->scratch.allocator, data, len, base, 2, &bad);
		it->failed = !msg;
	}
	if (it->failed && (bad.why || bad.name))
		wire_refusal(it->L->d, it->L->pos, &bad, it->L->file_size);
	else if (it->failed)
		diag_error(it->L->d, it->L->pos, "not a valid ONNX protobuf (bad %s at byte %zu)",
		           it->field->name, bad.at);
	return msg;
}

static size_t msg_count(loader *L, int32_t gi, unsigned field)
{
	const graph_src *s = &L->build.items[gi].src;
	const ProtobufCFieldDescriptor *f =
		protobuf_c_message_descriptor_get_field(&onnx__graph_proto__descriptor, field);
	if (s->proto)
		return *(const size_t *)((const char *)s->proto + f->quantifier_offset);
	return s->span[field].count;
}

/* ---- graphs ---------------------------------------------------------------- */

/* FNV-1a over bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const uint8_t *b = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* A 64-bit fingerprint of an initializer as written: its type, dims and
 * values in the field that holds them. Two copies with one fingerprint are
 * taken as identical (a collision of different copies is 1 in 2^64). */
static uint64_t initializer_print(const onnx_tensor_msg *p)
{
	const onnx_tensor_src *v = &p->values;
	uint64_t h = 0xcbf29ce484222325ull;
	h = fnv(h, &p->data_type, sizeof p->data_type);
	h = fnv(h, &p->n_dims, sizeof p->n_dims);
	h = fnv(h, p->dims, p->n_dims * sizeof *p->dims);
	h = fnv(h, &p->external, sizeof p->external);
	h = fnv(h, v->raw, v->has_raw ? v->raw_len : 0);
	h = fnv(h, v->f32, v->n_f32 * sizeof *v->f32);
	h = fnv(h, v->i32, v->n_i32 * sizeof *v->i32);
	h = fnv(h, v->i64, v->n_i64 * sizeof *v->i64);
	h = fnv(h, v->f64, v->n_f64 * sizeof *v->f64);
	return fnv(h, v->u64, v->n_u64 * sizeof *v->u64);
}

/* A second listing of initializer p in graph gi: 1 when it is read once
 * (identical copies, a warning), 0 when refused (an error naming it). */
static int initializer_again(loader *L, int32_t gi, const onnx_tensor_msg *p, uint64_t print)
{
	const char *name = onnx_loader_internv(L, p->name);
	int32_t first = onnx_loader_tensor_find(L, gi, p->name);
	if (!L->identical_duplicates || first < 0 || loader_tensor(L, gi, first)->kind != TENSOR_INITIALIZER) {
		diag_error(L->d, L->pos, "initializer '%s' is listed twice", name);
		return 0;
	}
	for (size_t k = 0; k < L->prints.n; k++)
		if (L->prints.items[k].graph == gi && L->prints.items[k].tensor == first) {
			if (L->prints.items[k].print != print) {
				diag_error(L->d, L->pos, "initializer '%s' is listed twice with different values", name);
				return 0;
			}
			diag_warning(L->d, L->pos, "initializer '%s' is listed twice, both copies identical: read once", name);
			return 1;
		}
	diag_error(L->d, L->pos, "initializer '%s' is listed twice", name);
	return 0;
}

static int read_initializers(loader *L, int32_t gi)
{
	msg_iter it = msg_begin(L, gi, GRAPH_INITIALIZER);
	int rc = 0;
	for (const onnx_tensor_msg *p; !rc && (p = msg_next(&it));) {
		if (onnx_str_empty(p->name))
			continue;
		uint64_t print = L->identical_duplicates ? initializer_print(p) : 0;
		int32_t t = onnx_loader_tensor_add(L, gi, p->name, TENSOR_INITIALIZER);
		if (t < 0) {
			if (initializer_again(L, gi, p, print))
				continue;
			rc = -1;
			break;
		}
		if (L->identical_duplicates)
			vec_push(&L->prints, ((onnx_init_print){ gi, t, print }));
		fd_tensor x = *loader_tensor(L, gi, t);
		bool external = false;
		if (onnx_tensor_read(L, p, &x.dtype, &x.shape, &x.value, &external)) {
			diag_error(L->d, L->pos, "initializer '%s' has a negative dimension (%lld at axis %zu)",
			           x.name, (long long)L->bad_dim, L->bad_axis);
			rc = -1;
			break;
		}
		onnx_data_mismatch bad;
		if (!external && onnx_data_check(x.dtype, onnx_dims_count(p->dims, p->n_dims), &p->values, &p->counts,
		                                  &bad)) {
			diag_error(L->d, L->pos, "initializer '%s': %s holds %llu %s, its shape and data type need %llu; "
			           "not loaded", x.name, bad.field, (unsigned long long)bad.have,
			           bad.bytes ? "bytes" : "values", (unsigned long long)bad.want);
			rc = -1;
			break;
		}
		x.shape_declared = true;
		x.external_data = external;
		*loader_tensor(L, gi, t) = x;
		L->build.items[gi].n_initializers++;
	}
	msg_end(&it);
	if (rc || it.failed)
		return -1;
	it = msg_begin(L, gi, GRAPH_SPARSE_INITIALIZER);
	for (const Onnx__SparseTensorProto *p; (p = msg_next(&it));) {
		if (!p->values || !p->values->name || !p->values->name[0] ||
		    onnx_loader_tensor_find(L, gi, onnx_strv(p->values->name)) >= 0)
			continue;
		int32_t t = onnx_loader_tensor_add(L, gi, onnx_strv(p->values->name), TENSOR_INITIALIZER);
		fd_tensor *x = loader_tensor(L, gi, t);
		x->dtype = p->values->has_data_type ? p->values->data_type : DT_UNDEFINED;
		x->shape.rank = (int32_t)p->n_dims;
		x->shape.dims = p->n_dims ? arena_array(&L->m->arena, p->n_dims, sizeof(fd_dim)) : NULL;
		for (size_t i = 0; i < p->n_dims; i++) {
			if (p->dims[i] < 0) {
				diag_error(L->d, L->pos, "sparse initializer '%s' has a negative dimension (%lld at axis %zu)",
				           x->name, (long long)p->dims[i], i);
				return -1;
			}
			x->shape.dims[i] = (fd_dim){ p->dims[i], NULL };
		}
		x->shape_declared = true;
		L->build.items[gi].n_initializers++;
	}
	return it.failed ? -1 : 0;
}

/* Graph inputs. An initializer listed among them stays an initializer, marked
 * listed_input: IR < 4 lists every initializer there (constants), IR >= 4
 * only those the caller may override. */
static int read_inputs(loader *L, int32_t gi)
{
	msg_iter it = msg_begin(L, gi, GRAPH_INPUT);
	for (const Onnx__ValueInfoProto *vi; (vi = msg_next(&it));) {
		if (!vi->name || !vi->name[0])
			continue;
		int32_t have = onnx_loader_tensor_find(L, gi, onnx_strv(vi->name));
		if (have >= 0 && loader_tensor(L, gi, have)->kind == TENSOR_GRAPH_INPUT) {
			/* not SSA: which declaration would the graph read? */
			diag_error(L->d, L->pos, "graph input '%s' is listed twice", vi->name);
			return -1;
		}
		L->build.items[gi].n_declared_inputs++;
		if (have >= 0) {
			/* an initializer listed among the inputs: a default the caller may
			 * override from IR 4 on (model_set_initializer_policy decides) */
			loader_tensor(L, gi, have)->listed_input = true;
			continue;
		}
		int32_t t = onnx_loader_tensor_add(L, gi, onnx_strv(vi->name), TENSOR_GRAPH_INPUT);
		vec_push(&L->build.items[gi].inputs, t);
		if (onnx_apply_type(L, gi, t, vi))
			return -1;
	}
	return it.failed ? -1 : 0;
}

static size_t stream_min = STREAM_MIN_NODES;

void onnx_test_stream_min(size_t n)
{
	stream_min = n ? n : STREAM_MIN_NODES;
}

static int convert_graph(loader *L, int32_t gi);

static int read_nodes(loader *L, int32_t gi)
{
	size_t n = msg_count(L, gi, GRAPH_NODE);
	if (n > INT32_MAX / 2) {
		diag_error(L->d, L->pos, "graph has %zu nodes, more than fusiondbg handles", n);
		return -1;
	}
	fd_node *nodes = arena_array(&L->m->arena, n + 1, sizeof *nodes);
	L->graphs.items[gi].nodes = nodes;
	L->graphs.items[gi].n_nodes = (int32_t)n;
	msg_iter it = msg_begin(L, gi, GRAPH_NODE);
	int32_t i = 0;
	int rc = 0;
	for (const onnx_node_msg *p; !rc && (p = msg_next(&it)) && i < (int32_t)n; i++) {
		rc = onnx_node_convert(L, gi, i, p);
		/* bodies now, while their protobuf (inside this node's) is alive */
		const fd_node *nd = &nodes[i];
		for (int32_t b = 0; !rc && b < nd->n_subgraphs; b++)
			rc = convert_graph(L, nd->subgraphs[b]);
	}
	msg_end(&it);
	if (rc)
		return -1;
	L->graphs.items[gi].n_nodes = i;
	if (it.failed)
		return -1;
	onnx_name_nodes(L, gi);
	return 0;
}

/* Graph outputs, then value_info, which only annotates tensors that exist. */
static int read_outputs(loader *L, int32_t gi)
{
	msg_iter it = msg_begin(L, gi, GRAPH_OUTPUT);
	for (const Onnx__ValueInfoProto *vi; (vi = msg_next(&it));) {
		if (!vi->name || !vi->name[0])
			continue;
		int32_t t = onnx_loader_tensor_get(L, gi, onnx_strv(vi->name));
		vec_push(&L->build.items[gi].outputs, t);
		if (onnx_apply_type(L, gi, t, vi))
			return -1;
	}
	if (it.failed)
		return -1;
	it = msg_begin(L, gi, GRAPH_VALUE_INFO);
	for (const Onnx__ValueInfoProto *vi; (vi = msg_next(&it));) {
		int32_t t = vi->name && vi->name[0] ? onnx_loader_tensor_find(L, gi, onnx_strv(vi->name)) : FD_NONE;
		if (t >= 0 && onnx_apply_type(L, gi, t, vi))
			return -1;
	}
	return it.failed ? -1 : 0;
}

static int convert_graph(loader *L, int32_t gi)
{
	if (!L->build.items[gi].src.proto && !L->build.items[gi].src.wire)
		return 0;
	/* most nodes write one tensor: reserve for that, not for doubling copies */
	size_t guess = msg_count(L, gi, GRAPH_INITIALIZER) + msg_count(L, gi, GRAPH_INPUT) +
	               msg_count(L, gi, GRAPH_NODE) + 8;
	vec_grow(&L->build.items[gi].tensors, guess);
	if (!gi) {   /* no rehashing while a big model loads */
		strpool_reserve(&L->m->names, guess + 1024);
		vec_grow(&L->main_tensor, guess + 1024);
	}
	if (!gi && L->build.items[gi].src.wire && guess >= stream_min) {
		const graph_src *s = &L->build.items[gi].src;
		stream_range r[2];
		for (int k = 0; k < 2; k++) {
			unsigned field = k ? GRAPH_NODE : GRAPH_INITIALIZER;
			r[k] = (stream_range){ s->wire + s->span[field].first, s->span[field].end - s->span[field].first,
			                       field, decoder_of(field) };
		}
		L->stream = onnx_stream_start(r, 2, L->file);
	}
	int rc = read_initializers(L, gi) || read_inputs(L, gi) || read_nodes(L, gi) || read_outputs(L, gi);
	if (!gi) {
		onnx_stream_stop(L->stream);
		L->stream = NULL;
	}
	return rc ? -1 : 0;
}

/* Finds name in the graphs enclosing gi, creating captures in the graphs in
 * between; returns the tensor index in gi's parent, or FD_NONE. */
static int32_t resolve_outer(loader *L, int32_t gi, const char *name)
{
	int32_t p = L->graphs.items[gi].parent;
	if (p < 0)
		return FD_NONE;
	int32_t t = onnx_loader_tensor_find(L, p, onnx_strv(name));
	if (t >= 0)
		return t;
	int32_t up = resolve_outer(L, p, name);
	if (up < 0)
		return FD_NONE;
	t = onnx_loader_tensor_add(L, p, onnx_strv(name), TENSOR_OUTER_SCOPE);
	loader_tensor(L, p, t)->outer = up;
	return t;
}

/* What a body reads but neither produces nor declares comes from outside;
 * what stays unresolved is reported by graph_link, naming the reader. Parents
 * come first, so theirs are resolved when a body looks at them. */
static void resolve_captures(loader *L)
{
	for (size_t gi = 1; gi < L->graphs.n; gi++) {
		size_t n = L->build.items[gi].tensors.n;
		for (size_t t = 0; t < n; t++) {
			fd_tensor *x = loader_tensor(L, (int32_t)gi, (int32_t)t);
			if (x->kind != TENSOR_ACTIVATION || x->producer >= 0)
				continue;
			int32_t up = resolve_outer(L, (int32_t)gi, x->name);
			if (up >= 0) {
				x = loader_tensor(L, (int32_t)gi, (int32_t)t);
				x->kind = TENSOR_OUTER_SCOPE;
				x->outer = up;
			}
		}
	}
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
		/* the big array is adopted where it was built, not copied */
		g->tensors = b->tensors.n ? b->tensors.items : arena_alloc(&m->arena, sizeof(fd_tensor));
		if (b->tensors.n) {
			arena_adopt(&m->arena, b->tensors.items, b->tensors.cap * sizeof(fd_tensor));
			b->tensors.items = NULL;
		}
		g->n_inputs = (int32_t)b->inputs.n;
		g->inputs = arena_memdup(&m->arena, b->inputs.items, b->inputs.n * sizeof(int32_t));
		g->n_outputs = (int32_t)b->outputs.n;
		g->outputs = arena_memdup(&m->arena, b->outputs.items, b->outputs.n * sizeof(int32_t));
		g->n_initializers = b->n_initializers;
		g->n_declared_inputs = b->n_declared_inputs;
		vec_release(&b->tensors);
		vec_release(&b->inputs);
		vec_release(&b->outputs);
	}
	vec_release(&L->graphs);
	vec_release(&L->build);
}

static void loader_release(loader *L)
{
	vec_release(&L->prints);
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
	vec_release(&L->main_tensor);
}

static int64_t opset_version_of(const fd_model *m, const char *dom)
{
	for (int32_t k = 0; k < m->n_opsets; k++)
		if (m->opsets[k].domain == dom)
			return m->opsets[k].version;
	return 0;
}

static void model_header(loader *L, const Onnx__ModelProto *mp)
{
	fd_model *m = L->m;
	m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
	m->model_version = mp->has_model_version ? mp->model_version : 0;
	m->producer_name = onnx_loader_intern(L, mp->producer_name);
	m->producer_version = onnx_loader_intern(L, mp->producer_version);
	m->domain = onnx_loader_intern(L, mp->domain);
	m->doc_string = arena_strdup(&m->arena, S(mp->doc_string));
	m->opsets = arena_array(&m->arena, mp->n_opset_import + 1, sizeof *m->opsets);
	for (size_t i = 0; i < mp->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
		if (!o)
			continue;
		const char *dom = onnx_loader_intern(L, onnx_domain_normal(o->domain));
		int64_t version = o->has_version ? o->version : 0;
		/* the first import of a domain is the one read (shape inference's opset_of) */
		bool again = false;
		for (int32_t k = 0; k < m->n_opsets && !again; k++)
			again = m->opsets[k].domain == dom;
		if (again)
			diag_warning(L->d, L->pos, "opset import of domain '%s' given twice (version %lld, then %lld); the "
			             "first is used", onnx_domain_name(dom), (long long)opset_version_of(m, dom),
			             (long long)version);
		if (version < 0)
			diag_warning(L->d, L->pos, "opset import of domain '%s' has version %lld, below 0; read as 0",
			             onnx_domain_name(dom), (long long)version);
		if (!again)
			m->opsets[m->n_opsets++] = (fd_opset){ dom, version < 0 ? 0 : version };
	}
	if (m->ir_version < 3 || m->ir_version > 10)
		diag_warning(L->d, L->pos, "IR version %lld is outside 3..10; loading it anyway",
		             (long long)m->ir_version);
}

/* The model without its graph is small: unpack it whole for the header. */
static int read_header(loader *L, const uint8_t *bytes, size_t size)
{
	uint8_t *rest = xmalloc(size + 1);
	size_t n = onnx_wire_strip(bytes, size, MODEL_GRAPH, rest);
	pb_arena a;
	onnx_pb_arena_init(&a);
	Onnx__ModelProto *mp = onnx__model_proto__unpack(&a.allocator, n, rest);
	if (mp)
		model_header(L, mp);
	else
		diag_error(L->d, L->pos, "not a valid ONNX protobuf");
	onnx_pb_arena_release(&a);
	free(rest);
	return mp ? 0 : -1;
}

static int convert_model(loader *L, const uint8_t *bytes, size_t size, const fd_load_options *opt)
{
	const uint8_t *g = NULL, *data;
	size_t glen = 0, len, at = 0;
	while (onnx_wire_next(bytes, size, &at, MODEL_GRAPH, &data, &len)) {
		g = data; /* the last one wins, as in protobuf */
		glen = len;
	}
	if (!g) {
		diag_error(L->d, L->pos, "not an ONNX model: it has no graph");
		return -1;
	}
	if (read_header(L, bytes, size))
		return -1;
	graph_build b = { 0 };
	b.src.wire = g;
	b.src.len = glen;
	onnx_wire_spans(g, glen, b.src.span, GRAPH_FIELDS);
	fd_graph main_graph = { 0 };
	main_graph.parent = main_graph.owner_node = FD_NONE;
	at = b.src.span[GRAPH_NAME].first;
	main_graph.name = onnx_wire_next(g, b.src.span[GRAPH_NAME].end, &at, GRAPH_NAME, &data, &len)
	                  ? strpool_internn(&L->m->names, (const char *)data, len) : onnx_loader_intern(L, "");
	vec_push(&L->graphs, main_graph);
	vec_push(&L->build, b);
	if (convert_graph(L, 0))
		return -1;
	resolve_captures(L);
	finalize(L);
	fd_model *m = L->m;
	for (int32_t gi = 0; gi < m->n_graphs; gi++)
		if (graph_link(m, &m->graphs[gi], L->d) || graph_topo_sort(m, &m->graphs[gi], L->d))
			return -1;
	if (onnx_loader_bind(m, opt, L->d, L->pos))
		return -1;
	model_set_initializer_policy(m, opt && opt->initializers_constant);
	return 0;
}

/* ---- entry points ---------------------------------------------------------- */

int onnx_infer_shapes(fd_model *m, fd_diags *d)
{
	size_t errors = d->errors;
	if (shape_infer(m, d) < 0) {
		if (d->errors == errors)
			diag_error(d, srcpos_file(m->path), "cannot load the model");
		return -1;
	}
	model_mark_used_symbols(m);
	return 0;
}

int onnx_load_model_buffer(fd_model *m, const char *name, const void *data, size_t size,
                           const fd_load_options *opt, fd_diags *d)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
	strpool_init(&m->names, &m->arena);
	m->dimtab = dimtab_new(&m->arena, &m->names);
	m->path = arena_strdup(&m->arena, S(name));
	m->file_size = (int64_t)size;
	fd_srcpos pos = srcpos_file(m->path);
	const uint8_t *bytes = data;
	wire_error werr = { 0, NULL, NULL, 0 };
	size_t errors = d->errors;
	const char *what;

	if (size == 0) {
		diag_error(d, pos, "empty file, not an ONNX model");
		goto fail;
	}
	if ((int64_t)size > INPUT_LIMIT_MODEL.bytes) {
		diag_error(d, pos, "file is larger than 2 GiB, the protobuf limit; not loaded");
		goto fail;
	}
	if ((what = onnx_wire_magic(bytes, size))) {
		diag_error(d, pos, "not an ONNX model (it is %s)", what);
		goto fail;
	}
	/* the main graph's initializers and nodes are checked one by one as they are unpacked */
	static const wire_skip main_messages = { &onnx__graph_proto__descriptor, 1,
	                                      1u << GRAPH_NODE | 1u << GRAPH_INITIALIZER };
	if (onnx_wire_check(&onnx__model_proto__descriptor, bytes, size, &main_messages, &werr)) {
		wire_refusal(d, pos, &werr, size);
		goto fail;
	}
	loader L = { .m = m, .d = d, .pos = pos, .file = bytes, .file_size = size,
	             .identical_duplicates = opt && opt->identical_duplicates };
	onnx_pb_arena_init(&L.scratch);
	int rc = convert_model(&L, bytes, size, opt);
	loader_release(&L);
	onnx_pb_arena_release(&L.scratch);
	if (rc)
		goto fail;
	m->shapes_onnx = opt && opt->shapes_onnx;
	if (!(opt && opt->no_shape_inference) && onnx_infer_shapes(m, d) < 0)
		goto fail;
	return 0;
fail:
	if (d->errors == errors)
		diag_error(d, pos, "cannot load the model");
	model_release(m);
	return -1;
}

static void (*on_open)(int fd, void *arg);
static void *on_open_arg;

void onnx_test_on_open(void (*fn)(int fd, void *arg), void *arg)
{
	on_open = fn;
	on_open_arg = arg;
}

int onnx_load_model(fd_model *m, const char *path, const fd_load_options *opt, fd_diags *d)
{
	fd_doing("loading the model %s", path);
	memset(m, 0, sizeof *m);
	/* read into a private copy, never mapped: see onnx_holes.c */
	int fd;
	int64_t size;
	if (input_open(path, &INPUT_LIMIT_MODEL, &fd, &size, d) < 0)
		return -1;
	if (on_open)
		on_open(fd, on_open_arg);
	const uint8_t *bytes;
	size_t left_out;
	int got = onnx_holes_read(fd, (size_t)size, &bytes, &left_out);
	close(fd);
	if (got < 0) {
		if (got == -2)
			diag_error(d, srcpos_file(path), "cannot read: the file changed while it was read (is it being "
			           "written?); not loaded");
		else
			diag_error(d, srcpos_file(path), "cannot read: out of memory for %lld bytes", (long long)size);
		return -1;
	}
	int rc = onnx_load_model_buffer(m, path, bytes ? bytes : (const uint8_t *)"", (size_t)size, opt, d);
	if (bytes)
		munmap((void *)bytes, (size_t)size);
	return rc;
}
