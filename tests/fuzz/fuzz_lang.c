/* fuzz_lang.c — libFuzzer harness for the matcher on the language beyond
 * the seed: the bytes choose a small graph (an ONNX model packed here with
 * protobuf-c: a graph input, constants, up to 8 nodes of a dozen op types
 * with their attributes) and one or two rules written in YAML with type
 * lists, optional ops, input conditions (from_op, source_type, rank, shape
 * names, dtype, same_as, position, value, optional inputs), outputs and
 * where expressions made from the language's names, functions and extreme
 * numbers. The rules are read and linted as `check` does, matched with
 * events on (canonicalised and not), and every attempt is explained the way
 * `why` does, so the checks run again with their facts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/diag.h"
#include "explain/explain.h"
#include "ir/graph.h"
#include "match/match.h"
#include "onnx.pb-c.h"
#include "onnx/onnx.h"
#include "rules/yaml_tree.h"
#include "ruleset/ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the bytes as choices ----------------------------------------------------------- */

typedef struct bytes {
	const uint8_t *p;
	size_t n;
} bytes;

/* A choice of k (0 once the bytes run out). */
static int pick(bytes *b, int k)
{
	if (!b->n || k <= 1)
		return 0;
	b->n--;
	return *b->p++ % k;
}

#define PICK(b, arr) (arr)[pick((b), (int)(sizeof(arr) / sizeof *(arr)))]

/* ---- the graph ---------------------------------------------------------------------- */

typedef struct op_kind {
	const char *type;
	int min_in, max_in;
} op_kind;

static const op_kind kinds[] = {
	{ "Relu", 1, 1 }, { "Sigmoid", 1, 1 }, { "Tanh", 1, 1 }, { "Erf", 1, 1 }, { "LeakyRelu", 1, 1 },
	{ "Transpose", 1, 1 }, { "Add", 2, 2 }, { "Mul", 2, 2 }, { "Sub", 2, 2 }, { "Div", 2, 2 },
	{ "MatMul", 2, 2 }, { "Conv", 2, 3 }, { "Gemm", 2, 3 }, { "BatchNormalization", 5, 5 },
	{ "Softmax", 1, 1 }, { "Reshape", 2, 2 },
};

static const int64_t extremes[] = { 0, 1, 2, 3, -1, -2, 4, 8, INT64_MAX, INT64_MIN, INT64_MAX - 1, 65536, 1048576 };

typedef struct gen {
	fd_arena a;
	bytes b;
	char **names;          /* the tensors a node may read */
	int n_names;
} gen;

static char *name_of(gen *g, const char *fmt, int i)
{
	return arena_printf(&g->a, fmt, i);
}

static Onnx__TypeProto *tensor_type(gen *g, int elem, int rank, const int64_t *dims, bool symbolic)
{
	Onnx__TypeProto *tp = arena_alloc(&g->a, sizeof *tp);
	onnx__type_proto__init(tp);
	Onnx__TypeProto__Tensor *tt = arena_alloc(&g->a, sizeof *tt);
	onnx__type_proto__tensor__init(tt);
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	Onnx__TensorShapeProto *sh = arena_alloc(&g->a, sizeof *sh);
	onnx__tensor_shape_proto__init(sh);
	sh->n_dim = (size_t)rank;
	sh->dim = arena_array(&g->a, (size_t)rank + 1, sizeof *sh->dim);
	for (int k = 0; k < rank; k++) {
		Onnx__TensorShapeProto__Dimension *d = arena_alloc(&g->a, sizeof *d);
		onnx__tensor_shape_proto__dimension__init(d);
		if (symbolic && k == 0) {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = "N";
		} else {
			d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = dims[k];
		}
		sh->dim[k] = d;
	}
	tt->shape = sh;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	return tp;
}

static Onnx__ValueInfoProto *value_info(gen *g, char *name, Onnx__TypeProto *tp)
{
	Onnx__ValueInfoProto *vi = arena_alloc(&g->a, sizeof *vi);
	onnx__value_info_proto__init(vi);
	vi->name = name;
	vi->type = tp;
	return vi;
}

