/* yaml_tree.c — YAML text → fd_yval trees with exact positions, via libyaml's
 * event parser. The only file that includes <yaml.h>.
 *
 * Ownership: an fd_yfile owns its text and every value (f->arena).
 *
 * Positions: libyaml marks count characters (a CRLF counts two); values keep
 * 1-based line:col in characters and [start, end) in bytes of f->text, so a
 * scalar can later be rewritten in place. A UTF-8 BOM is skipped before the
 * parser sees the text and is not counted in columns.
 *
 * Aliases are shared, not copied: *a points at the value &a made, and the
 * collection holding it remembers that the item is an alias and where its
 * "*a" text is (fd_yplace), as it remembers which pairs a merge brought in,
 * so that a write-back can tell shared text from text of its own. What is
 * bounded is the size of the tree a reader would walk — every value counts
 * with its expansion (YAML_MAX_NODES) and the nesting depth through aliases
 * (YAML_MAX_DEPTH) — so a "billion laughs" file fails at the alias that
 * crosses the bound, in time and memory linear in the file. An alias may only
 * name a finished anchor, which rules out cycles. Reading the values is
 * yaml_value.c's. */
#include "rules/yaml_tree.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "base/strmap.h"
#include "base/vec.h"
#include "base/arena.h"

#define YAML_MAX_FILE (64u << 20)   /* bytes; rule files are small */

/* A value plus what the bounds need. fd_yval comes first so the two convert. */
typedef struct ynode {
	fd_yval v;
	size_t weight;    /* values in the subtree, aliases expanded */
	int height;       /* nesting levels in the subtree, aliases expanded */
} ynode;

/* ---- character index → byte offset ----------------------------------------
 * Checkpoints every 64 characters, then a short walk over UTF-8 lead bytes. */
typedef struct offmap {
	const char *text;
	size_t size, base;    /* base: bytes skipped before the parser (BOM) */
	uint32_t *cp;
	size_t ncp;
} offmap;

static size_t utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

static size_t offmap_byte(const offmap *m, size_t index)
{
	size_t k = index >> 6;
	if (k >= m->ncp)
		return m->size;
	size_t b = m->cp[k];
	for (size_t r = index & 63; r > 0 && b < m->size; r--)
		b += utf8_len((unsigned char)m->text[b]);
	return b < m->size ? b : m->size;
}

/* Line and column (1-based, column in characters) of byte offset off. */
static fd_srcpos pos_of_byte(const char *file, const char *text, size_t size, size_t off)
{
	fd_srcpos p = { file, 1, 1 };
	size_t i = (size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) ? 3 : 0;
	for (; i < off && i < size; i += utf8_len((unsigned char)text[i])) {
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= size || text[i + 1] != '\n'))) {
			p.line++;
			p.col = 1;
		} else if (text[i] != '\r') {
			p.col++;
		}
	}
	return p;
}

