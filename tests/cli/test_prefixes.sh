#!/usr/bin/env bash
# test_prefixes.sh — every external name of the core library carries its
# module's prefix (tests/tools/check_prefixes.py), and the check catches one
# that does not: an unprefixed function planted in a copy of the library.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
lib=$BUILD/libfusiondbg.a
out=$("$PYTHON" tests/tools/check_prefixes.py "$lib") || bad "$out"
printf 'int plant_me(void) { return 1; }\n' >"$tmp/planted.c"
cc -c -o "$tmp/text.o" "$tmp/planted.c"
cp "$lib" "$tmp/lib.a"
ar r "$tmp/lib.a" "$tmp/text.o" 2>/dev/null
got=$("$PYTHON" tests/tools/check_prefixes.py "$tmp/lib.a")
case $got in
*"src/base/text.c: plant_me"*) ;;
*) bad "a planted unprefixed name was not caught: $got" ;;
esac
[ $fail -eq 0 ] && echo "test_prefixes: every external name carries its module's prefix; a planted one is caught"
exit $fail