/* A constant: float (rank 0..3, dims 1..4) or int64 (1..4 extreme values). */
static Onnx__TensorProto *constant(gen *g, char *name, bool ints)
{
	static const int64_t dims_of[] = { 1, 2, 3, 4 };
	Onnx__TensorProto *t = arena_alloc(&g->a, sizeof *t);
	onnx__tensor_proto__init(t);
	t->name = name;
	t->has_data_type = 1;
	int rank = ints ? 1 : pick(&g->b, 4);
	t->n_dims = (size_t)rank;
	t->dims = arena_array(&g->a, 4, sizeof *t->dims);
	int64_t count = 1;
	for (int k = 0; k < rank; k++)
		count *= t->dims[k] = PICK(&g->b, dims_of);
	if (ints) {
		t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
		t->n_int64_data = (size_t)count;
		t->int64_data = arena_array(&g->a, (size_t)count, sizeof *t->int64_data);
		for (int64_t k = 0; k < count; k++)
			t->int64_data[k] = PICK(&g->b, extremes);
	} else {
		t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
		t->n_float_data = (size_t)count;
		t->float_data = arena_array(&g->a, (size_t)count, sizeof *t->float_data);
		for (int64_t k = 0; k < count; k++)
			t->float_data[k] = (float)(pick(&g->b, 7) - 3) * 0.5f;
	}
	return t;
}

static Onnx__AttributeProto *attr_int(gen *g, const char *name, int64_t i)
{
	Onnx__AttributeProto *at = arena_alloc(&g->a, sizeof *at);
	onnx__attribute_proto__init(at);
	at->name = (char *)name;
	at->has_type = 1;
	at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
	at->has_i = 1;
	at->i = i;
	return at;
}

static Onnx__AttributeProto *attr_float(gen *g, const char *name, float f)
{
	Onnx__AttributeProto *at = arena_alloc(&g->a, sizeof *at);
	onnx__attribute_proto__init(at);
	at->name = (char *)name;
	at->has_type = 1;
	at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
	at->has_f = 1;
	at->f = f;
	return at;
}

static Onnx__AttributeProto *attr_ints(gen *g, const char *name, int n)
{
	Onnx__AttributeProto *at = arena_alloc(&g->a, sizeof *at);
	onnx__attribute_proto__init(at);
	at->name = (char *)name;
	at->has_type = 1;
	at->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
	at->n_ints = (size_t)n;
	at->ints = arena_array(&g->a, (size_t)n + 1, sizeof *at->ints);
	for (int k = 0; k < n; k++)
		at->ints[k] = pick(&g->b, 4) ? (int64_t)pick(&g->b, n) : PICK(&g->b, extremes);
	return at;
}

static void node_attrs(gen *g, Onnx__NodeProto *np, const char *type)
{
	np->attribute = arena_array(&g->a, 2, sizeof *np->attribute);
	if (!strcmp(type, "Transpose") && pick(&g->b, 4))
		np->attribute[np->n_attribute++] = attr_ints(g, "perm", 1 + pick(&g->b, 4));
	else if (!strcmp(type, "LeakyRelu"))
		np->attribute[np->n_attribute++] = attr_float(g, "alpha", pick(&g->b, 2) ? 0.1f : 1e30f);
	else if (!strcmp(type, "Softmax") || !strcmp(type, "Gemm"))
		np->attribute[np->n_attribute++] = attr_int(g, !strcmp(type, "Gemm") ? "transB" : "axis",
		                                            PICK(&g->b, extremes));
	else if (!strcmp(type, "BatchNormalization"))
		np->attribute[np->n_attribute++] = attr_float(g, "epsilon", 1e-5f);
}

