/* explain.h — reading a run: every reader of a match result and its trace,
 * so that the matcher and the recording make no text. What is where:
 *   match_report.c  the `match` summary, text and JSON;
 *   trace_report.c  each event in words (condition_text.c: the checks beyond
 *                   the seed's);
 *   trace_write.c   the canonical text trace, the trace as JSON, CANN's
 *                   fusion_result.json;
 *   why.c           which attempt answers "why not here?" (explain_why, for
 *                   `why` and the TUI alike), near-miss ranking, the one line;
 *   rounds_report.c the same over every round of a run (rounds/rounds.h):
 *                   summary, trace, JSON, the words for a node a round made;
 *   why_rounds.c    "why not here?" across rounds;
 *   candidates.c    for a rule with no anchor, the nodes nearest to being one;
 *   value_text.c    the words for a unit, a param value, a rule value, a place;
 *   names.c         "did you mean" for a rule, node or reason code a user gave;
 *   float_ops.c     the ops a quantized model leaves in float;
 *   why_float.c     why such an op stayed float, in one line;
 *   transpose_report.c what the rule set's transpose optimizer did;
 *   model_refused.c a fusion after which the compiler refuses the model;
 *   lint_against.c  the lint of rules on a model: never fires, derived params.
 * Everything here reads a match result (and the context, model and rules it
 * refers to) and never changes it; writers write only to the FILE or buffer
 * they are given. */
#ifndef FD_EXPLAIN_H
#define FD_EXPLAIN_H
#include <stdio.h>
#include "match/match.h"
#include "match/param_value.h"
#include "rounds/rounds.h"
#include "transpose/transpose.h"

/* ---- a run (match_report.c) ------------------------------------------------ */
/* Match JSON (the keys of fusiondbg(1), OPTIONS --format: model, rules, fusions, rejections; the
 * graph-level memory object is left to the estimates module) and the text
 * summary of `match`. */
void explain_match_json(FILE *f, const fd_match_result *r);
/* The same keys without the enclosing braces (no trailing comma or newline),
 * so a caller can add its own ("memory", "trace") around them. */
/* Its objects, which the rounds report also writes: a rule's (without the
 * closing brace, so a caller may add keys), a fusion's and a rejection's
 * (keys: more "key": value, pairs put after "rule"; nodes writes the
 * "nodes" list, NULL: the member names). */
typedef void (*explain_nodes_json_fn)(FILE *f, const void *arg, const fd_match_result *r, size_t fusion);
void explain_rule_json(FILE *f, const fd_rule *rule, const fd_rule_stats *st);
/* Every fusion of r as those objects, the same way (nodes and arg as above). */
void explain_fusions_json(FILE *f, const fd_match_result *r, const char *keys, explain_nodes_json_fn nodes,
                          const void *arg, bool *first);
/* Every rejection of r (the attempts that did not fire) as those objects,
 * each after ",\n    " ("\n    " while *first, which it clears), written on
 * every core (base/ordered_write.h). */
void explain_rejections_json(FILE *f, const fd_match_result *r, const char *keys, bool *first);
void explain_match_text(FILE *f, const fd_match_result *r);
/* Its parts, which the rounds report (rounds_report.c) also writes: the
 * rules table over any per-rule counts; each fusion on a line after indent
 * (name gives a member's words, NULL: its name); the rejections per rule and
 * code, the heading once (*header says whether it was written). */
typedef const char *(*explain_node_name_fn)(const void *arg, int32_t graph, int32_t node, char *buf, size_t size);
void explain_rules_table(FILE *f, const fd_ruleset *rs, const int32_t *order, int32_t n, const fd_rule_stats *stats);
void explain_fusions_text(FILE *f, const fd_match_result *r, const char *indent, explain_node_name_fn name,
                          const void *arg);
void explain_rejections_text(FILE *f, const fd_match_result *r, const char *indent, bool *header);

/* ---- the trace (trace_report.c, trace_write.c) ------------------------------ */

/* One event in words: what a line of the text trace, a JSON event, `why` and
 * the TUI's stepper show. */
typedef struct fd_event_text {
	char check[96];      /* "op2 Relu param clip_max", "constraint memory_limit" */
	char subject[160];   /* "conv1 (Conv)", the unit the check was made on */
	char expected[128];
	char actual[128];
	char reason[256];    /* one line: "node has no such param" */
	fd_srcpos where;     /* the rule text that decided it, or {0} */
	uint8_t status;      /* fd_ev_status as shown: the event's, but info for a type check
	                      * another candidate made good (superseded) */
	bool superseded;     /* that case: "direct form absent, canonical form matched" */
} fd_event_text;

