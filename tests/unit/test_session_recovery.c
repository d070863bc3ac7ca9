/* test_session_recovery.c — recovery files are exact: keyed by the real
 * paths of the files (a session in another directory with the same
 * relative names is not offered them), one per running session (a second
 * session on the same files neither sees, replaces nor deletes the first's
 * while it runs; after the first is killed its edit is offered), refused
 * when a file changed since, never in a shared directory when HOME is not
 * set, and a rule whose name holds '=' or an LF replays. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/strbuf.h"
#include "session_fixture.h"

static char dir[64], root[4096], model[4200];

static const char RULE[] =
	"name: \"R\"\n"
	"priority: 10\n"
	"match:\n"
	"  ops:\n"
	"    - type: \"Conv2d\"\n"
	"    - type: \"Add\"\n"
	"rewrite:\n"
	"  target_op: \"X\"\n";

static int setup(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/fd_recovery_XXXXXX");
	if (!mkdtemp(dir) || !getcwd(root, sizeof root))
		return -1;
	snprintf(model, sizeof model, "%s/samples/conv_add_silu.onnx", root);
	char p[256];
	snprintf(p, sizeof p, "%s/state", dir);
	setenv("XDG_STATE_HOME", p, 1);
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/%c", dir, "AB"[i]);
		mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/%c/rules", dir, "AB"[i]);
		mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/%c/rules/r.yaml", dir, "AB"[i]);
		spit(p, RULE);
	}
	return 0;
}

static int teardown(void **state)
{
	if (chdir(root) < 0)
		return -1;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A session in dir/which on rules/r.yaml (relative, as a user types it). */
static void open_in(fd_session *s, char which)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%c", dir, which);
	assert_int_equal(chdir(p), 0);
	const char *rules[] = { "rules/r.yaml" };
	open_session(s, model, rules, 1);
}

static int found(const fd_session *s, const char *own, char *first, size_t size)
{
	char **paths;
	int n = session_find_recovery(s, own, &paths);
	if (first && n > 0)
		snprintf(first, size, "%s", paths[0]);
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return n;
}

/* A session that ends without saving, as a killed one does: the recovery
 * file stays, its lock goes. */
static void crash_after_edit(char which, const char *spec)
{
	fd_session s;
	open_in(&s, which);
	char path[4096];
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_recovery_claim(&s, path, sizeof path, &d), 0);
	assert_int_equal(set(&s, spec, NULL, 0), 0);
	assert_int_equal(session_write_recovery(&s, path, &d), 0);
	session_recovery_done(&s, path, false);
	diags_release(&d);
	session_close(&s);
}

static void clear_state(void)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf %s/state", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_keyed_by_real_paths(void **state)
{
	clear_state();
	crash_after_edit('A', "R.priority=33");
	fd_session s;
	open_in(&s, 'B');   /* the same relative names, another project */
	assert_int_equal(found(&s, NULL, NULL, 0), 0);
	session_close(&s);
	open_in(&s, 'A');
	char first[4096];
	assert_int_equal(found(&s, NULL, first, sizeof first), 1);
	fd_diags d;
	diags_init(&d);
	fd_recovery rec;
	assert_int_equal(session_read_recovery(&s, first, &rec, &d), 0);
	assert_int_equal(rec.n_files, 2);
	assert_true(rec.files[0].model && !rec.files[0].changed);
	assert_non_null(strstr(rec.files[1].path, "/A/rules/r.yaml"));
	assert_int_equal(rec.n_lines, 1);
	assert_string_equal(rec.lines[0], "set R.priority=33");
	assert_int_equal(session_apply_recovery(&s, &rec, &d), 1);
	assert_int_equal(s.rules.rules[0].priority, 33);
	session_recovery_release(&rec);
	diags_release(&d);
	session_close(&s);
}

static void test_changed_file_refused(void **state)
{
	clear_state();
	crash_after_edit('A', "R.priority=34");
	char p[256];
	snprintf(p, sizeof p, "%s/A/rules/r.yaml", dir);
	strbuf t = { 0 };
	sb_puts(&t, RULE);
	sb_puts(&t, "# saved by an editor meanwhile\n");
	spit(p, t.s);
	fd_session s;
	open_in(&s, 'A');
	char first[4096];
	assert_int_equal(found(&s, NULL, first, sizeof first), 1);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_load_recovery(&s, first, &d), -1);
	assert_non_null(strstr(d.items[0].message, "changed since the edits were made"));
	assert_int_equal(s.rules.rules[0].priority, 10);
	assert_int_equal(session_unsaved(&s), 0);
	diags_release(&d);
	session_close(&s);
	spit(p, RULE);
	sb_release(&t);
}

