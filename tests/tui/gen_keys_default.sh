#!/bin/sh
# gen_keys_default.sh — writes ui/keys_default.c from ui/keys.default (the
# compiled-in default keys as a C string). Run from the repository root after
# editing ui/keys.default; tests/cli/test_tui.sh fails while the two differ.
set -e
out=ui/keys_default.c
{
	echo '/* keys_default.c — ui/keys.default as a C string, written by'
	echo ' * tests/tui/gen_keys_default.sh; tests/cli/test_tui.sh fails when the two'
	echo ' * differ. */'
	echo '#include "keymap.h"'
	echo ''
	echo 'const char keys_default_text[] ='
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' ui/keys.default | sed '$ s/$/;/'
} > "$out.tmp"
mv "$out.tmp" "$out"
