/* view_state.h — the TUI's view logic with no curses in it, so that it is
 * unit-tested (tests/unit/test_view_state.c): a list's cursor and scrolling,
 * search with n/N, the rows of the graph view, the trace stepper (next /
 * previous event, attempt, fire, failure, run to a breakpoint) and the
 * breakpoints themselves, and the why-not landing.
 *
 * Ownership: a vs_list is a plain value; vs_breakpoints and vs_graph_rows own
 * their arrays (vs_*_release frees them). Everything that reads the trace
 * takes the match result it belongs to and never changes it. */
#ifndef FD_VIEW_STATE_H
#define FD_VIEW_STATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/vec.h"
#include "match/match.h"
#include "explain/explain.h"

#define VS_NONE SIZE_MAX

/* ---- a scrolling list: rows [0, n), `height` of them visible from `top` ---- */
typedef struct vs_list {
	size_t n;
	size_t cursor;
	size_t top;
	int height;
} vs_list;

void vs_list_set_rows(vs_list *l, size_t n);     /* clamps cursor and top */
void vs_list_set_height(vs_list *l, int height); /* keeps the cursor visible */
void vs_list_move(vs_list *l, long delta);       /* j/k: clamped, scrolls as needed */
void vs_list_page(vs_list *l, int dir);          /* PgDn (+1) / PgUp (-1) */
void vs_list_home(vs_list *l);
void vs_list_end(vs_list *l);
/* Puts the cursor on row; when the row was off screen, scrolls so that it
 * shows a third of the way down (context above, as a debugger shows). */
void vs_list_goto(vs_list *l, size_t row);
/* Mouse wheel: moves the window, the cursor follows only to stay inside. */
void vs_list_scroll(vs_list *l, long delta);
/* A click on visible line y (0-based inside the view); false if no row there. */
bool vs_list_click(vs_list *l, int y);

/* ---- search ---------------------------------------------------------------
 * row_text gives the text of a row (written into buf, or a pointer to its
 * own). Matching is a substring test, case-insensitive unless the needle has
 * an upper-case letter (vim's smartcase). Starts after `from` (dir +1) or
 * before it (dir -1) and wraps; VS_NONE when nothing matches. */
typedef const char *(*vs_row_text_fn)(void *ctx, size_t row, char *buf, size_t size);
size_t vs_search(size_t n, size_t from, int dir, const char *needle, vs_row_text_fn row_text, void *ctx,
                 bool *wrapped);
bool vs_text_matches(const char *hay, const char *needle);

/* ---- graph view rows: every graph's nodes in topological order, the ones
 * that only pass a weight on (Identity of an initializer, as PyTorch exports
 * write tied weights) after the graph's real ops ----------------------------- */
typedef struct vs_graph_rows {
	int32_t n_graphs;
	size_t *offset;        /* [n_graphs + 1]: first row of each graph */
	int32_t *node_at;      /* [rows]: the node of each row, within its graph */
	int32_t *row_of;       /* [nodes of all graphs, by offset]: each node's row within its graph */
} vs_graph_rows;

void vs_graph_rows_init(vs_graph_rows *gr, const fd_model *m);
void vs_graph_rows_release(vs_graph_rows *gr);
size_t vs_graph_rows_count(const vs_graph_rows *gr);
/* row → (graph, node index); node → row (VS_NONE when out of range). */
void vs_graph_row_node(const vs_graph_rows *gr, const fd_model *m, size_t row, int32_t *graph, int32_t *node);
size_t vs_graph_node_row(const vs_graph_rows *gr, const fd_model *m, int32_t graph, int32_t node);

/* A scoped exporter name ("/model/layer1/conv/Conv", as PyTorch writes them)
 * too wide for w columns, cut to its tail: ellipsis then the longest tail
 * that fits, started at a '/' when one is a few columns in
 * ("…/layer1/conv/Conv", "…tures.1.0/Add"): the head all such names share
 * goes. False (out untouched) when the name fits, has no scope, or w leaves
 * no room: the caller cuts it otherwise (display_cut_name, the one cut
 * every view makes). width: columns of a string (the display's). */
bool vs_cut_name_tail(const char *name, int w, const char *ellipsis, int (*width)(const char *), char *out,
                      size_t size);

/* ---- breakpoints --------------------------------------------------------- */
typedef enum vs_bp_kind { BP_RULE, BP_NODE, BP_REASON } vs_bp_kind;

