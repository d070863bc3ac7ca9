/* match_internal.h — the matcher's private run state, shared by match.c (the
 * rule / anchor / op-chain search), match_subgraph.c (boundary, counts, cycle),
 * match_constraints.c (the five constraint kinds) and match_index.c (the
 * per-model context). Not for other modules: they read match.h. */
#ifndef FD_MATCH_INTERNAL_H
#define FD_MATCH_INTERNAL_H
#include "match/match.h"
#include "base/vec.h"

#define MATCH_MAX_OPS 64

typedef VEC(int32_t) i32_vec;

/* The deepest failure seen in the current attempt. */
typedef struct match_best {
	uint32_t score, decisive;
	uint8_t rung, reason, ops_matched;
	int8_t branch;
} match_best;

/* What a complete pattern covers: member nodes, and the tensors around them. */
typedef struct match_cover {
	i32_vec nodes;          /* topo order, deduplicated */
	i32_vec inputs;         /* external tensors read (activations and constants), first use */
	i32_vec outputs;        /* leave the match: final outputs, then escaping ones */
	i32_vec intermediates;  /* made and used only inside */
	i32_vec escapes;        /* produced inside, not final, used outside / graph output */
	int32_t max_topo, min_topo;
} match_cover;

typedef struct match_run_state {
	const fd_match_ctx *ctx;
	const fd_ruleset *rs;
	const fd_match_options *opt;
	fd_match_result *res;
	fd_trace_sink sink;
	uint32_t n_emitted;     /* events emitted in this run (the index of the next) */

	/* current rule / graph / attempt */
	int32_t rule;
	const fd_rule *r;
	int32_t gi;
	const fd_graph *g;
	const fd_graph_index *ix;
	int8_t branch;
	const fd_rule_pattern *pat;
	int32_t anchor;
	int32_t units[MATCH_MAX_OPS];
	int complete_count;
	bool matched_once;      /* the op chain matched at least once (match_times) */
	bool fired;
	match_best best;
	uint32_t checks;        /* passing checks on the current path, in the current op */

	/* scratch, sized per graph: stamps avoid clearing between attempts */
	uint32_t *node_stamp, *tensor_stamp, *visit;
	int32_t *parent;
	uint32_t stamp;
	size_t scratch_nodes, scratch_tensors;
	i32_vec cand[MATCH_MAX_OPS];
	i32_vec queue;
	match_cover cover;
} match_run_state;

/* match.c */
uint32_t match_emit(match_run_state *s, fd_event_kind kind, fd_ev_status st, fd_reason why,
                    int op, int sub, int32_t unit, int32_t other, int64_t a, int64_t b);
/* Records a failure of this depth: ops_matched positions done, `extra` more
 * checks passed after them. */
void match_fail(match_run_state *s, uint32_t ev, fd_reason why, int ops_matched, uint32_t extra);

/* Units. */
int32_t unit_n_inputs(const match_run_state *s, int32_t u);            /* slots */
int32_t unit_input(const match_run_state *s, int32_t u, int k);        /* tensor or FD_NONE */
int32_t unit_n_outputs(const match_run_state *s, int32_t u);
int32_t unit_output(const match_run_state *s, int32_t u, int k);
bool    unit_produces(const match_run_state *s, int32_t u, int32_t t);
int32_t unit_producer(const fd_match_ctx *ctx, int32_t graph, int32_t t); /* node unit or FD_NONE */

/* match_subgraph.c: fills s->cover for s->units[0..n); runs the subgraph
 * checks, constraints, conflict and cycle checks, and fires. Returns true
 * when the rule fired. */
bool match_complete(match_run_state *s, int n_ops);

/* match_constraints.c: one constraint; returns false when it fails (its
 * event emitted and the failure recorded). */
bool match_constraint(match_run_state *s, int index, int n_ops, uint32_t passed);

#endif
