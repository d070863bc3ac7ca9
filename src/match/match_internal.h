/* match_internal.h — the matcher's private run state and its primitives,
 * shared by the files of the matcher. Not for other modules: they read
 * match.h. Who owns what, from the top down (each file calls only those
 * below it):
 *   match_run.c         the run: rules in priority order and scope, anchors,
 *                       attempts over a rule's alternatives, the result's lifetime
 *   match.c             the op-chain search of one alternative, its budget: an
 *                       op's type inline, its inputs' SOURCE and OPERAND events,
 *                       the position: fixed diagnosis
 *   match_subgraph.c    a complete op chain: cover, the subgraph's rows,
 *                       constraints, conflict, would-cycle, firing
 *   match_group.c       a complete chain with a group of siblings: each
 *                       member's own ops after the group op
 *   match_checks.c      the rows a run checks on their own (an op's past its
 *                       type, the subgraph's), each by cond_check_event, and
 *                       their events
 *   match_constraints.c the constraints on the cover, by their cond_*.c entries
 *   match_operand.c     the dims operand conditions read
 *   cond.c, cond_*.c    the condition list and its dispatch, a condition (or a
 *                       family one event checks) each (conditions.h)
 *   match_where.c       where expressions over a unit's params and shapes
 *   match_memo.c        the search's memo: states from which the rest of the
 *                       pattern failed, so that reaching one again costs a step
 *   match_index.c       the per-model context (index, composites, unit nodes)
 *   param_value.c, canon.c, workspace.c   a node's param values, the
 *                       composites found in a graph, a node's workspace
 *   this header         events, failures and units, inline: every check of
 *                       the search uses them */
#ifndef FD_MATCH_INTERNAL_H
#define FD_MATCH_INTERNAL_H
#include "match/match.h"
#include "match/conditions.h"
#include "base/vec.h"
#include "rules/optable.h"

#define MATCH_MAX_OPS FD_RULE_MAX_OPS   /* the schema refuses longer patterns */

typedef VEC(int32_t) i32_vec;

/* A shape pattern's name bound to dim `dim` of `tensor` (match_operand.c). */
typedef struct dim_binding {
	int32_t var, tensor, dim;
} dim_binding;
typedef VEC(dim_binding) binding_vec;

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

/* The memo of one attempt's search (match_memo.c): the states (a position
 * and what the ops from it on can read of the ops before it) from which the
 * rest of the pattern failed without completing. */
typedef struct match_memo_slot {
	uint32_t gen, entry;
} match_memo_slot;
typedef struct match_memo_entry {
	uint64_t hash;
	uint32_t off, len;   /* its key's words in match_memo.words */
} match_memo_entry;
typedef struct match_memo {
	bool on;                         /* this attempt took enough steps to keep states */
	const fd_rule_pattern *pat;      /* what refs describes */
	uint64_t *refs;                  /* [MATCH_MAX_OPS] per position i: the positions before i that ops i.. */
	uint64_t *same;                  /* link or from_op to; and that they name in same_as */
	bool nodes_only;                 /* no op is a composite type: a unit is one node */
	uint64_t every_taken;            /* bit i: an op from i on takes a unit that need not follow
	                                  * its link (a feeds producer, a reader found outside the
	                                  * chain): every taken unit is in position i's key */
	uint32_t gen;                    /* slots of another generation are empty */
	match_memo_slot *slots;
	size_t n_slots;
	VEC(match_memo_entry) entries;
	i32_vec words;
	i32_vec key;                     /* scratch: the key being made */
} match_memo;

/* The rows of the condition list the search checks at each place, found
 * once per run (match_run.c): an op's own before its inputs' (but its type,
 * inline, and optional, the search's), its own after them (its group), an
 * input entry's SOURCE and OPERAND rows, the subgraph's. */
typedef struct match_rows {
	uint64_t op_before, op_after, source, operand, subgraph;
} match_rows;

static inline void match_rows_init(match_rows *m)
{
	uint64_t before = cond_rows_before(SCOPE_OP, SCOPE_INPUT);
	m->op_before = before & ~(COND_BIT(TYPE) | COND_BIT(OPTIONAL_OP));
	m->op_after = cond_rows(SCOPE_OP, EV_KIND_COUNT) & ~before;
	m->source = cond_rows(SCOPE_INPUT, EV_SOURCE);
	m->operand = cond_rows(SCOPE_INPUT, EV_OPERAND);
	m->subgraph = cond_rows(SCOPE_SUBGRAPH, EV_KIND_COUNT);
}

