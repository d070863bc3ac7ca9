#!/usr/bin/env bash
# test_cann_ub.sh — rules/cann's UB rules taken from a pass's source, on the
# probes of tests/data/cann/make_cann_ub_probes.py: each ub_*_fires* model
# fuses what the rule names, each ub_*_no_* model is refused by the one
# condition its name says (ub_stem_default_no_small_channel: ATC's default
# leaves small channel off), and `why` says which (rule file line and the
# source's words, the rule's sources); a sources key naming nothing is an
# error; suggest proposes no chain rules/cann fuses. The fusions and reasons are held against
# tests/golden/cann/ub_probes.txt (UPDATE=1 rewrites it).
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR FUSIONDBG_CANN_CATALOGUE
make_tmp
GOLDEN=tests/golden/cann/ub_probes.txt
fail=0

# the rule each probe is about, and the node its why is asked on
rule_of() {
	case $1 in
	ub_double_in_*) echo "TbeConvDoubleInFusionPass conv_a" ;;
	ub_stem_*) echo "TbeAippConvReluMaxpoolingFusion conv" ;;
	ub_common_*) echo "TbeCommonRules0FusionPass conv" ;;
	esac
}

# TbeAippConvReluMaxpoolingFusion wants small channel on, which ATC's
# default leaves off and an ONNX model does not say: the stem probes run
# with it on (the what-if its rule names), and once as ATC's default
SMALL_CHANNEL="TbeAippConvReluMaxpoolingFusion.match.ops.0.where=rank(input0) >= 4"
for f in tests/data/cann/ub_*.onnx tests/data/cann/ub_stem_fires.onnx; do
	name=$(basename "$f" .onnx)
	set -- $(rule_of "$name")
	rule=$1 node=$2
	set -- -r rules/cann
	case $name in ub_stem_*) set -- "$@" --set "$SMALL_CHANNEL" ;; esac
	if [ -n "${stem_default_done:-}" ] && [ "$name" = ub_stem_fires ]; then
		set -- -r rules/cann   # the last round: ATC's default
		name=ub_stem_default_no_small_channel
	fi
	[ "$name" = ub_stem_fires ] && stem_default_done=1
	"$FUSIONDBG" match "$f" "$@" --format json >"$tmp/m.json" 2>"$tmp/err" ||
		{ [ $? = 1 ] || bad "$name: match failed: $(cat "$tmp/err")"; }
	fused=$("$PYTHON" - "$tmp/m.json" "$rule" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mine = [f["nodes"] for f in d["fusions"] if f["rule"] == sys.argv[2]]
print(" | ".join(",".join(n) for n in mine) or "-")
PY
)
	case $name in
	*_fires*) [ "$fused" != - ] || bad "$name: $rule did not fire" ;;
	*_no_*) [ "$fused" = - ] || bad "$name: $rule fired ($fused), the probe is one it refuses" ;;
	esac
	echo "$name: $rule: $fused"
	if [ "$fused" = - ]; then
		"$FUSIONDBG" why "$f" "$@" --rule "$rule" --node "$node" 2>&1 | head -1 | sed 's/^/  /'
	fi
done >"$tmp/out.txt"

# suggest knows which chains CANN fuses: on a YOLOv8n-style export the 53
# Conv -> Sigmoid -> Mul are proposed against a rule set that lacks them,
# and not against rules/cann, whose TbeConvSigmoidMulQuantFusionPass takes
# them
mkdir -p "$tmp/none"
printf 'version: "1.0"\nname: "Unrelated"\npriority: 1\nmatch:\n  ops:\n    - type: Erf\n    - type: Erf\nrewrite:\n  target_op: "U"\n' >"$tmp/none/u.yaml"
Y=tests/data/cann/yolov8n_like.onnx
"$FUSIONDBG" suggest $Y -r "$tmp/none" >"$tmp/s0.txt" 2>/dev/null
grep -q '^#1  Conv -> Sigmoid -> Mul  x53 ' "$tmp/s0.txt" || bad "suggest without rules/cann: no Conv -> Sigmoid -> Mul x53"
"$FUSIONDBG" suggest $Y -r rules/cann >"$tmp/s1.txt" 2>/dev/null
grep -q 'Conv -> Sigmoid -> Mul' "$tmp/s1.txt" && bad "suggest -r rules/cann proposes Conv -> Sigmoid -> Mul, which CANN fuses"

# a sources key must name a part of the rule: check --strict refuses one
# that names nothing
sed 's/^  match.ops.2.where.7:/  match.ops.2.where.9:/' rules/cann/ub_fusion.yaml >"$tmp/bad_sources.yaml"
"$FUSIONDBG" check --strict "$tmp/bad_sources.yaml" >"$tmp/v.txt" 2>&1 && bad "check --strict took a sources key that names nothing"
grep -q "sources: 'match.ops.2.where.9' names no value of the rule" "$tmp/v.txt" ||
	bad "check: nothing said of sources.match.ops.2.where.9: $(head -2 "$tmp/v.txt")"

if [ "${UPDATE:-0}" = 1 ]; then
	cp "$tmp/out.txt" "$GOLDEN"
elif ! diff -u "$GOLDEN" "$tmp/out.txt"; then
	bad "the probes' fusions or reasons differ from $GOLDEN (UPDATE=1 rewrites it)"
fi
exit $fail
