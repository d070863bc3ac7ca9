/* cond_operand.h — what the operand conditions of one OPERAND event share
 * (cond_check_event runs them in list order, cond_operand.c begins and ends
 * the event): how a condition adds its words to the event's. A condition of
 * the family in a file of its own (cond_dtype_same_as.c) is one more row. */
#ifndef FD_COND_OPERAND_H
#define FD_COND_OPERAND_H
#include <stdbool.h>
#include <stddef.h>
#include "match/conditions.h"

/* What of the operand an event's actual shows: its shape, whether its dims
 * are static, its dtype, its value, the type its quantized data runs as. */
enum { SHOW_SHAPE = 1, SHOW_STATIC = 2, SHOW_DTYPE = 4, SHOW_VALUE = 8, SHOW_QDQ = 16 };

/* Explaining: the event's verdict when it failed with own, else none. */
fd_reason cond_operand_recorded(const fd_cond_check *c, fd_reason own);
/* A stated condition's words, added to the event's facts f: its expected
 * part, what it shows of the operand (f->shows), and (the first stated one,
 * then the failing one) its key. */
void cond_operand_note(const fd_cond_check *c, fd_cond_facts *f, fd_reason r, const char *key, unsigned shows,
                       const char *expected);

#endif
