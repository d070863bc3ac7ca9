/* session_render.c — a value as the text a save writes into a rule file.
 *
 * The style follows what the file had: a quoted string stays quoted, a block
 * list stays a block list (items at its column), a flow list a flow list;
 * lines end as the file's lines end (CRLF stays CRLF). What the text means
 * is kept for every reader, not only ours: a string that a YAML 1.1 reader
 * (CANN's tools: yes and on are booleans, 0x10 and 1_000 integers) or this
 * one would read as another type is quoted, and a number written in a form
 * the two read differently (1e3 is a string in YAML 1.1, 017 octal) is
 * written in one they agree on (1000.0, 17). A value whose field is a string
 * (rule_format.h) is a string whatever it looks like. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ruleset/rule_format.h"
#include "session/session_internal.h"

static bool starts_quoted(const fd_yval *v, const char *text)
{
	return v && v->kind == YV_SCALAR && v->end > v->start && (text[v->start] == '"' || text[v->start] == '\'');
}

static bool is_block_seq(const fd_yval *v, const char *text)
{
	return v && v->kind == YV_SEQ && v->end > v->start && text[v->start] == '-';
}

bool session_field_holds_strings(const char *path)
{
	const fd_field *f = path ? rule_field(path) : NULL;
	return f && (f->type == FT_STR || f->type == FT_OPTYPE || f->type == FT_SOURCE || f->type == FT_LIST);
}

/* A float in a form YAML 1.1 and 1.2 both read as that float: a '.', and an
 * exponent with its sign. The shortest digits that read back. */
static void put_float(strbuf *b, double x)
{
	if (isnan(x)) {
		sb_puts(b, ".nan");
		return;
	}
	if (isinf(x)) {
		sb_puts(b, x < 0 ? "-.inf" : ".inf");
		return;
	}
	char num[48];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(num, sizeof num, "%.*g", prec, x);
		if (strtod(num, NULL) == x)
			break;
	}
	char *e = strchr(num, 'e');
	char mant[48], expo[16] = "";
	snprintf(mant, sizeof mant, "%.*s", e ? (int)(e - num) : (int)strlen(num), num);
	if (!strchr(mant, '.'))
		strcat(mant, ".0");
	if (e)
		snprintf(expo, sizeof expo, "e%s%s", e[1] == '-' || e[1] == '+' ? "" : "+", e + 1);
	sb_printf(b, "%s%s", mant, expo);
}

void session_render_key(strbuf *b, const char *key)
{
	if (session_scalar_plain_safe(key) && !session_plain_is_typed(key) && !yval_yaml11_typed(key))
		sb_puts(b, key);
	else
		session_yaml_quote(b, key);
}

/* One scalar. as_string: its field holds strings; quoted: the file had the
 * value quoted (a string stays quoted). */
static void render_scalar(strbuf *b, const fd_yval *v, bool as_string, bool quoted)
{
	const char *t = v->text ? v->text : "";
	bool typed = !v->quoted && session_plain_is_typed(t);
	if (v->kind == YV_NULL) {
		sb_puts(b, "null");
		return;
	}
	if (v->quoted || as_string || !typed) {
		bool quote = v->quoted || quoted || !session_scalar_plain_safe(t) || yval_yaml11_typed(t) ||
		             (as_string && session_plain_is_typed(t));
		if (quote)
			session_yaml_quote(b, t);
		else
			sb_puts(b, t);
		return;
	}
	if (yval_yaml11_agrees(t)) {
		sb_puts(b, t);
		return;
	}
	/* a number or a boolean the two readers take differently: one form for both */
	int64_t i;
	double f;
	bool truth;
	if (yval_int(v, &i))
		sb_printf(b, "%lld", (long long)i);
	else if (yval_bool(v, &truth))
		sb_puts(b, truth ? "true" : "false");
	else if (yval_float(v, &f))
		put_float(b, f);
	else
		session_yaml_quote(b, t);
}

static void render_at(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *path, const render_ctx *rc);

/* The path of a child, for its field's type: "match.ops.0" + "type". */
static char *child_path(const char *path, const char *seg)
{
	strbuf p = { 0 };
	sb_printf(&p, "%s%s%s", path ? path : "", path && *path ? "." : "", seg);
	return sb_take(&p);
}

