/* pbtxt_parse.c — the protobuf text format's grammar over the tokens of
 * pbtxt_lex.c, into the tree of pbtxt.h:
 *
 *   fields  := { field [',' | ';'] }
 *   field   := name ( [':'] ('{' fields '}' | '<' fields '>')
 *                   | ':' scalar | ':' '[' [item {',' item}] ']' )
 *   name    := IDENT | '[' IDENT {('.' | '/') IDENT} ']'
 *   scalar  := STRING {STRING} | NUMBER | IDENT | '-' (NUMBER | IDENT)
 *
 * One token of lookahead; messages recurse, at most lim->max_depth deep.
 * The first error ends the read. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/strbuf.h"
#include "base/strmap.h"
#include "ge/pbtxt.h"
#include "ge/pbtxt_lex.h"

const pbtxt_limits PBTXT_LIMITS_DEFAULT = { 100, (int64_t)1 << 24, (size_t)1 << 30 };

/* recursion is the C stack: a caller's limit above this is taken as this */
#define DEPTH_CEILING 1000

typedef struct parser {
	pbtxt_lexer lx;
	pbtxt_token tok;
	pbtxt_doc *doc;
	pbtxt_limits lim;
	strpool names;        /* field names: few distinct, many uses */
	strbuf acc;           /* adjacent string literals joined */
	fd_diags *d;
	int depth;
} parser;

