#!/usr/bin/env bash
# test_outputs.sh — what -o writes to: a device or a FIFO is never replaced
# by a regular file (written through, or refused, and the message says
# which); "-" is standard output for DOT, SVG, PNG and ONNX (the words go to
# standard error), never a file of that name; export --fusion-dots keeps
# every dot_graph_path inside one directory (.., absolute paths and links
# out of it refused unless --dots-dir names a directory that holds them);
# apply never writes an attribute with an empty name (verify refuses
# rewrite.attributes {"": 1}).
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
M=samples/conv_add_silu.onnx
R="-r rules"
ROOT=$(pwd)
case $FUSIONDBG in /*) ;; *) FUSIONDBG=$ROOT/$FUSIONDBG ;; esac

# a device of our own (as root): /dev/full's numbers, written through, still a device
if [ "$(id -u)" = 0 ] && mknod "$tmp/full" c 1 7 2>/dev/null; then
	"$FUSIONDBG" apply $M $R -o "$tmp/full" >/dev/null 2>"$tmp/err"; rc=$?
	[ -c "$tmp/full" ] || bad "apply -o DEVICE replaced the device: $(ls -l "$tmp/full")"
	[ $rc = 2 ] && grep -q "No space left on device (a device, written through, not replaced)" "$tmp/err" ||
		bad "apply -o a full device: exit $rc: $(cat "$tmp/err")"
	mknod "$tmp/null" c 1 3
	"$FUSIONDBG" export $M $R -o "$tmp/null" --format svg >/dev/null 2>"$tmp/err" || bad "export -o a null device: $(cat "$tmp/err")"
	[ -c "$tmp/null" ] && grep -q "a character device: written through, not replaced" "$tmp/err" ||
		bad "export -o DEVICE: $(ls -l "$tmp/null"): $(cat "$tmp/err")"
else
	echo "note: not root: the device part is skipped"
fi
# a FIFO: nobody reads it, refused; somebody reads it, written through
mkfifo "$tmp/fifo"
timeout 10 "$FUSIONDBG" apply $M $R -o "$tmp/fifo" >/dev/null 2>"$tmp/err"; rc=$?
[ -p "$tmp/fifo" ] && [ $rc = 2 ] && grep -q "a FIFO nobody reads (not replaced)" "$tmp/err" ||
	bad "apply -o a FIFO without a reader: exit $rc: $(cat "$tmp/err")"
cat "$tmp/fifo" >"$tmp/through.onnx" &
reader=$!
sleep 0.2
timeout 10 "$FUSIONDBG" apply $M $R -o "$tmp/fifo" >/dev/null 2>"$tmp/err" || bad "apply -o a read FIFO: $(cat "$tmp/err")"
wait $reader
[ -p "$tmp/fifo" ] || bad "the FIFO was replaced"
"$PYTHON" -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))" "$tmp/through.onnx" ||
	bad "the model written through the FIFO does not check"

# -o -: standard output
"$FUSIONDBG" export $M $R -o - >"$tmp/out.dot" 2>"$tmp/err" || bad "export -o -: $(cat "$tmp/err")"
head -1 "$tmp/out.dot" | grep -q "^digraph" || bad "export -o - is not DOT: $(head -2 "$tmp/out.dot")"
grep -q "wrote standard output" "$tmp/err" || bad "export -o -: the words are not on standard error"
dot -Tsvg "$tmp/out.dot" >/dev/null || bad "export -o -: dot rejects it"
"$FUSIONDBG" export $M $R -o - --format svg 2>/dev/null | "$PYTHON" -c "import sys, xml.dom.minidom as m; m.parseString(sys.stdin.buffer.read())" ||
	bad "export -o - --format svg is not XML"
"$FUSIONDBG" export $M $R -o - --format png 2>/dev/null | head -c 8 | od -An -c | grep -q "P   N   G" || bad "export -o - --format png"
"$FUSIONDBG" apply $M $R -o - 2>"$tmp/err" >"$tmp/out.onnx" || bad "apply -o -: $(cat "$tmp/err")"
"$PYTHON" -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))" "$tmp/out.onnx" || bad "apply -o - is not a model"
grep -q "standard output: 3 fused nodes" "$tmp/err" || bad "apply -o -: $(cat "$tmp/err")"
"$FUSIONDBG" export $M $R -o - --format json >/dev/null 2>&1 && bad "export --format json was taken"
"$FUSIONDBG" infer $M -o - 2>"$tmp/err" >"$tmp/inferred.onnx" || bad "infer -o -: $(cat "$tmp/err")"
"$PYTHON" -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))" "$tmp/inferred.onnx" || bad "infer -o - is not a model"
grep -q "^standard output: [0-9]* value_info entries" "$tmp/err" || bad "infer -o -: the words are not on standard error: $(cat "$tmp/err")"
# and never a file named '-': every writer run in an empty directory
mkdir "$tmp/cwd"
in_empty_dir() {   # ARGS: the program run in $tmp/cwd, its output thrown away; then no file named '-' there
	(cd "$tmp/cwd" && "$FUSIONDBG" "$@" >/dev/null 2>"$tmp/err")
	local rc=$?
	[ -e "$tmp/cwd/-" ] && bad "$* wrote a file named '-'" && rm -f "$tmp/cwd/-"
	return $rc
}
in_empty_dir apply "$ROOT/$M" -r "$ROOT/rules" -o - || bad "apply -o - in a directory: $(cat "$tmp/err")"
for f in dot svg png; do
	in_empty_dir export "$ROOT/$M" -r "$ROOT/rules" -o - --format $f || bad "export -o - --format $f: $(cat "$tmp/err")"
done
in_empty_dir infer "$ROOT/$M" -o - || bad "infer -o - in a directory: $(cat "$tmp/err")"
in_empty_dir export "$ROOT/$M" -r "$ROOT/rules" --memory-chart - && bad "--memory-chart - was taken"
grep -q "the memory chart's name must end in" "$tmp/err" || bad "--memory-chart -: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/cwd")" ] || bad "files left by the writers: $(ls -A "$tmp/cwd")"

# --fusion-dots: every DOT inside one directory
mkdir -p "$tmp/work" "$tmp/elsewhere"
dots() {   # DOT_GRAPH_PATH [EXPORT ARGS]: a copy of the rule asking for DOTs there, exported in $tmp/work
	local p=$1; shift
	sed -e 's/gen_dot_graph: false/gen_dot_graph: true/' -e "s|dot_graph_path: .*|dot_graph_path: \"$p\"|" \
		rules/conv_add_silu_fusion.yaml >"$tmp/work/r.yaml"
	grep -q "gen_dot_graph: true" "$tmp/work/r.yaml" || { echo "no gen_dot_graph in the rule"; return 2; }
	(cd "$tmp/work" && "$FUSIONDBG" export "$ROOT/$M" -r r.yaml -o all.dot --fusion-dots "$@") >"$tmp/dots.out" 2>&1
}
dots "sub/dots" || bad "a relative dot_graph_path: $(cat "$tmp/dots.out")"
ls "$tmp/work/sub/dots/"*.dot >/dev/null 2>&1 || bad "no DOTs under sub/dots: $(cat "$tmp/dots.out")"
dots "../elsewhere" && bad "dot_graph_path ../elsewhere was taken"
grep -q "leaves .*, where the fusion DOTs go" "$tmp/dots.out" || bad "..: $(cat "$tmp/dots.out")"
dots "$tmp/elsewhere" && bad "an absolute dot_graph_path was taken"
grep -q "is outside .*--dots-dir" "$tmp/dots.out" || bad "absolute: $(cat "$tmp/dots.out")"
dots "$tmp/elsewhere/x" --dots-dir "$tmp/elsewhere" || bad "--dots-dir holding the path: $(cat "$tmp/dots.out")"
ls "$tmp/elsewhere/x/"*.dot >/dev/null 2>&1 || bad "no DOTs in --dots-dir: $(cat "$tmp/dots.out")"
ln -s "$tmp/elsewhere" "$tmp/work/link"
dots "link/y" && bad "a link out of the directory was taken"
grep -q "leads out of .* through a symbolic link" "$tmp/dots.out" || bad "link: $(cat "$tmp/dots.out")"
[ -e "$tmp/elsewhere/y" ] && ls "$tmp/elsewhere/y/"*.dot >/dev/null 2>&1 && bad "a DOT went through the link"

# an attribute with an empty name
sed 's/^rewrite:/rewrite:\n  attributes: {"": 1}/' samples/rules/conv_add_allow_outputs.yaml >"$tmp/empty_attr.yaml"
"$FUSIONDBG" verify "$tmp/empty_attr.yaml" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "rewrite.attributes: an attribute needs a name" "$tmp/err" || bad "verify {\"\": 1}: exit $rc: $(cat "$tmp/err")"
exit $fail
