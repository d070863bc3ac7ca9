/* test_session.c — the what-if session on samples/conv_bn_relu.onnx and
 * samples/priority_conflict.onnx with copies of the shipped rules in a temp
 * directory: edits and their checks, undo / redo, the diff, write-back that
 * changes only the edited value's bytes, an added key as one line, saves
 * that fail (a directory that cannot take a temp file, a simulated full
 * disk, a file changed on disk) leaving the file byte-identical and the edit
 * in memory, the .orig backup, and the recovery file round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "session/session.h"
#include "base/atomic_file.h"
#include "base/strbuf.h"
#include "session_fixture.h"
#include "test_models.h"

static char dir[64];
static char rules_path[128];
static char *orig_text;
static size_t orig_size;

static int setup(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/fd_session_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(rules_path, sizeof rules_path, "%s/conv_bn_relu_fusion.yaml", dir);
	orig_text = slurp("rules/conv_bn_relu_fusion.yaml", &orig_size);
	if (!orig_text)
		return -1;
	spit(rules_path, orig_text);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return -1;
	free(orig_text);
	return 0;
}

/* A fresh copy of the shipped rule for each test. */
static void reset_rules(void)
{
	spit(rules_path, orig_text);
	char orig[160];
	snprintf(orig, sizeof orig, "%s.orig", rules_path);
	unlink(orig);
}

static const char *one_rule[1];

/* A session on a fresh copy of the shipped Conv_BN_Relu rule. */
static void open_fresh(fd_session *s)
{
	reset_rules();
	one_rule[0] = rules_path;
	open_session(s, "samples/conv_bn_relu.onnx", one_rule, 1);
}

/* The offsets of priority's value in the original text ("200"). */
static void value_span(const char *text, const char *key_line, size_t *start, size_t *end)
{
	const char *p = strstr(text, key_line);
	assert_non_null(p);
	p += strlen(key_line);
	*start = (size_t)(p - text);
	*end = *start;
	while (text[*end] && text[*end] != '\n' && text[*end] != ' ')
		(*end)++;
}

static void test_edit_checks(void **state)
{
	fd_session s;
	open_fresh(&s);
	char err[512];
	assert_int_equal(s.current.n_fusions, 1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=abc", err, sizeof err), -1);
	assert_non_null(strstr(err, "integer"));
	assert_int_equal(set(&s, "Nope.priority=1", err, sizeof err), -1);
	assert_non_null(strstr(err, "no rule named 'Nope'"));
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.match.ops.0.params.nope=1", err, sizeof err), -1);
	assert_non_null(strstr(err, "no param 'nope'"));
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.workspace_size.max_workspace=1MiB", err, sizeof err), -1);
	assert_non_null(strstr(err, "no entry of type 'workspace_size'"));
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.memory_limit.max_intermediate_size=lots", err, sizeof err), -1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.channel_divisibility.divisor=0", err, sizeof err), -1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.frobnicate=1", err, sizeof err), -1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.name=Other", err, sizeof err), -1);
	assert_int_equal(s.n_edits, 0);
	assert_int_equal(session_unsaved(&s), 0);

	/* a size with units; the limit is below the 64 KiB intermediates, so the rule stops firing */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.memory_limit.max_intermediate_size=16KiB", err, sizeof err), 0);
	assert_int_equal(s.rules.rules[0].constraints[1].max_intermediate_size, 16384);
	assert_int_equal(s.current.n_fusions, 0);
	/* by index too */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.1.max_intermediate_size=64MiB", err, sizeof err), 0);
	assert_int_equal(s.rules.rules[0].constraints[1].max_intermediate_size, 64 << 20);
	assert_int_equal(s.current.n_fusions, 1);
	/* a param, and a list */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.match.ops.1.params.epsilon=0.5", err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 0);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.dtype_match.allowed_dtypes=[float16]", err, sizeof err), 0);
	char buf[128];
	assert_true(session_get(&s, 0, "constraints.dtype_match.allowed_dtypes", buf, sizeof buf));
	assert_string_equal(buf, "[float16]");
	assert_true(session_get(&s, 0, "enabled", buf, sizeof buf));
	assert_string_equal(buf, "true");
	assert_string_equal(session_path_type(&s, 0, "constraints.memory_limit.max_output_size"),
	                    "size (64MiB, 1.5GiB, 33554432)");
	assert_int_equal(session_unsaved(&s), 3);
	session_close(&s);
}

