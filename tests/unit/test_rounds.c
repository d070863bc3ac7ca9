/* test_rounds.c — the rounds' core: the rewritten model (rewrite_build_model:
 * nodes, tensors, links, the maps both ways), the two-round pipeline's
 * provenance (original nodes, the node an original became, the composed
 * rewrite), fused op types in the rule set and the match context; and the
 * small readers the comparisons use (json_read, dir_stats). Run from the
 * repository root (tests/run-all does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include "base/dir_stats.h"
#include "base/json_read.h"
#include "base/strbuf.h"
#include "onnx/onnx.h"
#include "rounds/fuse.h"
#include "ruleset/ruleset.h"
#include "rounds/rounds.h"
#include "rules/optable.h"

typedef struct world {
	fd_model m;
	fd_ruleset rs;
	fd_match_ctx ctx;
	fd_match_result first;
	fd_rounds rd;
} world;

static void open_world(world *w, const char *model, const char *rules)
{
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	assert_int_equal(onnx_load_model(&w->m, model, &lo, &d), 0);
	ruleset_init(&w->rs);
	assert_int_equal(ruleset_load(&w->rs, rules, &d), 0);
	assert_int_equal(match_ctx_init_types(&w->ctx, &w->m, true, w->rs.fused_types, w->rs.n_fused_types, &d), 0);
	match_result_init(&w->first);
	rounds_init(&w->rd);
	fd_match_options mo = { 0 };
	assert_int_equal(rounds_run(&w->rd, &w->ctx, &w->rs, &mo, NULL, &w->first, &d), 0);
	diags_release(&d);
}

static void close_world(world *w)
{
	rounds_release(&w->rd);
	match_result_release(&w->first);
	match_ctx_release(&w->ctx);
	ruleset_release(&w->rs);
	model_release(&w->m);
}

static int32_t node(const fd_model *m, const char *name)
{
	int32_t g, n;
	assert_true(model_find_node(m, name, &g, &n));
	return n;
}

/* Every input of every node is produced by a node of the graph or is an
 * input, initializer, constant or outer value; producers know their ports. */
static void assert_linked(const fd_graph *g)
{
	for (int32_t i = 0; i < g->n_nodes; i++) {
		const fd_node *n = &g->nodes[i];
		for (int32_t s = 0; s < n->n_inputs; s++) {
			int32_t t = n->inputs[s];
			if (t < 0)
				continue;
			const fd_tensor *x = &g->tensors[t];
			assert_true(x->producer >= 0 || x->kind != TENSOR_ACTIVATION);
		}
		for (int32_t s = 0; s < n->n_outputs; s++)
			if (n->outputs[s] >= 0)
				assert_int_equal(g->tensors[n->outputs[s]].producer, i);
	}
}

static void test_fused_types(void **state)
{
	(void)state;
	world w;
	open_world(&w, "samples/rounds_conv_bn_relu.onnx", "samples/rounds/two_rounds.yaml");
	/* ConvBN, ConvRelu, ConvBNRelu are not in the op table: fused op types */
	assert_int_equal(w.rs.n_fused_types, 3);
	int32_t r = ruleset_find(&w.rs, "ConvBN_Relu_Fusion");
	int id = w.rs.rules[r].match.ops[0].op;
	assert_true(id >= optable_count());
	assert_string_equal(w.rs.fused_types[id - optable_count()], "ConvBN");
	assert_int_equal(ruleset_fused_type_rule(&w.rs, id), ruleset_find(&w.rs, "Conv_BN_Fusion"));
	assert_true(match_ctx_has_types(&w.ctx, &w.rs));
	assert_true(rounds_rule_sees(&w.rs, r, "ConvBN"));
	assert_false(rounds_rule_sees(&w.rs, r, "ConvRelu"));
	assert_true(rounds_rule_sees(&w.rs, ruleset_find(&w.rs, "Conv_Relu_Fusion"), "FusedConv"));
	close_world(&w);
}

/* rounds_each_final's visitor: "round rule: original nodes; " for each. */
typedef struct finals_text {
	const world *w;
	strbuf text;
} finals_text;

static void say_final(const fd_final_fusion *ff, void *arg)
{
	finals_text *ft = arg;
	sb_printf(&ft->text, "%d %s:", (int)ff->round, ft->w->rs.rules[ff->fusion->rule].name);
	for (size_t k = 0; k < ff->n_originals; k++)
		sb_printf(&ft->text, " %s", ft->w->m.graphs[ff->fusion->graph].nodes[ff->originals[k]].name);
	sb_puts(&ft->text, "; ");
}

