#!/usr/bin/env bash
# test_cann_priorities.sh — rules/cann in CANN's order: every rule's pass
# and priority against FE's built-in fusion_config.json in
# $FUSIONDBG_CANN/fusion_switch (default ../shared/cann; skipped, exit 77,
# without it): graph fusion before UB fusion (graph passes `pass: 0`, the
# second-round ones 1, UB 2), priority 10000 minus CANN's, 2000 for a pass
# CANN gives none (its built-in default 8000), a pass's section the file's;
# and --fusion-switch turning rules/cann's rules off by CANN's names, in
# the line form and the JSON form, a pass FE does not let a user close
# warned about and kept on.
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR FUSIONDBG_CANN_CATALOGUE ASCEND_OPP_PATH
CANN=${FUSIONDBG_CANN:-../shared/cann}
CONFIG=$CANN/fusion_switch/builtin_fusion_config.json
[ -f "$CONFIG" ] || { echo "skipped: no $CONFIG (FUSIONDBG_CANN)"; exit $SKIPPED; }
make_tmp

"$PYTHON" - "$CONFIG" rules/cann <<'PY' || bad "a rules/cann priority or pass is not CANN's"
import glob, json, os, sys, yaml
config = json.load(open(sys.argv[1]))["Priority"]
builtin = {}   # pass -> (section, CANN priority)
for section in ("GraphFusion", "UBFusion"):
    for level in config[section].values():
        for name, p in level.items():
            builtin[name] = (section, int(p))
# second-round graph passes (SECOND_ROUND_BUILT_IN_GRAPH_PASS, PASSES.md)
second_round = {"TransposedUpdateFusionPass"}
# a pass the config names under another name (PASSES.md: the records and the
# ResNet-50 dump run it before TbeEltwiseFusionPass, at that name's priority)
priority_of = {"TbeCommonRules0FusionPass": "TbeConvCommonRules0FusionPass"}
ok, n = True, 0
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.yaml"))):
    ub = os.path.basename(path).startswith("ub_")
    for doc in yaml.safe_load_all(open(path)):
        if not doc or "name" not in doc:
            continue
        n += 1
        name, prio, pas = doc["name"], doc.get("priority"), doc.get("pass", 0)
        section, cann = builtin.get(name, builtin.get(priority_of.get(name), (None, None)))
        want_pass = 2 if ub else 1 if name in second_round else 0
        if pas != want_pass:
            print("%s: pass %s, CANN runs it as pass %d" % (name, pas, want_pass)); ok = False
        if section and section != ("UBFusion" if ub else "GraphFusion"):
            print("%s: in %s, CANN's file has it in %s" % (path, name, section)); ok = False
        if cann is not None:
            want = 10000 - cann
        else:   # no built-in priority: the default; AutomaticUbFusion after the pattern UB passes
            want = 1000 if name == "AutomaticUbFusion" else 2000
        if prio != want:
            print("%s: priority %s, want %d (CANN %s)" % (name, prio, want, cann)); ok = False
print("ok: %d rules in CANN's order" % n)
sys.exit(0 if ok and n > 20 else 1)
PY

# --fusion-switch by CANN's names: the line form and the JSON form
M=tests/data/cann/yolov5s_like.onnx
printf 'ConvToFullyConnectionFusionPass:off\nTbeConvSigmoidMulQuantFusionPass:off\nZSplitVFusionPass:off\n' >"$tmp/switch.cfg"
cat >"$tmp/switch.json" <<'JSON'
{"Switch": {"GraphFusion": {"ConvConcatFusionPass": "off", "ZSplitVDFusionPass": "off"},
            "UBFusion": {"TbeEltwiseFusionPass": "off"}}}
JSON
check_switch() {   # FILE "rules off" "rules kept on with a warning"
	"$FUSIONDBG" match $M -r rules/cann --fusion-switch "$1" >"$tmp/out" 2>"$tmp/err"
	local r
	for r in $2; do
		grep -qE "^  $r +[0-9]+ +0 +0 +0  \(disabled\)" "$tmp/out" || bad "$(basename "$1"): $r not switched off"
	done
	for r in $3; do
		grep -qF "'$r' cannot be switched off" "$tmp/err" || bad "$(basename "$1"): no warning for $r"
		grep -qE "^  $r +[0-9]+ +[1-9]" "$tmp/out" || bad "$(basename "$1"): $r did not stay on"
	done
	echo "ok: $(basename "$1"): off: $2; kept on: $3"
}
check_switch "$tmp/switch.cfg" "ConvToFullyConnectionFusionPass TbeConvSigmoidMulQuantFusionPass" "ZSplitVFusionPass"
check_switch "$tmp/switch.json" "ConvConcatFusionPass TbeEltwiseFusionPass" "ZSplitVDFusionPass"
exit $fail
