#!/usr/bin/env bash
# test_qdq_refused.sh — a fusion after which the compiler refuses the model
# (rewrite.refuses_model): torch's QAT export writes its scales as shape
# [1], onnxruntime fuses the QDQ Add of a MaxPool (its DQ copied past the
# MaxPool) into a QLinearAdd and fails the session in that node's type
# inference. `match` says so first, in text and JSON; `why` on the rule says
# it fires and then the model is refused; a model of rank-0 scales is not
# refused; a rule without the key says nothing of it.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
ORT=rules/onnxruntime
M=tests/data/torchq/torchq_qat_cnn.onnx
refused='the compiler refuses the model: ORT_QDQ_Binary_Refused on /Add makes QLinearBinary, then "Scale and Zero-point must be a scalar"'

out=$("$FUSIONDBG" match $M -r $ORT) || bad "match exited $?"
[ "$(echo "$out" | sed -n 2p)" = "$refused" ] || bad "match: line 2 is $(echo "$out" | sed -n 2p)"
"$FUSIONDBG" match $M -r $ORT --format json >"$tmp/m.json" || bad "match json exited $?"
"$PYTHON" - "$tmp/m.json" <<'PY' || bad "match json: the refusing fusion"
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["fusions"] if "refuses_model" in x]
assert len(f) == 1 and f[0]["rule"] == "ORT_QDQ_Binary_Refused", f
assert f[0]["refuses_model"] == "Scale and Zero-point must be a scalar", f
PY
out=$("$FUSIONDBG" why $M -r $ORT --rule ORT_QDQ_Binary_Refused --node /Add | head -1)
case $out in "why: ORT_QDQ_Binary_Refused fires on /Add (Add)"*'[FD-OK]; then the compiler refuses the model: "Scale and Zero-point must be a scalar"') ;;
	*) bad "why: $out";; esac
# rank-0 scales: ORT_QDQ_Binary makes the QLinearAdd and nothing is refused
# (the probes of tests/peer/quant_probes.py, one and the other)
"$PYTHON" tests/peer/make_probes.py "$tmp/p" >/dev/null || bad "make_probes.py"
out=$("$FUSIONDBG" match "$tmp/p/probe_qdq_add_maxpool.onnx" -r $ORT)
case $out in *"refuses the model"*) bad "maxpool probe refused: $out";; esac
echo "$out" | grep -q '^    ORT_QDQ_Binary: dqx2, add, qa -> QLinearBinary$' || bad "maxpool probe: no QLinearAdd: $out"
out=$("$FUSIONDBG" match "$tmp/p/probe_qdq_add_scale_1.onnx" -r $ORT | sed -n 2p)
[ "$out" = 'the compiler refuses the model: ORT_QDQ_Binary_Refused on add makes QLinearBinary, then "Scale and Zero-point must be a scalar"' ] \
	|| bad "scale_1 probe: $out"
# without the key nothing is said: the same run with the refusing rule off
out=$("$FUSIONDBG" match $M -r $ORT --set ORT_QDQ_Binary_Refused.enabled=false)
case $out in *"refuses the model"*) bad "rule off, still refused";; esac
exit $fail
