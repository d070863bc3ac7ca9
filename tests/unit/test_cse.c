/* test_cse.c — common-subexpression elimination (src/cse/) on the model of
 * tests/data/cse (tests/tools/make_cse_models.py): nodes of one op, equal
 * inputs and equal attributes merge into the first, and what reads a merged
 * one then reads the first, so that its readers merge in turn; other
 * attributes, non-deterministic ops and a graph output keep their nodes.
 * Which of two equal nodes stays is onnxruntime's choice (its topological
 * order walks up from the last leaf): onnxruntime 1.30.0's level-1 graph of
 * the model keeps relu_b, shape_b and gather_b, and reads them twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cse/cse.h"
#include "ir/graph.h"
#include "onnx/onnx.h"

#define DATA "tests/data/cse/"

typedef struct run {
	fd_model m;
	fd_cse_result r;
} run;

static run *eliminate(const char *path)
{
	static run w;
	fd_load_options opt = { 0 };
	fd_diags d;
	diags_init(&d);
	if (onnx_load_model(&w.m, path, &opt, &d) != 0)
		fail_msg("cannot load %s", path);
	cse_result_init(&w.r);
	assert_int_equal(cse_eliminate(&w.m, &w.r, &d), 0);
	assert_int_equal(d.errors, 0);
	diags_release(&d);
	return &w;
}

static void done(run *w)
{
	cse_result_release(&w->r);
	model_release(&w->m);
}

static bool has_node(const fd_model *m, const char *name)
{
	return graph_find_node(&m->graphs[0], name) >= 0;
}

static const char *input_name(const fd_model *m, const char *name, int32_t k)
{
	const fd_graph *g = &m->graphs[0];
	int32_t i = graph_find_node(g, name);
	if (i < 0)
		fail_msg("no node %s", name);
	assert_true(k < g->nodes[i].n_inputs && g->nodes[i].inputs[k] >= 0);
	return g->tensors[g->nodes[i].inputs[k]].name;
}

static void equal_nodes_merge(void **state)
{
	(void)state;
	run *w = eliminate(DATA "cse_merge.onnx");
	assert_true(w->r.changed);
	const fd_model *m = &w->r.model;
	/* equal Shapes, then the Gathers that read them, then equal Relus */
	assert_false(has_node(m, "shape_a"));
	assert_false(has_node(m, "gather_a"));
	assert_false(has_node(m, "relu_a"));
	assert_string_equal(input_name(m, "concat_g", 0), "g1");
	assert_string_equal(input_name(m, "concat_g", 1), "g1");
	assert_string_equal(input_name(m, "add_r", 0), "r1");
	const fd_cse_event *e = cse_event_of(&w->r, "gather_a");
	assert_non_null(e);
	assert_string_equal(e->into, "gather_b");
	assert_int_equal(w->r.n_merged, 3);
	done(w);
}

static void unequal_or_unsafe_nodes_stay(void **state)
{
	(void)state;
	run *w = eliminate(DATA "cse_merge.onnx");
	const fd_model *m = &w->r.model;
	assert_true(has_node(m, "shape_start"));   /* another attribute */
	assert_true(has_node(m, "drop_b"));        /* Dropout: not deterministic */
	assert_true(has_node(m, "rand_b"));
	assert_true(has_node(m, "relu_out"));      /* its output is a graph output */
	assert_string_equal(input_name(m, "add_d", 1), "d1");
	assert_string_equal(input_name(m, "add_u", 1), "u1");
	assert_null(cse_event_of(&w->r, "relu_out"));
	done(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_nodes_merge),
		cmocka_unit_test(unequal_or_unsafe_nodes_stay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
