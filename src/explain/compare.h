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
 * With a GE graph dump (compare_dump.c): the compiler's groups are the
 * dump's own record (ge/ge_record.h), its UB groups (nodes sharing a
 * fusion_scope; those that failed to compile kept apart) and its graph
 * fusions (a node that absorbed original nodes), set against fusiondbg's
 * fusions with the same kinds of rows as an optimized graph. The dump's
 * nodes are found in the model by name when the model is a dump itself,
 * else (the ONNX model the dump came from) through each node's original
 * names, and the model's groups are then composed: a UB group holds the
 * originals of its members. A group that does not map is counted by why.
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
	long long declined_predicted;   /* matches the rule's effect conditions declined (fd_rule.effect) */
	long long unchanged_predicted;  /* effects its change conditions left without a fusion */
	const char *decided_by;    /* the condition of the first of them in words, with file:line; NULL */
} fd_cmp_pass;

/* Why a group of a GE dump was not compared. */
#define FD_CMP_UNMAPPED(X) \
	X(ABSENT, "absent", "none of its nodes is a node of the model") \
	X(GONE, "gone", "one node of the model, the others are not (fused before the model was written)") \
	X(ONE_NODE, "one_node", "one node of the model: nothing fused there") \
	X(GRAPHS, "graphs", "its nodes are in different graphs of the model") \
	X(OVERLAP, "overlap", "shares nodes with a group compared before it")

typedef enum fd_cmp_unmapped {
#define FD_CMP_UNMAPPED_ENUM(id, key, words) CMP_UNMAPPED_##id,
	FD_CMP_UNMAPPED(FD_CMP_UNMAPPED_ENUM)
#undef FD_CMP_UNMAPPED_ENUM
	CMP_UNMAPPED_COUNT
} fd_cmp_unmapped;

/* What a compiler group of a GE dump is (fd_comparison.dump_groups, one per
 * compiled.groups entry). */
typedef struct fd_cmp_dump_group {
	bool ub;                   /* a UB group, else one node's graph fusion */
	bool failed;               /* a UB group that matched and failed to compile */
	int64_t scope;             /* the UB group's fusion_scope (fusion_failed id when failed) */
	const char *pass;          /* pass_name_ub, or the pass_name chain (" > " between); NULL */
	int32_t n_absent;          /* its nodes with no node of the model (inserted by the compiler) */
} fd_cmp_dump_group;

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
	/* a GE dump (compare_dump): its groups as compiled.groups, what each is */
	bool dump;
	bool by_name;              /* the model is a dump: nodes found by name, else by original names */
	VEC(fd_cmp_dump_group) dump_groups;
	int32_t dump_ub, dump_ub_failed, dump_fusions;   /* the dump's groups in all */
	int32_t unmapped[CMP_UNMAPPED_COUNT];            /* of those, not compared, by why */
} fd_comparison;

void compare_init(fd_comparison *c);
void compare_release(fd_comparison *c);
/* Against the compiler's optimized model opt (loaded; with the same graphs'
 * nesting as the original). rd: after rounds_make_all. */
void compare_optimized(fd_comparison *c, const fd_rounds *rd, const fd_model *opt, const char *with);
/* Against the compiler's own record in a GE graph dump (loaded with
 * ge_load_model; compare_dump.c). rd: after rounds_make_all. */
void compare_dump(fd_comparison *c, const fd_rounds *rd, const fd_model *dump, const char *with);
/* What was compared with a dump, in one line, as compare's text and the
 * TUI's compare view say it: "DUMP: compiler 49 UB groups (2 failed), ...".
 * Returns buf. */
char *compare_dump_summary(const fd_comparison *c, char *buf, size_t size);
const char *compare_unmapped_words(fd_cmp_unmapped u);
const char *compare_unmapped_key(fd_cmp_unmapped u);   /* the JSON's name */
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
