/* compare_internal.h — what compare.c (the rows and their words) shares
 * with compare_dump.c (a GE dump's groups): the rows made from the
 * compiler's groups once they are in c->compiled, and a dump group in
 * words. Not for other modules: they read compare.h. */
#ifndef FD_COMPARE_INTERNAL_H
#define FD_COMPARE_INTERNAL_H
#include <stdio.h>
#include "explain/compare.h"

/* The rows of c (same, compiler only, fusiondbg only, different) from the
 * compiler's groups in c->compiled (group_of filled) against fusiondbg's
 * composed fusions, which this fills in c->final. */
void compare_rows(fd_comparison *c, const fd_rounds *rd);
/* "UB group 3 TbeConvElemwiseFusion: conv, relu" ("UB group 4 (failed
 * to compile) ..." for one that failed) or "graph fusion conv
 * ConvBatchnormFusionPass > ConvScaleFusionPass: conv1, bn1" (m: the model
 * compared, whose nodes the group lists). */
void compare_dump_group_words(FILE *f, const fd_comparison *c, const fd_model *m, size_t group);

#endif
