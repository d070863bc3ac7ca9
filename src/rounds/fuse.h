/* fuse.h — what a fusion becomes: one fused node per fusion of a match
 * result, as an fd_rewrite (ir/rewrite.h). The next round matches the graph
 * made with it (rewrite_build_model); `apply` writes it (onnx/onnx_write.h),
 * after rounds_final_rewrite (rounds.h) has composed the rounds.
 *
 * A fused node (fusiondbg(1), APPLY):
 *   op_type   rewrite.target_op ("FusedOp" when empty), domain FD_FUSED_DOMAIN;
 *   name      "fused_<anchor node>" (a suffix _2, _3, … when its graph has a
 *             node of that name); an anchor that is itself a fused node (a
 *             later round) lends its own name;
 *   inputs    port k of each rewrite.inputs entry is the output_idx-th
 *             external input (in slot order) of match op from_op, then every
 *             other external input of the fusion in first-use order (so
 *             weights stay attached); without rewrite.inputs, the external
 *             inputs in first-use order; outputs: the fusion's outputs;
 *             with rewrite.inputs, the constants among the other inputs
 *             are folded into the node for the next round (its graph
 *             leaves them out, as onnxruntime folds a BatchNormalization
 *             into the Conv's weight and bias); apply keeps them all;
 *   attributes  rewrite.attributes (int → INT, bool → INT 0/1, float →
 *             FLOAT, string → STRING, lists of scalars → INTS / FLOATS /
 *             STRINGS; a map's entries become KEY.SUBKEY, a list holding
 *             collections KEY.0, KEY.1, …); then every attribute of every
 *             member, namespaced by the member: PREFIX.NAME, PREFIX the
 *             member's op type in lower case ("conv.pads", "conv.group"),
 *             with _1, _2, … in member order when two members share a type
 *             ("mul_1.", "mul_2."); a member that is a fused node of an
 *             earlier round is namespaced the same way, so fusions nest
 *             ("convbn.conv.pads", "convbn.fused_nodes"); when target_op
 *             is the op type of a member, the first such member's
 *             attributes are also the node's own, unprefixed (a Conv that
 *             absorbed a BatchNormalization is still read as a Conv), as
 *             are the one member's of a fusion of one node;
 *             "fused_nodes" (STRINGS, the member nodes in topological
 *             order), "fused_op_types" (STRINGS, their op types),
 *             "fusion_rule" (STRING) and "fusion_round" (INT).
 *   Fusions nest at most FUSE_MAX_NESTING deep in the attributes: a
 *   member's attribute whose name has that many prefixes already is left
 *   out (warned once a run of rounds), so a rule set that never settles
 *   makes nodes of a bounded size, not one that grows with every round.
 *   Graph-valued member attributes (bodies) are not copied: in the next
 *   round the fused node owns the bodies; tensor-valued ones (a Constant's
 *   value) are left out with a warning. */
#ifndef FD_FUSE_H
#define FD_FUSE_H
#include "base/diag.h"
#include "ir/rewrite.h"
#include "match/match.h"

#define FD_FUSED_DOMAIN "fusiondbg.fused"
#define FUSE_MAX_NESTING 64   /* prefixes an attribute name of a fused node may have */

/* The dotted names of nested members' attributes, shared across rounds
 * (fuse_names.c): a round adds the prefixes it makes, it does not copy the
 * names the rounds before it made. The names live as long as it does. */
typedef struct fd_fuse_names fd_fuse_names;
fd_fuse_names *fuse_names_new(void);
void fuse_names_free(fd_fuse_names *n);
/* "PREFIX.NAME", sharing NAME's bytes when NAME is the latest name of one
 * of n's chunks with room before it. */
const char *fuse_names_dotted(fd_fuse_names *n, const char *prefix, const char *name);
/* The bytes n's names take (their room included). */
size_t fuse_names_bytes(const fd_fuse_names *n);
/* The dots in name: how deep it nests; from n when n made it (no scan of a
 * name as long as the rounds that made it), else counted. n may be NULL. */
int32_t fuse_names_dots(const fd_fuse_names *n, const char *name);
/* True the first time it is asked in n's life: warn once about what nests too deep. */
bool fuse_names_first_deep(fd_fuse_names *n);

/* Adds r's fused nodes to rw, graph by graph, in the file order of each
 * fusion's last member, each with .fusion its fusion index; round is what
 * "fusion_round" says. Members' attribute names are made in names (NULL:
 * copied into rw). Warnings (ports left empty, reserved or repeated
 * attribute names) go to d. */
void fuse_rewrite(const fd_match_result *r, int32_t round, fd_rewrite *rw, fd_fuse_names *names, fd_diags *d);

#endif
