/* gen_model.c — writes synthetic ONNX models for `make bench`: a chain of
 * realistic blocks (Conv-BN-Relu, Conv-Add-SiLU as Sigmoid+Mul, multi-head
 * attention with MatMul/Reshape/Transpose/Softmax, decomposed LayerNorm) until
 * the node count is reached. Weights are declared by shape and stored as
 * external data in one sparse file of zeros (every weight points at the same
 * region), so a 1M-node model stays small on disk but loads in real runtimes.
 *
 *   gen_model NODES OUT.onnx      (writes OUT.onnx and OUT.onnx.weights)
 *
 * Uses the protobuf-c code generated from onnx.proto, like the loader. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/arena.h"
#include "onnx.pb-c.h"

#define C 64          /* channels = hidden size */
#define HW 8          /* spatial side: C*HW*HW == SEQ*C */
#define SEQ 64
#define HEADS 4
#define HEAD_DIM (C / HEADS)

static fd_arena arena;
static const char *weights_name;

static struct {
	Onnx__NodeProto **items;
	size_t n, cap;
} nodes;
static struct {
	Onnx__TensorProto **items;
	size_t n, cap;
} inits;
static long counter;

static char *fresh(const char *stem)
{
	return arena_printf(&arena, "%s_%ld", stem, counter++);
}

static char **strv(int n, const char *const *s)
{
	char **v = arena_array(&arena, (size_t)n, sizeof *v);
	for (int i = 0; i < n; i++)
		v[i] = (char *)s[i];
	return v;
}

static Onnx__AttributeProto *attr_int(const char *name, int64_t v)
{
	Onnx__AttributeProto *a = arena_alloc(&arena, sizeof *a);
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	a->has_i = 1;
	a->i = v;
	return a;
}

static Onnx__AttributeProto *attr_ints(const char *name, int n, const int64_t *v)
{
	Onnx__AttributeProto *a = arena_alloc(&arena, sizeof *a);
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	a->n_ints = (size_t)n;
	a->ints = arena_memdup(&arena, v, sizeof *v * (size_t)n);
	return a;
}

/* Appends a node; returns the name of its first output. */
static char *node(const char *op, int n_in, const char *const *in, int n_attr, Onnx__AttributeProto **attrs)
{
	Onnx__NodeProto *nd = arena_alloc(&arena, sizeof *nd);
	onnx__node_proto__init(nd);
	nd->op_type = (char *)op;
	nd->name = fresh(op);
	nd->n_input = (size_t)n_in;
	nd->input = strv(n_in, in);
	char *out = arena_printf(&arena, "%s_out", nd->name);
	nd->n_output = 1;
	nd->output = strv(1, (const char *const[]){ out });
	nd->n_attribute = (size_t)n_attr;
	nd->attribute = n_attr ? arena_memdup(&arena, attrs, sizeof *attrs * (size_t)n_attr) : NULL;
	if (nodes.n == nodes.cap) {
		nodes.cap = nodes.cap ? nodes.cap * 2 : 1024;
		nodes.items = xrealloc(nodes.items, nodes.cap * sizeof *nodes.items);
	}
	nodes.items[nodes.n++] = nd;
	return out;
}

static void push_init(Onnx__TensorProto *t)
{
	if (inits.n == inits.cap) {
		inits.cap = inits.cap ? inits.cap * 2 : 1024;
		inits.items = xrealloc(inits.items, inits.cap * sizeof *inits.items);
	}
	inits.items[inits.n++] = t;
}

static Onnx__StringStringEntryProto *entry(const char *k, const char *v)
{
	Onnx__StringStringEntryProto *e = arena_alloc(&arena, sizeof *e);
	onnx__string_string_entry_proto__init(e);
	e->key = (char *)k;
	e->value = (char *)v;
	return e;
}

