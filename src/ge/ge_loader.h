/* ge_loader.h — the GE dump loader's working state and the functions its
 * files share; private to the loader, whose files are, lowest first:
 *   ge_dtype.c   GE's DataType enum: its names, and the IR's dtype of each
 *   ge_attr.c    one AttrDef → fd_attr; the node's record (node_origin.h)
 *   ge_load.c    the document: graphs, ops, tensors, edges, the model
 * The text itself is read by pbtxt_*.c (pbtxt.h). Everything built lives in
 * the model's arena; the loader's own vectors are freed by ge_load.c. */
#ifndef FD_GE_LOADER_H
#define FD_GE_LOADER_H
#include "base/diag.h"
#include "ge/pbtxt.h"
#include "ir/graph.h"
#include "ir/node_origin.h"

typedef struct ge_loader {
	fd_model *m;
	fd_diags *d;
	const pbtxt_doc *doc;
} ge_loader;

/* ge_dtype.c: GE's DataType value names, indexed by value (for pbtxt_enum),
 * and the IR's dtype of a GE value (DT_UNDEFINED when the IR has none). */
extern const char *const ge_dtype_names[];
extern const int ge_dtype_count;
int32_t ge_dtype_to_ir(int64_t ge_dtype);

/* ge_attr.c */
/* A TensorDescriptor's dtype and dims: -1 a dim not known, a lone -2 the
 * rank not known; -1 with an error on anything else below 0. */
int ge_desc_read(ge_loader *L, const pbtxt_node *desc, int32_t *dtype, fd_shape *shape);
/* The attr map entries of op (fields `attr { key value }`) into node->attrs,
 * and what the compiler recorded into *origin. */
int ge_attrs_read(ge_loader *L, const pbtxt_node *op, fd_node *node, fd_node_origin *origin);

#endif
