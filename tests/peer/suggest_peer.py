#!/usr/bin/python3
"""suggest_peer.py --fusiondbg BIN --cache DIR --rules RULES [--top N] MODEL... —
`fusiondbg suggest -r RULES` against onnxruntime: the groups onnxruntime's
optimized graph fuses (ort_groups.py's groups, as test_peer.sh keeps them in
DIR by ort_cache.py) that RULES leave unfused must be among the
top N patterns: every node of such a group in an instance of one of them.
A group is left out when a node of it is one suggest never takes (a node the
rules fused, or whose values shape inference knows: shape arithmetic
onnxruntime folds) — said per model. Prints a line per model; exit 1 when
a model lists fewer than --min-share of them (chains are cut greedily at
--max-ops, so a group may straddle two chains)."""
import argparse, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cache   # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusiondbg", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--max-ops", type=int, default=6)
    ap.add_argument("--min-share", type=float, default=1.0,
                    help="the share of those groups each model's top patterns must list")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    bad = 0
    for model in a.models:
        ort = ort_cache.cached(a.cache, model)
        name = os.path.basename(model)
        if not ort or "error" in ort:
            print(f"{name}: no groups of onnxruntime's in {a.cache} (make check-peer makes them)")
            continue
        groups = [g for g in ort["groups"] if len(g["replaced"]) >= 2 and "graph" not in g]
        out = subprocess.run([a.fusiondbg, "match", model, "-r", a.rules, "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        fused = {n for f in json.loads(out)["fusions"] for n in f["nodes"]}
        out = subprocess.run([a.fusiondbg, "suggest", model, "-r", a.rules, "--top", str(a.top), "--max-ops", str(a.max_ops), "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        sg = json.loads(out)
        listed = {n for p in sg["patterns"] for i in p["instances"] for n in i}
        missing = [g for g in groups if not fused & set(g["replaced"])]
        found, lost = [], []
        for g in missing:
            (found if set(g["replaced"]) <= listed else lost).append(g)
        print(f"{name}: onnxruntime fuses {len(groups)} groups, {len(missing)} the rules do not; "
              f"in the top {a.top}: {len(found)}" + (f"; not: {len(lost)}" if lost else ""))
        for g in lost[:5]:
            print(f"    not listed: {g['kind']} {g['replaced']}")
        if missing and len(found) < a.min_share * len(missing):
            print(f"FAIL: {name}: {len(found)} of {len(missing)} listed, under {a.min_share:.0%}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
