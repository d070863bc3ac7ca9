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
                   group; "superset": each onnxruntime group is part of one
                   fusiondbg group (and only the fusiondbg groups holding
                   one are covered)
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
    # ---- torch's own quantizers (torch_quant_exports.py) and their probes (quant_probes.py)
    {
        "models": ["torchq_qat_cnn", "probe_qdq_add_scale_1"],
        "reason": "onnxruntime refuses the model: a QLinearAdd of scales of shape [1]. torch's QAT exports "
                  "write every scale and zero point as shape [1]; BinarySelector takes them (one element), "
                  "BinaryReplaceWithQLinear makes the QLinearAdd, and its type inference "
                  "(ValidateTypeAndShapeForScaleAndZP) wants rank 0, so the session fails. fusiondbg's "
                  "ORT_QDQ_Binary_Refused makes the same fusion and says the model is refused "
                  "(rewrite.refuses_model): tests/cli/test_qdq_refused.sh.",
        "ort_error": "Scale and Zero-point must be a scalar",
    },
    # ---- the shared models quantized (test_peer.sh: qdq_models.py --each) ------------------
    {
        "models": ["qdq_torch_vit_opset17_u8", "qdq_torch_vit_opset17_u8keep"],
        "reason": "ReshapeFusion leaves the Conv the image DQ's only reader. ViT reads its image's shape with "
                  "three Shapes of the image's DequantizeLinear (Gathers of dims 0, 2 and 3, the patch grid's "
                  "Reshape target [batch, 32, h/16 * w/16] as a Concat); the batch dim is symbolic, so no "
                  "constant folding removes them: onnxruntime's level-1 ReshapeFusion does (its log: \"Fused "
                  "reshape node: /Reshape_output_0\"; Fuse_Subgraph makes the Concat the initializer [0, 32, -1] "
                  "and RemoveNodesWithOneOutputBottomUp drops the Shapes with their DQ copies), and its "
                  "QLinearConv takes the DQ. fusiondbg models no ReshapeFusion, so ORT_QDQ_QLinearConv's "
                  "feeds.first_reader counts the Shapes as the first readers and fuses the Conv without that DQ.",
        "ort": {"kind": "QDQSelectorActionTransformer",
                "pattern": "Conv+DequantizeLinear+DequantizeLinear+DequantizeLinear+QuantizeLinear"},
        "fusiondbg": {"rule": "ORT_QDQ_QLinearConv"},
        "counts": {"qdq_torch_vit_opset17_u8": 1, "qdq_torch_vit_opset17_u8keep": 1},
        "pairing": "subset",
        "why_fusiondbg": {"rule": "ORT_QDQ_QLinearConv", "node": "@Conv", "expect": ["fires on {node} (Conv)"]},
        "pending": "a model of level 1's ReshapeFusion (reshape_fusion.cc: Fuse_Subgraph) whose removed "
                   "readers first_reader and qdq_dtype leave out",
    },
    {
        "models": ["qdq_torch_vit_opset17_s8"],
        "reason": "ReshapeFusion leaves the Conv the image DQ's only reader (int8). As in the u8 model the "
                  "image's DequantizeLinear is read by three Shapes that onnxruntime's level-1 ReshapeFusion "
                  "removes (the batch dim is symbolic: no constant folding); with the Conv its only reader "
                  "QDQS8ToU8Transformer turns the int8 pair into uint8 and the QLinearConv forms. fusiondbg's "
                  "qdq_dtype counts the Shapes: the pair is read four times, stays int8, and ORT_QDQ_QLinearConv "
                  "refuses it (FD-NM20).",
        "ort": {"kind": "QDQSelectorActionTransformer"},
        "counts": {"qdq_torch_vit_opset17_s8": 1},
        "why_ort": {"rule": "ORT_QDQ_QLinearConv", "node": "@Conv", "expect": ["runs as int8", "FD-NM20"]},
        "pending": "a model of level 1's ReshapeFusion (reshape_fusion.cc: Fuse_Subgraph) whose removed "
                   "readers first_reader and qdq_dtype leave out",
    },
    # ---- today's transformer families (tests/peer/torch_families.py) ------------------------
    {
        "models": ["torch_mistral_opset13"],
        "reason": "onnxruntime knows the size of the merged Shape's output, ONNX's inference at opset 13 does not. "
                  "Each attention block reads the shape of v after its Transpose with four Shapes; level 1's "
                  "CommonSubexpressionElimination merges them (fusiondbg's too: ruleset: "
                  "common_subexpression_elimination), the transpose optimizer's HandleShape makes the one Shape "
                  "read the tensor before the Transpose with a Gather of the permutation, and "
                  "GatherSliceToSplitFusion makes the four Gathers of dims 0 to 3 one Split. At opset 13 ONNX's "
                  "inference (ruleset: shapes: onnx) leaves the Reshape before that Transpose of unknown rank, so "
                  "the rule does not know the length of the shape tensor the Gathers cover.",
        "ort": {"kind": "GatherSliceToSplitFusion", "pattern": "Gather"},
        "counts": {"torch_mistral_opset13": 2},
        "why_ort": {"rule": "ORT_GatherSliceToSplitFusion", "node": "@Gather",
                    "expect": ["4 members", "is not known", "FD-NM24"]},
        "pending": "onnxruntime's shape inference as a shapes mode of the rule set",
    },
    {
        "models": ["torch_mistral_opset17"],
        "reason": "The Split of the merged Shape is read as one Gather's. After CommonSubexpressionElimination "
                  "(fusiondbg's too: ruleset: common_subexpression_elimination) one Shape of v's shape is read by "
                  "the Gathers of dims 0 to 3, and onnxruntime's optimized graph has one Split of four outputs on "
                  "it (/layers.N/Gather_12/GatherSliceToSplitFusion), as fusiondbg's fusion of the four Gathers; "
                  "ort_groups.py attributes only Gather_12 to that Split (the other three Gathers' outputs are "
                  "new names, claimed by an unfused unit).",
        "ort": {"kind": "GatherSliceToSplitFusion", "pattern": "Gather"},
        "fusiondbg": {"rule": "ORT_GatherSliceToSplitFusion", "pattern": "Gather+Gather+Gather+Gather"},
        "counts": {"torch_mistral_opset17": 2},
        "pairing": "superset",
        "why_fusiondbg": {"rule": "ORT_GatherSliceToSplitFusion", "node": "@Gather",
                          "expect": ["4 nodes into Split"]},
        "pending": "ort_groups.py reading a Split's outputs back to the Gathers it replaced",
    },
    {
        "models": ["torch_bloom_opset13"],
        "reason": "onnxruntime knows the qkv Reshape's dims, ONNX's inference at opset 13 does not. BLOOM reads q, "
                  "k and v as Gathers 0, 1, 2 of axis 3 of a Reshape to [b, t, heads, 3, head_dim] whose target is "
                  "a Concat of Shape-Gathers and constants; onnxruntime's own inference of the first block's "
                  "Reshape gives axis 3 its size 3 and the Gathers cover it (one Split); the rule set reads "
                  "ONNX's shapes (ruleset: shapes: onnx), which at opset 13 leave that Reshape's output of "
                  "unknown rank, so the Gathers cover nothing known.",
        "ort": {"kind": "GatherSliceToSplitFusion", "pattern": "Gather+Gather+Gather"},
        "counts": {"torch_bloom_opset13": 1},
        "why_ort": {"rule": "ORT_GatherSliceToSplitFusion", "node": "@Gather",
                    "expect": ["3 members", "rank of", "is not known", "FD-NM24"]},
        "pending": "onnxruntime's shape inference as a shapes mode of the rule set",
    },
    {
        "models": ["torch_bloom_opset17"],
        "reason": "ONNX's data propagation knows the second block's qkv Reshape's dims, onnxruntime does not. At "
                  "opset 17 ONNX's inference (ruleset: shapes: onnx) gives both blocks' Reshape [?, ?, 4, 3, 8] and "
                  "the rule splits axis 3 in each; onnxruntime's inference knows it in the first block only, so it "
                  "makes one Split where fusiondbg makes two.",
        "fusiondbg": {"rule": "ORT_GatherSliceToSplitFusion", "pattern": "Gather+Gather+Gather"},
        "counts": {"torch_bloom_opset17": 1},
        "why_fusiondbg": {"rule": "ORT_GatherSliceToSplitFusion", "node": "@Gather", "expect": ["fires on {node}"]},
        "pending": "onnxruntime's shape inference as a shapes mode of the rule set",
    },
    {
        "models": ["probe_fast_gelu_factored_x_first"],
        "reason": "FastGeluFusion reads the tail of the tanh form in one order. Its ApplyImpl takes the last Mul's "
                  "other input from a Mul(x, 0.5) (mul6): x * 0.5 * (1 + tanh(...)), as GPT-2 and BLOOM write it; "
                  "(x * (1 + tanh(...))) * 0.5 has no such Mul and onnxruntime leaves it. The Gelu form fusiondbg "
                  "recognises takes the three orders of x, 0.5 and the tanh part alike and does not say which it "
                  "found, so the rule fuses it.",
        "fusiondbg": {"rule": "ORT_FastGeluFusion"},
        "counts": {"probe_fast_gelu_factored_x_first": 1},
        "why_fusiondbg": {"rule": "ORT_FastGeluFusion", "node": "f_mul", "expect": ["fires on {node}"]},
        "pending": "the order of a Gelu form's tail as something a rule can state",
    },
]
