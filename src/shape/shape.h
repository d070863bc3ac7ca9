/* shape.h — shape and dtype inference over a loaded model, the shape/
 * folder's one entry point (its internals are shape_infer.h). */
#ifndef FD_SHAPE_H
#define FD_SHAPE_H
#include "base/diag.h"
#include "ir/graph.h"

/* Shape and dtype inference with constant propagation (shape_infer.c).
 * Fills tensor shapes, dtypes and small constant values in every graph. */
int  shape_infer(fd_model *m, fd_diags *d);

#endif
