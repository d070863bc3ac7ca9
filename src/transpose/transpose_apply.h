/* transpose_apply.h — the rewrite's state (transpose_apply.c), shared with
 * the nodes it adds (transpose_added.c). */
#ifndef FD_TRANSPOSE_APPLY_H
#define FD_TRANSPOSE_APPLY_H
#include "transpose/transpose_internal.h"

typedef VEC(int32_t) id_vec;

typedef struct tp_apply {
	tp_state *s;
	fd_transpose_result *r;
	bool *removed;             /* per node */
	int32_t *rename;           /* per tensor: the tensor its readers read instead, -1 */
	int32_t *renamed_in;       /* per tensor: the first tensor renamed to it, -1 … */
	int32_t *renamed_next;     /* … and the next one renamed to the same tensor */
	bool *permuted;            /* per tensor: its shape is the carried permutation's inverse */
	const char **moved_name;   /* per tensor with a new Transpose after its pusher: what the pusher
	                            * makes now (the data before the Transpose) */
	const char ***new_in;      /* per node: its inputs' new names (a new Transpose's output), NULL */
	const char **new_out;      /* per node: a Shape's new output (a new Gather reads it), NULL */
	int32_t made;              /* onnxruntime's name counter: the N of the names "X_token_N" */
	VEC(const char *) node_names;   /* the names given so far to new nodes … */
	VEC(const char *) arg_names;    /* … and to new tensors and constants */
	int32_t *fold_dq;          /* per node: a Transpose folded into a weight: its DQ, else -1 */
} tp_apply;

/* The tensor x's readers read once the renames hold. */
int32_t transpose_resolve(const tp_apply *a, int32_t x);
/* Readers of tensor `from` read tensor `to` instead. */
void transpose_set_rename(tp_apply *a, int32_t from, int32_t to);
/* How many nodes not removed read t once the renames hold (counting to 2);
 * *only is one of them. */
int32_t transpose_readers(const tp_apply *a, int32_t t, int32_t *only);
const char *transpose_fmt(fd_arena *ar, const char *f, ...) __attribute__((format(printf, 2, 3)));
void transpose_perm_text(char *buf, size_t size, const tp_perm *p);
fd_tpose_event *transpose_add_event(tp_apply *a, fd_tpose_kind kind, int32_t node, int32_t other);
/* The group of a node with a role, -1 without one. */
int32_t transpose_node_group(const tp_state *s, int32_t i);
/* A Transpose stays on carried tensor t (its group committed). */
bool transpose_stays(const tp_apply *a, int32_t t);
/* The name node c reads for its input x in the rewritten model. */
const char *transpose_name_for(const tp_apply *a, int32_t c, int32_t x, int depth);
/* A name for a new node (is_node) or tensor as onnxruntime's
 * Graph::GenerateNodeName / GenerateNodeArgName make it: base when neither
 * the model nor an earlier new name of the kind has it, else base_token_N,
 * N from one counter (transpose_added.c). */
const char *transpose_new_name(tp_apply *a, const char *base, bool is_node);
/* The new nodes (transpose_added.c): the Transposes that stay after a
 * crossed node, and those of a broadcast op's inputs and a Shape's Gather. */
void transpose_add_moved(tp_apply *a);
void transpose_add_input_nodes(tp_apply *a);
/* FixQDQNodeUnits' TryFixTransposeMissingQ on a Transpose of a
 * DequantizeLinear of constants, and the ConstantFolding that follows it
 * (transpose_fold.c): the Transposes removed, their DQs changed. */
void transpose_fold_weights(tp_apply *a);
/* The folded DQs' outputs take their Transposes' shapes in the rewritten
 * model (transpose_fold.c). */
void transpose_fold_shapes(tp_apply *a);

#endif