void explain_event(const fd_match_result *r, uint32_t ev, fd_event_text *out);
/* The first attempt whose first event is after ev (attempts are recorded in
 * event order); n_attempts when none. */
size_t explain_attempt_after(const fd_trace *t, uint32_t ev);
/* A failed type check that is no failure: a later candidate for the same op
 * of the same attempt and branch passed its type check before the path went
 * back to an earlier op (the decomposed form after the direct one: Swish on
 * Sigmoid + Mul; another consumer of the same tensor). Returns that later
 * event, or UINT32_MAX (ev is a real failure, or not a failed type check). */
uint32_t explain_superseded_by(const fd_match_result *r, uint32_t ev);
/* The canonical text trace (`match --trace`): stable, no addresses, no timing. */
void explain_trace_text(FILE *f, const fd_match_result *r);
/* One attempt's events, indented, as in the text trace. */
void explain_attempt_text(FILE *f, const fd_match_result *r, uint32_t attempt);
/* The whole trace as JSON: {"attempts": [...]} with each attempt's events. */
/* Its lists' items, for the rounds report: the canonical-form events; the
 * attempts with their events, each with "round" when round > 0 (", "
 * before every item but the very first: *first). */
void explain_trace_json_composites(FILE *f, const fd_match_result *r);
void explain_trace_json_attempts(FILE *f, const fd_match_result *r, int32_t round, bool *first);
/* CANN fusion_result.json shape: {"session_and_graph_id": "0_0",
 * "graph_fusion": {RULE: {"match_times": "N", "effect_times": "M"}}, "ub_fusion": {}} */

/* ---- why (why.c) ------------------------------------------------------------ */
/* The attempts of one rule, ranked: fired first, then by depth (score), then
 * topo order. Fills idx (caller-owned, up to max) and returns the count. */
size_t explain_rank_attempts(const fd_match_result *r, int32_t rule, uint32_t *idx, size_t max);
/* Does unit (a node, or a composite) of graph contain node? False when out of range. */
bool explain_unit_covers(const fd_match_ctx *ctx, int32_t graph, int32_t unit, int32_t node);
/* The attempt of rule on the unit that names node (as anchor), or else the
 * deepest attempt of that rule whose events touch node; UINT32_MAX if none. */
uint32_t explain_find_attempt(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node);
/* "Conv_BN_Relu_Fusion did not fire on conv1 (Conv): op2 Relu param clip_max:
 * expected 0.0, node has no such param [FD-NM03] at rules/x.yaml:14:9" — no
 * trailing newline. Returns buf. */
char *explain_why_line(const fd_match_result *r, uint32_t attempt, char *buf, size_t size);

/* The attempts of rule on an anchor that did not fire, ranked as above
 * (deepest first), every one of them: a malloc'd array (the caller frees
 * it; NULL when *n is 0). */
uint32_t *explain_misses(const fd_match_result *r, int32_t rule, size_t *n);
/* The first of those, in one pass over the attempts; UINT32_MAX when none. */
uint32_t explain_closest_miss(const fd_match_result *r, int32_t rule);
/* When nothing fired (nearest_misses.c): the attempts on an anchor that got
 * furthest (score), deepest first, one per rule and reason code, at most
 * max into idx; the count. */
size_t explain_nearest_misses(const fd_match_result *r, uint32_t *idx, size_t max);
/* `check RULES --against MODEL` (lint_against.c): each rule that never
 * fires in r, a warning with its nearest miss (or what comes nearest to an
 * anchor), and each param the op table derives, a note with what it derives
 * to on the model's nodes (a warning when the rule's value holds on none);
 * model names the model in the messages. */
void explain_lint_against(const fd_match_result *r, const char *model, fd_diags *d);
/* A rule that had no anchor (candidates.c): the nodes nearest to being one,
 * a line each (no newline) — "16 Conv nodes have 1 spatial dim (Conv1d); op0
 * asks Conv2d", nodes in another domain, types differing only in case or
 * spelling (subgraph bodies counted), canonical forms switched off; else
 * the model's commonest op types. Returns the lines written (at most max). */
size_t explain_anchor_candidates(const fd_match_result *r, int32_t rule, char (*lines)[320], size_t max);

/* "Why did rule not fire on node (of graph)?" — `fusiondbg why --node` and
 * the TUI's why-not ask it here. The rule that did not run at all answers
 * with its not-run attempt; a node inside a fusion of the rule, with that
 * fusion; otherwise the rule's attempt anchored on the node, else the
 * deepest one that reached it (fired or not). With rule < 0: the deepest
 * attempt of any rule that did not fire there, else one that fired. */
