#!/usr/bin/python3
"""make_ge_optypes.py OPS_NN_GIT OPS_MATH_GIT [OUT] — writes
src/ir/ge_optypes_table.inc, the GE op type CANN's ONNX parser makes of each
ai.onnx operator, read from the ONNX parser plugins of hicann/ops-nn and
hicann/ops-math (bare git repositories: OPS_NN_GIT, OPS_MATH_GIT; their
HEAD is read and its commit written into the table's comment).

A plugin registers a GE type for a list of "ai.onnx::<opset>::<Op>" names,
in one of two forms:
  REGISTER_CUSTOM_OP("SoftmaxV2") ... .OriginOpType({"ai.onnx::13::Softmax", ...})
  REGISTER_CUSTOM_ONNX_OP(ai.onnx::11::Add, Add, AddV11);
When the registered type is PartitionedCall, the plugin builds a small
graph instead (ParseOpToGraphFn); its compute ops are the op::X(...) the
plugin's file makes, helpers (Data, Const, Identity, Shape, Cast, Unsqueeze,
Squeeze, ExpandDims, BroadcastTo) left out. The row's compute type is then
the one of the ONNX op's own name when the plugin makes it, the one the
input rank selects (RANK_CHOICE, read from the plugin's code), the one
named in PRIMARY (read from the plugin's code, each with its reason) or the
only candidate; otherwise unknown (NULL), the candidates listed.

--check OPS_NN_GIT OPS_MATH_GIT FILE: exit 1 when FILE is not what this
would write."""
import re
import subprocess
import sys

HELPERS = {"Data", "Const", "Identity", "Shape", "Cast", "Unsqueeze", "Squeeze", "ExpandDims", "BroadcastTo"}

# PartitionedCall plugins whose compute op follows the input's rank. From the
# plugins' code: conv_onnx_plugin.cpp makes Conv2D for 4-D input (3-D input
# unsqueezed to 4-D first: trans_2d) and Conv3D for 5-D;
# conv_transpose_onnx_plugin.cpp and average_pool_onnx_plugin.cpp likewise.
RANK_CHOICE = {
    "Conv": {3: "Conv2D", 4: "Conv2D", 5: "Conv3D"},
    "ConvTranspose": {3: "Conv2DTranspose", 4: "Conv2DTranspose", 5: "Conv3DTranspose"},
    "AveragePool": {3: "AvgPoolV2", 4: "AvgPoolV2", 5: "AvgPool3D"},
}
RANK_DEFAULT = 4

# PartitionedCall plugins with more than one compute op, the one that
# computes the ONNX op (the others scale, pad or convert around it).
PRIMARY = {
    "Gemm": "MatMulV2",            # Muls and Add only apply alpha, beta and C
    "LayerNormalization": "LayerNorm",
    "Concat": "ConcatD",
    "Slice": "StridedSliceV2",
    "Clip": "ClipByValue",         # Maximum/Minimum when only one bound is given
    "Gather": "GatherV2",
    "Max": "Maximum",
    "Min": "Minimum",
    "Pad": "PadV3",                # MirrorPad for the reflect mode
    "MaxPool": "MaxPoolV3",
    "ThresholdedRelu": "Threshold",
    "LpNormalization": "LpNormV2",
    "Mean": "AccumulateNV2",
    "OneHot": "OneHot",
    "ArgMax": "ArgMaxV2",
    "ReduceSumSquare": "SquareSumV1",
    "ReduceLogSum": "ReduceSum",
    "Split": "SplitV",
    "Resize": "Resize",
}

ORIGIN = re.compile(r'REGISTER_CUSTOM_OP\(\s*"([A-Za-z0-9_]+)"\s*\)(.*?)ImplyType', re.S)
NAME = re.compile(r'"ai\.onnx::(\d+)::([A-Za-z0-9_]+)"')
ONNX_MACRO = re.compile(r'^\s*REGISTER_CUSTOM_ONNX_OP\(\s*ai\.onnx::(\d+)::([A-Za-z0-9_]+)\s*,\s*([A-Za-z0-9_]+)\s*,', re.M)
MAKES = re.compile(r'\bop::([A-Z][A-Za-z0-9_]*)\(')


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True, check=True).stdout