static void test_two_rounds(void **state)
{
	(void)state;
	world w;
	open_world(&w, "samples/rounds_conv_bn_relu.onnx", "samples/rounds/two_rounds.yaml");
	assert_int_equal(w.rd.n, 2);
	assert_true(w.rd.settled);
	const fd_round *r2 = rounds_get(&w.rd, 2);
	assert_true(r2->built_own);
	const fd_graph *g2 = &r2->model->graphs[0];
	/* conv1+bn1, conv2+bn2, conv3+relu3 fused: 4 nodes left (relu1 among them) */
	assert_int_equal(g2->n_nodes, 4);
	assert_linked(g2);
	assert_int_equal(graph_find_tensor(g2, "conv1_out"), FD_NONE);   /* made inside */
	assert_true(graph_find_tensor(g2, "bn1_out") >= 0);               /* the boundary */
	int32_t f1 = graph_find_node(g2, "fused_conv1");
	assert_true(f1 >= 0);
	assert_string_equal(g2->nodes[f1].op_type, "ConvBN");
	assert_string_equal(g2->nodes[f1].domain, FD_FUSED_DOMAIN);
	/* the maps, both ways */
	const fd_graph *g1 = &w.m.graphs[0];
	int32_t prev;
	const fd_fused_node *fn = rounds_made_by(&w.rd, 2, 0, f1, &prev);
	assert_non_null(fn);
	assert_int_equal(fn->n_members, 2);
	assert_int_equal(r2->map.to[0][node(&w.m, "conv1")], f1);
	assert_int_equal(r2->map.to[0][node(&w.m, "bn1")], f1);
	int32_t relu1 = rounds_node_in(&w.rd, 2, 0, node(&w.m, "relu1"));
	assert_string_equal(g2->nodes[relu1].name, "relu1");
	assert_null(rounds_made_by(&w.rd, 2, 0, relu1, &prev));
	assert_int_equal(prev, node(&w.m, "relu1"));
	/* original nodes, topological order */
	fd_id_vec orig = { 0 };
	assert_int_equal(rounds_original_nodes(&w.rd, 2, 0, f1, &orig), 2);
	assert_string_equal(g1->nodes[orig.items[0]].name, "conv1");
	assert_string_equal(g1->nodes[orig.items[1]].name, "bn1");
	vec_release(&orig);
	/* the fused node keeps the members' attributes, namespaced */
	bool pads = false;
	for (int32_t k = 0; k < g2->nodes[f1].n_attrs; k++)
		pads = pads || !strcmp(g2->nodes[f1].attrs[k].name, "conv.pads");
	assert_true(pads);
	/* round 1's Conv_BN fusion of conv1 is not final; of conv2 it is */
	const fd_match_result *r1 = w.rd.items[0]->result;
	int32_t c1 = r1->claim[0][node(&w.m, "conv1")], c2 = r1->claim[0][node(&w.m, "conv2")];
	assert_false(rounds_fusion_is_final(&w.rd, 1, (size_t)c1));
	assert_true(rounds_fusion_is_final(&w.rd, 1, (size_t)c2));
	/* the walk of the final fusions: round by round, the later round's over original nodes */
	finals_text ft = { .w = &w };
	rounds_each_final(&w.rd, say_final, &ft);
	assert_string_equal(sb_str(&ft.text), "1 Conv_BN_Fusion: conv2 bn2; 1 Conv_Relu_Fusion: conv3 relu3; "
	                                      "2 ConvBN_Relu_Fusion: conv1 bn1 relu1; ");
	sb_release(&ft.text);
	/* the composed rewrite: three fused nodes over the model as loaded */
	fd_diags d;
	diags_init(&d);
	rounds_make_all(&w.rd, &d);
	fd_rewrite rw;
	rewrite_init(&rw);
	rounds_final_rewrite(&w.rd, &rw);
	assert_int_equal(rw.nodes.n, 3);
	int members = 0;
	for (size_t k = 0; k < rw.nodes.n; k++)
		members += rw.nodes.items[k].n_members;
	assert_int_equal(members, 7);   /* every node of the model */
	rewrite_release(&rw);
	diags_release(&d);
	close_world(&w);
}