typedef struct match_run_state {
	const fd_match_ctx *ctx;
	const fd_ruleset *rs;
	const fd_match_options *opt;
	fd_match_result *res;
	fd_trace_sink sink;
	uint32_t n_emitted;     /* events emitted in this run (the index of the next) */
	match_rows rows;

	/* current rule / graph / attempt */
	int32_t rule;
	const fd_rule *r;
	int32_t gi;
	const fd_graph *g;
	const fd_graph_index *ix;
	int8_t branch;
	const fd_rule_pattern *pat;
	int32_t anchor;
	int32_t units[MATCH_MAX_OPS];       /* FD_NONE: an optional op absent */
	int8_t type_alt[MATCH_MAX_OPS];     /* the type alternative each unit matched */
	bool swapped[MATCH_MAX_OPS];        /* matched in the swapped input order */
	binding_vec binds;                  /* shape names bound on the current path, a stack */
	/* each position's check record (conditions.h): what holds for the whole
	 * rule and graph filled once (checks_for, match_run.c), the unit per candidate */
	fd_cond_check op_checks[MATCH_MAX_OPS];
	int complete_count;
	bool capped;            /* the search stopped at max_complete (FD-WN04 said so) */
	int n_absent;           /* optional ops absent on the current path */
	bool matched_once;      /* the op chain matched at least once (match_times) */
	bool fired;
	match_best best;
	uint32_t checks;        /* passing checks on the current path, in the current op */
	/* the search budget (match.h): steps of this attempt, its limit, the
	 * run's shared steps left */
	uint64_t steps, step_limit, step_pool;
	uint64_t memo_at;       /* the step at which the current alternative's memo starts */
	uint64_t steps_own, steps_attempt;   /* each attempt's share, and the most one may take */
	bool exhausted;         /* the attempt ran out of steps (FD-NM19 said so) */
	bool settled;           /* a match was declined or took effect without change (fd_rule.effect,
	                         * .change): the attempt ends there */
	bool unchanged;         /* it took effect without change: effect_times, no fusion */
	match_memo memo;

	/* scratch, sized per graph: stamps avoid clearing between attempts */
	uint32_t *node_stamp, *tensor_stamp, *visit;
	int32_t *parent;
	uint32_t stamp;
	size_t scratch_nodes, scratch_tensors;
	i32_vec cand[MATCH_MAX_OPS];
	i32_vec group;          /* the group op's siblings, in the group's order, when it holds */
	i32_vec group_units;    /* per member: it, then its own ops after the group op (match_group.c) */
	i32_vec queue;
	match_cover cover;
} match_run_state;

/* Emits one event (unless the run keeps no events) and returns its index. */
static inline uint32_t match_emit(match_run_state *s, fd_event_kind kind, fd_ev_status st, fd_reason why,
                                  int op, int sub, int32_t unit, int32_t other, int64_t a, int64_t b)
{
	fd_event ev = {
		.kind = (uint8_t)kind, .status = (uint8_t)st, .reason = (uint8_t)why,
		.branch = s->branch, .op = (int16_t)op, .sub = (int16_t)sub,
		.rule = s->rule, .graph = s->gi, .unit = unit, .other = other, .a = a, .b = b,
	};
	uint32_t idx = s->n_emitted++;
	if (!s->opt->no_events)
		s->sink.event(s->sink.ctx, &ev);
	return idx;
}

/* Emits the event of a condition from its payload by name (conditions.h:
 * FD_COND_EVENT_FIELDS says where each name is stored). */
static inline uint32_t match_emit_cond(match_run_state *s, fd_event_kind kind, fd_ev_status st, fd_reason why,
                                       int op, int sub, int32_t unit, const cond_event_payload *p)
{
	fd_event ev = { .other = FD_NONE };
	cond_event_write(&ev, kind, p);
	return match_emit(s, kind, st, why, op, sub, unit, ev.other, ev.a, ev.b);
}

/* Records a failure of this depth: ops_matched positions done, `extra` more
 * checks passed after them. The deepest one is what the attempt reports.
 * Absent optional ops do not count: skipping an op gets no deeper. */
