/* test_ge_load.c — ge/ge.h on dumps written for the tests: the model a
 * ModelDef becomes (graphs and bodies, GE op types, "op:index" tensors,
 * dtypes and dims from output_desc, attributes of every kind, control
 * edges), the compiler's record on each node and the UB groups listed from
 * it (ge/ge_record.h), what a file's first bytes say it is, and each kind
 * of bad dump refused with one file:line:col error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ge/ge.h"
#include "ge/ge_record.h"
#include "ir/node_origin.h"

#define SMALL "tests/data/ge/small_ub.txt"

static const fd_node *node_named(const fd_graph *g, const char *name)
{
	int32_t i = graph_find_node(g, name);
	assert_true(i >= 0);
	return &g->nodes[i];
}

static const fd_tensor *out(const fd_graph *g, const fd_node *n, int k)
{
	assert_true(k < n->n_outputs);
	return &g->tensors[n->outputs[k]];
}

static void test_small_model(void **state)
{
	(void)state;
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(ge_load_model(&m, SMALL, NULL, &d), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(m.format, GE_MODELDEF_FORMAT);
	assert_string_equal(m.producer_name, "GE");
	assert_int_equal(m.model_version, 3);
	assert_int_equal(m.n_graphs, 2);
	const fd_graph *g = &m.graphs[0];
	assert_string_equal(g->name, "main");
	assert_int_equal(g->n_nodes, 6);
	const fd_node *conv = node_named(g, "conv"), *relu = node_named(g, "relu"), *add = node_named(g, "add");
	assert_string_equal(conv->op_type, "Conv2D");
	assert_string_equal(conv->domain, "");
	/* inputs name "op:index" tensors; "" is an input left unconnected */
	assert_int_equal(conv->n_inputs, 3);
	assert_string_equal(g->tensors[conv->inputs[0]].name, "x:0");
	assert_string_equal(g->tensors[conv->inputs[1]].name, "w:0");
	assert_int_equal(conv->inputs[2], FD_NONE);
	const fd_tensor *y = out(g, conv, 0);
	assert_string_equal(y->name, "conv:0");
	assert_int_equal(y->dtype, DT_FLOAT16);
	assert_int_equal(y->shape.rank, 4);
	assert_int_equal(y->shape.dims[1].value, 4);
	assert_true(y->shape_declared);
	assert_int_equal(y->producer, graph_find_node(g, "conv"));
	assert_int_equal(y->n_consumers, 2);   /* relu and add */
	/* a control edge is no data input: it is in the record */
	assert_int_equal(relu->n_inputs, 1);
	assert_int_equal(relu->origin->control_inputs.n, 1);
	assert_string_equal(relu->origin->control_inputs.items[0], "x");
	assert_int_equal(out(g, relu, 1)->shape.rank, -1);        /* dim -2: rank not known */
	assert_int_equal(out(g, relu, 1)->dtype, DT_FLOAT);
	assert_true(out(g, relu, 0)->is_graph_output);
	assert_int_equal(g->n_outputs, 1);
	assert_int_equal(out(g, add, 0)->shape.rank, 0);          /* shape {}: a scalar */
	assert_int_equal(out(g, add, 0)->dtype, DT_FLOAT);        /* dtype: 1, by number */
	assert_int_equal(node_named(g, "x")->n_inputs, 1);
	assert_int_equal(node_named(g, "x")->inputs[0], FD_NONE);
	/* the desc's -1 is a dim not known */
	const fd_attr *a = node_attr(conv, "desc");
	assert_non_null(a);
	assert_int_equal(a->type, ATTR_TENSOR);
	assert_int_equal(a->u.t->dtype, DT_BFLOAT16);
	assert_false(dim_known(a->u.t->shape.dims[0]));
	assert_int_equal(a->u.t->shape.dims[1].value, 4);
	/* every attribute kind */
	assert_int_equal(conv->n_attrs, 14);   /* 16 entries: list_list_int has no kind, alpha twice */
	a = node_attr(conv, "alpha");
	assert_int_equal(a->type, ATTR_FLOAT);
	assert_true(a->u.f == 0.25);           /* a map key given twice keeps the last */
	a = node_attr(conv, "strides");
	assert_int_equal(a->type, ATTR_INTS);
	assert_int_equal(a->count, 4);
	assert_int_equal(a->u.ints[3], 1);
	a = node_attr(conv, "ratio");
	assert_int_equal(a->type, ATTR_FLOATS);
	assert_true(a->u.floats[1] == -20.0);
	a = node_attr(conv, "flags");
	assert_int_equal(a->type, ATTR_INTS);
	assert_int_equal(a->u.ints[0], 1);
	assert_int_equal(a->u.ints[1], 0);
	a = node_attr(conv, "use_bias");
	assert_int_equal(a->type, ATTR_INT);
	assert_int_equal(a->u.i, 0);
	a = node_attr(conv, "note");
	assert_int_equal(a->type, ATTR_STRING);
	assert_string_equal(a->u.s, "ab\tcA\xc3\xa9");
	a = node_attr(conv, "empty");
	assert_int_equal(a->type, ATTR_STRINGS);
	assert_int_equal(a->count, 0);
	assert_null(node_attr(conv, "shape_range"));
	/* a small tensor's values: int32 bytes, little-endian */
	a = node_attr(node_named(g, "w"), "value");
	assert_int_equal(a->type, ATTR_TENSOR);
	assert_non_null(a->u.t->value);
	assert_int_equal(a->u.t->value->count, 2);
	assert_int_equal(a->u.t->value->i64[0], 1);
	assert_int_equal(a->u.t->value->i64[1], -1);
	/* the compiler's record */
	const fd_node_origin *o = conv->origin;
	assert_true(o->has_fusion_scope);
	assert_int_equal(o->fusion_scope, 1);
	assert_string_equal(o->pass_name_ub, "TbeConvElemwiseFusion");
	assert_int_equal(o->original_names.n, 3);
	assert_string_equal(o->original_names.items[1], "bn1");
	assert_int_equal(o->original_types.n, 3);
	assert_string_equal(o->original_types.items[2], "Scale");
	assert_int_equal(o->pass_names.n, 2);
	assert_string_equal(o->pass_names.items[0], "ConvBatchnormFusionPass");
	assert_int_equal(o->line, 33);
	assert_true(add->origin->has_fusion_failed);
	assert_int_equal(add->origin->fusion_failed, 7);
	/* the body: graph 1, owned by cond */
	const fd_node *cond = node_named(g, "cond");
	assert_int_equal(cond->n_subgraphs, 1);
	const fd_graph *body = &m.graphs[cond->subgraphs[0]];
	assert_string_equal(body->name, "then");
	assert_int_equal(body->parent, 0);
	assert_int_equal(body->owner_node, graph_find_node(g, "cond"));
	assert_int_equal(body->depth, 1);
	assert_string_equal(body->nodes[1].op_type, "Neg");
	/* producers before consumers */
	for (int32_t k = 0; k < g->n_nodes; k++)
		for (int32_t s = 0; s < g->nodes[k].n_inputs; s++) {
			int32_t t = g->nodes[k].inputs[s];
			if (t >= 0)
				assert_true(g->nodes[g->tensors[t].producer].topo < g->nodes[k].topo);
		}
	model_release(&m);
	diags_release(&d);
}