static void test_never_settles(void **state)
{
	(void)state;
	world w;
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	assert_int_equal(onnx_load_model(&w.m, "samples/rounds_conv_bn_relu.onnx", &lo, &d), 0);
	ruleset_init(&w.rs);
	assert_int_equal(ruleset_load(&w.rs, "samples/rounds/never_settles.yaml", &d), 0);
	assert_int_equal(match_ctx_init_types(&w.ctx, &w.m, true, w.rs.fused_types, w.rs.n_fused_types, &d), 0);
	match_result_init(&w.first);
	rounds_init(&w.rd);
	fd_match_options mo = { 0 };
	fd_rounds_options ro = { .max_rounds = 5 };
	assert_int_equal(rounds_run(&w.rd, &w.ctx, &w.rs, &mo, &ro, &w.first, &d), 0);
	assert_int_equal(w.rd.n, 5);
	assert_false(w.rd.settled);
	assert_int_equal(w.rd.unsettled, 0);
	assert_int_equal((int)w.rd.keep_firing.n, 2);
	/* the same run again gives the same rounds (the driver clears and refills) */
	assert_int_equal(rounds_run(&w.rd, &w.ctx, &w.rs, &mo, &ro, &w.first, &d), 0);
	assert_int_equal(w.rd.n, 5);
	assert_int_equal((int)rounds_n_fusions(&w.rd), 10);
	diags_release(&d);
	close_world(&w);
}

/* 400 rounds of a set that never settles: each round's fused node nests the
 * one before, so it carries 4 attributes a round, named with a prefix a
 * round, up to FUSE_MAX_NESTING rounds deep (then a node's size stops
 * growing, and one warning says so). The names are not copied each round: a
 * nested member's name is the longer name's tail, its very bytes
 * (fuse_names.c). */
