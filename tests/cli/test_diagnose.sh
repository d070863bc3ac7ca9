#!/usr/bin/env bash
# test_diagnose.sh — `fusiondbg diagnose RULES [MODEL]`, one case per check:
#  dtype (a rule without dtype_match warns; against a float64 model the
#  constraint's rejection and the tensor), memory (the script's 64 MiB check
#  without a model; with one, the limit value that lets the rejected fusion
#  fire, exactly), peak (the 512 MiB advice, --peak-warn), the JIT kernel
#  cache (missing, empty, fresh, with stale files, a file instead of a
#  directory), numerical (the device commands); exit 1 when a check warns,
#  0 when none does, 2 on bad usage; --format json; and a real model.
set -u
. "$(dirname "$0")/../lib.sh"
export TZ=UTC LC_ALL=C.UTF-8
unset GRAPH_AUTOFUSION_ENABLE GRAPH_AUTOFUSION_RULES GRAPH_AUTOFUSION_RULES_DIR
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

# a fresh cache: two files, written now
mkdir -p "$tmp/fresh/k1"
printf 'kernel' >"$tmp/fresh/a.o"
printf 'kernel2' >"$tmp/fresh/k1/b.o"
# a stale one: three files, two of them 10 days old
mkdir -p "$tmp/stale/sub"
printf '0123456789' >"$tmp/stale/a.o"
printf 'x' >"$tmp/stale/sub/b.o"
printf 'y' >"$tmp/stale/c.o"
touch -d '10 days ago' "$tmp/stale/a.o" "$tmp/stale/sub/b.o"
mkdir -p "$tmp/empty"

# json RULES [MODEL] OPTIONS... -> $tmp/out.json, the exit code in $rc
json() { "$FUSIONDBG" diagnose "$@" --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?; }
# py EXPR: a python assertion over d = the JSON (rows in d["checks"])
py() {
	"$PYTHON" - "$tmp/out.json" "$1" <<'EOF' || { bad "$2"; cat "$tmp/out.json" | head -30; }
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["checks"]
def row(check, rule=None, field=None):
    for r in rows:
        if r["check"] == check and (rule is None or r["rule"] == rule) and (field is None or r.get("field") == field):
            return r
    raise AssertionError("no %s row for %s %s" % (check, rule, field))
assert eval(sys.argv[2]), sys.argv[2]
EOF
}

# 1. the shipped rules alone with a fresh cache: nothing warns, exit 0
json rules --cache-dir "$tmp/fresh"
[ "$rc" = 0 ] || bad "rules + fresh cache: exit $rc, want 0 ($(cat "$tmp/err"))"
py 'row("cache")["status"] == "ok" and row("cache")["files"] == 2 and row("cache")["bytes"] == 13 and row("cache")["stale_files"] == 0' "fresh cache: 2 files, 13 bytes, none stale"
py 'all(row("dtype", r)["status"] == "ok" for r in ("Conv_Add_SiLU_Fusion", "Conv_BN_Relu_Fusion"))' "shipped rules: dtype ok"
py 'row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["limit_bytes"] == 33554432' "memory: the limit as written"
py 'len(row("numerical")["commands"]) == 3 and "verify_numerical.py" in row("numerical")["commands"][2] and "--rtol 0.01" in row("numerical")["commands"][2]' "numerical: the device commands"
py 'd["warnings"] == 0' "no warnings"

# 2. the cache: stale files, missing, empty, not a directory
json rules --cache-dir "$tmp/stale"
[ "$rc" = 1 ] || bad "stale cache: exit $rc, want 1"
py 'row("cache")["status"] == "warn" and row("cache")["files"] == 3 and row("cache")["stale_files"] == 2 and row("cache")["bytes"] == 12' "stale cache: 3 files, 2 stale, 12 bytes"
out=$("$FUSIONDBG" diagnose rules --cache-dir "$tmp/stale")
grep -q '^\[warn\] cache .*: 3 files, 12 B; 2 older than 7 days (the oldest 10 days)' <<<"$out" || bad "stale cache text: $(grep cache <<<"$out")"
json rules --cache-dir "$tmp/none"
py 'row("cache")["status"] == "warn" and "does not exist" in row("cache")["message"]' "missing cache warns"
json rules --cache-dir "$tmp/empty"
py 'row("cache")["status"] == "warn" and "empty" in row("cache")["message"]' "empty cache warns"
HOME=$tmp/home json rules
py 'row("cache")["path"] == "'"$tmp"'/home/.cann/kernel_cache"' "the default cache is ~/.cann/kernel_cache"
"$FUSIONDBG" diagnose rules --cache-dir "$tmp/fresh/a.o" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] || bad "a file as the cache: exit $rc, want 2"
grep -q "a.o: error: not a directory" "$tmp/err" || bad "a file as the cache: $(cat "$tmp/err")"
# a cache whose only kernel lies 70 directories down is not "empty": the
# walk says it stopped at its depth limit and what it did not read
deep=$tmp/deep; for _ in $(seq 70); do deep=$deep/d; done
mkdir -p "$deep" && echo k >"$deep/k.o"
out=$("$FUSIONDBG" diagnose rules --cache-dir "$tmp/deep")
want="[warn] cache     $tmp/deep: no file where the walk read; it did not read 1 directory below its depth limit (64 directories down)"
grep -qxF "$want" <<<"$out" || bad "a deep cache: $(grep cache <<<"$out"), want '$want'"
grep -q "is empty" <<<"$out" && bad "a deep cache is called empty"
echo k >"$tmp/deep/d/near.o"
out=$("$FUSIONDBG" diagnose rules --cache-dir "$tmp/deep")
grep -qF "$tmp/deep: 1 file, 2 B, none older than 7 days; the walk did not read 1 directory below its depth limit (64 directories down)" <<<"$out" ||
	bad "a deep cache with a file near the top: $(grep cache <<<"$out")"