/* The model's bytes (protobuf), in the arena. */
static uint8_t *model_bytes(gen *g, size_t *len)
{
	static const int64_t dim_values[] = { 1, 2, 3, 4, 8 };
	Onnx__GraphProto *gp = arena_alloc(&g->a, sizeof *gp);
	onnx__graph_proto__init(gp);
	gp->name = "fuzz";
	g->names = arena_array(&g->a, 16, sizeof *g->names);
	int rank = 1 + pick(&g->b, 4);
	int64_t dims[4];
	for (int k = 0; k < rank; k++)
		dims[k] = PICK(&g->b, dim_values);
	gp->n_input = 1;
	gp->input = arena_array(&g->a, 1, sizeof *gp->input);
	gp->input[0] = value_info(g, "x", tensor_type(g, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, rank, dims,
	                                              pick(&g->b, 2)));
	g->names[g->n_names++] = "x";
	gp->n_initializer = 3;
	gp->initializer = arena_array(&g->a, 3, sizeof *gp->initializer);
	for (int k = 0; k < 3; k++) {
		gp->initializer[k] = constant(g, name_of(g, "c%d", k), k == 2);
		g->names[g->n_names++] = gp->initializer[k]->name;
	}
	int n_nodes = 1 + pick(&g->b, 8);
	gp->node = arena_array(&g->a, (size_t)n_nodes, sizeof *gp->node);
	for (int i = 0; i < n_nodes; i++) {
		const op_kind *k = &PICK(&g->b, kinds);
		Onnx__NodeProto *np = arena_alloc(&g->a, sizeof *np);
		onnx__node_proto__init(np);
		np->name = name_of(g, "n%d", i);
		np->op_type = (char *)k->type;
		np->n_input = (size_t)(k->min_in + pick(&g->b, k->max_in - k->min_in + 1));
		np->input = arena_array(&g->a, np->n_input, sizeof *np->input);
		for (size_t s = 0; s < np->n_input; s++)
			/* mostly the latest tensor: chains, with a constant or a branch now and then */
			np->input[s] = g->names[pick(&g->b, 3) ? g->n_names - 1 - pick(&g->b, 2) % g->n_names
			                                      : pick(&g->b, g->n_names)];
		np->n_output = 1;
		np->output = arena_array(&g->a, 1, sizeof *np->output);
		np->output[0] = name_of(g, "t%d", i);
		node_attrs(g, np, k->type);
		gp->node[gp->n_node++] = np;
		g->names[g->n_names++] = np->output[0];
	}
	gp->n_output = 1 + (size_t)(n_nodes > 1 && pick(&g->b, 3) == 0);
	gp->output = arena_array(&g->a, 2, sizeof *gp->output);
	gp->output[0] = value_info(g, g->names[g->n_names - 1], NULL);
	if (gp->n_output > 1)
		gp->output[1] = value_info(g, g->names[4 + pick(&g->b, n_nodes - 1)], NULL);
	Onnx__OperatorSetIdProto *os = arena_alloc(&g->a, sizeof *os);
	onnx__operator_set_id_proto__init(os);
	os->domain = "";
	os->has_version = 1;
	os->version = 17;
	Onnx__ModelProto mp;
	onnx__model_proto__init(&mp);
	mp.has_ir_version = 1;
	mp.ir_version = 8;
	mp.n_opset_import = 1;
	mp.opset_import = &os;
	mp.graph = gp;
	*len = onnx__model_proto__get_packed_size(&mp);
	uint8_t *out = arena_alloc(&g->a, *len + 1);
	onnx__model_proto__pack(&mp, out);
	return out;
}

/* ---- the rules ---------------------------------------------------------------------- */

typedef struct text {
	char *s;
	size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[512];
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	if (t->n + (size_t)n + 1 > t->cap) {
		t->cap = (t->n + (size_t)n + 1) * 2;
		t->s = xrealloc(t->s, t->cap);
	}
	memcpy(t->s + t->n, buf, (size_t)n + 1);
	t->n += (size_t)n;
}

static const char *const names[] = { "perm", "alpha", "axis", "epsilon", "transB", "rank", "op_type", "members",
                                      "domain", "nope" };
static const char *const numbers[] = { "0", "1", "2", "-1", "3", "0.5", "9223372036854775807",
                                        "-9223372036854775807", "(-9223372036854775807 - 1)", "65536", "65535",
                                        "1048576", "1e308", "0x7fffffffffffffff", "4294967296" };