/* A float weight of the given shape, stored externally (all share offset 0). */
static char *weight(const char *stem, int rank, const int64_t *dims)
{
	Onnx__TensorProto *t = arena_alloc(&arena, sizeof *t);
	onnx__tensor_proto__init(t);
	t->name = fresh(stem);
	t->n_dims = (size_t)rank;
	t->dims = arena_memdup(&arena, dims, sizeof *dims * (size_t)rank);
	t->has_data_type = 1;
	t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	int64_t count = 1;
	for (int i = 0; i < rank; i++)
		count *= dims[i];
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	t->n_external_data = 3;
	t->external_data = arena_array(&arena, 3, sizeof *t->external_data);
	t->external_data[0] = entry("location", weights_name);
	t->external_data[1] = entry("offset", "0");
	t->external_data[2] = entry("length", arena_printf(&arena, "%lld", (long long)count * 4));
	push_init(t);
	return t->name;
}

/* A small inline constant (shapes, scalars). */
static char *const_i64(const char *stem, int n, const int64_t *v)
{
	Onnx__TensorProto *t = arena_alloc(&arena, sizeof *t);
	onnx__tensor_proto__init(t);
	t->name = fresh(stem);
	t->n_dims = 1;
	t->dims = arena_memdup(&arena, &(int64_t){ n }, sizeof(int64_t));
	t->has_data_type = 1;
	t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
	t->n_int64_data = (size_t)n;
	t->int64_data = arena_memdup(&arena, v, sizeof *v * (size_t)n);
	push_init(t);
	return t->name;
}

static char *const_f32(const char *stem, float v)
{
	Onnx__TensorProto *t = arena_alloc(&arena, sizeof *t);
	onnx__tensor_proto__init(t);
	t->name = fresh(stem);
	t->has_data_type = 1;
	t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	t->n_float_data = 1;
	t->float_data = arena_memdup(&arena, &v, sizeof v);
	push_init(t);
	return t->name;
}

#define IN(...) (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)), (const char *const[]){ __VA_ARGS__ }
#define NOATTR 0, NULL

static char *conv(const char *x)
{
	char *w = weight("conv_w", 4, (const int64_t[]){ C, C, 1, 1 });
	Onnx__AttributeProto *a[] = { attr_ints("kernel_shape", 2, (const int64_t[]){ 1, 1 }), attr_int("group", 1) };
	return node("Conv", IN(x, w), 2, a);
}

static char *conv_bn_relu(const char *x)
{
	char *c = conv(x);
	const int64_t d[] = { C };
	char *bn = node("BatchNormalization", IN(c, weight("bn_scale", 1, d), weight("bn_bias", 1, d),
	                                          weight("bn_mean", 1, d), weight("bn_var", 1, d)), NOATTR);
	return node("Relu", IN(bn), NOATTR);
}

static char *conv_add_silu(const char *x)
{
	char *c = conv(x);
	char *add = node("Add", IN(c, x), NOATTR);
	char *sig = node("Sigmoid", IN(add), NOATTR);
	return node("Mul", IN(add, sig), NOATTR);
}

static char *reshape(const char *x, int n, const int64_t *shape)
{
	return node("Reshape", IN(x, const_i64("shape", n, shape)), NOATTR);
}

static char *transpose(const char *x, const int64_t *perm)
{
	Onnx__AttributeProto *a[] = { attr_ints("perm", 4, perm) };
	return node("Transpose", IN(x), 1, a);
}

static char *projection(const char *x)
{
	return node("MatMul", IN(x, weight("proj_w", 2, (const int64_t[]){ C, C })), NOATTR);
}

static char *heads(const char *x, const int64_t *perm)
{
	const int64_t split[] = { 1, SEQ, HEADS, HEAD_DIM };
	return transpose(reshape(projection(x), 4, split), perm);
}

static char *attention(const char *x)
{
	char *q = heads(x, (const int64_t[]){ 0, 2, 1, 3 });
	char *k = heads(x, (const int64_t[]){ 0, 2, 3, 1 });
	char *v = heads(x, (const int64_t[]){ 0, 2, 1, 3 });
	char *scores = node("MatMul", IN(q, k), NOATTR);
	Onnx__AttributeProto *axis[] = { attr_int("axis", -1) };
	char *probs = node("Softmax", IN(scores), 1, axis);
	char *ctx = node("MatMul", IN(probs, v), NOATTR);
	char *merged = reshape(transpose(ctx, (const int64_t[]){ 0, 2, 1, 3 }), 3, (const int64_t[]){ 1, SEQ, C });
	return node("Add", IN(projection(merged), x), NOATTR);
}

