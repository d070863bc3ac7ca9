/* onnx_write.h — `apply`: the model with each fusion replaced by one node.
 * The original file is read again and decoded with protobuf-c (onnx_write.c
 * is the second file behind protobuf-c, after the loader); everything that
 * is not a fused node is packed back as it was.
 *
 * A fused node: op_type rewrite.target_op, domain "fusiondbg.fused" (declared
 * in opset_import, version 1), name "fused_<anchor node>"; inputs: port k of
 * each rewrite.inputs entry is the output_idx-th external input (in slot
 * order) of match op from_op, then every other external input of the fusion
 * in first-use order (so weights stay attached); without rewrite.inputs, the
 * external inputs in first-use order; outputs: the fusion's outputs.
 * Attributes: rewrite.attributes (int → INT, bool → INT 0/1, float → FLOAT,
 * string → STRING, lists → INTS / FLOATS / STRINGS, maps → their YAML text),
 * plus "fused_nodes" (STRINGS, the original node names, topological order)
 * and "fusion_rule" (STRING). Nodes keep their file order; a fused node
 * stands where its last member was, and a stable topological sort fixes the
 * rare case where that is too early for a consumer. value_info entries of
 * removed intermediates are dropped. The file is written atomically. */
#ifndef FD_ONNX_WRITE_H
#define FD_ONNX_WRITE_H
#include "base/diag.h"
#include "match/match.h"

#define FUSED_DOMAIN "fusiondbg.fused"

typedef struct fd_apply_stats {
	int64_t fusions;         /* fused nodes written */
	int64_t nodes_before, nodes_after;   /* all graphs */
} fd_apply_stats;

/* Writes r's model, rewritten, to out_path. -1 + d on error (nothing written). */
int onnx_write_fused(const fd_match_result *r, const char *out_path, fd_apply_stats *st, fd_diags *d);

#endif
