/* session_yaml.c — the small YAML helpers the session needs on top of
 * yaml_tree: values as canonical text, and paths
 * ("constraints.memory_limit.max_intermediate_size") resolved in a rule
 * document. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/nearest.h"
#include "session/session_internal.h"

/* ---- canonical text ------------------------------------------------------- */

void session_yaml_escape(strbuf *b, const char *s, bool in_quotes)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': sb_puts(b, in_quotes ? "\\\"" : "\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\r': sb_puts(b, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sb_printf(b, "\\x%02x", *p);
			else
				sb_add(b, (const char *)p, 1);
		}
	}
}

void session_yaml_quote(strbuf *b, const char *s)
{
	sb_add(b, "\"", 1);
	session_yaml_escape(b, s, true);
	sb_add(b, "\"", 1);
}

/* Plain scalars that read back as the same text after "key: " or "- ",
 * inside or outside a flow collection. */
bool session_scalar_plain_safe(const char *s)
{
	if (!s || !*s || isspace((unsigned char)s[0]) || isspace((unsigned char)s[strlen(s) - 1]))
		return false;
	if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0]))
		return s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.') && !strpbrk(s, ",[]{}#:");
	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p < 0x20 || strchr(",[]{}", *p))
			return false;
		if (*p == ':' && (p[1] == ' ' || p[1] == '\0'))
			return false;
		if (*p == '#' && p > s && p[-1] == ' ')
			return false;
	}
	return true;
}

bool session_plain_is_typed(const char *text)
{
	if (!text)
		return false;
	fd_yval p = { .kind = YV_SCALAR, .text = text, .text_len = strlen(text) };
	int64_t i;
	double f;
	bool b;
	return yval_int(&p, &i) || yval_float(&p, &f) || yval_bool(&p, &b) || yval_is_null(&p);
}

static void session_yval_canon(strbuf *b, const fd_yval *v)
{
	if (!v || v->kind == YV_NULL) {
		sb_puts(b, "null");
		return;
	}
	switch (v->kind) {
	case YV_SCALAR:
		/* quotes only where they change the meaning: "ai_core" is ai_core,
		 * "1" is not 1 */
		if (!session_scalar_plain_safe(v->text) || (v->quoted && session_plain_is_typed(v->text)))
			session_yaml_quote(b, v->text ? v->text : "");
		else
			sb_puts(b, v->text);
		break;
	case YV_SEQ:
	case YV_MAP:
		sb_add(b, v->kind == YV_SEQ ? "[" : "{", 1);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sb_add(b, ", ", 2);
			if (v->kind == YV_MAP) {
				session_yval_canon(b, v->keys[i]);
				sb_add(b, ": ", 2);
			}
			session_yval_canon(b, v->items[i]);
		}
		sb_add(b, v->kind == YV_SEQ ? "]" : "}", 1);
		break;
	default:
		break;
	}
}

char *session_yval_canon_dup(const fd_yval *v)
{
	if (!v)
		return NULL;
	strbuf b = { 0 };
	session_yval_canon(&b, v);
	return sb_take(&b);
}

/* ---- paths ----------------------------------------------------------------- */

char *session_ypath_normalize(const char *path)
{
	strbuf b = { 0 };
	if (!strncmp(path, "subgraph.", 9) || !strncmp(path, "ops.", 4) || !strncmp(path, "branches.", 9))
		sb_puts(&b, "match.");
	sb_puts(&b, path);
	return sb_take(&b);
}

/* A list index: digits only (and not absurdly many). */
static bool parse_index(const char *s, size_t *out)
{
	if (!*s)
		return false;
	size_t v = 0;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p) || v > 1000000)
			return false;
		v = v * 10 + (size_t)(*p - '0');
	}
	*out = v;
	return true;
}

/* The `type:` text of list item i (a constraint's), or NULL. */
static const char *item_type(const fd_yval *list, size_t i)
{
	const fd_yval *it = list->items[i];
	const fd_yval *t = it && it->kind == YV_MAP ? yval_get(it, "type") : NULL;
	return t && t->kind == YV_SCALAR ? t->text : NULL;
}

