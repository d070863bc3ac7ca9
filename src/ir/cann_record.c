/* cann_record.c — fusion_result.json's layouts into records (cann_record.h):
 * the JSON tree (base/json_read.h) walked once, each record's id and
 * sections taken wherever the layout puts them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json_read.h"
#include "base/vec.h"
#include "ir/cann_record.h"

#define ID_PREFIX "session_and_graph_id"

static const char *const section_names[CANN_SECTION_COUNT] = { "graph_fusion", "ub_fusion" };

const char *cann_section_name(fd_cann_section s)
{
	return s < CANN_SECTION_COUNT ? section_names[s] : "?";
}

typedef struct walker {
	fd_cann_records *out;
	VEC(fd_cann_record) recs;
	fd_diags *d;
} walker;

static fd_srcpos at(const walker *w, const fd_jval *v)
{
	return (fd_srcpos){ w->out->path, v->line, v->col };
}

static const char *kind_words(const fd_jval *v)
{
	static const char *const words[] = { [JV_NULL] = "null", [JV_BOOL] = "true or false", [JV_NUMBER] = "a number",
	                                     [JV_STRING] = "a string", [JV_ARRAY] = "an array", [JV_OBJECT] = "an object" };
	return words[v->kind];
}

/* Adds the count v (absent or null: nothing) to *sum. A count is a whole
 * number from 0 to LLONG_MAX, a JSON number or a string of digits, read
 * from its text; anything else is an error at v. A pass named twice in one
 * section has its counts added, never past LLONG_MAX. */
static int add_count(walker *w, long long *sum, const fd_jval *v, const char *pass, const char *field)
{
	if (!v || v->kind == JV_NULL)
		return 0;
	const char *text = v->kind == JV_NUMBER || v->kind == JV_STRING ? v->str : NULL;
	const char *digits = text && *text == '-' ? text + 1 : text;
	if (!digits || !*digits || strspn(digits, "0123456789") != strlen(digits)) {
		diag_error(w->d, at(w, v), "pass '%.200s': %s %s%.40s%s is not a count (a whole number)", pass, field,
		           text ? "'" : "", text ? text : "(not a number)", text ? "'" : "");
		return -1;
	}
	if (*text == '-' && strspn(digits, "0") != strlen(digits)) {
		diag_error(w->d, at(w, v), "pass '%.200s': %s %.40s is negative", pass, field, text);
		return -1;
	}
	errno = 0;
	long long n = strtoll(digits, NULL, 10);
	if (errno == ERANGE) {
		diag_error(w->d, at(w, v), "pass '%.200s': %s %.40s is out of range (at most %lld)", pass, field, text,
		           LLONG_MAX);
		return -1;
	}
	if (*sum < 0)
		*sum = 0;
	if (n > LLONG_MAX - *sum) {
		diag_error(w->d, at(w, v), "pass '%.200s': %s, named twice in one section, adds up past %lld", pass,
		           field, LLONG_MAX);
		return -1;
	}
	*sum += n;
	return 0;
}

static int read_section(walker *w, fd_cann_record *rec, fd_cann_section s, const fd_jval *sec)
{
	if (sec->kind != JV_OBJECT) {
		diag_error(w->d, at(w, sec), "\"%s\" is %s, not an object of passes", section_names[s], kind_words(sec));
		return -1;
	}
	fd_cann_pass *passes = arena_array(&w->out->arena, sec->n + 1, sizeof *passes);
	size_t n = 0;
	for (size_t k = 0; k < sec->n; k++) {
		const fd_jval *counts = sec->items[k];
		if (counts->kind != JV_OBJECT) {
			diag_error(w->d, at(w, counts), "pass '%.200s' in \"%s\" is %s, not an object of counts "
			           "(\"match_times\", \"effect_times\")", sec->keys[k], section_names[s], kind_words(counts));
			return -1;
		}
		fd_cann_pass *p = NULL;
		for (size_t j = 0; j < n && !p; j++)
			if (!strcmp(passes[j].name, sec->keys[k]))
				p = &passes[j];
		if (!p) {
			p = &passes[n++];
			*p = (fd_cann_pass){ sec->keys[k], 0, 0, -1, counts->line, counts->col };
		}
		if (add_count(w, &p->match, jval_get(counts, "match_times"), p->name, "match_times") < 0 ||
		    add_count(w, &p->effect, jval_get(counts, "effect_times"), p->name, "effect_times") < 0 ||
		    add_count(w, &p->repository_hit, jval_get(counts, "repository_hit_times"), p->name,
		              "repository_hit_times") < 0)
			return -1;
	}
	rec->passes[s] = passes;
	rec->n_passes[s] = n;
	return 0;
}

