/* cse.h — onnxruntime's level-1 CommonSubexpressionElimination
 * (common_subexpression_elimination.cc) as a pass over the model before the
 * rules see it, when the rule set asks for it (`ruleset:
 * {common_subexpressions: onnxruntime}`, fusiondbg-rules(5)).
 *
 * What it models. Value numbering in that topological order (below): a graph input, an
 * initializer and a Constant's output (onnxruntime makes Constants
 * initializers on load) are each a value of their own, however equal their
 * contents; a node's output k is the value of (op type, domain, the values
 * of its inputs in order with trailing omitted ones dropped, its
 * attributes, k). Attributes are equal when they are the same set of names
 * with equal types and values; a tensor, graph or sparse attribute is never
 * equal to another, so its node is never merged. A node is never merged
 * either when it owns a subgraph, when it is DequantizeLinear (a DQ read
 * by two QDQ groups would join them), or when its op is not deterministic:
 * RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike,
 * Multinomial and Dropout of the ONNX domain, every com.microsoft op but
 * QuantizeLinear, and every op of another domain. The first node of a value
 * in onnxruntime's topological order (a depth-first walk up from the last
 * node nothing reads: of equal nodes the later in the file often comes
 * first) is its representative; a later node of the same
 * values gives its readers the representative's outputs instead of its own
 * and leaves the graph, unless one of its outputs is a graph output (that
 * output is not replaced and the node stays), or a subgraph body reads one
 * of its outputs from the enclosing graph (fusiondbg then keeps it whole).
 * Every graph, each body on its own as onnxruntime recurses into them: a
 * value a body reads from an enclosing graph is a value of its own there.
 *
 * The result is a rewritten model (ir/rewrite.h) with one event per merged
 * node. It borrows from the model it was made from. */
#ifndef FD_CSE_H
#define FD_CSE_H
#include <stdbool.h>
#include <stdint.h>
#include "base/diag.h"
#include "base/vec.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

typedef struct fd_cse_event {
	const char *node;          /* the merged node (names of the given model) */
	const char *op_type;
	const char *into;          /* the representative its readers now read */
	const char *text;          /* the event in words, one line */
} fd_cse_event;

typedef struct fd_cse_result {
	bool changed;              /* the model below differs from the one given */
	fd_model model;            /* changed: the rewritten model the rules see */
	fd_rewrite_map map;        /* changed: its nodes ↔ the given model's */
	fd_rewrite rewrite;
	VEC(fd_cse_event) events;
	int32_t n_merged;          /* nodes that left the graph */
} fd_cse_result;

void cse_result_init(fd_cse_result *r);
void cse_result_release(fd_cse_result *r);
/* Runs the pass over m; r is refilled. -1 + d when the rewritten model could
 * not be built (r is then empty: the rules see m). */
int cse_eliminate(const fd_model *m, fd_cse_result *r, fd_diags *d);
/* The event of the merged node `name`, or NULL. */
const fd_cse_event *cse_event_of(const fd_cse_result *r, const char *name);

#endif
