/* transpose_internal.h — the state the push (transpose_push.c) leaves for
 * the rewrite (transpose_apply.c). Tensors and nodes are those of the main
 * graph of the model given. */
#ifndef FD_TRANSPOSE_INTERNAL_H
#define FD_TRANSPOSE_INTERNAL_H
#include "transpose/transpose.h"

enum { ROLE_NONE, ROLE_SOURCE, ROLE_PUSHED, ROLE_SINK };

typedef struct tp_perm {
	int32_t rank;
	int64_t *p;
} tp_perm;

/* What a push changes in the node it crosses. */
typedef struct tp_change {
	bool axis_set;             /* attribute "axis" becomes axis (Concat, per-axis Q/DQ) */
	int64_t axis, old_axis;
	bool old_axis_absent;
	int32_t n_axes;            /* Slice, a reduce op: its axes become axes, 0: unchanged … */
	int64_t *axes;
	bool axes_as_attr;         /* … in the attribute "axes", else in a new constant at axes_input */
	int32_t axes_input;
	int32_t axes_dtype;
	const char *axes_name;
	int32_t merged_perm;       /* a sink Transpose that stays: its new perm (perms index) */
	uint32_t new_inputs;       /* broadcast: inputs that get a new Unsqueeze (to the perm's rank)
	                            * and Transpose (the perm's inverse), a bit each */
	bool shape_set;            /* Shape: a Gather of shape_perm follows it (HandleShape) */
	int32_t shape_perm;
} tp_change;

typedef struct tp_state {
	const fd_model *m;
	const fd_graph *g;
	int64_t opset;
	fd_arena *arena;           /* the result's rewrite arena */
	VEC(tp_perm) perms;
	int32_t *carry;            /* per tensor: the permutation it carries (perms index), -1 */
	int32_t *comp;             /* per tensor: its group (a source Transpose's node id), -1 */
	int32_t *n_push;           /* per tensor: its consumers that took the permutation over */
	int32_t *parent;           /* per tensor: the carried input it came from, -1 */
	int32_t *pusher;           /* per tensor: the node that made it carried */
	bool *leading;             /* per tensor: onnxruntime's outputs_leading_to_transpose */
	int32_t *const_user;       /* per tensor: a constant the push through this node unsqueezes and
	                            * permutes in place (a broadcast op's other input), -1 */
	bool materialize;          /* no DequantizeLinear (FixQDQNodeUnits does nothing): Transposes
	                            * onnxruntime leaves where a push stops are modelled */
	bool *stays;               /* per tensor: a carried tensor some reader did not take: a
	                            * Transpose stays on it (the source kept, or a new one) */
	bool *merged;              /* per node: a sink Transpose that stays with a merged perm */
	int32_t *in_transposed;    /* per tensor: the node a new Transpose of it was made for, -1 */
	uint8_t *role;             /* per node */
	tp_change *change;         /* per node */
	int32_t *uf;               /* per node: union-find over groups */
	bool *failed;              /* per group root */
	bool *pushed_any;
	const char **why;          /* per group root: the first thing not modelled */
	int32_t *where;            /* per group root: the node it happened at */
} tp_state;

int32_t transpose_group(tp_state *s, int32_t c);
/* Helpers of transpose_push.c the handlers share: the perm's index in
 * s->perms, NormalizeAndValidateAxes, GetConstant's integer values, and
 * whether input j of n is one its handler transposes. */
int32_t transpose_add_perm(tp_state *s, int32_t rank, const int64_t *p);
bool transpose_normalize_axes(int64_t *axes, int32_t n, int64_t rank);
const fd_const *transpose_int_constant(const tp_state *s, int32_t t);
bool transpose_transposible(const tp_state *s, const fd_node *n, int32_t j);
/* The handlers of transpose_handlers.c; false: onnxruntime's declines. */
bool transpose_reduce(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch, int32_t *out);
bool transpose_gather(tp_state *s, const fd_node *n, const tp_perm *p, tp_change *ch, int32_t *out);
bool transpose_broadcast(tp_state *s, int32_t i, int32_t carried, tp_change *ch, const char **why);
/* The push itself: every node visited, roles, carries and changes set. */
void transpose_push(tp_state *s);
/* The outcome as r's rewritten model and events; -1 + d when it cannot be built. */
int transpose_apply(tp_state *s, fd_transpose_result *r, fd_diags *d);
/* The group root of a node with a role, or of the tensor t. */
static inline bool tp_group_ok(tp_state *s, int32_t root)
{
	return root >= 0 && s->pushed_any[root] && !s->failed[root];
}

#endif
