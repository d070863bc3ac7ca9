#!/usr/bin/python3
"""suggest_roundtrip.py FUSIONDBG MODEL RULES [--top N] [--dir DIR] — the round
trip of `fusiondbg suggest`: no node in two patterns' instances, no pattern
with more heavy ops than max_heavy; for each of the top N patterns, --write
it, check it with `check --strict`, add it to RULES beside the rules of the
patterns ranked above it, run `match`, and compare the node sets the new
rule fires on with the pattern's instances, and mem's bytes of those
fusions with the bytes suggest gives. Prints one line per pattern and
exits 1 on the first difference."""
import argparse, json, os, subprocess, sys

NOT_FUSIBLE = {"If", "Loop", "Scan", "Constant", "Shape", "Size", "NonZero"}
# the compute ops a pattern holds at most max_heavy of (suggest_kernel.c's table, the common ones)
HEAVY = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MatMul", "MatMulInteger", "QLinearMatMul", "Gemm",
         "Einsum", "LSTM", "GRU", "RNN", "Attention"}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fusiondbg")
    ap.add_argument("model")
    ap.add_argument("rules")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--dir", default="/tmp")
    a = ap.parse_args()
    rc, out, err = run([a.fusiondbg, "suggest", a.model, "-r", a.rules, "--top", str(a.top), "--format", "json"])
    if rc:
        print(f"FAIL: suggest exit {rc}: {err.strip()}")
        return 1
    sg = json.loads(out)
    base = os.path.join(a.dir, os.path.basename(a.model))
    rc, out, err = run([a.fusiondbg, "match", a.model, "-r", a.rules, "--format", "json"])
    fused = {n for f in json.loads(out)["fusions"] for n in f["nodes"]}
    for p in sg["patterns"]:
        if len(p["op_types"]) > sg["max_ops"] or len(p["op_types"]) < 2:
            print(f"FAIL: pattern {p['rank']} has {len(p['op_types'])} ops (max_ops {sg['max_ops']})")
            return 1
        for inst in p["instances"]:
            if fused & set(inst):
                print(f"FAIL: pattern {p['rank']}: {sorted(fused & set(inst))} are fused by the rules already")
                return 1
        if set(p["op_types"]) & NOT_FUSIBLE:
            print(f"FAIL: pattern {p['rank']} crosses {set(p['op_types']) & NOT_FUSIBLE}")
            return 1
        heavy = sum(t in HEAVY for t in p["op_types"])
        if heavy > sg["max_heavy"]:
            print(f"FAIL: pattern {p['rank']} {p['title']} has {heavy} heavy ops (max_heavy {sg['max_heavy']})")
            return 1
    seen = {}
    for p in sg["patterns"]:
        for inst in p["instances"]:
            for n in inst:
                if n in seen:
                    print(f"FAIL: node {n} is in pattern {seen[n]} and pattern {p['rank']}")
                    return 1
                seen[n] = p["rank"]
    above = []
    for p in sg["patterns"]:
        path = f"{base}.{p['rank']}.yaml"
        rc, _, err = run([a.fusiondbg, "suggest", a.model, "-r", a.rules, "--top", str(a.top), "--write",
                          str(p["rank"]), "-o", path])
        if rc:
            print(f"FAIL: --write {p['rank']}: {err.strip()}")
            return 1
        with open(path) as f:
            if f.read() != p["rule_yaml"]:
                print(f"FAIL: --write {p['rank']} wrote another rule than the JSON shows")
                return 1
        rc, out, err = run([a.fusiondbg, "check", "--strict", a.rules, path])
        if rc:
            print(f"FAIL: pattern {p['rank']} ({p['rule']}): check --strict: {(out + err).strip()[:2000]}")
            return 1
        rc, out, err = run([a.fusiondbg, "match", a.model, "-r", a.rules] + [x for q in above for x in ("-r", q)] +
                           ["-r", path, "--format", "json"])
        above.append(path)
        if rc:
            print(f"FAIL: match with pattern {p['rank']}: {err.strip()}")
            return 1
        mine = [f for f in json.loads(out)["fusions"] if f["rule"] == p["rule"]]
        got = sorted(sorted(f["nodes"]) for f in mine)
        sizes = [f["memory"].get("intermediate_bytes_removed", f["memory"].get("intermediates_bytes")) for f in mine]
        removed = sum(sizes) if all(isinstance(x, int) for x in sizes) else None
        if p["bytes_saved"] is not None and removed is not None and removed != p["bytes_saved"]:
            print(f"FAIL: pattern {p['rank']}: suggest says {p['bytes_saved']} B saved, mem of its fusions {removed}")
            return 1
        want = sorted(sorted(i) for i in p["instances"])
        if got != want:
            extra = [g for g in got if g not in want][:3]
            missing = [w for w in want if w not in got][:3]
            print(f"FAIL: pattern {p['rank']} {p['title']}: the rule fires on {len(got)} node sets, "
                  f"suggest has {len(want)}; extra {extra} missing {missing}")
            return 1
        print(f"ok {p['rank']}: {p['title']} x{p['count']} ({p['bytes_saved_text']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
