/* test_session_save.c — a save changes nothing but the edited values and
 * keeps the file's identity. On small rule files written for each test
 * (samples/conv_add_silu.onnx as the model): an alias edited is detached,
 * its anchor untouched; an anchored value other places use is refused, the
 * file byte-identical, while the other edits of that file are saved; a key
 * that came from a merge becomes the map's own, the base map untouched; a
 * key added after a keep-chomped block scalar leaves the scalar's value; a
 * CRLF file gets CRLF lines; a param edited through its alias edits the key
 * the file has; strings a YAML 1.1 reader would type are quoted and numbers
 * it reads differently are written in a form both read alike; symbolic
 * links are written through, hard links, mode, owner and group kept, the
 * backup no more permissive than the file; one file changed on disk does
 * not stop another from being saved, and the report says which; the
 * conditions' own paths below their keys (dtype.same_as.input, a shape
 * with 1..., outputs.count, a sibling group's min and cover) saved and read
 * back; a key whose map the op lacks (outputs.count without outputs:) adds
 * the map, one line, undone whole. */
#include <errno.h>
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
#include "base/strbuf.h"
#include "session_fixture.h"

static char dir[64];

static const char *MODEL = "samples/conv_add_silu.onnx";

static int setup(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/fd_save_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* dir/name, in a static buffer of n (one of a few). */
static const char *in_dir(const char *name)
{
	static char bufs[4][256];
	static int k;
	char *b = bufs[k++ & 3];
	snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
	return b;
}

/* A valid rule named NAME with extra text spliced in at "%s". */
static char *rule_text(const char *name, const char *extra)
{
	strbuf b = { 0 };
	sb_printf(&b,
	          "name: \"%s\"\n"
	          "priority: 10\n"
	          "match:\n"
	          "  ops:\n"
	          "    - type: \"Conv2d\"\n"
	          "      params:\n"
	          "        groups: 1\n"
	          "    - type: \"Add\"\n"
	          "rewrite:\n"
	          "  target_op: \"X\"\n"
	          "%s",
	          name, extra);
	return b.s;
}

/* text written to path, and a session on it. */
static void open_one(fd_session *s, const char *path, const char *text)
{
	spit(path, text);
	const char *rules[] = { path };
	open_session(s, MODEL, rules, 1);
}

static int save(fd_session *s, fd_save_report *rep, fd_diags *d)
{
	diags_init(d);
	int rc = session_save_report(s, rep, d);
	print_diags(d);
	return rc;
}

/* Whether d has a message of severity sev containing text. */
static bool said(const fd_diags *d, fd_severity sev, const char *text)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].severity == sev && strstr(d->items[i].message, text))
			return true;
	return false;
}

/* ---- anchors and aliases ------------------------------------------------------------ */

static const char ANCHORED[] =
	"constraints:\n"
	"  - type: \"memory_limit\"\n"
	"    max_intermediate_size: &sz 33554432   # shared\n"
	"    max_output_size: *sz\n";

