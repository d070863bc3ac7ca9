#!/usr/bin/env bash
# test_search_budget.sh — the match search is bounded, on the adversarial
# rules of tests/data/search (tests/tools/make_search_models.py):
#  1. the memo: 1 + 18 and 1 + 24 optional Relus and a Sigmoid on an 80-node
#     Relu chain, and a chain of 24 Adds on a lattice of 24 levels of two
#     Adds, give the answers the whole search gave (the rejections below),
#     with a trace of tens of thousands of events, not 2^18 paths per anchor;
#  2. the budget: a Conv and 18 Relus that each read it (from_op: 0) on a
#     Conv read by 17 Relus ends with FD-NM19 after 65536 steps, and `why`
#     says so, naming the rule, the anchor and where it stopped;
#  3. the run's shared steps: 32 such anchors, FUSIONDBG_SEARCH_STEPS=3072:
#     24 attempts take 3072 steps, then the shared 49152 are spent and the
#     last 8 have their own 1024, and the trace is bounded by that;
#  4. FUSIONDBG_SEARCH_STEPS that is not a number from 1 to 2^31 - 1 is the default.
# Timings are make bench's (tests/bench/run); nothing here is timed.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset FUSIONDBG_SEARCH_STEPS
make_tmp
D=tests/data/search

events() { sed -n 's/^# fusiondbg trace: .* \([0-9]*\) events, .*/\1/p' "$1" | head -1; }
# run NAME MODEL RULES MAX_EVENTS REJECTION...: match --trace; each rejection
# line is in the output; the trace has fewer than MAX_EVENTS events
run() {
	local name=$1 model=$2 rules=$3 max=$4 n
	shift 4
	"$FUSIONDBG" match "$model" -r "$rules" --trace >"$tmp/$name" 2>"$tmp/$name.err" || { bad "$name: exit $?: $(cat "$tmp/$name.err")"; return; }
	for want in "$@"; do
		grep -qF -- "$want" "$tmp/$name" || bad "$name: no line '$want'"
	done
	n=$(events "$tmp/$name")
	if [ -z "$n" ] || [ "$n" -ge "$max" ]; then bad "$name: $n events, want fewer than $max"; else echo "ok: $name: $n events"; fi
}

# 1. the memo
run optional_18 $D/chain.onnx $D/optional_18.yaml 100000 \
	"Optional_18 FD-NM01 x61: Optional_18 did not fire on relu0 (Relu): op19 Sigmoid type: expected Sigmoid, actual Relu [FD-NM01]" \
	"Optional_18 FD-NM04 x19: Optional_18 did not fire on relu61 (Relu): op19 Sigmoid candidates: expected a node reading op18's output, actual none [FD-NM04]"
run optional_24 $D/chain.onnx $D/optional_24.yaml 150000 \
	"Optional_24 FD-NM01 x55: Optional_24 did not fire on relu0 (Relu): op25 Sigmoid type: expected Sigmoid, actual Relu [FD-NM01]" \
	"Optional_24 FD-NM04 x25: Optional_24 did not fire on relu55 (Relu): op25 Sigmoid candidates: expected a node reading op24's output, actual none [FD-NM04]"
run lattice_24 $D/lattice.onnx $D/lattice_24.yaml 20000 \
	"Lattice_24 FD-NM04 x46: Lattice_24 did not fire on add_a1 (Add): op23 Add candidates: expected a node reading op22's output, actual none [FD-NM04]" \
	"Lattice_24 FD-NM05 x2: Lattice_24 did not fire on add_a0 (Add): subgraph intermediates: expected used only inside the match, actual a0 also read by add_b1 (Add) [FD-NM05]"
grep -q "FD-NM19" "$tmp/optional_18" "$tmp/optional_24" "$tmp/lattice_24" && bad "the memo's cases ran out of steps"

# 2. the budget of one attempt
run fan_out tests/data/lang/fan_out.onnx $D/fan_out_from_op.yaml 200000 \
	"Fan_Out_From_Op FD-NM19 x1: Fan_Out_From_Op did not fire on conv1 (Conv): search: expected a verdict within the search budget, actual search budget exhausted: the attempt tried 65536 steps — an attempt may try 65536 candidates and optional ops left out; stopped at op"
out=$("$FUSIONDBG" why tests/data/lang/fan_out.onnx -r $D/fan_out_from_op.yaml --rule Fan_Out_From_Op --node conv1 2>&1 | head -1)
case "$out" in
"why: Fan_Out_From_Op did not fire on conv1 (Conv): search: expected a verdict within the search budget, actual search budget exhausted: the attempt tried 65536 steps — "*"[FD-NM19] at $D/fan_out_from_op.yaml:8:5") echo "ok: $out" ;;
*) bad "why fan_out: $out" ;;
esac

# 3. the run's shared steps
FUSIONDBG_SEARCH_STEPS=3072 run fans $D/fans.onnx $D/fans_from_op.yaml $((3 * (24 * 3072 + 8 * 1024) + 1000)) \
	"Fans_From_Op FD-NM19 x32: Fans_From_Op did not fire on sigmoid0 (Sigmoid): search: expected a verdict within the search budget, actual search budget exhausted: the attempt tried 3072 steps"
n_full=$(grep -c '^  > .*tried 3072 steps \[FD-NM19\] — an attempt may try 3072 candidates' "$tmp/fans")
n_own=$(grep -c "^  > .*tried 1024 steps \[FD-NM19\] — the run's shared steps were spent by earlier attempts" "$tmp/fans")
[ "$n_full" = 24 ] && [ "$n_own" = 8 ] || bad "fans: $n_full attempts of 3072 steps and $n_own of 1024, want 24 and 8"
out=$(FUSIONDBG_SEARCH_STEPS=3072 "$FUSIONDBG" why $D/fans.onnx -r $D/fans_from_op.yaml --rule Fans_From_Op --node sigmoid31 2>&1 | head -1)
case "$out" in
*"did not fire on sigmoid31 (Sigmoid): search: expected a verdict within the search budget, actual search budget exhausted: the attempt tried 1024 steps — the run's shared steps were spent by earlier attempts, and an attempt then has only its own; stopped at op"*"[FD-NM19]"*) echo "ok: $out" ;;
*) bad "why fans sigmoid31: $out" ;;
esac

# 4. not a number: the default
for v in 0 -5 abc 99999999999 2147483648 " 12"; do
	FUSIONDBG_SEARCH_STEPS=$v "$FUSIONDBG" match tests/data/lang/fan_out.onnx -r $D/fan_out_from_op.yaml >"$tmp/env" 2>&1
	grep -q "the attempt tried 65536 steps" "$tmp/env" || bad "FUSIONDBG_SEARCH_STEPS='$v' is not the default: $(grep FD-NM19 "$tmp/env")"
done
FUSIONDBG_SEARCH_STEPS=2147483647 "$FUSIONDBG" match tests/data/search/chain.onnx -r $D/optional_18.yaml >/dev/null || bad "FUSIONDBG_SEARCH_STEPS=2147483647"
exit $fail
