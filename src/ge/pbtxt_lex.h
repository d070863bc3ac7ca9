/* pbtxt_lex.h — the protobuf text format's tokens, private to the reader
 * (pbtxt_lex.c makes them, pbtxt_parse.c reads them). The lexer owns the
 * decoded bytes of the last string token until the next token. */
#ifndef FD_PBTXT_LEX_H
#define FD_PBTXT_LEX_H
#include <stddef.h>
#include <stdint.h>
#include "base/diag.h"
#include "base/strbuf.h"

typedef enum pbtxt_tok_kind {
	TOK_EOF, TOK_IDENT, TOK_NUMBER, TOK_STRING, TOK_PUNCT,
} pbtxt_tok_kind;

typedef struct pbtxt_token {
	pbtxt_tok_kind kind;
	const char *s;       /* as written; TOK_STRING: the decoded bytes (the lexer's) */
	size_t n;
	int32_t line, col;
	char punct;          /* TOK_PUNCT: one of { } < > [ ] : , ; - / . */
} pbtxt_token;

typedef struct pbtxt_lexer {
	const char *p, *end, *line_start;
	int32_t line;
	const char *file;
	fd_diags *d;
	strbuf str;          /* the last string token, decoded */
} pbtxt_lexer;

void pbtxt_lex_init(pbtxt_lexer *lx, const char *file, const char *data, size_t size, fd_diags *d);
void pbtxt_lex_release(pbtxt_lexer *lx);
/* The next token into *t; -1 with one error in d on a bad one. */
int  pbtxt_lex_next(pbtxt_lexer *lx, pbtxt_token *t);
/* What a token is, for a message: "'}'", "'abc'", "a string", "the end of
 * the file". Returns buf. */
const char *pbtxt_lex_describe(const pbtxt_token *t, char *buf, size_t size);

#endif
