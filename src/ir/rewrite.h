/* rewrite.h — a rewritten model as plain data: fused nodes, each standing for
 * a set of member nodes of one graph of a loaded fd_model. export/apply.c
 * builds one from a match; onnx/onnx_write.c writes the model with it. The
 * rewrite owns everything its nodes point to (its arena); graph indices and
 * member ids refer to the model it was built for. */
#ifndef FD_REWRITE_H
#define FD_REWRITE_H
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/vec.h"
#include "ir/graph.h"

typedef struct fd_fused_node {
	int32_t graph;             /* index in model->graphs */
	int32_t n_members;
	int32_t *members;          /* node ids of that graph the node replaces */
	const char *name, *op_type, *domain;
	int32_t n_inputs, n_outputs;
	const char **inputs;       /* tensor names by port; "" for an empty port */
	const char **outputs;      /* tensor names */
	int32_t n_attrs;
	fd_attr *attrs;            /* any kind fd_attr carries */
} fd_fused_node;

typedef struct fd_rewrite {
	fd_arena arena;            /* names, arrays and attribute values of the nodes */
	VEC(fd_fused_node) nodes;
} fd_rewrite;

void rewrite_init(fd_rewrite *rw);
void rewrite_release(fd_rewrite *rw);
/* A new zeroed node of graph `graph`; the pointer lives until the next add. */
fd_fused_node *rewrite_add(fd_rewrite *rw, int32_t graph);

#endif
