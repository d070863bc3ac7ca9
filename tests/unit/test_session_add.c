/* test_session_add.c — a rule file added as a what-if
 * (session_add_rule_file) and the rule of a chain (suggest_chain), on
 * samples/conv_add_silu.onnx with a copy of samples/rules: the added rule
 * fires (the diff counts its fusions), undo takes it out and redo puts it
 * back, an edit of its values and the file itself are saved, the file is
 * created new and never written over (one that appeared since the add is
 * left as it is and the rule stays unsaved), and adds that cannot be are
 * refused with nothing changed. The chain's rule comes from those nodes
 * alone, in either order; a chain that cannot be fused (a node of it fused,
 * a fusion on the path, one node) is refused with the node named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "session_fixture.h"
#include "suggest/suggest.h"

static char dir[64];
static const char *MODEL = "samples/conv_add_silu.onnx";

static int setup_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/fd_add_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char cmd[256];
	snprintf(cmd, sizeof cmd, "cp -r samples/rules %s/r", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void open_copy(fd_session *s)
{
	static char rules[128];   /* the session keeps the paths it was given */
	static const char *paths[1];
	snprintf(rules, sizeof rules, "%s/r", dir);
	paths[0] = rules;
	open_session(s, MODEL, paths, 1);
}

static int32_t node_named(const fd_session *s, const char *name)
{
	const fd_graph *g = &session_model(s)->graphs[0];
	for (int32_t i = 0; i < g->n_nodes; i++)
		if (!strcmp(g->nodes[i].name, name))
			return i;
	fail_msg("no node %s", name);
	return -1;
}

/* Pattern 1's rule as the session's rules leave the model. */
static char *first_rule(fd_session *s)
{
	fd_suggest sg;
	suggest_init(&sg);
	fd_diags d;
	diags_init(&d);
	fd_suggest_options o = { 0 };
	assert_int_equal(suggest_run(&sg, &s->current_rounds, &s->rules, &o, &d), 0);
	assert_true(sg.n >= 1);
	char *yaml = xstrdup(sg.patterns[0].rule_yaml);
	diags_release(&d);
	suggest_release(&sg);
	return yaml;
}

static size_t gained(const fd_session *s)
{
	fd_session_diff df;
	session_diff(s, &df);
	size_t n = df.n_gained;
	session_diff_release(&df);
	return n;
}

static void test_add_undo_redo_save(void **state)
{
	(void)state;
	fd_session s;
	open_copy(&s);
	int32_t n0 = s.rules.n_rules;
	char *yaml = first_rule(&s);
	char path[256];
	session_new_rule_path(&s, "added_rule", path, sizeof path);
	char want[256];
	snprintf(want, sizeof want, "%s/r/added_rule.yaml", dir);
	assert_string_equal(path, want);

	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_add_rule_file(&s, path, yaml, &d), 0);
	assert_int_equal(s.rules.n_rules, n0 + 1);
	assert_int_equal(session_unsaved(&s), 1);
	/* pattern 1, Sigmoid -> Mul, fires on all three pairs: mul2
	 * reads its inputs the other way round, which the rule matches too */
	assert_int_equal(gained(&s), 3);
	assert_true(access(path, F_OK) != 0);   /* a what-if: nothing on disk yet */

	assert_int_equal(session_undo(&s, &d), 0);
	assert_int_equal(s.rules.n_rules, n0);
	assert_int_equal(session_unsaved(&s), 0);
	assert_int_equal(gained(&s), 0);
	assert_int_equal(session_redo(&s, &d), 0);
	assert_int_equal(s.rules.n_rules, n0 + 1);
	assert_int_equal(gained(&s), 3);

	char spec[256];
	snprintf(spec, sizeof spec, "%s.priority=98", s.rules.rules[n0].name);
	assert_int_equal(set(&s, spec, NULL, 0), 0);
	assert_int_equal(session_unsaved(&s), 2);
	fd_save_report rep;
	int rc = session_save_report(&s, &rep, &d);
	print_diags(&d);
	assert_true(rc >= 0);
	assert_int_equal(rep.files_written, 2);   /* created, then its value saved */
	assert_int_equal(session_unsaved(&s), 0);
	char *text = slurp(path, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "priority: 98\n"));
	free(text);
	diags_release(&d);
	session_close(&s);

	/* read back as a rule file of the set: the same rule, fused the same */
	open_copy(&s);
	assert_int_equal(s.rules.n_rules, n0 + 1);
	assert_int_equal(s.rules.rules[ruleset_find(&s.rules, "Suggested_Sigmoid_Mul_Fusion")].priority, 98);
	session_close(&s);
	unlink(path);
	free(yaml);
}