static inline void match_fail(match_run_state *s, uint32_t ev, fd_reason why, int ops_matched, uint32_t extra)
{
	ops_matched -= s->n_absent;
	const fd_reason_def *d = reason_get(why);
	uint32_t rung = d ? d->rung : RUNG_NO_MATCH;
	uint32_t score = rung << 24 | (uint32_t)(ops_matched > 255 ? 255 : ops_matched) << 16
	                 | (extra > 0xffff ? 0xffff : extra);
	if (s->best.decisive != UINT32_MAX && score <= s->best.score)
		return;
	s->best.score = score;
	s->best.decisive = ev;
	s->best.rung = (uint8_t)rung;
	s->best.reason = (uint8_t)why;
	s->best.ops_matched = (uint8_t)ops_matched;
	s->best.branch = s->branch;
}

/* Units in topological order, ties (a node and the composites ending at it)
 * by id: the order anchors are tried in and candidates are listed in. */
static inline bool match_unit_before(const int32_t *topo, int32_t a, int32_t b)
{
	return topo[a] != topo[b] ? topo[a] < topo[b] : a < b;
}

/* Units of the current graph: a node, or a composite (unit_comp not NULL). */
static inline const fd_composite_rec *unit_comp(const match_run_state *s, int32_t u)
{
	int32_t c = u - s->g->n_nodes;
	return c >= 0 ? &s->ix->canon.items[c] : NULL;
}

static inline int32_t unit_n_inputs(const match_run_state *s, int32_t u)   /* slots */
{
	const fd_composite_rec *c = unit_comp(s, u);
	return c ? c->n_inputs : s->g->nodes[u].n_inputs;
}

static inline int32_t unit_input(const match_run_state *s, int32_t u, int k)   /* tensor or FD_NONE */
{
	const fd_composite_rec *c = unit_comp(s, u);
	if (c)
		return k < c->n_inputs ? s->ix->canon.pool[c->inputs + k] : FD_NONE;
	return k < s->g->nodes[u].n_inputs ? s->g->nodes[u].inputs[k] : FD_NONE;
}

static inline int32_t unit_n_outputs(const match_run_state *s, int32_t u)
{
	const fd_composite_rec *c = unit_comp(s, u);
	return c ? 1 : s->g->nodes[u].n_outputs;
}

static inline int32_t unit_output(const match_run_state *s, int32_t u, int k)
{
	const fd_composite_rec *c = unit_comp(s, u);
	if (c)
		return k == 0 ? c->output : FD_NONE;
	return k < s->g->nodes[u].n_outputs ? s->g->nodes[u].outputs[k] : FD_NONE;
}

static inline bool unit_produces(const match_run_state *s, int32_t u, int32_t t)
{
	if (t < 0)
		return false;
	const fd_composite_rec *c = unit_comp(s, u);
	if (c)
		return t == c->output;
	return s->g->tensors[t].producer == u;
}

/* Whether unit u is of op id op, inline: the op ids of every node were
 * found once, in the index (u a unit of the graph, op a known id). */
static inline bool unit_is(const fd_graph_index *ix, int32_t u, int op)
{
	int32_t c = u - ix->g->n_nodes;
	if (c >= 0) {
		const fd_op_def *d = optable_get(op);
		return d && d->composite != COMPOSITE_NONE && d->composite == ix->canon.items[c].kind;
	}
	return (ix->node_ops[(size_t)u * (size_t)ix->ops_words + (size_t)op / 64] >> (op % 64)) & 1;
}

/* The type alternative of op unit u is (a runnable pattern's: known ids), or -1. */
static inline int unit_type_alt(const fd_graph_index *ix, int32_t u, const fd_rule_op *op)
{
	if (op->n_types == 1)
		return unit_is(ix, u, op->op) ? 0 : -1;
	for (int k = 0; k < op->n_types; k++)
		if (unit_is(ix, u, op->ops[k]))
			return k;
	return -1;
}

/* The type check's verdict on the alternative a unit is (unit_type_alt):
 * cond_type_check decides through it, and the search, for every candidate,
 * inline. */
static inline fd_reason cond_type_verdict(const fd_rule_op *op, int alt)
{
	return alt >= 0 ? REASON_NONE : op->n_types > 1 ? REASON_NM07_TYPE_LIST : REASON_NM01_TYPE;
}

/* The inputs a unit is given (its slots that hold a tensor). */
static inline int unit_nonempty_inputs(const match_run_state *s, int32_t u)
{
	int n = 0;
	for (int k = 0; k < unit_n_inputs(s, u); k++)
		if (unit_input(s, u, k) != FD_NONE)
			n++;
	return n;
}

