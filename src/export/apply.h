/* apply.h — `apply`'s rewrite: one fused node per fusion of a match result,
 * as an fd_rewrite (ir/rewrite.h) for onnx_write_rewrite to write.
 *
 * A fused node: op_type rewrite.target_op ("FusedOp" when empty), domain
 * FD_FUSED_DOMAIN, name "fused_<anchor node>" (a suffix _2, _3, … when the
 * graph has a node of that name); inputs: port k of each rewrite.inputs entry
 * is the output_idx-th external input (in slot order) of match op from_op,
 * then every other external input of the fusion in first-use order (so
 * weights stay attached); without rewrite.inputs, the external inputs in
 * first-use order; outputs: the fusion's outputs. Attributes:
 * rewrite.attributes (int → INT, bool → INT 0/1, float → FLOAT, string →
 * STRING, lists → INTS / FLOATS / STRINGS, maps → their YAML text), plus
 * "fused_nodes" (STRINGS, the original node names, topological order) and
 * "fusion_rule" (STRING). */
#ifndef FD_APPLY_H
#define FD_APPLY_H
#include "base/diag.h"
#include "ir/rewrite.h"
#include "match/match.h"

#define FD_FUSED_DOMAIN "fusiondbg.fused"

/* Adds r's fused nodes to rw, graph by graph, in the file order of each
 * fusion's last member; warnings (ports left empty, reserved attribute
 * names) go to d. */
void apply_rewrite(const fd_match_result *r, fd_rewrite *rw, fd_diags *d);

#endif