/* A count written as a string or a number, as an id part: its text. */
static const char *id_part(const fd_jval *v)
{
	return v && (v->kind == JV_STRING || v->kind == JV_NUMBER) ? v->str : NULL;
}

static bool is_record_key(const char *k)
{
	return !strcmp(k, "graph_fusion") || !strcmp(k, "ub_fusion") || !strcmp(k, ID_PREFIX) ||
	       !strcmp(k, "sessionId") || !strcmp(k, "graphId");
}

/* obj is one record: its sections and its id (given, or from its key). */
static int read_record(walker *w, const fd_jval *obj, const char *id, const char *layout)
{
	fd_cann_record rec = { .id = id, .layout = layout, .line = obj->line, .col = obj->col, .copies = 1 };
	const fd_jval *sg = jval_get(obj, ID_PREFIX), *sess = jval_get(obj, "sessionId"), *graph = jval_get(obj, "graphId");
	if (!rec.id && id_part(sg)) {
		rec.id = id_part(sg);
	} else if (!rec.id && (id_part(sess) || id_part(graph))) {
		char buf[160];
		snprintf(buf, sizeof buf, "%.70s_%.70s", id_part(sess) ? id_part(sess) : "?", id_part(graph) ? id_part(graph) : "?");
		rec.id = arena_strdup(&w->out->arena, buf);
		rec.layout = "graphId";
	}
	if (!rec.id)
		rec.id = "";
	for (int s = 0; s < CANN_SECTION_COUNT; s++) {
		const fd_jval *sec = jval_get(obj, section_names[s]);
		if (sec && read_section(w, &rec, (fd_cann_section)s, sec) < 0)
			return -1;
	}
	vec_push(&w->recs, rec);
	return 0;
}

static int not_a_record(walker *w, const fd_jval *v)
{
	if (v->kind == JV_OBJECT && v->n)
		diag_error(w->d, at(w, v), "not a CANN fusion_result.json: an object with \"%.80s\" (%d:%d) and no "
		           "\"graph_fusion\", \"ub_fusion\" or \"" ID_PREFIX "_S_G\" member", v->keys[0],
		           v->items[0]->line, v->items[0]->col);
	else
		diag_error(w->d, at(w, v), "not a CANN fusion_result.json: %s where a record (an object with "
		           "\"graph_fusion\" or \"ub_fusion\") was expected", v->kind == JV_OBJECT ? "an empty object" :
		           kind_words(v));
	return -1;
}

/* One top-level value, or an item of a list: a record, an object of
 * records keyed by id, or (top level only) a list of records. */
static int read_value(walker *w, const fd_jval *v, bool in_list)
{
	if (v->kind == JV_ARRAY && !in_list) {
		for (size_t k = 0; k < v->n; k++)
			if (read_value(w, v->items[k], true) < 0)
				return -1;
		return 0;
	}
	if (v->kind != JV_OBJECT)
		return not_a_record(w, v);
	bool record = false, keyed = false;
	for (size_t k = 0; k < v->n; k++) {
		record |= is_record_key(v->keys[k]);
		keyed |= !strncmp(v->keys[k], ID_PREFIX "_", sizeof ID_PREFIX);
	}
	if (!record && !keyed)
		return not_a_record(w, v);
	if (record && read_record(w, v, NULL, in_list ? "list" : "object") < 0)
		return -1;
	for (size_t k = 0; keyed && k < v->n; k++) {
		if (strncmp(v->keys[k], ID_PREFIX "_", sizeof ID_PREFIX))
			continue;
		if (v->items[k]->kind != JV_OBJECT) {
			diag_error(w->d, at(w, v->items[k]), "\"%.80s\" is %s, not a record (an object with \"graph_fusion\" "
			           "or \"ub_fusion\")", v->keys[k], kind_words(v->items[k]));
			return -1;
		}
		if (read_record(w, v->items[k], v->keys[k] + sizeof ID_PREFIX, "keyed") < 0)
			return -1;
	}
	return 0;
}

static bool same_passes(const fd_cann_record *a, const fd_cann_record *b)
{
	for (int s = 0; s < CANN_SECTION_COUNT; s++) {
		if (a->n_passes[s] != b->n_passes[s])
			return false;
		for (size_t k = 0; k < a->n_passes[s]; k++) {
			const fd_cann_pass *p = &a->passes[s][k], *q = &b->passes[s][k];
			if (strcmp(p->name, q->name) || p->match != q->match || p->effect != q->effect ||
			    p->repository_hit != q->repository_hit)
				return false;
		}
	}
	return true;
}

