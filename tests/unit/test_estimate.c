/* test_estimate.c — memory and cost estimates against hand computations on
 * samples/conv_add_silu.onnx with the shipped rules (rules/).
 *
 * The sample: x [1,16,32,32] f32 → conv1 (3x3, pad 1) → add1(+x) → sigmoid1
 * → mul1 → conv2 (1x1) → add2(+const) → sigmoid2 → mul2 → conv3 (1x1) →
 * add3(mul2_out, conv3_out) → sigmoid3 → mul3 → y. Every activation is
 * 16·32·32·4 = 65536 B (T). Conv_Add_SiLU_Fusion fires three times:
 * F1 = conv1..mul1, F2 = conv2..mul2, F3 = conv3..mul3.
 *
 * Liveness before fusion (topo steps 0..11, [producer, last consumer]):
 *   x [0,1]  conv1_out [0,1]  add1_out [1,3]  sigmoid1_out [2,3]
 *   mul1_out [3,4]  conv2_out [4,5]  add2_out [5,7]  sigmoid2_out [6,7]
 *   mul2_out [7,9]  conv3_out [8,9]  add3_out [9,11]  sigmoid3_out [10,11]
 *   y [11,11] → live 2T,3T,2T,3T,2T,2T,2T,3T,2T,3T,2T,3T: peak 3T = 196608
 *   first at step 1 (add1): add1_out, conv1_out, x.
 * After: F1 runs at step 3, F2 at 7, F3 at 11; intermediates never live:
 *   x [0,3]  mul1_out [3,7]  mul2_out [7,11]  y [11,11]
 *   → peak 2T = 131072 first at step 3 (mul1): mul1_out, x.
 * F1: inputs x (65536, activation) + conv1_w 16·16·3·3·4 = 9216 (constant);
 *   outputs mul1_out 65536; removed conv1_out + add1_out + sigmoid1_out =
 *   196608; workspace im2col 16/1·3·3·32·32·1·4 = 589824; kernel peak =
 *   74752 + 65536 + 589824 + 65536 (largest intermediate) = 795648.
 * F1 roofline on ascend910-class (1.2e12 B/s, fp32 16e12 FLOP/s):
 *   conv1 max(140288/BW, 2·16384·144/16e12) = 2.94912e-7
 *   add1 196608/BW = 1.6384e-7, sigmoid1 131072/BW = 1.09227e-7, mul1 1.6384e-7
 *   unfused 7.31819e-7; fused max(140288/BW, 4816896/16e12) = 3.01056e-7
 *   → ×2.4308. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "estimate/estimate.h"
#include "onnx/onnx.h"
#include "ruleset/ruleset.h"

#define T 65536

typedef struct world {
	fd_model m;
	fd_ruleset rs;
	fd_match_ctx ctx;
	fd_match_result r;
	fd_estimate e;
} world;

static void open_world(world *w, const char *model, const char *rules, const fd_estimate_options *eo)
{
	fd_diags d;
	diags_init(&d);
	assert_int_equal(onnx_load_model(&w->m, model, NULL, &d), 0);
	ruleset_init(&w->rs);
	assert_int_equal(ruleset_load(&w->rs, rules, &d), 0);
	assert_int_equal(match_ctx_init(&w->ctx, &w->m, true, &d), 0);
	match_result_init(&w->r);
	match_run(&w->ctx, &w->rs, NULL, &w->r);
	estimate_init(&w->e);
	estimate_compute(&w->e, &w->r, eo);
	diags_release(&d);
}

static void close_world(world *w)
{
	estimate_release(&w->e);
	match_result_release(&w->r);
	match_ctx_release(&w->ctx);
	ruleset_release(&w->rs);
	model_release(&w->m);
}

static const char *tname(world *w, int32_t t)
{
	return w->m.graphs[0].tensors[t].name;
}

static void test_graph_peak_by_hand(void **state)
{
	world w;
	open_world(&w, "samples/conv_add_silu.onnx", "rules", NULL);
	assert_int_equal(w.r.n_fusions, 3);
	const fd_graph_est *ge = &w.e.graphs[0];
	assert_int_equal(ge->before.peak_bytes, 3 * T);
	assert_int_equal(ge->before.peak_step, 1);
	assert_int_equal(ge->before.n_peak_tensors, 3);
	assert_string_equal(tname(&w, ge->before.peak_tensors[0].tensor), "add1_out");
	assert_string_equal(tname(&w, ge->before.peak_tensors[1].tensor), "conv1_out");
	assert_string_equal(tname(&w, ge->before.peak_tensors[2].tensor), "x");
	assert_int_equal(ge->after.peak_bytes, 2 * T);
	assert_int_equal(ge->after.peak_step, 3);
	assert_int_equal(ge->after.n_peak_tensors, 2);
	assert_string_equal(tname(&w, ge->after.peak_tensors[0].tensor), "mul1_out");
	assert_string_equal(tname(&w, ge->after.peak_tensors[1].tensor), "x");
	/* weights: conv1_w 9216 + conv2_w 1024 + add2_b 64 + conv3_w 1024 */
	assert_int_equal(ge->weight_bytes, 9216 + 1024 + 64 + 1024);
	assert_int_equal(ge->n_unknown, 0);
	close_world(&w);
}