/* The work of one edit, counted by the session (s->work) from zero. */
static void expect_work(fd_session *s, size_t paths, size_t derives, size_t lints)
{
	assert_int_equal(s->work.paths, paths);
	assert_int_equal(s->work.derives, derives);
	assert_int_equal(s->work.lints, lints);
	memset(&s->work, 0, sizeof s->work);
}

/* One edit reads its path once and derives and lints the rule once; only
 * a rule that has findings already is judged again as it was, so that
 * those findings do not refuse the edit while a new one does. */
static void test_edit_reads_once(void **state)
{
	fd_session s;
	open_fresh(&s);
	char err[512];
	memset(&s.work, 0, sizeof s.work);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=250", err, sizeof err), 0);
	expect_work(&s, 1, 1, 1);
	/* a path in short (ops. for match.ops.), and a map the document lacks: one reading */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.ops.1.params.epsilon=0.5", err, sizeof err), 0);
	expect_work(&s, 1, 1, 1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.match.ops.2.outputs.count=1", err, sizeof err), 0);
	expect_work(&s, 1, 1, 1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=abc", err, sizeof err), -1);
	expect_work(&s, 1, 1, 0);   /* the schema refuses it: no lint */
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_undo(&s, &d), 0);
	expect_work(&s, 1, 1, 1);
	assert_int_equal(session_redo(&s, &d), 0);
	expect_work(&s, 1, 1, 1);
	diags_release(&d);
	session_close(&s);

	/* an unknown key (a schema warning) and a param Relu does not have (a lint error) */
	char *text = xstrdup(orig_text);
	char *relu = strstr(text, "    - type: \"Relu\"");
	assert_non_null(relu);
	relu[0] = '\0';
	strbuf with = { 0 };
	sb_printf(&with, "frobnicate: 1\n%s    - type: \"Relu\"\n      params: {clip_max: 0.0}\n%s", text,
	          strchr(relu + 1, '\n') + 1);
	spit(rules_path, sb_str(&with));
	sb_release(&with);
	free(text);
	open_session(&s, "samples/conv_bn_relu.onnx", one_rule, 1);
	memset(&s.work, 0, sizeof s.work);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=250", err, sizeof err), 0);
	expect_work(&s, 1, 2, 2);
	assert_int_equal(s.rules.rules[0].priority, 250);
	/* a new finding is the edit's: refused with check's message */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.match.ops.2.params.alpha=1", err, sizeof err), -1);
	assert_non_null(strstr(err, "Relu has no param 'alpha'"));
	expect_work(&s, 1, 2, 2);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.nothing_known=1", err, sizeof err), -1);
	assert_int_equal(s.n_edits, 1);
	session_close(&s);
	reset_rules();
}

/* opt.background: session_open returns with the model and rules loaded and
 * the first run on a thread; held by the test hook it cannot be done, once
 * released and waited for the session is the one a plain open makes. */
static void test_background_first_run(void **state)
{
	fd_session plain, bg;
	open_fresh(&plain);
	reset_rules();
	fd_diags d;
	diags_init(&d);
	fd_session_options o = { .model_path = "samples/conv_bn_relu.onnx", .rule_paths = one_rule, .n_rule_paths = 1,
	                         .no_env = true, .background = true };
	session_test_hold_first_run(true);
	assert_int_equal(session_open(&bg, &o, &d), 0);
	session_test_hold_first_run(false);
	assert_int_equal(bg.model.graphs[0].n_nodes, plain.model.graphs[0].n_nodes);
	assert_int_equal(bg.rules.n_rules, plain.rules.n_rules);
	assert_false(session_first_run_done(&bg));
	session_test_release_first_run(&bg);
	assert_int_equal(session_first_run_wait(&bg, &d), 0);
	assert_true(session_first_run_done(&bg));
	assert_int_equal(session_first_run_wait(&bg, &d), 0);   /* once more: nothing to wait for */
	assert_int_equal(session_result(&bg)->n_fusions, session_result(&plain)->n_fusions);
	assert_int_equal(session_result(&bg)->trace.n_events, session_result(&plain)->trace.n_events);
	/* the shapes, inferred on the thread, are the ones the plain load inferred */
	const fd_graph *gb = &bg.model.graphs[0], *gp = &plain.model.graphs[0];
	assert_int_equal(gb->n_tensors, gp->n_tensors);
	for (int32_t t = 0; t < gb->n_tensors; t++) {
		assert_int_equal(gb->tensors[t].dtype, gp->tensors[t].dtype);
		assert_int_equal(gb->tensors[t].shape.rank, gp->tensors[t].shape.rank);
		for (int32_t k = 0; k < gb->tensors[t].shape.rank; k++)
			assert_true(gb->tensors[t].shape.dims[k].value == gp->tensors[t].shape.dims[k].value);
	}
	assert_true(gp->tensors[gp->n_tensors - 1].shape.rank > 0);   /* shapes there to compare */
	session_close(&bg);
	/* closed while still held: released and waited for, nothing leaks */
	session_test_hold_first_run(true);
	assert_int_equal(session_open(&bg, &o, &d), 0);
	session_test_hold_first_run(false);
	session_close(&bg);
	diags_release(&d);
	session_close(&plain);
}

/* The same on real exports with the shipped rules: the first run behind the
 * screen (shapes inferred on its thread) finds what a plain open finds. */
static void test_background_on_shared_models(void **state)
{
	(void)state;
	static const char *const names[] = { "light_resnet50.onnx", "pan_mobilenetv3_seg.onnx",
	                                     "tiny_distilbert_sst2.onnx" };
	static const char *const shipped[] = { "rules" };
	char path[512];
	NEED_MODEL(model_path(path, sizeof path, names[0]));
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		model_path(path, sizeof path, names[k]);
		fd_session plain, bg;
		fd_diags d;
		diags_init(&d);
		fd_session_options o = { .model_path = path, .rule_paths = shipped, .n_rule_paths = 1, .no_env = true };
		assert_int_equal(session_open(&plain, &o, &d), 0);
		o.background = true;
		assert_int_equal(session_open(&bg, &o, &d), 0);
		assert_int_equal(session_first_run_wait(&bg, &d), 0);
		assert_int_equal(session_result(&bg)->n_fusions, session_result(&plain)->n_fusions);
		assert_int_equal(session_result(&bg)->trace.n_events, session_result(&plain)->trace.n_events);
		assert_true(session_estimate(&bg)->graphs[0].after.peak_bytes == session_estimate(&plain)->graphs[0].after.peak_bytes);
		assert_true(session_estimate(&bg)->graphs[0].before.peak_bytes == session_estimate(&plain)->graphs[0].before.peak_bytes);
		const fd_graph *gb = &bg.model.graphs[0], *gp = &plain.model.graphs[0];
		for (int32_t t = 0; t < gp->n_tensors; t++) {
			assert_int_equal(gb->tensors[t].shape.rank, gp->tensors[t].shape.rank);
			for (int32_t i = 0; i < gp->tensors[t].shape.rank; i++)
				assert_true(gb->tensors[t].shape.dims[i].value == gp->tensors[t].shape.dims[i].value);
		}
		session_close(&bg);
		session_close(&plain);
		diags_release(&d);
	}
}

