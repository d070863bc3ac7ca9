#!/usr/bin/env bash
# test_qdq_groups.sh — ort_groups.py reads onnxruntime's QDQ fusions on the
# QDQ models of tests/data/qdq right (tests/peer/qdq_groups_check.py):
# weight DQs are group members, not constant folds; DQ copies are the
# original DQ; no group spans a Q -> DQ pair (int8 models' converted pairs
# mapped back); QDQ groups are named after their transformers.
set -u
. "$(dirname "$0")/../lib.sh"
need_onnxruntime
"$PYTHON" tests/peer/qdq_groups_check.py --node-modules "$NODE_DIR/node_modules" --cache "$BUILD/peer" \
	tests/data/qdq/qdq_*.onnx
finish $?
