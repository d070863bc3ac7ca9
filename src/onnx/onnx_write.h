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

#endif