static void test_record(void **state)
{
	(void)state;
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(ge_load_model(&m, SMALL, NULL, &d), 0);
	ge_record r;
	ge_record_compute(&m, &r);
	assert_int_equal(r.n_groups, 2);   /* scope 1 (conv, relu); failed 7 (add); scope -1 is none */
	assert_int_equal(r.n_failed, 1);
	const ge_ub_group *ok = &r.groups[0], *failed = &r.groups[1];
	assert_false(ok->failed);
	assert_int_equal(ok->id, 1);
	assert_int_equal(ok->n_nodes, 2);
	assert_string_equal(m.graphs[0].nodes[ok->nodes[0]].name, "conv");
	assert_string_equal(m.graphs[0].nodes[ok->nodes[1]].name, "relu");
	assert_string_equal(ok->pass_name_ub, "TbeConvElemwiseFusion");
	assert_false(ok->passes_differ);
	assert_true(failed->failed);
	assert_int_equal(failed->id, 7);
	assert_string_equal(failed->pass_name_ub, "TbeEltwiseFusionPass");
	assert_int_equal(r.n_absorbing, 1);
	assert_int_equal(r.n_originals, 3);
	assert_int_equal(r.n_with_passes, 1);
	assert_string_equal(m.graphs[0].nodes[r.absorbing[0].node].name, "conv");
	ge_record_release(&r);
	model_release(&m);
	diags_release(&d);
}

