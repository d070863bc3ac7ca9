#!/usr/bin/python3
"""peer.py — fusiondbg's rules/onnxruntime against onnxruntime itself.

usage: peer.py --fusiondbg BIN --node-modules DIR --cache DIR --rules DIR MODEL...

For every MODEL: onnxruntime-node (tests/peer/optimize.js) writes the graph
it would run at levels 'basic' and 'extended'; ort_groups.py derives, for
each fused node, the original nodes it replaced (kept in --cache, keyed by
the model's bytes, by ort_cache.py); `fusiondbg match MODEL -r RULES --format json` gives
fusiondbg's fusions. The two are compared as sets of node sets.

A difference passes only when exceptions.py lists it, with its count and its
explanation, and when `fusiondbg why` on each of its groups says what the
exception says is the reason. An exception that matches nothing fails the
test too, except one marked pending (a difference another part of fusiondbg
will close: then it is reported as closed). For each probe onnxruntime
refuses, `fusiondbg why` must name the condition it breaks (refusals.py).
Prints one line per model: onnxruntime groups / fusiondbg groups /
identical / explained.
"""
import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_cache             # noqa: E402
import ort_groups            # noqa: E402
from exceptions import EXCEPTIONS   # noqa: E402
from refusals import REFUSALS       # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NOOP_KINDS = {"cast_elimination", "identity_elimination", "dropout_elimination", "noop_elimination"}


def model_name(path):
    return os.path.basename(path)[:-5] if path.endswith(".onnx") else os.path.basename(path)


