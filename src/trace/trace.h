/* trace.h — what the matcher did, as an ordered list of small events plus
 * one summary record per attempt (rule × anchor).
 *
 * The matcher talks to its consumer through fd_trace_sink (like ncdu's
 * dir_output): the recording sink (fd_trace) stores events compactly — each
 * one as the fields that differ from the event before it (trace_codec.h: 6 to 7
 * bytes an event on the matcher's traces, where a flat fd_event is 40), no
 * allocation per event, no strings. Readers get an event back by value
 * (trace_event) or walk a run of them with a cursor (fd_trace_iter, forwards;
 * fd_trace_riter, backwards). Text is made on demand: an event names the
 * rule, the pattern position, the param / source / constraint index, the
 * unit (node or composite) and two int64 payloads; the rule's file:line and
 * the expected value come from the rule's fd_yval, the actual value is
 * recomputed from the graph. So a recording is read together with the match
 * result, context, model and rules it came from (explain/explain.h: each
 * event in words, the canonical text, JSON, one-line "why").
 *
 * A large run records on two threads (trace_async.c): the matcher's event()
 * only copies the flat event into a chunk of TRACE_CHUNK and returns its
 * index from a counter; full chunks go round a ring of TRACE_RING to one
 * encoder thread, which encodes them exactly as the synchronous sink would
 * (trace_append), so the bytes and their page faults leave the matcher's
 * thread; that thread also faults in, ahead of the matcher, the ring and
 * the attempts' reserve. It starts when the first chunk fills (a smaller
 * run never starts one) and trace_async_finish hands over the last, partial
 * chunk and joins it; only then may the events be read (attempts and paths
 * stay synchronous and may be read at any time).
 *
 * Ownership: an fd_trace owns its arrays and its async state (ring, lock,
 * no thread between runs); trace_release frees them.
 *
 * Files: trace.c the life and size of an fd_trace and the names;
 * trace_record.c the synchronous sink; trace_async.c the two-thread sink
 * (which runs trace_append); trace_read.c the reading; trace_codec.h the
 * byte format of an event; reason.c the reason codes (reason.h). */
#ifndef FD_TRACE_H
#define FD_TRACE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/diag.h"
#include "trace/reason.h"

/* The fields an event kind gives a meaning; the others hold their defaults
 * (-1, or 0 for a and b), which cost nothing in the recording (trace_codec.h). */
enum { EVF_UNIT = 1, EVF_OTHER = 2, EVF_A = 4, EVF_B = 8, EVF_SUB = 16 };

/* Event kinds: X(id, name, fields it uses), and what the fields mean (unit: a
 * unit id of the event's graph — a node index, or n_nodes + composite index;
 * see match.h). rule / op / sub / branch are -1 when they do not apply. */
#define FD_EVENT_KINDS(X) \
	X(RULE,       "rule",       EVF_A)                         /* a priority: rule start, or not run (FAIL + NR code) */ \
	X(COMPOSITE,  "composite",  EVF_UNIT | EVF_A)              /* unit the composite, a its recogniser (canonicalisation, rule -1) */ \
	X(ANCHOR,     "anchor",     EVF_UNIT)                      /* unit the anchor */ \
	X(BRANCH,     "branch",     0)                             /* the branch field says which alternative */ \
	X(TYPE,       "type",       EVF_UNIT | EVF_OTHER | EVF_A)  /* unit the candidate (op), other the unit it follows, a the tensor reached by */ \
	X(ORDER,      "order",      EVF_UNIT | EVF_A)              /* unit, a 1 swapped / 0 as is: a commutative input order tried */ \
	X(ARITY,      "arity",      EVF_UNIT | EVF_A)              /* unit, a the inputs counted */ \
	X(PARAM,      "param",      EVF_UNIT | EVF_SUB)            /* unit, sub the param index (values recomputed) */ \
	X(SOURCE,     "source",     EVF_UNIT | EVF_OTHER | EVF_A | EVF_B | EVF_SUB) \
	                            /* unit, other the producer unit or NONE, a the tensor (-1: absent), b the input slot, \
	                             * sub the source index (-1: chain link to op-1, -3-j: to op j past absent ones, \
	                             * -2: no candidates, a the linked op); FD-NM12: other the tensor same_as names */ \
	X(ESCAPE,     "escape",     EVF_UNIT | EVF_OTHER | EVF_A)  /* unit the producer, other the outside consumer (NONE: graph output), a the tensor */ \
	X(INPUTS,     "inputs",     EVF_A)                         /* a the external inputs */ \
	X(OUTPUTS,    "outputs",    EVF_A)                         /* a the outputs counted */ \
	X(CONSTRAINT, "constraint", EVF_UNIT | EVF_OTHER | EVF_A | EVF_B | EVF_SUB) \
	                            /* unit or NONE, other a tensor or NONE, a measured, b the limit, sub the constraint index */ \
	X(CONFLICT,   "conflict",   EVF_UNIT | EVF_OTHER | EVF_A)  /* unit the claimed node, other the winning fusion, a the winning rule */ \
	X(CYCLE,      "cycle",      EVF_UNIT | EVF_A | EVF_B)      /* unit the path's first node, a its offset in trace->paths (node ids), b its length */ \
	X(FIRE,       "fire",       EVF_UNIT | EVF_A)              /* unit the anchor, a the fusion index */ \
	X(REWRITE,    "rewrite",    EVF_UNIT | EVF_A)              /* unit the anchor, a the fusion index */ \
	X(OPERAND,    "operand",    EVF_UNIT | EVF_OTHER | EVF_A | EVF_B | EVF_SUB) \
	                            /* unit, other the input slot, a the tensor, b a dim bound earlier (match.h: \
	                             * match_bound_*) or -1, sub the source index: its rank .. value conditions */ \
	X(OUTPUT,     "output",     EVF_UNIT | EVF_A | EVF_B)      /* unit, a its consumers, b a graph-output tensor or -1 */ \
	X(WHERE,      "where",      EVF_UNIT | EVF_A | EVF_B | EVF_SUB) \
	                            /* unit, sub the expression index (its value recomputed); an op whose where reads \
	                             * earlier ops (opJ.NAME): a the offset in trace->paths of their units then op ids, b their count */ \
	X(OPTIONAL,   "optional",   EVF_UNIT)                      /* op absent: unit the op it would have read */ \
	X(SEARCH_CAP, "search cap", EVF_A | EVF_B)                 /* FD-WN04: a the complete matches tried (opt->max_complete); \
	                             * FD-NM19: a the steps tried, b the steps one attempt may take (match.h) */ \
	X(FEEDS,      "feeds",      EVF_UNIT | EVF_OTHER | EVF_A | EVF_B) \
	                            /* unit the candidate, other the unit of the op it feeds, a that op's input tensor \
	                             * (-1: absent), b the candidate's output count reaching it (0: it does not produce it) */ \
	X(SIBLINGS,   "siblings",   EVF_UNIT | EVF_OTHER | EVF_A | EVF_B | EVF_SUB) \
	                            /* unit the candidate, sub what decided (cond_siblings.c), other the member that \
	                             * did (or -1), a the members, b the detail (a member's reason, an index) */

