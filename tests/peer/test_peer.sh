#!/usr/bin/env bash
# test_peer.sh — rules/onnxruntime against onnxruntime itself (tests/peer/peer.py):
# onnxruntime-node 1.30.0 (installed into $BUILD/node by `make check`)
# optimizes every shared model, every sample, the PyTorch exports of
# tests/data/torch (tests/peer/torch_exports.py) and every probe of
# tests/peer/make_probes.py (one small model per condition a fusion
# checks, met or broken) at level 'extended'; the
# node sets of its fused nodes must equal those of `fusiondbg match -r
# rules/onnxruntime`, except the differences tests/peer/exceptions.py lists
# and explains, each confirmed by `fusiondbg why`; on each probe onnxruntime
# refuses, `fusiondbg why` must name the condition it breaks
# (tests/peer/refusals.py). Prints the per-model table
# (onnxruntime groups / fusiondbg groups / identical / explained). The
# optimized graphs are cached in $BUILD/peer, keyed by the model's bytes.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
NODE_DIR=${NODE_DIR:-$BUILD/node}
if [ ! -f "$NODE_DIR/node_modules/onnxruntime-node/package.json" ] || ! command -v node >/dev/null; then
	echo "FAIL: onnxruntime-node is not installed in $NODE_DIR (make check installs it)"
	exit 1
fi
"$FUSIONDBG" check --strict rules/onnxruntime || { echo "FAIL: rules/onnxruntime is not clean under check --strict"; exit 1; }
probes=$BUILD/peer-probes
rm -rf "$probes"
"$PYTHON" tests/peer/make_probes.py "$probes" >/dev/null || { echo "FAIL: make_probes.py"; exit 1; }
models=(samples/*.onnx tests/data/torch/*.onnx "$probes"/*.onnx)
have_models && models=("$MODELS"/*.onnx "${models[@]}")
"$PYTHON" tests/peer/peer.py --fusiondbg "$FUSIONDBG" --node-modules "$NODE_DIR/node_modules" \
	--cache "$BUILD/peer" --rules rules/onnxruntime "${models[@]}"
finish $?
