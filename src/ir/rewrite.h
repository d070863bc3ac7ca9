/* rewrite.h — a rewritten model as plain data: fused nodes, each standing for
 * a set of member nodes of one graph of a loaded fd_model. A rewrite is
 * built from a match (rounds/fuse.h); onnx/onnx_write.c writes the model
 * with it (`apply`), and rewrite_build_model makes the rewritten model in
 * memory, the graph the next round of rules matches (rounds/rounds.h). The
 * rewrite owns everything its nodes point to (its arena); graph indices and
 * member ids refer to the model it was built for. */
#ifndef FD_REWRITE_H
#define FD_REWRITE_H
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/diag.h"
#include "base/vec.h"
#include "ir/graph.h"

typedef struct fd_fused_node {
	int32_t graph;             /* index in model->graphs */
	int32_t n_members;
	int32_t *members;          /* node ids of that graph the node replaces */
	int32_t fusion;            /* what it was made from (the match's fusion index), -1 */
	int32_t round;             /* the round of that match (rounds/rounds.h), 0 */
	const char *name, *op_type, *domain;
	int32_t n_inputs, n_outputs;
	const char **inputs;       /* tensor names by port; "" for an empty port */
	const bool *folded;        /* per input: a constant folded into the node, which the rewritten
	                            * model leaves out (rewrite_build_model; apply writes every input);
	                            * NULL: none */
	const char **outputs;      /* tensor names */
	int32_t n_attrs;
	fd_attr *attrs;            /* any kind fd_attr carries */
	bool removed;              /* no node stands for the members: they leave the graph (the
	                            * transpose optimizer's cancelled nodes); no other node may read
	                            * what they made; name, type, ports and attributes unused */
	bool added;                /* a new node with no members (the transpose optimizer's moved
	                            * Transposes), placed after the graph's nodes */
} fd_fused_node;

/* A tensor a rewrite's node makes that the model lacks (the output a node
 * gets when a Transpose moved after it takes over its old one). */
typedef struct fd_new_tensor {
	int32_t graph;
	const char *name;
	int32_t dtype;
	fd_shape shape;            /* borrowed from the rewrite's arena */
} fd_new_tensor;

/* A small integer constant a rewrite adds to a graph (the transpose
 * optimizer's new Slice axes), 1-D, read by name like any tensor. */
typedef struct fd_new_const {
	int32_t graph;
	const char *name;
	int32_t dtype;             /* DT_INT64 or DT_INT32 */
	int32_t count;
	int64_t *values;
} fd_new_const;

typedef struct fd_rewrite {
	fd_arena arena;            /* names, arrays and attribute values of the nodes */
	VEC(fd_fused_node) nodes;
	VEC(fd_new_const) consts;  /* initializers the rewritten graphs gain */
	VEC(fd_new_tensor) tensors;   /* activations they gain */
} fd_rewrite;

void rewrite_init(fd_rewrite *rw);
void rewrite_release(fd_rewrite *rw);
/* A new zeroed node of graph `graph` (fusion -1); the pointer lives until the next add. */
fd_fused_node *rewrite_add(fd_rewrite *rw, int32_t graph);

/* ---- the rewritten model in memory (rewrite_model.c) ------------------------
 * The model m with every fused node of rw in place of its members: nodes
 * keep their file order, a fused node stands where its last member was;
 * tensors made inside a fused node and not among its outputs are gone, every
 * other tensor keeps its name, shape, dtype, kind and constant value; a
 * fused node owns the subgraph bodies its members owned, and reads its
 * inputs but those folded into it. Producers,
 * consumers and the topological order are made again (graph_link,
 * graph_topo_sort), shapes are not inferred again: the boundary tensors keep
 * what the model knew of them. A removed fused node leaves no node; an
 * added one stands after the graph's nodes; the new constants are
 * initializers and the new tensors activations after the graph's tensors.
 *
 * The new model borrows from m and rw (names, shapes, attributes, constant
 * values, the nodes' attribute arrays): release it before them. It owns its
 * graphs, nodes, tensors and the map below (its arena). */
typedef struct fd_rewrite_map {
	/* from[g][j]: node j of the new graph g is node from[g][j] of m when >= 0,
	 * else fused node -from[g][j] - 1 of rw */
	int32_t **from;
	/* to[g][i]: node i of m's graph g is node to[g][i] of the new graph (a
	 * member: its fused node) */
	int32_t **to;
} fd_rewrite_map;

/* -1 + d when a fused node names a tensor its graph lacks, claims a node
 * twice, or the result has a cycle; out is then released. */
int rewrite_build_model(const fd_model *m, const fd_rewrite *rw, fd_model *out, fd_rewrite_map *map,
                        fd_diags *d);

#endif
