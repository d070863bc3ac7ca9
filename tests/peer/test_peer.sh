#!/usr/bin/env bash
# test_peer.sh — rules/onnxruntime against onnxruntime itself (tests/peer/peer.py):
# onnxruntime-node 1.30.0 (installed into $BUILD/node by `make check`
# and `make check-peer`)
# optimizes every shared model, every sample, the PyTorch exports of
# tests/data/torch (tests/peer/torch_exports.py and torch_families.py), the CNNs
# quantized by torch's own flows in tests/data/torchq
# (tests/peer/torch_quant_exports.py), the transpose optimizer's
# models (tests/tools/make_transpose_models.py) and every probe of
# tests/peer/make_probes.py (one small model per condition a fusion
# checks, met or broken) at level 'extended'; the
# node sets of its fused nodes must equal those of `fusiondbg match -r
# rules/onnxruntime`, except the differences tests/peer/exceptions.py lists
# and explains, each confirmed by `fusiondbg why`; on each probe onnxruntime
# refuses, `fusiondbg why` must name the condition it breaks
# (tests/peer/refusals.py); on the QDQ models of tests/data/qdq the same,
# and their table must equal tests/golden/peer/qdq_table.txt, so that no
# group stops being identical unnoticed; the shared models and three PyTorch
# exports quantized by qdq_models.py --each likewise
# (tests/golden/peer/qdq_shared_table.txt, qdq_torch_table.txt). Prints the per-model table
# (onnxruntime groups / fusiondbg groups / identical / explained). What
# onnxruntime fused in each model is kept in $BUILD/peer, keyed by the
# model's bytes (tests/peer/ort_cache.py); without onnxruntime-node
# (`make check T=...` does not install it) the test is skipped.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
need_onnxruntime
"$FUSIONDBG" check --strict rules/onnxruntime || { echo "FAIL: rules/onnxruntime is not clean under check --strict"; exit 1; }
probes=$BUILD/peer-probes
rm -rf "$probes"
"$PYTHON" tests/peer/make_probes.py "$probes" >/dev/null || { echo "FAIL: make_probes.py"; exit 1; }
# torch's own quantizers (tests/peer/torch_quant_exports.py): the CNNs; the
# transformer blocks wait for the transpose optimizer's push through a
# Split and QDQPropagation's Q moved backward past more than one op
models=(samples/*.onnx tests/data/torch/*.onnx tests/data/torchq/*_cnn*.onnx tests/data/transpose/*.onnx "$probes"/*.onnx)
have_models && models=("$MODELS"/*.onnx "${models[@]}")
"$PYTHON" tests/peer/peer.py --fusiondbg "$FUSIONDBG" --node-modules "$NODE_DIR/node_modules" \
	--cache "$BUILD/peer" --rules rules/onnxruntime "${models[@]}"
rc=$?
# the QDQ models (tests/peer/qdq_models.py): every difference explained, and
# the table itself as tests/golden/peer/qdq_table.txt says (UPDATE=1 to accept)
gold=tests/golden/peer/qdq_table.txt
out=$("$PYTHON" tests/peer/peer.py --fusiondbg "$FUSIONDBG" --node-modules "$NODE_DIR/node_modules" \
	--cache "$BUILD/peer" --rules rules/onnxruntime tests/data/qdq/*.onnx) || { echo "$out" | grep -v '^qdq_\|^model\|^total'; rc=1; }
table=$(echo "$out" | grep '^qdq_\|^model\|^total')
if [ "${UPDATE:-0}" = 1 ]; then
	mkdir -p "$(dirname "$gold")" && echo "$table" >"$gold"
elif ! diff -u "$gold" <(echo "$table"); then
	echo "FAIL: the QDQ models' table differs from $gold (UPDATE=1 to accept)"; rc=1
fi
echo "$table" | tail -1
# models quantized here (qdq_models.py --each: every model in modes u8, s8
# and u8keep, kept in $BUILD/DIR by content): every difference explained,
# the table as the golden says, with a line for each model the quantizer
# cannot handle and why. quantized_table DIR GOLDEN MODEL...
quantized_table() {
	local dir=$BUILD/$1 gold=$2 refused out table
	shift 2
	refused=$("$PYTHON" tests/peer/qdq_models.py --each "$dir" "$@") \
		|| { echo "FAIL: qdq_models.py --each $*"; rc=1; }
	[ -n "$refused" ] && echo "$refused"
	out=$("$PYTHON" tests/peer/peer.py --fusiondbg "$FUSIONDBG" --node-modules "$NODE_DIR/node_modules" \
		--cache "$BUILD/peer" --rules rules/onnxruntime "$dir"/qdq_*.onnx) \
		|| { echo "$out" | grep -v '^qdq_\|^model\|^total'; rc=1; }
	echo "$out" | grep '^note:'
	table=$(echo "$out" | grep '^qdq_\|^model\|^total'; [ -z "$refused" ] || echo "$refused")
	if [ "${UPDATE:-0}" = 1 ]; then
		echo "$table" >"$gold"
	elif ! diff -u "$gold" <(echo "$table"); then
		echo "FAIL: the table of $dir differs from $gold (UPDATE=1 to accept)"; rc=1
	fi
	echo "$table" | grep '^total'
}
# PyTorch exports of tests/data/torch, a CNN and a transformer of each kind
quantized_table qdq-torch tests/golden/peer/qdq_torch_table.txt tests/data/torch/torch_resnet18_opset17.onnx \
	tests/data/torch/torch_mobilenet_v3_small_opset17.onnx tests/data/torch/torch_vit_opset17.onnx
# the shared models
have_models && quantized_table qdq-shared tests/golden/peer/qdq_shared_table.txt "$MODELS"/*.onnx
finish $rc
