/* cann_switch.c — the fusion switch file in both of FE's forms
 * (cann_switch.h): one JSON value first, as FE reads it, else lines. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json_read.h"
#include "base/vec.h"
#include "ir/cann_switch.h"

static const char *const sections[CANN_SECTION_COUNT] = { "GraphFusion", "UBFusion" };

typedef struct reader {
	fd_cann_switch *sw;
	bool builtin;
	fd_diags *d;
	VEC(fd_cann_switch_entry) entries, exceptional;
	VEC(fd_cann_priority) priorities;
} reader;

static fd_srcpos at(const reader *r, int line, int col)
{
	return (fd_srcpos){ r->sw->path, line, col };
}

/* s without the blanks FE's Trim takes off both ends (isspace). */
static char *trimmed(fd_arena *a, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return arena_strndup(a, s, n);
}

/* ---- lines --------------------------------------------------------------------------- */

static int read_lines(reader *r, const char *text, size_t size)
{
	int line = 0;
	for (size_t at_ = 0; at_ < size;) {
		const char *s = text + at_, *nl = memchr(s, '\n', size - at_);
		size_t n = nl ? (size_t)(nl - s) : size - at_;
		at_ += n + 1;
		line++;
		if (n == 0)
			continue;
		const char *colon = memchr(s, ':', n);
		if (!colon) {
			bool blank = true;
			for (size_t k = 0; k < n; k++)
				blank &= isspace((unsigned char)s[k]) != 0;
			diag_error(r->d, at(r, line, 1), "%s: FE takes \"Pass:on\" or \"Pass:off\", one a line, and skips "
			           "only empty lines (no comments)", blank ? "a line of blanks (a carriage return?) is not "
			           "empty" : "a line without ':'");
			return -1;
		}
		char *key = trimmed(&r->sw->arena, s, (size_t)(colon - s));
		char *value = trimmed(&r->sw->arena, colon + 1, n - (size_t)(colon - s) - 1);
		int col = (int)(colon - s) + 2;
		if (strcmp(value, "on") && strcmp(value, "off")) {
			diag_error(r->d, at(r, line, col), "'%.200s': the value is '%.60s', FE takes exactly \"on\" or \"off\"",
			           key, value);
			return -1;
		}
		if (!*key)
			continue;   /* FE checks the value, then skips a line with no name */
		for (size_t k = 0; k < r->entries.n; k++)
			if (!strcmp(r->entries.items[k].name, key)) {
				diag_error(r->d, at(r, line, 1), "'%.200s' is given twice, at lines %d and %d: FE refuses a "
				           "name given twice", key, r->entries.items[k].line, line);
				return -1;
			}
		fd_cann_switch_entry e = { key, -1, !strcmp(value, "on"), line, 1 };
		vec_push(&r->entries, e);
	}
	return 0;
}

/* ---- JSON ---------------------------------------------------------------------------- */

static const char *kind_words(const fd_jval *v)
{
	static const char *const words[] = { [JV_NULL] = "null", [JV_BOOL] = "true or false", [JV_NUMBER] = "a number",
	                                     [JV_STRING] = "a string", [JV_ARRAY] = "an array", [JV_OBJECT] = "an object" };
	return words[v->kind];
}

static char *trim_key(reader *r, const char *key)
{
	return trimmed(&r->sw->arena, key, strlen(key));
}

/* The member names of obj, each against the earlier ones: a name given
 * twice is refused, as the line form refuses it, naming both places (which
 * of the two is meant no reader can know). -1 with the error. */
static int refuse_twice(reader *r, const fd_jval *obj, const char *where)
{
	for (size_t k = 1; k < obj->n; k++)
		for (size_t j = 0; j < k; j++)
			if (!strcmp(obj->keys[j], obj->keys[k])) {
				diag_error(r->d, at(r, obj->items[k]->line, obj->items[k]->col), "%s names '%.200s' twice, at "
				           "%d:%d and %d:%d: a name given twice is refused", where, obj->keys[k],
				           obj->items[j]->line, obj->items[j]->col, obj->items[k]->line, obj->items[k]->col);
				return -1;
			}
	return 0;
}

