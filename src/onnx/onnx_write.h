/* onnx_write.h — writing a loaded model with a rewrite (ir/rewrite.h): each
 * fused node replaces its member nodes. The original file is read again and
 * decoded with protobuf-c; everything that is not a member node is packed
 * back as it was.
 *
 * Nodes keep their file order; a fused node stands where its last member
 * was, and a stable topological sort fixes the rare case where that is too
 * early for a consumer. value_info entries of tensors that no fused node
 * outputs any more are dropped; every tensor a fused node reads or makes
 * gets one (its dtype and shape as loaded and inferred; a symbolic dim as
 * dim_param) unless the graph declares it already. Each domain of a fused node that
 * opset_import lacks is declared there, version 1. The file is written
 * atomically. */
#ifndef FD_ONNX_WRITE_H
#define FD_ONNX_WRITE_H
#include "base/diag.h"
#include "ir/graph.h"
#include "ir/rewrite.h"

typedef struct fd_write_stats {
	int64_t fused;           /* fused nodes written */
	int64_t nodes_before, nodes_after;   /* all graphs */
} fd_write_stats;

/* Writes m, rewritten by rw, to out_path. -1 + d on error (nothing written). */
int onnx_write_rewrite(const fd_model *m, const fd_rewrite *rw, const char *out_path, fd_write_stats *st,
                       fd_diags *d);

/* `infer`: writes m with every inferred shape (onnx_write_shapes.c). In each
 * graph, value_info holds every node output that is not a graph output and
 * has a dtype (the model's own entries are replaced); a dim is its number
 * at the bindings (dim_value), else its expression or symbol (dim_param:
 * "batch", "floor((samples+128)/160)-3", "unk__3"), else left out. Graph
 * outputs get the dims they do not declare; the main graph's inputs get what
 * the bindings and the names of unnamed dims say. */
typedef struct fd_infer_stats {
	int64_t value_infos;     /* written, every graph */
	int64_t symbolic_dims;   /* of which dims are dim_param */
	int64_t unknown_dims;    /* left out */
} fd_infer_stats;
int onnx_write_inferred(const fd_model *m, const char *out_path, fd_infer_stats *st, fd_diags *d);

#endif