static int fail_at(parser *P, int32_t line, int32_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_at(parser *P, int32_t line, int32_t col, const char *fmt, ...)
{
	fd_srcpos pos = { P->doc->file, line, col };
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(P->d, DIAG_ERROR, pos, fmt, ap);
	va_end(ap);
	return -1;
}

static int advance(parser *P)
{
	return pbtxt_lex_next(&P->lx, &P->tok);
}

static bool at_punct(const parser *P, char c)
{
	return P->tok.kind == TOK_PUNCT && P->tok.punct == c;
}

static const char *found(const parser *P, char *buf, size_t size)
{
	return pbtxt_lex_describe(&P->tok, buf, size);
}

/* A field's name: an identifier, or an extension's / Any's in brackets. */
static int parse_name(parser *P, const char **name)
{
	char what[64];
	if (P->tok.kind == TOK_IDENT) {
		*name = strpool_internn(&P->names, P->tok.s, P->tok.n);
		return advance(P);
	}
	if (!at_punct(P, '['))
		return fail_at(P, P->tok.line, P->tok.col, "expected a field name, found %s", found(P, what, sizeof what));
	strbuf b = { 0 };
	sb_add(&b, "[", 1);
	int rc = advance(P);
	for (bool want_ident = true; !rc; want_ident = !want_ident) {
		if (want_ident && P->tok.kind == TOK_IDENT) {
			sb_add(&b, P->tok.s, P->tok.n);
		} else if (!want_ident && (at_punct(P, '.') || at_punct(P, '/'))) {
			sb_add(&b, &P->tok.punct, 1);
		} else if (!want_ident && at_punct(P, ']')) {
			sb_add(&b, "]", 1);
			*name = strpool_internn(&P->names, b.s, b.n);
			rc = advance(P);
			break;
		} else {
			rc = fail_at(P, P->tok.line, P->tok.col, "expected %s in the bracketed field name, found %s",
			             want_ident ? "a name" : "'.', '/' or ']'", found(P, what, sizeof what));
		}
		if (!rc)
			rc = advance(P);
	}
	sb_release(&b);
	return rc;
}

static pbtxt_node *new_field(parser *P, pbtxt_node *msg, pbtxt_node **tail, const char *name,
                             int32_t line, int32_t col)
{
	pbtxt_node *f = arena_alloc(&P->doc->arena, sizeof *f);
	f->name = name;
	f->line = line;
	f->col = col;
	f->vline = P->tok.line;
	f->vcol = P->tok.col;
	if (*tail)
		(*tail)->next = f;
	else
		msg->first = f;
	*tail = f;
	msg->n_fields++;
	P->doc->n_fields++;
	return f;
}

static int parse_fields(parser *P, pbtxt_node *msg, char close);

static int parse_message(parser *P, pbtxt_node *f)
{
	char open = P->tok.punct, close = open == '{' ? '}' : '>';
	f->kind = PBTXT_MESSAGE;
	if (P->depth >= P->lim.max_depth)
		return fail_at(P, P->tok.line, P->tok.col, "messages nested more than %d deep: the limit of the text reader",
		               P->lim.max_depth);
	P->depth++;
	int rc = advance(P) || parse_fields(P, f, close);
	P->depth--;
	return rc;
}

static int parse_scalar(parser *P, pbtxt_node *f)
{
	char what[64];
	if (P->tok.kind == TOK_STRING) {
		sb_clear(&P->acc);
		sb_add(&P->acc, "", 0);
		while (P->tok.kind == TOK_STRING) {
			sb_add(&P->acc, P->tok.s, P->tok.n);
			if (advance(P))
				return -1;
		}
		f->kind = PBTXT_STRING;
		f->len = P->acc.n;
		f->text = arena_strndup(&P->doc->arena, P->acc.s, P->acc.n);
		if (P->acc.n)   /* arena_strndup stops at a NUL: the bytes as they are */
			memcpy((char *)f->text, P->acc.s, P->acc.n);
		return 0;
	}
	bool minus = at_punct(P, '-');
	if (minus && advance(P))
		return -1;
	if (P->tok.kind != TOK_NUMBER && P->tok.kind != TOK_IDENT)
		return fail_at(P, P->tok.line, P->tok.col, "expected a value for '%s', found %s", f->name,
		               found(P, what, sizeof what));
	f->kind = P->tok.kind == TOK_NUMBER ? PBTXT_NUMBER : PBTXT_IDENT;
	f->len = P->tok.n + minus;
	char *text = arena_alloc(&P->doc->arena, f->len + 1);
	text[0] = '-';
	memcpy(text + minus, P->tok.s, P->tok.n);
	f->text = text;
	return advance(P);
}

/* The value of a field named name at line:col, one more field of msg. */
static int parse_value(parser *P, pbtxt_node *msg, pbtxt_node **tail, const char *name, int32_t line, int32_t col)
{
	if (P->doc->n_fields >= P->lim.max_fields)
		return fail_at(P, line, col, "more than %lld fields: the limit of the text reader",
		               (long long)P->lim.max_fields);
	pbtxt_node *f = new_field(P, msg, tail, name, line, col);
	if (at_punct(P, '{') || at_punct(P, '<'))
		return parse_message(P, f);
	return parse_scalar(P, f);
}

static int parse_list(parser *P, pbtxt_node *msg, pbtxt_node **tail, const char *name, int32_t line, int32_t col)
{
	char what[64];
	if (advance(P))
		return -1;
	if (at_punct(P, ']'))
		return advance(P);
	for (;;) {
		if (parse_value(P, msg, tail, name, line, col))
			return -1;
		if (at_punct(P, ']'))
			return advance(P);
		if (!at_punct(P, ','))
			return fail_at(P, P->tok.line, P->tok.col, "expected ',' or ']' in the list of '%s', found %s", name,
			               found(P, what, sizeof what));
		if (advance(P))
			return -1;
	}
}

static int parse_field(parser *P, pbtxt_node *msg, pbtxt_node **tail)
{
	char what[64];
	int32_t line = P->tok.line, col = P->tok.col;
	const char *name = NULL;
	if (parse_name(P, &name))
		return -1;
	bool colon = at_punct(P, ':');
	if (colon && advance(P))
		return -1;
	if (at_punct(P, '{') || at_punct(P, '<'))
		return parse_value(P, msg, tail, name, line, col);
	if (!colon)
		return fail_at(P, P->tok.line, P->tok.col, "expected ':' or '{' after '%s', found %s", name,
		               found(P, what, sizeof what));
	if (at_punct(P, '['))
		return parse_list(P, msg, tail, name, line, col);
	return parse_value(P, msg, tail, name, line, col);
}

/* The fields of msg up to its closing bracket (close; 0: the end of the file). */
static int parse_fields(parser *P, pbtxt_node *msg, char close)
{
	char what[64];
	pbtxt_node *tail = NULL;
	for (;;) {
		if (P->tok.kind == TOK_EOF) {
			if (!close)
				return 0;
			return fail_at(P, P->tok.line, P->tok.col, "the file ends inside '%s' opened at %d:%d (no '%c')",
			               msg->name, msg->vline, msg->vcol, close);
		}
		if (close && at_punct(P, close))
			return advance(P);
		if (at_punct(P, '}') || at_punct(P, '>')) {
			if (!close)
				return fail_at(P, P->tok.line, P->tok.col, "'%c' closes no message", P->tok.punct);
			return fail_at(P, P->tok.line, P->tok.col, "'%c' where '%c' should close '%s' opened at %d:%d",
			               P->tok.punct, close, msg->name, msg->vline, msg->vcol);
		}
		if (P->tok.kind != TOK_IDENT && !at_punct(P, '['))
			return fail_at(P, P->tok.line, P->tok.col, "expected a field name, found %s", found(P, what, sizeof what));
		if (parse_field(P, msg, &tail))
			return -1;
		if ((at_punct(P, ',') || at_punct(P, ';')) && advance(P))
			return -1;
	}
}

int pbtxt_parse(pbtxt_doc *doc, const char *file, const char *data, size_t size, const pbtxt_limits *lim,
                fd_diags *d)
{
	memset(doc, 0, sizeof *doc);
	arena_init(&doc->arena);
	doc->file = arena_strdup(&doc->arena, file ? file : "");
	doc->root.kind = PBTXT_MESSAGE;
	doc->root.name = "";
	doc->root.line = doc->root.vline = doc->root.col = doc->root.vcol = 1;
	parser P = { .doc = doc, .lim = lim ? *lim : PBTXT_LIMITS_DEFAULT, .d = d };
	if (P.lim.max_depth > DEPTH_CEILING)
		P.lim.max_depth = DEPTH_CEILING;
	if (size > P.lim.max_bytes) {
		diag_error(d, srcpos_file(doc->file), "%zu bytes of text, more than the text reader's limit of %zu",
		           size, P.lim.max_bytes);
		pbtxt_release(doc);
		return -1;
	}
	strpool_init(&P.names, &doc->arena);
	pbtxt_lex_init(&P.lx, doc->file, data ? data : "", data ? size : 0, d);
	int rc = advance(&P) || parse_fields(&P, &doc->root, 0) ? -1 : 0;
	pbtxt_lex_release(&P.lx);
	sb_release(&P.acc);
	strpool_release(&P.names);   /* the strings stay: they live in the arena */
	if (rc)
		pbtxt_release(doc);
	return rc;
}

void pbtxt_release(pbtxt_doc *doc)
{
	arena_release(&doc->arena);
	memset(doc, 0, sizeof *doc);
}

fd_srcpos pbtxt_pos(const pbtxt_doc *doc, const pbtxt_node *f)
{
	return (fd_srcpos){ doc->file, f->line, f->col };
}

fd_srcpos pbtxt_value_pos(const pbtxt_doc *doc, const pbtxt_node *f)
{
	return (fd_srcpos){ doc->file, f->vline, f->vcol };
}
