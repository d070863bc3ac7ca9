#!/usr/bin/env bash
# test_memory_chart_bind.sh — `export --memory-chart` on a model left partly
# bound: the length bound and batch not (the normal workflow) makes steps
# that do not scale alike by batch. The chart is drawn at every unbound
# symbol = 1, and both the chart and the message say so; the error it gave
# before is gone, the load's warnings are said once, and --set edits are in
# it. On a real PyTorch export (Silero-style VAD) and a sample.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
make_tmp

# chart MODEL OUT ARGS... : export with a memory chart; 0 and the message, or FAIL
chart() {
	local m=$1 out=$2; shift 2
	"$FUSIONDBG" export "$m" -r rules -o "$tmp/g.dot" --memory-chart "$out" "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ bad "export $m $*: exit $?: $(cat "$tmp/err")"; return 1; }
	[ -s "$tmp/err" ] && bad "export $m $*: stderr: $(cat "$tmp/err")"
	return 0
}

chart samples/conv1d_symbolic_len.onnx "$tmp/c.svg" &&
	grep -qxF "wrote $tmp/c.svg (memory timeline at length=1: not bound, the steps do not scale alike by it; --dim length=N draws another)" "$tmp/out" ||
	bad "conv1d_symbolic_len: no chart at length=1: $(cat "$tmp/out")"
grep -qF "drawn at length=1: not bound, and the steps do not scale alike by it; &#45;&#45;dim length=N draws another" "$tmp/c.svg" ||
	bad "conv1d_symbolic_len: the chart does not say what it was drawn at"
grep -qF "· at length=1" "$tmp/c.svg" || bad "conv1d_symbolic_len: the title does not name the binding"

# bound by the user: drawn as before, no note
chart samples/conv1d_symbolic_len.onnx "$tmp/b.svg" --dim length=4000 &&
	grep -qxF "wrote $tmp/b.svg (memory timeline)" "$tmp/out" || bad "length bound: $(cat "$tmp/out")"
grep -q "drawn at" "$tmp/b.svg" && bad "length bound: a note though the user bound it"

# a real export: samples bound, batch and the context left
chart tests/data/torch/torch_vad_opset16.onnx "$tmp/v.svg" --dim samples=16000 &&
	grep -qF "wrote $tmp/v.svg (memory timeline at " "$tmp/out" && grep -qF "batch=1" "$tmp/out" ||
	bad "torch_vad --dim samples=16000: $(cat "$tmp/out")"
grep -qF "samples=16000" "$tmp/v.svg" || bad "torch_vad: the title lost the user's binding"
# the chart at 1 comes from a second session: the load's warnings are said
# once (the first one's), not again by the second
"$FUSIONDBG" export samples/conv1d_symbolic_len.onnx -r rules --dim nosuch=2 --memory-chart "$tmp/w.svg" \
	>"$tmp/out" 2>"$tmp/err" || bad "--dim nosuch=2: exit $?: $(cat "$tmp/err")"
[ "$(grep -c "dim nosuch" "$tmp/err")" = 1 ] || bad "--dim nosuch=2: the warning is not said once: $(cat "$tmp/err")"

# the edits of the session (--set) are in the chart at 1: the rule that
# fires disabled, after fusion is before fusion
"$FUSIONDBG" export samples/conv1d_symbolic_len.onnx -r rules/onnxruntime --memory-chart "$tmp/f.dot" >/dev/null 2>&1 &&
	grep -qF "peak 384 B → 320 B (est.) · at length=1" "$tmp/f.dot" || bad "onnxruntime rules: not the fused chart at 1"
"$FUSIONDBG" export samples/conv1d_symbolic_len.onnx -r rules/onnxruntime --set ORT_ConvActivationFusion.enabled=false \
	--memory-chart "$tmp/u.dot" >/dev/null 2>&1 &&
	grep -qF "peak 384 B → 384 B (est.) · at length=1" "$tmp/u.dot" || bad "--set enabled=false: not in the chart at 1"
finish "$fail"
