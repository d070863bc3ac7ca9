/* rules.h — fusion rules in the CANN graph-autofusion YAML format, typed.
 *
 * A rule set owns its YAML files (the trees every field points into) and the
 * rules derived from them (ruleset/rule_schema.c). Every field keeps the
 * fd_yval it came from, so messages, the trace and the TUI's write-back can
 * point at the exact text. What-if edits change the tree and re-derive the
 * typed rule. Loading, the schema and the lint are ruleset/'s (ruleset.h).
 *
 * Files:
 *   schema.c       reading values with the schema's messages (schema.h)
 *   optable.c      the op table (optable.h)
 *   rule_expr.c    where expressions: parse (rule_expr.h)
 *   yaml_tree.c    YAML text -> a tree of values (the only libyaml user);
 *   yaml_value.c   reading the values (yaml_tree.h) */
#ifndef FD_RULES_H
#define FD_RULES_H
#include <stdbool.h>
#include <stdint.h>
#include "base/diag.h"
#include "rules/yaml_tree.h"

/* source_type of an input_sources entry: X(id, name) and what it accepts.
 * SRC_UNSET (before the list): none given. */
#define FD_SOURCE_TYPES(X) \
	X(CONST_OR_PARAM, "const_or_param")  /* initializer, graph input, Constant, or a constant-foldable producer */ \
	X(CONST,          "const")           /* initializer / Constant / constant-foldable */ \
	X(INITIALIZER,    "initializer")     /* const, but not through a DequantizeLinear folding keeps */ \
	X(PARAM,          "param")           /* graph input */ \
	X(ACTIVATION,     "activation")      /* produced by a non-constant node */ \
	X(ANY,            "any")

typedef enum fd_source_type {
	SRC_UNSET = 0,
#define FD_SOURCE_TYPE_ENUM(id, name) SRC_##id,
	FD_SOURCE_TYPES(FD_SOURCE_TYPE_ENUM)
#undef FD_SOURCE_TYPE_ENUM
	SRC_COUNT
} fd_source_type;

const char *rules_source_type_name(fd_source_type t);       /* rule_names.c */
fd_source_type rules_source_type_from_name(const char *s);  /* SRC_UNSET when unknown */

typedef struct fd_rule_param {
	const char *name;
	const fd_yval *value;     /* the expected value as written */
} fd_rule_param;

/* Limits of the rule language. Each is an error at verify naming it and the
 * value that crosses it (rule_schema.c): nothing beyond them is ever
 * silently ignored. They come from the trace's event fields (trace.h). */
#define FD_RULE_MAX_OPS      64      /* ops in one pattern (match.ops, a branch) */
#define FD_RULE_MAX_BRANCHES 127     /* match.branches (an event's branch is 8 bits) */
/* An event's branch for the checks after the match (fd_rule.effect, .change). */
#define FD_BRANCH_EFFECT     (-2)
#define FD_BRANCH_CHANGE     (-3)
#define FD_RULE_MAX_ITEMS    32767   /* params, input_sources, where, constraints, inputK (16 bits) */
/* A group of siblings (match.ops[i].siblings): at most this many members,
 * looked for among the readers of a tensor read at most this many times, so
 * that judging a group from each of its members stays linear in the graph
 * times a constant. */
#define FD_RULE_MAX_SIBLINGS        256
#define FD_RULE_MAX_SIBLING_READERS 1024

/* One dim of a shape pattern (input_sources.inputK.shape). */
typedef enum fd_sdim_kind {
	SDIM_EXACT,               /* 64 */
	SDIM_ANY,                 /* _ : any one dim */
	SDIM_REST,                /* ... : any number of dims (at most one per pattern) */
	SDIM_VAR,                 /* C : a name, bound by its first use in the attempt */
	SDIM_REPEAT,              /* 1... : the pattern's last, this number for every dim left (none or more) */
} fd_sdim_kind;

typedef struct fd_sdim {
	fd_sdim_kind kind;
	int var;                  /* SDIM_VAR: index in fd_rule.dimvars */
	int64_t value;            /* SDIM_EXACT, SDIM_REPEAT */
} fd_sdim;

typedef struct fd_shape_pattern {
	bool scalar;              /* `scalar`: one element, any rank (every dim 1) */
	int n_dims;
	fd_sdim *dims;
	const fd_yval *where;
} fd_shape_pattern;

