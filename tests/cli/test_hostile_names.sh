#!/usr/bin/env bash
# test_hostile_names.sh — names are made safe wherever they are printed. On
# tests/data/hostile (made by tests/tools/make_hostile_names.py: node,
# tensor, graph, producer and rule names carrying ESC sequences, an LF with a
# forged "error:" line, \x01, DEL, C1 and bidi controls, a trailing
# backslash, \" and invalid UTF-8): info, match (text, --trace, --format
# json), why, mem, apply, export (DOT, SVG, PNG, --fusion-dots), a second
# round over the fused nodes (match, why, apply), compare (with a model and
# with CANN's fusion_result.json), diagnose and
# diagnostics (check, a --set refused) write no raw control byte and only
# valid UTF-8 to stdout and stderr, no line that a name forged; the JSON
# parses, Graphviz's dot accepts the DOT, the SVG parses as XML, the PNG is
# one. Names still reach what they are for: why --node takes the raw name.
# Names of 300 bytes (long_names.onnx) are cut head…tail where a line holds
# them, visibly.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
H=tests/data/hostile
M=$H/hostile_names.onnx
R="-r rules -r $H/hostile_rule.yaml"

# clean NAME: stdout and stderr of the last run hold no raw control byte
# (LF aside), only valid UTF-8, no C1 or bidi control, and no forged line
clean() {
	"$PYTHON" - "$1" "$tmp/out" "$tmp/err" <<'PY' || fail=1
import re, sys
name = sys.argv[1]
ok = True
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print("FAIL %s: %s is not UTF-8: %s" % (name, path, e)); ok = False; continue
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f or ord(c) in range(0x202a, 0x202f)
           or ord(c) in range(0x2066, 0x206a)]
    if bad:
        print("FAIL %s: raw control characters in %s: %r" % (name, path, sorted(set(bad)))); ok = False
    if re.search(r"^error: forged", text, re.M):
        print("FAIL %s: a name forged a line in %s" % (name, path)); ok = False
sys.exit(0 if ok else 1)
PY
}
run() {   # NAME ARGS...: the program, its output in $tmp/out and $tmp/err
	local name=$1; shift
	"$FUSIONDBG" "$@" >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
	clean "$name"
}
json() {   # NAME: the last output parses as JSON
	"$PYTHON" -c "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))" "$tmp/out" || bad "$1: not JSON"
}

run info info $M
grep -qF 'producer\e[1mbold\nerror: forged\' "$tmp/out" || bad "info: the producer is not shown escaped: $(grep producer "$tmp/out")"
run "info json" info $M --format json; json "info json"
run match match $M $R
grep -q 'Conv_Add_SiLU\\e\[31m\\nerror: forged \\x01 tail' "$tmp/out" || bad "match: the rule name is not shown escaped"
run "match --trace" match $M $R --trace
run "match json" match $M $R --format json --trace; json "match json"
"$PYTHON" - "$tmp/out" <<'PY' || bad "match json: the names are not all there"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [n for f in d["fusions"] for n in f["nodes"]]
need = ["add1\nerror: forged line", "mul1\\", "sig\x01moid1\x7f", "add2\\xff\\xfe\\xc3(\u2080\\xed\\xa0\\x80!",
        "sigmoid2\u202eevil\r", "mul2\t\x9b31m"]
missing = [n for n in need if n not in names]
if missing: print("missing in fusions:", missing, names)
sys.exit(1 if missing else 0)
PY
run why why $M $R --rule Conv_Add_SiLU_Fusion --node "$(printf 'add1\nerror: forged line')"
grep -q "did not fire on" "$tmp/out" || bad "why --node with the raw name: $(head -3 "$tmp/out" "$tmp/err")"
run mem mem $M $R
run "mem json" mem $M $R --format json; json "mem json"
run apply apply $M $R -o "$tmp/fused.onnx"
[ "$(cat "$tmp/rc")" = 0 ] || bad "apply: $(cat "$tmp/err")"
run "export dot" export $M $R -o "$tmp/g.dot"
dot -Tsvg "$tmp/g.dot" >"$tmp/dot.svg" 2>"$tmp/dot.err" || bad "dot rejects the DOT: $(head -3 "$tmp/dot.err")"
run "export svg" export $M $R -o "$tmp/g.svg"
"$PYTHON" -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1]); m.parse(sys.argv[2])" "$tmp/g.svg" "$tmp/dot.svg" ||
	bad "the SVG does not parse as XML"
run "export png" export $M $R -o "$tmp/g.png"
head -c 8 "$tmp/g.png" | od -An -c | grep -q "P   N   G" || bad "export png: $(cat "$tmp/err")"
run "export after" export $M $R -o "$tmp/a.svg" --after
"$PYTHON" -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$tmp/a.svg" || bad "the --after SVG does not parse"
mkdir -p "$tmp/dots"
(cd "$tmp/dots" && "$FUSIONDBG" export "$OLDPWD/$M" -r "$OLDPWD/rules" -r "$OLDPWD/$H/hostile_rule.yaml" -o x.dot \
	--fusion-dots >"$tmp/out" 2>"$tmp/err")
