/* rule_expr.c — the `where` expressions (rule_expr.h): a recursive-descent
 * parser over the text, and the built-in functions' table.
 *
 *   or      := and ('||' and)*
 *   and     := not ('&&' not)*
 *   not     := '!' not | compare
 *   compare := sum (('==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in') sum)?
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | postfix
 *   postfix := primary ('[' sum ']' | '[' sum? ':' sum? ']')*
 *   primary := number | string | true | false | null | name | 'op' digits '.' name
 *            | name '(' args ')' | '[' (or (',' or)*)? ']' | '(' or ')'
 * Strings take ' or "; numbers are C's (1, -2, 0.5, 1e-5). */
#include "rules/rule_expr.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define countof(a) (sizeof(a) / sizeof((a)[0]))

static const char *const op_texts[] = {
#define FD_EXPR_OP_TEXT(id, text) [XO_##id] = text,
	FD_EXPR_OPS(FD_EXPR_OP_TEXT)
#undef FD_EXPR_OP_TEXT
};

const char *expr_op_text(fd_expr_op op)
{
	return op < XO_COUNT ? op_texts[op] : "?";
}

static const fd_expr_func_def funcs[] = {
#define FD_EXPR_FUNC_ROW(id, name, lo, hi, tensor, doc) [XF_##id] = { name, lo, hi, tensor, doc },
	FD_EXPR_FUNCS(FD_EXPR_FUNC_ROW)
#undef FD_EXPR_FUNC_ROW
};

int expr_func_lookup(const char *name)
{
	for (size_t i = 0; name && i < countof(funcs); i++)
		if (!strcmp(funcs[i].name, name))
			return (int)i;
	return -1;
}

void expr_func_names(char *buf, size_t size)
{
	size_t at = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < countof(funcs) && at < size; i++) {
		int n = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", funcs[i].name);
		at += n > 0 ? (size_t)n : 0;
	}
}

const fd_expr_func_def *expr_func(int f)
{
	return f >= 0 && f < XF_COUNT ? &funcs[f] : NULL;
}

/* ---- the parser ------------------------------------------------------------ */

typedef struct parser {
	fd_arena *a;
	const char *text;
	size_t p;
	int depth;
	bool failed;
	size_t err_at;
	char *err;
	size_t errsize;
} parser;

static void fail(parser *ps, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(parser *ps, size_t at, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	ps->err_at = at;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errsize, fmt, ap);
	va_end(ap);
}

static void skip_blanks(parser *ps)
{
	while (ps->text[ps->p] == ' ' || ps->text[ps->p] == '\t' || ps->text[ps->p] == '\n' || ps->text[ps->p] == '\r')
		ps->p++;
}

/* The next token is the punctuation tok (blanks skipped first): consume it. */
static bool eat(parser *ps, const char *tok)
{
	skip_blanks(ps);
	size_t n = strlen(tok);
	if (strncmp(ps->text + ps->p, tok, n))
		return false;
	/* "<" is not "<=", "=" never stands alone, "!" is not "!=" */
	char next = ps->text[ps->p + n];
	if ((n == 1 && strchr("<>!", tok[0]) && next == '=') || (n == 1 && tok[0] == '|') || (n == 1 && tok[0] == '&'))
		return false;
	ps->p += n;
	return true;
}

static bool is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The next token is the word w (not a prefix of a longer name): consume it. */
static bool eat_word(parser *ps, const char *w)
{
	skip_blanks(ps);
	size_t n = strlen(w);
	if (strncmp(ps->text + ps->p, w, n) || is_name_char(ps->text[ps->p + n]))
		return false;
	ps->p += n;
	return true;
}

static fd_expr *node(parser *ps, fd_expr_kind kind, size_t at)
{
	fd_expr *e = arena_alloc(ps->a, sizeof *e);
	e->kind = kind;
	e->text = ps->text;
	e->at = (int32_t)at;
	e->op_ref = -1;
	return e;
}

