/* fuzz_edit.c — libFuzzer harness for the edit-and-save path.
 *
 * Input: a rule file, a NUL byte, then edit lines "PATH=VALUE". PATH is a
 * what-if path of the first rule, or "#K": the K-th scalar value of any
 * rule of the file (the fuzzer reaches existing values that way, a path
 * like "enabled" or "match.ops.0.params.group" adds a key). The file is
 * written to a temporary directory, a session is opened on it (model
 * samples/conv_add_silu.onnx), the edits are applied (a refused one is
 * fine), the session saves, and the file is read back. Then:
 *   - a save that wrote nothing left the file byte-identical;
 *   - the file parses, and loads as rules again;
 *   - each edited value reads back as the session had it, or (refused) as
 *     the file had it; as many read as the file had them as the session
 *     says are still unsaved;
 *   - every other value of every document reads as before;
 *   - every line of the old file that holds no edited key or value is, in
 *     order, a line of the new file (the bytes outside the edits are kept).
 * A broken promise aborts (a finding). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/atomic_file.h"
#include "base/strbuf.h"
#include "ruleset/rule_format.h"
#include "session/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EDITS 16

static const char *model_path(void)
{
	const char *m = getenv("FUSIONDBG_FUZZ_MODEL");
	return m && *m ? m : "samples/conv_add_silu.onnx";
}

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_edit: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* ---- values by path ---------------------------------------------------------------- */

typedef struct leaf {
	int32_t rule;
	char *path;
} leaf;

typedef struct leaves {
	leaf *items;
	size_t n, cap;
} leaves;

/* Every scalar (or list of scalars) of v with its path: map keys, list
 * indices (constraints by index too: the session takes both). */
static void collect(leaves *out, int32_t rule, const fd_yval *v, strbuf *path, int depth)
{
	if (!v || depth > 12 || out->n > 4096)
		return;
	bool leaf_value = v->kind == YV_SCALAR || v->kind == YV_NULL;
	if (v->kind == YV_SEQ) {
		leaf_value = true;
		for (size_t i = 0; i < v->n; i++)
			leaf_value = leaf_value && v->items[i]->kind == YV_SCALAR;
	}
	if (leaf_value && path->n) {
		if (out->n == out->cap)
			out->items = realloc(out->items, (out->cap = out->cap ? 2 * out->cap : 64) * sizeof *out->items);
		out->items[out->n++] = (leaf){ rule, strdup(path->s) };
		return;
	}
	size_t len = path->n;
	for (size_t i = 0; i < v->n && (v->kind == YV_MAP || v->kind == YV_SEQ); i++) {
		if (v->kind == YV_MAP)
			sb_printf(path, "%s%s", len ? "." : "", v->keys[i]->text ? v->keys[i]->text : "");
		else
			sb_printf(path, "%s%zu", len ? "." : "", i);
		collect(out, rule, v->items[i], path, depth + 1);
		path->n = len;
		path->s[len] = '\0';
	}
}

static void leaves_of(const fd_session *s, leaves *out)
{
	const fd_ruleset *rs = session_rules(s);
	for (int32_t r = 0; r < rs->n_rules; r++) {
		strbuf p = { 0 };
		sb_add(&p, "", 0);
		collect(out, r, rs->rules[r].root, &p, 0);
		sb_release(&p);
	}
}

static void leaves_release(leaves *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].path);
	free(l->items);
}

/* ---- comparing values ---------------------------------------------------------------- */

static bool strings_field(const char *path)
{
	const fd_field *f = rule_field(path);
	return f && (f->type == FT_STR || f->type == FT_OPTYPE || f->type == FT_SOURCE || f->type == FT_LIST);
}

static bool bytes_field(const char *path)
{
	const fd_field *f = rule_field(path);
	return f && f->type == FT_BYTES;
}

static bool same_scalar(const fd_yval *a, const fd_yval *b, bool strings)
{
	if (yval_is_null(a) || yval_is_null(b))
		return yval_is_null(a) && yval_is_null(b);
	if (a->kind != b->kind || a->n != b->n)
		return false;
	if (a->kind == YV_SEQ || a->kind == YV_MAP) {
		/* a value that is a list or a map: item by item, maps by key */
		for (size_t i = 0; i < a->n; i++) {
			long j = a->kind == YV_MAP ? yval_index(b, a->keys[i]->text) : (long)i;
			if (j < 0 || !same_scalar(a->items[i], b->items[j], strings))
				return false;
		}
		return true;
	}
	if (strings)
		return !strcmp(a->text, b->text);
	const char *ka = yval_kind_name(a), *kb = yval_kind_name(b);
	double x, y;
	if (!strcmp(ka, "number") || !strcmp(ka, "integer"))
		return yval_float(a, &x) && yval_float(b, &y) && (x == y || (x != x && y != y));
	return !strcmp(ka, kb) && !strcmp(a->text, b->text);
}

