/* cond_constraint.h — the constraint conditions (scope CONSTRAINT of
 * conditions.h: cond_dtype_match.c, cond_shape_constraint.c,
 * cond_memory_limit.c, cond_workspace_size.c, cond_channel_divisibility.c):
 * how the schema, the matcher and explain/ reach them, and what the five
 * files share (cond_constraint_util.c).
 *
 * A constraint is measured on a complete match (the run's cover). Its check
 * emits the event(s) of the measure in a run; explaining, the recorded event
 * is the outcome (the cover is gone, the event says what was measured). In
 * both, the same function turns the outcome into facts: the words of the
 * trace and the value that decided ("constraints.<type as written>.<field>"). */
#ifndef FD_COND_CONSTRAINT_H
#define FD_COND_CONSTRAINT_H
#include "match/conditions.h"
#include "match/cond_text.h"

/* ---- the dispatch (match_constraints.c) ---------------------------------------- */

/* c->constraint checked by its entry (c->constraint->kind); a type the
 * format does not know (COND_COUNT) passes with FD-WN01. In a run (c->run)
 * it emits its events and returns the code of a failure; explaining (c->ev)
 * the recorded event decides. facts (may be NULL) say what decided. */
fd_reason cond_check_constraint(fd_cond_check *c, fd_cond_facts *facts);
/* "constraint memory_limit max_output_size": the check's name in a trace
 * (a memory_limit's events are one per limit, named by it). c->ev set. */
void cond_constraint_label(const fd_cond_check *c, char *buf, size_t size);

/* ---- an unbound size's words, cached (cond_memory_limit.c) ---------------------- */

/* What an unbound memory_limit says, by what it depends on: the tensor's
 * dtype and dims (equal formulas are one interned expression) and the
 * limit. Exports with a symbolic batch ask it for every rejected block; a
 * writer keeps one cache per piece (explain's describe_cache) and passes it
 * as fd_cond_check.sizes. */
#define COND_SIZES 16
#define COND_SIZE_RANK 8
typedef struct cond_size_words {
	int32_t rank;                  /* -1: empty */
	int32_t dtype;
	int64_t limit;
	fd_dim dims[COND_SIZE_RANK];
	char formula[160], tail[96];
} cond_size_words;

typedef struct cond_size_cache {
	cond_size_words sizes[COND_SIZES];
	unsigned next;                 /* the entry a new size replaces */
} cond_size_cache;

void cond_size_cache_init(cond_size_cache *sc);
/* The limit a memory_limit's event measured: "max_intermediate_size" (op 0)
 * or "max_output_size". */
const char *cond_memory_limit_field(const fd_event *ev);

/* ---- shared by the five files (cond_constraint_util.c) -------------------------- */

/* Emits the event of an outcome (run) and returns it: EV_CONSTRAINT of
 * constraint c->constraint_index, status st, code why, its payload the
 * tensor measured, what it measured and the limit (cond_event_payload). */
fd_event cond_constraint_emit(const fd_cond_check *c, fd_ev_status st, fd_reason why, int op, int32_t unit,
                              int32_t tensor, int64_t measured, int64_t limit);
/* A pass (undecided: a WARN with FD-WN02) and a failure "unknown: depends on …" (FD-CF06). */
fd_event cond_constraint_pass(const fd_cond_check *c, bool undecided, int op, int32_t unit, int32_t tensor,
                              int64_t measured, int64_t limit);
fd_event cond_constraint_unbound(const fd_cond_check *c, int op, int32_t unit, int32_t tensor, int64_t measured,
                                 int64_t limit);

/* A constraint's words from its outcome: c->ev is the outcome and
 * c->payload.constraint what it measured, facts begun (reason, decided,
 * path). */
typedef void (*cond_words_fn)(const fd_cond_check *c, fd_cond_facts *facts);
/* The end of every constraint's check: with facts, the outcome ev in
 * words — the value that decided is field of the constraint's map (NULL:
 * the map) — and a WARN's words when the constraint has none of its own.
 * Returns the code of a failure, else REASON_NONE. */
fd_reason cond_constraint_decided(const fd_cond_check *c, const fd_event *ev, fd_cond_facts *facts,
                                  const char *field, cond_words_fn words);

/* A dim that a binding would make a number: an expression over the
 * model's symbols, unbound, without a fresh one. */
bool cond_dim_waits(fd_dim d);
bool cond_shape_waits(const fd_shape *sh);
/* The dim channel_dim (negative from the end) names in a shape, or -1 when
 * the rank is unknown. */
int cond_channel_dim(const fd_constraint *k, const fd_shape *sh);

/* reason = "unknown: depends on batch, samples" from the unbound symbols of
 * tensors ts (a name once), then tail. */
void cond_unbound_words(const fd_graph *g, const int64_t *ts, int n, const char *tail, char *reason, size_t size);
/* "512 B", "2.0 MiB (2097152)". */
void cond_bytes_words(int64_t b, char *buf, size_t size);

/* Reads key of the constraint's map v (path the constraint's) as a byte
 * count into *out, when written. */
void cond_parse_bytes(fd_schema *s, const fd_yval *v, const char *path, const char *key, int64_t *out);

#endif
