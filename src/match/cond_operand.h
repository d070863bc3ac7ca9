/* cond_operand.h — what the operand conditions of one OPERAND event share
 * (cond_operand.c runs them in list order): their words being gathered, and
 * how a condition adds its own. A condition of the family in a file of its
 * own (cond_dtype_same_as.c) is one more check of this kind. */
#ifndef FD_COND_OPERAND_H
#define FD_COND_OPERAND_H
#include <stdbool.h>
#include <stddef.h>
#include "match/conditions.h"

/* What of the operand an event's actual shows: its shape, whether its dims
 * are static, its dtype, its value, the type its quantized data runs as. */
enum { SHOW_SHAPE = 1, SHOW_STATIC = 2, SHOW_DTYPE = 4, SHOW_VALUE = 8, SHOW_QDQ = 16 };

typedef struct cond_operand_words {
	fd_cond_facts *f;
	unsigned shows;
	size_t at;                /* in f->expected */
	bool decided;             /* a failing condition took decided and path */
} cond_operand_words;

/* Explaining: the event's verdict when it failed with own, else none. */
fd_reason cond_operand_recorded(const fd_cond_check *c, fd_reason own);
/* A present condition's words: its expected part, what it shows of the
 * operand, and (the first present one, then the failing one) its key. */
void cond_operand_note(const fd_cond_check *c, cond_operand_words *w, fd_reason r, const char *key, unsigned shows,
                       const char *expected);
/* dtype: {same_as: …} as one check of the family: decides it (c->bound the
 * tied tensor when it fails in a run), with w its words. */
fd_reason cond_dtype_same_as_operand(fd_cond_check *c, cond_operand_words *w);

#endif
