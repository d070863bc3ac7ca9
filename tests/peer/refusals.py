"""refusals.py — for each probe onnxruntime refuses (tests/peer/make_probes.py:
one condition of one fusion broken), the reason `fusiondbg why` must give, read
by peer.py: the verdict is the compiler's, and the reason is the condition the
probe breaks, with its reason code.

Each entry: probe (the model name without probe_), rule, node, and the
fragments the first line of `why --rule RULE --node NODE` must hold.
"""

REFUSALS = [
    # QDQ: a Resize's pair dropped in mode nearest only; the Q's scale the DQ's; int8 as it runs
    ("qdq_resize_linear", "ORT_QDQ_Drop", "resize", ["did not fire", "attr('mode')", "FD-NM16"]),
    ("qdq_reshape_other_scale", "ORT_QDQ_Drop", "reshape", ["did not fire", "FD-NM21"]),
    ("qdq_s8_conv_dq_read_twice", "ORT_QDQ_QLinearConv", "conv", ["did not fire", "runs as int8", "FD-NM20"]),
    # QLinearWhere: WhereDummyDq gives a DQ only to a constant of rank 0
    ("qdq_where_const_1", "ORT_QDQ_QLinearWhere", "where", ["did not fire", "expected shape []", "actual k rank 1",
                                                            "FD-NM09"]),
    # and one type in and out as each runs: the int8 mask's Q turned uint8, its DQ input int8
    ("qdq_where_const_s8_mixed", "ORT_QDQ_QLinearWhere", "where", ["did not fire", "runs as uint8", "FD-NM20"]),
    ("qdq_relu_q_s8_zero", "ORT_ReluQuantFusion", "relu", ["did not fire", "value(input2) == qmin(input2)",
                                                          "FD-NM16"]),
    # GatherSliceToSplitFusion: the members cover the axis once, step 1, two at least
    ("split_slices_gap", "ORT_GatherSliceToSplitFusion", "s0", ["did not fire", "siblings", "FD-NM24"]),
    ("split_slices_overlap", "ORT_GatherSliceToSplitFusion", "s0", ["did not fire", "siblings", "FD-NM24"]),
    ("split_slices_step2", "ORT_GatherSliceToSplitFusion", "s0", ["did not fire", "siblings", "FD-NM24"]),
    ("split_slice_single", "ORT_GatherSliceToSplitFusion", "s0", ["did not fire", "1 member", "FD-NM24"]),
    # ClipQuantFusion: the Q's range inside the Clip's, in float
    ("qdq_clip_q_narrower", "ORT_ClipQuantFusion", "clip", ["did not fire", "- op0.max", "FD-NM16"]),
    ("qdq_clip_q_min_above", "ORT_ClipQuantFusion", "clip", ["did not fire", "float32(op0.min -", "FD-NM16"]),
    ("qdq_clip_q_graph_input", "ORT_ClipQuantFusion", "clip", ["did not fire", "producer(input0) != null", "FD-NM16"]),
    # ConvActivationFusion: the activations its CPU kernel runs; Clip's min and max constant
    ("conv_act_Elu", "ORT_ConvActivationFusion", "conv", ["did not fire", "actual Elu", "FD-NM07"]),
    ("conv_act_Selu", "ORT_ConvActivationFusion", "conv", ["did not fire", "actual Selu", "FD-NM07"]),
    ("conv_act_clip_min_graph_input", "ORT_ConvActivationFusion", "conv",
     ["op1 Clip input1: expected source_type const, when present", "FD-NM13"]),
    ("conv_relu_conv_out_graph_output", "ORT_ConvActivationFusion", "conv", ["c is a graph output", "FD-NM05"]),
    # ConvAddFusion / ConvMulFusion: the constant at input 1, of the channels' shape
    ("conv_add_pos0_C11", "ORT_ConvAddFusion", "conv", ["position: fixed", "FD-NM14"]),
    ("conv_add_pos1_C", "ORT_ConvAddFusion", "conv", ["with C = 8 (dim 0 of W)", "actual b rank 1 [8]", "FD-NM09"]),
    # the constant's rank decides the channel axis: dim 0 at the weight's rank less one, dim 1 at its rank
    ("conv2d_add_1C1", "ORT_ConvAddFusion", "conv", ["expected shape [C, 1, 1] | [1, C, 1, 1]",
                                                      "actual b rank 3 [1×8×1]", "FD-NM09"]),
    ("conv2d_add_C111", "ORT_ConvAddFusion", "conv", ["expected shape [C, 1, 1] | [1, C, 1, 1]",
                                                       "actual b rank 4 [8×1×1×1]", "FD-NM09"]),
    ("conv_add_pos1_scalar", "ORT_ConvAddFusion", "conv", ["actual b rank 0", "FD-NM09"]),
    ("conv_add_b_graph_input_ir8", "ORT_ConvAddFusion", "conv", ["overridable (also a graph input)", "FD-NM04"]),
    ("conv_add_relu_residual", "ORT_ConvAddFusion", "conv", ["actual x (graph input)", "FD-NM04"]),
    ("conv_mul_pos0_C11", "ORT_ConvMulFusion", "conv", ["position: fixed", "FD-NM14"]),
    ("conv_mul_pos1_C", "ORT_ConvMulFusion", "conv", ["expected shape [] | [C, 1, 1] | [1, C, 1, 1]", "FD-NM09"]),
    # ConvBNFusion: constants, one consumer, no graph output in the middle
    ("conv_bn_scale_graph_input", "ORT_ConvBNFusion", "conv", ["op1 BatchNorm input1", "FD-NM04"]),
    ("conv_bn_conv_out_graph_output", "ORT_ConvBNFusion", "conv", ["c is a graph output", "FD-NM05"]),
    ("conv_bn_two_consumers", "ORT_ConvBNFusion", "conv", ["c also read by relu", "FD-NM05"]),
    ("conv_bn_training_outputs", "ORT_ConvBNFusion", "conv",
     ["op1 BatchNorm outputs: expected 1 output declared, actual 3 outputs declared", "FD-NM22"]),
    # PadFusion: constant mode, spatial pads only
    ("pad_conv_reflect", "ORT_PadFusion", "pad", ["param mode", "FD-NM03"]),
    ("pad_conv_channel_pads", "ORT_PadFusion", "pad", ["op0 Pad where", "FD-NM16"]),
    ("pad_conv_value_one", "ORT_PadFusion", "pad", ["op0 Pad input2 operand: expected value 0", "FD-NM17"]),
    ("pad_maxpool_indices", "ORT_PadFusion_MaxPool", "pad",
     ["op2 MaxPool outputs: expected 1 output declared, actual 2 outputs declared", "FD-NM22"]),
    # GemmActivationFusion, GemmSumFusion
    ("gemm_act_clip", "ORT_GemmActivationFusion", "gemm", ["actual Clip", "FD-NM07"]),
    ("gemm_relu_gemm_out_graph_output", "ORT_GemmActivationFusion", "gemm", ["g is a graph output", "FD-NM05"]),
    ("gemm_with_c_sum", "ORT_GemmSumFusion", "gemm", ["op0 Gemm inputs", "FD-NM02"]),
    # MatMulAddFusion: A concrete when not 2-D, the bias's shape, the dtype
    ("matmul_add_3d_symbolic", "ORT_MatMulAddFusion", "mm", ["expected static dims", "FD-NM10"]),
    ("matmul_add_2d_bias_scalar", "ORT_MatMulAddFusion", "mm", ["actual b rank 0", "FD-NM09"]),
    ("matmul_add_int32", "ORT_MatMulAddFusion", "mm", ["x is int32", "FD-CF01"]),
    ("matmul_add_mm_out_graph_output", "ORT_MatMulAddFusion", "mm", ["m is a graph output", "FD-NM05"]),
    ("matmul_bn_w_graph_input", "ORT_MatmulBNFusion", "mm", ["actual W (graph input)", "FD-NM04"]),
    # MatmulTransposeFusion, MatMulScaleFusion
    ("mm_transpose_b_0231", "ORT_MatmulTransposeFusion", "tr", ["op0 Transpose where", "FD-NM16"]),
    ("mm_transpose_a_0213", "ORT_MatmulTransposeFusion", "tr", ["op0 Transpose where", "FD-NM16"]),
    ("mm_scale_tensor", "ORT_MatMulScaleFusion", "mm", ["expected shape scalar, actual sc rank 1 [8]", "FD-NM09"]),
    ("mm_scale_one_inner", "ORT_MatMulScaleFusion", "mm", ["op1 Mul where: expected value(input1) != 1", "FD-NM16"]),
    ("mm_scale_one_before_inner", "ORT_MatMulScaleFusion_A", "scale",
     ["(value(input1) != 1 || producer(input0) == null), actual false", "FD-NM16"]),
    # the Gelu family, QuickGelu, the LayerNorms
    ("gelu_mul_rsqrt2", "ORT_GeluFusion", "g_half", ["where: expected 'Div' in members", "FD-NM16"]),
    ("fast_gelu_mul_cube", "ORT_FastGeluFusion", "f_mul", ["where: expected 'Pow' in members", "FD-NM16"]),
    ("ln_mul_square", "ORT_LayerNormFusion", "addb", ["where: expected 'Pow' in members", "FD-NM16"]),
    ("fast_gelu_graph_output", "ORT_FastGeluFusion", "f_mul", ["outputs: expected not a graph output", "FD-NM15"]),
    ("quick_gelu_other_operand", "ORT_QuickGeluFusion", "sig", ["expected the tensor op0 reads at input0", "FD-NM12"]),
    ("quick_gelu_sigmoid_graph_output", "ORT_QuickGeluFusion", "sig", ["s is a graph output", "FD-NM05"]),
    ("ln_axis_m2", "ORT_LayerNormFusion", "addb", ["param axis: expected -1, actual -2", "FD-NM03"]),
    ("ln_no_affine", "ORT_LayerNormFusion", "div", ["param elementwise_affine", "FD-NM03"]),
    ("simplified_ln_axis_m2", "ORT_SimplifiedLayerNormFusion", "pow", ["op1 ReduceMean where", "FD-NM16"]),
    ("skip_ln_onnx_ln_2d", "ORT_SkipLayerNormFusion", "skip", ["actual x rank 2 [8×16]", "FD-NM09"]),
    # the level-1 rewrite rules
    ("div_mul_two", "ORT_DivMulFusion", "div", ["expected value 1", "actual k value 2", "FD-NM17"]),
    ("not_where_two_consumers", "ORT_NotWhereFusion", "not", ["nc is a graph output", "FD-NM05"]),
    ("relu_clip_relu_graph_output", "ORT_FuseReluClip", "relu", ["r is a graph output", "FD-NM05"]),
    # ---- transformer spellings of today's exporters ----
    # a Cast CastElimination cannot remove (its output a graph output) stays inside the RMSNorm
    # PadFusion: the channel axis padded, found at pads.size() / 2 with the rank unknown
    ("pad_avgpool_unknown_rank_channel_pads", "ORT_PadFusion_AveragePool", "pad", ["op0 Pad where", "pads[1] == 0",
                                                                                 "FD-NM16"]),
    ("simplified_ln_cast_graph_output", "ORT_SimplifiedLayerNormFusion", "pow", ["nc is a graph output", "FD-NM05"]),
    # the quantized flows (quant_probes.py): a DQ of constants is no initializer; one DQ per reader
    ("conv_bn_w_fake_quant", "ORT_ConvBNFusion", "conv", ["expected source_type initializer",
                                                         "actual w from dqw (DequantizeLinear", "FD-NM04"]),
    ("conv_bn_w_dq_int8", "ORT_ConvBNFusion", "conv", ["expected source_type initializer", "FD-NM04"]),
    ("quick_gelu_dq_x", "ORT_QuickGeluFusion", "sigmoid", ["producer(input0) != 'DequantizeLinear'", "FD-NM16"]),
    ("gelu_dq_x", "ORT_GeluFusion", "mul_half", ["producer(input0) != 'DequantizeLinear'", "FD-NM16"]),
    ("ln_dq_x", "ORT_LayerNormFusion", "addb", ["producer(input0) != 'DequantizeLinear'", "FD-NM16"]),
    # a Q's pair is copied before a Reshape read by the Q alone
    ("qdq_q_before_reshape_read_twice", "ORT_QDQ_Drop", "reshape", ["did not fire", "r is a graph output",
                                                                    "FD-NM15"]),
    ("qgemm_float_out_float_bias", "ORT_QDQ_QGemm", "gemm", ["did not fire", "FD-NM20"]),
    ("qdq_add_avgpool", "ORT_QDQ_Binary", "add", ["did not fire", "runs as float32", "FD-NM20"]),
]