/* Two values as YAML text (the session's canonical texts) read the same. */
static bool same_text(const char *a, const char *b, const char *path)
{
	if (!a || !b)
		return a == b;
	if (!strcmp(a, b))
		return true;
	fd_diags d;
	diags_init(&d);
	fd_yfile fa, fb;
	bool ok = false;
	if (yfile_load_buffer(&fa, "a", a, strlen(a), &d) == 0) {
		if (yfile_load_buffer(&fb, "b", b, strlen(b), &d) == 0) {
			const fd_yval *x = fa.n_docs ? fa.docs[0].root : NULL, *y = fb.n_docs ? fb.docs[0].root : NULL;
			int64_t bx, by;
			if (x && y && bytes_field(path) && yval_bytes(x, &bx) && yval_bytes(y, &by))
				ok = bx == by;   /* a save may write 16MiB as 16777216 */
			else if (x && y)
				ok = same_scalar(x, y, strings_field(path));
			yfile_release(&fb);
		}
		yfile_release(&fa);
	}
	diags_release(&d);
	return ok;
}

/* ---- lines ---------------------------------------------------------------------------- */

/* Marks the lines of text [start, end) (byte offsets) in mark (one per line). */
static void mark_lines(const char *text, size_t size, size_t start, size_t end, bool *mark, size_t n_lines)
{
	size_t line = 0;
	for (size_t i = 0; i < start && i < size; i++)
		line += text[i] == '\n';
	for (size_t i = start; line < n_lines; i++) {
		mark[line] = true;
		if (i >= end || i >= size)
			break;
		if (text[i] == '\n' && i + 1 < end)
			line++;
	}
}

/* The lines a path's value touches in a parsed file: every key on the way,
 * an alias on the way (it may be written out), and the value's own lines. */
static void mark_path(const fd_yfile *f, int doc, const char *path, bool *mark, size_t n_lines)
{
	if (doc < 0 || doc >= f->n_docs)
		return;
	const fd_yval *cur = f->docs[doc].root;
	const char *seg = path;
	while (cur && seg) {
		const char *dot = strchr(seg, '.');
		char *name = strndup(seg, dot ? (size_t)(dot - seg) : strlen(seg));
		const fd_yval *next = NULL;
		long idx = -1;
		if (cur->kind == YV_MAP) {
			idx = yval_index(cur, name);
			if (idx >= 0)
				mark_lines(f->text, f->size, cur->keys[idx]->start, cur->keys[idx]->end, mark, n_lines);
		} else if (cur->kind == YV_SEQ) {
			char *end;
			unsigned long k = strtoul(name, &end, 10);
			if (!*end && *name)
				idx = k < cur->n ? (long)k : -1;
			for (size_t i = 0; *end && idx < 0 && i < cur->n; i++) {
				const fd_yval *t = cur->items[i]->kind == YV_MAP ? yval_get(cur->items[i], "type") : NULL;
				if (t && t->kind == YV_SCALAR && !strcmp(t->text, name))
					idx = (long)i;
			}
		}
		if (idx < 0 && !dot && cur->end > cur->start && (f->text[cur->start] == '{' || f->text[cur->start] == '['))
			/* a key added to a flow map goes before its closing brace */
			mark_lines(f->text, f->size, cur->start, cur->end, mark, n_lines);
		if (idx >= 0) {
			next = cur->items[idx];
			fd_yplace pl = yval_place(cur, (size_t)idx);
			if (pl.kind != YP_HERE)
				mark_lines(f->text, f->size, pl.start, pl.end, mark, n_lines);
			else if (cur->kind == YV_SEQ)
				mark_lines(f->text, f->size, next->start, next->start + 1, mark, n_lines);
		}
		free(name);
		cur = next;
		seg = dot ? dot + 1 : NULL;
	}
	if (cur)
		mark_lines(f->text, f->size, cur->start, cur->tail > cur->start ? cur->tail : cur->start + 1, mark, n_lines);
}

/* "constraints.TYPE…" as "constraints.K…" (K: the first constraint of that
 * type in root), the form the leaves have. Heap. */
