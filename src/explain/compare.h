/* compare.h — where a real compiler's result and fusiondbg's prediction
 * differ (`fusiondbg compare`, fusiondbg(1) COMPARE; the TUI's compare view).
 *
 * With the compiler's optimized graph: the compiler's fused nodes and the
 * original nodes each replaced (ir/compiled.h) against fusiondbg's final
 * fusions (every round composed: rounds_final_rewrite), group by group:
 *   same           both fused exactly the same original nodes;
 *   compiler_only  the compiler fused nodes fusiondbg fuses in no way; the
 *                  row carries fusiondbg's why for the group's anchor;
 *   predicted_only fusiondbg fuses nodes the compiler fused in no way;
 *   different      both fused, not the same nodes: the nodes only one of
 *                  them took, and fusiondbg's why for the first node only
 *                  the compiler took (by the rule that fused the others).
 * With CANN's fusion_result.json (ir/cann_record.h), graph by graph (one
 * picked by its id, or each the file holds): match_times and effect_times
 * per pass against fusiondbg's per rule (summed over rounds), by name:
 *   same       the same counts;
 *   differs    a rule whose counts differ, or that matched and the record
 *              does not list (CANN lists a pass only when it matched);
 *   unlisted   a rule with no match that the record does not list: they
 *              agree;
 *   no_rule    a pass of the record that no rule is named after: what the
 *              compiler did, listed apart, not a difference.
 * A pass whose effect is below its match declined the rest (compare_record.c
 * says why it may).
 *
 * Ownership: an fd_comparison owns its rows, the compiler's groups and the
 * composed rewrite; it reads the rounds, rules and models it was made from. */
#ifndef FD_COMPARE_H
#define FD_COMPARE_H
#include <stdio.h>
#include "ir/cann_record.h"
#include "ir/compiled.h"
#include "ir/rewrite.h"
#include "rounds/rounds.h"

#define FD_CMP_KINDS(X) \
	X(SAME, "same") X(COMPILER_ONLY, "compiler_only") X(PREDICTED_ONLY, "predicted_only") \
	X(DIFFERENT, "different")

typedef enum fd_cmp_kind {
#define FD_CMP_KIND_ENUM(id, name) CMP_##id,
	FD_CMP_KINDS(FD_CMP_KIND_ENUM)
#undef FD_CMP_KIND_ENUM
	CMP_KIND_COUNT
} fd_cmp_kind;

typedef struct fd_cmp_row {
	fd_cmp_kind kind;
	int32_t graph;
	int32_t group;             /* the compiler's group (compiled.groups), -1 */
	int32_t predicted;         /* fusiondbg's final fused node (final.nodes), -1 */
	int32_t node;              /* the original node the row is about (Enter goes there) */
	int32_t n_only_compiler, n_only_predicted;
	int32_t *only_compiler, *only_predicted;   /* original node ids */
	const char *why;           /* compiler_only / different: fusiondbg's why, or NULL */
} fd_cmp_row;

#define FD_CMP_PASS_KINDS(X) \
	X(SAME, "same") X(DIFFERS, "differs") X(UNLISTED, "unlisted") X(NO_RULE, "no_rule")

typedef enum fd_cmp_pass_kind {
#define FD_CMP_PASS_ENUM(id, name) CMP_PASS_##id,
	FD_CMP_PASS_KINDS(FD_CMP_PASS_ENUM)
#undef FD_CMP_PASS_ENUM
	CMP_PASS_KIND_COUNT
} fd_cmp_pass_kind;

typedef struct fd_cmp_pass {
	fd_cmp_pass_kind kind;
	const char *name;
	int32_t graph;             /* the record (fd_comparison.graphs) */
	int section;               /* fd_cann_section the record lists it in, -1 when it does not */
	int32_t rule;              /* fusiondbg's rule of that name, -1 */
	long long match_compiler, effect_compiler;   /* -1: not in the record (a count read is never negative) */
	long long repository_hit;  /* -1: not written */
	long long match_predicted, effect_predicted; /* -1: no such rule */
} fd_cmp_pass;

/* One graph of the record compared: its id ("" none), where it starts. */
typedef struct fd_cmp_graph {
	const char *id, *layout;
	int line, col, copies;
	size_t differences, counts[CMP_PASS_KIND_COUNT];
} fd_cmp_graph;

typedef struct fd_comparison {
	fd_arena arena;
	const char *with;          /* the compiler's file */
	bool record;               /* a fusion_result.json (passes), else an optimized graph (rows) */
	fd_compiled compiled;
	fd_rewrite final;          /* fusiondbg's composed fusions */
	VEC(fd_cmp_row) rows;
	size_t counts[CMP_KIND_COUNT];
	VEC(fd_cmp_pass) passes;  /* graph by graph; in each the record's passes, then the rules it lacks */
	VEC(fd_cmp_graph) graphs;
	size_t n_graphs_in_file;   /* distinct ids the record holds (graphs.n when none was picked) */
	const char *graph_ids;     /* those ids, ", " between */
	size_t n_pass_differences;
	bool differences_only;     /* --differences: the writers leave the same rows out */
	int64_t differences_shapes_onnx;   /* the differences left with --shapes onnx, when the caller
	                                    * tried it and fewer remain; -1 otherwise */
} fd_comparison;

void compare_init(fd_comparison *c);
void compare_release(fd_comparison *c);
/* Against the compiler's optimized model opt (loaded; with the same graphs'
 * nesting as the original). rd: after rounds_make_all. */
void compare_optimized(fd_comparison *c, const fd_rounds *rd, const fd_model *opt, const char *with);
/* Against CANN's records (compare_record.c): the graph whose id is graph
 * ("S_G"; "#N" the Nth record), or, when graph is NULL, each. -1 + d when
 * no record has that id (the error lists those there are). */
int  compare_record(fd_comparison *c, const fd_rounds *rd, const fd_cann_records *recs, const char *graph,
                    fd_diags *d);
/* One pass in words, as the TUI's compare view says it and compare's
 * table row says it: "[0_1] Conv_BN_Fusion  compiler 2 / 2  fusiondbg
 * 2 / 2  same (graph_fusion)" (the graph when there are several). Returns buf. */
char *compare_pass_text(const fd_comparison *c, size_t pass, char *buf, size_t size);
const char *compare_pass_kind_name(fd_cmp_pass_kind k);
/* What was compared, in one line: "FILE: graph 0_0: 27 passes, 2 differ",
 * or the graphs each compared. Returns buf. */
char *compare_record_summary(const fd_comparison *c, char *buf, size_t size);
void compare_record_write_text(FILE *f, const fd_comparison *c);
void compare_record_write_json(FILE *f, const fd_comparison *c);
/* Differences in all: rows that are not `same`, or passes that differ. */
size_t compare_differences(const fd_comparison *c);
void compare_write_text(FILE *f, const fd_comparison *c, const fd_rounds *rd);
void compare_write_json(FILE *f, const fd_comparison *c, const fd_rounds *rd);
/* One row in words, for the TUI: "compiler only: mul1/QuickGeluFusion/
 * (QuickGelu) replaced sigmoid1, mul1". Returns buf. */
char *compare_row_text(const fd_comparison *c, const fd_rounds *rd, size_t row, char *buf, size_t size);

#endif
