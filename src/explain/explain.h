/* explain.h — reading a run: the match result and its trace in words. The
 * text and JSON of `match`, the canonical text trace, each event in words
 * (what the TUI's stepper shows), the one-line "why", and which attempt
 * answers "why not here?". Everything here reads a match result (and the
 * context, model and rules it refers to) and never changes it; writers write
 * only to the FILE they are given. */
#ifndef FD_EXPLAIN_H
#define FD_EXPLAIN_H
#include <stdio.h>
#include "match/match.h"

/* ---- a run (match_report.c) ------------------------------------------------ */
/* The attempts of one rule, ranked: fired first, then by depth (score), then
 * topo order. Fills idx (caller-owned, up to max) and returns the count. */
size_t explain_rank_attempts(const fd_match_result *r, int32_t rule, uint32_t *idx, size_t max);
/* The attempt of rule on the unit that names node (as anchor), or else the
 * deepest attempt of that rule whose events touch node; UINT32_MAX if none. */
uint32_t explain_find_attempt(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node);

/* Match JSON (the keys of fusiondbg(1), OPTIONS --format: model, rules, fusions, rejections; the
 * graph-level memory object is left to the estimates module) and the text
 * summary of `match`. */
void explain_match_json(FILE *f, const fd_match_result *r);
/* The same keys without the enclosing braces (no trailing comma or newline),
 * so a caller can add its own ("memory", "trace") around them. */
void explain_match_json_fields(FILE *f, const fd_match_result *r);
void explain_match_text(FILE *f, const fd_match_result *r);

/* ---- the trace (trace_report.c) -------------------------------------------- */

/* One event in words: what a line of the text trace, a JSON event, `why` and
 * the TUI's stepper show. */
typedef struct fd_event_text {
	char check[96];      /* "op2 Relu param clip_max", "constraint memory_limit" */
	char subject[160];   /* "conv1 (Conv)", the unit the check was made on */
	char expected[128];
	char actual[128];
	char reason[256];    /* one line: "node has no such param" */
	fd_srcpos where;     /* the rule text that decided it, or {0} */
} fd_event_text;

void explain_event(const fd_match_result *r, uint32_t ev, fd_event_text *out);
/* The canonical text trace (`match --trace`): stable, no addresses, no timing. */
void explain_trace_text(FILE *f, const fd_match_result *r);
/* One attempt's events, indented, as in the text trace. */
void explain_attempt_text(FILE *f, const fd_match_result *r, uint32_t attempt);
/* The whole trace as JSON: {"attempts": [...]} with each attempt's events. */
void explain_trace_json(FILE *f, const fd_match_result *r);
/* "Conv_BN_Relu_Fusion did not fire on conv1 (Conv): op2 Relu param clip_max:
 * expected 0.0, node has no such param [FD-NM03] at rules/x.yaml:14:9" — no
 * trailing newline. Returns buf. */
char *explain_why_line(const fd_match_result *r, uint32_t attempt, char *buf, size_t size);
/* CANN fusion_result.json shape: {"session_and_graph_id": "0_0",
 * "graph_fusion": {RULE: {"match_times": "N", "effect_times": "M"}}, "ub_fusion": {}} */
void explain_fusion_result_json(FILE *f, const fd_match_result *r);

#endif