static char *index_form(const fd_yval *root, const char *path)
{
	const fd_yval *list = yval_get(root, "constraints");
	if (strncmp(path, "constraints.", 12) || !list || list->kind != YV_SEQ)
		return strdup(path);
	const char *seg = path + 12, *dot = strchr(seg, '.');
	size_t len = dot ? (size_t)(dot - seg) : strlen(seg);
	for (size_t i = 0; i < list->n; i++) {
		const fd_yval *t = list->items[i]->kind == YV_MAP ? yval_get(list->items[i], "type") : NULL;
		if (t && t->kind == YV_SCALAR && strlen(t->text) == len && !strncmp(t->text, seg, len)) {
			strbuf b = { 0 };
			sb_printf(&b, "constraints.%zu%s", i, dot ? dot : "");
			return sb_take(&b);
		}
	}
	return strdup(path);
}

static size_t count_lines(const char *text, size_t size)
{
	size_t n = 1;
	for (size_t i = 0; i < size; i++)
		n += text[i] == '\n';
	return n;
}

/* Every unmarked line of old is, in order, a line of new. */
static bool lines_kept(const char *old, size_t old_size, const bool *mark, const char *new, size_t new_size)
{
	const char *p = old, *end = old + old_size, *q = new, *qend = new + new_size;
	size_t line = 0;
	while (p <= end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (!mark[line]) {
			bool found = false;
			while (q <= qend && !found) {
				const char *qnl = memchr(q, '\n', (size_t)(qend - q));
				size_t qlen = (size_t)((qnl ? qnl : qend) - q);
				/* the old last line, unterminated, may now end as the others do ("\r\n") */
				found = (qlen == len || (!nl && qlen == len + 1 && q[len] == '\r')) && !memcmp(p, q, len);
				q = qnl ? qnl + 1 : qend + 1;
			}
			if (!found)
				return false;
		}
		line++;
		if (!nl)
			break;
		p = nl + 1;
	}
	return true;
}

/* ---- the harness ------------------------------------------------------------------------- */

static int open_on(fd_session *s, const char *path, fd_diags *d)
{
	fd_session_options o = { .model_path = model_path(), .rule_paths = (const char *const[]){ path },
	                         .n_rule_paths = 1, .no_env = true, .no_events = true, .defer_run = true };
	return session_open(s, &o, d);
}

typedef struct edited {
	int32_t rule;
	char *path;            /* as the session recorded it */
	char *leaf;            /* the same in the leaves' form */
	char *want, *was;      /* the session's value after the edits; the file's */
} edited;

/* The edit lines after the NUL, applied; the values the session then has,
 * one per (rule, path), in out. */
static size_t apply_edits(fd_session *s, const leaves *all, const char *p, const char *end, edited *out, fd_diags *d)
{
	size_t n_lines = 0;
	while (p && p < end && n_lines++ < MAX_EDITS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		char *line = strndup(p, len);
		p = nl ? nl + 1 : end;
		char *eq = strchr(line, '=');
		if (!eq || strlen(line) != len) {
			free(line);
			continue;
		}
		*eq = '\0';
		int32_t rule = 0;
		const char *epath = line;
		if (line[0] == '#' && all->n) {
			const leaf *l = &all->items[strtoul(line + 1, NULL, 10) % all->n];
			rule = l->rule;
			epath = l->path;
		}
		diags_clear(d);
		session_set(s, rule, epath, eq + 1, d);
		free(line);
	}
	size_t n = 0;
	for (size_t i = 0; i < s->n_applied; i++) {
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = out[j].rule == s->edits[i].rule && !strcmp(out[j].path, s->edits[i].path);
		if (seen)
			continue;
		edited *e = &out[n++];
		e->rule = s->edits[i].rule;
		e->path = strdup(s->edits[i].path);
		e->leaf = index_form(session_rules(s)->rules[e->rule].root, e->path);
		e->want = session_get_text(s, e->rule, e->path);
		e->was = NULL;
	}
	return n;
}

static bool is_edited(const edited *e, size_t n, int32_t rule, const char *path)
{
	for (size_t j = 0; j < n; j++) {
		size_t len = strlen(e[j].leaf);
		if (rule == e[j].rule && !strncmp(path, e[j].leaf, len) && (path[len] == '\0' || path[len] == '.'))
			return true;
	}
	return false;
}

static char dir[64];