typedef struct fd_input_source {
	int input;                /* K of "inputK" */
	uint64_t conds;           /* a bit per condition the map states (match/conditions.h: COND_BIT);
	                           * a field below is read only when its condition's bit is set */
	int from_op;
	fd_source_type source_type;
	const fd_yval *where;     /* the inputK map */
	/* The extensions (fusiondbg-rules(5), OPERAND CONDITIONS). */
	bool optional;            /* the input may be absent; what is given holds when present */
	bool fixed;               /* position: fixed, never tried in a commutative op's swapped order */
	bool either;              /* position: either, tried in both orders though the op is not commutative */
	int same_op, same_input;  /* same_as {op, input}: the very tensor op same_op reads there */
	int value_op, value_input;   /* same_value_as {op, input}: a constant of the values op value_op reads there */
	int n_from_types;         /* from_type: made by a node of one of these op ids (as written: the names) */
	int *from_types;
	const char **from_type_names;
	int n_ranks;              /* rank: one of ranks[] */
	int *ranks;
	int n_shapes;             /* shape: one of the patterns, the first that fits */
	fd_shape_pattern *shapes;
	bool is_static;           /* static: true every dim a known number, false some dim not */
	int n_dtypes;             /* dtype: one of dtypes[] (DT_*) */
	int32_t *dtypes;
	/* dtype: {same_as: {op, input | output}}: the dtype of the tensor op
	 * dtype_op reads at input (or makes at output) dtype_slot */
	int dtype_op, dtype_slot;
	bool dtype_output;
	const fd_yval *dtype_where;   /* the same_as map */
	int n_values;             /* value: a constant equal to these (one: every element) */
	double *values;
	double tolerance;         /* relative, for value */
	int n_qdq_dtypes;         /* qdq_dtype: the quantized data runs as one of these on onnxruntime's CPU */
	int32_t *qdq_dtypes;
} fd_input_source;

struct fd_expr;

typedef struct fd_rule_op {
	const char *type;         /* as written: "Conv2d"; of a list, its first */
	int op;                   /* optable id, -1 when unknown; of a list, its first */
	const fd_yval *where;     /* the op's map (type_where: the type scalar, or the list) */
	const fd_yval *type_where;
	/* type: [Relu, Sigmoid]: the alternatives, in order (n_types 1 for a
	 * scalar type: types[0] == type, ops[0] == op); a node matches the first
	 * that fits, and params and where are read as that type's. */
	int n_types;
	const char **types;
	int *ops;
	uint64_t conds;           /* a bit per condition the map states (match/conditions.h: COND_BIT);
	                           * a field below is read only when its condition's bit is set */
	bool optional;            /* optional: true — the chain may skip it */
	int graph_output;         /* outputs.graph_output: -1 unset, 0 must not be one, 1 must */
	int min_consumers, max_consumers;    /* outputs: -1 when not given */
	int output_count;         /* outputs.count: the outputs the node declares with a name; -1 unset */
	int n_not_read_by;                   /* outputs.not_read_by: no reader is of one of these op types */
	const char **not_read_by;
	const fd_yval *outputs_where;
	/* feeds: {op, input}: the op is the producer of input feeds_input of
	 * earlier op feeds_op, found from that input, not a consumer */
	int feeds_op, feeds_input;
	bool feeds_first;         /* feeds.first_reader: only for op feeds_op when it reads the output first */
	const fd_yval *feeds_where;
	/* siblings: the op is a group, every reader of the tensor it reads at
	 * siblings_input that is of one of its types (fusiondbg-rules(5),
	 * Sibling groups); one op of a pattern at most */
	bool siblings;
	bool each_member;         /* after the group op and reading it (or such an op): every member has its own */
	int siblings_input, siblings_min, siblings_max;
	bool siblings_cover;      /* cover: axis — the members' slices cover the axis exactly */
	const fd_yval *siblings_where;
	int n_where;              /* where: expressions over params and shapes, all must hold */
	struct fd_expr **where_exprs;
	const fd_yval **where_src;
	uint64_t where_ops;       /* bit j: a where expression reads earlier op j (opJ.NAME) */
	bool has_fixed;           /* some input_sources entry has position: fixed */
	bool has_either;          /* some input_sources entry has position: either */
	unsigned composite_mask;  /* 1 << fd_composite of each type with a decomposed form */
	int n_params;
	fd_rule_param *params;
	int min_inputs, max_inputs;          /* inputs: -1 when one of the two is not given */
	const fd_yval *inputs_where;
	int n_sources;
	fd_input_source *sources;
	int n_output_names;
	const char **output_names;
	const fd_yval *output_names_where;
} fd_rule_op;

