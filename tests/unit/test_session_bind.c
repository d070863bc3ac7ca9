/* test_session_bind.c — the dims what-if (session_rebind): it reads the
 * model file again only while that is the model that was opened, and after
 * the transpose optimizer rewrote the model its figures are those of a
 * session opened with the binding (nothing read from the model it
 * replaced). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include "base/atomic_file.h"
#include "session/session.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/fd_bind_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void print_diags(const fd_diags *d)
{
	char buf[1024];
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "  %s\n", diag_format(&d->items[i], buf, sizeof buf));
}

static void open_session(fd_session *s, const char *model, const char *const *rules, int n_rules)
{
	fd_diags d;
	diags_init(&d);
	fd_session_options o = { .model_path = model, .rule_paths = rules, .n_rule_paths = n_rules, .no_env = true };
	int rc = session_open(s, &o, &d);
	print_diags(&d);
	assert_int_equal(rc, 0);
	diags_release(&d);
}

static void copy_file(const char *from, const char *to)
{
	size_t n;
	fd_diags d;
	diags_init(&d);
	char *text = input_file_read_all(from, &n, &d);
	diags_release(&d);
	assert_non_null(text);
	FILE *f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
	free(text);
}

/* session_rebind; the first message into err. */
static int rebind(fd_session *s, const char *name, int64_t v, char *err, size_t size)
{
	fd_diags d;
	diags_init(&d);
	int rc = session_rebind(s, name, v, &d);
	err[0] = '\0';
	if (d.n)
		snprintf(err, size, "%s", d.items[0].message);
	diags_release(&d);
	return rc;
}

/* A model re-exported under the same name after it was opened is refused,
 * said so, and the session keeps the model it had. */
static void test_rebind_refuses_a_changed_model(void **state)
{
	(void)state;
	char model[128], err[512];
	snprintf(model, sizeof model, "%s/model.onnx", dir);
	copy_file("samples/symbolic_batch.onnx", model);
	const char *rules[] = { "rules" };
	fd_session s;
	open_session(&s, model, rules, 1);
	int32_t nodes = s.model.graphs[0].n_nodes;
	int64_t peak = s.current_est.graphs[0].after.peak_bytes;

	copy_file("samples/transformer_dyn_seq.onnx", model);   /* re-exported meanwhile */
	assert_int_equal(rebind(&s, "batch", 4, err, sizeof err), -1);
	assert_non_null(strstr(err, "the model file changed since it was opened"));
	assert_int_equal(s.model.graphs[0].n_nodes, nodes);
	assert_true(s.current_est.graphs[0].after.peak_bytes == peak);

	/* written again, even with the same bytes, it is another file to stat:
	 * the session never reads a model's bytes twice to tell */
	copy_file("samples/symbolic_batch.onnx", model);
	assert_int_equal(rebind(&s, "batch", 4, err, sizeof err), -1);
	assert_int_equal(s.model.graphs[0].n_nodes, nodes);
	session_close(&s);
}

/* The peak after fusion of a session opened with batch=value. */
static int64_t fresh_peak(const char *model, const char *rules, int64_t value)
{
	fd_dim_binding bind = { "batch", value };
	fd_session_options o = { .model_path = model, .rule_paths = &rules, .n_rule_paths = 1, .no_env = true };
	o.load.dims = &bind;
	o.load.n_dims = 1;
	fd_session s;
	fd_diags d;
	diags_init(&d);
	int rc = session_open(&s, &o, &d);
	print_diags(&d);
	diags_release(&d);
	assert_int_equal(rc, 0);
	int64_t peak = s.current_est.graphs[0].after.peak_bytes;
	session_close(&s);
	return peak;
}

/* ConvNeXt under onnxruntime's rules: the transpose optimizer cancels its
 * Transposes, so the graph the rules see is a rewrite of the model as read.
 * Binding batch gives the figures of a session opened with it, both ways. */
