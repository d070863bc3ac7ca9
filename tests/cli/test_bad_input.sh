#!/usr/bin/env bash
# test_bad_input.sh — the bad-input matrix: every kind of broken model or rule
# file gets a clear answer in bounded time and memory, never a crash or hang.
# Each case runs under `timeout` and (unless sanitized or under valgrind,
# which need the address space) `ulimit -v`; a failing case must exit 2 and
# print only `FILE: error: …` / `FILE:LINE:COL: error: …` lines on stderr
# (exactly one when the file has one fault), naming the node where there is
# one. The files come from tests/tools/make_bad_onnx.py (tests/data/bad_onnx)
# and tests/tools/make_bad_input.py (tests/data/bad_input); the 100 MB
# rule file and the awkward rules directory are made at test time in $BUILD.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
O=tests/data/bad_onnx
I=tests/data/bad_input
R=tests/data/bad_rules
M=samples/conv_add_silu.onnx
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fdbg-bad.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Limits: seconds per case and the address space (KiB). A sanitizer build or a
# valgrind wrapper reserves terabytes of address space: no ulimit -v there, and
# more time.
secs=10 vmem=1048576
if [ -n "${FUSIONDBG_WRAPPER:-}${FUSIONDBG_SANITIZED:-}" ] || grep -qa __asan_init "$FUSIONDBG" 2>/dev/null; then
	secs=120 vmem=unlimited
fi
RUN=$FUSIONDBG   # under check-valgrind, tests/run-all made it a wrapper script

# run ARGS…: the program under the limits; stdout in $tmp/out, stderr in $tmp/err, status in $rc
run() {
	( ulimit -v "$vmem"; exec timeout -k 2 "$secs" $RUN "$@" ) >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# fails CODE WHAT PATTERN ARGS…: exit CODE, stderr only error lines naming the
# file, at least one matching the extended regex PATTERN
fails() {
	local want=$1 what=$2 pat=$3; shift 3
	run "$@"
	local ok=0
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "  $what: did not finish in ${secs}s"; ok=1
	elif [ "$rc" -gt 128 ]; then echo "  $what: died with signal $((rc - 128))"; ok=1
	elif [ "$rc" != "$want" ]; then echo "  $what: exit $rc, want $want"; ok=1; fi
	# valgrind's own lines (==pid==) are not the program's
	grep -v '^==[0-9]*==' "$tmp/err" >"$tmp/err.own"
	[ -s "$tmp/err.own" ] || { echo "  $what: nothing on stderr"; ok=1; }
	if grep -vqE '^[^ :]+(:[0-9]+:[0-9]+)?: (error|warning|note): ' "$tmp/err.own"; then
		echo "  $what: a stderr line without FILE[:LINE:COL]: error:"; ok=1; fi
	grep -qE "$pat" "$tmp/err.own" || { echo "  $what: no line matches /$pat/"; ok=1; }
	if [ $ok = 0 ]; then echo "ok   $what: $(head -1 "$tmp/err.own" | cut -c1-110)"
	else bad "$what"; sed 's/^/  | /' "$tmp/err" | head -5; fi
}
# one_line: the last case printed exactly one line on stderr
one_line() {
	[ "$(wc -l <"$tmp/err.own")" = 1 ] || { bad "$1: $(wc -l <"$tmp/err.own") lines on stderr, want 1"; sed 's/^/  | /' "$tmp/err" | head -5; }
}
# loads WHAT ARGS…: a valid but odd input: exit 0
loads() {
	local what=$1; shift
	run "$@"
	if [ "$rc" = 0 ]; then echo "ok   $what: loads"; else bad "$what: exit $rc, want 0"; sed 's/^/  | /' "$tmp/err" | head -5; fi
}

# ---- models ----------------------------------------------------------------
m() {   # m FILE PATTERN: info and match both refuse the model with one line
	local f=$1 pat=$2
	fails 2 "info $(basename "$f")" "^$f: error: .*$pat" info "$f"; one_line "$f"
	fails 2 "match $(basename "$f")" "^$f: error: .*$pat" match "$f" -r rules; one_line "$f"
}
m $O/empty.onnx            "empty"
m $O/truncated.onnx        "truncated|not a valid ONNX"
m $O/png_renamed.onnx      "PNG|not a valid ONNX|not an ONNX"
m $O/garbage.onnx          "not a valid ONNX|not an ONNX"
m $I/huge_length_graph.onnx "truncated|larger|not a valid ONNX"    # a length of 4 GiB in 11 bytes
m $I/huge_length_raw.onnx   "truncated|larger|not a valid ONNX"    # an initializer claiming 2 GiB
m $I/huge_count_varint.onnx "truncated|larger|not a valid ONNX"    # a length of 2^64 - 1
m $O/negative_dim.onnx     "'x'.*negative"
m $I/negative_init_dim.onnx "'w'.*negative"
m $I/dim_beyond_int64.onnx "'x'.*negative"                         # dim_value 2^64 - 1 reads as -1
m $O/deep_nesting.onnx     "nested|deep"                            # 70 levels of If
m $I/deep_nesting_200.onnx "nested|deep"
m $O/cycle.onnx            "node '(add_loop|relu_loop)'.*cycle"
m $O/capture_cycle.onnx    "node '[a-z_]+'.*cycle"
m $I/many_nodes_cycle.onnx "node 'n[0-9]+'.*cycle"                  # a 1000-node ring
m $O/duplicate_output.onnx "'y'"
m $I/duplicate_initializer.onnx "initializer 'w' is listed twice"
m $I/duplicate_inputs.onnx "graph input 'x' is listed twice"
m $O/self_consume.onnx     "node 'self'.*own output"
m $I/self_loop_pair.onnx   "node 'a'.*own output"
m $O/dangling_input.onnx   "node 'conv'|'missing'"
m $O/no_graph.onnx         "graph"

# a node protobuf-c refuses (input as a varint), a node nesting 300
# messages deep, an initializer protobuf-c refuses (data_type as bytes) and
# a node and an initializer cut short inside their frames (a short message
# is unpacked before it is checked: the check still says where),
# in a graph big enough that its initializers and nodes are unpacked (the
# nodes checked too) on the loader's second thread (src/onnx/onnx_stream.c), with one
# thread (FUSIONDBG_THREADS=1) and in a small graph: the same one line, no
# hang, no stack overflow
for n in 6000 300; do
	"${PYTHON:-python3}" - "$tmp/badnode$n.onnx" "$tmp/deepnode$n.onnx" "$n" "$tmp/badinit$n.onnx" \
		"$tmp/cutnode$n.onnx" "$tmp/cutinit$n.onnx" >"$tmp/cut_at$n" <<'PY'
import sys, onnx
from onnx import helper, TensorProto
n = int(sys.argv[3])
nodes = [helper.make_node("Add", ["x" if i == 0 else f"t{i-1}", f"b{i}"], [f"t{i}"], name=f"r{i}") for i in range(n)]
inits = [helper.make_tensor(f"b{i}", TensorProto.FLOAT, [1], [0.5]) for i in range(n)]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                      [helper.make_tensor_value_info(f"t{n-1}", TensorProto.FLOAT, [1])], inits)
m = helper.make_model(g)
def ld(field, b):
	out, l = bytes([field << 3 | 2]), len(b)
	while True:
		out += bytes([(l & 0x7f) | (0x80 if l >> 7 else 0)]); l >>= 7
		if not l: return out + b