typedef enum fd_event_kind {
#define FD_EVENT_KIND_ENUM(id, name, uses) EV_##id,
	FD_EVENT_KINDS(FD_EVENT_KIND_ENUM)
#undef FD_EVENT_KIND_ENUM
	EV_KIND_COUNT
} fd_event_kind;

#define FD_EV_STATUSES(X) X(INFO, "info") X(PASS, "pass") X(FAIL, "FAIL") X(WARN, "warn")

typedef enum fd_ev_status {
#define FD_EV_STATUS_ENUM(id, name) ST_##id,
	FD_EV_STATUSES(FD_EV_STATUS_ENUM)
#undef FD_EV_STATUS_ENUM
	ST_COUNT
} fd_ev_status;

typedef struct fd_event {
	uint8_t kind;        /* fd_event_kind */
	uint8_t status;      /* fd_ev_status */
	uint8_t reason;      /* fd_reason: the code of a FAIL or WARN, else REASON_NONE */
	int8_t branch;       /* -1: match.ops; k: match.branches[k] */
	int16_t op;          /* pattern position */
	int16_t sub;         /* param / source / constraint index */
	int32_t rule;        /* index in the ruleset */
	int32_t graph;       /* index in model->graphs */
	int32_t unit;
	int32_t other;
	int64_t a, b;
} fd_event;

/* One per (rule, anchor): where it ended and which event decided it. A rule
 * that does not run at all (disabled, out of scope) gets one attempt with
 * anchor FD_NONE per rule. */
typedef struct fd_attempt {
	int32_t rule, graph, anchor;
	int8_t branch;       /* alternative of the deepest path / the one that fired */
	uint8_t rung;        /* fd_rung */
	uint8_t reason;      /* fd_reason (REASON_OK_FIRED when fired) */
	uint8_t ops_matched; /* pattern positions matched on the deepest path */
	uint32_t first_event, n_events;
	uint32_t decisive;   /* index of the first failing check of the deepest path
	                      * (or the fire event); UINT32_MAX when none */
	int32_t fusion;      /* when fired, else -1 */
	uint32_t score;      /* depth: higher got further (for near-miss ranking) */
} fd_attempt;

/* The matcher's consumer. event returns the event's index in the run; path
 * stores side data (node ids of a would-cycle path) and returns its offset. */
typedef struct fd_trace_sink {
	void *ctx;
	uint32_t (*event)(void *ctx, const fd_event *ev);
	void (*attempt)(void *ctx, const fd_attempt *at);
	uint32_t (*path)(void *ctx, const int32_t *ids, uint32_t n);
} fd_trace_sink;

/* The recording sink. Events are encoded one after another in bytes; every
 * TRACE_BLOCK-th event is a checkpoint (encoded against the defaults, not
 * the event before), and marks / bases say where each checkpoint starts, so
 * event i is decoded from checkpoint i / TRACE_BLOCK with at most
 * TRACE_BLOCK - 1 events skipped. The layout is trace_codec.h's business: read
 * events through trace_event and the cursors below. */