typedef enum fd_why_kind {
	WHY_NOT_RUN,           /* the rule did not run: attempt is its not-run record */
	WHY_FUSED,             /* the node is part of fusion; attempt is the fusion's */
	WHY_ATTEMPT,           /* attempt answers (it may have fired) */
	WHY_UNREACHED,         /* no attempt reached the node; attempt is UINT32_MAX */
} fd_why_kind;

typedef struct fd_why {
	fd_why_kind kind;
	uint32_t attempt;      /* the answering attempt, or UINT32_MAX */
	uint32_t decisive;     /* its deciding event, or UINT32_MAX */
	int32_t fusion;        /* WHY_FUSED: the fusion holding the node, else -1 */
	bool fired;            /* the rule fires on the node */
	int32_t round;         /* the round of a run of several that r is, said after the verb and what it
	                        * is on ("did not fire on conv2 (Conv) in round 2: …"); 0: not said */
	char line[2048];       /* the one-line answer, no trailing newline */
} fd_why;

void explain_why(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node, fd_why *out);
/* The same when r is round `round` of a run of several rounds (why_rounds.c). */
void explain_why_in_round(const fd_match_result *r, int32_t round, int32_t rule, int32_t graph, int32_t node,
                          fd_why *out);

/* The key of op's map an input's event checked ("input_sources.input1.shape",
 * "input_sources.input0.position"), so that an edit goes to what decided it;
 * false for other events (condition_text.c). */
bool explain_input_key(const fd_match_result *r, const fd_rule_op *op, const fd_event *ev, char *buf, size_t size);
/* The what-if path of the rule value event idx checked, so that an edit
 * goes to what decided it: "match.ops.2.outputs.max_consumers" (the field
 * that failed, the check says), "match.branches.1.ops.0.type",
 * "constraints.memory_limit.max_output_size", "priority"; false (buf "")
 * when the event names no single value (event_path.c). */
bool explain_event_path(const fd_match_result *r, uint32_t idx, char *buf, size_t size);
/* The what-if path of the rule value a CONSTRAINT event's check was decided
 * by ("constraints.memory_limit.max_output_size", the type as written);
 * false (buf "") when it names none: a shape_constraint, an unknown type,
 * another event (constraint_path.c). */
bool explain_constraint_path(const fd_match_result *r, const fd_event *ev, char *buf, size_t size);
/* ---- a refused model (model_refused.c) -------------------------------------------
 * A fusion whose rule says rewrite.refuses_model: the compiler makes it and
 * then refuses the whole model. */
bool explain_fusion_refuses_model(const fd_match_result *r, size_t fusion);
/* "the compiler refuses the model: RULE on NODE makes OP, then "MESSAGE"" for
 * the first such fusion of r (of any round of rd); false when none. */
bool explain_refused_model(const fd_match_result *r, char *buf, size_t size);
bool explain_rounds_refused_model(const fd_rounds *rd, char *buf, size_t size);

/* ---- rounds (rounds_report.c, why_rounds.c) -----------------------------------
 * A run of one round (one pass, no pass file) reads as the functions above
 * write it; the JSON keys gain "round" (fusions, rejections, attempts) and
 * "rounds" {count, settled, max_rounds, passes, keep_firing}, the rules
 * "pass" and "fired_in_rounds", every fusion "members" (the nodes of its
 * round; "nodes" are always original nodes). */
void explain_rounds_text(FILE *f, const fd_rounds *rd);
void explain_rounds_json_fields(FILE *f, const fd_rounds *rd);
void explain_rounds_trace_text(FILE *f, const fd_rounds *rd);
void explain_rounds_trace_json(FILE *f, const fd_rounds *rd);
/* "not settled: …" when a pass did not settle, else nothing. */
void explain_rounds_settle_text(FILE *f, const fd_rounds *rd);
/* A node of round `number` in words: its name, and for a fused node its op
 * type and original nodes: "fused_conv1 (ConvBN of conv1, bn1)". */
const char *explain_rounds_node(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, char *buf,
                                size_t size);
/* "fused_conv1 (ConvBN) was made from conv1, bn1 by Conv_BN in round 1" for
 * a node a round made (kept since or not); NULL (buf "") for a node of the
 * original graph. */
const char *explain_rounds_origin(const fd_rounds *rd, int32_t number, int32_t graph, int32_t node, char *buf,
                                  size_t size);

