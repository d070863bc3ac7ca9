#!/usr/bin/env bash
# test_fusion_switch.sh — CANN's fusion switch file (ATC's
# --fusion_switch_file fusion_switch.cfg) through --fusion-switch FILE: rules
# named there on or off, ALL the default for the others, names of no loaded
# rule warned with did-you-mean (the compiler's own passes too), applied
# after GRAPH_AUTOFUSION_RULES; a value not "on"/"off", bad JSON or no Switch
# object is one error naming file:line:col, exit 2. Written back from the TUI
# (:write-switch, tests/tui/writeswitch.script), the file reads in again to
# the same rules; compare --with fusion_result.json reads its graph_fusion
# and ub_fusion sections with a switch file applied.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
make_tmp
M=samples/conv_add_silu.onnx
R="-r rules -r samples/rules"

state() {   # state ARGS...: "NAME on|off" per rule, from match --format json
	# shellcheck disable=SC2086
	"$FUSIONDBG" match $M $R "$@" --format json 2>"$tmp/err" | "$PYTHON" -c '
import json, sys
for r in json.load(sys.stdin)["rules"]:
    print(r["name"], "on" if r["enabled"] else "off")'
}
fired() {   # fired ARGS...: how many fusions each rule made
	# shellcheck disable=SC2086
	"$FUSIONDBG" match $M $R "$@" --format json 2>/dev/null | "$PYTHON" -c '
import collections, json, sys
c = collections.Counter(f["rule"] for f in json.load(sys.stdin)["fusions"])
print(";".join("%d %s" % (n, r) for r, n in sorted(c.items())))'
}

cat >"$tmp/sw.cfg" <<'EOF'
{
  "Switch": {
    "GraphFusion": {
      "Conv_Add_SiLU_Fusion": "off",
      "ConvBatchnormFusionPass": "on",
      "Conv_Add_Residual_Fusio": "on",
      "ALL": "on"
    },
    "UBFusion": {
      "TbeConvStridedwriteFusionPass": "off"
    }
  }
}
EOF
[ "$(fired)" = "3 Conv_Add_SiLU_Fusion" ] || bad "as loaded: $(fired)"
[ "$(fired --fusion-switch "$tmp/sw.cfg")" = "3 Conv_Add_Residual_Fusion" ] || bad "SiLU off: $(fired --fusion-switch "$tmp/sw.cfg")"
state --fusion-switch "$tmp/sw.cfg" >/dev/null
want="$tmp/sw.cfg:6:34: warning: Switch.GraphFusion names 'Conv_Add_Residual_Fusio', which no loaded rule is (did you mean 'Conv_Add_Residual_Fusion'?)"
grep -qxF "$want" "$tmp/err" || bad "did-you-mean: $(cat "$tmp/err")"
grep -q "names 'ConvBatchnormFusionPass', which no loaded rule is$" "$tmp/err" || bad "the compiler's pass: $(cat "$tmp/err")"
grep -q "Switch.UBFusion names 'TbeConvStridedwriteFusionPass'" "$tmp/err" || bad "UBFusion's pass: $(cat "$tmp/err")"

# ALL off, one on: only that one runs
printf '{"Switch": {"GraphFusion": {"ALL": "off", "Conv_Add_Residual_Fusion": "on"}, "UBFusion": {}}}' >"$tmp/one.cfg"
on=$(state --fusion-switch "$tmp/one.cfg" | grep ' on$' | tr '\n' ';')
[ "$on" = "Conv_Add_Residual_Fusion on;" ] || bad "ALL off: $on"
# --set comes after the file
printf '{"Switch": {"GraphFusion": {"Conv_Add_SiLU_Fusion": "on"}}}' >"$tmp/back.cfg"
[ "$(state --set Conv_Add_SiLU_Fusion.enabled=false --fusion-switch "$tmp/back.cfg" | grep "^Conv_Add_SiLU_Fusion ")" = \
	"Conv_Add_SiLU_Fusion off" ] || bad "--set comes after the file"
