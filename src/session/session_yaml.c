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

void yaml_quote(strbuf *b, const char *s)
{
	sb_add(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': sb_puts(b, "\\\""); break;
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
	sb_add(b, "\"", 1);
}

/* Plain scalars that read back as the same text after "key: " or "- ",
 * inside or outside a flow collection. */
bool scalar_plain_safe(const char *s)
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

bool plain_is_typed(const char *text)
{
	if (!text)
		return false;
	fd_yval p = { .kind = YV_SCALAR, .text = text, .text_len = strlen(text) };
	int64_t i;
	double f;
	bool b;
	return yval_int(&p, &i) || yval_float(&p, &f) || yval_bool(&p, &b) || yval_is_null(&p);
}

void yval_canon(strbuf *b, const fd_yval *v)
{
	if (!v || v->kind == YV_NULL) {
		sb_puts(b, "null");
		return;
	}
	switch (v->kind) {
	case YV_SCALAR:
		/* quotes only where they change the meaning: "ai_core" is ai_core,
		 * "1" is not 1 */
		if (!scalar_plain_safe(v->text) || (v->quoted && plain_is_typed(v->text)))
			yaml_quote(b, v->text ? v->text : "");
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
				yval_canon(b, v->keys[i]);
				sb_add(b, ": ", 2);
			}
			yval_canon(b, v->items[i]);
		}
		sb_add(b, v->kind == YV_SEQ ? "]" : "}", 1);
		break;
	default:
		break;
	}
}

char *yval_canon_dup(const fd_yval *v)
{
	if (!v)
		return NULL;
	strbuf b = { 0 };
	yval_canon(&b, v);
	return sb_take(&b);
}

/* ---- paths ----------------------------------------------------------------- */

char *ypath_normalize(const char *path)
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

char *ypath_canonical(fd_yval *root, const char *path)
{
	char *norm = ypath_normalize(path);
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

int ypath_resolve(fd_yval *root, const char *path, ypath_ref *ref)
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