static void test_never_settles_shares_names(void **state)
{
	(void)state;
	world w;
	fd_diags d;
	diags_init(&d);
	fd_load_options lo = { 0 };
	assert_int_equal(onnx_load_model(&w.m, "samples/rounds_conv_bn_relu.onnx", &lo, &d), 0);
	ruleset_init(&w.rs);
	assert_int_equal(ruleset_load(&w.rs, "samples/rounds/never_settles.yaml", &d), 0);
	assert_int_equal(match_ctx_init_types(&w.ctx, &w.m, true, w.rs.fused_types, w.rs.n_fused_types, &d), 0);
	match_result_init(&w.first);
	rounds_init(&w.rd);
	fd_match_options mo = { .no_events = true };
	fd_rounds_options ro = { .max_rounds = 400 };
	assert_int_equal(rounds_run(&w.rd, &w.ctx, &w.rs, &mo, &ro, &w.first, &d), 0);
	assert_int_equal(w.rd.n, 400);
	rounds_make_all(&w.rd, &d);
	const fd_round *last = w.rd.items[w.rd.n - 1];
	size_t dotted = 0, shared = 0;
	for (size_t k = 0; k < last->made.nodes.n; k++) {
		const fd_fused_node *fn = &last->made.nodes.items[k];
		assert_int_equal(fn->n_members, 1);
		const fd_node *member = &last->model->graphs[fn->graph].nodes[fn->members[0]];
		/* 4 a round (fused_nodes, fused_op_types, fusion_rule, fusion_round), FUSE_MAX_NESTING rounds deep */
		assert_true(fn->n_attrs >= 4 * FUSE_MAX_NESTING && fn->n_attrs <= 4 * (FUSE_MAX_NESTING + 1));
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s.", member->op_type);
		for (char *c = prefix; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		size_t np = strlen(prefix);
		for (int32_t a = 0; a < fn->n_attrs; a++) {
			const char *name = fn->attrs[a].name;
			if (strncmp(name, prefix, np) || !strchr(name + np, '.'))
				continue;   /* not a nested member's name */
			dotted++;
			for (int32_t b = 0; b < member->n_attrs; b++)
				if (member->attrs[b].name == name + np) {
					assert_string_equal(member->attrs[b].name, name + np);
					shared++;
					break;
				}
		}
	}
	assert_true(dotted > 2 * 4 * (FUSE_MAX_NESTING - 2));
	assert_true(shared * 10 >= dotted * 9);   /* a name is copied only when the room before it is spent */
	assert_true(fuse_names_bytes(w.rd.names) < 16u << 20);
	size_t deep = 0;
	for (size_t k = 0; k < d.n; k++)
		deep += strstr(d.items[k].message, "fusions deep already") != NULL;
	assert_int_equal(deep, 1);
	diags_release(&d);
	close_world(&w);
}

/* The final result of the rounds outlives them: its claims are freed by
 * what it records, not through round 1's context (gone by then). */
static void test_final_outlives_rounds(void **state)
{
	(void)state;
	world w;
	open_world(&w, "samples/rounds_conv_bn_relu.onnx", "samples/rounds/two_rounds.yaml");
	fd_match_result final;
	match_result_init(&final);
	rounds_final_result(&w.rd, &final);
	assert_int_equal(final.n_claim, w.m.n_graphs);
	assert_true(final.n_fusions > 0);
	close_world(&w);
	match_result_release(&final);
	assert_null(final.claim);
}

static void test_json_read(void **state)
{
	(void)state;
	fd_jdoc doc;
	fd_diags d;
	diags_init(&d);
	const char *text = "{\"a\": [1, 2.5, \"x\\u00e9\\n\"], \"b\": {\"c\": true, \"d\": null}}\n{\"e\": -3e2}";
	assert_int_equal(jdoc_parse(&doc, "t.json", text, strlen(text), &d), 0);
	assert_int_equal(doc.root->kind, JV_ARRAY);   /* two values one after another */
	assert_int_equal((int)doc.root->n, 2);
	const fd_jval *a = jval_get(doc.root->items[0], "a");
	assert_int_equal((int)a->n, 3);
	assert_true(a->items[1]->num == 2.5);
	assert_string_equal(a->items[2]->str, "x\xc3\xa9\n");
	assert_true(jval_get(jval_get(doc.root->items[0], "b"), "c")->b);
	assert_int_equal(jval_get(jval_get(doc.root->items[0], "b"), "d")->kind, JV_NULL);
	assert_true(jval_get(doc.root->items[1], "e")->num == -300);
	assert_int_equal(jval_get(doc.root->items[1], "e")->line, 2);
	jdoc_release(&doc);
	static const struct { const char *text; int line, col; } bad[] = {
		{ "{\"a\": }", 1, 7 }, { "[1, 2", 1, 6 }, { "{\"a\" 1}", 1, 6 }, { "\n  tru", 2, 3 },
		{ "\"x\x01\"", 1, 3 }, { "", 1, 1 },
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		diags_clear(&d);
		assert_int_equal(jdoc_parse(&doc, "t.json", bad[k].text, strlen(bad[k].text), &d), -1);
		assert_int_equal((int)d.n, 1);
		assert_int_equal(d.items[0].pos.line, bad[k].line);
		assert_int_equal(d.items[0].pos.col, bad[k].col);
	}
	/* nesting is bounded */
	char deep[200];
	memset(deep, '[', sizeof deep - 1);
	deep[sizeof deep - 1] = 0;
	diags_clear(&d);
	assert_int_equal(jdoc_parse(&doc, "t.json", deep, strlen(deep), &d), -1);
	assert_non_null(strstr(d.items[0].message, "nested deeper"));
	diags_release(&d);
}

static void test_dir_stats(void **state)
{
	(void)state;
	char dir[] = "/tmp/fd-dirstats-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/sub", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	const char *files[] = { "a", "sub/b", "sub/c" };
	int64_t now = (int64_t)time(NULL);
	for (int k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[k]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs("12345", f);
		fclose(f);
		if (k) {   /* two of them 8 days old */
			struct utimbuf ut = { (time_t)(now - 8 * 86400), (time_t)(now - 8 * 86400) };
			assert_int_equal(utime(path, &ut), 0);
		}
	}
	snprintf(path, sizeof path, "%s/link", dir);
	assert_int_equal(symlink("/", path), 0);   /* counted as nothing, not followed */
	fd_dir_stats st;
	fd_diags d;
	diags_init(&d);
	assert_int_equal(dir_stats(dir, 7 * 86400, now, &st, &d), 0);
	assert_true(st.exists);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.bytes, 15);
	assert_int_equal(st.older, 2);
	assert_true(st.oldest_age >= 8 * 86400);
	snprintf(path, sizeof path, "%s/a", dir);
	assert_int_equal(dir_stats(path, 0, now, &st, &d), -1);   /* a file */
	snprintf(path, sizeof path, "%s/none", dir);
	assert_int_equal(dir_stats(path, 0, now, &st, &d), 0);
	assert_false(st.exists);
	diags_release(&d);
	for (int k = 2; k >= 0; k--) {
		snprintf(path, sizeof path, "%s/%s", dir, files[k]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/link", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fused_types),
		cmocka_unit_test(test_two_rounds),
		cmocka_unit_test(test_never_settles),
		cmocka_unit_test(test_never_settles_shares_names),
		cmocka_unit_test(test_final_outlives_rounds),
		cmocka_unit_test(test_json_read),
		cmocka_unit_test(test_dir_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
