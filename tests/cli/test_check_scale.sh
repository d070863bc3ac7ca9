#!/usr/bin/env bash
# test_check_scale.sh — check stays linear: 10,000 rule files that share
# one pattern (and one priority) make one finding for the group ("'R00000',
# 'R00001' and 9998 more have the same pattern"), not one per pair (that
# was 50 million warnings, 3.8 GB and an abort), in bounded memory; 2,000
# rules of one priority on one anchor with different patterns make one
# "shadowed by priority" finding. And running out of memory is one line
# naming what was being done, exit 2, never a bare abort.
set -u
. "$(dirname "$0")/../lib.sh"
make_tmp

"$PYTHON" - "$tmp" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(d + "/same"); os.makedirs(d + "/prio")
for i in range(10000):
    with open("%s/same/r%05d.yaml" % (d, i), "w") as f:
        f.write('name: "R%05d"\npriority: 10\nmatch:\n  ops:\n    - type: "Conv2d"\n    - type: "Relu"\n'
                'rewrite:\n  target_op: "X"\n' % i)
for i in range(2000):
    with open("%s/prio/p%04d.yaml" % (d, i), "w") as f:
        f.write('name: "P%04d"\npriority: 7\nmatch:\n  ops:\n    - type: "Conv2d"\n      params:\n        groups: %d\n'
                'rewrite:\n  target_op: "X"\n' % (i, i + 1))
PY
/usr/bin/time -f "%M" -o "$tmp/rss" "$FUSIONDBG" check "$tmp/same" >"$tmp/out" 2>"$tmp/err"
rc=$?
rss=$(tail -1 "$tmp/rss")
[ $rc = 0 ] || bad "check of 10000 files: exit $rc: $(tail -2 "$tmp/err")"
grep -q "10000 rules in 10000 files, 0 errors, 1 warning" "$tmp/out" || bad "check of 10000 files: $(cat "$tmp/out")"
grep -q "rules 'R00000', 'R00001' and 9998 more have the same pattern" "$tmp/err" || bad "the group: $(head -c 300 "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -le 2 ] || bad "check of 10000 files printed $(wc -l <"$tmp/err") lines"
# linear: a few KiB a rule; the pairs took 3.8 GB (ASan and valgrind add their own)
limit=400000
[ -n "${FUSIONDBG_SANITIZED:-}${FUSIONDBG_WRAPPER:-}" ] && limit=2000000
[ "$rss" -lt "$limit" ] || bad "check of 10000 files took $rss KiB"
echo "check of 10000 rule files of one pattern: max RSS $rss KiB"
"$FUSIONDBG" check "$tmp/prio" >"$tmp/out" 2>"$tmp/err"
grep -q "2000 rules in 2000 files, 0 errors, 1 warning" "$tmp/out" || bad "check of 2000 equal priorities: $(cat "$tmp/out")"
grep -q "rules shadowed by priority: 'P0000', 'P0001' and 1998 more (the first at" "$tmp/err" ||
	bad "the priority group: $(head -c 300 "$tmp/err")"

# out of memory: one line naming what was being done, exit 2 (not under a
# sanitizer or valgrind: they reserve more address space than the limit)
[ -n "${FUSIONDBG_SANITIZED:-}${FUSIONDBG_WRAPPER:-}" ] && exit $fail
(ulimit -v 40000; "$FUSIONDBG" check "$tmp/same" >/dev/null 2>"$tmp/oom.err"); rc=$?
if [ $rc != 0 ]; then
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/oom.err")" = 1 ] && grep -q "^fusiondbg: out of memory .* while " "$tmp/oom.err" ||
		bad "out of memory: exit $rc: $(head -3 "$tmp/oom.err")"
fi
exit $fail
