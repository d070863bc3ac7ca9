/* model_info.h — the facts `info` shows about a loaded model, computed (never
 * printed) so that the text and JSON front ends and the TUI show the same
 * numbers. The info owns its arrays (heap); names point into the model, which
 * must outlive it. */
#ifndef FD_MODEL_INFO_H
#define FD_MODEL_INFO_H
#include <stdint.h>
#include "ir/graph.h"

/* One op type with its count; the histogram key is "Conv" for the default
 * domain and "com.microsoft.Attention" for any other. */
typedef struct fd_op_count {
	const char *domain;     /* "" for ai.onnx */
	const char *op_type;
	char *key;              /* owned */
	int64_t count;
} fd_op_count;

typedef struct fd_value_info {
	const char *name;
	int32_t dtype;
	const fd_shape *shape;  /* points into the model */
} fd_value_info;

typedef struct fd_model_info {
	int64_t ir_version;
	int32_t n_opsets;
	const fd_opset *opsets;
	const char *producer_name, *producer_version;
	int64_t file_size;
	int64_t nodes;          /* main graph */
	int64_t nodes_total;    /* every graph, bodies of If / Loop / Scan included */
	int32_t graphs;
	int32_t max_depth;      /* deepest body nesting */
	/* over every graph, sorted by count (descending) then key; sums to nodes_total */
	int32_t n_histogram;
	fd_op_count *histogram;
	/* Tensors: distinct names per graph over its inputs, initializers and node
	 * outputs, summed over every graph (outer-scope captures are not counted
	 * again). tests/tools/onnx_counts.py counts the same way. */
	int64_t tensors;
	int64_t tensors_by_kind[TENSOR_OUTER_SCOPE + 1];
	int64_t constants;      /* initializers + Constant node outputs */
	int64_t external_tensors; /* initializers whose data lives in another file */
	fd_shape_coverage shape_coverage;
	int32_t n_inputs, n_outputs; /* of the main graph; inputs: those without an initializer */
	fd_value_info *inputs, *outputs;
	/* The main graph's input list as declared: n_inputs plus the initializers
	 * listed there (defaults; overridable from IR 4 on unless the policy makes
	 * every initializer a weight), in the initializer list's order. */
	int32_t n_declared_inputs;
	int32_t n_listed_initializers, n_overridable;
	fd_value_info *listed_initializers;
	/* op types that no standard domain defines, sorted by domain then type */
	int32_t n_unknown_ops;
	fd_op_count *unknown_ops;
	int32_t n_symdims;
	const fd_symdim *symdims;
} fd_model_info;

void model_info_compute(const fd_model *m, fd_model_info *info);
void model_info_release(fd_model_info *info);
const char *tensor_kind_name(fd_tensor_kind k); /* "activation", "graph_input", … */

#endif