/* Two sessions on the same files: the other's file is not offered while it
 * runs (its lock is held), not replaced by this one's, and offered once it
 * was killed. */
static void test_one_file_per_session(void **state)
{
	clear_state();
	int to_child[2], to_parent[2];
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd_session s;
		open_in(&s, 'A');
		char path[4096];
		fd_diags d;
		diags_init(&d);
		if (session_recovery_claim(&s, path, sizeof path, &d) < 0 || set(&s, "R.priority=44", NULL, 0) < 0 ||
		    session_write_recovery(&s, path, &d) < 0)
			_exit(1);
		char c = 'r';
		if (write(to_parent[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(1);
		_exit(0);   /* as if killed: no clean-up, the kernel drops the lock */
	}
	char c;
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	fd_session s;
	open_in(&s, 'A');
	char own[4096];
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_recovery_claim(&s, own, sizeof own, &d), 0);
	assert_int_equal(found(&s, own, NULL, 0), 0);   /* the other session runs */
	assert_int_equal(set(&s, "R.priority=55", NULL, 0), 0);
	assert_int_equal(session_write_recovery(&s, own, &d), 0);
	/* this session ends cleanly with nothing unsaved: only its own file goes */
	assert_int_equal(set(&s, "R.priority=10", NULL, 0), 0);
	session_recovery_done(&s, own, true);
	assert_int_equal(access(own, F_OK), -1);
	assert_int_equal(write(to_child[1], "x", 1), 1);
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	char first[4096];
	assert_int_equal(found(&s, NULL, first, sizeof first), 1);
	char *text = slurp(first, NULL);
	assert_non_null(strstr(text, "set R.priority=44\n"));
	free(text);
	diags_release(&d);
	session_close(&s);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

static void test_no_shared_fallback(void **state)
{
	char *state_home = strdup(getenv("XDG_STATE_HOME"));
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	fd_session s;
	open_in(&s, 'A');
	char path[4096];
	session_recovery_path(&s, path, sizeof path);
	/* the password database's home, or none: never /tmp */
	assert_true(!path[0] || strncmp(path, "/tmp/", 5) != 0 || !strncmp(path, dir, strlen(dir)));
	assert_non_null(path[0] ? strstr(path, "/.local/state/fusiondbg/recovery-") : "");
	session_close(&s);
	setenv("XDG_STATE_HOME", state_home, 1);
	if (home)
		setenv("HOME", home, 1);
	free(state_home);
	free(home);
}

static void test_names_replay(void **state)
{
	clear_state();
	char p[256];
	snprintf(p, sizeof p, "%s/A/rules/r.yaml", dir);
	strbuf t = { 0 };
	sb_puts(&t, RULE);
	char *q = strstr(t.s, "name: \"R\"");
	memcpy(q, "name: \"=\"", 9);   /* the same length: "=" */
	sb_puts(&t, "---\nname: \"a=b.c\\nd\\\"q\"\npriority: 1\nmatch:\n  ops:\n    - type: \"Relu\"\nrewrite:\n  target_op: \"Y\"\n");
	spit(p, t.s);
	sb_release(&t);
	fd_session s;
	open_in(&s, 'A');
	int32_t other = ruleset_find(&s.rules, "a=b.c\nd\"q");
	assert_true(other >= 0);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(set(&s, "=.priority=66", NULL, 0), 0);
	assert_int_equal(session_set(&s, other, "priority", "77", &d), 0);
	char path[4096];
	assert_int_equal(session_recovery_claim(&s, path, sizeof path, &d), 0);
	assert_int_equal(session_write_recovery(&s, path, &d), 0);
	char *text = slurp(path, NULL);
	assert_non_null(strstr(text, "set =.priority=66\n"));
	assert_non_null(strstr(text, "set a=b.c\\nd\"q.priority=77\n"));   /* the LF escaped: one line; the quote kept */
	free(text);
	session_recovery_done(&s, path, false);
	session_close(&s);
	open_in(&s, 'A');
	char first[4096];
	assert_int_equal(found(&s, NULL, first, sizeof first), 1);
	assert_int_equal(session_load_recovery(&s, first, &d), 2);
	assert_int_equal(s.rules.rules[ruleset_find(&s.rules, "=")].priority, 66);
	assert_int_equal(s.rules.rules[ruleset_find(&s.rules, "a=b.c\nd\"q")].priority, 77);
	diags_release(&d);
	session_close(&s);
	spit(p, RULE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyed_by_real_paths),
		cmocka_unit_test(test_changed_file_refused),
		cmocka_unit_test(test_one_file_per_session),
		cmocka_unit_test(test_no_shared_fallback),
		cmocka_unit_test(test_names_replay),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
