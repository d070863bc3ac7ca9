/* compiled.h — what a graph compiler did to a model, read from its
 * optimized graph (onnxruntime's optimizedModelFilePath output): for each
 * fused node, the original nodes it replaced (`compare`, fusiondbg(1)
 * COMPARE). Both models are loaded fd_models; nothing here knows protobuf.
 *
 * How the replaced nodes are found, graph by graph (a body with its owner's
 * counterpart, by attribute name). onnxruntime keeps the anchor's name (or
 * derives the fused node's name from it) and the names of the tensors at
 * the boundary of a fusion, so:
 *  1. identity: an optimized node with the name (or, unnamed, the outputs)
 *     and op type of an original node is that node; output tensors such a
 *     node renamed are mapped back;
 *  2. before any fusion is looked for, original nodes are explained away
 *     when they only computed constants (initializers, Constant, Shape and
 *     Size, anything whose inputs all are such, or whose outputs became
 *     initializers of the optimized graph), or are common subexpressions (the
 *     same op, attributes and inputs as a node that survives, where the
 *     consumers now read the survivor's output);
 *  3. optimized nodes linked by tensors the original graph does not have
 *     (MatMulAdd's Reshape → Gemm → Reshape) form one unit; the unit's
 *     outputs that the original has are walked back through their original
 *     producers, stopping at tensors still in the optimized graph, at
 *     constants, at common subexpressions and at the unit's inputs: the
 *     nodes met are those the unit replaced;
 *  4. Dropout, Identity, a Cast to its own type, an Add or Sub of 0 and a
 *     Mul or Div by 1 (one element: NoopElimination's), and (unless the unit
 *     keeps one, as Gemm does) Transpose met on that walk were removed, not fused;
 *     what is left is a fusion when it is more than one node, or one node
 *     whose op type or domain changed.
 * Initializers count as constants even when also listed as graph inputs.
 *
 * Ownership: an fd_compiled owns its groups and their arrays (arena); names
 * point into the two models. */
#ifndef FD_COMPILED_H
#define FD_COMPILED_H
#include <stdint.h>
#include "base/arena.h"
#include "base/vec.h"
#include "ir/graph.h"

typedef struct fd_compiled_group {
	int32_t graph;             /* original graph index */
	const char *fused_node;    /* its name in the optimized graph */
	const char *op_type, *domain;
	const char *activation;    /* FusedConv / FusedGemm "activation" attribute, or NULL */
	int32_t n_replaced;
	int32_t *replaced;         /* original node ids, topological order */
	int32_t n_optimized;       /* optimized nodes that make it (3 for Reshape → Gemm → Reshape) */
	int32_t n_removed;         /* Dropout / Identity / Cast / Transpose removed on its walk */
} fd_compiled_group;

/* Why an original node is gone when no fused node replaced it. */
#define FD_COMPILED_GONE(X) \
	X(FOLDED, "constant folding") X(CSE, "common subexpression") X(DROPOUT, "dropout removed") \
	X(IDENTITY, "identity removed") X(CAST, "no-op cast removed") X(NOOP, "no-op arithmetic removed") \
	X(TRANSPOSE, "transpose removed") \
	X(OTHER, "other")

typedef enum fd_compiled_gone {
#define FD_COMPILED_GONE_ENUM(id, name) GONE_##id,
	FD_COMPILED_GONE(FD_COMPILED_GONE_ENUM)
#undef FD_COMPILED_GONE_ENUM
	GONE_COUNT
} fd_compiled_gone;

typedef struct fd_compiled {
	fd_arena arena;
	VEC(fd_compiled_group) groups;
	int64_t gone[GONE_COUNT];  /* original nodes gone outside every group, by why */
	int32_t **group_of;        /* [graph][original node]: the group that replaced it, or -1 */
	int32_t n_graphs;
	int32_t graphs_unpaired;   /* bodies whose owner has no counterpart */
} fd_compiled;

void compiled_init(fd_compiled *c);
void compiled_release(fd_compiled *c);
/* Fills c from the original model orig and the compiler's optimized opt. */
void compiled_groups(const fd_model *orig, const fd_model *opt, fd_compiled *c);
const char *compiled_gone_name(fd_compiled_gone g);

#endif
