#!/usr/bin/env bash
# test_fuzz_replay.sh — every committed fuzz crasher (tests/fuzz/crashers/H/)
# and every seed-corpus file (tests/fuzz/corpus/H/) is fed to harness H once
# more, without libFuzzer: $BUILD/fuzz-replay/H is tests/fuzz/H.c linked with
# tests/fuzz/replay.c (built by `make check`). Under `make check-asan` the
# harnesses carry ASan + UBSan, so a regression shows as a sanitizer report;
# in a plain build it shows as a crash or a hang (timeout).
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
secs=120; [ -n "${FUSIONDBG_WRAPPER:-}" ] && secs=1800
read -r -a wrap <<<"${FUSIONDBG_WRAPPER:-}"
for h in fuzz_onnx fuzz_rules fuzz_pipeline fuzz_edit fuzz_where fuzz_lang fuzz_ge fuzz_cann_record fuzz_cann_switch \
	fuzz_suggest fuzz_transpose fuzz_switch_write fuzz_compare fuzz_export fuzz_apply fuzz_recovery fuzz_mmap fuzz_memo; do
	bin=$BUILD/fuzz-replay/$h
	if [ ! -x "$bin" ]; then echo "FAIL: $bin is not built (make BUILD=$BUILD check builds it)"; fail=1; continue; fi
	n=0
	for dir in tests/fuzz/crashers/$h tests/fuzz/corpus/$h; do
		[ -d "$dir" ] || continue
		files=$(find "$dir" -type f | wc -l)
		[ "$files" -gt 0 ] || continue
		n=$((n + files))
		if timeout "$secs" ${wrap[@]+"${wrap[@]}"} "$bin" "$dir" >"$BUILD/test-logs/replay-$h.log" 2>&1; then :; else
			rc=$?
			echo "FAIL: $h on $dir: exit $rc; the last input and the report:"
			grep '^replay: ' "$BUILD/test-logs/replay-$h.log" | tail -n 1
			grep -v '^replay: ' "$BUILD/test-logs/replay-$h.log" | head -n 20 | sed 's/^/  | /'
			fail=1
		fi
	done
	echo "ok   $h: $n inputs replayed"
done
[ $fail = 0 ] && echo "test_fuzz_replay: all good"
exit $fail