static void finish(parser *ps, fd_expr *e)
{
	e->len = (int32_t)(ps->p - (size_t)e->at);
	/* trailing blanks are not the expression's */
	while (e->len > 0 && strchr(" \t\r\n", ps->text[e->at + e->len - 1]))
		e->len--;
}

static fd_expr *binary(parser *ps, fd_expr_op op, fd_expr *l, fd_expr *r)
{
	fd_expr *e = node(ps, EX_BINARY, (size_t)l->at);
	e->op = op;
	e->n = 2;
	e->args = arena_array(ps->a, 2, sizeof *e->args);
	e->args[0] = l;
	e->args[1] = r;
	finish(ps, e);
	return e;
}

static fd_expr *parse_or(parser *ps);
static fd_expr *parse_sum(parser *ps);

/* Items up to close, separated by commas; *n their count. */
static fd_expr **parse_items(parser *ps, const char *close, int *n)
{
	fd_expr *tmp[64];
	fd_expr **items = NULL;
	int count = 0, cap = 0;
	if (eat(ps, close)) {
		*n = 0;
		return NULL;
	}
	for (;;) {
		fd_expr *it = parse_or(ps);
		if (!it)
			return NULL;
		if (count == cap) {
			int ncap = cap ? cap * 2 : (int)countof(tmp);
			fd_expr **grown = arena_array(ps->a, (size_t)ncap, sizeof *grown);
			if (count)
				memcpy(grown, items, (size_t)count * sizeof *grown);
			items = grown;
			cap = ncap;
		}
		items[count++] = it;
		if (eat(ps, ","))
			continue;
		if (eat(ps, close))
			break;
		skip_blanks(ps);
		fail(ps, ps->p, "expected ',' or '%s'", close);
		return NULL;
	}
	*n = count;
	return items;
}

static fd_expr *parse_number(parser *ps)
{
	size_t at = ps->p;
	const char *s = ps->text + at;
	char *end;
	fd_expr *e;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		e = node(ps, EX_INT, at);
		e->i = strtoll(s, &end, 16);
	} else {
		size_t n = strspn(s, "0123456789");
		if (s[n] == '.' || s[n] == 'e' || s[n] == 'E') {
			e = node(ps, EX_FLOAT, at);
			e->f = strtod(s, &end);
		} else {
			e = node(ps, EX_INT, at);
			e->i = strtoll(s, &end, 10);
		}
	}
	if (end == s || is_name_char(*end) || *end == '.') {
		fail(ps, at, "malformed number");
		return NULL;
	}
	/* strtoll clamps and strtod gives inf: never a value the text does not say */
	if (errno == ERANGE && (e->kind == EX_INT || isinf(e->f))) {
		fail(ps, at, "%.*s is out of range (%s)", (int)(end - s) > 40 ? 40 : (int)(end - s), s,
		     e->kind == EX_INT ? "integers are 64-bit: -9223372036854775807 - 1 .. 9223372036854775807"
		                       : "beyond the floating-point numbers");
		return NULL;
	}
	ps->p = (size_t)(end - ps->text);
	finish(ps, e);
	return e;
}

static fd_expr *parse_string(parser *ps)
{
	size_t at = ps->p;
	char q = ps->text[at];
	const char *s = ps->text + at + 1;
	const char *close = strchr(s, q);
	if (!close) {
		fail(ps, at, "string not closed (missing %c)", q);
		return NULL;
	}
	fd_expr *e = node(ps, EX_STR, at);
	e->s = arena_strndup(ps->a, s, (size_t)(close - s));
	ps->p = (size_t)(close + 1 - ps->text);
	finish(ps, e);
	return e;
}

/* opJ (J a pattern position, at most 5 digits): J, else -1. */
static int op_prefix(const char *s)
{
	if (strncmp(s, "op", 2) || !s[2] || strlen(s + 2) > 5)
		return -1;
	for (const char *d = s + 2; *d; d++)
		if (!isdigit((unsigned char)*d))
			return -1;
	return atoi(s + 2);
}

