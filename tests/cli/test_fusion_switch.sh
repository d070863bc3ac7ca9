#!/usr/bin/env bash
# test_fusion_switch.sh — CANN's fusion switch file (ATC's
# --fusion_switch_file fusion_switch.cfg) through --fusion-switch FILE, in
# both of FE's forms (lines "Pass:on|off" and JSON) with FE's rules: rules
# named there on or off, ALL the default for the others, names of no loaded
# rule warned with did-you-mean (the compiler's own passes too), applied
# after GRAPH_AUTOFUSION_RULES, ExceptionalPassOfO1Level and the passes FE
# never closes kept on; what FE refuses (a value not exactly "on"/"off", a
# line without ':', a name twice, a key FE does not take, a priority out of
# range, bad JSON) is one error naming file:line:col, exit 2. FE's own
# files: test_fusion_switch_cann.sh. Written back from the TUI
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
# FE's rules, on files of our own. The line form: "Pass:on|off", trimmed, every entry for
# graph and UB fusion both, ALL the default, an empty name skipped
printf 'Conv_Add_SiLU_Fusion : off\n\n:on\n' >"$tmp/lines.cfg"
[ "$(fired --fusion-switch "$tmp/lines.cfg")" = "3 Conv_Add_Residual_Fusion" ] || bad "the line form: $(fired --fusion-switch "$tmp/lines.cfg")"
printf 'ALL:off\nConv_Add_Residual_Fusion:on\n' >"$tmp/lall.cfg"
on=$(state --fusion-switch "$tmp/lall.cfg" | grep ' on$' | tr '\n' ';')
[ "$on" = "Conv_Add_Residual_Fusion on;" ] || bad "ALL in the line form: $on"
expect_error comment '# switch off SiLU
Conv_Add_SiLU_Fusion:off' "1:1: error: a line without ':': FE takes \"Pass:on\" or \"Pass:off\", one a line, and skips only empty lines (no comments)"
expect_error crlf "$(printf 'Conv_Add_SiLU_Fusion:off\r\n\r\nX:on')" \
	"2:1: error: a line of blanks (a carriage return?) is not empty: FE takes \"Pass:on\" or \"Pass:off\", one a line, and skips only empty lines (no comments)"
expect_error upper 'Conv_Add_SiLU_Fusion:OFF' "1:22: error: 'Conv_Add_SiLU_Fusion': the value is 'OFF', FE takes exactly \"on\" or \"off\""
expect_error twice 'A:on
B:off
A:off' "3:1: error: 'A' is given twice, at lines 1 and 3: FE refuses a name given twice"
: >"$tmp/empty.cfg"
# shellcheck disable=SC2086
"$FUSIONDBG" match $M $R --fusion-switch "$tmp/empty.cfg" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -qxF "$tmp/empty.cfg: error: the file is empty: FE refuses an empty switch file" "$tmp/err" || bad "an empty file: exit $rc, $(cat "$tmp/err")"
# the JSON form: values case-sensitive and strings, sections and top-level keys FE's only,
# a file that starts with a JSON value is JSON to FE
expect_error jupper '{"Switch": {"GraphFusion": {"Conv_Add_SiLU_Fusion": "Off"}}}' "1:53: error: 'Conv_Add_SiLU_Fusion': expected \"on\" or \"off\""
expect_error jbool '{"Switch": {"GraphFusion": {"Conv_Add_SiLU_Fusion": false}}}' "1:53: error: 'Conv_Add_SiLU_Fusion': true or false, FE takes the string \"on\" or \"off\""
expect_error jsection '{"Switch": {"Graph": {}}}' "1:22: error: Switch: 'Graph' is not a section: FE takes \"GraphFusion\" and \"UBFusion\""
expect_error jarray '[{"Switch": {}}]' "1:1: error: FE reads the file as JSON (it starts with a JSON value) and its top level is an array, not an object"
expect_error number '1stPass:off' "1:1: error: FE reads the file as JSON (it starts with a JSON value) and its top level is a number, not an object"
expect_error prio '{"Priority": {"GraphFusion": {"Main": {"Conv_Add_SiLU_Fusion": "999"}}}}' \
	"1:64: error: Priority.GraphFusion.Main.Conv_Add_SiLU_Fusion: '999' is not a priority FE takes: a string of an integer in [1000, 2000) in a user's file"
expect_error prio2 '{"Priority": {"UBFusion": {"Top": {"A": "1"}, "Down": {"A": "2001"}}}}' \
	"1:61: error: Priority.UBFusion names 'A' twice (also at 1:41): FE refuses it"
expect_error jtwice '{"Switch": {"GraphFusion": {"A": "off", "B": "on",
  "A": "on"}}}' "2:8: error: GraphFusion names 'A' twice, at 1:34 and 2:8: a name given twice is refused"
expect_error jtwice2 '{"Switch": {"GraphFusion": {"A": "off"}, "GraphFusion": {"B": "on"}}}' \
	"1:57: error: Switch names 'GraphFusion' twice, at 1:28 and 1:57: a name given twice is refused"
expect_error jtwice3 '{"Switch": {"UBFusion": {}}, "Switch": {}}' \
	"1:40: error: the file names 'Switch' twice, at 1:12 and 1:40: a name given twice is refused"