/* The type name of constraints item i when it is the first of its type
 * and reads as a name in a path (not empty, no '.', not a number). */
static const char *constraint_name(const fd_yval *list, size_t i)
{
	const char *t = item_type(list, i);
	if (!t || !*t || strchr(t, '.') || isdigit((unsigned char)t[0]))
		return NULL;
	for (size_t j = 0; j < i; j++)
		if (item_type(list, j) && !strcmp(item_type(list, j), t))
			return NULL;
	return t;
}

char *session_ypath_canonical(fd_yval *root, const char *path)
{
	char *norm = session_ypath_normalize(path);
	const fd_yval *list = yval_get(root, "constraints");
	if (strncmp(norm, "constraints.", 12) || !list || list->kind != YV_SEQ)
		return norm;
	char *seg = norm + 12, *dot = strchr(seg, '.');
	if (dot)
		*dot = '\0';
	size_t k;
	const char *name = parse_index(seg, &k) && k < list->n ? constraint_name(list, k) : NULL;
	if (dot)
		*dot = '.';
	if (!name)
		return norm;
	strbuf b = { 0 };
	sb_printf(&b, "constraints.%s%s", name, dot ? dot : "");
	free(norm);
	return sb_take(&b);
}

int session_ypath_resolve(fd_yval *root, const char *path, ypath_ref *ref)
{
	memset(ref, 0, sizeof *ref);
	char *copy = xstrdup(path);
	fd_yval *cur = root;
	char *seg = copy, *dot;
	int rc = -1;
	strbuf walked = { 0 };
	for (;;) {
		dot = strchr(seg, '.');
		if (dot)
			*dot = '\0';
		if (!*seg) {
			snprintf(ref->err, sizeof ref->err, "empty segment in path '%s'", path);
			break;
		}
		if (ref->n_steps > YAML_MAX_DEPTH) {
			snprintf(ref->err, sizeof ref->err, "path '%.200s' is deeper than %d levels", path, YAML_MAX_DEPTH);
			break;
		}
		if (!cur || (cur->kind != YV_MAP && cur->kind != YV_SEQ)) {
			snprintf(ref->err, sizeof ref->err, "%s is %s, not a map or a list (at '%s')",
			         walked.n ? walked.s : "the rule", cur ? yval_kind_name(cur) : "absent", seg);
			break;
		}
		long idx = -1;
		if (cur->kind == YV_MAP) {
			idx = yval_index(cur, seg);
		} else {
			size_t k;
			if (parse_index(seg, &k)) {
				if (k >= cur->n) {
					snprintf(ref->err, sizeof ref->err, "%s has %zu item(s); no index %zu",
					         walked.n ? walked.s : "the list", cur->n, k);
					break;
				}
				idx = (long)k;
			} else {
				for (size_t i = 0; i < cur->n && idx < 0; i++)
					if (item_type(cur, i) && !strcmp(item_type(cur, i), seg))
						idx = (long)i;
				if (idx < 0) {
					fd_nearest nn;
					char hint[600];
					nearest_init(&nn, seg);
					for (size_t i = 0; i < cur->n; i++)
						nearest_add(&nn, item_type(cur, i));
					snprintf(ref->err, sizeof ref->err, "%s has no entry of type '%s'%s", walked.n ? walked.s : "the list",
					         seg, nn.n ? nearest_hint(&nn, hint, sizeof hint) : " (add it to the file first)");
					break;
				}
			}
		}
		if (idx >= 0)
			ref->steps[ref->n_steps++] = (ypath_step){ cur, (size_t)idx };
		if (!dot) {
			ref->parent = cur;
			ref->key = path + (seg - copy);
			if (idx >= 0) {
				ref->index = (size_t)idx;
				ref->value = cur->items[idx];
			}
			rc = 0;
			break;
		}
		if (idx < 0) {
			snprintf(ref->err, sizeof ref->err, "%s has no '%s' (only the last key of a path may be added)",
			         walked.n ? walked.s : "the rule", seg);
			break;
		}
		if (walked.n)
			sb_add(&walked, ".", 1);
		sb_puts(&walked, seg);
		cur = cur->items[idx];
		seg = dot + 1;
	}
	sb_release(&walked);
	free(copy);
	return rc;
}

