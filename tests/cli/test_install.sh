#!/usr/bin/env bash
# test_install.sh — `make install` / `make uninstall` with DESTDIR and PREFIX:
# the binary, both man pages and the shipped rules land where they should and
# leave nothing behind; --version, -V and every command's --help answer; a
# build for another PREFIX finds its installed rules when no -r is given and
# GRAPH_AUTOFUSION_RULES_DIR is unset, and says so (match, JSON, TUI status bar).
set -u
. "$(dirname "$0")/../lib.sh"
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
version=$(sed -n 's/^VERSION *:= *//p' Makefile)

# DESTDIR: the layout, then uninstall removes it all
make -s --no-print-directory BUILD="$BUILD" DESTDIR="$tmp/d" install >"$tmp/log" 2>&1 || { cat "$tmp/log"; bad "make install"; }
for f in bin/fusiondbg share/man/man1/fusiondbg.1 share/man/man5/fusiondbg-rules.5; do
	[ -f "$tmp/d/usr/local/$f" ] || bad "make install did not write usr/local/$f"
done
[ -x "$tmp/d/usr/local/bin/fusiondbg" ] || bad "the installed binary is not executable"
for r in rules/*.yaml rules/*/*.yaml; do
	cmp -s "$r" "$tmp/d/usr/local/share/fusiondbg/$r" || bad "installed $r differs or is missing"
done
[ "$("$tmp/d/usr/local/bin/fusiondbg" --version)" = "fusiondbg $version" ] || bad "--version: $("$tmp/d/usr/local/bin/fusiondbg" --version)"
[ "$("$FUSIONDBG" -V)" = "fusiondbg $version" ] || bad "-V"
make -s --no-print-directory BUILD="$BUILD" DESTDIR="$tmp/d" uninstall >"$tmp/log" 2>&1 || bad "make uninstall"
left=$(find "$tmp/d" -type f)
[ -z "$left" ] || bad "make uninstall left: $left"

# every command's --help: usage, the command's summary, its options; exit 0
for c in info verify check match why mem apply export; do
	out=$("$FUSIONDBG" "$c" --help) || bad "$c --help exit $?"
	grep -q "^usage: fusiondbg $c" <<<"$out" || bad "$c --help has no usage line"
	grep -q -- "-h, --help" <<<"$out" || bad "$c --help lists no options"
	[ "$("$FUSIONDBG" help "$c")" = "$out" ] || bad "help $c differs from $c --help"
done
"$FUSIONDBG" match --help | grep -q -- "--trace" || bad "match --help does not list --trace"
"$FUSIONDBG" why --help | grep -q -- "--around" && bad "why --help lists export's --around"

# another PREFIX: its installed rules are the default
p=$tmp/prefix
make -s --no-print-directory -j2 BUILD="$BUILD/install-test" PREFIX="$p" install >"$tmp/log" 2>&1 || { tail -5 "$tmp/log"; bad "make PREFIX=$p install"; }
fd=$p/bin/fusiondbg
if [ -x "$fd" ]; then
	"$fd" match samples/conv_add_silu.onnx >"$tmp/m.txt" 2>"$tmp/m.err" || bad "match without -r: $(cat "$tmp/m.err")"
	grep -qF "rules from $p/share/fusiondbg/rules (installed rules: no -r given)" "$tmp/m.txt" || bad "match does not say it used the installed rules: $(head -2 "$tmp/m.txt")"
	grep -q "3 fusions" "$tmp/m.txt" || bad "match with the installed rules: $(head -3 "$tmp/m.txt")"
	"$fd" match samples/conv_add_silu.onnx --format json | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["rules_from"]["origin"] == "installed rules" and len(d["fusions"]) == 3 else 1)' || bad "match --format json: rules_from"
	printf ':save-display first.screen\nq\n' >"$tmp/keys"
	(cd "$tmp" && env -i PATH="$PATH" HOME="$tmp" TERM=xterm LINES=24 COLUMNS=120 LANG=C.UTF-8 \
		FUSIONDBG_TEST_SCRIPT="$tmp/keys" "$fd" "$OLDPWD/samples/conv_add_silu.onnx" >/dev/null 2>&1) || bad "TUI without -r"
	grep -q "installed rules (7)" "$tmp/first.screen" 2>/dev/null || bad "the status bar does not say the installed rules are used: $(head -1 "$tmp/first.screen" 2>/dev/null)"
	rm -rf "$p/share/fusiondbg"
	"$fd" match samples/conv_add_silu.onnx >/dev/null 2>"$tmp/m.err"; rc=$?
	[ $rc = 2 ] && grep -q "make install" "$tmp/m.err" || bad "without installed rules: exit $rc, $(cat "$tmp/m.err")"
	GRAPH_AUTOFUSION_RULES_DIR=rules "$fd" match samples/conv_add_silu.onnx | grep -qF "rules from rules (GRAPH_AUTOFUSION_RULES_DIR: no -r given)" ||
		bad "match does not name GRAPH_AUTOFUSION_RULES_DIR"
fi
exit $fail