/* + and - saturate at the int64 limits: no wrap to the other sign. */
static void test_priority_saturates(void **state)
{
	fd_session s;
	open_fresh(&s);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=9223372036854775800", NULL, 0), 0);
	assert_int_equal(session_bump_priority(&s, 0, 10, &d), 0);
	assert_true(s.rules.rules[0].priority == INT64_MAX);
	assert_int_equal(session_bump_priority(&s, 0, 10, &d), -1);
	assert_non_null(strstr(d.items[0].message, "already the highest"));
	assert_true(s.rules.rules[0].priority == INT64_MAX);
	assert_int_equal(session_bump_priority(&s, 0, -10, &d), 0);
	assert_true(s.rules.rules[0].priority == INT64_MAX - 10);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=-9223372036854775805", NULL, 0), 0);
	assert_int_equal(session_bump_priority(&s, 0, -10, &d), 0);
	assert_true(s.rules.rules[0].priority == INT64_MIN);
	assert_int_equal(session_bump_priority(&s, 0, -10, &d), -1);
	assert_true(s.rules.rules[0].priority == INT64_MIN);
	diags_release(&d);
	session_close(&s);
}

static void test_undo_redo_diff(void **state)
{
	reset_rules();
	const char *rules[] = { "rules", "samples/rules" };
	fd_session s;
	open_session(&s, "samples/priority_conflict.onnx", rules, 2);
	int32_t bn = ruleset_find(&s.rules, "BN_Relu_Fusion");
	int32_t cbr = ruleset_find(&s.rules, "Conv_BN_Relu_Fusion");
	assert_true(bn >= 0 && cbr >= 0);
	size_t fired0 = s.current.n_fusions;
	int64_t cbr_fired0 = s.current.stats[cbr].effect_times;
	assert_true(cbr_fired0 > 0);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_bump_priority(&s, bn, 400, &d), 0);
	fd_session_diff df;
	session_diff(&s, &df);
	assert_true(df.n_changed >= 1);
	assert_true(s.current.stats[cbr].effect_times < cbr_fired0);
	session_diff_release(&df);
	assert_int_equal(session_toggle_enabled(&s, bn, &d), 0);
	assert_false(s.rules.rules[bn].enabled);
	assert_int_equal(s.current.stats[bn].effect_times, 0);
	assert_int_equal(s.current.stats[cbr].effect_times, cbr_fired0);
	assert_int_equal(s.n_edits, 2);

	assert_true(session_can_undo(&s));
	assert_int_equal(session_undo(&s, &d), 0);          /* enabled back */
	assert_true(s.rules.rules[bn].enabled);
	assert_int_equal(s.rules.rules[bn].priority, 100 + 400);
	assert_int_equal(session_undo(&s, &d), 0);          /* priority back */
	assert_int_equal(s.rules.rules[bn].priority, 100);
	assert_false(session_can_undo(&s));
	assert_int_equal(session_undo(&s, &d), -1);
	assert_int_equal(s.current.n_fusions, fired0);
	session_diff(&s, &df);
	assert_int_equal(df.n_gained + df.n_lost + df.n_changed, 0);
	assert_int_equal(df.n_rules, 0);
	session_diff_release(&df);
	assert_int_equal(session_unsaved(&s), 0);

	assert_true(session_can_redo(&s));
	assert_int_equal(session_redo(&s, &d), 0);
	assert_int_equal(s.rules.rules[bn].priority, 500);
	assert_int_equal(session_redo(&s, &d), 0);
	assert_false(s.rules.rules[bn].enabled);
	assert_int_equal(session_redo(&s, &d), -1);
	/* a new edit drops the redo tail */
	assert_int_equal(session_undo(&s, &d), 0);
	assert_int_equal(set(&s, "BN_Relu_Fusion.priority=7", NULL, 0), 0);
	assert_false(session_can_redo(&s));
	assert_int_equal(s.n_edits, 2);
	diags_release(&d);
	session_close(&s);
}

