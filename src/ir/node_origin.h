/* node_origin.h — what a compiler itself recorded about a node, read from
 * its own graph dump (a GE dump: ge/ge.h): the UB-fused kernel the node
 * belongs to, the pass that made it, the original nodes it absorbed and the
 * passes that produced it. A node of an ONNX model has none (origin NULL).
 *
 * Owned by the model: the record and its arrays live in model->arena, the
 * strings are interned in model->names. */
#ifndef FD_NODE_ORIGIN_H
#define FD_NODE_ORIGIN_H
#include <stdbool.h>
#include <stdint.h>

typedef struct fd_name_list {
	int32_t n;
	const char **items;
} fd_name_list;

typedef struct fd_node_origin {
	/* UB fusion: nodes with one scope id form one fused kernel */
	bool has_fusion_scope;
	int64_t fusion_scope;
	const char *pass_name_ub;       /* the UB pass that made the scope, or NULL */
	/* a scope that matched but did not compile (its id), when recorded */
	bool has_fusion_failed;
	int64_t fusion_failed;
	/* graph fusion: the original nodes folded into this one (transitively)
	 * and their types, and the chain of passes that produced it */
	fd_name_list original_names;
	fd_name_list original_types;
	fd_name_list pass_names;
	/* ops this one waits on without reading their data (control edges) */
	fd_name_list control_inputs;
	int32_t line;                   /* where the op begins in the dump (1-based) */
} fd_node_origin;

#endif
