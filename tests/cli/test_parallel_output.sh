#!/usr/bin/env bash
# test_parallel_output.sh — the writers of a big run make their text in
# pieces on every core (base/ordered_write.h) and the loader decodes the
# main graph on a second thread; none of it may show in the output. On a
# generated model big enough for many pieces (18,000 nodes, 55,000
# trace events, 4,000 rejections) whose names mix plain ASCII, UTF-8,
# control bytes, bidi overrides, quotes and a forged line: `match` text,
# --trace, --format json and JSON with --trace are byte for byte the same
# with FUSIONDBG_THREADS=1 (everything on one thread), 2 and 4; the JSON
# parses; the text holds no raw control byte.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp

"$PYTHON" - "$tmp/big.onnx" <<'PY' || exit 1
import sys
from onnx import TensorProto, helper, save
C = 4
nodes, inits = [], []
odd = ["plain", "caf\u00e9", "esc\x1b[2J", "rtl\u202eevil", 'q"uote\\', "nl\nerror: forged"]
x = "input"
for i in range(3000):
    tag = odd[i % len(odd)]
    w = f"w{i}"
    inits.append(helper.make_tensor(w, TensorProto.FLOAT, [C, C, 1, 1], [0.5] * (C * C)))
    bn = [f"bn{i}.{p}" for p in ("s", "b", "m", "v")]
    for p in bn:
        inits.append(helper.make_tensor(p, TensorProto.FLOAT, [C], [1.0] * C))
    c, b, r = f"conv{i}/{tag}", f"bn{i}", f"relu{i}"
    nodes.append(helper.make_node("Conv", [x, w], [c + "_out"], name=c, kernel_shape=[1, 1]))
    nodes.append(helper.make_node("BatchNormalization", [c + "_out"] + bn, [b + "_out"], name=b))
    # every third block: a Sigmoid instead of Relu (a rejection), or a second reader (an escape)
    if i % 3 == 1:
        nodes.append(helper.make_node("Sigmoid", [b + "_out"], [r + "_out"], name=r))
    else:
        nodes.append(helper.make_node("Relu", [b + "_out"], [r + "_out"], name=r))
    s, m = f"sig{i}", f"mul{i}"
    nodes.append(helper.make_node("Sigmoid", [r + "_out"], [s + "_out"], name=s))
    nodes.append(helper.make_node("Mul", [r + "_out", s + "_out"], [m + "_out"], name=m))
    add = f"add{i}"
    nodes.append(helper.make_node("Add", [m + "_out", x] if i else [m + "_out", m + "_out"], [add + "_out"], name=add))
    x = add + "_out"
g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, C, 8, 8])],
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, C, 8, 8])], inits)
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY

M=$tmp/big.onnx
run() {   # run NAME THREADS ARGS...: stdout into $tmp/NAME.THREADS
	local name=$1 threads=$2
	shift 2
	FUSIONDBG_THREADS=$threads "$FUSIONDBG" match "$M" -r rules "$@" >"$tmp/$name.$threads" 2>"$tmp/err.$name.$threads"
	local rc=$?
	[ $rc = 0 ] || bad "$name with $threads threads: exit $rc: $(head -c 300 "$tmp/err.$name.$threads")"
}
for threads in 1 2 4; do
	run text "$threads"
	run trace "$threads" --trace
	run json "$threads" --format json
	run jsontrace "$threads" --format json --trace
done
for name in text trace json jsontrace; do
	for threads in 2 4; do
		cmp -s "$tmp/$name.1" "$tmp/$name.$threads" ||
			bad "$name: $threads threads differ from one: $(cmp "$tmp/$name.1" "$tmp/$name.$threads" | head -1)"
	done
done

# the model is big enough for many pieces of each writer
events=$(sed -n 's/^# fusiondbg trace: .* \([0-9]*\) events, \([0-9]*\) attempts$/\1/p' "$tmp/trace.1")
[ "${events:-0}" -gt 40000 ] || bad "the trace has ${events:-no} events, not enough for several pieces"

"$PYTHON" - "$tmp/json.1" "$tmp/jsontrace.1" "$tmp/trace.1" <<'PY' || fail=1
import json, re, sys
ok = True
for path in sys.argv[1:3]:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if len(doc["rejections"]) < 3000:
        print(f"FAIL: {path}: {len(doc['rejections'])} rejections"); ok = False
    if "trace" in doc and len(doc["trace"]["attempts"]) < 4000:
        print(f"FAIL: {path}: {len(doc['trace']['attempts'])} attempts"); ok = False
    names = {n for r in doc["fusions"] for n in r["nodes"]}
    if not any("\u202e" in n for n in names) or not any("\x1b" in n for n in names):
        print(f"FAIL: {path}: the hostile names do not come back from the JSON"); ok = False
text = open(sys.argv[3], "rb").read()
if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", text) or "\u202e".encode() in text:
    print("FAIL: a raw control byte or bidi override in the text trace"); ok = False
text.decode("utf-8")
if b"rtl\\u202eevil" not in text or b"esc\\e[2J" not in text:
    print("FAIL: the text trace does not show the escaped names"); ok = False
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] && echo "match text, --trace, JSON and JSON --trace of $events events: the same on 1, 2 and 4 threads"
exit $fail