def fusiondbg_fusions(binary, model, rules):
    """(rule, nodes) of each fusion that is a node of the final graph: one a
    later round fused again (its nodes inside a bigger fusion's) is a step,
    as onnxruntime's intermediate fused nodes are."""
    p = subprocess.run([binary, "match", model, "-r", rules, "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr.strip():
        sys.exit("peer: fusiondbg match %s exited %d: %s" % (model, p.returncode, p.stderr.strip()))
    run = json.loads(p.stdout)
    absorbed = absorbed_by_transposes(run)
    fusions = [(f["rule"], frozenset(f["nodes"])) for f in run["fusions"]]
    final = [(r, n) for r, n in fusions if not any(n < m for _, m in fusions)]
    res = [(r, n | frozenset(x for m in n for x in absorbed.get(m, ()))) for r, n in final]
    # a node no fusion holds still takes in the pair, as ort_groups.py walks
    # back from it through the removed DQ and Q: a group of its own
    held = {m for _, n in final for m in n}
    res += [("transpose_optimizer", frozenset(nodes) | {node}) for node, nodes in sorted(absorbed.items())
            if node not in held]
    return res


def absorbed_by_transposes(run):
    """{node: nodes its group takes in}: the DQ/Q pairs the transpose
    optimizer removed once the Transpose between them cancelled
    (TryRemoveEmptyDQQ), given to the group of the node that now reads what
    they read, as onnxruntime's groups hold them (ort_groups.py walks back
    through them); a pair absorbed by a node later removed goes on."""
    events = run.get("transpose_optimizer", {}).get("events", [])
    by = {e["node"]: e["absorbed_by"] for e in events if e["kind"] == "empty_qdq"}
    res = defaultdict(set)
    for node, to in by.items():
        seen = set()
        while to in by and to not in seen:
            seen.add(to)
            to = by[to]
        res[to].add(node)
    return res


def op_types(model):
    """node name -> op type, over every graph."""
    res = {}

    def visit(g):
        for name, n in zip(ort_groups.node_names(g), g.node):
            res[name] = n.op_type
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    visit(a.g)
    visit(onnx.load(model, load_external_data=False).graph)
    return res


def pattern(nodes, types):
    return "+".join(sorted(types.get(n, "?") for n in nodes))


def select(groups, want, types):
    """The groups an exception's side selects: by kind, rule and/or pattern."""
    out = []
    for g in groups:
        if "kind" in want and g.get("kind") != want["kind"]:
            continue
        if "rule" in want and g.get("rule") != want["rule"]:
            continue
        if "pattern" in want and pattern(g["nodes"], types) != want["pattern"]:
            continue
        if "nodes" in want and g["nodes"] != frozenset(want["nodes"]):
            continue
        out.append(g)
    return out


def check_why(binary, model, rules, why, group, types):
    """fusiondbg why names the reason the exception gives; returns an error or None."""
    node = why["node"]
    if node.startswith("@"):   # the group's node of that op type
        cands = sorted(n for n in group["nodes"] if types.get(n) == node[1:])
        if not cands:
            return "no %s node in %s" % (node[1:], sorted(group["nodes"]))
        node = cands[0]
    p = subprocess.run([binary, "why", model, "-r", rules, "--rule", why["rule"], "--node", node],
                       capture_output=True, text=True)
    first = p.stdout.split("\n", 1)[0]
    for frag in why["expect"]:
        if frag.replace("{node}", node) not in p.stdout:
            return "why --rule %s --node %s lacks %r; it says: %s" % (why["rule"], node, frag, first)
    return None


def compare(args, model, res, fd, types):
    """res: onnxruntime's groups (ort_cache.groups). Returns (row, failures)."""
    name = model_name(model)
    fails = []
    excs = [e for e in EXCEPTIONS if name in e["models"]]
    if "error" in res:
        known = [e for e in excs if e.get("ort_error") and e["ort_error"] in res["error"]]
        if not known:
            fails.append("%s: onnxruntime refused the model (%s) and no exception says why" % (name, res["error"]))
        return (name, "-", len(fd), "-", "onnxruntime: " + res["error"][:60]), fails
    ort = [{"nodes": frozenset(g["replaced"]), "kind": g["kind"]} for g in res["groups"]]
    # a no-op onnxruntime removed before it fused (a Cast to the type it
    # has) is no member of its group, in a fusiondbg group either: its
    # fused node reads what the no-op read (torch_mistral: each RMSNorm's
    # SimplifiedLayerNormalization reads the first Cast's input, both of
    # HF's Casts in "removed" as cast_elimination), so a rule that states
    # the no-op as an optional op is compared without it
    noops = {r["node"] for r in res["removed"] if r["kind"] in NOOP_KINDS}
    mine = [{"nodes": nodes - noops if nodes - noops else nodes, "rule": rule} for rule, nodes in fd]
    same = {g["nodes"] for g in ort} & {g["nodes"] for g in mine}
    ort_left = [g for g in ort if g["nodes"] not in same]
    fd_left = [g for g in mine if g["nodes"] not in same]
    explained = 0
    for e in excs:
        if e.get("ort_error"):
            continue
        o = select(ort_left, e.get("ort", {}), types) if "ort" in e else []
        f = select(fd_left, e.get("fusiondbg", {}), types) if "fusiondbg" in e else []
        if e.get("pairing") == "superset":   # the fusiondbg groups that hold an onnxruntime group
            f = [g for g in f if any(h["nodes"] < g["nodes"] for h in o)]
        n = e.get("counts", {}).get(name, 0)
        want_o, want_f = (n if "ort" in e else 0), (n if "fusiondbg" in e else 0)
        if isinstance(n, list):   # [onnxruntime, fusiondbg] when the sides differ
            want_o, want_f = n
        if len(o) == 0 and len(f) == 0 and e.get("pending"):
            print("note: %s: closed: %s (%s)" % (name, e["reason"].split(".")[0], e["pending"]))
            continue
        if len(o) != want_o or len(f) != want_f:
            fails.append("%s: exception '%s' expects %d onnxruntime and %d fusiondbg groups, found %d and %d"
                         % (name, e["reason"].split(".")[0], want_o, want_f, len(o), len(f)))
            continue
        if e.get("pairing") == "subset":   # each fusiondbg group is part of one onnxruntime group
            for g in f:
                if sum(1 for h in o if g["nodes"] < h["nodes"]) != 1:
                    fails.append("%s: %s is not part of exactly one onnxruntime group of exception '%s'"
                                 % (name, sorted(g["nodes"]), e["reason"].split(".")[0]))
        if e.get("pairing") == "superset":   # each onnxruntime group is part of one fusiondbg group
            for g in o:
                if sum(1 for h in f if g["nodes"] < h["nodes"]) != 1:
                    fails.append("%s: %s is not part of exactly one fusiondbg group of exception '%s'"
                                 % (name, sorted(g["nodes"]), e["reason"].split(".")[0]))
        if e.get("ort_removed"):
            gone = {r["node"]: r["kind"] for r in res["removed"]}
            for g in f:
                wrong = sorted(x for x in g["nodes"] if gone.get(x) != e["ort_removed"])
                if wrong:
                    fails.append("%s: onnxruntime did not remove %s by %s (exception '%s')"
                                 % (name, wrong, e["ort_removed"], e["reason"].split(".")[0]))
        for side, groups in (("ort", o), ("fusiondbg", f)):
            why = e.get("why_" + side)
            for g in groups if why else []:
                err = check_why(args.fusiondbg, model, args.rules, why, g, types)
                if err:
                    fails.append("%s: %s" % (name, err))
        for g in o:
            ort_left.remove(g)
        for g in f:
            fd_left.remove(g)
        explained += len(o) + len(f)
    for g in ort_left:
        fails.append("%s: onnxruntime fused %s (%s, %s); fusiondbg did not" %
                     (name, sorted(g["nodes"]), g["kind"], pattern(g["nodes"], types)))
    for g in fd_left:
        fails.append("%s: fusiondbg fused %s (%s, %s); onnxruntime did not" %
                     (name, sorted(g["nodes"]), g["rule"], pattern(g["nodes"], types)))
    return (name, len(ort), len(mine), len(same), explained), fails


def check_refusals(binary, rules, models):
    """Each refusal of refusals.py whose probe is among the models: onnxruntime
    made nothing of it, and `fusiondbg why` says the rule did not fire for the
    reason given. Returns (checked, failures)."""
    by_name = {model_name(m): m for m in models}
    checked, fails = 0, []
    for probe, rule, node, expect in REFUSALS:
        m = by_name.get("probe_" + probe)
        if not m:
            continue
        checked += 1
        p = subprocess.run([binary, "why", m, "-r", rules, "--rule", rule, "--node", node],
                           capture_output=True, text=True)
        first = p.stdout.split("\n", 1)[0]
        for frag in expect:
            if frag not in first:
                fails.append("probe_%s: why --rule %s --node %s lacks %r; it says: %s" % (probe, rule, node, frag, first))
    return checked, fails


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fusiondbg", required=True)
    ap.add_argument("--node-modules", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    ort = ort_cache.groups(args.models, args.node_modules, args.cache)
    rows, fails = [], []
    for m in args.models:
        row, f = compare(args, m, ort[m], fusiondbg_fusions(args.fusiondbg, m, args.rules), op_types(m))
        rows.append(row)
        fails += f
    print("%-30s %14s %15s %9s %9s" % ("model", "onnxruntime", "fusiondbg", "identical", "explained"))
    for r in rows:
        print("%-30s %14s %15s %9s %9s" % r)
    tot = [sum(r[i] for r in rows if isinstance(r[i], int)) for i in (1, 2, 3, 4)]
    print("%-30s %14d %15d %9d %9d" % ("total", *tot))
    n, f = check_refusals(args.fusiondbg, args.rules, args.models)
    if n:
        print("refusals: %d probes onnxruntime refuses, each why naming the condition it breaks" % n)
    fails += f
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