static void test_save_never_overwrites(void **state)
{
	(void)state;
	fd_session s;
	open_copy(&s);
	char *yaml = first_rule(&s);
	char path[256];
	session_new_rule_path(&s, "late", path, sizeof path);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_add_rule_file(&s, path, yaml, &d), 0);
	spit(path, "# someone else's file\n");   /* appeared after the add */
	fd_save_report rep;
	assert_int_equal(session_save_report(&s, &rep, &d), -1);
	assert_int_equal(rep.files_refused, 1);
	assert_int_equal(rep.files_written, 0);
	bool said = false;
	for (size_t i = 0; i < d.n; i++)
		said |= d.items[i].severity == DIAG_ERROR && strstr(d.items[i].message, "exists: not overwritten");
	assert_true(said);
	char *text = slurp(path, NULL);
	assert_string_equal(text, "# someone else's file\n");
	free(text);
	assert_int_equal(session_unsaved(&s), 1);
	char tmp[300];
	snprintf(tmp, sizeof tmp, "ls %s/r/*.tmp.* >/dev/null 2>&1", dir);
	assert_int_not_equal(system(tmp), 0);   /* no temporary file left */
	diags_release(&d);
	session_close(&s);
	unlink(path);
	free(yaml);
}

static void refused(fd_session *s, const char *path, const char *text, const char *words)
{
	fd_diags d;
	diags_init(&d);
	int32_t n = s->rules.n_rules;
	size_t edits = s->n_edits;
	assert_int_equal(session_add_rule_file(s, path, text, &d), -1);
	assert_true(d.n > 0);
	if (!strstr(d.items[0].message, words))
		fail_msg("'%s' does not say '%s'", d.items[0].message, words);
	assert_int_equal(s->rules.n_rules, n);
	assert_int_equal(s->n_edits, edits);
	diags_release(&d);
}

static void test_refused(void **state)
{
	(void)state;
	fd_session s;
	open_copy(&s);
	char *yaml = first_rule(&s);
	char path[256], taken[8192];
	snprintf(path, sizeof path, "%s/r/matmul_bias_gelu.yaml", dir);
	refused(&s, path, yaml, "exists: not overwritten");
	snprintf(path, sizeof path, "%s/r/new.yaml", dir);
	refused(&s, path, "name: [unclosed\n", "");
	/* the same rule under the name of a rule of the set */
	const char *line = strstr(yaml, "\nname: ");
	assert_non_null(line);
	snprintf(taken, sizeof taken, "%.*s\nname: \"Conv_BiasAdd_SiLU_Fusion\"%s", (int)(line - yaml), yaml,
	         strchr(line + 1, '\n'));
	refused(&s, path, taken, "in the set already");
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_add_rule_file(&s, path, yaml, &d), 0);
	diags_release(&d);
	refused(&s, path, yaml, "is a rule file of this session");
	session_close(&s);
	free(yaml);
}

static int chain(fd_session *s, const char *a, const char *b, fd_suggest *sg, char *err, size_t size)
{
	fd_diags d;
	diags_init(&d);
	suggest_init(sg);
	fd_suggest_options o = { 0 };
	int rc = suggest_chain(sg, &s->current_rounds, &s->rules, &o, 0, node_named(s, a), node_named(s, b), &d);
	snprintf(err, size, "%s", d.n ? d.items[0].message : "");
	diags_release(&d);
	return rc;
}

static void test_chain(void **state)
{
	(void)state;
	fd_session s;
	open_copy(&s);
	char err[512];
	const char *ends[2][2] = { { "sigmoid2", "mul2" }, { "mul2", "sigmoid2" } };
	for (int k = 0; k < 2; k++) {
		fd_suggest sg;
		assert_int_equal(chain(&s, ends[k][0], ends[k][1], &sg, err, sizeof err), 0);
		assert_int_equal(sg.n, 1);
		const fd_suggest_pattern *p = &sg.patterns[0];
		assert_int_equal(p->n_ops, 2);
		assert_int_equal(p->n_instances, 1);
		assert_true(p->verified);
		assert_int_equal(p->instances[0].nodes[0], node_named(&s, "sigmoid2"));
		assert_int_equal(p->instances[0].nodes[1], node_named(&s, "mul2"));
		assert_string_equal(p->title, "Sigmoid -> Mul");
		suggest_release(&sg);
	}
	static const struct { const char *a, *b, *words; } bad[] = {
		{ "conv1", "mul1", "'conv1' is fused already" },
		{ "sigmoid1", "mul2", "'fused_conv2' on the path is a fusion the rules made" },
		{ "sigmoid2", "sigmoid2", "needs two nodes" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		fd_suggest sg;
		assert_int_equal(chain(&s, bad[k].a, bad[k].b, &sg, err, sizeof err), -1);
		if (!strstr(err, bad[k].words))
			fail_msg("'%s' does not say '%s'", err, bad[k].words);
		suggest_release(&sg);
	}
	session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_undo_redo_save),
		cmocka_unit_test(test_save_never_overwrites),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_chain),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