typedef struct vs_breakpoint {
	vs_bp_kind kind;
	int32_t rule;          /* BP_RULE: rule index */
	int32_t graph, node;   /* BP_NODE: a node of the model as loaded */
	int32_t reason;        /* BP_REASON: fd_reason */
	bool mapped;           /* BP_NODE: the trace read is a later round's (rounds/rounds.h), */
	int32_t at;            /* where node is: this node of its graph (FD_NONE: nowhere) */
} vs_breakpoint;

typedef VEC(vs_breakpoint) vs_breakpoints;

void vs_bp_init(vs_breakpoints *b);
void vs_bp_release(vs_breakpoints *b);
/* Adds bp, or removes it when an equal one is set; returns true when now set. */
bool vs_bp_toggle(vs_breakpoints *b, const vs_breakpoint *bp);
void vs_bp_remove(vs_breakpoints *b, size_t i);
/* Where each kind stops: a rule at its start and at each of its attempts; a
 * node when an attempt first reaches it (anchor or op candidate); a reason
 * code at every event carrying that code (a failure or a warning). */
bool vs_bp_hit(const vs_breakpoints *b, const fd_match_result *r, uint32_t ev);
/* "rule Conv_BN_Relu_Fusion", "node conv1", "reason FD-NM03". Returns buf. */
char *vs_bp_describe(const vs_breakpoint *bp, const fd_match_result *r, char *buf, size_t size);
/* The breakpoints that stop at event ev, described and ", "-joined ("node
 * conv1, rule Conv_BN_Relu_Fusion"); "" when none. Returns buf. */
char *vs_bp_hits_at(const vs_breakpoints *b, const fd_match_result *r, uint32_t ev, char *buf, size_t size);
/* Whether any event of r stops at bp beyond a rule's start: false with *why
 * saying so ("no attempt of any rule reaches it in this run") for a node no
 * attempt reached, a rule that made no attempt, a code no event carries. */
bool vs_bp_reachable(const vs_breakpoint *bp, const fd_match_result *r, char *why, size_t size);
/* A breakpoint from what a user typed: "rule NAME", "node NAME", "reason
 * CODE" (also "code"), or a bare name looked up as a rule, then a node, then
 * a code. False with *err saying why, with the nearest names (did you mean). */
bool vs_bp_parse(const char *text, const fd_match_result *r, vs_breakpoint *bp, char *err, size_t size);

/* ---- the stepper: moves over the trace's events ---------------------------
 * Each function takes the current event and returns the new one; when there
 * is nowhere to go it returns the current event and sets *moved to false
 * (moved may be NULL). An empty trace gives 0. */
typedef enum vs_step {
	STEP_NEXT_EVENT, STEP_PREV_EVENT,
	STEP_NEXT_ATTEMPT, STEP_PREV_ATTEMPT,
	STEP_NEXT_FIRE, STEP_PREV_FIRE,
	STEP_NEXT_FAILURE, STEP_PREV_FAILURE,   /* the deciding check of an attempt that did not fire */
	STEP_CONTINUE, STEP_REVERSE_CONTINUE,   /* run to the next / previous breakpoint hit */
	STEP_START, STEP_END,
	STEP_COUNT
} vs_step;

uint32_t vs_stepper_move(const fd_match_result *r, const vs_breakpoints *bp, uint32_t cur, vs_step how,
                         bool *moved);
/* The attempt whose events contain ev, or UINT32_MAX (rule start, canonical
 * form events lie between attempts). */
uint32_t vs_attempt_of(const fd_trace *t, uint32_t ev);
/* The event where an attempt is best read: its deciding check, else its first event. */
uint32_t vs_attempt_focus(const fd_trace *t, uint32_t attempt);
/* The event whose unit covers node (graph) in ev's attempt, or ev itself. */
bool vs_event_touches(const fd_match_result *r, uint32_t ev, int32_t graph, int32_t node);

/* ---- why-not --------------------------------------------------------------
 * The attempt answering "why did rule not fire on node" (rule < 0: any
 * rule), as explain_why (explain/explain.h) resolves it. UINT32_MAX: no
 * attempt got near the node. */
uint32_t vs_why_not(const fd_match_result *r, int32_t rule, int32_t graph, int32_t node);

#endif