/* inputK / outputK: the tensor (i or o) and K, else 0. */
static int cond_tensor_name(const char *s, int64_t *k)
{
	const char *digits = !strncmp(s, "input", 5) ? s + 5 : !strncmp(s, "output", 6) ? s + 6 : NULL;
	if (!digits || !*digits || strlen(digits) > 5)
		return 0;
	for (const char *d = digits; *d; d++)
		if (!isdigit((unsigned char)*d))
			return 0;
	*k = atoll(digits);
	return s[0] == 'i' ? 'i' : 'o';
}

static fd_expr *parse_primary(parser *ps)
{
	skip_blanks(ps);
	size_t at = ps->p;
	char c = ps->text[at];
	if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->text[at + 1])))
		return parse_number(ps);
	if (c == '\'' || c == '"')
		return parse_string(ps);
	if (eat(ps, "(")) {
		fd_expr *e = parse_or(ps);
		if (!e)
			return NULL;
		if (!eat(ps, ")")) {
			skip_blanks(ps);
			fail(ps, ps->p, "expected ')' to close the '(' at offset %zu", at);
			return NULL;
		}
		/* its characters are the parentheses' too: (a - 1) / b is all of it */
		e->at = (int32_t)at;
		finish(ps, e);
		return e;
	}
	if (eat(ps, "[")) {
		fd_expr *e = node(ps, EX_LIST, at);
		e->args = parse_items(ps, "]", &e->n);
		if (ps->failed)
			return NULL;
		finish(ps, e);
		return e;
	}
	if (is_name_start(c)) {
		size_t end = at;
		while (is_name_char(ps->text[end]))
			end++;
		char *name = arena_strndup(ps->a, ps->text + at, end - at);
		ps->p = end;
		fd_expr *e;
		if (!strcmp(name, "true") || !strcmp(name, "false")) {
			e = node(ps, EX_BOOL, at);
			e->i = name[0] == 't';
		} else if (!strcmp(name, "null")) {
			e = node(ps, EX_NULL, at);
		} else if (!strcmp(name, "in") || !strcmp(name, "not")) {
			fail(ps, at, "expected a value, got '%s'", name);
			return NULL;
		} else if (op_prefix(name) >= 0 && ps->text[end] == '.') {
			/* opJ.NAME: a name of another op of the pattern */
			size_t inner = end + 1, stop = inner;
			if (!is_name_start(ps->text[inner])) {
				fail(ps, inner, "expected a name after '%s.' (a param, rank, input0, …, of op%d)", name, op_prefix(name));
				return NULL;
			}
			while (is_name_char(ps->text[stop]))
				stop++;
			ps->p = stop;
			e = node(ps, EX_NAME, at);
			e->s = arena_strndup(ps->a, ps->text + inner, stop - inner);
			e->op_ref = op_prefix(name);
			e->tensor = cond_tensor_name(e->s, &e->i);
			if (!strcmp(e->s, "true") || !strcmp(e->s, "false") || !strcmp(e->s, "null") || eat(ps, "(")) {
				fail(ps, inner, "'%s.' takes a name of op%d (a param, rank, input0, …), not %s", name, e->op_ref,
				     ps->text[ps->p - 1] == '(' ? "a function" : "a literal");
				return NULL;
			}
		} else if (eat(ps, "(")) {
			e = node(ps, EX_CALL, at);
			e->s = name;
			if (expr_func_lookup(name) < 0) {
				char known[400];
				expr_func_names(known, sizeof known);
				fail(ps, at, "unknown function '%s' (known: %s)", name, known);
				return NULL;
			}
			e->args = parse_items(ps, ")", &e->n);
			if (ps->failed)
				return NULL;
			const fd_expr_func_def *f = expr_func(expr_func_lookup(name));
			if (e->n < f->min_args || e->n > f->max_args) {
				char want[64];
				if (f->max_args > f->min_args)
					snprintf(want, sizeof want, "%d or %d arguments", f->min_args, f->max_args);
				else
					snprintf(want, sizeof want, "%d argument%s", f->min_args, f->min_args == 1 ? "" : "s");
				fail(ps, at, "%s() takes %s, got %d", name, want, e->n);
				return NULL;
			}
		} else {
			e = node(ps, EX_NAME, at);
			e->s = name;
			e->tensor = cond_tensor_name(name, &e->i);
		}
		finish(ps, e);
		return e;
	}
	if (!c)
		fail(ps, at, "expected a value, got the end of the expression");
	else
		fail(ps, at, "expected a value, got '%c'", c);
	return NULL;
}