int session_ypath_unshare(fd_arena *a, fd_yval *root, const char *path, ypath_ref *ref)
{
	if (session_ypath_resolve(root, path, ref) < 0)
		return -1;
	bool shared = false, copied = false;
	/* the steps into collections: every one but the value itself */
	int last = ref->value ? ref->n_steps - 1 : ref->n_steps;
	for (int i = 0; i < last; i++) {
		fd_yval *parent = ref->steps[i].parent;
		size_t k = ref->steps[i].index;
		fd_yval *item = parent->items[k];
		shared = shared || yval_place(parent, k).kind != YP_HERE || item->n_aliases > 0;
		if (!shared || (item->kind != YV_MAP && item->kind != YV_SEQ))
			continue;
		fd_yval *c = arena_memdup(a, item, sizeof *item);
		c->items = arena_memdup(a, item->items, (item->n ? item->n : 1) * sizeof *item->items);
		if (item->keys)
			c->keys = arena_memdup(a, item->keys, (item->n ? item->n : 1) * sizeof *item->keys);
		if (item->places)
			c->places = arena_memdup(a, item->places, (item->n ? item->n : 1) * sizeof *item->places);
		c->anchor = NULL;
		c->n_aliases = 0;
		parent->items[k] = c;
		copied = true;
	}
	/* the steps now lead through the copies */
	return copied ? session_ypath_resolve(root, path, ref) : 0;
}

/* Two plain typed scalars with the same value. */
static bool same_typed(const fd_yval *a, const fd_yval *b)
{
	int64_t i, j;
	double f, g;
	bool x, y;
	if (yval_bool(a, &x) || yval_bool(b, &y))
		return yval_bool(a, &x) && yval_bool(b, &y) && x == y;
	if (yval_is_null(a) || yval_is_null(b))
		return yval_is_null(a) && yval_is_null(b);
	if (yval_int(a, &i) && yval_int(b, &j))
		return i == j;
	return yval_float(a, &f) && yval_float(b, &g) && (f == g || (f != f && g != g));
}

/* Both are sizes of a size field (16MiB, 16777216): the same when their
 * bytes are, so that a save may write a unit-typed size as an integer. */
static bool both_sizes(const fd_yval *a, const fd_yval *b, const char *path, bool *same)
{
	const fd_field *f = rule_field(path);
	int64_t x, y;
	if (!f || f->type != FT_BYTES || a->quoted || b->quoted || !yval_bytes(a, &x) || !yval_bytes(b, &y))
		return false;
	*same = x == y;
	return true;
}

/* Whether a and b differ, at path (a strbuf of the segments so far); where
 * (may be NULL) gets the path of the first difference. */
static bool differ(const fd_yval *a, const fd_yval *b, strbuf *path, strbuf *where)
{
	bool differs = false, same_size;
	if (yval_is_null(a) || yval_is_null(b)) {
		differs = !(yval_is_null(a) && yval_is_null(b));
	} else if (a->kind != b->kind || (a->kind != YV_MAP && a->n != b->n)) {
		differs = true;
	} else if (a->kind == YV_SCALAR && both_sizes(a, b, sb_str(path), &same_size)) {
		differs = !same_size;
	} else if (a->kind == YV_SCALAR) {
		/* quotes change a scalar only where it would be typed, and not in a
		 * field of strings; typed scalars compare by value (1e3 is 1000.0) */
		bool strings = session_field_holds_strings(sb_str(path));
		bool ta = !a->quoted && !strings && session_plain_is_typed(a->text);
		bool tb = !b->quoted && !strings && session_plain_is_typed(b->text);
		differs = ta != tb || (ta ? !same_typed(a, b) : strcmp(a->text, b->text) != 0);
	} else {
		size_t len = path->n;
		for (size_t i = 0; i < a->n && !differs; i++) {
			const fd_yval *bi;
			if (a->kind == YV_MAP) {
				long j = yval_index(b, a->keys[i]->text);
				bi = j >= 0 ? b->items[j] : NULL;
				sb_printf(path, "%s%s", len ? "." : "", a->keys[i]->text);
				differs = j < 0 || differ(a->items[i], bi, path, where);
				if (j < 0 && where)
					sb_puts(where, path->s);
			} else {
				sb_printf(path, "%s%zu", len ? "." : "", i);
				differs = differ(a->items[i], b->items[i], path, where);
			}
			path->n = len;
			path->s[len] = '\0';
		}
		for (size_t i = 0; a->kind == YV_MAP && i < b->n && !differs; i++)
			if (yval_index(a, b->keys[i]->text) < 0) {
				differs = true;
				if (where)
					sb_printf(where, "%s%s%s", path->s, len ? "." : "", b->keys[i]->text);
			}
		return differs;
	}
	if (differs && where && !where->n)
		sb_puts(where, path->n ? path->s : "the document");
	return differs;
}

