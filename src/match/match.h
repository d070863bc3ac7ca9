/* match.h — the matcher: runs a rule set over a model the way a graph compiler
 * would, claims nodes for the fusions that fire, and records every check in a
 * trace (trace.h).
 *
 * Two objects, so a what-if re-run only redoes the matching:
 *   fd_match_ctx     built once per model (and canonicalise on/off): per graph,
 *                    the constant-foldable bit of every tensor, the composites
 *                    (canon.h), the anchor index (op id → units in topo order)
 *                    and scratch arrays. Read-only during a run.
 *   fd_match_result  one run: fusions, per-rule counts, node claims, trace.
 *                    match_run clears and refills it; reuse it across runs.
 *
 * Units: in graph g a unit id u < g->n_nodes is node u; u >= n_nodes is
 * composite u - n_nodes of that graph's canon. A pattern position is matched
 * by one unit.
 *
 * Semantics decided here (fusiondbg-rules(5), MATCH):
 *  - rules run by priority (high first), equal priority by name; anchors in
 *    topological order, graphs in index order (bodies are their own graphs);
 *  - alternatives: match.ops first (when present), then match.branches in order;
 *  - op i > 0 without a from_op must consume an output of op i-1 (any slot);
 *    candidates are tried in consumer order, with backtracking;
 *  - subgraph external inputs = distinct tensors read by the match from
 *    outside that are not constant-foldable (activations, graph inputs,
 *    outer-scope tensors); weights and other constants never count;
 *  - allow_intermediate_outputs defaults to false: an intermediate with a
 *    consumer outside the match (or that is a graph output) rejects it;
 *  - the match's outputs = tensors it produces that leave it (consumed
 *    outside or graph outputs), plus the last op's output;
 *  - constraints with an unknown size / dtype / shape pass with a WN02
 *    warning event (the estimate cannot decide; the trace says so);
 *  - a complete pattern that fails a later check does not stop the search:
 *    the next complete pattern from the same anchor is tried (at most
 *    opt->max_complete), the deepest failure is what the attempt reports;
 *  - the search is bounded (the search budget, below): an attempt out of
 *    steps ends with FD-NM19, whatever it found before;
 *  - match_times counts attempts whose op chain matched (past type, arity,
 *    params, sources); effect_times counts fusions, and the matches a
 *    change condition let take effect without a fusion (rules.h: a rule's
 *    effect and change conditions, checked after the subgraph's and the
 *    constraints; the first verdict of either ends the attempt). */
#ifndef FD_MATCH_H
#define FD_MATCH_H
#include <stdbool.h>
#include <stdint.h>
#include "base/arena.h"
#include "match/canon.h"
#include "base/diag.h"
#include "ir/graph.h"
#include "rules/rules.h"
#include "trace/trace.h"

/* Per-tensor flags in fd_graph_index.tflags. */
enum {
	TF_CONST = 1 << 0,    /* initializer, Constant output, or constant-foldable */
	TF_INPUT = 1 << 1,    /* graph input, an overridable initializer included */
	TF_OUTER = 1 << 2,    /* read from an enclosing graph */
	TF_DQ_KEPT = 1 << 3,  /* TF_CONST only through a DequantizeLinear that a folding keeping QDQ
	                       * units keeps (onnxruntime's): no initializer to source_type initializer */
};

typedef struct fd_graph_index {
	const fd_graph *g;
	uint8_t *tflags;          /* per tensor */
	uint8_t *node_folds;      /* per node: 1 when it folds away before fusion (match_node_folds) */
	fd_canon canon;
	int32_t n_units;          /* n_nodes + canon.n */
	int32_t n_ops;            /* optable_count() */
	int32_t *anchor_off;      /* [n_ops + 1]: op id → range in anchor_units */
	int32_t *anchor_units;    /* units in topo order (composites at their last member) */
	int32_t *tcomp_off;       /* [n_tensors + 1]: tensor → composites reading it */
	int32_t *tcomp;
	int32_t *hosted_off;      /* [n_nodes + 1]: node → biasadd_conv composites it hosts */
	int32_t *hosted;
	int32_t *unit_topo;       /* per unit: topo index (composite: of its last member) */
	int32_t *iota;            /* iota[n] == n: a node's member list is iota + n */
	uint64_t *node_ops;       /* [n_nodes * ops_words]: bit id set when optable_node_matches(id, node) */
	int32_t ops_words;
	int32_t *reader_types_off;   /* [n_tensors + 1]: tensor → its readers' op types, sorted (where's
	                              * readers(): sorted once here, so a call is a copy) */
	const char **reader_types;
} fd_graph_index;