static const char *const tensors[] = { "input0", "input1", "input2", "output0", "input9" };
static const char *const binops[] = { "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in",
                                       "not in" };

static void expr(gen *g, text *t, int depth)
{
	int k = depth >= 3 ? pick(&g->b, 3) : pick(&g->b, 12);
	switch (k) {
	case 0: put(t, "%s", PICK(&g->b, names)); break;
	case 1: put(t, "%s", PICK(&g->b, numbers)); break;
	case 2: put(t, "%s(%s)", pick(&g->b, 2) ? "shape" : pick(&g->b, 2) ? "value" : "consumers", PICK(&g->b, tensors)); break;
	case 3: case 4:
		put(t, "(");
		expr(g, t, depth + 1);
		put(t, " %s ", PICK(&g->b, binops));
		expr(g, t, depth + 1);
		put(t, ")");
		break;
	case 5:
		put(t, "range(");
		expr(g, t, depth + 1);
		if (pick(&g->b, 2)) {
			put(t, ", ");
			expr(g, t, depth + 1);
		}
		put(t, ")");
		break;
	case 6: {
		static const char *const fns[] = { "len", "abs", "min", "max", "sorted", "-", "!" };
		const char *f = PICK(&g->b, fns);
		put(t, "%s(", f);
		expr(g, t, depth + 1);
		put(t, ")");
		break;
	}
	case 7:
		put(t, "[");
		for (int n = pick(&g->b, 4), i = 0; i < n; i++) {
			put(t, i ? ", " : "");
			expr(g, t, depth + 1);
		}
		put(t, "]");
		break;
	case 8:
		expr(g, t, depth + 1);
		put(t, pick(&g->b, 2) ? "[" : "[:");
		expr(g, t, depth + 1);
		put(t, "]");
		break;
	case 9: put(t, "dim(%s, %s)", PICK(&g->b, tensors), PICK(&g->b, numbers)); break;
	case 10: put(t, "dtype(%s) == 'float32'", PICK(&g->b, tensors)); break;
	default: put(t, "attr('%s')", PICK(&g->b, names)); break;
	}
}

static void input_source(gen *g, text *t, int i, int s)
{
	static const char *const ranks[] = { "[1]", "[2, 3]", "[4]", "[0, 1, 2, 3, 4]" };
	static const char *const shapes[] = { "[C, ...]", "[N, C]", "[[], [C, 1, 1]]", "[_, _, _, C]", "[1, C]", "[N, N]" };
	put(t, "        input%d: {", s);
	int n = 1 + pick(&g->b, 3);
	for (int k = 0; k < n; k++) {
		put(t, k ? ", " : "");
		switch (pick(&g->b, 10)) {
		case 0: put(t, "from_op: %d", i ? pick(&g->b, i) : 0); break;
		case 1: put(t, "source_type: %s", pick(&g->b, 2) ? "const" : "activation"); break;
		case 2: put(t, "rank: %s", PICK(&g->b, ranks)); break;
		case 3: put(t, "shape: %s", PICK(&g->b, shapes)); break;
		case 4: put(t, "dtype: [float32%s]", pick(&g->b, 2) ? ", int64" : ""); break;
		case 5: put(t, "same_as: {op: %d, input: %d}", pick(&g->b, i + 1), pick(&g->b, 3)); break;
		case 6: put(t, "position: %s", pick(&g->b, 2) ? "fixed" : "either"); break;
		case 7: put(t, "value: [%s]", pick(&g->b, 2) ? "0.5" : "1"); break;
		case 8: put(t, "optional: true"); break;
		default: put(t, "static: %s", pick(&g->b, 2) ? "true" : "false"); break;
		}
	}
	put(t, "}\n");
}