static void test_fusion_by_hand(void **state)
{
	world w;
	open_world(&w, "samples/conv_add_silu.onnx", "rules", NULL);
	const fd_fusion_est *f = &w.e.fusions[0];
	assert_int_equal(f->input_act_bytes, T);
	assert_int_equal(f->input_const_bytes, 9216);
	assert_int_equal(f->inputs_bytes, T + 9216);
	assert_int_equal(f->outputs_bytes, T);
	assert_int_equal(f->intermediate_bytes_removed, 3 * T);
	assert_int_equal(f->largest_intermediate_bytes, T);
	assert_int_equal(f->workspace_bytes, 589824);
	assert_true(f->workspace_known);
	assert_int_equal(f->kernel_peak_bytes, 795648);
	assert_true(f->chunk_ratio == 1.0);
	assert_int_equal(f->advice, ADVICE_NONE);
	assert_true(f->speedup > 2.425 && f->speedup < 2.435);
	assert_true(f->compute_bound);
	char b[32];
	assert_string_equal(estimate_format_speedup(f->speedup, b, sizeof b), "est. \xc3\x97" "2.4");
	/* FLOPs of conv1: 2 · 16384 outputs · 16 · 3 · 3 */
	const fd_graph *g = &w.m.graphs[0];
	assert_true(estimate_node_flops(g, &g->nodes[graph_find_node(g, "conv1")]) == 4718592.0);
	assert_true(estimate_node_flops(g, &g->nodes[graph_find_node(g, "sigmoid1")]) == 4.0 * 16384);
	close_world(&w);
}

static void test_threshold_advice(void **state)
{
	world w;
	fd_estimate_options eo = { .peak_warn = 100000 };
	open_world(&w, "samples/conv_add_silu.onnx", "rules", &eo);
	/* F1: workspace 589824 > half of 795648 → spill; F2/F3: 1x1 convs,
	 * peak (65536 + 1024 + 64) + 65536 + 65536 + 65536 = 263232 > 100000, workspace 65536 → chunked */
	assert_int_equal(w.e.fusions[0].advice, ADVICE_SPILL_L2);
	assert_int_equal(w.e.fusions[1].kernel_peak_bytes, 263232);
	assert_int_equal(w.e.fusions[1].advice, ADVICE_CHUNKED);
	assert_int_equal(w.e.n_over_threshold, 3);
	assert_true(strstr(estimate_advice_text(ADVICE_CHUNKED), "tile_policy: chunked") != NULL);
	close_world(&w);
}

/* The shipped rule with tile_policy: chunked (not block) and chunk_size [1, 16, 8, 8]:
 * 1024 of 16384 output elements → ratio 1/16, peak 795648 / 16 = 49728. */
static void test_chunked(void **state)
{
	char dir[] = "/tmp/fd_est_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], cmd[512];
	snprintf(path, sizeof path, "%s/r.yaml", dir);
	snprintf(cmd, sizeof cmd,
	         "sed -e 's/tile_policy: \"block\"/tile_policy: chunked/' "
	         "-e 's/chunk_size: \\[1, 512, 56, 56\\]/chunk_size: [1, 16, 8, 8]/' "
	         "rules/conv_add_silu_fusion.yaml > %s", path);
	assert_int_equal(system(cmd), 0);
	world w;
	fd_estimate_options eo = { .peak_warn = 40000 };
	open_world(&w, "samples/conv_add_silu.onnx", path, &eo);
	assert_int_equal(w.r.n_fusions, 3);
	const fd_fusion_est *f = &w.e.fusions[0];
	assert_true(f->chunk_ratio == 1.0 / 16);
	assert_int_equal(f->kernel_peak_unchunked_bytes, 795648);
	assert_int_equal(f->kernel_peak_bytes, 49728);
	assert_int_equal(f->advice, ADVICE_SMALLER_CHUNK);
	close_world(&w);
	unlink(path);
	rmdir(dir);
}

static void test_bodies_and_json(void **state)
{
	world w;
	open_world(&w, "samples/if_subgraph.onnx", "rules", NULL);
	assert_true(w.e.n_graphs > 1);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	estimate_write_memory_json(f, &w.e);
	estimate_write_text(f, &w.e);
	fclose(f);
	assert_non_null(strstr(buf, "\"peak_before_bytes\""));
	assert_non_null(strstr(buf, "\"graphs\": ["));
	free(buf);
	close_world(&w);
}

static void test_format_bytes(void **state)
{
	char b[32];
	assert_string_equal(estimate_format_bytes(0, b, sizeof b), "0 B");
	assert_string_equal(estimate_format_bytes(1023, b, sizeof b), "1023 B");
	assert_string_equal(estimate_format_bytes(802816, b, sizeof b), "784 KiB");
	assert_string_equal(estimate_format_bytes(10066330, b, sizeof b), "9.6 MiB");
	assert_string_equal(estimate_format_bytes((int64_t)512 << 20, b, sizeof b), "512 MiB");
	assert_string_equal(estimate_format_speedup(0, b, sizeof b), "est. n/a");
	assert_non_null(hwprofile_find("cpu"));
	assert_null(hwprofile_find("nope"));
	assert_string_equal(hwprofile_default()->name, HWPROFILE_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_peak_by_hand),
		cmocka_unit_test(test_fusion_by_hand),
		cmocka_unit_test(test_threshold_advice),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_bodies_and_json),
		cmocka_unit_test(test_format_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