static int read_switch(reader *r, const fd_jval *sec, int s, bool applied)
{
	if (refuse_twice(r, sec, sections[s]) < 0)
		return -1;
	for (size_t k = 0; k < sec->n; k++) {
		const fd_jval *v = sec->items[k];
		const char *key = sec->keys[k];
		if (v->kind != JV_STRING) {
			diag_error(r->d, at(r, v->line, v->col), "'%.200s': %s, FE takes the string \"on\" or \"off\"", key,
			           kind_words(v));
			return -1;
		}
		char *value = trim_key(r, v->str);
		if (strcmp(value, "on") && strcmp(value, "off")) {
			diag_error(r->d, at(r, v->line, v->col), "'%.200s': expected \"on\" or \"off\"", key);
			return -1;
		}
		if (strcmp(value, v->str))
			diag_warning(r->d, at(r, v->line, v->col), "'%.200s': FE checks the value trimmed but applies it as "
			             "written: '%.20s' is not \"on\", so the pass is off", key, v->str);
		if (strcmp(trim_key(r, key), key))
			diag_warning(r->d, at(r, v->line, v->col), "'%.200s': FE keys the pass with the blanks around its "
			             "name, so it names no pass", key);
		if (!*key || !applied)
			continue;
		fd_cann_switch_entry e = { arena_strdup(&r->sw->arena, key), s, !strcmp(v->str, "on"), v->line, v->col };
		size_t j = 0;
		while (j < r->entries.n && !(r->entries.items[j].section == s && !strcmp(r->entries.items[j].name, e.name)))
			j++;
		if (j < r->entries.n)
			r->entries.items[j] = e;
		else
			vec_push(&r->entries, e);
	}
	return 0;
}

/* FE's ranges: [low, high) per level, a user's file below the built-in one's. */
static int read_priority(reader *r, const fd_jval *sec, int s)
{
	static const char *const levels[] = { "Top", "Main", "Down" };
	size_t first = r->priorities.n;
	for (size_t k = 0; k < sec->n; k++) {
		const fd_jval *lv = sec->items[k];
		char *level = trim_key(r, sec->keys[k]);
		int li = 0;
		while (li < 3 && strcmp(level, levels[li]))
			li++;
		if (li == 3) {
			diag_error(r->d, at(r, lv->line, lv->col), "Priority.%s: '%.100s' is not a level: FE takes \"Top\", "
			           "\"Main\" and \"Down\"", sections[s], sec->keys[k]);
			return -1;
		}
		if (lv->kind != JV_OBJECT) {
			diag_error(r->d, at(r, lv->line, lv->col), "Priority.%s.%s is %s, not an object of \"Pass\": "
			           "\"priority\"", sections[s], level, kind_words(lv));
			return -1;
		}
		long low = (r->builtin ? 3000 : 0) + 1000L * li, high = li < 2 || !r->builtin ? low + 1000 : 6000;
		for (size_t j = 0; j < lv->n; j++) {
			const fd_jval *v = lv->items[j];
			char *name = trim_key(r, lv->keys[j]);
			const char *text = v->kind == JV_STRING ? trim_key(r, v->str) : NULL;
			for (size_t q = first; q < r->priorities.n; q++)
				if (!strcmp(r->priorities.items[q].name, name)) {
					diag_error(r->d, at(r, v->line, v->col), "Priority.%s names '%.200s' twice (also at %d:%d): "
					           "FE refuses it", sections[s], name, r->priorities.items[q].line,
					           r->priorities.items[q].col);
					return -1;
				}
			char *end = NULL;
			errno = 0;
			long p = text && *text ? strtol(text, &end, 10) : 0;
			if (!text || !*text || *end || errno || p < low || p >= high) {
				diag_error(r->d, at(r, v->line, v->col), "Priority.%s.%s.%s: %s%.40s%s is not a priority FE "
				           "takes: a string of an integer in [%ld, %ld) in a %s file", sections[s], level, name,
				           text ? "'" : "", text ? text : kind_words(v), text ? "'" : "", low, high,
				           r->builtin ? "built-in" : "user's");
				return -1;
			}
			fd_cann_priority e = { name, levels[li], s, p, v->line, v->col };
			vec_push(&r->priorities, e);
		}
	}
	return 0;
}