static char *layernorm(const char *x)
{
	Onnx__AttributeProto *axes[] = { attr_ints("axes", 1, (const int64_t[]){ -1 }) };
	char *mean = node("ReduceMean", IN(x), 1, axes);
	char *centered = node("Sub", IN(x, mean), NOATTR);
	char *sq = node("Pow", IN(centered, const_f32("two", 2.0f)), NOATTR);
	char *var = node("ReduceMean", IN(sq), 1, axes);
	char *eps = node("Add", IN(var, const_f32("eps", 1e-5f)), NOATTR);
	char *std = node("Sqrt", IN(eps), NOATTR);
	char *norm = node("Div", IN(centered, std), NOATTR);
	const int64_t d[] = { C };
	char *scaled = node("Mul", IN(norm, weight("ln_gamma", 1, d)), NOATTR);
	return node("Add", IN(scaled, weight("ln_beta", 1, d)), NOATTR);
}

static Onnx__ValueInfoProto *value_info(const char *name, int rank, const int64_t *dims)
{
	Onnx__ValueInfoProto *vi = arena_alloc(&arena, sizeof *vi);
	onnx__value_info_proto__init(vi);
	vi->name = (char *)name;
	Onnx__TypeProto *tp = arena_alloc(&arena, sizeof *tp);
	onnx__type_proto__init(tp);
	Onnx__TypeProto__Tensor *tt = arena_alloc(&arena, sizeof *tt);
	onnx__type_proto__tensor__init(tt);
	tt->has_elem_type = 1;
	tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	Onnx__TensorShapeProto *sh = arena_alloc(&arena, sizeof *sh);
	onnx__tensor_shape_proto__init(sh);
	sh->n_dim = (size_t)rank;
	sh->dim = arena_array(&arena, (size_t)rank, sizeof *sh->dim);
	for (int i = 0; i < rank; i++) {
		Onnx__TensorShapeProto__Dimension *d = arena_alloc(&arena, sizeof *d);
		onnx__tensor_shape_proto__dimension__init(d);
		d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		d->dim_value = dims[i];
		sh->dim[i] = d;
	}
	tt->shape = sh;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	vi->type = tp;
	return vi;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen_model NODES OUT.onnx\n");
		return 2;
	}
	long target = atol(argv[1]);
	const char *out = argv[2];
	arena_init(&arena);
	const char *slash = strrchr(out, '/');
	weights_name = arena_printf(&arena, "%s.weights", slash ? slash + 1 : out);

	const int64_t image[] = { 1, C, HW, HW }, seq[] = { 1, SEQ, C };
	char *x = "input";
	while ((long)nodes.n < target) {
		x = conv_bn_relu(x);
		x = conv_bn_relu(x);
		x = conv_add_silu(x);
		x = reshape(x, 3, seq);
		x = attention(x);
		x = layernorm(x);
		x = reshape(x, 4, image);
	}

	Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
	g.name = "bench";
	g.n_node = nodes.n;
	g.node = nodes.items;
	g.n_initializer = inits.n;
	g.initializer = inits.items;
	Onnx__ValueInfoProto *in = value_info("input", 4, image), *outv = value_info(x, 4, image);
	g.n_input = 1;
	g.input = &in;
	g.n_output = 1;
	g.output = &outv;

	Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsets = &opset;
	opset.domain = "";
	opset.has_version = 1;
	opset.version = 13;
	Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
	m.has_ir_version = 1;
	m.ir_version = 7;
	m.producer_name = "fusiondbg-bench";
	m.n_opset_import = 1;
	m.opset_import = &opsets;
	m.graph = &g;

	size_t size = onnx__model_proto__get_packed_size(&m);
	uint8_t *buf = xmalloc(size);
	onnx__model_proto__pack(&m, buf);
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, size, f) != size || fclose(f)) {
		perror(out);
		return 1;
	}
	/* one region of zeros big enough for the largest weight, as a sparse file */
	char *wpath = arena_printf(&arena, "%s.weights", out);
	int fd = open(wpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)C * C * 4) || close(fd)) {
		perror(wpath);
		return 1;
	}
	printf("%s: %zu nodes, %zu initializers, %zu bytes\n", out, nodes.n, inits.n, size);
	free(buf);
	free(nodes.items);
	free(inits.items);
	arena_release(&arena);
	return 0;
}
