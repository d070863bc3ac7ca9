#!/usr/bin/env bash
# test_compare_cann.sh — compare --with every real fusion_result.json in
# $FUSIONDBG_CANN/fusion_result (default ../shared/cann; skipped, exit 77,
# without it): each layout CANN's writers used reads to the graphs it holds
# (ids, identical copies folded), the file of another program is one error
# at its line and column, --graph picks one graph, and the text says what
# the JSON says, pass by pass. The layouts on small records of our own:
# test_compare.sh.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR FUSIONDBG_CANN_CATALOGUE
CANN=${FUSIONDBG_CANN:-../shared/cann}
D=$CANN/fusion_result
[ -d "$D" ] || { echo "skipped: no $D (FUSIONDBG_CANN)"; exit $SKIPPED; }
make_tmp
M=samples/conv_add_silu.onnx

# the graphs each file holds: id, and how many times it was written (copies)
expect_graphs() {   # FILE "id:copies ..."
	local f=$D/$1 got rc
	"$FUSIONDBG" compare $M -r rules --with "$f" --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || { bad "$1: exit $rc: $(cat "$tmp/err")"; return; }
	[ -s "$tmp/err" ] && bad "$1: said on stderr: $(cat "$tmp/err")"
	got=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%d" % (g["id"], g["copies"]) for g in d["graphs"]))' "$tmp/out.json")
	[ "$got" = "$2" ] || bad "$1: graphs '$got', want '$2'"
	# the text says each pass the JSON lists with the same counts and verdict
	"$FUSIONDBG" compare $M -r rules --with "$f" >"$tmp/out.txt" 2>/dev/null
	"$PYTHON" - "$tmp/out.json" "$tmp/out.txt" <<'PY' || bad "$1: the text and the JSON disagree"
import json, re, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
def c(x): return "-" if x["match_times"] < 0 else "%d / %d" % (x["match_times"], x["effect_times"])
word = {"same": "same", "differs": "differs", "no_rule": "no rule"}
for p in d["passes"]:
    if p["kind"] == "unlisted":
        assert re.search(r"does not list .*: .*\b%s\b" % re.escape(p["name"]), text), p["name"]
        continue
    row = r"\n  %s +%s +%s  %s" % (re.escape(p["name"]), re.escape(c(p["compiler"])), re.escape(c(p["fusiondbg"])), word[p["kind"]])
    assert re.search(row, text), (p, row)
    if p["declined"]:
        assert "declined %d of %d" % (p["declined"], p["compiler"]["match_times"]) in text, p
n = sum(g["differences"] for g in d["graphs"])
assert n == d["differences"] and ("%d differ" % n) in text.splitlines()[0], (n, text.splitlines()[0])
PY
	echo "ok: $1: $got"
}
expect_graphs keyed__BlueDarkUP__AIRS-RM-2025.json "0_0:1"
expect_graphs keyed_duplicate-keys__1801ZDL__doge-code.json "0_0:2 1_1:2 2_0:2 2_1:2"
expect_graphs list__huazhan2003__ball_real_time_detection.json "0_0:1"
expect_graphs list_concatenated__hongru-yu__LLaMA-Factory-Ascend.json "0_0:4"
expect_graphs object__zhaowanpeng__acnn-test-project.json "0_0:1"
expect_graphs object_concatenated__Ascend__ModelZoo-TensorFlow.json "0_1:1 0_11:1"
expect_graphs object_graphId__niuiic__face_recognition.json "0_0:1"
expect_graphs object_graphId_concatenated__Ascend__modelzoo.json "0_11:1 0_31:1"
# every file of the folder is one of the above or the one that is not CANN's
for f in "$D"/*.json; do
	grep -q "$(basename "$f")" "$0" || bad "$(basename "$f") is not tested here"
done

# another program's JSON of the same name: one error, at its line and column
f=$D/not_cann__jiangziya2019-cyber__etf-monitor.json
"$FUSIONDBG" compare $M -r rules --with "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$f:1:1: error: not a CANN fusion_result.json: an object with \"backtest_date\" (2:" "$tmp/err" ||
	bad "not_cann: exit $rc, $(cat "$tmp/err")"

# what the records say, read right: string counts, ub_fusion's repository hits, the
# passes declined (matched, not fused), a graph picked out of four
f=$D/keyed__BlueDarkUP__AIRS-RM-2025.json
"$FUSIONDBG" compare $M -r rules --with "$f" --format json | "$PYTHON" -c '
import json, sys
p = {x["name"]: x for x in json.load(sys.stdin)["passes"]}
assert p["ConstToAttrPass"]["compiler"] == {"match_times": 5, "effect_times": 3} and p["ConstToAttrPass"]["declined"] == 2
assert p["TbeConvSigmoidMulQuantFusionPass"]["section"] == "ub_fusion" and p["TbeConvSigmoidMulQuantFusionPass"]["compiler"]["repository_hit_times"] == 0
assert p["AConv2dMulFusion"]["kind"] == "no_rule"' || bad "keyed: the counts"
f=$D/keyed_duplicate-keys__1801ZDL__doge-code.json
out=$("$FUSIONDBG" compare $M -r rules --with "$f" --graph 2_1)
grep -q "graph 2_1 of 0_0, 1_1, 2_0, 2_1: 2 passes listed" <<<"$out" && grep -Eq "AutomaticUbFusion +2 / 2 +- +no rule \(ub_fusion\)" <<<"$out" &&
	! grep -q "^graph 2_0" <<<"$out" || bad "--graph 2_1: $out"
out=$("$FUSIONDBG" compare $M -r rules --with "$f")
grep -q ": 4 graphs (0_0, 1_1, 2_0, 2_1), each compared (--graph S_G picks one)" <<<"$out" &&
	grep -q "written 2 times, the same counts each time" <<<"$out" || bad "four graphs: $(head -3 <<<"$out")"
exit $fail