def plugin_rows(repo, label, single):
    """(onnx_op, opset, registered type, compute candidates, source) per name;
    the sources of one-op registrations (REGISTER_CUSTOM_ONNX_OP) go into single."""
    commit = git(repo, "rev-parse", "HEAD").strip()
    files = [f for f in git(repo, "grep", "-l", "ai.onnx::", "HEAD", "--", "*.cpp", "*.cc").split()
             if "/tests/" not in f and not f.startswith("HEAD:tests/")]
    rows = []
    for ref in files:
        path = ref.split(":", 1)[1]
        text = git(repo, "show", ref)
        makes = []
        for m in MAKES.finditer(text):
            if m.group(1) not in HELPERS and m.group(1) not in makes:
                makes.append(m.group(1))
        for m in ORIGIN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            for v, op in NAME.findall(m.group(2)):
                cands = makes if m.group(1) == "PartitionedCall" else [m.group(1)]
                rows.append((op, int(v), m.group(1), cands, "%s:%s:%d" % (label, path, line)))
        for m in ONNX_MACRO.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            src = "%s:%s:%d" % (label, path, line)
            single.add(src)
            rows.append((m.group(2), int(m.group(1)), m.group(3), [m.group(3)], src))
    return commit, rows


def compute_type(op, cands):
    if op in RANK_CHOICE:
        return RANK_CHOICE[op][RANK_DEFAULT]
    if op in PRIMARY and PRIMARY[op] in cands:
        return PRIMARY[op]
    if op in cands:
        return op
    if len(cands) == 1:
        return cands[0]
    return None


def table(nn, math):
    commits, rows, single = [], [], set()
    for repo, label in ((nn, "ops-nn"), (math, "ops-math")):
        c, r = plugin_rows(repo, label, single)
        commits.append("hicann/%s @ %s" % (label, c[:12]))
        rows += r
    # one row per run of consecutive opsets with the same registration
    # (one REGISTER_CUSTOM_OP with several opsets is one row; so is a file
    # registering one op per opset with REGISTER_CUSTOM_ONNX_OP, as
    # similar_opp_onnx_plugin.cpp does, citing its first registration)
    def key(src):
        return src.rsplit(":", 1)[0] if src in single else src
    rows.sort(key=lambda r: (r[0], r[2], key(r[4]), r[1]))
    merged = []
    for op, v, reg, cands, src in rows:
        last = merged[-1] if merged else None
        if last and last[0] == op and last[3] == reg and key(last[5]) == key(src) and v <= last[2] + 1:
            last[2] = max(last[2], v)
            continue
        merged.append([op, v, v, reg, cands, src])
    merged.sort(key=lambda r: (r[0], r[1], r[5]))
    out = ["/* ge_optypes_table.inc — made by tests/tools/make_ge_optypes.py from the",
           " * ONNX parser plugins of %s and %s:" % tuple(commits),
           " * { ONNX op, first opset, last opset, registered GE type, compute GE type",
           " *   (NULL: the plugin's graph has several, none decided), the candidates,",
           " *   plugin source file:line }, sorted by op and first opset. */"]
    for op, lo, hi, reg, cands, src in merged:
        ct = compute_type(op, cands)
        out.append('\t{ "%s", %d, %d, "%s", %s, "%s", "%s" },' % (
            op, lo, hi, reg, '"%s"' % ct if ct else "NULL", "|".join(cands), src))
    out.append("#define GE_OPTYPE_RANK_ROWS \\")
    ranks = []
    for op in sorted(RANK_CHOICE):
        for rank in sorted(RANK_CHOICE[op]):
            ranks.append('\t{ "%s", %d, "%s" }' % (op, rank, RANK_CHOICE[op][rank]))
    out.append(", \\\n".join(ranks))
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) < 2:
        print(__doc__)
        sys.exit(2)
    text = table(args[0], args[1])
    out = args[2] if len(args) > 2 else "src/ir/ge_optypes_table.inc"
    if check:
        with open(out) as f:
            if f.read() != text:
                print("%s is not what tests/tools/make_ge_optypes.py makes from %s and %s" % (out, args[0], args[1]))
                sys.exit(1)
        return
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