static int read_exceptional(reader *r, const fd_jval *arr)
{
	for (size_t k = 0; k < arr->n; k++) {
		const fd_jval *v = arr->items[k];
		if (v->kind != JV_STRING) {
			diag_error(r->d, at(r, v->line, v->col), "ExceptionalPassOfO1Level: %s, FE takes pass names (strings)",
			           kind_words(v));
			return -1;
		}
		if (!*v->str)
			continue;
		fd_cann_switch_entry e = { arena_strdup(&r->sw->arena, v->str), -1, true, v->line, v->col };
		vec_push(&r->exceptional, e);
	}
	return 0;
}

/* Switch or Priority: its sections, checked as FE checks them (trimmed),
 * read where FE applies them (the exact names). */
static int read_sections(reader *r, const fd_jval *obj, const char *top, bool applied)
{
	bool is_switch = !strcmp(trim_key(r, top), "Switch");
	if (is_switch && refuse_twice(r, obj, top) < 0)
		return -1;
	for (size_t k = 0; k < obj->n; k++) {
		const fd_jval *sec = obj->items[k];
		char *name = trim_key(r, obj->keys[k]);
		int s = !strcmp(name, sections[0]) ? 0 : !strcmp(name, sections[1]) ? 1 : -1;
		if (s < 0) {
			diag_error(r->d, at(r, sec->line, sec->col), "%s: '%.100s' is not a section: FE takes \"GraphFusion\" "
			           "and \"UBFusion\"", top, obj->keys[k]);
			return -1;
		}
		if (sec->kind != JV_OBJECT) {
			diag_error(r->d, at(r, sec->line, sec->col), "%s.%s is %s, not an object", top, name, kind_words(sec));
			return -1;
		}
		bool exact = !strcmp(name, obj->keys[k]);
		if (!exact && applied)
			diag_warning(r->d, at(r, sec->line, sec->col), "%s: FE accepts '%.100s' but looks up \"%s\" exactly: "
			             "it ignores this section", top, obj->keys[k], name);
		if ((is_switch ? read_switch(r, sec, s, applied && exact) : read_priority(r, sec, s)) < 0)
			return -1;
	}
	return 0;
}

static int read_json(reader *r, const fd_jval *root)
{
	if (root->kind == JV_NULL) {
		diag_warning(r->d, at(r, root->line, root->col), "the file is JSON null: FE takes it as no switch file");
		return 0;
	}
	if (root->kind != JV_OBJECT) {
		diag_error(r->d, at(r, root->line, root->col), "FE reads the file as JSON (it starts with a JSON value) and "
		           "its top level is %s, not an object", kind_words(root));
		return -1;
	}
	if (refuse_twice(r, root, "the file") < 0)
		return -1;
	for (size_t k = 0; k < root->n; k++) {
		const fd_jval *v = root->items[k];
		char *key = trim_key(r, root->keys[k]);
		bool exact = !strcmp(key, root->keys[k]);
		if (!strcmp(key, "ExceptionalPassOfO1Level")) {
			if (v->kind != JV_ARRAY) {
				diag_error(r->d, at(r, v->line, v->col), "ExceptionalPassOfO1Level is %s, not an array of pass "
				           "names", kind_words(v));
				return -1;
			}
			if (exact && read_exceptional(r, v) < 0)
				return -1;
			continue;
		}
		if (strcmp(key, "Switch") && strcmp(key, "Priority")) {
			diag_error(r->d, at(r, v->line, v->col), "'%.100s': FE takes only \"Switch\", \"Priority\" and "
			           "\"ExceptionalPassOfO1Level\" at the top level", root->keys[k]);
			return -1;
		}
		if (v->kind != JV_OBJECT) {
			diag_error(r->d, at(r, v->line, v->col), "%s is %s, not an object of \"GraphFusion\" and \"UBFusion\"",
			           key, kind_words(v));
			return -1;
		}
		if (!exact)
			diag_warning(r->d, at(r, v->line, v->col), "FE accepts '%.100s' but looks up \"%s\" exactly: it "
			             "ignores this part", root->keys[k], key);
		if (read_sections(r, v, root->keys[k], exact) < 0)
			return -1;
	}
	return 0;
}