static bool deeper(parser *ps);
static fd_expr *parse_postfix_items(parser *ps);

/* Each index or slice nests the tree one deeper. */
static fd_expr *parse_postfix(parser *ps)
{
	int depth = ps->depth;
	fd_expr *e = parse_postfix_items(ps);
	ps->depth = depth;
	return e;
}

static fd_expr *parse_postfix_items(parser *ps)
{
	fd_expr *e = parse_primary(ps);
	while (e && eat(ps, "[")) {
		if (!deeper(ps))
			return NULL;
		size_t open = ps->p - 1;
		fd_expr *lo = NULL, *hi = NULL;
		skip_blanks(ps);
		if (ps->text[ps->p] != ':' && !(lo = parse_sum(ps)))
			return NULL;
		fd_expr *x;
		if (eat(ps, ":")) {
			skip_blanks(ps);
			if (ps->text[ps->p] != ']' && !(hi = parse_sum(ps)))
				return NULL;
			x = node(ps, EX_SLICE, (size_t)e->at);
			x->n = 3;
			x->args = arena_array(ps->a, 3, sizeof *x->args);
			x->args[1] = lo;
			x->args[2] = hi;
		} else {
			if (!lo) {
				fail(ps, ps->p, "expected an index");
				return NULL;
			}
			x = node(ps, EX_INDEX, (size_t)e->at);
			x->n = 2;
			x->args = arena_array(ps->a, 2, sizeof *x->args);
			x->args[1] = lo;
		}
		x->args[0] = e;
		if (!eat(ps, "]")) {
			skip_blanks(ps);
			fail(ps, ps->p, "expected ']' to close the '[' at offset %zu", open);
			return NULL;
		}
		finish(ps, x);
		e = x;
	}
	return e;
}

static bool deeper(parser *ps)
{
	if (++ps->depth > FD_EXPR_MAX_DEPTH) {
		fail(ps, ps->p, "nested more than %d deep", FD_EXPR_MAX_DEPTH);
		return false;
	}
	return true;
}

static fd_expr *parse_unary(parser *ps)
{
	skip_blanks(ps);
	size_t at = ps->p;
	fd_expr *e;
	if (eat(ps, "-")) {
		if (!deeper(ps))
			return NULL;
		fd_expr *x = parse_unary(ps);
		ps->depth--;
		if (!x)
			return NULL;
		if (x->kind == EX_INT || x->kind == EX_FLOAT) {   /* a negative literal */
			x->i = -x->i;
			x->f = -x->f;
			x->at = (int32_t)at;
			finish(ps, x);
			e = x;
		} else {
			e = node(ps, EX_NEG, at);
			e->n = 1;
			e->args = arena_array(ps->a, 1, sizeof *e->args);
			e->args[0] = x;
			finish(ps, e);
		}
	} else {
		e = parse_postfix(ps);
	}
	return e;
}

/* A left-associative chain: next (op next)*, the ops those of toks. Each
 * operand after the first nests the tree one deeper. */
static fd_expr *parse_chain(parser *ps, fd_expr *(*next)(parser *), const char *const *toks, const fd_expr_op *ops)
{
	int depth = ps->depth;
	fd_expr *l = next(ps);
	for (;;) {
		int k = 0;
		while (l && toks[k] && !eat(ps, toks[k]))
			k++;
		if (!l || !toks[k] || !deeper(ps)) {
			ps->depth = depth;
			return ps->failed ? NULL : l;
		}
		fd_expr *r = next(ps);
		if (!r) {
			ps->depth = depth;
			return NULL;
		}
		l = binary(ps, ops[k], l, r);
	}
}