static void test_save_only_the_value(void **state)
{
	fd_session s;
	open_fresh(&s);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=250", NULL, 0), 0);
	assert_int_equal(session_unsaved(&s), 1);
	assert_int_equal(session_save(&s, &d), 1);
	print_diags(&d);
	assert_int_equal(d.errors, 0);
	assert_int_equal(session_unsaved(&s), 0);

	size_t start, end, size;
	value_span(orig_text, "\npriority: ", &start, &end);
	char expect[8192];
	snprintf(expect, sizeof expect, "%.*s250%s", (int)start, orig_text, orig_text + end);
	char *now = slurp(rules_path, &size);
	assert_string_equal(now, expect);
	free(now);
	/* the backup holds the original bytes */
	char orig[160];
	snprintf(orig, sizeof orig, "%s.orig", rules_path);
	char *bak = slurp(orig, &size);
	assert_non_null(bak);
	assert_int_equal(size, orig_size);
	assert_memory_equal(bak, orig_text, size);
	free(bak);

	/* a second edit after the first save: offsets moved, still exact; the
	 * backup is not overwritten */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.memory_limit.max_output_size=8MiB", NULL, 0), 0);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=260", NULL, 0), 0);
	assert_int_equal(session_save(&s, &d), 1);
	assert_int_equal(d.errors, 0);
	char step1[8192];
	snprintf(step1, sizeof step1, "%.*s260%s", (int)start, orig_text, orig_text + end);
	value_span(step1, "max_output_size: ", &start, &end);
	/* the file writes sizes as integers (the seed format): 8MiB in bytes */
	snprintf(expect, sizeof expect, "%.*s8388608%s", (int)start, step1, step1 + end);
	now = slurp(rules_path, &size);
	assert_string_equal(now, expect);
	free(now);
	bak = slurp(orig, &size);
	assert_int_equal(size, orig_size);
	free(bak);
	/* the positions the rule reports are the file's again */
	assert_int_equal(s.rules.rules[0].priority, 260);
	assert_int_equal(s.rules.rules[0].priority_where->pos.line, 13);
	diags_release(&d);
	session_close(&s);
}

