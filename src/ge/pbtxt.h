/* pbtxt.h — protobuf text format read into a generic tree of fields with
 * positions, no schema: the reader the GE dump loader (ge_load.c) builds
 * on. protobuf-c has no text format, so this is the project's own.
 *
 * What it takes: fields `name: value` and messages `name { … }` or
 * `name < … >` (the ':' before a message optional), lists `name: [a, b]`,
 * extension and Any names in brackets (`[pkg.ext]`), identifiers (enum
 * values, true, inf), numbers (decimal, 0x hex, 0 octal, floats with an
 * exponent or an f suffix, a leading '-'), strings in '…' or "…" with C
 * escapes (\n \t … \ooo octal, \xHH hex, \uXXXX, \UXXXXXXXX), adjacent
 * strings joined, '#' comments, ',' or ';' after a field.
 *
 * Hostile input: every read is bounded by the buffer's end (no NUL is
 * needed), nesting is bounded (depth is recursion), so are the number of
 * fields and the size; the first error stops the read and is one line
 * `file:line:col: what` (columns count bytes from 1).
 *
 * Ownership: a pbtxt_doc owns every node and string in its arena;
 * pbtxt_release frees them. Nothing here prints or exits. */
#ifndef FD_PBTXT_H
#define FD_PBTXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/diag.h"

typedef enum pbtxt_kind {
	PBTXT_IDENT,    /* an identifier: an enum value, true, false, inf, nan (a '-' kept in text) */
	PBTXT_NUMBER,   /* a number as written, sign included */
	PBTXT_STRING,   /* the decoded bytes (adjacent literals joined); may hold NULs */
	PBTXT_MESSAGE,  /* fields in first..next */
} pbtxt_kind;

typedef struct pbtxt_node {
	const char *name;          /* the field's name as written ("[pkg.ext]" for an extension) */
	const char *text;          /* scalars: NUL-terminated (a string's bytes may hold NULs too) */
	size_t len;                /* bytes of text */
	struct pbtxt_node *first;  /* a message's first field */
	struct pbtxt_node *next;   /* the next field of the enclosing message */
	int32_t n_fields;          /* a message's fields */
	int32_t line, col;         /* the field's name */
	int32_t vline, vcol;       /* its value (a message: the opening bracket) */
	uint8_t kind;              /* pbtxt_kind */
} pbtxt_node;

typedef struct pbtxt_limits {
	int max_depth;             /* messages inside messages */
	int64_t max_fields;        /* every field of the document, nested ones included */
	size_t max_bytes;          /* the text's size */
} pbtxt_limits;

/* Depth 100 as protobuf's own parsers; 16 M fields (about 1 GiB of tree);
 * 1 GiB of text. */
extern const pbtxt_limits PBTXT_LIMITS_DEFAULT;

typedef struct pbtxt_doc {
	fd_arena arena;
	const char *file;          /* the name in messages (a copy in the arena) */
	pbtxt_node root;           /* a message: the top-level fields */
	int64_t n_fields;
} pbtxt_doc;

/* Reads size bytes of data (not NUL-terminated) into doc, which need not be
 * initialised; lim NULL is PBTXT_LIMITS_DEFAULT. On error returns -1 with
 * one error in d and doc released. */
int  pbtxt_parse(pbtxt_doc *doc, const char *file, const char *data, size_t size,
                 const pbtxt_limits *lim, fd_diags *d);
void pbtxt_release(pbtxt_doc *doc);

/* Where a field's name, or its value, is (for the caller's messages). */
fd_srcpos pbtxt_pos(const pbtxt_doc *doc, const pbtxt_node *f);
fd_srcpos pbtxt_value_pos(const pbtxt_doc *doc, const pbtxt_node *f);

/* ---- reading values (pbtxt_value.c): on a value of the wrong kind each adds
 * one error at the value, naming the field and what it holds, and returns -1 */
int pbtxt_int(const pbtxt_doc *doc, const pbtxt_node *f, int64_t *out, fd_diags *d);
int pbtxt_float(const pbtxt_doc *doc, const pbtxt_node *f, double *out, fd_diags *d);
/* true, false, t, f, True, False, 1, 0 as protobuf takes them */
int pbtxt_bool(const pbtxt_doc *doc, const pbtxt_node *f, bool *out, fd_diags *d);
int pbtxt_string(const pbtxt_doc *doc, const pbtxt_node *f, const char **out, size_t *len, fd_diags *d);
int pbtxt_message(const pbtxt_doc *doc, const pbtxt_node *f, fd_diags *d);
/* An enum: its identifier is looked up in names[0..n) (NULL entries are
 * gaps), a number is taken as it is; an identifier not in the table is an
 * error naming the field. */
int pbtxt_enum(const pbtxt_doc *doc, const pbtxt_node *f, const char *const *names, int n,
               int64_t *out, fd_diags *d);
/* The last field called name in message msg (protobuf: the last of a
 * singular field wins), or NULL. */
const pbtxt_node *pbtxt_find(const pbtxt_node *msg, const char *name);

#endif
