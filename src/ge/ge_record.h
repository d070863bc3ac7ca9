/* ge_record.h — the compiler's own fusions, read from the records GE wrote
 * on the nodes of a dump (node->origin, ir/node_origin.h): its UB-fusion
 * groups (the nodes sharing a fusion_scope, the pass that made each, and
 * the groups that matched but failed, by their fusion_failed id) and the
 * nodes that absorbed original nodes in graph fusion.
 *
 * Ownership: a ge_record owns its arrays (heap); the names in it point into
 * the model, which must outlive it. */
#ifndef FD_GE_RECORD_H
#define FD_GE_RECORD_H
#include <stdbool.h>
#include <stdint.h>
#include "ir/graph.h"

typedef struct ge_ub_group {
	int32_t graph;
	int64_t id;                 /* the fusion_scope (or, failed, the fusion_failed id) */
	bool failed;                /* matched but did not compile: fusion_failed */
	const char *pass_name_ub;   /* the first member's that names one, or NULL */
	bool passes_differ;         /* members name different passes */
	int32_t n_nodes;
	int32_t *nodes;             /* node indices in graph, in file order */
} ge_ub_group;

typedef struct ge_node_ref {
	int32_t graph, node;
} ge_node_ref;

typedef struct ge_record {
	int32_t n_groups;           /* sorted by graph, then failed last, then id */
	ge_ub_group *groups;
	int32_t n_failed;           /* of n_groups */
	int32_t n_absorbing;        /* nodes with at least one original name */
	ge_node_ref *absorbing;     /* in graph order, then file order */
	int64_t n_originals;        /* original names over those nodes */
	int32_t n_with_passes;      /* nodes with a pass_name chain */
} ge_record;

/* The record of every graph of m; empty for a model without origins (ONNX). */
void ge_record_compute(const fd_model *m, ge_record *r);
void ge_record_release(ge_record *r);

#endif