typedef struct fd_rule_pattern {
	int n_ops;
	fd_rule_op *ops;
	const fd_yval *where;
	bool grouped;             /* an op is a group of siblings: ops[group] */
	int group;
	int n_each;               /* the ops each member has its own of (each_member) */
} fd_rule_pattern;

typedef struct fd_rewrite_input {
	int from_op, output_idx, input_port;
	const char *description;
	const fd_yval *where;
} fd_rewrite_input;

/* A list's names, ", "-joined, as one constant string:
 * FD_NAMES(FD_SOURCE_TYPES) is "const_or_param, const, param, …". */
#define FD_COMMA_NAME(id, name) ", " name
#define FD_NAMES(list) (&(list(FD_COMMA_NAME))[2])

typedef struct fd_constraint {
	int kind;                  /* its condition (match/conditions.h: fd_cond_kind of scope
	                            * CONSTRAINT), COND_COUNT for a type the format does not know */
	const char *type;          /* as written */
	const char *description;
	const fd_yval *where;
	int n_allowed_dtypes;      /* dtype_match */
	int32_t *allowed_dtypes;   /* DT_* */
	int64_t max_intermediate_size, max_output_size; /* memory_limit; -1 when not given */
	int64_t max_workspace;     /* workspace_size; -1 when not given */
	bool spill_to_l2;
	int channel_dim;           /* channel_divisibility */
	int64_t divisor;
} fd_constraint;

/* A note on where a part of the rule comes from (`sources:`), e.g. the
 * compiler's source file and line of the check a condition states: `at` is
 * the rule's value its path names; why quotes the note of the narrowest
 * entry holding the value that decided. */
typedef struct fd_rule_source {
	const char *path;          /* as written: "match.ops.0.where.1" */
	const fd_yval *at;
	const char *text;
} fd_rule_source;

typedef struct fd_rule {
	const char *name;
	const char *file;
	int doc_index;
	const fd_yval *root;       /* the document */
	const char *version;
	int64_t priority;
	const fd_yval *priority_where;
	int64_t pass;              /* the pass it runs in (0 when not written; rounds/rounds.h) */
	const fd_yval *pass_where;
	/* run_once: true — the rule runs once over its pass's graph, as a CANN
	 * graph pass: in a later round of the pass it matches only where a
	 * node made in the round before by a rule that runs before it takes
	 * part (it neither re-fuses what it made, nor counts again what it saw,
	 * nor meets what a pass after it made) */
	bool run_once;
	const fd_yval *run_once_where;
	bool enabled;              /* false when disabled by env or what-if */
	int n_scope;               /* 0 and scope NULL: no scope written, every target */
	const char **scope;
	const char *description;
	const char *source;        /* source: where the rule as a whole comes from, or NULL */
	int n_sources;             /* sources: notes on its parts */
	fd_rule_source *sources;

	fd_rule_pattern match;
	int n_branches;
	fd_rule_pattern *branches;
	/* match.ops[i].effect and match.ops[i].change: conditions a compiler
	 * checks after the pattern matched (CANN's Fusion()), each a pattern as
	 * long as match.ops whose ops carry match.ops' types (n_ops 0: none
	 * stated). One effect condition failing declines the match: counted in
	 * match_times, not effect_times. One change condition failing: the pass
	 * takes effect (effect_times) without changing the graph. Their events
	 * carry the branch FD_BRANCH_EFFECT or FD_BRANCH_CHANGE. */
	fd_rule_pattern effect, change;
	int n_dimvars;             /* the names shape patterns bind (C, N), in order of first use */
	const char **dimvars;
	/* subgraph: a bit per condition stated (match/conditions.h: COND_BIT), its
	 * fields read only when set; allow_intermediate_outputs' bit is the check
	 * that none escapes, set unless the rule allows them */
	uint64_t conds;
	int input_count_min, input_count_max, output_count;
	bool allow_intermediate_outputs;
	const fd_yval *subgraph_where;

	/* rewrite */
	const char *target_op;
	int n_rewrite_inputs;
	fd_rewrite_input *rewrite_inputs;
	const fd_yval *rewrite_attributes;  /* map or NULL (tile_policy, chunk_size, …) */
	const char *tile_policy;            /* from attributes, or NULL */
	int n_chunk_size;
	int64_t *chunk_size;
	const char *tensor_layout;
	const fd_yval *kernel_config;
	/* The compiler makes this fusion and then refuses the whole model, with
	 * this message (onnxruntime's type inference of the fused node); NULL:
	 * it runs. A run that fires such a rule says the model is refused. */
	const char *refuses_model;
	const fd_yval *refuses_model_where;

	int n_constraints;
	fd_constraint *constraints;

	/* output */
	const char *kernel_name, *file_path, *compiler, *dot_graph_path;
	const fd_yval *build_config;
	bool debug_symbols, gen_dot_graph;
} fd_rule;