static void test_save_added_keys(void **state)
{
	fd_session s;
	open_fresh(&s);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_toggle_enabled(&s, 0, &d), 0);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.match.ops.2.params.alpha=0.5", NULL, 0), -1);  /* Relu has no alpha */
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.match.ops.0.params.groups=1", NULL, 0), 0);
	assert_int_equal(session_save(&s, &d), 1);
	print_diags(&d);
	assert_int_equal(d.errors, 0);
	size_t size;
	char *now = slurp(rules_path, &size);
	/* "enabled: false" is one new line after priority; groups one line in op 0's params */
	char expect[8192];
	const char *pr = strstr(orig_text, "\npriority: 200\n") + strlen("\npriority: 200\n");
	const char *act = strstr(orig_text, "activation_type: \"none\"\n") + strlen("activation_type: \"none\"\n");
	snprintf(expect, sizeof expect, "%.*senabled: false\n%.*s        groups: 1\n%s", (int)(pr - orig_text), orig_text,
	         (int)(act - pr), pr, act);
	assert_string_equal(now, expect);
	free(now);
	/* reloaded from the file, the rule is disabled */
	session_close(&s);
	open_session(&s, "samples/conv_bn_relu.onnx", one_rule, 1);
	assert_false(s.rules.rules[0].enabled);
	assert_int_equal(s.current.n_fusions, 0);
	/* and enabling it again writes true in place */
	assert_int_equal(session_toggle_enabled(&s, 0, &d), 0);
	assert_int_equal(s.current.n_fusions, 1);
	assert_int_equal(session_save(&s, &d), 1);
	now = slurp(rules_path, &size);
	assert_non_null(strstr(now, "\npriority: 200\nenabled: true\nscope:"));
	free(now);
	diags_release(&d);
	session_close(&s);
}

static void test_save_failures_keep_file(void **state)
{
	reset_rules();
	/* the rules read through /proc/self/fd/N: a temp file cannot be made
	 * next to it, even as root */
	int fd = open(rules_path, O_RDONLY);
	assert_true(fd >= 0);
	char proc_path[64];
	snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
	fd_session s;
	one_rule[0] = proc_path;
	open_session(&s, "samples/conv_bn_relu.onnx", one_rule, 1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=251", NULL, 0), 0);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_save(&s, &d), -1);
	assert_int_equal(d.errors, 1);
	assert_non_null(strstr(d.items[0].message, "cannot"));
	size_t size;
	char *now = slurp(rules_path, &size);
	assert_int_equal(size, orig_size);
	assert_memory_equal(now, orig_text, size);
	free(now);
	assert_int_equal(session_unsaved(&s), 1);
	assert_int_equal(s.rules.rules[0].priority, 251);
	session_close(&s);
	close(fd);

	/* a full disk, simulated: the write fails part-way */
	one_rule[0] = rules_path;
	open_session(&s, "samples/conv_bn_relu.onnx", one_rule, 1);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=252", NULL, 0), 0);
	diags_clear(&d);
	session_test_fail_writes(2, ENOSPC);   /* the .orig backup's write, then the file's */
	assert_int_equal(session_save(&s, &d), -1);
	session_test_fail_writes(0, 0);
	assert_non_null(strstr(d.items[0].message, "No space left on device"));
	now = slurp(rules_path, &size);
	assert_int_equal(size, orig_size);
	assert_memory_equal(now, orig_text, size);
	free(now);
	assert_int_equal(session_unsaved(&s), 1);
	/* no temp file left behind */
	char cmd[256];
	snprintf(cmd, sizeof cmd, "ls %s | grep -q tmp", dir);
	assert_int_not_equal(system(cmd), 0);

	/* a file changed on disk since it was read is not overwritten */
	char changed[8192];
	snprintf(changed, sizeof changed, "# someone else\n%s", orig_text);
	spit(rules_path, changed);
	diags_clear(&d);
	assert_int_equal(session_save(&s, &d), -1);
	assert_non_null(strstr(d.items[0].message, "changed on disk"));
	now = slurp(rules_path, &size);
	assert_string_equal(now, changed);
	free(now);
	assert_int_equal(session_unsaved(&s), 1);
	diags_release(&d);
	session_close(&s);
}

static void test_recovery_round_trip(void **state)
{
	fd_session s;
	open_fresh(&s);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.priority=42", NULL, 0), 0);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.constraints.memory_limit.max_intermediate_size=1KiB", NULL, 0), 0);
	assert_int_equal(set(&s, "Conv_BN_Relu_Fusion.enabled=false", NULL, 0), 0);
	char rec[160];
	snprintf(rec, sizeof rec, "%s/state/fusiondbg/recovery.txt", dir);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_write_recovery(&s, rec, &d), 0);
	print_diags(&d);
	session_close(&s);
	size_t size;
	char *text = slurp(rec, &size);
	assert_non_null(strstr(text, "set Conv_BN_Relu_Fusion.priority=42\n"));
	assert_non_null(strstr(text, "set Conv_BN_Relu_Fusion.enabled=false\n"));
	free(text);

	open_session(&s, "samples/conv_bn_relu.onnx", one_rule, 1);
	assert_int_equal(s.rules.rules[0].priority, 200);
	assert_int_equal(session_load_recovery(&s, rec, &d), 3);
	print_diags(&d);
	assert_int_equal(s.rules.rules[0].priority, 42);
	assert_int_equal(s.rules.rules[0].constraints[1].max_intermediate_size, 1024);
	assert_false(s.rules.rules[0].enabled);
	assert_int_equal(session_unsaved(&s), 3);
	assert_int_equal(s.current.n_fusions, 0);
	char path[256];
	assert_non_null(strstr(session_recovery_path(&s, path, sizeof path), "fusiondbg/recovery-"));
	/* the file on disk was never touched */
	text = slurp(rules_path, &size);
	assert_int_equal(size, orig_size);
	assert_memory_equal(text, orig_text, size);
	free(text);
	diags_release(&d);
	session_close(&s);
}

