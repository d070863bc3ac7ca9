/* json_read.c — the recursive-descent reader of json_read.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/json_read.h"
#include "base/vec.h"

typedef struct reader {
	fd_jdoc *doc;
	const char *path, *p, *end, *bol;
	int line;
	size_t values;
	fd_diags *d;
	bool failed;
} reader;

static void fail(reader *r, const char *what)
{
	if (!r->failed)
		diag_error(r->d, (fd_srcpos){ r->path, r->line, (int)(r->p - r->bol) + 1 }, "JSON: %s", what);
	r->failed = true;
}

static void skip_ws(reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n')) {
		if (*r->p == '\n') {
			r->line++;
			r->bol = r->p + 1;
		}
		r->p++;
	}
}

static fd_jval *new_val(reader *r, fd_jkind kind)
{
	if (++r->values > JSON_MAX_VALUES) {
		fail(r, "more values than the reader takes");
		return NULL;
	}
	fd_jval *v = arena_alloc(&r->doc->arena, sizeof *v);
	v->kind = kind;
	v->line = r->line;
	v->col = (int)(r->p - r->bol) + 1;
	return v;
}

static void put_utf8(char *out, size_t *n, unsigned c)
{
	if (c < 0x80) {
		out[(*n)++] = (char)c;
	} else if (c < 0x800) {
		out[(*n)++] = (char)(0xc0 | c >> 6);
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		out[(*n)++] = (char)(0xe0 | c >> 12);
		out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3f));
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | c >> 18);
		out[(*n)++] = (char)(0x80 | (c >> 12 & 0x3f));
		out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3f));
		out[(*n)++] = (char)(0x80 | (c & 0x3f));
	}
}

static int hex4(const char *s)
{
	int v = 0;
	for (int k = 0; k < 4; k++) {
		char c = s[k];
		v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		              c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1000);
	}
	return v < 0 ? -1 : v;
}

static const char *read_string(reader *r)
{
	r->p++;   /* the opening quote */
	const char *s = r->p;
	while (r->p < r->end && *r->p != '"') {
		if ((unsigned char)*r->p < 0x20) {
			fail(r, "a control character in a string");
			return NULL;
		}
		r->p += *r->p == '\\' && r->p + 1 < r->end ? 2 : 1;
	}
	if (r->p >= r->end) {
		fail(r, "a string without its closing quote");
		return NULL;
	}
	char *out = arena_alloc(&r->doc->arena, (size_t)(r->p - s) + 1);
	size_t n = 0;
	for (const char *q = s; q < r->p; q++) {
		if (*q != '\\') {
			out[n++] = *q;
			continue;
		}
		q++;
		switch (*q) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'u': {
			int c = q + 4 < r->p ? hex4(q + 1) : -1;
			if (c < 0) {
				fail(r, "a bad \\u escape");
				return NULL;
			}
			q += 4;
			/* a surrogate pair, else one code point (a lone surrogate or NUL: U+FFFD) */
			if (c >= 0xd800 && c < 0xdc00 && q + 6 < r->p && q[1] == '\\' && q[2] == 'u') {
				int lo = hex4(q + 3);
				if (lo >= 0xdc00 && lo < 0xe000) {
					c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
					q += 6;
				}
			}
			if (c == 0 || (c >= 0xd800 && c < 0xe000))
				c = 0xfffd;
			put_utf8(out, &n, (unsigned)c);
			break;
		}
		default: out[n++] = *q; break;
		}
	}
	out[n] = '\0';
	r->p++;
	return out;
}

static fd_jval *read_value(reader *r, int depth);

static fd_jval *read_container(reader *r, int depth, bool object)
{
	fd_jval *v = new_val(r, object ? JV_OBJECT : JV_ARRAY);
	if (!v)
		return NULL;
	r->p++;
	VEC(fd_jval *) items = { 0 };
	VEC(const char *) keys = { 0 };
	skip_ws(r);
	char close = object ? '}' : ']';
	while (!r->failed && r->p < r->end && *r->p != close) {
		if (items.n) {
			if (*r->p != ',') {
				fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
				break;
			}
			r->p++;
			skip_ws(r);
		}
		if (object) {
			if (r->p >= r->end || *r->p != '"') {
				fail(r, "expected a member name in quotes");
				break;
			}
			const char *k = read_string(r);
			skip_ws(r);
			if (!k || r->p >= r->end || *r->p != ':') {
				fail(r, "expected ':' after a member name");
				break;
			}
			r->p++;
			vec_push(&keys, k);
		}
		fd_jval *x = read_value(r, depth + 1);
		if (!x)
			break;
		vec_push(&items, x);
		skip_ws(r);
	}
	if (!r->failed && r->p >= r->end)
		fail(r, object ? "an object without its '}'" : "an array without its ']'");
	if (!r->failed)
		r->p++;
	v->n = items.n;
	v->items = arena_memdup(&r->doc->arena, items.items, items.n * sizeof *items.items);
	if (object)
		v->keys = arena_memdup(&r->doc->arena, keys.items, keys.n * sizeof *keys.items);
	vec_release(&items);
	vec_release(&keys);
	return r->failed ? NULL : v;
}

