/* optable.h — the one op table, as data (optable.c): canonical op names with
 * their ONNX and GE spellings, their params with aliases and derived values.
 * `check` and the matcher both read it; nothing else knows op names.
 * The table is static, read-only, owned by optable.c. */
#ifndef FD_OPTABLE_H
#define FD_OPTABLE_H
#include <stdbool.h>
#include "ir/graph.h"

typedef enum fd_param_type {
	PT_INT, PT_FLOAT, PT_BOOL, PT_STRING, PT_INTS, PT_FLOATS, PT_ANY
} fd_param_type;

/* Params that are not attributes: computed from the node and its tensors. */
typedef enum fd_derived {
	DERIVED_NONE = 0,
	DERIVED_BROADCAST,          /* true when the inputs' shapes differ */
	DERIVED_ACTIVATION_TYPE,    /* "none": the node carries no fused activation */
	DERIVED_NORMALIZED_SHAPE,   /* shape of the scale input */
	DERIVED_ELEMENTWISE_AFFINE, /* scale / bias inputs present */
	DERIVED_KERNEL_SIZE,        /* kernel_shape attribute, else the weight's spatial dims */
	DERIVED_FALSE,              /* an op that never has the feature (MatMul transpose_b) */
	DERIVED_APPROXIMATE,        /* Gelu/Swish approximation: attribute or "none" */
	DERIVED_FORM,               /* "decomposed" through the canonical form, else "node" */
} fd_derived;

typedef struct fd_param_def {
	const char *name;           /* canonical rule-side name: "groups" */
	const char *aliases[4];     /* other rule-side spellings: "group" */
	const char *attr;           /* ONNX attribute carrying it, or NULL */
	int input;                  /* constant input slot carrying it (Dropout ratio: 1), or -1 */
	fd_param_type type;
	const char *default_value;  /* ONNX default as YAML text, or NULL */
	fd_derived derived;
} fd_param_def;

/* Decomposed forms the canonicalizer recognises as one op. */
typedef enum fd_composite {
	COMPOSITE_NONE = 0,
	COMPOSITE_SILU,             /* Sigmoid(x) -> Mul(x, .) */
	COMPOSITE_GELU,             /* Erf form and tanh form */
	COMPOSITE_LAYERNORM,        /* ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div (+Reciprocal, Cast) */
	COMPOSITE_BIASADD,          /* Add of a 1-D constant, or the bias input of Conv/Gemm */
} fd_composite;

typedef struct fd_op_def {
	const char *name;           /* canonical: "Conv2d" */
	const char *aliases[8];     /* rule-side spellings meaning the same op: "Conv2D" */
	const char *onnx_types[6];  /* node op_types it matches: "Conv" */
	const char *domain;         /* "" for ai.onnx, "com.microsoft", or NULL for any */
	int spatial_rank;           /* -1 any; 2 for Conv2d */
	bool commutative;           /* Add, Mul, Max, Min: inputs tried in both orders */
	fd_composite composite;     /* decomposed form also recognised, or COMPOSITE_NONE */
	int n_params;
	const fd_param_def *params;
} fd_op_def;

int  optable_count(void);
const fd_op_def *optable_get(int id);
int  optable_lookup(const char *type);           /* rule type (any spelling) → id, -1 unknown */
/* True when node n is an instance of op id: op_type, domain and spatial rank. */
bool optable_node_matches(int id, const fd_graph *g, const fd_node *n);
/* The op's param of that name (any alias), or NULL when the op has no such param. */
const fd_param_def *optable_param(int id, const char *param);
/* Op ids whose onnx_types include op_type (for the anchor index); returns count. */
int  optable_ids_for_onnx_type(const char *op_type, int *ids, int max);
/* Why no fusion may take a node of this op_type ("control flow", …), or
 * NULL when one may: the op table's mark for what a kernel cannot inline. */
const char *optable_not_fusible(const char *op_type);

/* How many inputs an op can take at most; -1 unbounded or unknown (what the
 * lint needs to bound input indices and external-input counts). */
int optable_max_inputs(int id);
/* Whether an op's output has the rank of its (first) input: a Conv's rank
 * carries through it to the match's output. */
bool optable_keeps_rank(int id);
/* The op's params, ", "-joined: "groups, kernel_size, strides". Returns buf. */
const char *optable_param_list(const fd_op_def *op, char *buf, size_t size);

#endif