/* text with the nth (0-based) occurrence of from replaced by to (heap) */
static char *replace_nth(const char *text, const char *from, const char *to, int nth)
{
	const char *p = text;
	for (int i = 0; p && i <= nth; i++) {
		p = strstr(i ? p + 1 : p, from);
	}
	assert_non_null(p);
	size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);
	snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	return out;
}

/* Styles survive a save: a block list stays a block list with its quotes, a
 * flow list keeps its quotes, a block scalar becomes a quoted one-liner;
 * three documents of one file, one write. */
static void test_save_styles(void **state)
{
	size_t size;
	char *text = slurp("rules/attention.yaml", &size);
	char path[160];
	snprintf(path, sizeof path, "%s/attention.yaml", dir);
	spit(path, text);
	const char *rules[] = { path };
	fd_session s;
	open_session(&s, "samples/attention.onnx", rules, 1);
	assert_int_equal(set(&s, "Attention_QKV_Fusion.scope=[ai_core, vector_core]", NULL, 0), 0);
	assert_int_equal(set(&s, "Attention_ScoreV_Fusion.constraints.dtype_match.allowed_dtypes=[float16]", NULL, 0), 0);
	assert_int_equal(set(&s, "Attention_QK_Softmax_Fusion.description=new text: with colon", NULL, 0), 0);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_save(&s, &d), 1);
	print_diags(&d);
	char *a = replace_nth(text, "  - \"ai_core\"\n", "  - \"ai_core\"\n  - \"vector_core\"\n", 0);
	/* the third document's: the second allows bool too */
	char *b = replace_nth(a, "allowed_dtypes: [\"float16\", \"float32\"]", "allowed_dtypes: [\"float16\"]", 1);
	char *c = replace_nth(b, "description: |\n  Attention scores: MatMul(Q, K^T) -> (mask) -> Softmax over the last axis.",
	                      "description: \"new text: with colon\"", 0);
	char *now = slurp(path, &size);
	assert_string_equal(now, c);
	free(now);
	free(a);
	free(b);
	free(c);
	free(text);
	diags_release(&d);
	session_close(&s);
}

/* The language beyond the seed through what-if: each extension's field is
 * checked, changes the fusions, and is saved in place (a flow map's value,
 * a list, a new key), the rest of the file byte-identical. */