/* ---- the file -------------------------------------------------------------------------- */

int cann_switch_read(fd_cann_switch *sw, const char *path, const char *text, size_t size, bool builtin,
                     fd_diags *d)
{
	memset(sw, 0, sizeof *sw);
	arena_init(&sw->arena);
	sw->path = path;
	reader r = { .sw = sw, .builtin = builtin, .d = d };
	int rc;
	if (size == 0) {
		diag_error(d, srcpos_file(path), "the file is empty: FE refuses an empty switch file");
		rc = -1;
	} else {
		fd_diags jd, ld;
		diags_init(&jd);
		diags_init(&ld);
		fd_jdoc doc;
		size_t end, k = 0;
		while (k < size && isspace((unsigned char)text[k]))
			k++;
		bool json_like = k < size && (text[k] == '{' || text[k] == '[');
		if (jdoc_parse_first(&doc, path, text, size, &end, &jd) == 0) {
			sw->form = CANN_SWITCH_JSON;
			rc = read_json(&r, doc.root);
			while (end < size && isspace((unsigned char)text[end]))
				end++;
			if (rc == 0 && end < size)
				diag_warning(d, srcpos_file(path), "FE reads the first JSON value only: what follows it is ignored");
			jdoc_release(&doc);
		} else {
			/* FE reads lines when the JSON fails; when both fail, a file that
			 * starts as JSON is told its JSON error */
			sw->form = CANN_SWITCH_LINES;
			r.d = &ld;
			rc = read_lines(&r, text, size);
			r.d = d;
			const fd_diags *say = rc < 0 && json_like ? &jd : &ld;
			for (size_t i = 0; i < say->n; i++)
				diag_add(d, say->items[i].severity, say->items[i].pos, "%s", say->items[i].message);
			if (rc == 0 && json_like)
				diag_warning(d, jd.items[0].pos, "FE read the file as lines, since it is not JSON (%s)",
				             jd.items[0].message);
		}
		diags_release(&jd);
		diags_release(&ld);
	}
	if (rc == 0) {
		sw->n_entries = r.entries.n;
		sw->entries = arena_memdup(&sw->arena, r.entries.items, r.entries.n * sizeof *r.entries.items);
		sw->n_priorities = r.priorities.n;
		sw->priorities = arena_memdup(&sw->arena, r.priorities.items, r.priorities.n * sizeof *r.priorities.items);
		sw->n_exceptional = r.exceptional.n;
		sw->exceptional = arena_memdup(&sw->arena, r.exceptional.items, r.exceptional.n * sizeof *r.exceptional.items);
	}
	vec_release(&r.entries);
	vec_release(&r.priorities);
	vec_release(&r.exceptional);
	if (rc < 0)
		cann_switch_release(sw);
	else
		sw->path = path;
	return rc;
}

void cann_switch_release(fd_cann_switch *sw)
{
	arena_release(&sw->arena);
	memset(sw, 0, sizeof *sw);
}

const fd_cann_switch_entry *cann_switch_find(const fd_cann_switch *sw, const char *name, fd_cann_section section)
{
	for (size_t k = 0; k < sw->n_entries; k++)
		if ((sw->entries[k].section < 0 || sw->entries[k].section == (int)section) &&
		    !strcmp(sw->entries[k].name, name))
			return &sw->entries[k];
	return NULL;
}