static void render_flow(strbuf *b, const fd_yval *v, const char *path, bool items_quoted, const render_ctx *rc)
{
	sb_add(b, v->kind == YV_SEQ ? "[" : "{", 1);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			sb_add(b, ", ", 2);
		if (v->kind == YV_MAP) {
			session_render_key(b, v->keys[i]->text ? v->keys[i]->text : "");
			sb_add(b, ": ", 2);
			char *cp = child_path(path, v->keys[i]->text ? v->keys[i]->text : "");
			render_at(b, v->items[i], NULL, cp, rc);
			free(cp);
		} else if (v->items[i]->kind == YV_SCALAR || v->items[i]->kind == YV_NULL) {
			render_scalar(b, v->items[i], session_field_holds_strings(path), items_quoted);
		} else {
			char seg[24];
			snprintf(seg, sizeof seg, "%zu", i);
			char *cp = child_path(path, seg);
			render_at(b, v->items[i], NULL, cp, rc);
			free(cp);
		}
	}
	sb_add(b, v->kind == YV_SEQ ? "]" : "}", 1);
}

/* A size typed with a unit (16MiB) into a field the file wrote as a plain
 * integer, or into a key it lacks: the seed format writes sizes as integers
 * (33554432) and CANN reads no units, so the save writes the byte count. A
 * file that wrote the value with a unit keeps the unit. */
static bool render_size_as_bytes(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *path)
{
	const fd_field *f = path ? rule_field(path) : NULL;
	int64_t bytes, plain;
	if (!f || f->type != FT_BYTES || v->kind != YV_SCALAR || yval_int(v, &plain) || !yval_bytes(v, &bytes))
		return false;
	if (disk && !(disk->kind == YV_SCALAR && yval_int(disk, &plain)))
		return false;
	sb_printf(b, "%lld", (long long)bytes);
	return true;
}

static void render_at(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *path, const render_ctx *rc)
{
	const char *text = rc->text;
	if (v->kind == YV_SCALAR || v->kind == YV_NULL) {
		if (render_size_as_bytes(b, v, disk, path))
			return;
		render_scalar(b, v, session_field_holds_strings(path), starts_quoted(disk, text));
		return;
	}
	bool items_quoted = false;
	for (size_t i = 0; disk && disk->kind == YV_SEQ && i < disk->n; i++)
		items_quoted = items_quoted || starts_quoted(disk->items[i], text);
	bool scalars = true;
	for (size_t i = 0; i < v->n; i++)
		scalars = scalars && (v->items[i]->kind == YV_SCALAR || v->items[i]->kind == YV_NULL);
	/* a block list of scalars stays a block list, items at the same column */
	if (v->kind == YV_SEQ && is_block_seq(disk, text) && v->n > 0 && scalars) {
		size_t col = 0;
		for (size_t p = disk->start; p > 0 && text[p - 1] != '\n'; p--)
			col++;
		for (size_t i = 0; i < v->n; i++) {
			if (i) {
				sb_puts(b, rc->eol);
				for (size_t c = 0; c < col; c++)
					sb_add(b, " ", 1);
			}
			sb_add(b, "- ", 2);
			render_scalar(b, v->items[i], session_field_holds_strings(path), items_quoted);
		}
		return;
	}
	render_flow(b, v, path, items_quoted, rc);
}

void session_render_value(strbuf *b, const fd_yval *v, const fd_yval *disk, const char *path, const render_ctx *rc)
{
	render_at(b, v, disk, path, rc);
}

const char *session_eol_at(const char *text, size_t size, size_t pos)
{
	/* the end of the line holding pos, else the line before */
	for (size_t i = pos; i < size; i++)
		if (text[i] == '\n')
			return i > 0 && text[i - 1] == '\r' ? "\r\n" : "\n";
	for (size_t i = pos < size ? pos : size; i-- > 0;)
		if (text[i] == '\n')
			return i > 0 && text[i - 1] == '\r' ? "\r\n" : "\n";
	return "\n";
}
