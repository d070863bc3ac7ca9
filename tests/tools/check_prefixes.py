#!/usr/bin/env python3
"""check_prefixes.py LIBRARY — every external name of the core library
carries its module's prefix. Reads the archive with nm; a name defined in
src/FOLDER/FILE.o must start with "fd_" or with one of FOLDER's module
prefixes below (each prefix one module of the folder: a file, or a type its
files share). Prints one line per name that does not (object: name, and
the prefixes it may take) and exits 1 when there is one. A helper used by
one file is static, so it is not an external name at all."""
import subprocess, sys

MODULES = {
    "base":     ["arena", "atomic", "file", "clock", "diag", "diags", "srcpos", "dir", "input", "INPUT",
                 "json", "jdoc", "jval", "nearest", "ordered", "sb", "strmap", "strpool", "text", "txt", "ob",
                 "thread", "units"],
    "ir":       ["compiled", "dim", "sint", "poly", "dexpr", "dimtab", "dtype", "graph", "node", "model", "tensor",
                 "shape", "onnx", "rewrite", "ge_optype", "cann"],
    "shape":    ["shape", "sh", "const"],
    "onnx":     ["onnx"],
    "ge":       ["ge", "pbtxt", "PBTXT"],
    "rules":    ["rules", "schema", "optable", "expr", "yfile", "yval"],
    "trace":    ["trace", "reason", "rung"],
    "match":    ["match", "cond", "canon", "param", "workspace"],
    "ruleset":  ["ruleset", "rule"],
    "rounds":   ["rounds", "fuse"],
    "transpose": ["transpose"],
    "cse":      ["cse"],
    "explain":  ["explain", "compare"],
    "estimate": ["estimate", "est", "hwprofile", "diagnose"],
    "suggest":  ["suggest"],
    "session":  ["session"],
    "export":   ["export"],
}


# The allocation wrappers that end the program through fd_oom when memory
# runs out, named as git names them: the one exception.
NAMED_AS_GIT = {"xmalloc", "xcalloc", "xrealloc", "xstrdup"}


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else "build/libfusiondbg.a"
    out = subprocess.run(["nm", "-A", "-g", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    objects = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCG":
            objects.setdefault(parts[0].rsplit(":", 2)[-2], []).append(parts[2])
    sources = subprocess.run(["git", "ls-files", "src/*/*.c"], capture_output=True, text=True).stdout.split()
    folder_of = {s.split("/")[-1][:-2] + ".o": s.split("/")[1] for s in sources}
    bad = []
    for obj, names in sorted(objects.items()):
        folder = folder_of.get(obj)
        if folder is None:      # generated code (onnx.pb-c.o)
            continue
        prefixes = MODULES.get(folder)
        if prefixes is None:
            bad.append(f"{obj}: folder src/{folder} has no module prefixes in {__file__}")
            continue
        for n in names:
            if n.startswith("__"):   # the compiler's and the sanitizers' (__odr_asan.*)
                continue
            if n in NAMED_AS_GIT or n.startswith("fd_") or any(n.startswith(p + "_") for p in prefixes):
                continue
            bad.append(f"src/{folder}/{obj[:-2]}.c: {n} (src/{folder} takes {', '.join(p + '_' for p in prefixes)})")
    for b in bad:
        print(b)
    if bad:
        print(f"check_prefixes: {len(bad)} external name(s) without their module's prefix")
        return 1
    print("check_prefixes: every external name carries its module's prefix")
    return 0


if __name__ == "__main__":
    sys.exit(main())