clean "export --fusion-dots"
for f in $(find "$tmp/dots" -name '*.dot'); do dot -Tsvg "$f" >/dev/null 2>&1 || bad "dot rejects $f"; done
# names of 300 bytes are cut visibly (head…tail, on UTF-8 boundaries), never silently
run "long names" match $H/long_names.onnx -r rules --trace
grep -q 'nnnn…zzzz' "$tmp/out" || bad "long names: no visible cut in the trace: $(grep -m1 '#5 ' "$tmp/out" | cut -c1-200)"
run "long names why" why $H/long_names.onnx -r rules --rule Conv_BN_Relu_Fusion
grep -q '…' "$tmp/out" || bad "long names: no visible cut in why: $(head -c 300 "$tmp/out")"

# rounds: a second-round rule (hostile name and target_op) over the fused
# nodes, whose names are made of the hostile ones; compare and diagnose
cat >"$tmp/round2.yaml" <<'EOF'
version: "1.0"
name: "Round2\e[31m\nerror: forged"
priority: 10
match:
  ops:
    - type: "ConvAddSiLUFusion"
rewrite:
  target_op: "Wrapped\e[1m\nerror: forged"
EOF
R2="$R -r $tmp/round2.yaml"
run "match rounds" match $M $R2 --trace
grep -q "in 2 rounds" "$tmp/out" || bad "match rounds: not two rounds: $(head -1 "$tmp/out")"
run "match rounds json" match $M $R2 --format json --trace; json "match rounds json"
run "why rounds" why $M $R2 --rule "$(printf 'Round2\e[31m\nerror: forged')" --node "$(printf 'add1\nerror: forged line')"
grep -q "in round 2" "$tmp/out" || bad "why rounds: $(head -c 300 "$tmp/out")"
run "apply rounds" apply $M $R2 -o "$tmp/fused2.onnx"
[ "$(cat "$tmp/rc")" = 0 ] || bad "apply rounds: $(cat "$tmp/err")"
run compare compare $M $R --with $M
grep -q "fusiondbg only 3" "$tmp/out" || bad "compare: $(head -2 "$tmp/out")"
run "compare json" compare $M $R --with $M --format json; json "compare json"
"$PYTHON" - "$tmp/cann.json" <<'PY'
import json, sys
json.dump({"graph_fusion": {"Conv_Add_SiLU\u001b[31m\nerror: forged": {"match_times": "3", "effect_times": "1"}},
           "ub_fusion": {"pass\u202eevil\r": {"match_times": "1", "effect_times": "0"}}}, open(sys.argv[1], "w"))
PY
run "compare cann" compare $M $R --with "$tmp/cann.json"
run "compare cann json" compare $M $R --with "$tmp/cann.json" --format json; json "compare cann json"
run diagnose diagnose rules $M -r $H/hostile_rule.yaml --cache-dir "$tmp/nocache"
run "diagnose json" diagnose rules $M -r $H/hostile_rule.yaml --cache-dir "$tmp/nocache" --format json
json "diagnose json"

# diagnostics: a duplicate rule name, a refused --set naming the rule
run check check $H/hostile_rule.yaml $H/hostile_rule.yaml
grep -q "duplicate rule name 'Conv_Add_SiLU\\\\e\[31m\\\\nerror" "$tmp/err" || bad "check: $(head -2 "$tmp/err")"
run "--set refused" match $M $R --set "$(printf 'Conv_Add_SiLU\e[31m\nerror: forged \x01 tail\\" \xe2\x80\xae end\\.priority=high')"
grep -q "priority: expected an integer" "$tmp/err" || bad "--set: $(cat "$tmp/err")"
# an output path that is a symbolic link leading nowhere (its target a
# hostile name in a missing directory, or a loop): one clean line naming the
# path, where the link points and why, exit 2, nothing written
ln -s "$tmp/no dir/out$(printf '\e[31m').onnx" "$tmp/dangling.onnx"
ln -s "$tmp/loop.onnx" "$tmp/loop.onnx"
run "dangling output" apply $M $R -o "$tmp/dangling.onnx"
[ "$(cat "$tmp/rc")" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -qxF "$tmp/dangling.onnx: error: cannot write: it is a symbolic link to '$tmp/no dir/out\e[31m.onnx', which leads to no file (No such file or directory)" "$tmp/err" &&
	[ ! -e "$tmp/no dir" ] || bad "dangling output: $(cat "$tmp/err")"
run "output link loop" apply $M $R -o "$tmp/loop.onnx"
[ "$(cat "$tmp/rc")" = 2 ] &&
	grep -qxF "$tmp/loop.onnx: error: cannot write: it is a symbolic link to '$tmp/loop.onnx', which leads to no file (a loop of links)" "$tmp/err" ||
	bad "output link loop: $(cat "$tmp/err")"
exit $fail
