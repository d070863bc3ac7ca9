#!/usr/bin/env bash
# test_op_versions.sh — where's since_version: the table of ai.onnx op
# versions (src/ir/onnx_op_versions.inc) is what python3-onnx's schemas say
# (tests/tools/make_op_versions.py --check), and ORT_ConvBNFusion's
# version condition decides by the model's opset: a BatchNormalization of
# opset 6 (version 6) is not folded, one of opset 9 (version 9) is.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
make_tmp
"$PYTHON" tests/tools/make_op_versions.py --check src/ir/onnx_op_versions.inc || bad "the op version table is stale"
for opset in 6 9 4294967305; do
	"$PYTHON" - "$tmp/conv_bn_$opset.onnx" "$opset" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper
path, opset = sys.argv[1], int(sys.argv[2])
w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
bn = [numpy_helper.from_array(np.ones(4, np.float32), n) for n in ("s", "b", "m", "v")]
nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["y"], name="bn")]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], [w] + bn)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
m.ir_version = 3
open(path, "wb").write(m.SerializeToString())
PY
done
out=$("$FUSIONDBG" why "$tmp/conv_bn_6.onnx" -r rules/onnxruntime --rule ORT_ConvBNFusion 2>&1)
grep -qF "op1 BatchNorm where: expected since_version in [7, 9, 14, 15], actual false [FD-NM16]" <<<"$out" &&
	grep -qF "actual false [FD-NM16] — since_version is 6" <<<"$out" || bad "opset 6: $out"
out=$("$FUSIONDBG" match "$tmp/conv_bn_9.onnx" -r rules/onnxruntime 2>&1)
grep -q "ORT_ConvBNFusion: conv, bn -> Conv" <<<"$out" || bad "opset 9: $out"
# an opset past 32 bits (2^32 + 9) is past the table: undecided, never read as 9
out=$("$FUSIONDBG" why "$tmp/conv_bn_4294967305.onnx" -r rules/onnxruntime --rule ORT_ConvBNFusion 2>&1)
grep -qF "the model imports 4294967305" <<<"$out" || bad "opset 2^32 + 9: $out"
[ "$fail" = 0 ] && echo "op versions: all checks passed"
finish "$fail"