expect_error exc '{"ExceptionalPassOfO1Level": "A"}' "1:30: error: ExceptionalPassOfO1Level is a string, not an array of pass names"
# what FE takes otherwise than it looks: warned
printf '{"Switch": {"GraphFusion": {"Conv_Add_SiLU_Fusion": " off"}}, "Priority": {"GraphFusion": {"Top": {"Conv_Add_SiLU_Fusion": "5"}}}}' >"$tmp/quirk.cfg"
state --fusion-switch "$tmp/quirk.cfg" >/dev/null
grep -qF "warning: 'Conv_Add_SiLU_Fusion': FE checks the value trimmed but applies it as written: ' off' is not \"on\", so the pass is off" "$tmp/err" &&
	grep -qF "warning: Priority gives rule 'Conv_Add_SiLU_Fusion' 5: read and checked as FE does, not applied" "$tmp/err" || bad "quirks: $(cat "$tmp/err")"
# ExceptionalPassOfO1Level keeps its passes on, before the switch; a pass FE never lets a
# user close is warned about
printf '{"Switch": {"GraphFusion": {"ALL": "off", "Conv_Add_SiLU_Fusion": "off", "ConstToAttrPass": "off"}}, "ExceptionalPassOfO1Level": ["Conv_Add_SiLU_Fusion"]}' >"$tmp/exc.cfg"
[ "$(fired --fusion-switch "$tmp/exc.cfg")" = "3 Conv_Add_SiLU_Fusion" ] || bad "ExceptionalPassOfO1Level: $(fired --fusion-switch "$tmp/exc.cfg")"
state --fusion-switch "$tmp/exc.cfg" >/dev/null
grep -qF "warning: 'Conv_Add_SiLU_Fusion' is switched off, but the file's ExceptionalPassOfO1Level (1:131) keeps it on" "$tmp/err" &&
	grep -qF "warning: 'ConstToAttrPass' cannot be switched off: CANN's FE always runs it (one of the passes it forbids closing), so it stays on" "$tmp/err" ||
	bad "exceptional and forbidden: $(cat "$tmp/err")"
# shellcheck disable=SC2086
"$FUSIONDBG" match $M $R --fusion-switch "$tmp/none.cfg" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "none.cfg" "$tmp/err" || bad "a missing file: exit $rc, $(cat "$tmp/err")"
"$FUSIONDBG" match --help 2>&1 | grep -q -- "--fusion-switch FILE" || bad "match --help does not list --fusion-switch"

# a what-if changes only the value it edits: a rule the file turns on (its
# own file says enabled: false, or GRAPH_AUTOFUSION_RULES leaves it out)
# stays on through an edit of another field and a rebind; the trace names
# only what really turned a rule off
sed 's/^priority: 150/priority: 150\nenabled: false/' rules/conv_add_silu_fusion.yaml >"$tmp/silu_off.yaml"
printf 'Conv_Add_SiLU_Fusion:on\n' >"$tmp/silu_on.cfg"
printf 'Conv_Add_SiLU_Fusion:off\n' >"$tmp/silu_offsw.cfg"
S="-r $tmp/silu_off.yaml --fusion-switch $tmp/silu_on.cfg"
# shellcheck disable=SC2086
[ "$(R='' fired $S --set Conv_Add_SiLU_Fusion.priority=151)" = "3 Conv_Add_SiLU_Fusion" ] ||
	bad "switched on, then an edit: $(R='' fired $S --set Conv_Add_SiLU_Fusion.priority=151)"
# shellcheck disable=SC2086
[ "$(GRAPH_AUTOFUSION_RULES=Conv_Add_Residual_Fusion fired --fusion-switch "$tmp/silu_on.cfg" \
	--set Conv_Add_SiLU_Fusion.priority=151)" = "3 Conv_Add_SiLU_Fusion" ] || bad "the environment's off, switched on, then an edit"
# shellcheck disable=SC2086
out=$("$FUSIONDBG" mem samples/symbolic_batch.onnx $S --set Conv_Add_SiLU_Fusion.priority=151 --sweep batch=1,8 2>&1)
grep -q "Conv_Add_SiLU_Fusion  *1 1   fires at every value" <<<"$out" || bad "switched on, an edit, a rebind: $out"
why_off() {   # why_off ARGS...: the reason of Conv_Add_SiLU_Fusion's FD-NR01 in the trace
	# shellcheck disable=SC2086
	"$FUSIONDBG" match $M "$@" --trace 2>&1 | sed -n 's/.*\[FD-NR01\] — \(.*\) (.*/\1/p' | sort -u
}
[ "$(why_off -r "$tmp/silu_off.yaml")" = "rule disabled: enabled: false in its rule (the file or an edit)" ] ||
	bad "enabled: false: $(why_off -r "$tmp/silu_off.yaml")"
[ "$(why_off -r rules --fusion-switch "$tmp/silu_offsw.cfg")" = "rule disabled: the fusion switch file (--fusion-switch) turns it off" ] ||
	bad "switched off: $(why_off -r rules --fusion-switch "$tmp/silu_offsw.cfg")"
[ "$(why_off -r rules --set Conv_Add_SiLU_Fusion.enabled=false)" = "rule disabled: enabled: false in its rule (the file or an edit)" ] ||
	bad "an edit: $(why_off -r rules --set Conv_Add_SiLU_Fusion.enabled=false)"
[ "$(GRAPH_AUTOFUSION_ENABLE=0 why_off -r rules)" = "rule disabled: GRAPH_AUTOFUSION_ENABLE turns every rule off" ] ||
	bad "GRAPH_AUTOFUSION_ENABLE: $(GRAPH_AUTOFUSION_ENABLE=0 why_off -r rules)"

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