/* Validates UTF-8 and fills the checkpoints. Reports the first bad byte. */
static int offmap_build(offmap *m, const char *file, fd_diags *d)
{
	const unsigned char *s = (const unsigned char *)m->text;
	size_t chars = 0;
	m->ncp = 0;
	m->cp = xmalloc(((m->size - m->base) / 64 + 2) * sizeof *m->cp);
	for (size_t i = m->base; i < m->size;) {
		if ((chars & 63) == 0)
			m->cp[m->ncp++] = (uint32_t)i;
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0 && i + len <= m->size;
		uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
		for (size_t k = 1; ok && k < len; k++) {
			ok = (s[i + k] & 0xc0) == 0x80;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		/* overlong forms, surrogates, beyond U+10FFFF */
		if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		           (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
			ok = false;
		if (!ok) {
			diag_error(d, pos_of_byte(file, m->text, m->size, i),
			           "invalid UTF-8: byte 0x%02x at offset %zu does not start a valid sequence; rule files must be UTF-8",
			           s[i], i);
			return -1;
		}
		i += len;
		chars++;
	}
	m->cp[m->ncp++] = (uint32_t)m->size;   /* the index one past the end */
	return 0;
}

/* ---- the builder ---------------------------------------------------------- */

typedef struct frame {
	ynode *node;
	fd_yval **items, **keys;
	fd_yplace *places;        /* parallel to items */
	size_t n, cap;
	fd_yval *key;             /* map: the key waiting for its value */
	const char *anchor;       /* registered when the collection ends */
	size_t last_end;          /* byte after the last child's text */
	size_t last_tail;         /* the last child's tail (its trailing lines) */
	bool flow, shared;        /* shared: an item is not YP_HERE */
} frame;

typedef struct builder {
	fd_yfile *f;
	offmap map;
	fd_diags *d;
	frame stack[YAML_MAX_DEPTH + 1];
	int depth;
	size_t total;             /* values so far, aliases expanded */
	strmap anchors;           /* anchor name → index in anchor_values */
	fd_yval **anchor_values;
	size_t n_anchors, cap_anchors;
	VEC(fd_ydoc) docs;
	fd_yval *root;
	bool failed;
} builder;

static fd_srcpos mark_pos(const builder *b, yaml_mark_t m)
{
	return (fd_srcpos){ b->f->path, (int)m.line + 1, (int)m.column + 1 };
}

static void fail(builder *b, fd_srcpos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(builder *b, fd_srcpos pos, const char *fmt, ...)
{
	if (!b->failed) {
		char msg[1024];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		diag_error(b->d, pos, "%s", msg);
	}
	b->failed = true;
}

static ynode *new_node(builder *b, fd_yval_kind kind, yaml_mark_t start, yaml_mark_t end)
{
	ynode *y = arena_alloc(&b->f->arena, sizeof *y);
	y->v.kind = kind;
	y->v.pos = mark_pos(b, start);
	y->v.start = offmap_byte(&b->map, start.index);
	y->v.end = y->v.tail = offmap_byte(&b->map, end.index);
	y->weight = 1;
	y->height = 1;
	return y;
}

static void frame_push(frame *fr, fd_yval *v, fd_yplace place)
{
	if (fr->n == fr->cap) {
		fr->cap = fr->cap ? fr->cap * 2 : 8;
		fr->items = xrealloc(fr->items, fr->cap * sizeof *fr->items);
		fr->places = xrealloc(fr->places, fr->cap * sizeof *fr->places);
		if (fr->node->v.kind == YV_MAP)
			fr->keys = xrealloc(fr->keys, fr->cap * sizeof *fr->keys);
	}
	if (fr->node->v.kind == YV_MAP)
		fr->keys[fr->n] = fr->key;
	fr->places[fr->n] = place;
	fr->shared |= place.kind != YP_HERE;
	fr->items[fr->n++] = v;
	fr->key = NULL;
}

static const char *kind_word(const fd_yval *v)
{
	return v->kind == YV_SEQ ? "a list" : v->kind == YV_MAP ? "a map" : "a scalar";
}

/* Checks the bounds for value y placed at the current depth. */
static bool within_bounds(builder *b, const ynode *y, fd_srcpos pos, bool alias)
{
	if (b->depth + y->height > YAML_MAX_DEPTH) {
		fail(b, pos, "%s nested deeper than %d levels", alias ? "alias expands to values" : "values",
		     YAML_MAX_DEPTH);
		return false;
	}
	if (b->total > YAML_MAX_NODES) {
		if (alias)
			fail(b, pos, "alias expands the file beyond %d values (alias bomb?)", YAML_MAX_NODES);
		else
			fail(b, pos, "file has more than %d values", YAML_MAX_NODES);
		return false;
	}
	return true;
}

/* Places a finished value in its parent, or makes it the document root.
 * how: YP_HERE, or YP_ALIAS with the alias's own text [start, end). */
static void place(builder *b, ynode *y, fd_yplace how)
{
	size_t end = how.kind == YP_ALIAS ? how.end : y->v.end;
	size_t tail = how.kind == YP_ALIAS ? how.end : y->v.tail;
	if (b->depth == 0) {
		b->root = &y->v;
		return;
	}
	frame *fr = &b->stack[b->depth - 1];
	if (end > fr->last_end)
		fr->last_end = end;
	if (tail > fr->last_tail)
		fr->last_tail = tail;
	if (fr->node->v.kind == YV_MAP && !fr->key) {
		if (y->v.kind == YV_SEQ || y->v.kind == YV_MAP) {
			fail(b, y->v.pos, "mapping key must be a scalar, not %s", kind_word(&y->v));
			return;
		}
		if (how.kind == YP_ALIAS) {
			/* "*k: v": the key is the anchored scalar; a key of its own
			 * keeps the alias's place */
			ynode *k = arena_alloc(&b->f->arena, sizeof *k);
			*k = *y;
			k->v.start = how.start, k->v.end = k->v.tail = how.end;
			k->v.anchor = NULL, k->v.n_aliases = 0;
			y = k;
		}
		fr->key = &y->v;
		return;
	}
	frame_push(fr, &y->v, how);
}

static const fd_yplace here = { YP_HERE, 0, 0 };

static void register_anchor(builder *b, const char *name, fd_yval *v)
{
	if (!name)
		return;
	if (b->n_anchors == b->cap_anchors) {
		b->cap_anchors = b->cap_anchors ? b->cap_anchors * 2 : 16;
		b->anchor_values = xrealloc(b->anchor_values, b->cap_anchors * sizeof *b->anchor_values);
	}
	b->anchor_values[b->n_anchors] = v;
	v->anchor = arena_strdup(&b->f->arena, name);
	strmap_set(&b->anchors, v->anchor, (int32_t)b->n_anchors);
	b->n_anchors++;
}

static bool scalar_is_null(const yaml_event_t *e)
{
	if (e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = (const char *)e->data.scalar.value;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* A scalar's event starts at its anchor or tag; the value itself starts after
 * them. Skip "&name" and "!tag" words and the blanks that follow. */
static size_t skip_properties(const char *text, size_t at, size_t end, int *cols)
{
	while (at < end && (text[at] == '&' || text[at] == '!')) {
		while (at < end && text[at] != ' ' && text[at] != '\t' && text[at] != '\n' && text[at] != '\r')
			at++, (*cols)++;
		while (at < end && (text[at] == ' ' || text[at] == '\t'))
			at++, (*cols)++;
	}
	return at;
}

static void on_scalar(builder *b, const yaml_event_t *e)
{
	/* "\0" in a quoted scalar: every reader of the text would stop there */
	if (memchr(e->data.scalar.value, '\0', e->data.scalar.length)) {
		fail(b, mark_pos(b, e->start_mark), "a NUL character (\\0) in a string: rule files cannot carry one");
		return;
	}
	bool is_null = scalar_is_null(e);
	ynode *y = new_node(b, is_null ? YV_NULL : YV_SCALAR, e->start_mark, e->end_mark);
	y->v.text = arena_strndup(&b->f->arena, (const char *)e->data.scalar.value, e->data.scalar.length);
	y->v.text_len = e->data.scalar.length;
	y->v.quoted = e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	              (e->data.scalar.tag && !strcmp((const char *)e->data.scalar.tag, YAML_STR_TAG));
	if (e->data.scalar.anchor || e->data.scalar.tag) {
		int cols = 0;
		y->v.start = skip_properties(b->f->text, y->v.start, y->v.end, &cols);
		y->v.pos.col += cols;
	}
	if (e->data.scalar.style == YAML_LITERAL_SCALAR_STYLE || e->data.scalar.style == YAML_FOLDED_SCALAR_STYLE)
		while (y->v.end > y->v.start && strchr(" \t\r\n", b->f->text[y->v.end - 1]))
			y->v.end--;   /* a block scalar's event ends at the next token; its lines go to tail */
	if (is_null && y->v.end == y->v.start)
		y->v.text = "";
	b->total++;
	if (!within_bounds(b, y, y->v.pos, false))
		return;
	register_anchor(b, (const char *)e->data.scalar.anchor, &y->v);
	place(b, y, here);
}

static void on_alias(builder *b, const yaml_event_t *e)
{
	const char *name = (const char *)e->data.alias.anchor;
	int32_t i = strmap_get(&b->anchors, name);
	if (i < 0) {
		fail(b, mark_pos(b, e->start_mark),
		     "alias '*%.200s' names no finished anchor (undefined, or used inside its own anchor)", name);
		return;
	}
	ynode *y = (ynode *)b->anchor_values[i];
	b->total += y->weight;
	if (!within_bounds(b, y, mark_pos(b, e->start_mark), true))
		return;
	if (y->v.n_aliases < UINT32_MAX)
		y->v.n_aliases++;
	place(b, y, (fd_yplace){ YP_ALIAS, offmap_byte(&b->map, e->start_mark.index),
	                         offmap_byte(&b->map, e->end_mark.index) });
}

static void on_start(builder *b, const yaml_event_t *e, fd_yval_kind kind)
{
	if (b->depth >= YAML_MAX_DEPTH) {
		fail(b, mark_pos(b, e->start_mark), "values nested deeper than %d levels", YAML_MAX_DEPTH);
		return;
	}
	if (b->depth > 0) {
		frame *parent = &b->stack[b->depth - 1];
		if (parent->node->v.kind == YV_MAP && !parent->key) {
			fail(b, mark_pos(b, e->start_mark), "mapping key must be a scalar, not %s",
			     kind == YV_SEQ ? "a list" : "a map");
			return;
		}
	}
	ynode *y = new_node(b, kind, e->start_mark, e->end_mark);
	frame *fr = &b->stack[b->depth++];
	memset(fr, 0, sizeof *fr);
	fr->node = y;
	const yaml_char_t *anchor = kind == YV_SEQ ? e->data.sequence_start.anchor : e->data.mapping_start.anchor;
	fr->anchor = anchor ? arena_strdup(&b->f->arena, (const char *)anchor) : NULL;
	fr->flow = kind == YV_SEQ ? e->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
	                          : e->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
	b->total++;
	within_bounds(b, y, y->v.pos, false);
}

/* Keys compare as text; ties keep file order so the second one is reported. */
static int key_cmp(const void *pa, const void *pb)
{
	const fd_yval *a = *(fd_yval *const *)pa, *b = *(fd_yval *const *)pb;
	int c = strcmp(a->text ? a->text : "", b->text ? b->text : "");
	return c ? c : (a->start > b->start) - (a->start < b->start);
}

static bool is_merge_key(const fd_yval *k)
{
	return k->kind == YV_SCALAR && !k->quoted && !strcmp(k->text, "<<");
}

static bool frame_has_key(const frame *fr, const char *text)
{
	for (size_t i = 0; i < fr->n; i++)
		if (fr->keys[i]->text && !is_merge_key(fr->keys[i]) && !strcmp(fr->keys[i]->text, text))
			return true;
	return false;
}

/* "<<: *base" (YAML 1.1 merge): pairs of the merged maps that the mapping does
 * not write itself are appended; the "<<" pair is dropped. */
static void apply_merges(builder *b, frame *fr)
{
	size_t n = fr->n;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= is_merge_key(fr->keys[i]);
	if (!any)
		return;
	frame out = *fr;
	out.items = NULL, out.keys = NULL, out.places = NULL, out.n = out.cap = 0, out.shared = false;
	for (size_t i = 0; i < n; i++)
		if (!is_merge_key(fr->keys[i])) {
			out.key = fr->keys[i];
			frame_push(&out, fr->items[i], fr->places[i]);
		}
	for (size_t i = 0; i < n && !b->failed; i++) {
		if (!is_merge_key(fr->keys[i]))
			continue;
		fd_yval *src = fr->items[i];
		/* the text that brought the pairs: "<<" to the end of its value */
		fd_yplace merged = { YP_MERGED, fr->keys[i]->start,
		                     fr->places[i].kind == YP_ALIAS ? fr->places[i].end : src->tail };
		size_t count = src->kind == YV_SEQ ? src->n : 1;
		for (size_t s = 0; s < count; s++) {
			fd_yval *m = src->kind == YV_SEQ ? src->items[s] : src;
			if (m->kind != YV_MAP) {
				fail(b, m->pos, "merge key '<<' wants a map or a list of maps, not %s", kind_word(m));
				break;
			}
			for (size_t k = 0; k < m->n; k++)
				if (!frame_has_key(&out, m->keys[k]->text)) {
					out.key = m->keys[k];
					frame_push(&out, m->items[k], merged);
				}
		}
	}
	free(fr->items);
	free(fr->keys);
	free(fr->places);
	fr->items = out.items, fr->keys = out.keys, fr->places = out.places, fr->n = out.n, fr->cap = out.cap;
	fr->shared = out.shared;
}

static void on_end(builder *b, const yaml_event_t *e)
{
	if (b->depth == 0)
		return;
	frame *fr = &b->stack[--b->depth];
	ynode *y = fr->node;
	fd_yval *v = &y->v;
	/* a block collection ends where its last value ends, not at the next token */
	v->end = fr->flow ? offmap_byte(&b->map, e->end_mark.index) : fr->last_end > v->start ? fr->last_end : v->start;
	v->tail = fr->flow ? v->end : fr->last_tail > v->end ? fr->last_tail : v->end;
	for (size_t i = 0; i < fr->n; i++) {
		ynode *c = (ynode *)fr->items[i];
		y->weight += c->weight + (v->kind == YV_MAP ? 1 : 0);
		if (c->height + 1 > y->height)
			y->height = c->height + 1;
	}
	if (v->kind == YV_MAP && !b->failed) {
		/* duplicates: sort a copy of the keys, neighbours with equal text */
		fd_yval **sorted = xmalloc((fr->n ? fr->n : 1) * sizeof *sorted);
		size_t m = 0;
		for (size_t i = 0; i < fr->n; i++)
			if (!is_merge_key(fr->keys[i]))
				sorted[m++] = fr->keys[i];
		qsort(sorted, m, sizeof *sorted, key_cmp);
		fd_yval *dup = NULL, *first = NULL;
		for (size_t i = 1; i < m; i++)
			if (!strcmp(sorted[i]->text, sorted[i - 1]->text) &&
			    (!dup || sorted[i]->start < dup->start)) {
				size_t j = i - 1;
				while (j > 0 && !strcmp(sorted[j - 1]->text, sorted[i]->text))
					j--;
				dup = sorted[i], first = sorted[j];
			}
		if (dup)
			fail(b, dup->pos, "duplicate key '%.200s' (first written at %d:%d)", dup->text, first->pos.line,
			     first->pos.col);
		free(sorted);
		if (!b->failed)
			apply_merges(b, fr);
	}
	v->n = fr->n;
	v->items = arena_array(&b->f->arena, fr->n ? fr->n : 1, sizeof *v->items);
	if (fr->n)
		memcpy(v->items, fr->items, fr->n * sizeof *v->items);
	if (v->kind == YV_MAP) {
		v->keys = arena_array(&b->f->arena, fr->n ? fr->n : 1, sizeof *v->keys);
		if (fr->n)
			memcpy(v->keys, fr->keys, fr->n * sizeof *v->keys);
	}
	if (fr->shared && fr->n)
		v->places = arena_memdup(&b->f->arena, fr->places, fr->n * sizeof *fr->places);
	free(fr->items);
	free(fr->keys);
	free(fr->places);
	if (b->failed)
		return;
	register_anchor(b, fr->anchor, v);
	place(b, y, here);
}

static void builder_unwind(builder *b)
{
	while (b->depth > 0) {
		frame *fr = &b->stack[--b->depth];
		free(fr->items);
		free(fr->keys);
		free(fr->places);
	}
}

/* libyaml's own errors, and the clearer word for the common cause. */
static void report_parser_error(builder *b, const yaml_parser_t *p)
{
	fd_srcpos pos;
	if (p->error == YAML_READER_ERROR) {
		pos = pos_of_byte(b->f->path, b->f->text, b->f->size, b->map.base + p->problem_offset);
		fail(b, pos, "%s", p->problem ? p->problem : "cannot read the text");
		return;
	}
	pos = mark_pos(b, p->problem_mark);
	/* a tab in the indentation of the line libyaml stopped at */
	size_t at = offmap_byte(&b->map, p->problem_mark.index);
	size_t line = at;
	while (line > b->map.base && b->f->text[line - 1] != '\n' && b->f->text[line - 1] != '\r')
		line--;
	for (size_t i = line; i < b->f->size && (b->f->text[i] == ' ' || b->f->text[i] == '\t'); i++)
		if (b->f->text[i] == '\t') {
			fd_srcpos tab = { b->f->path, pos.line, (int)(i - line) + 1 };
			fail(b, tab, "%s", "tab character used for indentation (YAML indents with spaces only)");
			return;
		}
	if (p->context && p->context_mark.line != p->problem_mark.line)
		fail(b, pos, "%s %s started at %d:%d", p->problem ? p->problem : "syntax error", p->context,
		     (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	else if (p->context)
		fail(b, pos, "%s %s", p->problem ? p->problem : "syntax error", p->context);
	else
		fail(b, pos, "%s", p->problem ? p->problem : "syntax error");
}

static int parse(builder *b)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		fail(b, srcpos_file(b->f->path), "%s", "cannot initialise the YAML parser");
		return -1;
	}
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&parser, (const unsigned char *)b->f->text + b->map.base,
	                             b->f->size - b->map.base);
	bool done = false;
	while (!done && !b->failed) {
		yaml_event_t e;
		if (!yaml_parser_parse(&parser, &e)) {
			report_parser_error(b, &parser);
			break;
		}
		switch (e.type) {
		case YAML_DOCUMENT_START_EVENT:
			b->root = NULL;
			break;
		case YAML_DOCUMENT_END_EVENT: {
			fd_ydoc doc = { .file = b->f->path, .index = (int)b->docs.n, .root = b->root };
			vec_push(&b->docs, doc);
			break;
		}
		case YAML_SCALAR_EVENT: on_scalar(b, &e); break;
		case YAML_ALIAS_EVENT: on_alias(b, &e); break;
		case YAML_SEQUENCE_START_EVENT: on_start(b, &e, YV_SEQ); break;
		case YAML_MAPPING_START_EVENT: on_start(b, &e, YV_MAP); break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT: on_end(b, &e); break;
		case YAML_STREAM_END_EVENT: done = true; break;
		default: break;
		}
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&parser);
	builder_unwind(b);
	return b->failed ? -1 : 0;
}

int yfile_load_buffer(fd_yfile *f, const char *name, const char *data, size_t size, fd_diags *d)
{
	memset(f, 0, sizeof *f);
	arena_init(&f->arena);
	f->path = arena_strdup(&f->arena, name);
	if (size > YAML_MAX_FILE) {
		diag_error(d, srcpos_file(f->path), "file too large for a rule file (%zu bytes, limit %u)", size,
		           YAML_MAX_FILE);
		yfile_release(f);
		return -1;
	}
	f->text = arena_alloc(&f->arena, size + 1);
	if (size)
		memcpy(f->text, data, size);
	f->size = size;

	builder b;
	memset(&b, 0, sizeof b);
	b.f = f;
	b.d = d;
	b.map.text = f->text;
	b.map.size = size;
	b.map.base = (size >= 3 && !memcmp(f->text, "\xef\xbb\xbf", 3)) ? 3 : 0;
	strmap_init(&b.anchors);
	int rc = offmap_build(&b.map, f->path, d);
	if (rc == 0 && memchr(f->text, '\0', size)) {
		diag_error(d, pos_of_byte(f->path, f->text, size, (size_t)((char *)memchr(f->text, '\0', size) - f->text)),
		           "NUL byte in the text; rule files are UTF-8 text");
		rc = -1;
	}
	if (rc == 0)
		rc = parse(&b);
	if (rc == 0) {
		f->n_docs = (int)b.docs.n;
		f->docs = arena_array(&f->arena, b.docs.n ? b.docs.n : 1, sizeof *f->docs);
		if (b.docs.n)
			memcpy(f->docs, b.docs.items, b.docs.n * sizeof *f->docs);
	}
	free(b.map.cp);
	free(b.anchor_values);
	strmap_release(&b.anchors);
	vec_release(&b.docs);
	if (rc != 0)
		yfile_release(f);
	return rc;
}

int yfile_load(fd_yfile *f, const char *path, fd_diags *d)
{
	fd_doing("reading the rule file %s", path);
	memset(f, 0, sizeof *f);
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		diag_error(d, srcpos_file(path), "cannot open: %s", strerror(errno));
		return -1;
	}
	VEC(char) buf = { 0 };
	char chunk[65536];
	size_t got;
	int rc = 0;
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		if (buf.n + got > YAML_MAX_FILE) {
			diag_error(d, srcpos_file(path), "file too large for a rule file (more than %u bytes)", YAML_MAX_FILE);
			rc = -1;
			break;
		}
		vec_grow(&buf, buf.n + got);
		memcpy(buf.items + buf.n, chunk, got);
		buf.n += got;
	}
	if (rc == 0 && ferror(fp)) {
		diag_error(d, srcpos_file(path), "cannot read: %s", strerror(errno));
		rc = -1;
	}
	fclose(fp);
	if (rc == 0)
		rc = yfile_load_buffer(f, path, buf.items ? buf.items : "", buf.n, d);
	vec_release(&buf);
	return rc;
}

void yfile_release(fd_yfile *f)
{
	arena_release(&f->arena);
	memset(f, 0, sizeof *f);
}