static void rule(gen *g, text *t, int r)
{
	put(t, "---\nname: \"R%d\"\npriority: %d\nmatch:\n  ops:\n", r, 100 - r);
	int n_ops = 1 + pick(&g->b, 4);
	for (int i = 0; i < n_ops; i++) {
		const char *a = PICK(&g->b, kinds).type, *b = PICK(&g->b, kinds).type;
		if (pick(&g->b, 3))
			put(t, "    - type: \"%s\"\n", a);
		else
			put(t, "    - type: [\"%s\", \"%s\"]\n", a, b);
		if (i > 0 && !pick(&g->b, 3))
			put(t, "      optional: true\n");
		int sources = pick(&g->b, 3);
		if (i > 0 || sources) {
			put(t, "      input_sources:\n");
			if (i > 0)
				put(t, "        input0: {from_op: %d}\n", i - 1 - pick(&g->b, i));
			for (int s = 1; s <= sources; s++)
				input_source(g, t, i, s);
		}
		if (!pick(&g->b, 4))
			put(t, "      outputs: {graph_output: %s, min_consumers: %d}\n", pick(&g->b, 2) ? "true" : "false",
			    pick(&g->b, 3));
		if (pick(&g->b, 2)) {
			put(t, "      where: \"");
			expr(g, t, 0);
			put(t, "\"\n");
		}
	}
	put(t, "rewrite:\n  target_op: \"Fused%d\"\n", r);
}

/* ---- the run ------------------------------------------------------------------------ */

static FILE *sink;

static void explain_all(const fd_match_result *r)
{
	char line[1024];
	for (size_t a = 0; a < r->trace.n_attempts && a < 400; a++) {
		explain_why_line(r, (uint32_t)a, line, sizeof line);
		uint32_t ev = r->trace.attempts[a].decisive;
		if (ev != UINT32_MAX) {
			fd_event_text tx;
			explain_event(r, ev, &tx);
		}
	}
	explain_match_text(sink, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sink)
		sink = fopen("/dev/null", "w");
	gen g = { .b = { data, size } };
	arena_init(&g.a);
	size_t len;
	uint8_t *model = model_bytes(&g, &len);
	text rules = { 0 };
	int n_rules = 1 + pick(&g.b, 2);
	for (int r = 0; r < n_rules; r++)
		rule(&g, &rules, r);
	fd_diags d;
	diags_init(&d);
	fd_ruleset rs;
	ruleset_init(&rs);
	fd_model m;
	bool loaded = onnx_load_model_buffer(&m, "fuzz.onnx", model, len, NULL, &d) == 0;
	fd_yfile *f = xmalloc(sizeof *f);
	if (yfile_load_buffer(f, "fuzz.yaml", rules.s, rules.n, &d) < 0) {
		free(f);
		goto out;
	}
	rs.files = xmalloc(sizeof *rs.files);
	rs.files[rs.n_files++] = f;
	rs.rules = xmalloc((size_t)(f->n_docs + 1) * sizeof *rs.rules);
	for (int i = 0; i < f->n_docs; i++)
		if (!yval_is_null(f->docs[i].root) && rule_from_yaml(&rs, &rs.rules[rs.n_rules], &f->docs[i], &d) == 0)
			rs.n_rules++;
	ruleset_resolve_types(&rs);
	if (getenv("FUZZ_LANG_SHOW")) {
		/* what an input generates, to read a finding */
		fprintf(stderr, "model %s (%zu bytes), %d rule(s) read of:\n%s", loaded ? "loaded" : "refused", len,
		        rs.n_rules, rules.s);
		for (size_t i = 0; i < d.n; i++) {
			char buf[512];
			fprintf(stderr, "  %s\n", diag_format(&d.items[i], buf, sizeof buf));
		}
	}
	fd_check_options copt = { .strict = true, .verbose = true };
	ruleset_check(&rs, &copt, &d);
	if (loaded && rs.n_rules) {
		for (int canon = 0; canon < 2; canon++) {
			fd_match_ctx ctx;
			if (match_ctx_init(&ctx, &m, canon, &d) < 0)
				continue;
			fd_match_result r;
			fd_match_options opt = { 0 };
			match_result_init(&r);
			match_run(&ctx, &rs, &opt, &r);
			explain_all(&r);
			match_result_release(&r);
			match_ctx_release(&ctx);
		}
	}
out:
	if (loaded)
		model_release(&m);
	ruleset_release(&rs);
	diags_release(&d);
	free(rules.s);
	arena_release(&g.a);
	return 0;
}