static void test_rebind_after_the_transpose_optimizer(void **state)
{
	(void)state;
	static const char model[] = "tests/data/torch/torch_convnext_opset13.onnx";
	static const char *rules[] = { "rules/onnxruntime" };
	fd_session s;
	open_session(&s, model, rules, 1);
	assert_true(s.tpose.changed);
	char err[512];
	for (int64_t v = 2; v >= 1; v--) {
		assert_int_equal(rebind(&s, "batch", v, err, sizeof err), 0);
		const fd_binding_diff *bd = session_binding_diff(&s);
		assert_non_null(bd);
		assert_true(bd->peak_new_bytes > 0);
		assert_true(bd->peak_new_bytes == fresh_peak(model, rules[0], v));
		assert_true(s.current_est.graphs[0].after.peak_bytes == bd->peak_new_bytes);
	}
	session_close(&s);
}

/* The diff's baseline is the rules as loaded, rebound: an edit, then a
 * binding, diffs as a session opened with the binding and given the same
 * edit (symbolic_batch at batch=128: the output limit raised to 64 MiB lets
 * Conv_Add_SiLU_Fusion fire, peak 96 -> 64 MiB); undoing the edit leaves
 * nothing to diff. */
static void test_rebind_keeps_the_rules_as_loaded(void **state)
{
	(void)state;
	static const char model[] = "samples/symbolic_batch.onnx";
	static const char *rules[] = { "rules" };
	static const char edit[] = "Conv_Add_SiLU_Fusion.constraints.memory_limit.max_output_size=64MiB";
	fd_session s;
	open_session(&s, model, rules, 1);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_set_spec(&s, edit, &d), 0);
	diags_release(&d);
	char err[512];
	assert_int_equal(rebind(&s, "batch", 128, err, sizeof err), 0);
	fd_session_diff df;
	assert_int_equal(session_diff(&s, &df), 0);
	assert_int_equal(df.n_gained, 1);
	assert_int_equal(df.n_lost, 0);
	assert_int_equal(df.peak_before_bytes, 96 << 20);
	assert_int_equal(df.peak_after_bytes, 64 << 20);
	session_diff_release(&df);
	diags_init(&d);
	assert_int_equal(session_undo(&s, &d), 0);
	diags_release(&d);
	assert_int_equal(session_diff(&s, &df), 0);
	assert_int_equal(df.n_gained + df.n_lost + df.n_changed, 0);
	session_diff_release(&df);
	session_close(&s);
}

/* A rule its own file turns off and the fusion switch file turns on stays
 * on through an edit of another field and a rebind, in the rules now and
 * in the baseline (the rules as loaded, the switch file applied). */
static void test_rebind_keeps_the_switch_file(void **state)
{
	(void)state;
	char rule[128], sw[128], cmd[512];
	snprintf(rule, sizeof rule, "%s/silu_off.yaml", dir);
	snprintf(sw, sizeof sw, "%s/on.cfg", dir);
	snprintf(cmd, sizeof cmd, "sed 's/^priority: 150/priority: 150\\nenabled: false/' rules/conv_add_silu_fusion.yaml >%s && "
	         "echo Conv_Add_SiLU_Fusion:on >%s", rule, sw);
	assert_int_equal(system(cmd), 0);
	const char *rules[] = { rule };
	fd_diags d;
	diags_init(&d);
	fd_session s;
	fd_session_options o = { .model_path = "samples/symbolic_batch.onnx", .rule_paths = rules, .n_rule_paths = 1,
	                         .no_env = true, .fusion_switch = sw };
	assert_int_equal(session_open(&s, &o, &d), 0);
	assert_int_equal(session_set_spec(&s, "Conv_Add_SiLU_Fusion.priority=151", &d), 0);
	print_diags(&d);
	diags_release(&d);
	assert_true(s.rules.rules[0].enabled);
	char err[512];
	assert_int_equal(rebind(&s, "batch", 8, err, sizeof err), 0);
	assert_true(s.rules.rules[0].enabled);
	assert_int_equal(s.current.n_fusions, 1);
	assert_int_equal(session_baseline(&s)->n_fusions, 1);
	session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebind_refuses_a_changed_model),
		cmocka_unit_test(test_rebind_after_the_transpose_optimizer),
		cmocka_unit_test(test_rebind_keeps_the_rules_as_loaded),
		cmocka_unit_test(test_rebind_keeps_the_switch_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