typedef struct fd_match_ctx {
	const fd_model *model;
	bool canonicalize;
	int n_types;              /* the rule set's fused op types (rules.h): type k is op id */
	const char **types;       /* optable_count() + k and matches nodes of that op_type */
	int32_t n_graphs;
	fd_graph_index *graphs;
	fd_arena arena;
} fd_match_ctx;

int  match_ctx_init(fd_match_ctx *ctx, const fd_model *m, bool canonicalize, fd_diags *d);
/* With the fused op types a rule set names (rs->fused_types): a rule op of
 * such a type matches the nodes of that op_type, in any domain. */
int  match_ctx_init_types(fd_match_ctx *ctx, const fd_model *m, bool canonicalize, const char *const *types,
                          int n_types, fd_diags *d);
/* The context knows exactly rs's fused types (else those rule ops never
 * match: build the context again). */
bool match_ctx_has_types(const fd_match_ctx *ctx, const fd_ruleset *rs);
void match_ctx_release(fd_match_ctx *ctx);

/* Node n of the indexed graph computes only constants (every output
 * TF_CONST, at least one, no body): a weight's ConstantOfShape, a folded
 * Shape -> Gather; nothing of it runs with the model. */
bool match_node_is_constant(const fd_graph_index *ix, int32_t n);

/* Unit helpers. */
static inline bool unit_is_node(const fd_graph *g, int32_t u) { return u >= 0 && u < g->n_nodes; }
const fd_composite_rec *match_composite(const fd_match_ctx *ctx, int32_t graph, int32_t u); /* NULL for a node */
/* Member nodes of a unit (one for a node). */
int32_t match_unit_nodes(const fd_match_ctx *ctx, int32_t graph, int32_t u, const int32_t **nodes);
/* The node that names a unit: the node itself, or the composite's last member. */
int32_t match_unit_node(const fd_match_ctx *ctx, int32_t graph, int32_t u);
/* A unit's label in words is explain_unit_label (explain/explain.h). */

/* The search budget. A step is a candidate tried at a pattern position, or
 * an optional op left out. Each attempt may take MATCH_STEPS_OWN steps of
 * its own, and beyond them, up to MATCH_STEPS_ATTEMPT in all, steps of the
 * run's shared MATCH_STEPS_POOL: a run takes at most attempts x OWN + POOL
 * steps. An attempt out of steps ends there with FD-NM19. The memo
 * (match_memo.c) makes the search of a pattern that revisits states
 * polynomial; the budget bounds the rest. FUSIONDBG_SEARCH_STEPS (a number
 * from 1 to 2^31 - 1) sets the steps of one attempt; the pool is 16 times
 * that, the own share at most 1024. */
#define MATCH_STEPS_ATTEMPT 65536
#define MATCH_STEPS_OWN     1024
#define MATCH_STEPS_POOL    (16 * (uint64_t)MATCH_STEPS_ATTEMPT)
/* The steps one attempt may take (FUSIONDBG_SEARCH_STEPS or MATCH_STEPS_ATTEMPT). */
uint64_t match_steps_per_attempt(void);

/* When an attempt's search keeps the states it failed from (match_memo.c):
 * after its first steps (the default), never, or from its first step.
 * The verdicts and the trace's failures are the same in all three; the
 * other two are for the tests that hold them to it. */
typedef enum { MATCH_MEMO_DEFAULT, MATCH_MEMO_OFF, MATCH_MEMO_AT_ONCE } fd_match_memo;

