/* test_node_is.c — the default ONNX domain has one spelling inside
 * fusiondbg: a model may write it "" or "ai.onnx", the loader (main graph,
 * bodies, opset imports) and a rewritten model hold it as "", and node_is
 * asks for the op type alone, in that domain only (com.microsoft's op of the
 * same name is not ONNX's). The model is made here, with protobuf-c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "ir/onnx_ops.h"
#include "ir/rewrite.h"
#include "onnx.pb-c.h"
#include "onnx/onnx.h"

static Onnx__NodeProto *node(const char *name, const char *op_type, const char *domain, char **in, char **out)
{
	Onnx__NodeProto *n = calloc(1, sizeof *n);
	onnx__node_proto__init(n);
	n->name = (char *)name;
	n->op_type = (char *)op_type;
	n->domain = (char *)domain;
	n->n_input = 1, n->input = in;
	n->n_output = 1, n->output = out;
	return n;
}

static Onnx__ValueInfoProto *value(const char *name)
{
	Onnx__ValueInfoProto *v = calloc(1, sizeof *v);
	onnx__value_info_proto__init(v);
	v->name = (char *)name;
	return v;
}

static Onnx__GraphProto *graph(const char *name, Onnx__NodeProto **nodes, size_t n, Onnx__ValueInfoProto **outputs)
{
	Onnx__GraphProto *g = calloc(1, sizeof *g);
	onnx__graph_proto__init(g);
	g->name = (char *)name;
	g->n_node = n, g->node = nodes;
	g->n_output = 1, g->output = outputs;
	return g;
}

static Onnx__AttributeProto *body(const char *name, Onnx__GraphProto *g)
{
	Onnx__AttributeProto *a = calloc(1, sizeof *a);
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
	a->g = g;
	return a;
}

/* x → a: Relu spelled "ai.onnx" → b: Relu in "" → c: Relu of com.microsoft
 * → If, whose then body holds a Relu spelled "ai.onnx" and whose else
 * body an Identity; the opsets import "ai.onnx" and com.microsoft. The
 * bytes are the caller's to free. */
static uint8_t *model_bytes(size_t *size)
{
	static char *x[] = { "x" }, *a[] = { "a" }, *b[] = { "b" }, *c[] = { "c" }, *cond[] = { "cond" },
	            *y[] = { "y" }, *t[] = { "t" }, *e[] = { "e" };
	Onnx__NodeProto *then_nodes[] = { node("inner", "Relu", "ai.onnx", c, t) };
	Onnx__NodeProto *else_nodes[] = { node("inner_else", "Identity", "", c, e) };
	Onnx__ValueInfoProto *then_out[] = { value("t") }, *else_out[] = { value("e") }, *main_out[] = { value("y") };
	Onnx__ValueInfoProto *main_in[] = { value("x"), value("cond") };
	Onnx__NodeProto *branch = node("branch", "If", "", cond, y);
	Onnx__AttributeProto *bodies[] = { body("then_branch", graph("then", then_nodes, 1, then_out)),
		                           body("else_branch", graph("else", else_nodes, 1, else_out)) };
	branch->n_attribute = 2, branch->attribute = bodies;
	Onnx__NodeProto *nodes[] = { node("spelled", "Relu", "ai.onnx", x, a), node("empty", "Relu", "", a, b),
		                     node("contrib", "Relu", "com.microsoft", b, c), branch };
	Onnx__GraphProto *g = graph("main", nodes, 4, main_out);
	g->n_input = 2, g->input = main_in;
	Onnx__OperatorSetIdProto onnx, ms;
	onnx__operator_set_id_proto__init(&onnx);
	onnx__operator_set_id_proto__init(&ms);
	onnx.domain = "ai.onnx", onnx.has_version = true, onnx.version = 17;
	ms.domain = "com.microsoft", ms.has_version = true, ms.version = 1;
	Onnx__OperatorSetIdProto *opsets[] = { &onnx, &ms };
	Onnx__ModelProto m;
	onnx__model_proto__init(&m);
	m.has_ir_version = true, m.ir_version = 8;
	m.n_opset_import = 2, m.opset_import = opsets;
	m.graph = g;
	*size = onnx__model_proto__get_packed_size(&m);
	uint8_t *bytes = malloc(*size);
	onnx__model_proto__pack(&m, bytes);
	for (size_t k = 0; k < 2; k++) {
		free(bodies[k]->g);
		free(bodies[k]);
	}
	for (size_t k = 0; k < 4; k++)
		free(nodes[k]);
	free(then_nodes[0]), free(else_nodes[0]), free(then_out[0]), free(else_out[0]), free(main_out[0]);
	free(main_in[0]), free(main_in[1]), free(g);
	return bytes;
}