static void test_language_edits(void **state)
{
	(void)state;
	char lang[160], err[512];
	snprintf(lang, sizeof lang, "%s/conv_fold.yaml", dir);
	size_t size0;
	char *text0 = slurp("tests/data/lang/conv_fold.yaml", &size0);
	assert_non_null(text0);
	spit(lang, text0);
	fd_session s;
	const char *paths[1] = { lang };
	open_session(&s, "tests/data/lang/conv_fold.onnx", paths, 1);
	assert_int_equal(s.current.n_fusions, 5);
	/* a type list: Elu joins the activations (conv8) */
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.4.type=[Relu, Sigmoid, Tanh, LeakyRelu, HardSigmoid, Clip, Elu]",
	                     err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 6);
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.4.type=[Relu, Nope]", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown op type 'Nope'"));
	/* a shape list: a 1-D bias too (conv5) */
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.3.input_sources.input1.shape=[[C], [C, 1, 1], [1, C, 1, 1]]",
	                     err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 7);
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.3.input_sources.input1.shape=[C, -1]", err, sizeof err), -1);
	assert_non_null(strstr(err, "expected a dim"));
	/* position: any lets Mul(scale, conv) fold (conv4) */
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.2.input_sources.input1.position=any", err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 8);
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.2.input_sources.input1.position=first", err, sizeof err), -1);
	/* BatchNorm no longer optional: conv3..conv9 need one */
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.1.optional=false", err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 2);
	/* a where, a key op 0 does not have yet; a bad one names the character */
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.0.where=\"groups = 1\"", err, sizeof err), -1);
	assert_non_null(strstr(err, "'=' is not a comparison"));
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.0.where=\"groups == 2\"", err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 0);
	assert_int_equal(set(&s, "Conv_Fold_Act.match.ops.0.where=\"groups == 1 && rank(input0) == 4\"", err, sizeof err), 0);
	assert_int_equal(s.current.n_fusions, 2);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_save(&s, &d), 1);
	print_diags(&d);
	assert_int_equal(d.errors, 0);
	session_close(&s);
	/* the file: each value where it was, the new key one line, the comments kept */
	size_t size;
	char *now = slurp(lang, &size);
	assert_non_null(strstr(now, "# Conv with the folds and activations onnxruntime makes on CPU"));
	assert_non_null(strstr(now, "    - type: [Relu, Sigmoid, Tanh, LeakyRelu, HardSigmoid, Clip, Elu]\n"));
	assert_non_null(strstr(now, "shape: [[C], [C, 1, 1], [1, C, 1, 1]]}"));
	assert_non_null(strstr(now, "{source_type: const, position: any, shape: [[], [C, 1, 1], [1, C, 1, 1]]}"));
	assert_non_null(strstr(now, "      optional: false\n    - type: \"Mul\""));
	assert_non_null(strstr(now, "        input2: {source_type: const, optional: true}\n"
	                            "      where: \"groups == 1 && rank(input0) == 4\"\n"));
	free(now);
	/* and it reads back as edited */
	open_session(&s, "tests/data/lang/conv_fold.onnx", paths, 1);
	const fd_rule_op *ops = s.rules.rules[0].match.ops;
	assert_int_equal(ops[4].n_types, 7);
	assert_int_equal(ops[3].sources[0].n_shapes, 3);
	assert_false(ops[2].sources[0].fixed);
	assert_false(ops[1].optional);
	assert_int_equal(ops[0].n_where, 1);
	assert_int_equal(s.current.n_fusions, 2);
	session_close(&s);
	diags_release(&d);
	free(text0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_checks),
		cmocka_unit_test(test_edit_reads_once),
		cmocka_unit_test(test_priority_saturates),
		cmocka_unit_test(test_background_first_run),
		cmocka_unit_test(test_background_on_shared_models),
		cmocka_unit_test(test_undo_redo_diff),
		cmocka_unit_test(test_save_only_the_value),
		cmocka_unit_test(test_save_added_keys),
		cmocka_unit_test(test_save_failures_keep_file),
		cmocka_unit_test(test_recovery_round_trip),
		cmocka_unit_test(test_save_styles),
		cmocka_unit_test(test_language_edits),
	};
	return models_exit(cmocka_run_group_tests(tests, setup, teardown));
}