typedef struct fd_match_options {
	const char *target;       /* NULL: "ai_core" */
	int max_complete;         /* complete patterns tried per anchor; 0: 16 */
	bool no_events;           /* keep attempts only (fast what-if runs); why needs events */
	const bool *run_rule;     /* per rule index: run it in this run; NULL: every rule. A rule
	                           * left out has no event and no attempt (a round that cannot
	                           * change its outcome, rounds/rounds.h) */
	fd_match_memo memo;
	/* made_by[g][n]: the rule whose fusion of the round before made node n
	 * of graph g, -1 a node the round before had too; NULL: the first round
	 * of a pass (every node new to it). A run_once rule's match needs a
	 * node a rule that runs before it made (rules.h), else FD-NM25. */
	const int32_t *const *made_by;
} fd_match_options;

/* A fired rule. All ranges index fd_match_result.pool. */
typedef struct fd_fusion {
	int32_t rule, graph, anchor, attempt;
	int16_t branch;           /* -1: match.ops */
	int16_t n_ops;
	uint32_t units;           /* n_ops unit ids, by pattern position */
	uint32_t nodes;           /* member node ids (composite members included), topo order */
	int32_t n_nodes;
	uint32_t inputs;          /* external tensors read: activations and constants, first use */
	int32_t n_inputs;
	uint32_t outputs;         /* tensors leaving the fusion */
	int32_t n_outputs;
	uint32_t intermediates;   /* tensors made and consumed only inside */
	int32_t n_intermediates;
	int64_t workspace_bytes;  /* sum over members (workspace_estimate), -1 unknown */
} fd_fusion;

typedef struct fd_rule_stats {
	int64_t attempts, match_times, effect_times;
	/* of the matches: declined by an effect condition (counted in match_times
	 * only), taken effect without change by a change condition (counted in
	 * effect_times, no fusion): fd_rule.effect, .change */
	int64_t declined, unchanged;
	int64_t by_rung[RUNG_COUNT];
} fd_rule_stats;

typedef struct fd_match_result {
	const fd_match_ctx *ctx;
	const fd_ruleset *rules;
	const char *target;
	int32_t n_rules;
	int32_t *order;           /* rule indices in the order they ran */
	fd_rule_stats *stats;     /* by rule index */
	fd_fusion *fusions;
	size_t n_fusions, cap_fusions;
	int32_t *pool;
	size_t n_pool, cap_pool;
	int32_t **claim;          /* [graph][node]: fusion index, or -1 */
	int32_t n_claim;          /* graphs claim holds (the run's ctx may be gone by release) */
	fd_trace trace;
	/* Optional: writes fusion i's "memory" object in the match JSON with
	 * the estimates' keys (estimate_attach_json); NULL: the matcher's byte sums. */
	void (*memory_json)(FILE *f, const struct fd_match_result *r, size_t fusion, const void *arg);
	const void *memory_json_arg;
} fd_match_result;

void match_result_init(fd_match_result *r);
void match_result_release(fd_match_result *r);
/* Runs every rule of rs (rules with enabled == false are "not run"). The
 * result refers to ctx and rs; keep them alive while reading it. */
int  match_run(const fd_match_ctx *ctx, const fd_ruleset *rs, const fd_match_options *opt,
               fd_match_result *r);

static inline const int32_t *fusion_ids(const fd_match_result *r, uint32_t off) { return r->pool + off; }

/* ---- the language beyond the seed, for the readers of a run ---------------
 * (match_operand.c, match_where.c; fusiondbg-rules(5), BEYOND THE SEED) */

/* Is unit u of the indexed graph an instance of op id (type, domain, spatial
 * rank, or a composite of the op's kind)? */
/* The alternative of op's type list that unit u is (index into op->types),
 * or -1: the first that fits. */
int match_type_alt(const fd_graph_index *ix, int32_t u, const fd_rule_op *op);
/* Unit u's input k / output k, for a node or a composite; FD_NONE when none. */
int32_t match_unit_input(const fd_graph_index *ix, int32_t u, int k);
int32_t match_unit_output(const fd_graph_index *ix, int32_t u, int k);
/* Whether node n only computes constants that a compiler folds away before
 * it fuses: a Shape of a static tensor, and what reads only stored
 * constants and such (32 producers deep); never a QuantizeLinear or
 * DequantizeLinear, which the QDQ fusions consume, nor what reads one. */