static void load(fd_model *m)
{
	size_t size;
	uint8_t *bytes = model_bytes(&size);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(onnx_load_model_buffer(m, "domains.onnx", bytes, size, NULL, &d), 0);
	assert_int_equal(d.errors, 0);
	diags_release(&d);
	free(bytes);
}

static const fd_node *named(const fd_model *m, const char *name)
{
	int32_t g, n;
	assert_true(model_find_node(m, name, &g, &n));
	return &m->graphs[g].nodes[n];
}

static void test_spellings_are_one_domain(void **state)
{
	(void)state;
	assert_string_equal(onnx_domain_normal(NULL), "");
	assert_string_equal(onnx_domain_normal(""), "");
	assert_string_equal(onnx_domain_normal("ai.onnx"), "");
	assert_string_equal(onnx_domain_normal("com.microsoft"), "com.microsoft");
	assert_string_equal(onnx_domain_name(""), "ai.onnx");
	assert_string_equal(onnx_domain_name("com.microsoft"), "com.microsoft");
	assert_true(onnx_op_is_standard("ai.onnx", "Relu"));
	assert_true(onnx_op_is_standard("", "Relu"));
	assert_false(onnx_op_is_standard("com.microsoft", "Relu"));
}

static void test_loaded_nodes(void **state)
{
	(void)state;
	fd_model m;
	load(&m);
	const fd_node *spelled = named(&m, "spelled"), *empty = named(&m, "empty"), *contrib = named(&m, "contrib");
	assert_string_equal(spelled->domain, "");
	assert_true(node_is(spelled, "Relu"));
	assert_true(node_is(empty, "Relu"));
	assert_false(node_is(contrib, "Relu"));
	assert_string_equal(contrib->domain, "com.microsoft");
	assert_false(node_is(spelled, "relu"));
	/* a body's node, as the main graph's */
	const fd_node *inner = named(&m, "inner");
	assert_string_equal(inner->domain, "");
	assert_true(node_is(inner, "Relu"));
	assert_true(node_is(named(&m, "inner_else"), "Identity"));
	/* the opset imports: "ai.onnx" is held as "" */
	assert_int_equal(m.n_opsets, 2);
	assert_string_equal(m.opsets[0].domain, "");
	assert_int_equal(m.opsets[0].version, 17);
	assert_string_equal(m.opsets[1].domain, "com.microsoft");
	/* by index: FD_NONE and indices outside the graph are no node */
	const fd_graph *g = &m.graphs[0];
	assert_true(graph_node_is(g, graph_find_node(g, "spelled"), "Relu"));
	assert_false(graph_node_is(g, graph_find_node(g, "contrib"), "Relu"));
	assert_false(graph_node_is(g, FD_NONE, "Relu"));
	assert_false(graph_node_is(g, g->n_nodes, "Relu"));
	model_release(&m);
}

/* A rewrite's node may spell the domain either way too: the rewritten
 * model holds it as "". */
static void test_rewritten_nodes(void **state)
{
	(void)state;
	fd_model m, out;
	load(&m);
	const fd_graph *g = &m.graphs[0];
	fd_rewrite rw;
	rewrite_init(&rw);
	const char *in[] = { "a" }, *outs[] = { "b" };
	int32_t member = graph_find_node(g, "empty");
	fd_fused_node *fn = rewrite_add(&rw, 0);
	fn->n_members = 1, fn->members = &member;
	fn->name = "fused", fn->op_type = "Relu", fn->domain = "ai.onnx";
	fn->n_inputs = 1, fn->inputs = in;
	fn->n_outputs = 1, fn->outputs = outs;
	fd_rewrite_map map;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(rewrite_build_model(&m, &rw, &out, &map, &d), 0);
	const fd_node *fused = &out.graphs[0].nodes[map.to[0][member]];
	assert_string_equal(fused->name, "fused");
	assert_string_equal(fused->domain, "");
	assert_true(node_is(fused, "Relu"));
	/* the nodes it kept are the loader's */
	assert_true(node_is(&out.graphs[0].nodes[map.to[0][graph_find_node(g, "spelled")]], "Relu"));
	assert_false(node_is(&out.graphs[0].nodes[map.to[0][graph_find_node(g, "contrib")]], "Relu"));
	model_release(&out);
	rewrite_release(&rw);
	diags_release(&d);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spellings_are_one_domain),
		cmocka_unit_test(test_loaded_nodes),
		cmocka_unit_test(test_rewritten_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
