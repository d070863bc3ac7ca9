#!/usr/bin/env bash
# test_samples.sh — samples/ is reproducible and valid:
#  1. re-running samples/make_samples.py writes byte-identical .onnx files,
#     and exactly the set that is committed (no stale, no missing sample);
#  2. every sample passes onnx.checker.check_model(full_check=True) and
#     onnx.shape_inference.infer_shapes(strict_mode=True);
#  3. every sample loads in fusiondbg (`info` exits 0), when it is built.
# Uses $PYTHON (python3 with python3-onnx) and $FUSIONDBG from tests/run-all.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. reproducible
if ! "$PYTHON" samples/make_samples.py "$tmp" >"$tmp/gen.log" 2>&1; then
	echo "make_samples.py failed:"; cat "$tmp/gen.log"; exit 1
fi
(cd "$tmp" && ls *.onnx) >"$tmp/generated.list"
(cd samples && ls *.onnx) >"$tmp/committed.list"
if ! diff -u "$tmp/committed.list" "$tmp/generated.list" >"$tmp/list.diff"; then
	echo "samples/*.onnx differs from what make_samples.py writes (- committed, + generated):"
	sed -n '3,$p' "$tmp/list.diff"
	fail=1
fi
n=0
while read -r f; do
	[ -e "samples/$f" ] || continue
	n=$((n + 1))
	if ! cmp -s "samples/$f" "$tmp/$f"; then
		echo "samples/$f is not byte-identical to a fresh run ($(stat -c %s "samples/$f") vs $(stat -c %s "$tmp/$f") bytes)"
		fail=1
	fi
done <"$tmp/generated.list"
# and a second run gives the same bytes as the first (no time, no randomness)
mkdir "$tmp/again"
"$PYTHON" samples/make_samples.py "$tmp/again" >/dev/null 2>&1
for f in "$tmp"/*.onnx; do
	cmp -s "$f" "$tmp/again/$(basename "$f")" || { echo "two runs differ on $(basename "$f")"; fail=1; }
done
echo "reproducible: $n samples compared"

# 2. valid ONNX, shapes inferable in strict mode, producer as promised
"$PYTHON" - samples/*.onnx <<'PY' || fail=1
import sys, onnx
bad = 0
for path in sys.argv[1:]:
    try:
        m = onnx.load(path)
        onnx.checker.check_model(m, full_check=True)
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
        if m.producer_name != "fusiondbg-samples":
            raise ValueError("producer_name is %r" % m.producer_name)
        unnamed = [n.op_type for n in m.graph.node if not n.name]
        if unnamed:
            raise ValueError("unnamed nodes: %s" % unnamed)
    except Exception as e:
        print("%s: %s" % (path, str(e).splitlines()[0] if str(e) else type(e).__name__))
        bad += 1
print("onnx checker + strict shape inference: %d ok, %d bad" % (len(sys.argv) - 1 - bad, bad))
sys.exit(1 if bad else 0)
PY

# 3. fusiondbg loads each one
if [ -x "$FUSIONDBG" ]; then
	for f in samples/*.onnx; do
		if ! "$FUSIONDBG" info "$f" >"$tmp/info.out" 2>&1; then
			echo "fusiondbg info $f failed: $(head -n 3 "$tmp/info.out")"
			fail=1
		fi
	done
	echo "fusiondbg info: every sample tried"
else
	echo "note: $FUSIONDBG not built, load check skipped"
fi

# total size stays small
total=$(cat samples/*.onnx | wc -c)
if [ "$total" -gt 5000000 ]; then
	echo "samples/*.onnx total $total bytes > 5 MB"; fail=1
fi
echo "total size: $total bytes"
exit $fail
