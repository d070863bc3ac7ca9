#!/usr/bin/env bash
# test_input_files.sh — every file the program reads goes through one reader
# (base/input_file.c): a FIFO, a device, a directory is refused by name, a
# file over its limit is refused with the limit named, before anything is
# read. Covers MODEL, --passes FILE and compare --with FILE; each case runs
# under timeout and ulimit -v so a hang or an endless read fails the test.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp
M=samples/conv_add_silu.onnx
M2=samples/rounds_residual.onnx
R2=samples/rounds/three_rounds.yaml
vmem=1048576
if [ -n "${FUSIONDBG_WRAPPER:-}${FUSIONDBG_SANITIZED:-}" ] || grep -qa __asan_init "$FUSIONDBG" 2>/dev/null; then
	vmem=unlimited
fi
mkfifo "$tmp/fifo"
truncate -s 17M "$tmp/passes17m.txt"       # sparse: no disk used
truncate -s 3G "$tmp/with3g.json"

# refused WHAT WANT ARGS…: exit 2 in bounded time and memory, stderr exactly the line WANT
refused() {
	local what=$1 want=$2; shift 2
	( ulimit -v "$vmem"; exec timeout -k 2 20 "$FUSIONDBG" "$@" ) >/dev/null 2>"$tmp/err"; local rc=$?
	if [ $rc != 2 ]; then bad "$what: exit $rc, want 2: $(head -3 "$tmp/err")"
	elif [ "$(cat "$tmp/err")" != "$want" ]; then bad "$what: stderr is '$(cat "$tmp/err")', want '$want'"
	else echo "ok   $what: $want"; fi
}

for f in /dev/zero "$tmp/fifo"; do
	kind="a character device"; [ "$f" = "$tmp/fifo" ] && kind="a FIFO"
	refused "--passes $f" "$f: error: cannot read: not a regular file ($kind)" match $M2 -r $R2 --passes "$f"
	refused "compare --with $f" "$f: error: cannot read: not a regular file ($kind)" compare $M -r rules --with "$f"
	refused "info $f" "$f: error: cannot read: not a regular file ($kind)" info "$f"
done
refused "--passes DIR" "$tmp: error: cannot read: it is a directory" match $M2 -r $R2 --passes "$tmp"
refused "compare --with DIR" "$tmp: error: cannot read: it is a directory" compare $M -r rules --with "$tmp"
refused "--passes 17 MiB" \
	"$tmp/passes17m.txt: error: file is 17825792 bytes, larger than 16 MiB (the limit for a pass order file); not read" \
	match $M2 -r $R2 --passes "$tmp/passes17m.txt"
refused "compare --with 3 GiB" \
	"$tmp/with3g.json: error: file is 3221225472 bytes, larger than 2 GiB (the limit for an optimized model or fusion_result.json); not read" \
	compare $M -r rules --with "$tmp/with3g.json"
refused "info 3 GiB" \
	"$tmp/with3g.json: error: file is 3221225472 bytes, larger than 2 GiB (the protobuf limit); not read" \
	info "$tmp/with3g.json"

# a regular file still reads, mapped or not: the pass order file and the model
cp samples/rounds/ge_passes.txt "$tmp/order.txt"
"$FUSIONDBG" match $M2 -r $R2 --passes "$tmp/order.txt" >/dev/null 2>"$tmp/err" || bad "a pass order file: $(cat "$tmp/err")"
"$FUSIONDBG" info $M >/dev/null 2>"$tmp/err" || bad "info MODEL: $(cat "$tmp/err")"

[ $fail = 0 ] && echo "test_input_files: all good"
exit $fail
