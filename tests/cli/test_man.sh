#!/usr/bin/env bash
# test_man.sh — both man pages render without a single groff warning (-ww) on
# the default device, UTF-8 and ASCII, and the escapes the DIAGNOSTICS section
# lists ("Names are printed safely") come out as the text a user will see.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v groff >/dev/null || { echo "skipped: no groff"; exit 77; }
for page in man/fusiondbg.1 man/fusiondbg-rules.5; do
	for dev in "" -Tutf8 -Tascii; do
		w=$(groff -man -ww -z $dev "$page" 2>&1)
		[ -z "$w" ] || bad "groff -man -ww -z $dev $page warns: $w"
	done
	if command -v mandoc >/dev/null; then
		w=$(mandoc -T lint -W warning "$page" 2>&1)
		[ -z "$w" ] || bad "mandoc -T lint $page: $w"
	fi
done
text=$(groff -man -Tutf8 -rLL=2000n -rHY=0 man/fusiondbg.1 2>/dev/null | col -b | tr -s ' \n' ' ')
for want in '(\\, \n, \t, \r, \xNN)' 'override as \uNNNN:' '(\u escapes;' 'as the text \xNN)'; do
	grep -qF -- "$want" <<<"$text" || bad "fusiondbg(1) does not render '$want'"
done
exit $fail