static bool word(reader *r, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return false;
	r->p += n;
	return true;
}

static fd_jval *read_value(reader *r, int depth)
{
	skip_ws(r);
	if (depth > JSON_MAX_DEPTH) {
		fail(r, "nested deeper than the reader takes");
		return NULL;
	}
	if (r->p >= r->end) {
		fail(r, "a value was expected");
		return NULL;
	}
	char c = *r->p;
	if (c == '{' || c == '[')
		return read_container(r, depth, c == '{');
	fd_jval *v = new_val(r, JV_NULL);
	if (!v)
		return NULL;
	if (c == '"') {
		v->kind = JV_STRING;
		v->str = read_string(r);
		return v->str ? v : NULL;
	}
	if (word(r, "true") || word(r, "false")) {
		v->kind = JV_BOOL;
		v->b = r->p[-1] == 'e' && r->p[-2] == 'u';
		return v;
	}
	if (word(r, "null"))
		return v;
	if (c == '-' || (c >= '0' && c <= '9')) {
		/* the text is kept: a count read from it exactly, not through a double */
		const char *start = r->p;
		while (r->p < r->end && *r->p && strchr("+-0123456789.eE", *r->p))
			r->p++;
		char *text = arena_strndup(&r->doc->arena, start, (size_t)(r->p - start));
		char *e;
		v->kind = JV_NUMBER;
		v->str = text;
		v->num = strtod(text, &e);
		if (*e) {
			fail(r, "a malformed number");
			return NULL;
		}
		return v;
	}
	fail(r, "a value was expected (object, array, string, number, true, false or null)");
	return NULL;
}

static void reader_start(reader *r, fd_jdoc *doc, const char *path, const char *text, size_t size, fd_diags *d)
{
	memset(doc, 0, sizeof *doc);
	arena_init(&doc->arena);
	*r = (reader){ doc, path, text, text + size, text, 1, 0, d, false };
	if (size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		r->p += 3;   /* a BOM */
	skip_ws(r);
}

int jdoc_parse(fd_jdoc *doc, const char *path, const char *text, size_t size, fd_diags *d)
{
	reader r;
	reader_start(&r, doc, path, text, size, d);
	VEC(fd_jval *) top = { 0 };
	while (!r.failed && r.p < r.end) {
		fd_jval *v = read_value(&r, 0);
		if (v)
			vec_push(&top, v);
		skip_ws(&r);
		if (v && r.p < r.end && *r.p == ',') {   /* "}, {": appended with a comma */
			r.p++;
			skip_ws(&r);
			if (r.p >= r.end)
				fail(&r, "a value was expected after ','");
		}
	}
	if (!r.failed && top.n == 0)
		fail(&r, "the file holds no value");
	if (r.failed) {
		vec_release(&top);
		jdoc_release(doc);
		return -1;
	}
	doc->n_values = top.n;
	if (top.n == 1) {
		doc->root = top.items[0];
	} else {
		doc->root = arena_alloc(&doc->arena, sizeof *doc->root);
		*doc->root = (fd_jval){ .kind = JV_ARRAY, .line = 1, .col = 1, .n = top.n,
		                        .items = arena_memdup(&doc->arena, top.items, top.n * sizeof *top.items) };
	}
	vec_release(&top);
	return 0;
}

int jdoc_parse_first(fd_jdoc *doc, const char *path, const char *text, size_t size, size_t *end, fd_diags *d)
{
	reader r;
	reader_start(&r, doc, path, text, size, d);
	if (r.p >= r.end)
		fail(&r, "the file holds no value");
	doc->root = r.failed ? NULL : read_value(&r, 0);
	if (!doc->root) {
		jdoc_release(doc);
		return -1;
	}
	doc->n_values = 1;
	*end = (size_t)(r.p - text);
	return 0;
}

void jdoc_release(fd_jdoc *doc)
{
	arena_release(&doc->arena);
	memset(doc, 0, sizeof *doc);
}

const fd_jval *jval_get(const fd_jval *obj, const char *key)
{
	if (!obj || obj->kind != JV_OBJECT)
		return NULL;
	for (size_t k = 0; k < obj->n; k++)
		if (!strcmp(obj->keys[k], key))
			return obj->items[k];
	return NULL;
}