/* The ops of the rule's longest pattern (match.ops or a branch). */
static inline int rules_most_ops(const fd_rule *r)
{
	int n = r->match.n_ops;
	for (int b = 0; b < r->n_branches; b++)
		if (r->branches[b].n_ops > n)
			n = r->branches[b].n_ops;
	return n;
}

/* How initializers that are also graph inputs are read (the rule set's
 * `ruleset: {initializers: …}` setting, or `--initializers`): onnx follows
 * ONNX (overridable from IR 4 on), constant treats every initializer as a
 * weight. */
typedef enum fd_init_policy { INIT_POLICY_UNSET, INIT_POLICY_ONNX, INIT_POLICY_CONSTANT } fd_init_policy;
/* Whose shapes the rules see: fusiondbg's own inference (values through
 * the shape arithmetic), or ONNX's (--shapes onnx). */
typedef enum fd_shapes_mode { SHAPES_UNSET, SHAPES_FULL, SHAPES_ONNX } fd_shapes_mode;
/* Whether the rules see the graph after onnxruntime's transpose optimizer
 * (`ruleset: {transpose_optimizer: onnxruntime}`, transpose/transpose.h). */
typedef enum fd_transposes_mode { TRANSPOSES_UNSET, TRANSPOSES_NONE, TRANSPOSES_ONNXRUNTIME } fd_transposes_mode;
/* Whether the rules see the graph after onnxruntime's common-subexpression
 * elimination (`ruleset: {common_subexpression_elimination: onnxruntime}`,
 * cse/cse.h). */
typedef enum fd_cse_mode { CSE_UNSET, CSE_NONE, CSE_ONNXRUNTIME } fd_cse_mode;

/* What turned a rule on or off over its file's `enabled`. */
typedef enum fd_enabled_by {
	ENABLED_BY_FILE,          /* nothing: the rule's own `enabled` */
	ENABLED_BY_ENV_ENABLE,    /* off: GRAPH_AUTOFUSION_ENABLE is false */
	ENABLED_BY_ENV_RULES,     /* off: GRAPH_AUTOFUSION_RULES does not name it */
	ENABLED_BY_SWITCH_OFF,    /* the fusion switch file (--fusion-switch) */
	ENABLED_BY_SWITCH_ON,
} fd_enabled_by;

typedef struct fd_ruleset {
	fd_arena arena;            /* the typed rules */
	int n_files;
	fd_yfile **files;
	int n_rules;
	fd_rule *rules;            /* in load order: files sorted, documents in order */
	int n_unparsed;            /* files that could not be read or parsed as YAML (CLI exit 2) */
	unsigned char *enabled_by; /* per rule loaded when the environment or a switch file was
	                            * applied: what decides its on/off over the rule's own
	                            * `enabled` (fd_enabled_by), which an edit of another field
	                            * keeps and the trace names; NULL before */
	/* Fused op types: the rewrite.target_op names of the rules ("FusedOp" for
	 * a rule without one) that the op table does not know, in load order
	 * without repeats; a rule op of type fused_types[k] has op id
	 * optable_count() + k and matches the nodes of that type (the fused
	 * nodes of an earlier round). Set by ruleset_resolve_types (heap array;
	 * the names point into the rules). */
	int n_fused_types;
	const char **fused_types;
	fd_init_policy initializers;        /* the settings document's, or UNSET */
	const fd_yval *initializers_where;  /* where it is written */
	fd_shapes_mode shapes;              /* the settings document's, or UNSET */
	const fd_yval *shapes_where;
	fd_transposes_mode transposes;      /* the settings document's transpose_optimizer, or UNSET */
	const fd_yval *transposes_where;
	fd_cse_mode cse;                    /* the settings document's common_subexpression_elimination */
	const fd_yval *cse_where;
} fd_ruleset;

#endif
