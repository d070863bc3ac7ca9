#!/usr/bin/env bash
# test_layers.sh — the layer order is enforced: tests/tools/check_layers.py
# passes on the tree, and fails, naming the file and line, on copies of the
# tree where one include breaks each rule (a lower layer including a higher
# one, the two folders of one layer including each other, curses in src/, a
# third-party header outside its folder, ui including cli).
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
CHECK="$PYTHON tests/tools/check_layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$CHECK . || bad "the tree breaks the layer order (above)"

# each planted include must be caught, with its file and line
plant() {   # FILE LINE-TO-ADD EXPECTED-TEXT
	local file=$1 line=$2 want=$3 copy=$tmp/tree
	rm -rf "$copy" && mkdir -p "$copy" && cp -r src ui cli "$copy"/
	printf '%s\n' "$line" >>"$copy/$file"
	local n
	n=$(wc -l <"$copy/$file")
	out=$($CHECK "$copy") && bad "check_layers accepted '$line' in $file"
	grep -qF "$file:$n: " <<<"$out" || bad "'$line' in $file: no file:line in: $out"
	grep -qF "$want" <<<"$out" || bad "'$line' in $file: wanted '$want' in: $out"
}
plant src/base/arena.c '#include "match/match.h"' "src/base may not include src/match, a layer above it"
plant src/rules/yaml_value.c '#include "onnx/onnx.h"' "src/rules and src/onnx are one layer"
plant src/onnx/onnx_load.c '#include "rules/rules.h"' "src/onnx and src/rules are one layer"
plant src/match/match.c '#include <curses.h>' "curses belongs to ui only"
plant src/match/match.c '#include <yaml.h>' "libyaml belongs to src/rules only"
plant src/session/session.c '#include <gvc.h>' "Graphviz belongs to src/export only"
plant src/export/export.c '#include "onnx.pb-c.h"' "protobuf-c belongs to src/onnx only"
plant ui/display.c '#include "../cli/cli.h"' "ui may not include cli"
[ "$fail" -eq 0 ] && echo "test_layers: the order holds and every planted break is caught"
exit $fail