static fd_expr *parse_product(parser *ps)
{
	static const char *const toks[] = { "*", "/", "%", NULL };
	static const fd_expr_op ops[] = { XO_MUL, XO_DIV, XO_MOD };
	return parse_chain(ps, parse_unary, toks, ops);
}

static fd_expr *parse_sum(parser *ps)
{
	static const char *const toks[] = { "+", "-", NULL };
	static const fd_expr_op ops[] = { XO_ADD, XO_SUB };
	return parse_chain(ps, parse_product, toks, ops);
}

static fd_expr *parse_compare(parser *ps)
{
	fd_expr *l = parse_sum(ps);
	if (!l)
		return NULL;
	size_t save = ps->p;
	fd_expr_op op = eat(ps, "==") ? XO_EQ : eat(ps, "!=") ? XO_NE : eat(ps, "<=") ? XO_LE : eat(ps, ">=") ? XO_GE
	              : eat(ps, "<") ? XO_LT : eat(ps, ">") ? XO_GT : eat_word(ps, "in") ? XO_IN : XO_COUNT;
	if (op == XO_COUNT) {
		if (eat_word(ps, "not") && eat_word(ps, "in"))
			op = XO_NOT_IN;
		else
			ps->p = save;
	}
	if (op == XO_COUNT) {
		skip_blanks(ps);
		if (ps->text[ps->p] == '=' && ps->text[ps->p + 1] != '=')
			fail(ps, ps->p, "'=' is not a comparison; write '=='");
		return l;
	}
	fd_expr *r = parse_sum(ps);
	if (!r)
		return NULL;
	return binary(ps, op, l, r);
}

static fd_expr *parse_not(parser *ps)
{
	skip_blanks(ps);
	size_t at = ps->p;
	if (!eat(ps, "!"))
		return parse_compare(ps);
	if (!deeper(ps))
		return NULL;
	fd_expr *x = parse_not(ps);
	ps->depth--;
	if (!x)
		return NULL;
	fd_expr *e = node(ps, EX_NOT, at);
	e->n = 1;
	e->args = arena_array(ps->a, 1, sizeof *e->args);
	e->args[0] = x;
	finish(ps, e);
	return e;
}

static fd_expr *parse_and(parser *ps)
{
	static const char *const toks[] = { "&&", NULL };
	static const fd_expr_op ops[] = { XO_AND };
	return parse_chain(ps, parse_not, toks, ops);
}

static fd_expr *parse_or(parser *ps)
{
	static const char *const toks[] = { "||", NULL };
	static const fd_expr_op ops[] = { XO_OR };
	if (!deeper(ps))
		return NULL;
	fd_expr *e = parse_chain(ps, parse_and, toks, ops);
	ps->depth--;
	return e;
}

fd_expr *expr_parse(fd_arena *a, const char *text, size_t *err_at, char *err, size_t errsize)
{
	parser ps = { .a = a, .text = text ? text : "", .err = err, .errsize = errsize };
	if (errsize)
		err[0] = '\0';
	fd_expr *e = parse_or(&ps);
	if (e && !ps.failed) {
		skip_blanks(&ps);
		if (ps.text[ps.p]) {
			const char *rest = ps.text + ps.p;
			if (rest[0] == '=' && rest[1] != '=')
				fail(&ps, ps.p, "'=' is not a comparison; write '=='");
			else if ((rest[0] == '&' && rest[1] != '&') || (rest[0] == '|' && rest[1] != '|'))
				fail(&ps, ps.p, "'%c' is not an operator; write '%c%c'", rest[0], rest[0], rest[0]);
			else
				fail(&ps, ps.p, "unexpected '%.20s' after the expression", rest);
		}
	}
	if (!e && !ps.failed)
		fail(&ps, ps.p, "expected an expression");
	if (ps.failed) {
		*err_at = ps.err_at;
		return NULL;
	}
	return e;
}
