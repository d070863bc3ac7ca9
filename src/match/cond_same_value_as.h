/* cond_same_value_as.h — the condition same_value_as between its file
 * (cond_same_value_as.c) and the SOURCE event that decides it
 * (cond_source.c). */
#ifndef FD_COND_SAME_VALUE_AS_H
#define FD_COND_SAME_VALUE_AS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir/graph.h"

/* Whether t and want are constants of the same dtype and values (or one tensor). */
bool cond_same_values(const fd_graph *g, int32_t t, int32_t want);
/* "x_scale = 0.0320819", "(value not known)". */
void cond_values_text(const fd_graph *g, int32_t t, char *buf, size_t size);
#endif
