"""exceptions.py — every place where rules/onnxruntime and onnxruntime are
expected to differ, with the reason, read by peer.py.

Each entry:
  models           the model names (file names without .onnx) it holds for
  reason           why the two differ (the first sentence is its title)
  ort, fusiondbg   which unmatched groups of each side it covers: any of
                   kind (onnxruntime's transformers), rule (fusiondbg's),
                   pattern (the members' op types, sorted, '+'-joined)
  counts           {model: how many groups it covers on each side given, or
                   [onnxruntime, fusiondbg] when the two differ}
  pairing          "subset": each fusiondbg group is part of one onnxruntime
                   group; "superset": each onnxruntime
                   group is part of one fusiondbg group
  why_ort, why_fusiondbg       `fusiondbg why --rule R --node N` on each
                   covered group of that side must print every fragment of
                   expect ({node} is N); N "@Conv" is the group's Conv node
  ort_removed      onnxruntime removed each node of the covered fusiondbg
                   groups this way (ort_groups.py's "removed" kinds)
  ort_error        onnxruntime refuses the model with this message
  pending          the part of fusiondbg that will close the difference;
                   once it is closed the entry matches nothing, which is
                   then reported, not failed
"""

EXCEPTIONS = [
    # ---- onnxruntime merged nodes before it fused ----------------------------
    {
        "models": ["light_inception_v1"],
        "reason": "Common subexpressions of placeholder weights. The light_ models make their weights with "
                  "ConstantOfShape, so two 1x1 Convs reading the same tensor with weights of one shape "
                  "(inception_3b/1x1 and 3b/3x3_reduce, 4c likewise) have equal weights; onnxruntime's "
                  "CommonSubexpressionElimination merges each pair, and its Relus, before ConvActivationFusion "
                  "runs. With real weights there is nothing to merge: fusiondbg fuses both.",
        "fusiondbg": {"rule": "ORT_ConvActivationFusion", "pattern": "Conv+Relu"},
        "counts": {"light_inception_v1": 2},
        "ort_removed": "cse",
        "why_fusiondbg": {"rule": "ORT_ConvActivationFusion", "node": "@Conv", "expect": ["fires on {node} (Conv)"]},
    },
    {
        "models": ["dtype_mismatch"],
        "reason": "onnxruntime refuses the model. It has no CPU kernel for Conv on float64, so it writes no "
                  "optimized graph; its log shows ConvAddFusion and QuickGeluFusion applied first, the two "
                  "fusions fusiondbg makes.",
        "ort_error": "Could not find an implementation for Conv(11) node with name 'conv1'",
    },
    # ---- onnxruntime knows fewer shapes than fusiondbg ----------------------------
    {
        "models": ["tiny_distilbert_sst2"],
        "reason": "BiasGeluFusion wants both Add operands' shapes known to onnxruntime. Its shape inference has "
                  "none for the FFN's MatMul output (the input comes through the attention's Reshape to a "
                  "computed shape), so it makes the Gelu alone; fusiondbg knows [batch, sequence, 4] and "
                  "[4], so ORT_BiasGeluFusion takes the bias Add with the Gelu ORT_GeluFusion made.",
        "ort": {"kind": "GeluFusion"},
        "fusiondbg": {"rule": "ORT_BiasGeluFusion"},
        "counts": {"tiny_distilbert_sst2": 2},
        "pairing": "superset",
        "why_fusiondbg": {"rule": "ORT_BiasGeluFusion", "node": "@Erf",
                          "expect": ["fires on", "by ORT_GeluFusion in round"]},
    },
    {
        "models": ["tiny_distilbert_sst2", "probe_mm_scale_unknown_shape"],
        "reason": "MatMulScaleFusion folds a scalar Div into a MatMul only where onnxruntime's own shape "
                  "inference knows the Div's output; after a Reshape to a shape computed from Shape (ONNX "
                  "inference below opset 13 does not follow it) it knows none, so the attention's q / sqrt(d) "
                  "stays a Div. fusiondbg infers the shape, and the rule states conditions on the tensors, so "
                  "ORT_MatMulScaleFusion_A folds it (the probe shows the same on a three-node model).",
        "fusiondbg": {"rule": "ORT_MatMulScaleFusion_A", "pattern": "Div+MatMul"},
        "counts": {"tiny_distilbert_sst2": 2, "probe_mm_scale_unknown_shape": 1},
        "why_fusiondbg": {"rule": "ORT_MatMulScaleFusion_A", "node": "@Div", "expect": ["fires on {node} (Div)"]},
    },
    # ---- a rewrite a chain of ops cannot state ---------------------------------------
    {
        "models": ["xfeat_256x256"],
        "reason": "GatherSliceToSplitFusion turns the 32 Slices that read one tensor and together cover an "
                  "axis into one Split: sibling consumers of one tensor, which a chain of ops does not state "
                  "(fusiondbg-rules(5), Sibling patterns: not in the format).",
        "ort": {"kind": "GatherSliceToSplitFusion"},
        "counts": {"xfeat_256x256": 2},
    },
    {
        "models": ["qdq_ultraface_u8"],
        "reason": "GatherSliceToSplitFusion after the QDQ drop. The box decoding's two Slices read one "
                  "DequantizeLinear and each feeds a QuantizeLinear; onnxruntime drops both Q/DQ pairs, as "
                  "ORT_QDQ_Drop does, and then turns the two sibling Slices, which together cover the axis, "
                  "into one Split: sibling consumers of one tensor, which a chain of ops does not state "
                  "(fusiondbg-rules(5), Sibling patterns: not in the format).",
        "ort": {"kind": "QDQSelectorActionTransformer+GatherSliceToSplitFusion"},
        "fusiondbg": {"rule": "ORT_QDQ_Drop"},
        "counts": {"qdq_ultraface_u8": [1, 2]},
        "pairing": "subset",
        "why_fusiondbg": {"rule": "ORT_QDQ_Drop", "node": "@Slice", "expect": ["fires on {node} (Slice)"]},
    },
]
