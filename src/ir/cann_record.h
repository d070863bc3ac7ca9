/* cann_record.h — CANN's fusion_result.json as records: what the compiler
 * says each of its fusion passes did, per graph (fusiondbg(1), COMPARE).
 *
 * Every layout CANN's writers have used reads to the same records:
 *   keyed     {"session_and_graph_id_S_G": {"graph_fusion": …, "ub_fusion": …}, …}
 *             (today's writer; it appends a graph by reopening the object,
 *             so one id may come twice when several processes wrote);
 *   list      [{"session_and_graph_id": "S_G", "graph_fusion": …}, …];
 *   object    one such record alone;
 *   graphId   a record naming "sessionId" and "graphId";
 * and several JSON values appended to one file, with or without a comma
 * between them. A section maps a pass to {"match_times", "effect_times",
 * "repository_hit_times"}, counts as strings ("57") or numbers; a record
 * may have either section alone. The writer lists a pass only when it
 * matched, so a pass that is absent did not match, was switched off or did
 * not run.
 *
 * Errors are values: a file that is not such a record (another program's
 * JSON of the same name), a record cut by another writer's, a count that is
 * not a whole number: -1 and one error at the line and column.
 *
 * Ownership: fd_cann_records owns every record, pass and string (arena). */
#ifndef FD_CANN_RECORD_H
#define FD_CANN_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include "base/arena.h"
#include "base/diag.h"

typedef enum fd_cann_section { CANN_GRAPH_FUSION, CANN_UB_FUSION, CANN_SECTION_COUNT } fd_cann_section;

typedef struct fd_cann_pass {
	const char *name;
	long long match, effect;   /* 0 when the record leaves a count out */
	long long repository_hit;  /* -1: not written (graph fusion; older CANN; chips without UB fusion) */
	int line, col;
} fd_cann_pass;

typedef struct fd_cann_record {
	const char *id;            /* "S_G", or "" when the record names no graph */
	const char *layout;        /* "keyed", "list", "object", "graphId" */
	int line, col;             /* where the record starts */
	int copies;                /* 1, or how many identical records of this id the file holds */
	size_t n_passes[CANN_SECTION_COUNT];
	fd_cann_pass *passes[CANN_SECTION_COUNT];
} fd_cann_record;

typedef struct fd_cann_records {
	fd_arena arena;
	const char *path;
	size_t n;
	fd_cann_record *items;
	size_t n_values;           /* JSON values appended one after another in the file */
} fd_cann_records;

/* Reads text (size bytes) named path into out (initialised here). -1 and
 * one error in d when it is not a fusion_result.json; out then holds
 * nothing and needs no release. */
int  cann_records_read(fd_cann_records *out, const char *path, const char *text, size_t size, fd_diags *d);
void cann_records_release(fd_cann_records *recs);
const char *cann_section_name(fd_cann_section s);   /* "graph_fusion", "ub_fusion" */
/* The ids the file holds, distinct, in file order, joined by ", " into buf. */
char *cann_records_ids(const fd_cann_records *recs, char *buf, size_t size);
/* How many distinct ids the file holds. */
size_t cann_records_graphs(const fd_cann_records *recs);

#endif
