#!/usr/bin/python3
"""make_op_versions.py — writes src/ir/onnx_op_versions.inc, the versions
(since_version) of every ai.onnx operator as python3-onnx's schemas list
them, for where's `since_version`. --check FILE: exit 1 when FILE is not
what this would write (make check runs it, so the table and the installed
onnx agree)."""
import sys
from collections import defaultdict

import onnx
import onnx.defs


def table():
    versions = defaultdict(set)
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in ("", "ai.onnx"):
            versions[s.name].add(s.since_version)
    top = onnx.defs.onnx_opset_version()
    lines = ["/* onnx_op_versions.inc — made by tests/tools/make_op_versions.py from",
             " * python3-onnx %s's schemas: each ai.onnx operator and the opsets that" % onnx.__version__,
             " * gave it a new version, sorted by name (binary search); valid up to opset %d. */" % top,
             "#define ONNX_OP_VERSIONS_OPSET %d" % top]
    for name in sorted(versions):
        v = sorted(versions[name])
        assert len(v) < 8, name   # onnx_ops.c's op_versions holds 7 and a 0
        lines.append('\t{ "%s", { %s } },' % (name, ", ".join(str(x) for x in v)))
    return "\n".join(lines) + "\n"


def main():
    text = table()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2]) as f:
            if f.read() != text:
                print("%s is not what tests/tools/make_op_versions.py makes from python3-onnx %s"
                      % (sys.argv[2], onnx.__version__))
                sys.exit(1)
        return
    out = sys.argv[1] if len(sys.argv) > 1 else "src/ir/onnx_op_versions.inc"
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
