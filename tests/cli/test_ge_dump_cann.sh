#!/usr/bin/env bash
# test_ge_dump_cann.sh — info on the real GE graph dumps in
# $FUSIONDBG_CANN/ge_dumps (default ../shared/cann; skipped, exit 77,
# without it): ge_proto_00026_afterUBMatch.txt is 399 ops in 49 UB groups
# with 53 nodes that absorbed originals, the same in text and JSON, export
# draws the 49 groups as the compiler's clusters, compare --with it
# compares the 49 (rules/cann makes each of them in both afterUBMatch
# dumps), and every dump there reads and compares with itself. The small fixture: test_ge_dump.sh.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
CANN=${FUSIONDBG_CANN:-../shared/cann}
[ -d "$CANN/ge_dumps" ] || { echo "skipped: no $CANN/ge_dumps (FUSIONDBG_CANN)"; exit $SKIPPED; }
make_tmp
D=$CANN/ge_dumps/ge_proto_00026_afterUBMatch.txt

"$FUSIONDBG" info "$D" >"$tmp/info.txt" 2>"$tmp/err" || bad "info: exit $?: $(cat "$tmp/err")"
for want in "^nodes  *399 in the main graph" "^UB fusion groups (the compiler's): 49, 0 failed$" \
            "^nodes with absorbed originals: 53 " "^  scope 1 .* 3 nodes: conv1 conv1_relu pool1$" \
            "^    originals: scale_conv1, conv1, bn_conv1$" \
            "^stage  *afterUBMatch (dump 00026, from the file name)$" \
            "^graph  *partition0_rank1_new_sub_graph1$" "^  Conv2D  *53  Conv$"; do
	grep -q "$want" "$tmp/info.txt" || bad "info text lacks /$want/"
done
"$FUSIONDBG" info "$D" --format json >"$tmp/info.json" 2>"$tmp/err" || bad "info json: exit $?: $(cat "$tmp/err")"
"$PYTHON" - "$tmp/info.json" <<'PY' || bad "info json: not 399 ops, 49 groups, 53 absorbing nodes"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["compiler_record"]
assert d["nodes"] == 399 and sum(d["op_histogram"].values()) == 399, d["nodes"]
assert d["ge_stage"] == "afterUBMatch" and d["unknown_ops"] == [], d["ge_stage"]
assert sum(x["count"] for x in d["ge_op_types"]) == 399
assert c["ub_groups"] == len(c["groups"]) == 49 and c["ub_groups_failed"] == 0, c["ub_groups"]
assert c["nodes_with_originals"] == len(c["absorbing"]) == 53, c["nodes_with_originals"]
assert len({(g["graph"], g["id"]) for g in c["groups"]}) == 49
PY

# export draws each of the 49 groups as the compiler's cluster
"$FUSIONDBG" export "$D" -r rules -o "$tmp/x.dot" >/dev/null 2>"$tmp/err" || bad "export: exit $?: $(cat "$tmp/err")"
n=$(grep -c 'label="compiler: UB fusion scope [0-9]*\\l"' "$tmp/x.dot")
[ "$n" = 49 ] || bad "export: $n compiler clusters, want 49"

# compare with itself: the 49 groups found by name and set against
# rules/cann's fusions, each group compared or counted as not mapped
"$FUSIONDBG" compare "$D" -r rules/cann --with "$D" >"$tmp/cmp.txt" 2>/dev/null
[ $? -le 1 ] || bad "compare 00026 with itself failed"
grep -q "the compiler's record holds 49 UB groups (0 failed to compile) and 53 graph fusions; 49 compared" "$tmp/cmp.txt" ||
	bad "compare 00026: $(head -1 "$tmp/cmp.txt")"

# rules/cann's UB rules make the compiler's 49 groups of the Caffe
# ResNet-50, node set for node set, in both afterUBMatch dumps: 32 Conv +
# Relu and 12 Conv + Eltwise + Relu by the common rules, the 4 Eltwises of
# two Convs by TbeConvDoubleInFusionPass, the stem by
# TbeAippConvReluMaxpoolingFusion
for n in 00026 00046; do
	U=$CANN/ge_dumps/ge_proto_${n}_afterUBMatch.txt
	"$FUSIONDBG" compare "$U" -r rules/cann --with "$U" --format json >"$tmp/ub.json" 2>"$tmp/err"
	[ $? -le 1 ] || { bad "compare $n: $(cat "$tmp/err")"; continue; }
	"$PYTHON" - "$tmp/ub.json" <<'PY' || bad "compare $n: the 49 UB groups are not all the same"
import collections, json, sys
d = json.load(open(sys.argv[1]))
ub = [x for x in d["rows"] if x["compiler"] and x["compiler"]["source"] == "ub"]
assert len(ub) == 49, len(ub)
bad = [x["compiler"]["nodes"] for x in ub if x["kind"] != "same"]
assert not bad, bad
by = collections.Counter(x["fusiondbg"]["rule"] for x in ub)
assert by == {"TbeCommonRules0FusionPass": 44, "TbeConvDoubleInFusionPass": 4,
              "TbeAippConvReluMaxpoolingFusion": 1}, by
stem = [x for x in ub if x["fusiondbg"]["rule"] == "TbeAippConvReluMaxpoolingFusion"][0]
assert sorted(stem["compiler"]["nodes"]) == ["conv1", "conv1_relu", "pool1"], stem
eltwise = [x for x in ub if len(x["compiler"]["nodes"]) == 3 and x is not stem]
assert len(eltwise) == 16, len(eltwise)
PY
done

for f in "$CANN"/ge_dumps/ge_proto_*.txt; do
	"$FUSIONDBG" info "$f" --format json >"$tmp/one.json" 2>"$tmp/err" || { bad "$f: exit $?: $(cat "$tmp/err")"; continue; }
	"$PYTHON" -c 'import json,sys; assert json.load(open(sys.argv[1]))["compiler_record"]' "$tmp/one.json" ||
		bad "$f: no compiler record"
	"$FUSIONDBG" compare "$f" -r rules/cann --with "$f" --format json >"$tmp/cmp.json" 2>"$tmp/err"
	[ $? -le 1 ] || { bad "compare $f: $(cat "$tmp/err")"; continue; }
	"$PYTHON" - "$tmp/one.json" "$tmp/cmp.json" <<'PY' || bad "compare $f: its groups are not the dump's"
import json, sys
info, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
r, rec = d["record"], info["compiler_record"]
assert d["kind"] == "ge_dump" and d["mapping"] == "name", d["kind"]
assert r["ub_groups"] == rec["ub_groups"] and r["graph_fusions"] == rec["nodes_with_originals"], r
assert r["compared"] + sum(d["not_compared"].values()) == r["ub_groups"] + r["graph_fusions"], r
assert sum(d["counts"].values()) == len(d["rows"]), d["counts"]
ub = {tuple(g["nodes"]) for g in rec["groups"] if len(g["nodes"]) > 1}
seen = {tuple(x["compiler"]["nodes"]) for x in d["rows"] if x["compiler"] and x["compiler"]["source"] == "ub"}
assert {tuple(sorted(n)) for n in seen} == {tuple(sorted(n)) for n in ub}, "compared UB groups differ from info's"
for x in d["rows"]:
    if x["kind"] == "same":
        assert sorted(x["compiler"]["nodes"]) == sorted(x["fusiondbg"]["nodes"]), x
    if x["kind"] == "different":
        assert x["only_compiler"] or x["only_fusiondbg"], x
PY
done
exit $fail