# without ALL the rules it does not name keep their state
printf '{"Switch": {"UBFusion": {"Conv_BN_Relu_Fusion": "off"}}}' >"$tmp/ub.cfg"
[ "$(state --fusion-switch "$tmp/ub.cfg" | grep -c ' off$')" = 1 ] || bad "no ALL: $(state --fusion-switch "$tmp/ub.cfg")"
# after the environment: GRAPH_AUTOFUSION_RULES keeps two, the file turns one of them off
printf '{"Switch": {"GraphFusion": {"Conv_Add_SiLU_Fusion": "off"}}}' >"$tmp/off.cfg"
got=$(GRAPH_AUTOFUSION_RULES=Conv_Add_SiLU_Fusion,Conv_Add_Residual_Fusion state --fusion-switch "$tmp/off.cfg" | grep ' on$' | tr '\n' ';')
[ "$got" = "Conv_Add_Residual_Fusion on;" ] || bad "the file after the environment: $got"

# bad files: one error line, exit 2, no run
expect_error() {   # expect_error NAME TEXT LINE
	printf '%s' "$2" >"$tmp/$1.cfg"
	# shellcheck disable=SC2086
	"$FUSIONDBG" match $M $R --fusion-switch "$tmp/$1.cfg" >"$tmp/out" 2>"$tmp/err"; local rc=$?
	[ "$rc" = 2 ] && [ "$(grep -c . "$tmp/err")" = 1 ] && grep -qxF "$tmp/$1.cfg:$3" "$tmp/err" && [ ! -s "$tmp/out" ] ||
		bad "$1: exit $rc, $(cat "$tmp/err"), want $tmp/$1.cfg:$3"
}
expect_error value '{"Switch": {"GraphFusion": {"Conv_Add_SiLU_Fusion": "maybe"}}}' \
	"1:53: error: 'Conv_Add_SiLU_Fusion': expected \"on\" or \"off\""
expect_error nojson '{"Switch": {' "1:13: error: JSON: an object without its '}'"
# FE refuses a top-level key other than Switch, Priority and ExceptionalPassOfO1Level
# (this used to be "not a fusion switch file" at 1:1: now FE's own rule, at the key's value)
expect_error noswitch '{"GraphFusion": {}}' \
	"1:17: error: 'GraphFusion': FE takes only \"Switch\", \"Priority\" and \"ExceptionalPassOfO1Level\" at the top level"
# shellcheck disable=SC2086
"$FUSIONDBG" match $M $R --fusion-switch "$tmp/none.cfg" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "none.cfg" "$tmp/err" || bad "a missing file: exit $rc, $(cat "$tmp/err")"
"$FUSIONDBG" match --help 2>&1 | grep -q -- "--fusion-switch FILE" || bad "match --help does not list --fusion-switch"

# compare --with fusion_result.json: graph_fusion and ub_fusion read as before, with the switch applied
cat >"$tmp/fr.json" <<'EOF'
{"session_and_graph_id": "0_0",
 "graph_fusion": {"Conv_Add_Residual_Fusion": {"match_times": "3", "effect_times": "3"}},
 "ub_fusion": {"Conv_Add_SiLU_Fusion": {"match_times": "0", "effect_times": "0"}}}
EOF
# shellcheck disable=SC2086
out=$("$FUSIONDBG" compare $M $R --with "$tmp/fr.json" --fusion-switch "$tmp/sw.cfg" 2>/dev/null)
grep -Eq "Conv_Add_Residual_Fusion +3 / 3 +3 / 3 +same" <<<"$out" || bad "compare, graph_fusion: $out"
grep -Eq "Conv_Add_SiLU_Fusion +0 / 0 +0 / 0 +same" <<<"$out" || bad "compare, ub_fusion: $out"
exit $fail
