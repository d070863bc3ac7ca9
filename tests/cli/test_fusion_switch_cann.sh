#!/usr/bin/env bash
# test_fusion_switch_cann.sh — CANN's FE's own switch files, in
# $FUSIONDBG_CANN/fusion_switch (default ../shared/cann; skipped, exit 77,
# without it), give the verdicts FE's tests give them: the line form with
# "offf" and the one naming PASS2 twice refused, the line form and JSON
# form FE reads accepted; FE's fusion_manager fixtures: the one with an
# empty value refused, the one with built-in priorities refused as a
# user's file and read as a catalogue; FE's built-in fusion_config.json
# read as the catalogue gives did-you-mean over CANN's passes and tells
# CANN's own passes from slips.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR FUSIONDBG_CANN_CATALOGUE ASCEND_OPP_PATH
CANN=${FUSIONDBG_CANN:-../shared/cann}
D=$CANN/fusion_switch
[ -d "$D" ] || { echo "skipped: no $D (FUSIONDBG_CANN)"; exit $SKIPPED; }
make_tmp
M=samples/conv_add_silu.onnx

verdict() {   # verdict FILE accepted|refused [WANT-ERROR-TEXT]
	"$FUSIONDBG" match $M -r rules --fusion-switch "$D/$1" >/dev/null 2>"$tmp/err"; local rc=$?
	case $2 in
	accepted) [ "$rc" = 0 ] && ! grep -q "error:" "$tmp/err" || bad "$1: exit $rc, want accepted: $(cat "$tmp/err")" ;;
	refused) [ "$rc" = 2 ] && [ "$(grep -c 'error:' "$tmp/err")" = 1 ] && grep -qF "$D/$1:$3" "$tmp/err" ||
		bad "$1: exit $rc, want refused with '$3': $(cat "$tmp/err")" ;;
	esac
	echo "ok: $1 $2"
}
verdict st_fusion_config_manager_custom_config_fusion_switch.cfg refused \
	"2:7: error: 'PASS2': the value is 'offf', FE takes exactly \"on\" or \"off\""
verdict st_fusion_config_manager_custom_config_fusion_switch1.cfg refused \
	"3:1: error: 'PASS2' is given twice, at lines 2 and 3: FE refuses a name given twice"
verdict st_fusion_config_manager_custom_config_fusion_switch2.cfg accepted
verdict ut_fusion_engine_fusion_config_manager_custom_config_fusion_switch.cfg accepted
verdict ut_fusion_engine_fusion_config_manager_custom_config_fusion_switch.json accepted
verdict ut_fusion_engine_fusion_manager_fusion_switch accepted
verdict ut_fusion_engine_fusion_manager_fusion_switch_custom accepted
verdict ut_fusion_engine_fusion_manager_fusion_switch_default refused "4:19: error: 'eee': expected \"on\" or \"off\""
verdict ut_fusion_engine_fusion_manager_fusion_switch_build_in refused \
	"15:30: error: Priority.GraphFusion.Top.graphPass1: '3000' is not a priority FE takes: a string of an integer in [0, 1000) in a user's file"
verdict builtin_fusion_config.json refused "59:57: error: Priority.GraphFusion.Main."
for f in "$D"/*; do
	case $f in *.md) continue ;; esac
	grep -q "$(basename "$f")" "$0" || bad "$(basename "$f") is not tested here"
done

# built-in files read as the catalogue: no warning about the catalogue itself
for cat in builtin_fusion_config.json ut_fusion_engine_fusion_manager_fusion_switch_build_in; do
	FUSIONDBG_CANN_CATALOGUE=$D/$cat "$FUSIONDBG" match $M -r rules --fusion-switch "$D/st_fusion_config_manager_custom_config_fusion_switch2.cfg" \
		>/dev/null 2>"$tmp/err" && ! grep -q "catalogue (FUSIONDBG_CANN_CATALOGUE) does not read" "$tmp/err" || bad "$cat as the catalogue: $(cat "$tmp/err")"
done
# with the catalogue: CANN's own passes are a note, a slip gets did-you-mean over them,
# a pass FE never lets a user close is warned about
printf 'MulFusionOptimizeFusionPass:off\nConvBatchnormFusionPas:off\nConstToAttrPass:off\n' >"$tmp/l.cfg"
FUSIONDBG_CANN_CATALOGUE=$D/builtin_fusion_config.json "$FUSIONDBG" match $M -r rules --fusion-switch "$tmp/l.cfg" >/dev/null 2>"$tmp/err"
grep -qxF "$tmp/l.cfg:1:1: note: the switch file names 'MulFusionOptimizeFusionPass', CANN's own pass (in the catalogue $D/builtin_fusion_config.json); no loaded rule is named after it" "$tmp/err" ||
	bad "a catalogue pass: $(cat "$tmp/err")"
grep -qxF "$tmp/l.cfg:2:1: warning: the switch file names 'ConvBatchnormFusionPas', which no loaded rule is (did you mean 'ConvBatchnormFusionPass'?)" "$tmp/err" ||
	bad "did-you-mean over the catalogue: $(cat "$tmp/err")"
grep -qF "$tmp/l.cfg:3:1: warning: 'ConstToAttrPass' cannot be switched off: CANN's FE always runs it" "$tmp/err" ||
	bad "a pass FE forbids closing: $(cat "$tmp/err")"
# the same through ASCEND_OPP_PATH, where an installed CANN keeps it
mkdir -p "$tmp/opp/built-in/fusion_pass/config"
cp "$D/builtin_fusion_config.json" "$tmp/opp/built-in/fusion_pass/config/fusion_config.json"
ASCEND_OPP_PATH=$tmp/opp "$FUSIONDBG" match $M -r rules --fusion-switch "$tmp/l.cfg" 2>&1 >/dev/null |
	grep -q "did you mean 'ConvBatchnormFusionPass'" || bad "the catalogue from ASCEND_OPP_PATH"
exit $fail