/* Records of one id with the same counts are one graph written by several
 * processes (or appended again): kept once, counted in copies. */
static void fold_copies(walker *w)
{
	size_t n = 0;
	for (size_t k = 0; k < w->recs.n; k++) {
		fd_cann_record *r = &w->recs.items[k];
		size_t j = 0;
		while (j < n && !(!strcmp(w->recs.items[j].id, r->id) && same_passes(&w->recs.items[j], r)))
			j++;
		if (j < n)
			w->recs.items[j].copies++;
		else
			w->recs.items[n++] = *r;
	}
	w->recs.n = n;
}

/* The JSON reader's error, with what it means in a file several writers
 * append to: where a record starts inside another, two of them interleaved. */
static void json_error(const char *path, const char *text, size_t size, const fd_diags *jd, fd_diags *d)
{
	const fd_diag *e = &jd->items[0];
	size_t off = 0;
	for (int line = 1; off < size && line < e->pos.line; off++)
		line += text[off] == '\n';
	off += e->pos.col > 0 ? (size_t)e->pos.col - 1 : 0;
	if (off < size && (text[off] == '{' || text[off] == '['))
		diag_error(d, (fd_srcpos){ path, e->pos.line, e->pos.col }, "%s: a record starts inside another one "
		           "here: two writers interleaved their records (a file written by several processes at once)",
		           e->message);
	else
		diag_error(d, (fd_srcpos){ path, e->pos.line, e->pos.col }, "%s", e->message);
}

int cann_records_read(fd_cann_records *out, const char *path, const char *text, size_t size, fd_diags *d)
{
	memset(out, 0, sizeof *out);
	arena_init(&out->arena);
	out->path = path;
	fd_diags jd;
	diags_init(&jd);
	fd_jdoc doc;
	if (jdoc_parse(&doc, path, text, size, &jd) < 0) {
		json_error(path, text, size, &jd, d);
		diags_release(&jd);
		cann_records_release(out);
		return -1;
	}
	diags_release(&jd);
	walker w = { .out = out, .d = d };
	int rc = 0;
	out->n_values = doc.n_values;
	for (size_t k = 0; rc == 0 && k < doc.n_values; k++)
		rc = read_value(&w, doc.n_values > 1 ? doc.root->items[k] : doc.root, false);
	if (rc == 0 && w.recs.n == 0) {
		diag_error(d, (fd_srcpos){ path, doc.root->line, doc.root->col }, "not a CANN fusion_result.json: "
		           "an empty list, no record in it");
		rc = -1;
	}
	/* the records point into the tree: the strings they keep are copied */
	if (rc == 0) {
		fold_copies(&w);
		out->n = w.recs.n;
		out->items = arena_memdup(&out->arena, w.recs.items, w.recs.n * sizeof *w.recs.items);
		for (size_t k = 0; k < out->n; k++) {
			fd_cann_record *r = &out->items[k];
			r->id = arena_strdup(&out->arena, r->id);
			for (int s = 0; s < CANN_SECTION_COUNT; s++)
				for (size_t j = 0; j < r->n_passes[s]; j++)
					r->passes[s][j].name = arena_strdup(&out->arena, r->passes[s][j].name);
		}
	}
	vec_release(&w.recs);
	jdoc_release(&doc);
	if (rc < 0)
		cann_records_release(out);
	return rc;
}

void cann_records_release(fd_cann_records *recs)
{
	arena_release(&recs->arena);
	memset(recs, 0, sizeof *recs);
}

size_t cann_records_graphs(const fd_cann_records *recs)
{
	size_t n = 0;
	for (size_t k = 0; k < recs->n; k++) {
		size_t j = 0;
		while (j < k && strcmp(recs->items[j].id, recs->items[k].id))
			j++;
		n += j == k;
	}
	return n;
}

char *cann_records_ids(const fd_cann_records *recs, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < recs->n && used < size; k++) {
		size_t j = 0;
		while (j < k && strcmp(recs->items[j].id, recs->items[k].id))
			j++;
		if (j < k)
			continue;
		int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", *recs->items[k].id ? recs->items[k].id
		                 : "(no id)");
		used += w > 0 ? (size_t)w : 0;
	}
	return buf;
}
