#!/usr/bin/python3
"""ort_cache.py — what onnxruntime made of each model, kept small.

For a model not seen before, onnxruntime-node (optimize.js) writes the graphs
it would run at levels 'basic' and 'extended' into a scratch folder,
ort_groups.py reads them, and only what it derives is kept: a JSON file per
model with the groups and the removed nodes, or onnxruntime's refusal. The
optimized graphs go at once (a model whose weights onnxruntime folds
optimizes to hundreds of MB). An entry is keyed by the model's bytes, by the
code of ort_groups.py and optimize.js and by the onnxruntime-node version;
entries of any other code or version, and anything else in the folder, are
deleted when the cache is opened for writing. Two runs may share the folder.
"""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ort_groups   # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = 4   # models optimized per scratch folder: at most their graphs on disk at once
SCRATCH = "scratch."


def model_name(path):
    return os.path.basename(path)[:-5] if path.endswith(".onnx") else os.path.basename(path)


def model_key(path):
    with open(path, "rb") as f:
        return "%s-%s" % (model_name(path), hashlib.sha1(f.read()).hexdigest()[:16])


def code_stamp():
    h = hashlib.sha1()
    for f in ("ort_groups.py", "optimize.js"):
        with open(os.path.join(HERE, f), "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:10]


def ort_version(node_modules):
    with open(os.path.join(node_modules, "onnxruntime-node", "package.json")) as f:
        return json.load(f)["version"]


def _load(path):
    with open(path) as f:
        return json.load(f)


def _prune(cache, suffix):
    """Deletes what is not an entry of this code and version, except the
    scratch folders and half-written entries of a run going on beside this
    one (the two peer tests may run at once): those once an hour old."""
    for f in os.listdir(cache):
        p = os.path.join(cache, f)
        try:
            if f.endswith(suffix) or ((f.startswith(SCRATCH) or f.endswith(".tmp"))
                                      and time.time() - os.lstat(p).st_mtime < 3600):
                continue
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except FileNotFoundError:   # the run beside this one removed it first
            pass


def _optimize(models, node_modules, cache):
    """[(model, result)] for models (key, path) not in the cache yet."""
    scratch = tempfile.mkdtemp(dir=cache, prefix=SCRATCH)
    try:
        links = []
        for key, m in models:   # optimize.js names its output after the file it reads
            link = os.path.join(scratch, key + ".onnx")
            os.symlink(os.path.abspath(m), link)
            links.append(link)
        outs = {}
        env = dict(os.environ, NODE_PATH=node_modules)
        for level in ("basic", "extended"):
            p = subprocess.run(["node", os.path.join(HERE, "optimize.js"), level, scratch] + links,
                               env=env, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit("peer: onnxruntime-node failed: %s" % (p.stderr.strip() or p.stdout.strip()))
            for line, (key, m) in zip(p.stdout.splitlines(), models):
                r = json.loads(line)
                outs.setdefault(key, {})
                if "error" not in outs[key]:
                    outs[key] = {"error": r["error"]} if "error" in r else dict(outs[key], **{level: r["out"]})
        res = []
        for key, m in models:
            o = outs[key]
            res.append((key, m, o if "error" in o else ort_groups.groups_for(m, o["extended"], o["basic"])))
        return res
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def groups(models, node_modules, cache):
    """{model: ort_groups.groups_for's result, or {"error": why onnxruntime refused it}}."""
    os.makedirs(cache, exist_ok=True)
    suffix = ".%s-%s.json" % (code_stamp(), ort_version(node_modules))
    _prune(cache, suffix)
    res, todo, keys = {}, [], {}
    for m in models:
        keys[m] = key = model_key(m)
        path = os.path.join(cache, key + suffix)
        if os.path.exists(path):
            res[m] = _load(path)
        elif key not in {k for k, _ in todo}:
            todo.append((key, m))
    for i in range(0, len(todo), BATCH):
        for key, m, r in _optimize(todo[i:i + BATCH], node_modules, cache):
            fd, tmp = tempfile.mkstemp(dir=cache, prefix=key + ".", suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(r, f)
            os.replace(tmp, os.path.join(cache, key + suffix))
    for m in models:   # read back: the same values whether made now or before
        if m not in res:
            res[m] = _load(os.path.join(cache, keys[m] + suffix))
    return res


def cached(cache, model):
    """What a peer run kept for MODEL (its groups, or {"error": ...}), or None:
    reading only, for the tests that use the peer test's results."""
    pattern = "%s.%s-*.json" % (glob.escape(model_key(model)), code_stamp())
    hits = glob.glob(os.path.join(glob.escape(cache), pattern))
    return _load(hits[0]) if hits else None
