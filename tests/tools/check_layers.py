#!/usr/bin/env python3
"""check_layers.py [ROOT] — the layer order of the code, checked from its
#include lines. The layers, lowest first (README, "Layout"):

  src/base  src/ir  src/shape  src/onnx | src/ge | src/rules  src/trace  src/match  src/ruleset
  src/rounds | src/transpose | src/cse  src/explain  src/estimate  src/suggest  src/session  src/export  ui  cli

A file may include headers of its own folder and of the folders below it;
folders of one layer (onnx, ge and rules; rounds, transpose and cse) include neither each other; src/ never
includes curses; each third-party library is included only in its one folder.
Prints one line per violation (file:line: what) and exits 1 when there is one."""
import os, re, sys

ORDER = [["base"], ["ir"], ["shape"], ["onnx", "ge", "rules"], ["trace"], ["match"], ["ruleset"], ["rounds", "transpose", "cse"], ["explain"],
         ["estimate"], ["suggest"], ["session"], ["export"]]
RANK = {f"src/{d}": i for i, layer in enumerate(ORDER) for d in layer}
RANK["ui"] = len(ORDER)
RANK["cli"] = len(ORDER) + 1
# third-party headers and the one folder each may appear in
OWNERS = [
    (re.compile(r"^(n?curses|ncursesw/)"), ("ui",), "curses"),
    (re.compile(r"^yaml\.h$"), ("src/rules",), "libyaml"),
    (re.compile(r"^(protobuf-c/|onnx\.pb-c\.h$)"), ("src/onnx",), "protobuf-c"),
    (re.compile(r"^(graphviz/|gvc\.h$|cgraph\.h$)"), ("src/export",), "Graphviz"),
    (re.compile(r"^cmocka\.h$"), (), "cmocka"),
]
GENERATED = {"config.h", "onnx.pb-c.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def folder_of(path):
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "src" else parts[0]


def check(root):
    problems = []
    for top in ("src", "ui", "cli"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                here = folder_of(rel)
                if here not in RANK:
                    problems.append(f"{rel}: folder {here} is not in the layer order")
                    continue
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m:
                            problems += check_include(root, rel, no, here, m.group(1), m.group(2))
    return problems


def resolve(root, rel, target):
    """The included file, relative to root: beside the includer, else under src/."""
    for base in (os.path.dirname(rel), "src"):
        cand = os.path.normpath(os.path.join(base, target))
        if os.path.exists(os.path.join(root, cand)):
            return cand
    return None


def check_include(root, rel, no, here, kind, target):
    where = f"{rel}:{no}"
    for pattern, owners, lib in OWNERS:
        if pattern.search(target):
            if here not in owners:
                only = " and ".join(owners) if owners else "the tests"
                return [f"{where}: includes <{target}>: {lib} belongs to {only} only"]
            return []
    if kind == "<" or target in GENERATED:
        return []
    found = resolve(root, rel, target)
    if found is None:
        return [f"{where}: includes \"{target}\": no such file in the tree"]
    there = folder_of(found)
    if there not in RANK:
        return [f"{where}: includes \"{target}\": {there} is not in the layer order"]
    if RANK[there] > RANK[here]:
        return [f"{where}: includes \"{target}\": {here} may not include {there}, a layer above it"]
    if RANK[there] == RANK[here] and there != here:
        return [f"{where}: includes \"{target}\": {here} and {there} are one layer and include neither each other"]
    return []


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layer order")
        return 1
    print("check_layers: every include respects the layer order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