/* The buffer variant gives the same model; options that do not apply warn. */
static void test_buffer_and_options(void **state)
{
	(void)state;
	FILE *f = fopen(SMALL, "rb");
	assert_non_null(f);
	char buf[16384];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	fd_dim_binding dims[] = { { "batch", 2 } };
	fd_load_options opt = { .dims = dims, .n_dims = 1 };
	fd_model m;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(ge_load_model_buffer(&m, "mem.txt", buf, n, &opt, &d), 0);
	assert_int_equal(d.errors, 0);
	assert_int_equal(d.warnings, 1);
	char line[256];
	assert_string_equal(diag_format(&d.items[0], line, sizeof line),
	                    "mem.txt: warning: --dim does not apply to a GE graph dump: its shapes are the compiler's");
	assert_int_equal(m.graphs[0].n_nodes, 6);
	assert_string_equal(m.path, "mem.txt");
	model_release(&m);
	diags_release(&d);
}

/* Loads text; returns the first diagnostic ("" when none) and the result. */
static const char *load(const char *text, int *rc)
{
	static char line[512];
	fd_model m;
	fd_diags d;
	diags_init(&d);
	*rc = ge_load_model_buffer(&m, "bad.txt", text, strlen(text), NULL, &d);
	line[0] = '\0';
	if (d.n)
		diag_format(&d.items[0], line, sizeof line);
	if (*rc == 0)
		model_release(&m);
	else
		assert_int_equal(d.errors, 1);   /* one line */
	diags_release(&d);
	return line;
}

static void expect_refused(const char *text, const char *expected)
{
	int rc;
	const char *got = load(text, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(got, expected);
}

#define OP(name, type) "  op { name: \"" name "\" type: \"" type "\" output_desc { dtype: DT_FLOAT } }\n"

static void test_bad_dumps(void **state)
{
	(void)state;
	expect_refused("", "bad.txt: error: not a GE graph dump: no 'graph' at the top level");
	expect_refused("name: \"m\"\n", "bad.txt: error: not a GE graph dump: no 'graph' at the top level");
	expect_refused("graph {\n  op {\n", "bad.txt:3:1: error: the file ends inside 'op' opened at 2:6 (no '}')");
	expect_refused("graph: 3", "bad.txt:1:8: error: 'graph' should be a message, not '3'");
	expect_refused("graph {\n  name: \"g\"\n" OP("a", "Relu") "  op { name: \"b\" type: \"Relu\" input: \"nope:0\" }\n}",
	               "bad.txt:4:38: error: input 'nope:0': graph 'g' has no op 'nope'");
	expect_refused("graph {\n  name: \"g\"\n" OP("a", "Relu") "  op { name: \"b\" type: \"Relu\" input: \"a:2\" }\n}",
	               "bad.txt:4:38: error: input 'a:2': op 'a' has 1 output (output_desc), and -1 is a control edge");
	expect_refused("graph {\n  name: \"g\"\n" OP("a", "Relu") "  op { name: \"b\" type: \"Relu\" input: \"a:-2\" }\n}",
	               "bad.txt:4:38: error: input 'a:-2': op 'a' has 1 output (output_desc), and -1 is a control edge");
	expect_refused("graph {\n" OP("a", "Relu") "  op { name: \"b\" type: \"Relu\" input: \"a\" }\n}",
	               "bad.txt:3:38: error: input 'a' is not 'op:index'");
	expect_refused("graph {\n" OP("a", "Relu") "  op { name: \"b\" type: \"Relu\" input: \"a: 0\" }\n}",
	               "bad.txt:3:38: error: input 'a: 0' is not 'op:index'");
	expect_refused("graph {\n  name: \"g\"\n" OP("a", "Relu") OP("a", "Add") "}",
	               "bad.txt:4:14: error: a second op named 'a' in graph 'g' (the first is at 3:3)");
	expect_refused("graph {\n  name: \"g\"\n  op { type: \"Relu\" }\n}",
	               "bad.txt:3:3: error: op without a name in graph 'g'");
	expect_refused("graph {\n  name: \"g\"\n  op { name: \"a\" }\n}", "bad.txt:3:3: error: op 'a' in graph 'g' has no type");
	expect_refused("graph {\n  op { name: 3 type: \"Relu\" }\n}",
	               "bad.txt:2:14: error: 'name' should be a string, not '3'");
	expect_refused("graph {\n  op { name: \"a\" type: \"Relu\" output_desc { dtype: DT_NOPE } }\n}",
	               "bad.txt:2:52: error: 'dtype' has no value named 'DT_NOPE'");
	expect_refused("graph {\n  op { name: \"a\" type: \"Relu\" output_desc { shape { dim: 2 dim: -3 } } }\n}",
	               "bad.txt:2:65: error: dim -3: a dim is a size, -1 (not known) or a lone -2 (rank not known)");
	expect_refused("graph {\n  op { name: \"a\" type: \"If\" subgraph_name: \"b\" }\n}",
	               "bad.txt:2:44: error: op 'a' names subgraph 'b', which the dump does not hold");
	expect_refused("graph {\n  name: \"g\"\n  op { name: \"a\" type: \"If\" subgraph_name: \"g\" }\n}",
	               "bad.txt:3:44: error: op 'a' names subgraph 'g', which is already the main graph");
	expect_refused("graph {\n  op { name: \"a\" type: \"If\" subgraph_name: \"b\" subgraph_name: \"b\" }\n}\n"
	               "graph { name: \"b\" }",
	               "bad.txt:2:63: error: op 'a' names subgraph 'b', which is already the body of another op");
	expect_refused("graph { name: \"g\" }\ngraph { name: \"g\" }",
	               "bad.txt:2:1: error: a second graph named 'g' (the first is at 1:1)");
	expect_refused("graph {\n  output: \"a:-1\"\n" OP("a", "Relu") "}",
	               "bad.txt:2:11: error: graph output 'a:-1' is a control edge, not a tensor");
	expect_refused("graph {\n  op { name: \"a\" type: \"T\" attr { key: \"k\" value { i: \"s\" } } }\n}",
	               "bad.txt:2:55: error: 'i' should be an integer, not a string");
	expect_refused("graph {\n  op { name: \"a\" type: \"T\" attr { key: \"k\" value { list { val_type: VT_X } } } }\n}",
	               "bad.txt:2:69: error: 'val_type' has no value named 'VT_X'");
	expect_refused("graph {\n  op { name: \"a\" type: \"T\" attr { key: \"k\" value { list { i: 1.5 } } } }\n}",
	               "bad.txt:2:62: error: 'i' should be an integer, not '1.5'");
	/* a cycle is found by the graph's own checks, naming the nodes */
	int rc;
	const char *got = load("graph {\n  op { name: \"a\" type: \"T\" input: \"b:0\" output_desc {} }\n"
	                       "  op { name: \"b\" type: \"T\" input: \"a:0\" output_desc {} }\n}", &rc);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(got, "cycle"));
	/* ONNX in text format is named for what it is */
	expect_refused("ir_version: 8\ngraph { node { op_type: \"ge:Conv2D\" } }",
	               "bad.txt: error: ONNX in protobuf text format (a ge_onnx dump?): fusiondbg reads GE's ModelDef "
	               "dumps (ge_proto_*.txt) and binary ONNX");
}

