#!/usr/bin/env bash
# test_dyn_bind.sh — dynamic shapes as the user bound them:
#  1. on the dynamic exports of each family (tests/data/dyn, made by
#     tests/tools/make_dyn_models.py: an openWakeWord-like melspectrogram, a
#     Paddle2ONNX recogniser, a decoder with exporter-long dim names, a VAD
#     whose work is in If branches), the samples, the PyTorch exports and the
#     shared models: every subset of the symbols bound, the shapes shown and
#     the peak checked against onnx's shape inference at the same binding
#     (tests/tools/check_dyn_bind.py says how);
#  2. the peak as a formula in what is left, a lower bound only labelled (≥);
#  3. shapes with × (x spaced beside a symbol under LANG=C), aliases for long
#     symbols with their legend, --dim taking an alias, unused symbols not
#     offered to bind;
#  4. a binding the model cannot run with: an error naming the node, the two
#     shapes and the dims, exit 2;
#  5. If branches: --value picks one, named with its condition;
#  6. the legend of a picture with a long peak wrapped.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
export GRAPH_AUTOFUSION_RULES_DIR=$PWD/rules LC_ALL=C.UTF-8
FD=$FUSIONDBG
D=tests/data/dyn

# 1. against onnx
if "$PYTHON" -c "import onnx, numpy" 2>/dev/null; then
	check() { "$PYTHON" tests/tools/check_dyn_bind.py "$FD" "$PWD/rules" "$@" || fail=1; }
	check $D/mel_shape_peak.onnx samples=16000 batch_size=2
	check $D/ocr_rec_p2o.onnx p2o.DynamicDimension.0=1 p2o.DynamicDimension.1=48 p2o.DynamicDimension.2=320
	check $D/rnn_long_dims.onnx
	check $D/vad_if_sr.onnx samples=16000 --value sr=16000
	check $D/vad_if_sr.onnx samples=8000 --value sr=8000
	check $D/vad_if_sr.onnx samples=8000
	check samples/audio_frontend.onnx samples=16000
	check samples/paddle_ocr_dyn.onnx DynamicDimension.1=48 DynamicDimension.2=320
	check samples/transformer_dyn_seq.onnx sequence=16
	check samples/symbolic_batch.onnx
	check samples/conv1d_symbolic_len.onnx length=100
	for t in convnext efficientnet_b0 gpt mobilenet_v3_small resnet18 swin_t transformer_encoder \
	         transformer_encoder_prenorm vit; do
		check tests/data/torch/torch_${t}_opset17.onnx seq=8
	done
	# a tensor built from shapes alone (the GRU's h0 as ConstantOfShape of
	# Shape, the decoder's weight slices sized by Shape) is an activation
	# while a dim it reads is unbound and a folded constant once every dim
	# is bound: their partly bound formulas count it, so only their bound
	# peak is checked
	for t in gru lstm llama transformer_decoder; do
		check tests/data/torch/torch_${t}_opset17.onnx seq=8 --full-peak-only
	done
	if have_models; then
		for m in "$MODELS"/*.onnx; do
			case $m in
			*tiny_distilbert*) check "$m" sequence=16 ;;
			*tiny_gpt2*) check "$m" seq_len=8 total_seq_len=12 past_seq_len=4 --allow-unknown-peak ;;
			*) check "$m" ;;
			esac
		done
	fi
else
	echo "skipped part 1: no python3-onnx"
fi

# 2. the peak in what is left: no lower bound of the small tensors beside formulas
out=$("$FD" mem $D/mel_shape_peak.onnx --dim samples=16000)
echo "$out" | grep -q "peak 292 KiB × batch_size + 24 B -> 292 KiB × batch_size + 24 B" ||
	bad "mel at samples=16000: $(echo "$out" | grep '^memory')"
echo "$out" | grep -q "≥" && bad "mel at samples=16000 says a lower bound: $(echo "$out" | grep '^memory')"
"$FD" mem --format json $D/mel_shape_peak.onnx --dim samples=16000 |
	grep -q '"peak_before_formula": "292 KiB × batch_size + 24 B"' || bad "mem JSON: the formula"
# sizes that cannot be known: a lower bound, labelled
out=$("$FD" mem tests/data/torch/torch_vit_opset17.onnx)
echo "$out" | grep -q "^memory (main graph, activations): peak ≥ " || bad "vit: an unknown size, but no ≥"
"$FD" mem --format json tests/data/torch/torch_vit_opset17.onnx | grep -q '"peak_before_at_least": "' ||
	bad "vit JSON: peak_before_at_least"

# 3. the shapes: bound dims as numbers, ×, ASCII, aliases
out=$("$FD" info samples/paddle_ocr_dyn.onnx --input-shape "x:1,3,48,320")
echo "$out" | grep -q "softmax_0.tmp_0  float32   1×480×37" || bad "info after --input-shape: $(echo "$out" | grep softmax)"
out=$("$FD" info $D/ocr_rec_p2o.onnx --dim p2o.DynamicDimension.2=320)
echo "$out" | grep -q "x                float32   d0×3×d1×320" || bad "aliases in info: $(echo "$out" | grep ' x ')"
echo "$out" | grep -q "  d0 = p2o.DynamicDimension.0  unbound" || bad "the alias legend in info"
"$FD" info $D/ocr_rec_p2o.onnx --dim d0=1 --dim d1=48 --dim d2=320 | grep -q "softmax_0.tmp_0  float32   1×120×37" ||
	bad "--dim d0=1 binds p2o.DynamicDimension.0"
out=$(LC_ALL=C "$FD" info samples/audio_frontend.onnx)
echo "$out" | grep -q "audio     float32   batch x samples" || bad "LANG=C: $(echo "$out" | grep audio)"
echo "$out" | grep -q "×" && bad "LANG=C: a × in the shapes"
"$FD" mem $D/ocr_rec_p2o.onnx | grep "^unbound symbols" | grep -q "DynamicDimension.3" &&
	bad "mem offers p2o.DynamicDimension.3, that no tensor depends on, to bind"

# 4. a binding the model cannot run with
"$FD" info $D/ocr_det_fpn.onnx --input-shape "x:1,3,100,130" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || bad "ocr_det_fpn at 100x130: exit $rc, want 2"
grep -q "error: node p2o.Add.248 (Add): the bindings make a broadcast of 1×8×50×65 against 1×8×50×66, which cannot run: dim 3 is 65" "$tmp/err" ||
	bad "the clash: $(cat "$tmp/err")"
"$FD" mem $D/ocr_det_fpn.onnx --input-shape "x:1,3,100,130" >/dev/null 2>&1
[ $? = 2 ] || bad "mem at 100x130: not exit 2"
"$FD" info $D/ocr_det_fpn.onnx --input-shape "x:1,3,128,128" >/dev/null || bad "ocr_det_fpn at 128x128 fails"

# 5. If branches
out=$("$FD" mem $D/vad_if_sr.onnx --dim batch=1 --dim samples=16000 --value sr=8000)
echo "$out" | grep -q "+ else branch (sr != 16000) of If_2: 500 KiB (its own peak)" || bad "--value sr=8000: $out"
out=$("$FD" mem $D/vad_if_sr.onnx --dim batch=1 --dim samples=16000 --value sr=16000)
echo "$out" | grep -q "+ then branch (sr == 16000) of If_2: 94 KiB (its own peak)" || bad "--value sr=16000: $out"
"$FD" info $D/vad_if_sr.onnx --dim batch=1 --dim samples=16000 --value sr=8000 | grep -q "output  float32   1×1×999" ||
	bad "the If output at sr=8000 is the else branch's"
"$FD" info $D/vad_if_sr.onnx --value input=3 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "error: --value input: the input is float32 with more than one element, not a scalar integer" "$tmp/err" ||
	bad "--value on a tensor input: $(cat "$tmp/err")"

# 6. a long peak wrapped in the picture's legend
if have_models; then
	"$FD" export "$MODELS/tiny_distilbert_sst2.onnx" -o "$tmp/g.dot" >/dev/null || bad "export distilbert"
	grep -o 'ALIGN="LEFT">peak max(.\{0,200\}' "$tmp/g.dot" | grep -q '<BR ALIGN="LEFT"/>' ||
		bad "the peak row of the legend is not wrapped"
fi
finish $fail
