"""onnx_parse.py — the python3-onnx peer of `make bench`: onnx.load of MODEL
without its external data (parse only), best of REPEAT runs; prints "key value"
lines (wall and CPU milliseconds, peak RSS)."""
import resource
import sys
import time

import onnx

path = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
best_wall = best_cpu = None
for _ in range(repeat):
    w, c = time.perf_counter(), time.process_time()
    m = onnx.load(path, load_external_data=False)
    w, c = time.perf_counter() - w, time.process_time() - c
    nodes = len(m.graph.node)
    del m
    best_wall = w if best_wall is None else min(best_wall, w)
    best_cpu = c if best_cpu is None else min(best_cpu, c)
print("py_nodes", nodes)
print("py_parse_ms %.1f" % (best_wall * 1e3))
print("py_parse_cpu_ms %.1f" % (best_cpu * 1e3))
print("py_rss_kb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