deep = b""
for _ in range(100):   # node.attribute(5).g(6).node(1): three levels each
	deep = ld(5, ld(6, ld(1, deep)))
rest = m.graph
nodes = [ld(1, x.SerializeToString()) for x in rest.node]
tensors = [ld(5, x.SerializeToString()) for x in rest.initializer]
rest.ClearField("node")
rest.ClearField("initializer")
m.ClearField("graph")
for path, bad in ((sys.argv[1], b"\x08\x01"), (sys.argv[2], deep)):
	body = tensors + nodes[:n * 2 // 3] + [ld(1, bad)] + nodes[n * 2 // 3:]
	open(path, "wb").write(m.SerializeToString() + ld(7, b"".join(body) + rest.SerializeToString()))
body = tensors[:n // 2] + [ld(5, b"\x12\x01x")] + tensors[n // 2:] + nodes
open(sys.argv[4], "wb").write(m.SerializeToString() + ld(7, b"".join(body) + rest.SerializeToString()))
cut = b"\x0a\x05QZ"   # a string of 5 bytes with 2 left in its message
for path, body in ((sys.argv[5], tensors + nodes[:n // 3] + [ld(1, cut)] + nodes[n // 3:]),
                   (sys.argv[6], tensors[:n // 3] + [ld(5, cut)] + tensors[n // 3:] + nodes)):
	data = m.SerializeToString() + ld(7, b"".join(body) + rest.SerializeToString())
	open(path, "wb").write(data)
	print(data.find(cut), len(data))
PY
	{ read -r node_at node_size; read -r init_at init_size; } <"$tmp/cut_at$n"
	for threads in 1 4; do
		FUSIONDBG_THREADS=$threads m "$tmp/badnode$n.onnx" "bad node at byte"
		FUSIONDBG_THREADS=$threads m "$tmp/deepnode$n.onnx" "nested too deeply at byte"
		FUSIONDBG_THREADS=$threads m "$tmp/badinit$n.onnx" "bad initializer at byte"
		FUSIONDBG_THREADS=$threads m "$tmp/cutnode$n.onnx" "truncated at byte $node_at of $node_size\)"
		FUSIONDBG_THREADS=$threads m "$tmp/cutinit$n.onnx" "truncated at byte $init_at of $init_size\)"
	done
done

# not a file: a directory, a FIFO nobody writes is the user's choice (like cat);
# a missing file
fails 2 "info on a directory" "^$I: error: " info "$I"; one_line dir
fails 2 "info on a missing file" "^$tmp/none.onnx: error: cannot open" info "$tmp/none.onnx"; one_line missing
fails 2 "info /dev/zero (endless)" "^/dev/zero: error: cannot read: not a regular file" info /dev/zero; one_line zero
fails 2 "verify /dev/zero (endless)" "^/dev/zero: error: " verify /dev/zero; one_line zero
# a 3 GiB model (sparse: no disk used) is over the protobuf limit, refused before reading
truncate -s 3G "$tmp/huge.onnx"
fails 2 "3 GiB model" "^$tmp/huge.onnx: error: .*larger than 2 GiB" info "$tmp/huge.onnx"; one_line huge
rm -f "$tmp/huge.onnx"

# valid but odd: duplicate node names (ONNX allows them), a zero dim
loads "duplicate node names" info $I/duplicate_node_names.onnx
loads "zero dim" info $I/zero_dim.onnx
run mem --format json $I/zero_dim.onnx -r rules
"${PYTHON:-python3}" -c '
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
sys.exit(0 if m["unknown_tensors"] == 0 and m["peak_before_bytes"] == 0 else print(m) or 1)' "$tmp/out" \
	&& echo "ok   zero dim: 0 bytes, known" || bad "zero dim: mem JSON"
# overflowing dims: 2^40 x 2^40 x 2^40 floats. Byte sizes never wrap: no
# negative number anywhere, and the tensors are flagged (unknown size).
for f in overflow_dims overflow_initializer; do
	loads "$f" info $I/$f.onnx
	for cmd in "mem --format json" "match --format json" "info --format json"; do
		run $cmd $I/$f.onnx -r rules
		[ "$cmd" = "info --format json" ] && run info --format json $I/$f.onnx
		[ "$rc" = 0 ] || bad "$f: $cmd exit $rc"
		if grep -qE '"[a-z_]*bytes[a-z_]*": -|: -[0-9]{6,}' "$tmp/out"; then bad "$f: $cmd prints a negative size"; grep -E ': -[0-9]' "$tmp/out" | head -3; fi
	done
	run mem --format json $I/$f.onnx -r rules
	"${PYTHON:-python3}" -c '
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
sys.exit(0 if m["unknown_tensors"] >= 1 and m["peak_before_bytes"] is None else print(m) or 1)' "$tmp/out" \
		&& echo "ok   $f: no size wraps, $(grep -o '"unknown_tensors": [0-9]*' "$tmp/out") flagged" || bad "$f: mem does not flag the size"
	run mem $I/$f.onnx -r rules
	grep -q "unknown size" "$tmp/out" || bad "$f: mem text does not say the size is unknown"
done

# ---- rule files ---------------------------------------------------------------
r() {   # r FILE PATTERN: match with these rules refuses them
	local f=$1 pat=$2
	fails 2 "rules $(basename "$f")" "^$f:[0-9]+:[0-9]+: error: .*$pat" match $M -r "$f"
}
r $R/alias_bomb.yaml         "alias"; one_line alias_bomb
r $I/alias_bomb_small.yaml   "alias"; one_line alias_bomb_small
r $R/tab_indent.yaml         "tab"; one_line tab_indent
r $I/tabs.yaml               "tab"; one_line tabs
r $R/priority_not_int.yaml   "priority: expected an integer"; one_line priority_not_int
r $I/wrong_types.yaml        "priority: expected an integer, got a list"
grep -q "match.ops: expected a list" "$tmp/err" || bad "wrong_types: no line for match.ops"
r $R/not_utf8.yaml           "UTF-8"; one_line not_utf8
r $I/rules_not_utf8.yaml     "UTF-8"; one_line rules_not_utf8
r $R/syntax_error.yaml       "."; one_line syntax_error
r $R/truncated.yaml          "."
fails 2 "verify not_utf8" "^$R/not_utf8.yaml:[0-9]+:[0-9]+: error: .*UTF-8" verify $R/not_utf8.yaml
fails 2 "verify alias_bomb" "^$R/alias_bomb.yaml:[0-9]+:[0-9]+: error: .*alias" verify $R/alias_bomb.yaml
# nesting: 100000 flow brackets, and 200 levels of block maps (the limit is 64)
"${PYTHON:-python3}" -c 'print("name: deep\npriority: 1\nmatch: " + "[" * 100000 + "]" * 100000)' >"$tmp/deep_flow.yaml"
"${PYTHON:-python3}" -c '
print("name: deep\npriority: 1\nmatch:\n" + "".join("  " * (i + 1) + "k%d:\n" % i for i in range(200)))' >"$tmp/deep_block.yaml"
fails 2 "YAML 100000 brackets deep" "^$tmp/deep_flow.yaml:[0-9]+:[0-9]+: error: .*nested" verify "$tmp/deep_flow.yaml"; one_line deep_flow
fails 2 "YAML 200 maps deep" "^$tmp/deep_block.yaml:[0-9]+:[0-9]+: error: .*nested deeper than 64" verify "$tmp/deep_block.yaml"; one_line deep_block
# unknown keys are a warning (forward compatible, as CANN graph-autofusion has it), an error under check --strict
run match $M -r $I/unknown_keys.yaml
[ "$rc" = 0 ] && grep -qE "^$I/unknown_keys.yaml:9:1: warning: unknown key 'colour'" "$tmp/err" \
	&& echo "ok   unknown keys: exit 0, warning at 9:1" || { bad "unknown keys: exit $rc"; cat "$tmp/err"; }
fails 1 "check --strict unknown keys" "^$I/unknown_keys.yaml:9:1: error: unknown key 'colour'" check --strict $I/unknown_keys.yaml

# a 100 MB rule file (made here, never committed, never kept: it takes a
# second or two to write): fails fast, memory bounded
big=$tmp/big_rules.yaml
rm -rf "$BUILD/test-data"   # where an older version of this test kept it
"${PYTHON:-python3}" - "$big" <<'EOF'
import sys
rule = open("rules/conv_bn_relu_fusion.yaml").read()
with open(sys.argv[1], "w") as f:
    n, k = 0, 0
    while n < 100 * 1000 * 1000:
        doc = "---\n" + rule.replace("Conv_BN_Relu_Fusion", "Rule_%07d" % k)
        f.write(doc)
        n += len(doc)
        k += 1
EOF
for cmd in verify match; do
	args=("$big"); [ $cmd = match ] && args=($M -r "$big")
	/usr/bin/time -v -o "$tmp/time" bash -c "ulimit -v $vmem; exec timeout $secs $RUN $cmd ${args[*]}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
	wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$tmp/time")
	if [ "$rc" != 2 ]; then bad "100 MB rule file ($cmd): exit $rc, want 2"; head -3 "$tmp/err"
	elif ! grep -qE "^$big: error: " "$tmp/err"; then bad "100 MB rule file ($cmd): $(head -1 "$tmp/err")"
	elif [ -z "${FUSIONDBG_WRAPPER:-}${FUSIONDBG_SANITIZED:-}" ] && [ "${rss:-0}" -gt 400000 ]; then
		bad "100 MB rule file ($cmd): max RSS ${rss} KiB, over 400 MiB"
	else echo "ok   100 MB rule file ($cmd): exit 2 in $wall, max RSS ${rss} KiB: $(head -1 "$tmp/err" | cut -c1-80)"; fi
done

# a rules directory with entries that cannot be read: a FIFO nobody writes (an
# open would block forever), a dangling symlink, a directory named x.yaml (skipped)
d=$tmp/rules_dir
mkdir -p "$d/x.yaml"
cp rules/conv_bn_relu_fusion.yaml "$d/"
mkfifo "$d/fifo.yaml"
ln -s "$tmp/nowhere.yaml" "$d/dangling.yaml"
for cmd in verify check match; do
	args=("$d"); [ $cmd = match ] && args=($M -r "$d")
	fails 2 "rules dir ($cmd)" "^$d/fifo.yaml: error: .*not a regular file" $cmd "${args[@]}"
	grep -q "^$d/dangling.yaml: error: cannot open" "$tmp/err" || bad "rules dir ($cmd): no line for the dangling symlink"
	grep -q "x.yaml" "$tmp/err" && bad "rules dir ($cmd): the directory x.yaml was read"
done

# ---- the committed crashers, through the CLI too ------------------------------
for f in tests/fuzz/crashers/fuzz_onnx/* tests/fuzz/crashers/fuzz_pipeline/*; do
	[ -e "$f" ] || continue
	run match --trace "$f" -r rules
	if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then bad "crasher $f: exit $rc"; head -3 "$tmp/err"; fi
done
for f in tests/fuzz/crashers/fuzz_rules/*; do
	[ -e "$f" ] || continue
	run check --strict --verbose "$f"
	if [ "$rc" -gt 2 ]; then bad "crasher $f: exit $rc"; head -3 "$tmp/err"; fi
done

[ $fail = 0 ] && echo "test_bad_input: all good"
exit $fail
