/* explain_internal.h — what the files that put events in words share:
 * trace_report.c (every event's words; an op's and the subgraph's
 * conditions from their facts), trace_write.c (the text and JSON trace),
 * condition_text.c (an input entry's and its order's words), constraint_path.c
 * (a constraint's facts), event_path.c (an event's what-if path) and the
 * writers of a big run's reports (match_report.c, why.c). A condition's
 * words come from its check, asked with the recorded event through
 * match/conditions.h (cond_event_decode, cond_check_event). Not for other
 * modules: they read explain.h. */
#ifndef FD_EXPLAIN_INTERNAL_H
#define FD_EXPLAIN_INTERNAL_H
#include <stddef.h>
#include "explain/explain.h"
#include "match/conditions.h"
#include "match/cond_text.h"
#include "match/cond_constraint.h"

/* What the writers of a big run keep from one event to the next within a
 * piece (each piece its own: pieces are written on several threads): the
 * labels of the units seen lately (an attempt speaks of the same few), the
 * labels of the pattern ops and the rule positions written lately (a rule
 * has a few dozen). NULL where
 * an event is described alone (explain_event). */
#define DESCRIBE_LABELS 64
typedef struct describe_label {
	int32_t graph, unit;           /* unit -2: empty */
	size_t full;                   /* the label's length uncut */
	char text[192];
} describe_label;

/* A rule position as the text trace writes it: " (rules/x.yaml:21:22)". */
#define DESCRIBE_WHERES 256
typedef struct describe_pos {
	const char *file;              /* NULL: empty */
	int line, col;
	size_t len;
	char text[80];
} describe_pos;

/* A pattern op's label ("op2 Relu"), for an op of one type. */
#define DESCRIBE_OPS 64
typedef struct describe_op {
	const fd_rule_op *op;          /* NULL: empty */
	int index;                     /* its position in the pattern */
	size_t len;
	char text[96];                 /* fd_event_text.check's size */
} describe_op;

typedef struct describe_cache {
	describe_label labels[DESCRIBE_LABELS];
	describe_op ops[DESCRIBE_OPS];
	describe_pos wheres[DESCRIBE_WHERES];
	cond_size_cache sizes;         /* an unbound memory_limit's words (match/cond_constraint.h) */
} describe_cache;

void explain_cache_init(describe_cache *dc);
/* explain_unit_label through the cache (dc NULL: none). */
const char *explain_cached_unit_label(describe_cache *dc, const fd_match_result *r, int32_t graph, int32_t u, char *buf,
                              size_t size);
/* The words of event idx, already decoded (ev); next: NULL, or the cursor
 * it was read with (a failed type check looks ahead from it). The one place
 * an event is worded: explain_event and every writer come here. */
void explain_describe_event(const fd_match_result *r, describe_cache *dc, const fd_trace_iter *next, uint32_t idx,
                    const fd_event *ev, fd_event_text *o);
/* explain_event through the cache. */
void explain_event_cached(const fd_match_result *r, describe_cache *dc, uint32_t idx, fd_event_text *o);
/* explain_why_line through the cache (why.c). */
char *explain_why_line_cached(const fd_match_result *r, describe_cache *dc, uint32_t ai, char *buf, size_t size);



/* The condition of scope OP that event ev checked (its type, params,
 * inputs, optional, outputs, where, feeds, siblings), asked again through
 * cond_check_event with a facts record: c decoded from the event
 * (cond_event_decode), *kind the condition. false for any other event
 * (trace_report.c). */
bool explain_op_condition(const fd_match_result *r, const fd_event *ev, fd_cond_check *c, fd_cond_facts *f,
                          fd_cond_kind *kind);
/* constraint_path.c: the facts of CONSTRAINT event ev, its constraint's
 * check asked with the recorded event (sizes: a writer's cache, or NULL)
 * into c and facts; false when ev names no constraint of its rule. */
bool explain_constraint_facts(const fd_match_result *r, const fd_event *ev, cond_size_cache *sizes, fd_cond_check *c,
                      fd_cond_facts *facts);

/* condition_text.c */
/* "op2 Relu", or for a type list the type the unit matched ("op2 Sigmoid"),
 * else the list ("op2 [Relu, Sigmoid, Tanh]"). */
void explain_op_label(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, char *buf, size_t size);
/* A SOURCE event of an input_sources entry (the conditions' facts). */
void explain_describe_input_source(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o);
/* An ORDER event: the swap tried, or position: fixed refusing it (cond_position.c). */
void explain_describe_order(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o);
void explain_describe_operand(const fd_match_result *r, const fd_event *ev, const fd_rule_op *op, fd_event_text *o);
/* "; absent: op1 BatchNorm, op2 Mul" for a fusion's absent optional ops, or "". */
void explain_absent_ops_text(const fd_match_result *r, const fd_fusion *f, char *buf, size_t size);

#endif
