/* transpose.h — onnxruntime's level-1 transpose optimizer
 * (onnx_transpose_optimization.cc, OptimizeImpl) as a pass over the model
 * before the rules see it, when the rule set asks for it (`ruleset:
 * {transposes: onnxruntime}`, fusiondbg-rules(5)).
 *
 * What it models. Nodes are visited in topological order, as OptimizeImpl
 * does; a Transpose on an input is pushed through the node when
 * onnxruntime's handler for it applies and its cost check
 * (DefaultCostCheck: the transposes above the node strictly decrease, the
 * output counted unless it leads to another Transpose) says so. Handled
 * exactly: QuantizeLinear/DequantizeLinear (HandleQuantizeDequantizeLinear,
 * a per-axis axis remapped), the unary ops of HandleSimpleNode and Clip,
 * Unsqueeze (HandleUnsqueeze: the permutation widened, UnsqueezePerm),
 * Concat when every input carries the same permutation (HandleConcat, the
 * axis remapped), Slice with constant or absent axes (HandleSlice, a new
 * axes constant), the reduce ops (HandleReduceOps: axes remapped, the
 * permutation squeezed without keepdims), Gather of a scalar constant
 * index (HandleGather, onnxruntime 1.30), the broadcasting ops when every
 * other input carries the same permutation or is a constant edited in place
 * (HandleSimpleNodeBroadcast: NormalizeInputRanks, TransposeInputs' Case
 * 1), and a Transpose with the inverse permutation, where both
 * disappear (HandleTranspose, RemoveCancelingTransposeNodes); a push whose
 * permutation becomes the identity ends with no Transpose. In a model
 * without DequantizeLinear (FixQDQNodeUnits then does nothing) a push may
 * also end in a Transpose that stays: after the node it crossed when a
 * reader does not take it over (TransposeOutputs: a new node, the crossed
 * node making a new tensor), or merged into a Transpose it meets
 * (HandleTransposeImpl Case 2, ComposePerm); a broadcast op's input that is
 * not a constant gets a new Unsqueeze and Transpose, and a Shape a new
 * Gather (HandleShape). A group of Transposes joined
 * by their pushes (a Concat joins its inputs') is changed only when every
 * push in it ends so; one that onnxruntime would take further (an op whose
 * handler is not modelled, a shared constant, a merged Transpose pushed on,
 * a Transpose left in a quantized model) is
 * left as it is and reported as not modelled, naming the node. Then, as FixQDQNodeUnits
 * does when the graph has a DequantizeLinear, every DequantizeLinear →
 * QuantizeLinear pair with nothing between and equal type, scale and zero
 * point goes (TryRemoveEmptyDQQ): the QDQ node unit of a cancelled
 * Transpose leaves with it; and a Transpose of a DequantizeLinear of
 * constants, read by one node that is not a Q, folds into the constant
 * (TryFixTransposeMissingQ, then ConstantFolding of the DQ -> Transpose ->
 * Q unit: transpose_fold.c). Main graph only; a Transpose of a constant is
 * left to constant folding.
 *
 * The result is a rewritten model (ir/rewrite.h) with the pass's events:
 * what each removed node became, what each changed node changed, what was
 * not modelled. It borrows from the model it was made from. */
#ifndef FD_TRANSPOSE_H
#define FD_TRANSPOSE_H
#include <stdbool.h>
#include <stdint.h>
#include "base/diag.h"
#include "base/vec.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

typedef enum fd_tpose_kind {
	TPOSE_CANCELLED,    /* node: a Transpose removed; other: one it cancelled against */
	TPOSE_EMPTY_QDQ,    /* node: a DQ or Q of an empty pair removed; other: the node that now reads
	                     * what the pair read (its group absorbs the pair) */
	TPOSE_CHANGED,      /* node: its axis or axes remapped; text says how */
	TPOSE_NOT_MODELLED, /* node: a Transpose left as it is; other: where onnxruntime would stop or
	                     * merge it */
	TPOSE_MOVED,        /* node: a Transpose pushed on whose pushes end in Transposes that stay
	                     * (after the node a push stops at, or merged into another Transpose) */
	TPOSE_FOLDED,       /* node: a Transpose of a DequantizeLinear of constants removed, folded into
	                     * the constant; other: that DQ, which its reader now reads */
} fd_tpose_kind;

typedef struct fd_tpose_event {
	fd_tpose_kind kind;
	const char *node;          /* names of the model's nodes */
	const char *op_type;
	const char *other;         /* or NULL */
	const char *text;          /* the event in words, one line */
	int32_t n_through;         /* TPOSE_CANCELLED: the nodes the push crossed, in order */
	const char **through;
} fd_tpose_event;

typedef struct fd_transpose_result {
	bool changed;              /* the model below differs from the one given */
	fd_model model;            /* changed: the rewritten model the rules see */
	fd_rewrite_map map;        /* changed: its nodes ↔ the given model's */
	fd_rewrite rewrite;
	VEC(fd_tpose_event) events;
	int32_t n_cancelled, n_qdq_removed, n_changed, n_not_modelled, n_folded;
} fd_transpose_result;

void transpose_result_init(fd_transpose_result *r);
void transpose_result_release(fd_transpose_result *r);
/* Runs the pass over m; r is refilled. -1 + d when the rewritten model could
 * not be built (r is then empty: the rules see m). */
int transpose_optimize(const fd_model *m, fd_transpose_result *r, fd_diags *d);
/* The events naming node `name` (as node or other), in order: calls visit. */
void transpose_events_of(const fd_transpose_result *r, const char *name,
                         void (*visit)(const fd_tpose_event *e, void *arg), void *arg);

#endif
