#!/usr/bin/env bash
# test_rules.sh — `fusiondbg verify` and `fusiondbg check` from the outside:
# exit codes 0 / 1 / 2, the exact messages on CANN's example rules as printed, the
# shipped rules/ under --strict. Uses $FUSIONDBG from tests/run-all.
set -u
. "$(dirname "$0")/../lib.sh"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run WANT_RC ARGS... : runs fusiondbg, keeps stdout/stderr in $tmp, checks the code
run() {
	local want=$1; shift
	timeout 10 "$FUSIONDBG" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: fusiondbg $* exited $rc, want $want"
		sed 's/^/    stderr: /' "$tmp/err" | head -20
		sed 's/^/    stdout: /' "$tmp/out" | head -5
		fail=1
		return 1
	fi
	return 0
}

# expect WHICH EXPECTED_TEXT : compares $tmp/WHICH with the text
expect() {
	local which=$1 want=$2
	if [ -z "$want" ]; then
		[ -s "$tmp/$which" ] || return 0
		echo "FAIL: $which is not empty:"; sed 's/^/    /' "$tmp/$which"; fail=1; return 1
	fi
	if ! diff -u <(printf '%s\n' "$want") "$tmp/$which" >"$tmp/diff"; then
		echo "FAIL: $which differs (- expected, + actual):"
		sed 's/^/    /' "$tmp/diff"
		fail=1
	fi
}