/* Why across rounds: each round where the rule ran answers for the node the
 * asked node had become there; the round that answers is the first where
 * the rule fired on it, else the last where an attempt reached it, else the
 * first (not run, or unreached). line: that round's one line with "in round
 * k" after its verb, how the nodes it names were made ("fused_conv1
 * (ConvBN) was made from conv1, bn1 by Conv_BN in round 1"), which other
 * rule fused the node and when, and whether a later round offered it again.
 * A run of one round answers exactly as explain_why. */
typedef struct fd_rounds_why {
	int32_t round;         /* the answering round (1-based); 0: none */
	int32_t node;          /* the node the asked node is in that round's model */
	fd_why why;            /* that round's answer (attempt and decisive: its trace) */
	bool fired;
	char line[3072];
} fd_rounds_why;
void explain_rounds_why(const fd_rounds *rd, int32_t rule, int32_t graph, int32_t node, fd_rounds_why *out);

/* ---- words (value_text.c) ----------------------------------------------------- */
/* "conv1 (Conv)" or "Mul_4 (Swish: silu of Sigmoid_3, Mul_4)". Returns buf. */
char *explain_unit_label(const fd_match_ctx *ctx, int32_t graph, int32_t u, char *buf, size_t size);
/* The same, with *full the label's length uncut (a copy of it fits a buffer
 * of more than *full bytes). */
char *explain_unit_label_full(const fd_match_ctx *ctx, int32_t graph, int32_t u, char *buf, size_t size,
                              size_t *full);
/* The op a composite stands for (fd_composite): "Swish", "Gelu", "LayerNorm", "BiasAdd". */
/* A node's param value and a value the rule writes: "0.0", "[3, 3]",
 * "\"none\"", "absent". Return buf. */
char *explain_pval(const fd_pval *v, char *buf, size_t size);
/* "rules/x.yaml:14:9", or "" when the place is not known. Returns buf. */
char *explain_where(const fd_srcpos *p, char *buf, size_t size);

/* ---- names a user gives (names.c) ---------------------------------------------
 * " (did you mean 'conv1' or 'conv2'?)" — the nearest names of that kind
 * (base/nearest.h), or "" when none is near. Return buf. */
char *explain_rule_hint(const fd_ruleset *rs, const char *typed, char *buf, size_t size);
char *explain_node_hint(const fd_model *m, const char *typed, char *buf, size_t size);
char *explain_reason_hint(const char *typed, char *buf, size_t size);   /* "FD-NM3" */

/* ---- quantized models (float_ops.c, why_float.c) ------------------------------
 * A graph is quantized when it has QuantizeLinear and DequantizeLinear nodes.
 * An op is left in float there when it is no Q or DQ, computes more than
 * constants, is in no fusion holding Q or DQ nodes (the integer kernel a QDQ
 * rule makes), and reads a DequantizeLinear's output or writes what a
 * QuantizeLinear reads. */
bool explain_is_qdq_node(const fd_node *n);
bool explain_graph_quantized(const fd_graph *g);
bool explain_left_in_float(const fd_match_result *r, int32_t graph, int32_t node);
/* Every node of graph into out (NULL: count only); the count (0 in a graph
 * that is not quantized). r: the final fusions (claims of the original nodes). */
int32_t explain_float_ops(const fd_match_result *r, int32_t graph, bool *out);
/* A rule with a QuantizeLinear or DequantizeLinear op: one that makes an integer kernel. */
bool explain_rule_is_qdq(const fd_rule *rule);
/* "conv_12 (Conv) stayed float: its output has no QuantizeLinear (the next
 * op, sm (Softmax), is not quantized) — ORT_QDQ_QLinearConv (QLinearConv)
 * [FD-NM01] at rules/x.yaml:44:7": of the QDQ rules' attempts on the node
 * over every round of rd, the one anchored on it that got furthest, its
 * deciding check worded by the pattern op's role. final: rd's final fusions.
 * False (buf says why) when the node is not left in float. */
bool explain_why_float(const fd_rounds *rd, const fd_match_result *final, int32_t graph, int32_t node, char *buf,
                       size_t size);

/* ---- the transpose optimizer (transpose_report.c) --------------------------- */
/* The JSON object "transpose_optimizer" (a key of the run's object, after a
 * comma): counts and every event (kind, node, op_type, against | absorbed_by
 * | at, through, text); one line per event in text (nothing when none). */
void explain_transpose_json_fields(FILE *f, const fd_transpose_result *r);
void explain_transpose_text(FILE *f, const fd_transpose_result *r);
const char *explain_transpose_kind(fd_tpose_kind k);

#endif