/* The temporary directory goes with the process. */
static void remove_dir(void)
{
	const char *names[] = { "rule.yaml", "rule.yaml.orig" };
	for (size_t i = 0; i < 2; i++) {
		char p[128];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t yaml_size = nul ? (size_t)(nul - data) : size;
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/fuzz_edit_XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(remove_dir);
	}
	char path[128], orig[140];
	snprintf(path, sizeof path, "%s/rule.yaml", dir);
	snprintf(orig, sizeof orig, "%s.orig", path);
	unlink(orig);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, yaml_size, f) != yaml_size || fclose(f) != 0)
		abort();

	fd_diags d;
	diags_init(&d);
	fd_session s;
	if (open_on(&s, path, &d) < 0) {
		diags_release(&d);
		return 0;
	}
	/* the file as read, for the comparisons after */
	fd_yfile before;
	if (yfile_load_buffer(&before, path, (const char *)data, yaml_size, &d) < 0)
		fail("the session opened a file that does not parse", NULL);
	leaves all = { 0 };
	leaves_of(&s, &all);

	/* the file's values, from a session of their own */
	fd_session file_s;
	if (open_on(&file_s, path, &d) < 0)
		fail("the file opened once and not twice", NULL);
	edited edits[MAX_EDITS];
	size_t n_edits = apply_edits(&s, &all, nul ? (const char *)nul + 1 : NULL, (const char *)data + size, edits, &d);
	for (size_t i = 0; i < n_edits; i++)
		edits[i].was = session_get_text(&file_s, edits[i].rule, edits[i].path);
	session_close(&file_s);

	diags_clear(&d);
	fd_save_report rep;
	session_save_report(&s, &rep, &d);
	size_t unsaved = session_unsaved(&s);
	if (getenv("FUZZ_EDIT_VERBOSE")) {
		fprintf(stderr, "  %zu edit(s) applied, %zu value(s) saved, %zu not saved\n", n_edits, rep.values_saved,
		        rep.values_refused);
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "  | %s\n", d.items[i].message);
		for (size_t i = 0; i < n_edits; i++)
			fprintf(stderr, "  edit %d %s = %s (was %s)\n", edits[i].rule, edits[i].path,
			        edits[i].want ? edits[i].want : "(absent)", edits[i].was ? edits[i].was : "(absent)");
	}

	size_t after_size = 0;
	fd_diags rd;
	diags_init(&rd);
	char *after = input_file_read_all(path, &after_size, &rd);
	if (!after)
		fail("the saved file cannot be read", NULL);
	if (getenv("FUZZ_EDIT_VERBOSE"))
		fprintf(stderr, "---- the file saved:\n%s\n----\n", after);
	if (!rep.files_written && (after_size != yaml_size || memcmp(after, data, yaml_size)))
		fail("nothing was saved, yet the file changed", NULL);
	fd_yfile now;
	if (yfile_load_buffer(&now, path, after, after_size, &rd) < 0)
		fail("the saved file does not parse", rd.n ? rd.items[0].message : NULL);
	if (now.n_docs != before.n_docs)
		fail("the saved file has another number of documents", NULL);

	fd_session back;
	diags_clear(&rd);
	if (open_on(&back, path, &rd) < 0)
		fail("the saved file does not load as rules", rd.n ? rd.items[0].message : NULL);
	/* each edited value: the session's, or (not saved) the file's as it was */
	size_t as_before = 0;
	for (size_t i = 0; i < n_edits; i++) {
		char *got = session_get_text(&back, edits[i].rule, edits[i].path);
		bool is_new = same_text(got, edits[i].want, edits[i].path);
		if (!is_new && !same_text(got, edits[i].was, edits[i].path))
			fail("an edited value reads back as neither the edit nor the old value", edits[i].path);
		as_before += !is_new;
		free(got);
	}
	if (as_before > unsaved)
		fail("values were not saved that the session counts as saved", NULL);
	/* every other value as before */
	for (size_t i = 0; i < all.n; i++) {
		if (is_edited(edits, n_edits, all.items[i].rule, all.items[i].path))
			continue;
		char *a = session_get_text(&s, all.items[i].rule, all.items[i].path);
		char *b = session_get_text(&back, all.items[i].rule, all.items[i].path);
		if (!same_text(a, b, all.items[i].path))
			fail("a value nobody edited changed", all.items[i].path);
		free(a);
		free(b);
	}
	/* the bytes outside the edits */
	size_t n_lines = count_lines((const char *)data, yaml_size);
	bool *mark = calloc(n_lines + 1, sizeof *mark);
	for (size_t i = 0; i < n_edits; i++)
		mark_path(&before, session_rules(&s)->rules[edits[i].rule].doc_index, edits[i].path, mark, n_lines);
	if (!lines_kept((const char *)data, yaml_size, mark, after, after_size))
		fail("a line outside the edited values changed", NULL);

	free(mark);
	session_close(&back);
	yfile_release(&now);
	for (size_t i = 0; i < n_edits; i++) {
		free(edits[i].path);
		free(edits[i].leaf);
		free(edits[i].want);
		free(edits[i].was);
	}
	free(after);
	leaves_release(&all);
	yfile_release(&before);
	session_close(&s);
	diags_release(&rd);
	diags_release(&d);
	return 0;
}