bool match_node_folds(const fd_graph_index *ix, int32_t n);
/* The unit of fusion f at pattern position op (FD_NONE: an absent optional op). */
int32_t match_fusion_unit(const fd_match_result *r, const fd_fusion *f, int op);
/* The same, an absent optional op standing for the op it would have read
 * (transitively): what rewrite.inputs from_op names. */
int32_t match_fusion_stand_in(const fd_match_result *r, const fd_fusion *f, int op);

/* The dims of a tensor as the conditions read them: a number, a symbol
 * (equal only to the same symbol), or unknown. Every shape condition goes
 * through these, so that a change of the dims' representation is made here. */
typedef enum fd_dimv_kind { DIMV_UNKNOWN, DIMV_NUMBER, DIMV_SYMBOL } fd_dimv_kind;
typedef struct fd_dimv {
	fd_dimv_kind kind;
	int64_t value;        /* DIMV_NUMBER */
	const char *sym;      /* DIMV_SYMBOL (interned) */
} fd_dimv;
fd_dimv match_dim(const fd_shape *sh, int i);          /* i < rank */
bool match_dim_equal(fd_dimv a, fd_dimv b);            /* decidably equal */
char *match_dim_text(fd_dimv d, char *buf, size_t size); /* "64", "batch", "?" */
bool match_shape_static(const fd_shape *sh);         /* rank known, every dim a number */

/* An OPERAND event's b: the dim a shape name was bound to before the check. */
static inline int64_t match_bound_pack(int32_t tensor, int var, int dim)
{
	return (int64_t)tensor << 32 | (int64_t)((uint32_t)var << 16 | (uint32_t)dim);
}
static inline bool match_bound_unpack(int64_t b, int32_t *tensor, int *var, int *dim)
{
	if (b < 0)
		return false;
	*tensor = (int32_t)(b >> 32);
	*var = (int)((b >> 16) & 0xffff);
	*dim = (int)(b & 0xffff);
	return true;
}

/* A where expression on unit u of graph gi, read as op id op (its matched
 * type), with ops the earlier ops of the match (NULL: none bound, opJ.NAME
 * undecided): 1 true, 0 false, -1 undecided (a value not known here), -2 it
 * cannot be evaluated (an overflow, a NaN, a division by zero, lists past the
 * budget; *fault_at, when not NULL, the byte of the part that faulted, -1
 * when none did).
 * text, when not NULL, gets the values it read, or, when it is not true,
 * the part that is not and its values ("perm[-2:] is [1, 3]; [rank - 1,
 * rank - 2] is [3, 2]"), or the fault ("cannot be evaluated at character 5:
 * x / 0 divides by zero"). */
struct fd_expr;
/* The ops of the pattern before the one a where is on, for its opJ.NAME
 * names: unit J (FD_NONE: an optional op absent, its names null) and the
 * op id it matched as; n of them. */
typedef struct fd_where_ops {
	const int32_t *units;
	const int *op_ids;
	int n;
} fd_where_ops;
int match_where_eval(const fd_match_ctx *ctx, int32_t gi, int32_t u, int op, const fd_where_ops *ops,
                     const struct fd_expr *e, char *text, size_t size, int32_t *fault_at);
/* Whether e faults on every unit: its constant part overflows, divides by
 * zero or builds past the budget. Then *at is that part's byte and text
 * says what it would compute ("9223372036854775807 + 1 overflows the 64-bit
 * integers"). */
bool match_where_constant_fault(const struct fd_expr *e, size_t *at, char *text, size_t size);

/* Workspace a node needs beyond its inputs and outputs (workspace.c): Conv
 * im2col = C_in/groups · kh · kw · H_out · W_out · N · dtype bytes (CANN's
 * formula), 0 for everything else. *known is false when a dim is unknown. */
int64_t workspace_estimate(const fd_graph *g, const fd_node *n, bool *known);
/* The same as a symbolic integer: a number, the formula over the unbound
 * symbols the dims wait on, or unknown. */
fd_sint workspace_estimate_sym(const fd_graph *g, const fd_node *n);

#endif