# --- the shipped library passes check --strict, alone and with samples/rules
run 0 check --strict rules/ && expect out "rules/: 7 rules in 5 files, 0 errors, 0 warnings" && expect err ""
run 0 verify rules/ && expect err ""
run 0 check --strict rules/ samples/rules/
for f in rules/*.yaml; do run 0 check --strict "$f"; done

# --- CANN's example rules as printed: schema fine, lint says exactly what is wrong
run 0 verify samples/cann_rules/ && expect out "samples/cann_rules/: 7 rules in 7 files, 0 errors, 0 warnings"
run 1 check samples/cann_rules/
expect out "samples/cann_rules/: 7 rules in 7 files, 1 error, 3 warnings"
expect err "samples/cann_rules/attention_qk_softmax_fusion.yaml:8:22: warning: match.ops[0].params.transpose_b: true never holds on an ONNX MatMul node, which has no transpose attribute (exporters write a separate Transpose); only nodes carrying 'transB' (com.microsoft FusedMatMul) can match
samples/cann_rules/conv_bn_relu_fusion.yaml:13:9: error: match.ops[2].params: Relu has no param 'clip_max' (Relu has no params; 'clip_max' is a param of Clip)
samples/cann_rules/attention_scorev_fusion.yaml:6:5: warning: rule 'Attention_ScoreV_Fusion' has the same pattern as rule 'Attention_QKV_Fusion' (samples/cann_rules/attention_qkv_fusion.yaml:2:7): 'Attention_ScoreV_Fusion' can never fire where the other matched
samples/cann_rules/attention_qkv_fusion.yaml:3:11: warning: rules shadowed by priority: 'Attention_QK_Softmax_Fusion', 'Attention_QKV_Fusion' and 'Attention_ScoreV_Fusion' (the first at samples/cann_rules/attention_qk_softmax_fusion.yaml:2:7) all have priority 180 and anchor on MatMul; only their names decide which runs first"
run 1 check --strict samples/cann_rules/ && expect out "samples/cann_rules/: 7 rules in 7 files, 4 errors, 0 warnings"
# each literal rule alone: only Conv_BN_Relu fails without --strict
run 0 check samples/cann_rules/conv_add_silu_fusion.yaml
run 1 check samples/cann_rules/conv_bn_relu_fusion.yaml
run 0 check samples/cann_rules/attention_qk_softmax_fusion.yaml
run 1 check --strict samples/cann_rules/attention_qk_softmax_fusion.yaml

# --- exit codes
B=tests/data/bad_rules
run 2 verify                                           # no rules given
run 2 check --frobnicate rules/                        # unknown option
run 2 verify --strict rules/                           # check's option, not verify's
run 2 verify "$tmp/no-such-file.yaml" && expect err "$tmp/no-such-file.yaml: error: cannot open: No such file or directory"
run 2 verify $B/syntax_error.yaml && expect err "$B/syntax_error.yaml:5:1: error: did not find expected ',' or ']' while parsing a flow sequence started at 4:8"
run 2 check $B/tab_indent.yaml
run 2 check $B/not_utf8.yaml
run 2 check $B/alias_bomb.yaml && expect err "$B/alias_bomb.yaml:7:8: error: alias expands the file beyond 1000000 values (alias bomb?)"
run 2 verify $B/duplicate_key.yaml rules/              # one unreadable file is enough for 2
run 1 verify $B/missing_name.yaml && expect err "$B/missing_name.yaml:1:1: error: rule has no 'name'"
run 1 verify $B/priority_not_int.yaml
run 0 verify $B/unknown_op.yaml                        # an op type is check's business
run 1 check $B/unknown_op.yaml && expect err "$B/unknown_op.yaml:5:13: error: match.ops[0].type: unknown op type 'Conv2dd' (did you mean 'Conv2d'?)"
run 0 check $B/unknown_constraint.yaml                 # a warning ...
grep -q ": warning: constraints\[0\].type: unknown constraint type 'latency_budget'" "$tmp/err" || { echo "FAIL: no warning for latency_budget"; fail=1; }
run 1 check --strict $B/unknown_constraint.yaml        # ... an error under --strict
run 0 verify $B/unknown_key.yaml                       # unknown keys warn
run 1 check --strict $B/unknown_key.yaml
run 1 check $B/duplicate_name/                         # across files
run 1 check $B/empty.yaml
run 1 check $B/divisor_zero.yaml
# equal priorities in different passes, or on Conv1d and Conv2d, never compete
run 0 check --strict tests/data/rules_no_compete/ && expect out "tests/data/rules_no_compete/: 4 rules in 4 files, 0 errors, 0 warnings"
cp tests/data/rules_no_compete/*.yaml "$tmp/" && sed 's/Conv1d/Conv/' tests/data/rules_no_compete/conv1d_relu.yaml >"$tmp/conv1d_relu.yaml"
run 1 check --strict "$tmp/" && grep -q "error: rules shadowed by priority: 'conv2d_relu' and 'conv1d_relu'" "$tmp/err" \
	|| { echo "FAIL: Conv of any rank against Conv2d not told"; sed 's/^/    /' "$tmp/err"; fail=1; }

# --- --verbose notes say what each type resolved to
run 0 check --verbose rules/conv_bn_relu_fusion.yaml
grep -q "note: match.ops\[1\].type: 'BatchNorm' is BatchNorm: matches node types BatchNormalization" "$tmp/err" \
	|| { echo "FAIL: --verbose has no note for BatchNorm"; sed 's/^/    /' "$tmp/err"; fail=1; }

# --- the summary counts a directory's files and an explicit file alike
run 0 check rules/attention.yaml && expect out "rules/attention.yaml: 3 rules in 1 file, 0 errors, 0 warnings"

# --- a typo that would drop behaviour is an error: a misspelt top-level key
# (every constraint gone) with its did-you-mean; a far one stays a warning
sed 's/^constraints:/constriants:/' rules/conv_add_silu_fusion.yaml >"$tmp/constriants.yaml"
run 1 verify "$tmp/constriants.yaml" && expect err "$tmp/constriants.yaml:80:1: error: unknown key 'constriants' in the rule, did you mean 'constraints'? (known: version, name, priority, enabled, scope, description, source, sources, match, rewrite, constraints, output, pass, run_once)"
run 2 match samples/conv_add_silu.onnx -r "$tmp/constriants.yaml"
{ cat rules/conv_add_silu_fusion.yaml; echo "team_notes: fused by hand before"; } >"$tmp/far_key.yaml"
run 0 verify "$tmp/far_key.yaml"
# a misspelt dtype names the dtype meant
sed '82s/"float32"/"flaot32"/' rules/conv_add_silu_fusion.yaml >"$tmp/flaot.yaml"
run 1 verify "$tmp/flaot.yaml" && expect err "$tmp/flaot.yaml:82:33: error: constraints[0].allowed_dtypes[1]: unknown dtype 'flaot32', did you mean 'float32'? (known: float32, float16, bfloat16, float64, int8, uint8, int16, int32, int64, bool, …)"
# channel_dim is an ONNX axis: -3 and -1 of a rank-4 output are dims 1 and 3
run 0 match samples/conv_add_silu.onnx -r rules/conv_add_silu_fusion.yaml && cp "$tmp/out" "$tmp/dim1.out"
sed 's/channel_dim: 1$/channel_dim: -3/' rules/conv_add_silu_fusion.yaml >"$tmp/dim_minus3.yaml"
run 0 check --strict "$tmp/dim_minus3.yaml"
run 0 match samples/conv_add_silu.onnx -r "$tmp/dim_minus3.yaml" && expect out "$(cat "$tmp/dim1.out")"
for d in 3 -1; do   # one file name: the trace names it
	sed "s/channel_dim: 1\$/channel_dim: $d/" rules/conv_add_silu_fusion.yaml >"$tmp/dim.yaml"
	run 0 match samples/conv_add_silu.onnx -r "$tmp/dim.yaml" --trace && cp "$tmp/out" "$tmp/dim$d.out"
done
# the same checks, the same values; only the rule's own words differ
sed -i 's/expected dim -1 divisible/expected dim 3 divisible/' "$tmp/dim-1.out"
cmp -s "$tmp/dim3.out" "$tmp/dim-1.out" || { echo "FAIL: channel_dim -1 does not run as 3"; diff "$tmp/dim3.out" "$tmp/dim-1.out" | head; fail=1; }

# a finding names the constraint by its place in the file, after one the schema refused too
sed -e '82s/"float32"/"flaot32"/' -e 's/channel_dim: 1$/channel_dim: 4/' rules/conv_add_silu_fusion.yaml >"$tmp/index.yaml"
run 1 check "$tmp/index.yaml" && expect err "$tmp/index.yaml:82:33: error: constraints[0].allowed_dtypes[1]: unknown dtype 'flaot32', did you mean 'float32'? (known: float32, float16, bfloat16, float64, int8, uint8, int16, int32, int64, bool, …)
$tmp/index.yaml:92:18: error: constraints[4].channel_dim: 4 can never pass: the match's output has rank 4 (dims 0..3)"
# --- check --against MODEL: what the rules alone cannot show. The article's
# rule (broadcast: true) is clean under --strict, yet never fires on the
# same-shape residual Adds of samples/would_cycle.onnx.
cann=samples/cann_rules/conv_add_silu_fusion.yaml
run 0 check --strict "$cann" && expect err ""
run 1 check --strict "$cann" --against samples/would_cycle.onnx && expect err "$cann:2:7: error: rule 'Conv_Add_SiLU_Fusion' never fires on would_cycle.onnx (2 attempts); the nearest miss: Conv_Add_SiLU_Fusion did not fire on conv1 (Conv): op1 Add param broadcast: expected true, actual false (derived) [FD-NM03] at $cann:17:20
$cann:12:26: note: match.ops[0].params.activation_type: derived, not an ONNX attribute; on would_cycle.onnx it is \"none\" on 2 Conv2d nodes (none holds on 2 of 2)
$cann:17:20: error: match.ops[1].params.broadcast: true never holds on would_cycle.onnx: derived, not an ONNX attribute, it is false on 1 Add node"
# it fires on one block of three: the note says on how many Adds true holds
run 0 check "$cann" --against samples/conv_add_silu.onnx &&
	grep -qF "$cann:17:20: note: match.ops[1].params.broadcast: derived, not an ONNX attribute; on conv_add_silu.onnx it is false on 2 Add nodes, true on 1 (true holds on 1 of 3)" "$tmp/err" ||
	{ echo "FAIL: --against conv_add_silu.onnx: no broadcast note"; cat "$tmp/err"; fail=1; }
# no rule of the shipped library fires on it, and it is not a bad input
run 0 check rules/conv_bn_relu_fusion.yaml --against samples/would_cycle.onnx
run 2 check "$cann" --against samples/no_such_model.onnx
# --verbose calls a derived param derived, never "read from ONNX attribute"
run 0 check --verbose "$cann" &&
	grep -qF "$cann:17:9: note: match.ops[1].params.broadcast: derived: true when the inputs' shapes differ; ONNX attribute 'broadcast' only on a node that carries it" "$tmp/err" ||
	{ echo "FAIL: check --verbose: broadcast not called derived"; fail=1; }
grep -q "read from ONNX attribute 'broadcast'" "$tmp/err" && { echo "FAIL: check --verbose: broadcast read from an attribute"; fail=1; }
# a shared model: DistilBERT's masked scores keep the Softmax input alive
# (a Shape reads it), so the attention rule never fires there
if have_models; then
	run 0 check rules/ --against "$MODELS/tiny_distilbert_sst2.onnx" &&
		grep -qF "rules/attention.yaml:65:7: warning: rule 'Attention_QK_Softmax_Fusion' never fires on tiny_distilbert_sst2.onnx (16 attempts); the nearest miss: Attention_QK_Softmax_Fusion did not fire on MatMul_47 (MatMul): subgraph intermediates" "$tmp/err" ||
		{ echo "FAIL: --against tiny_distilbert_sst2.onnx: no nearest miss for Attention_QK_Softmax_Fusion"; cat "$tmp/err"; fail=1; }
fi

# --- check --seed-only: every key and value form beyond the article's format
run 0 check --seed-only samples/cann_rules/conv_add_silu_fusion.yaml && expect err ""
run 1 check --seed-only rules/conv_add_silu_fusion.yaml && expect err "rules/conv_add_silu_fusion.yaml:39:24: error: match.ops[1].input_sources.input1.source_type: source_type 'any'; the article writes const_or_param"
cat >"$tmp/beyond.yaml" <<'YAML'
version: "1.0"
name: "Beyond"
priority: 100
pass: 2
match:
  ops:
    - type: "Conv2d"
      where: "groups == 1"
    - type: [Relu, Sigmoid]
  branches:
    - ops:
        - type: "Conv2d"
        - {type: "Add", optional: true}
        - type: "Relu"
rewrite:
  target_op: "X"
constraints:
  - type: "memory_limit"
    max_intermediate_size: 33554432
    max_output_size: 16MiB
output:
  kernel_name: "x"
YAML
run 0 check "$tmp/beyond.yaml" && expect err ""
run 1 check --seed-only "$tmp/beyond.yaml" && expect err "$tmp/beyond.yaml:4:1: error: pass: key beyond the article's format: fusiondbg reads it, CANN's graph-autofusion may not
$tmp/beyond.yaml:8:7: error: match.ops[0].where: key beyond the article's format: fusiondbg reads it, CANN's graph-autofusion may not
$tmp/beyond.yaml:9:13: error: match.ops[1].type: op alternatives (type: [A, B]); the article writes one type
$tmp/beyond.yaml:13:25: error: match.branches[0].ops[1].optional: key beyond the article's format: fusiondbg reads it, CANN's graph-autofusion may not
$tmp/beyond.yaml:20:22: error: constraints[0].max_output_size: a size with a unit ('16MiB'); the article writes bytes (16777216)"

[ "$fail" -eq 0 ] && echo "test_rules.sh: all passed"
exit "$fail"