static void test_alias_detached_anchor_kept(void **state)
{
	const char *path = in_dir("anchor.yaml");
	char *text = rule_text("A", ANCHORED);
	fd_session s;
	open_one(&s, path, text);
	assert_int_equal(set(&s, "A.constraints.memory_limit.max_output_size=64MiB", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	assert_true(said(&d, DIAG_NOTE, "was the alias *sz: now written as a value of its own"));
	diags_release(&d);
	char *now = slurp(path, NULL);
	char *want = rule_text("A",
	                       "constraints:\n"
	                       "  - type: \"memory_limit\"\n"
	                       "    max_intermediate_size: &sz 33554432   # shared\n"
	                       "    max_output_size: 67108864\n");   /* the file's integers: no unit */
	assert_string_equal(now, want);
	assert_int_equal(s.rules.rules[0].constraints[0].max_intermediate_size, 33554432);
	assert_int_equal(s.rules.rules[0].constraints[0].max_output_size, 64 << 20);
	assert_int_equal(session_unsaved(&s), 0);
	session_close(&s);
	free(now);
	free(want);
	free(text);
}

/* The anchored value itself: its alias would change with it. Refused, the
 * file byte-identical; an edit elsewhere in the file is still saved. */
static void test_anchor_refused_others_saved(void **state)
{
	const char *path = in_dir("anchor2.yaml");
	char *text = rule_text("A", ANCHORED);
	fd_session s;
	open_one(&s, path, text);
	assert_int_equal(set(&s, "A.constraints.memory_limit.max_intermediate_size=1MiB", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), -1);
	assert_true(said(&d, DIAG_ERROR, "A.constraints.memory_limit.max_intermediate_size: not saved: saving it would "
	                                 "also change constraints.0.max_output_size"));
	diags_release(&d);
	char *now = slurp(path, NULL);
	assert_string_equal(now, text);
	free(now);
	char orig[300];
	snprintf(orig, sizeof orig, "%s.orig", path);
	assert_int_equal(access(orig, F_OK), -1);   /* nothing written, no backup */

	/* with another edit in the file: that one is saved, the refused one stays in memory */
	assert_int_equal(set(&s, "A.priority=77", NULL, 0), 0);
	assert_int_equal(save(&s, &rep, &d), -1);
	assert_int_equal(rep.files_written, 1);
	assert_int_equal(rep.values_saved, 1);
	assert_int_equal(rep.values_refused, 1);
	assert_true(said(&d, DIAG_NOTE, "written (1 value)"));
	diags_release(&d);
	now = slurp(path, NULL);
	char *a = rule_text("A", ANCHORED);
	char *p = strstr(a, "priority: 10");
	assert_non_null(p);
	p[10] = p[11] = '7';   /* "priority: 77" */
	assert_string_equal(now, a);
	assert_int_equal(session_unsaved(&s), 1);
	assert_int_equal(s.rules.rules[0].constraints[0].max_intermediate_size, 1 << 20);   /* still in memory */
	assert_int_equal(s.rules.rules[0].priority, 77);

	/* both users of the anchor set alike: that is an exact save */
	assert_int_equal(set(&s, "A.constraints.memory_limit.max_output_size=1MiB", NULL, 0), 0);
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	free(now);
	now = slurp(path, NULL);
	assert_non_null(strstr(now, "max_intermediate_size: &sz 1048576   # shared\n    max_output_size: 1048576\n"));
	assert_int_equal(session_unsaved(&s), 0);
	session_close(&s);
	free(now);
	free(a);
	free(text);
}

/* A size typed with a unit is saved in the form the file wrote it: bytes
 * where the file wrote bytes (the seed format, which CANN reads), the unit
 * where the file wrote a unit. */
static void test_size_keeps_file_form(void **state)
{
	const char *path = in_dir("sizes.yaml");
	char *text = rule_text("Z",
	                       "constraints:\n"
	                       "  - type: \"memory_limit\"\n"
	                       "    max_intermediate_size: 33554432\n"
	                       "    max_output_size: 32MiB\n");
	fd_session s;
	open_one(&s, path, text);
	assert_int_equal(set(&s, "Z.constraints.memory_limit.max_intermediate_size=16MiB", NULL, 0), 0);
	assert_int_equal(set(&s, "Z.constraints.memory_limit.max_output_size=16MiB", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	char *want = rule_text("Z",
	                       "constraints:\n"
	                       "  - type: \"memory_limit\"\n"
	                       "    max_intermediate_size: 16777216\n"
	                       "    max_output_size: 16MiB\n");
	assert_string_equal(now, want);
	assert_int_equal(s.rules.rules[0].constraints[0].max_intermediate_size, 16 << 20);
	assert_int_equal(session_unsaved(&s), 0);
	session_close(&s);
	free(now);
	free(want);
	free(text);
}

/* ---- merges ---------------------------------------------------------------------------- */

static void test_merge_key_becomes_own(void **state)
{
	const char *path = in_dir("merge.yaml");
	char *text = rule_text("M",
	                       "  attributes: &cfg\n"
	                       "    tile_policy: auto\n"
	                       "    opt_level: 2\n"
	                       "  kernel_config:\n"
	                       "    <<: *cfg\n"
	                       "    opt_level: 3\n");
	fd_session s;
	open_one(&s, path, text);
	assert_int_equal(set(&s, "M.rewrite.kernel_config.tile_policy=manual", NULL, 0), 0);
	/* in memory only the merging map changed */
	char *v = session_get_text(&s, 0, "rewrite.attributes.tile_policy");
	assert_string_equal(v, "auto");
	free(v);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	assert_true(said(&d, DIAG_NOTE, "came from a merge"));
	diags_release(&d);
	char *now = slurp(path, NULL);
	/* one new line in kernel_config; the base map untouched */
	assert_non_null(strstr(now, "  kernel_config:\n    <<: *cfg\n    opt_level: 3\n    tile_policy: manual\n"));
	assert_non_null(strstr(now, "  attributes: &cfg\n    tile_policy: auto\n    opt_level: 2\n"));
	assert_int_equal(strlen(now), strlen(text) + strlen("    tile_policy: manual\n"));
	session_close(&s);
	/* read back from scratch */
	open_session(&s, MODEL, (const char *[]){ path }, 1);
	v = session_get_text(&s, 0, "rewrite.kernel_config.tile_policy");
	assert_string_equal(v, "manual");
	free(v);
	v = session_get_text(&s, 0, "rewrite.attributes.tile_policy");
	assert_string_equal(v, "auto");
	free(v);
	session_close(&s);
	free(now);
	free(text);
}

/* ---- block scalars, line ends ---------------------------------------------------------- */

static void test_block_scalar_keeps_value(void **state)
{
	const char *path = in_dir("block.yaml");
	static const char BLOCK[] =
		"constraints:\n"
		"  - type: \"memory_limit\"\n"
		"    max_intermediate_size: 33554432\n"
		"    description: |+\n"
		"      keep the blank lines\n"
		"\n"
		"\n";
	char *text = rule_text("B", BLOCK);
	fd_session s;
	open_one(&s, path, text);
	char *desc0 = session_get_text(&s, 0, "constraints.memory_limit.description");
	assert_int_equal(set(&s, "B.constraints.memory_limit.max_output_size=1MiB", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	strbuf want = { 0 };
	sb_puts(&want, text);
	sb_puts(&want, "    max_output_size: 1048576\n");   /* a key added: the seed format's integer */
	assert_string_equal(now, sb_str(&want));
	session_close(&s);
	open_session(&s, MODEL, (const char *[]){ path }, 1);
	char *desc1 = session_get_text(&s, 0, "constraints.memory_limit.description");
	assert_string_equal(desc0, desc1);   /* "keep the blank lines\n\n\n" */
	session_close(&s);
	free(desc0);
	free(desc1);
	sb_release(&want);
	free(now);
	free(text);
}

static void test_crlf_lines(void **state)
{
	const char *path = in_dir("crlf.yaml");
	char *lf = rule_text("C", "output:\n  kernel_name: k1\n");
	strbuf crlf = { 0 };
	for (const char *p = lf; *p; p++)
		sb_puts(&crlf, *p == '\n' ? "\r\n" : (char[]){ *p, 0 });
	spit(path, crlf.s);
	fd_session s;
	open_session(&s, MODEL, (const char *[]){ path }, 1);
	fd_diags d;
	diags_init(&d);
	assert_int_equal(session_toggle_enabled(&s, 0, &d), 0);   /* a new line after priority */
	diags_release(&d);
	assert_int_equal(set(&s, "C.output.debug_symbols=true", NULL, 0), 0);   /* one at the end of output */
	fd_save_report rep;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	for (const char *p = now; (p = strchr(p, '\n')); p++)
		assert_true(p > now && p[-1] == '\r');
	assert_non_null(strstr(now, "priority: 10\r\nenabled: false\r\nmatch:"));
	assert_non_null(strstr(now, "  kernel_name: k1\r\n  debug_symbols: true\r\n"));
	session_close(&s);
	free(now);
	sb_release(&crlf);
	free(lf);
}

/* ---- params by alias, YAML 1.1 ---------------------------------------------------------- */

static void test_param_alias_edits_the_key(void **state)
{
	const char *path = in_dir("alias_param.yaml");
	char *text = rule_text("P", "");
	fd_session s;
	open_one(&s, path, text);
	assert_int_equal(set(&s, "P.match.ops.0.params.group=2", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	assert_non_null(strstr(now, "      params:\n        groups: 2\n    - type"));
	assert_null(strstr(now, "group:"));
	session_close(&s);
	free(now);
	free(text);
}

/* ---- the conditions' own paths -------------------------------------------------------- */

/* A dtype tied by same_as, a shape with a repeated dim and an output count:
 * each edited below its key and saved as written, the rest of the file as
 * it was. */
static void test_condition_paths_saved(void **state)
{
	const char *path = in_dir("conditions.yaml");
	static const char text[] =
		"name: \"T\"\n"
		"priority: 10\n"
		"match:\n"
		"  ops:\n"
		"    - type: \"Conv2d\"\n"
		"      input_sources:\n"
		"        input1: {shape: [C, _, _, _]}\n"
		"    - type: \"Add\"\n"
		"      outputs: {graph_output: false}\n"
		"      input_sources:\n"
		"        input1: {shape: [[C, 1, 1], [1, C, 1, 1]], dtype: {same_as: {op: 0, input: 1}}}\n"
		"rewrite:\n"
		"  target_op: \"X\"\n";
	fd_session s;
	open_one(&s, path, text);
	static const char *const edits[] = {
		"T.match.ops.1.input_sources.input1.dtype.same_as.input=0",
		"T.match.ops.1.input_sources.input1.shape=[1, C, 1...]",
		"T.match.ops.1.outputs.count=1",
	};
	for (size_t k = 0; k < sizeof edits / sizeof *edits; k++) {
		char err[512];
		int rc = set(&s, edits[k], err, sizeof err);
		if (rc)
			fprintf(stderr, "%s: %s\n", edits[k], err);
		assert_int_equal(rc, 0);
	}
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	if (!strstr(now, "dtype: {same_as: {op: 0, input: 0}}") || !strstr(now, "shape: [1, C, 1...]") ||
	    !strstr(now, "outputs: {graph_output: false, count: 1}"))
		fprintf(stderr, "%s", now);
	assert_non_null(strstr(now, "dtype: {same_as: {op: 0, input: 0}}"));
	assert_non_null(strstr(now, "shape: [1, C, 1...]"));
	assert_non_null(strstr(now, "outputs: {graph_output: false, count: 1}"));
	assert_non_null(strstr(now, "        input1: {shape: [C, _, _, _]}\n"));
	session_close(&s);
	/* what was saved reads back as the edits said */
	open_one(&s, path, now);
	free(now);
	assert_int_equal(s.rules.n_rules, 1);
	const fd_rule_op *add = &s.rules.rules[0].match.ops[1];
	assert_int_equal(add->output_count, 1);
	assert_int_equal(add->sources[0].dtype_op, 0);
	assert_int_equal(add->sources[0].dtype_slot, 0);
	assert_int_equal(add->sources[0].shapes[0].dims[2].kind, SDIM_REPEAT);
	session_close(&s);
}

static void test_missing_map_added(void **state)
{
	const char *path = in_dir("missing_map.yaml");
	char *text = rule_text("T", "");
	fd_session s;
	open_one(&s, path, text);
	char err[512];
	fd_diags d;
	diags_init(&d);
	/* a key that is no field stays an error naming the whole path */
	assert_int_not_equal(set(&s, "T.match.ops.1.outputs.cnt=1", err, sizeof err), 0);
	assert_non_null(strstr(err, "outputs.cnt"));
	/* a value the schema refuses leaves no map behind */
	assert_int_not_equal(set(&s, "T.match.ops.1.outputs.count=0", err, sizeof err), 0);
	assert_null(yval_get(s.rules.rules[0].match.ops[1].where, "outputs"));
	/* added, then undone whole */
	assert_int_equal(set(&s, "T.match.ops.1.outputs.count=1", err, sizeof err), 0);
	assert_int_equal(s.rules.rules[0].match.ops[1].output_count, 1);
	assert_int_equal(session_undo(&s, &d), 0);
	assert_null(yval_get(s.rules.rules[0].match.ops[1].where, "outputs"));
	assert_int_equal(session_redo(&s, &d), 0);
	assert_int_equal(s.rules.rules[0].match.ops[1].output_count, 1);
	fd_save_report rep;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	char *want = rule_text("T", "");
	/* the file as it was, with one line more under the Add */
	char *at = strstr(want, "    - type: \"Add\"\n") + strlen("    - type: \"Add\"\n");
	strbuf b = { 0 };
	sb_add(&b, want, (size_t)(at - want));
	sb_puts(&b, "      outputs: {count: 1}\n");
	sb_puts(&b, at);
	if (strcmp(now, b.s))
		fprintf(stderr, "%s", now);
	assert_string_equal(now, b.s);
	session_close(&s);
	/* and reads back */
	open_one(&s, path, now);
	assert_int_equal(s.rules.rules[0].match.ops[1].output_count, 1);
	session_close(&s);
	sb_release(&b);
	free(want);
	free(now);
	free(text);
}

/* A sibling group's fields: min edited in place, cover added to the map,
 * read back as saved. */
static void test_siblings_saved(void **state)
{
	const char *path = in_dir("siblings.yaml");
	static const char text[] =
		"name: \"T\"\n"
		"priority: 10\n"
		"match:\n"
		"  ops:\n"
		"    - type: [\"Slice\", \"Gather\"]\n"
		"      siblings: {min: 2}\n"
		"rewrite:\n"
		"  target_op: \"Split\"\n";
	fd_session s;
	open_one(&s, path, text);
	static const char *const edits[] = { "T.match.ops.0.siblings.min=3", "T.match.ops.0.siblings.cover=axis" };
	for (size_t k = 0; k < sizeof edits / sizeof *edits; k++) {
		char err[512];
		int rc = set(&s, edits[k], err, sizeof err);
		if (rc)
			fprintf(stderr, "%s: %s\n", edits[k], err);
		assert_int_equal(rc, 0);
	}
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	if (!strstr(now, "siblings: {min: 3, cover: axis}"))
		fprintf(stderr, "%s", now);
	assert_non_null(strstr(now, "siblings: {min: 3, cover: axis}"));
	session_close(&s);
	open_one(&s, path, now);
	free(now);
	assert_int_equal(s.rules.n_rules, 1);
	const fd_rule_op *op = &s.rules.rules[0].match.ops[0];
	assert_true(op->siblings);
	assert_int_equal(op->siblings_min, 3);
	assert_true(op->siblings_cover);
	session_close(&s);
}

static void test_yaml11_safe(void **state)
{
	const char *path = in_dir("y11.yaml");
	char *text = rule_text("Y", "  attributes:\n    tile_policy: auto\n"
	                            "output:\n  kernel_name: k1\n  compiler: cc\n");
	fd_session s;
	open_one(&s, path, text);
	assert_int_equal(set(&s, "Y.output.kernel_name=yes", NULL, 0), 0);
	assert_int_equal(set(&s, "Y.output.compiler=0x10", NULL, 0), 0);
	assert_int_equal(set(&s, "Y.output.file_path=on", NULL, 0), 0);
	assert_int_equal(set(&s, "Y.rewrite.attributes.a=1e3", NULL, 0), 0);
	assert_int_equal(set(&s, "Y.rewrite.attributes.b=017", NULL, 0), 0);
	assert_int_equal(set(&s, "Y.rewrite.attributes.c=1_000", NULL, 0), 0);
	assert_int_equal(set(&s, "Y.rewrite.attributes.e=0x10", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 1);
	diags_release(&d);
	char *now = slurp(path, NULL);
	assert_non_null(strstr(now, "  kernel_name: \"yes\"\n"));
	assert_non_null(strstr(now, "  compiler: \"0x10\"\n"));
	assert_non_null(strstr(now, "  file_path: \"on\"\n"));
	assert_non_null(strstr(now, "    a: 1000.0\n"));
	assert_non_null(strstr(now, "    b: 17\n"));
	assert_non_null(strstr(now, "    c: \"1_000\"\n"));
	assert_non_null(strstr(now, "    e: 0x10\n"));   /* both readers: 16 */
	session_close(&s);
	free(now);
	free(text);
}

/* ---- the file's identity ------------------------------------------------------------------ */

static void test_identity_kept(void **state)
{
	char *text = rule_text("I", "");
	/* a symbolic link: written through */
	mkdir(in_dir("real"), 0755);
	spit(in_dir("real/i.yaml"), text);
	assert_int_equal(symlink("real/i.yaml", in_dir("link.yaml")), 0);
	/* a hard link, mode 0600 */
	char *text2 = rule_text("H", "");
	spit(in_dir("h.yaml"), text2);
	assert_int_equal(link(in_dir("h.yaml"), in_dir("h2.yaml")), 0);
	chmod(in_dir("h.yaml"), 0600);
	/* another owner and group, when we may give them */
	char *text3 = rule_text("O", "");
	spit(in_dir("o.yaml"), text3);
	chmod(in_dir("o.yaml"), 0640);
	bool root = geteuid() == 0;
	if (root)
		assert_int_equal(chown(in_dir("o.yaml"), 65534, 65534), 0);
	const char *rules[] = { in_dir("link.yaml"), in_dir("h.yaml"), in_dir("o.yaml") };
	fd_session s;
	open_session(&s, MODEL, rules, 3);
	assert_int_equal(set(&s, "I.priority=11", NULL, 0), 0);
	assert_int_equal(set(&s, "H.priority=12", NULL, 0), 0);
	assert_int_equal(set(&s, "O.priority=13", NULL, 0), 0);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), 3);
	diags_release(&d);
	struct stat st, st2;
	assert_int_equal(lstat(in_dir("link.yaml"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	char *now = slurp(in_dir("real/i.yaml"), NULL);
	assert_non_null(strstr(now, "priority: 11\n"));
	free(now);
	assert_int_equal(stat(in_dir("h.yaml"), &st), 0);
	assert_int_equal(stat(in_dir("h2.yaml"), &st2), 0);
	assert_true(st.st_ino == st2.st_ino && st.st_nlink == 2);
	assert_int_equal(st.st_mode & 0777, 0600);
	now = slurp(in_dir("h2.yaml"), NULL);
	assert_non_null(strstr(now, "priority: 12\n"));
	free(now);
	/* the backup: never more permissive than the file */
	assert_int_equal(stat(in_dir("h.yaml.orig"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(in_dir("o.yaml"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(stat(in_dir("o.yaml.orig"), &st2), 0);
	assert_true((st2.st_mode & 0777 & ~(st.st_mode & 0777)) == 0);
	if (root) {
		assert_true(st.st_uid == 65534 && st.st_gid == 65534);
		assert_true(st2.st_uid == 65534 && st2.st_gid == 65534);
	}
	now = slurp(in_dir("o.yaml"), NULL);
	assert_non_null(strstr(now, "priority: 13\n"));
	free(now);
	session_close(&s);
	free(text);
	free(text2);
	free(text3);
}

/* ---- two files, one changed on disk ---------------------------------------------------------- */

static void test_report_says_which(void **state)
{
	char *ta = rule_text("RA", ""), *tb = rule_text("RB", "");
	spit(in_dir("ra.yaml"), ta);
	spit(in_dir("rb.yaml"), tb);
	const char *rules[] = { in_dir("ra.yaml"), in_dir("rb.yaml") };
	fd_session s;
	open_session(&s, MODEL, rules, 2);
	assert_int_equal(set(&s, "RA.priority=21", NULL, 0), 0);
	assert_int_equal(set(&s, "RB.priority=22", NULL, 0), 0);
	char *changed = rule_text("RB", "# an editor saved this meanwhile\n");
	spit(in_dir("rb.yaml"), changed);
	fd_save_report rep;
	fd_diags d;
	assert_int_equal(save(&s, &rep, &d), -1);
	assert_int_equal(rep.files_written, 1);
	assert_int_equal(rep.files_refused, 1);
	assert_int_equal(rep.values_saved, 1);
	assert_int_equal(rep.values_refused, 1);
	bool a_written = false, b_refused = false;
	for (size_t i = 0; i < d.n; i++) {
		a_written |= d.items[i].severity == DIAG_NOTE && strstr(d.items[i].pos.file, "ra.yaml");
		b_refused |= d.items[i].severity == DIAG_ERROR && strstr(d.items[i].pos.file, "rb.yaml") &&
		             strstr(d.items[i].message, "changed on disk");
	}
	assert_true(a_written && b_refused);
	diags_release(&d);
	char *now = slurp(in_dir("rb.yaml"), NULL);
	assert_string_equal(now, changed);
	free(now);
	assert_int_equal(session_unsaved(&s), 1);
	session_close(&s);
	free(ta);
	free(tb);
	free(changed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_detached_anchor_kept),
		cmocka_unit_test(test_size_keeps_file_form),
		cmocka_unit_test(test_missing_map_added),
		cmocka_unit_test(test_anchor_refused_others_saved),
		cmocka_unit_test(test_merge_key_becomes_own),
		cmocka_unit_test(test_block_scalar_keeps_value),
		cmocka_unit_test(test_crlf_lines),
		cmocka_unit_test(test_param_alias_edits_the_key),
		cmocka_unit_test(test_condition_paths_saved),
		cmocka_unit_test(test_siblings_saved),
		cmocka_unit_test(test_yaml11_safe),
		cmocka_unit_test(test_identity_kept),
		cmocka_unit_test(test_report_says_which),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