/* Position j, or the position an absent optional op j stands for: the op
 * it would have read, transitively (match.c). -1 when none. */
/* Op i's entry that links it outside the chain (readers of a same_as
 * tensor, of the graph inputs), or -1 (match.c). */
int match_outside_link(const fd_rule_op *op, int i);
int match_present_slow(const match_run_state *s, int j);
static inline int match_present(const match_run_state *s, int j)
{
	return j >= 0 && s->units[j] != FD_NONE ? j : match_present_slow(s, j);
}

/* What decided a group of siblings (cond_siblings.c), an event's sub. */
enum match_sib_what {
	SIB_HOLDS,
	SIB_NO_INPUT,     /* the candidate reads nothing at input k */
	SIB_READERS,      /* the tensor has more readers than a group is looked for among */
	SIB_MAX,          /* more members than max */
	SIB_MEMBER,       /* a member fails the op's own conditions (b: its reason) */
	SIB_MIN,          /* fewer members than min */
	SIB_NOT_SLICE,    /* cover: a member is no Slice or Gather, or its values are not constant scalars */
	SIB_STEP,         /* cover: a Slice's step is not 1 */
	SIB_AXIS,         /* cover: members slice different axes, or one beyond the rank */
	SIB_DIM,          /* cover: the axis's size is not known */
	SIB_EMPTY,        /* cover: a member's slice is empty or out of range */
	SIB_OVERLAP,      /* cover: an index sliced twice (b: the index) */
	SIB_GAP,          /* cover: an index no member slices (b: the index) */
	SIB_FOLLOWER,     /* a member has no op of its own after the group op (a: the op, b: its reason) */
};


/* cond_siblings.c: the conditions of op i on unit u, quietly (no event,
 * names bound taken back): the first that fails, or REASON_NONE. */
fd_reason cond_siblings_unit_fails(match_run_state *s, int i, int32_t u);
/* match_group.c: each member's own ops after the group op, matched for
 * every member but the candidate; s->group_units, member by member (the
 * member, then its own ops), for the cover. False: a member has none (its
 * event emitted, the failure recorded). */
bool match_group_complete(match_run_state *s, int n_ops, uint32_t passed);

/* match.c: the search of one alternative of the attempt (match_run.c
 * sets s->pat, s->branch and the anchor); true when it fired. */
bool match_search_pattern(match_run_state *s);
/* match.c: input_sources entry k of op i on u under an input order, each
 * passing check counted in *passed; quiet: no events, no failure recorded,
 * names it binds left for the caller to take back. */
bool match_check_source(match_run_state *s, int i, int32_t u, int k, bool swap, uint32_t *passed, bool quiet);
/* match_checks.c: the rows of mask rows (of one place: an op's, on c's unit
 * read as c's op id; the subgraph's, on the cover), each stated one in list
 * order with its events at pattern op `op` (-1: none); a failure is recorded
 * at depth ops matched. False: one failed. */
bool match_check_rows(match_run_state *s, uint64_t rows, int op, int depth, fd_cond_check *c, uint32_t *passed);
/* match_subgraph.c: the unit of the match that holds node (the node when none
 * does), and the first reader of t outside the match (FD_NONE: a graph output). */
int32_t match_unit_of_node(const match_run_state *s, int n_ops, int32_t node);
int32_t match_outside_consumer(const match_run_state *s, int32_t t);

/* match_memo.c: whether the state before position i (1 <= i < n_ops) is one
 * the rest of the pattern failed from; *hash gets its hash for
 * match_memo_put. Off (false) until match_memo_start. */
bool match_memo_failed(match_run_state *s, int i, uint64_t *hash);
/* Keeps the state before position i (as it is again: the search restored
 * it) as one the rest failed from. */
void match_memo_put(match_run_state *s, int i, uint64_t hash);
/* Turns the memo on for the rest of the current alternative's search. */
void match_memo_start(match_run_state *s);
void match_memo_release(match_memo *m);

/* match_subgraph.c: fills s->cover for s->units[0..n); runs the subgraph
 * checks, constraints, conflict and cycle checks, and fires. Returns true
 * when the rule fired. */
bool match_complete(match_run_state *s, int n_ops);

/* match_constraints.c: one constraint; returns false when it fails (its
 * event emitted and the failure recorded). */
bool match_constraint(match_run_state *s, int index, int n_ops, uint32_t passed);

#endif