#define TRACE_BLOCK 16               /* events per checkpoint */
#define TRACE_GROUP 65536            /* events per base (marks are 32-bit offsets from it) */

/* A set of event kinds (EV_BIT(EV_FIRE) | ...); kinds past 30 share bit 31. */
#define EV_BIT(k) ((uint32_t)1 << ((unsigned)(k) < 31 ? (unsigned)(k) : 31))

typedef struct fd_trace_mark {
	uint32_t offset;                 /* of the checkpoint's bytes, from its group's base */
	uint32_t kinds;                  /* EV_BITs of the kinds in its block: searches skip the rest */
} fd_trace_mark;

typedef struct fd_trace {
	uint8_t *bytes;                  /* the encoded events */
	size_t n_bytes, cap_bytes;
	fd_trace_mark *marks;            /* one per checkpoint */
	size_t cap_marks;
	size_t *bases;                   /* group k: bytes offset of event k * TRACE_GROUP */
	size_t cap_bases;
	fd_event last;                   /* the encoder's delta base */
	size_t n_events;
	fd_attempt *attempts;
	size_t n_attempts, cap_attempts;
	int32_t *paths;
	size_t n_paths, cap_paths;
	struct fd_trace_async *async;    /* trace_async.c; NULL until a run used it */
} fd_trace;

void trace_init(fd_trace *t);
void trace_clear(fd_trace *t);       /* empties, keeps the buffers for a re-run */
void trace_release(fd_trace *t);
fd_trace_sink trace_sink(fd_trace *t);
/* Grows the arrays to hold at least that many (no copies during a run;
 * events are reserved at an estimate of their encoded size). */
void trace_reserve(fd_trace *t, size_t events, size_t attempts);
void trace_fit(fd_trace *t);         /* capacity down to what was recorded (end of a run) */
size_t trace_bytes(const fd_trace *t); /* bytes the recording holds (capacity) */
size_t trace_used_bytes(const fd_trace *t); /* bytes the recording fills */
/* Encodes n events after those recorded, as n calls of the sink's event. */
void trace_append(fd_trace *t, const fd_event *evs, size_t n);

/* The recording sink of a large run (trace_async.c, above). Between
 * trace_async_sink and trace_async_finish the events (bytes, marks, bases,
 * n_events) belong to the encoder thread: neither read them nor clear,
 * reserve or fit the trace. Events are numbered from n_events on. */
/* A ring (5 MiB) larger than a core's cache: the matcher then writes lines
 * the encoder no longer holds. On the 2-core VM, 1M-node bench, matcher
 * CPU: 4096-event chunks 860 ms, 16384 760, 32768 700, no events at all 740,
 * the synchronous sink 900. */
#define TRACE_CHUNK 32768            /* events a chunk holds */
#define TRACE_RING 4                 /* chunks in the ring */
typedef struct fd_trace_async fd_trace_async;
fd_trace_sink trace_async_sink(fd_trace *t);
void trace_async_finish(fd_trace *t); /* every event encoded, the thread joined */
void trace_async_release(fd_trace *t); /* frees the ring (trace_release does) */
bool trace_async_running(const fd_trace *t); /* the encoder thread is up (tests) */

/* Event i (i < n_events) by value; an all-defaults event past the end. */
fd_event trace_event(const fd_trace *t, size_t i);

/* A forward cursor: init at i, then each next gives event i, i + 1, ...
 * until n_events (false). seek moves to i, decoding forward when that is
 * cheaper than starting again from i's checkpoint. */
typedef struct fd_trace_iter {
	const fd_trace *t;
	const uint8_t *p;                /* the next event's bytes */
	size_t i;                        /* the next event's index */
	fd_event ev;                     /* the last one decoded: the delta base */
} fd_trace_iter;

void trace_iter_init(fd_trace_iter *it, const fd_trace *t, size_t i);
bool trace_iter_next(fd_trace_iter *it, fd_event *out);
void trace_iter_seek(fd_trace_iter *it, size_t i);
/* The next event whose kind is in kinds (EV_BITs), its index it->i - 1;
 * blocks holding none of them are passed over unread. */
bool trace_iter_next_of(fd_trace_iter *it, uint32_t kinds, fd_event *out);

/* A backward cursor: init at end, then each prev gives event end - 1,
 * end - 2, ... down to 0 (false after). Decodes a checkpoint's block at a
 * time. */
typedef struct fd_trace_riter {
	const fd_trace *t;
	size_t i;                        /* prev gives event i - 1 */
	size_t block;                    /* first event in ev[]; SIZE_MAX: none yet */
	fd_event ev[TRACE_BLOCK];
} fd_trace_riter;

void trace_riter_init(fd_trace_riter *it, const fd_trace *t, size_t end);
bool trace_riter_prev(fd_trace_riter *it, fd_event *out);
/* The previous event whose kind is in kinds, its index it->i. */
bool trace_riter_prev_of(fd_trace_riter *it, uint32_t kinds, fd_event *out);

const char *trace_event_kind_name(fd_event_kind k);
const char *trace_status_name(fd_ev_status s);

#endif