/* A graph no op names is left out with a warning; the rest loads. */
static void test_unowned_graph(void **state)
{
	(void)state;
	int rc;
	const char *got = load("graph {\n" OP("a", "Relu") "}\ngraph { name: \"lost\" }\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "bad.txt:4:1: warning: graph 'lost' is no op's subgraph (no subgraph_name names it): "
	                         "not loaded");
}

static void test_detect(void **state)
{
	(void)state;
	static const char modeldef[] = "# comment\nname: \"x\"\ngraph {\n  name: \"g\"\n  op {\n";
	static const char onnx_text[] = "ir_version: 8\nproducer_name: \"GE\"\ngraph { node {";
	static const char onnx_graph[] = "graph { name: \"g\" node { op_type: \"ge:Relu\" } }";
	static const unsigned char binary[] = { 0x08, 0x07, 0x12, 0x04, 'G', 'E', 0, 0 };
	assert_int_equal(ge_detect(modeldef, sizeof modeldef - 1), GE_FORMAT_MODELDEF);
	assert_int_equal(ge_detect(onnx_text, sizeof onnx_text - 1), GE_FORMAT_ONNX_TEXT);
	assert_int_equal(ge_detect(onnx_graph, sizeof onnx_graph - 1), GE_FORMAT_ONNX_TEXT);
	assert_int_equal(ge_detect(binary, sizeof binary), GE_FORMAT_NONE);
	assert_int_equal(ge_detect("", 0), GE_FORMAT_NONE);
	assert_int_equal(ge_detect(NULL, 0), GE_FORMAT_NONE);
	assert_int_equal(ge_detect("{}", 2), GE_FORMAT_NONE);
	assert_int_equal(ge_detect_file(SMALL), GE_FORMAT_MODELDEF);
	assert_int_equal(ge_detect_file("samples/conv_add_silu.onnx"), GE_FORMAT_NONE);
	assert_int_equal(ge_detect_file("tests/data/ge/absent.txt"), GE_FORMAT_NONE);
	assert_int_equal(ge_detect_file("tests/data/ge"), GE_FORMAT_NONE);   /* a directory */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_model),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_buffer_and_options),
		cmocka_unit_test(test_bad_dumps),
		cmocka_unit_test(test_unowned_graph),
		cmocka_unit_test(test_detect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