# 3. dtype and memory without a model: a rule with neither, a large limit
cat >"$tmp/loose.yaml" <<'EOF'
name: Loose_Fusion
priority: 10
match:
  ops:
    - type: Conv2d
    - type: Relu
rewrite:
  target_op: ConvRelu
constraints:
  - type: memory_limit
    max_intermediate_size: 128MiB
EOF
json "$tmp/loose.yaml" --cache-dir "$tmp/fresh"
[ "$rc" = 1 ] || bad "loose rule: exit $rc, want 1"
py 'row("dtype", "Loose_Fusion")["status"] == "warn" and "no dtype_match" in row("dtype", "Loose_Fusion")["message"]' "no dtype constraint warns"
py 'row("memory", "Loose_Fusion", "max_intermediate_size")["status"] == "warn" and "large" in row("memory", "Loose_Fusion", "max_intermediate_size")["message"]' "a 128 MiB limit is large"
# with a model the same rule reports what its matches carry
json "$tmp/loose.yaml" samples/rounds_conv_bn_relu.onnx --cache-dir "$tmp/fresh"
py '"float32" in row("dtype", "Loose_Fusion")["message"] and row("dtype", "Loose_Fusion")["status"] == "warn"' "no dtype constraint: the model's dtype named"

# 4. against a model: the memory limit's rejection and the value that lets it fire
json rules samples/memory_limit.onnx --cache-dir "$tmp/fresh"
[ "$rc" = 1 ] || bad "memory_limit.onnx: exit $rc, want 1"
py 'row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["status"] == "warn" and row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["needed_bytes"] == 67108864 and row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["rejected"] == 1' "max_intermediate_size: needs 64 MiB"
py 'row("memory", "Conv_Add_SiLU_Fusion", "max_output_size")["needed_bytes"] == 67108864' "max_output_size: needs 64 MiB (y)"
py '"conv1_out" in row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["message"]' "the tensor that needs it is named"
py 'row("dtype", "Conv_Add_SiLU_Fusion")["status"] == "ok" and "float32" in row("dtype", "Conv_Add_SiLU_Fusion")["message"]' "dtype ok on a float32 model"
# the limit it names lets the fusion fire
"$FUSIONDBG" match samples/memory_limit.onnx -r rules --format json \
	--set Conv_Add_SiLU_Fusion.constraints.memory_limit.max_intermediate_size=67108864 \
	--set Conv_Add_SiLU_Fusion.constraints.memory_limit.max_output_size=67108864 >"$tmp/m.json" 2>/dev/null
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["fusions"]) == 1, d["fusions"]' "$tmp/m.json" \
	|| bad "the named limits do not make the fusion fire"
# the same limits admit what they should: the conv_add_silu sample is within them
json rules samples/conv_add_silu.onnx --cache-dir "$tmp/fresh"
py 'row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["status"] == "ok" and row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["rejected"] == 0' "nothing rejected: ok"
# dtype against a float64 model
json rules samples/dtype_mismatch.onnx --cache-dir "$tmp/fresh"
py 'row("dtype", "Conv_Add_SiLU_Fusion")["status"] == "warn" and row("dtype", "Conv_Add_SiLU_Fusion")["rejected"] == 1 and "x is float64" in row("dtype", "Conv_Add_SiLU_Fusion")["message"]' "dtype: float64 rejected, tensor named"

# 5. the kernel peak advice: over --peak-warn, the advice of the estimate
json rules samples/workspace_spill.onnx --cache-dir "$tmp/fresh" --peak-warn 64MiB
py 'row("peak", "Conv_Add_SiLU_Fusion")["status"] == "warn" and "spill_to_l2" in row("peak", "Conv_Add_SiLU_Fusion")["message"]' "peak over 64 MiB: advice"
json rules samples/workspace_spill.onnx --cache-dir "$tmp/fresh"
py 'row("peak", "Conv_Add_SiLU_Fusion")["status"] == "ok"' "peak under 512 MiB: ok"
# raising a limit past the 512 MiB advice says so
json rules samples/memory_limit.onnx --cache-dir "$tmp/fresh" --peak-warn 100MiB
py '"rather" in row("memory", "Conv_Add_SiLU_Fusion", "max_intermediate_size")["message"]' "a limit that admits a kernel over the advice says rather tile"

# 6. usage
"$FUSIONDBG" diagnose >/dev/null 2>&1; [ $? = 2 ] || bad "no RULES: want exit 2"
"$FUSIONDBG" diagnose rules samples/conv_bn_relu.onnx samples/conv_add_silu.onnx >/dev/null 2>&1; [ $? = 2 ] || bad "two models: want exit 2"
"$FUSIONDBG" diagnose "$tmp/no_such.yaml" >/dev/null 2>&1; [ $? = 2 ] || bad "unreadable rules: want exit 2"

# 7. a real model: every rule row, valid JSON
if have_models; then
	json rules "$MODELS/light_resnet50.onnx" --cache-dir "$tmp/fresh"
	py 'row("peak", "Conv_BN_Relu_Fusion")["status"] in ("ok", "warn") and row("dtype", "Conv_BN_Relu_Fusion")["status"] == "ok"' "light_resnet50: rows"
fi
[ "$fail" = 0 ] && echo "diagnose: all checks passed"
finish "$fail"