bool session_yval_differ_at(const fd_yval *a, const fd_yval *b, const char *prefix, strbuf *where)
{
	strbuf path = { 0 };
	sb_puts(&path, prefix);
	bool d = differ(a, b, &path, where);
	sb_release(&path);
	return d;
}

/* ---- changes to a tree ------------------------------------------------------- */

fd_yval *session_ytree_put(fd_arena *a, ypath_ref *ref, fd_yval *v)
{
	fd_yval *p = ref->parent;
	if (ref->value) {
		fd_yval *old = p->items[ref->index];
		p->items[ref->index] = v;
		return old;
	}
	fd_yval **items = arena_array(a, p->n + 1, sizeof *items);
	fd_yval **keys = arena_array(a, p->n + 1, sizeof *keys);
	if (p->n) {
		memcpy(items, p->items, p->n * sizeof *items);
		memcpy(keys, p->keys, p->n * sizeof *keys);
	}
	if (p->places) {
		fd_yplace *places = arena_array(a, p->n + 1, sizeof *places);
		memcpy(places, p->places, p->n * sizeof *places);
		places[p->n] = (fd_yplace){ YP_HERE, 0, 0 };
		p->places = places;
	}
	fd_yval *k = arena_alloc(a, sizeof *k);
	k->kind = YV_SCALAR;
	k->text = arena_strdup(a, ref->key);
	k->text_len = strlen(ref->key);
	k->pos = p->pos;
	k->start = k->end = k->tail = p->end;
	keys[p->n] = k;
	items[p->n] = v;
	p->items = items;
	p->keys = keys;
	p->n++;
	ref->index = p->n - 1;
	return NULL;
}

void session_ytree_remove(fd_yval *p, size_t index)
{
	for (size_t i = index + 1; i < p->n; i++) {
		p->items[i - 1] = p->items[i];
		p->keys[i - 1] = p->keys[i];
		if (p->places)
			p->places[i - 1] = p->places[i];
	}
	p->n--;
}

/* Puts back the pair session_ytree_remove took out of p (its arrays still have the
 * room), as it was placed. */
void session_ytree_restore(fd_yval *p, size_t index, fd_yval *key, fd_yval *value, fd_yplace place)
{
	p->n++;
	for (size_t i = p->n - 1; i > index; i--) {
		p->items[i] = p->items[i - 1];
		p->keys[i] = p->keys[i - 1];
		if (p->places)
			p->places[i] = p->places[i - 1];
	}
	p->items[index] = value;
	p->keys[index] = key;
	if (p->places)
		p->places[index] = place;
}

int session_ytree_set(fd_arena *a, fd_yval *root, const char *path, fd_yval *v)
{
	ypath_ref ref;
	if (session_ypath_unshare(a, root, path, &ref) < 0)
		return -1;
	if (v)
		session_ytree_put(a, &ref, v);
	else if (ref.value)
		session_ytree_remove(ref.parent, ref.index);
	return 0;
}
