/* optable.c — the op table as data: one row per canonical op, with the
 * spellings a rule may use, the node op_types it matches, and its params.
 * Owned here, static and read-only; `check` and the matcher both read it.
 *
 * How a param's value is found on a node (the matcher's order):
 *   1. the ONNX attribute `attr`, when the node has it;
 *   2. the constant input `input`, when the node has that input (Dropout's
 *      ratio moved from an attribute to input 1 in opset 12, Clip's min/max
 *      to inputs 1/2 in opset 11, Reshape's shape is input 1);
 *   3. the derived value (DERIVED_*), computed from the node and its tensors;
 *   4. `default_value`, the ONNX default written as YAML text.
 * A param with none of these on a node is "absent" and the matcher says so.
 *
 * Defaults that changed across opsets: Softmax axis is -1 from opset 13 and
 * was 1 before; the table records the newer default (most exports today are
 * opset >= 13). The matcher may consult the model's opset to do better.
 *
 * Domains: NULL means any domain (ONNX, GE-named graphs, com.microsoft
 * re-implementations of standard ops such as LayerNormalization and Gelu);
 * "com.microsoft" rows are onnxruntime's contrib ops; "" means ai.onnx,
 * which a node holds as "" however the model spelled it (ir/onnx_ops.h). */
#include <stdio.h>
#include "rules/optable.h"
#include <string.h>
#include <strings.h>

#define countof(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define PARAMS(p) countof(p), p
#define NOPARAMS 0, NULL

/* Shorthands for one param row. */
#define ATTR(name, attr, type, dflt) { name, { 0 }, attr, -1, type, dflt, DERIVED_NONE }

/* ---- params ----------------------------------------------------------------
 * { name, {aliases}, attr, input, type, default, derived } */

#define CONV_PARAMS(strides, dilations, pads) \
	{ "groups", { "group" }, "group", -1, PT_INT, "1", DERIVED_NONE }, \
	{ "kernel_size", { "kernel_shape" }, "kernel_shape", -1, PT_INTS, NULL, DERIVED_KERNEL_SIZE }, \
	{ "strides", { "stride" }, "strides", -1, PT_INTS, strides, DERIVED_NONE }, \
	{ "dilations", { "dilation" }, "dilations", -1, PT_INTS, dilations, DERIVED_NONE }, \
	{ "pads", { "padding", "paddings" }, "pads", -1, PT_INTS, pads, DERIVED_NONE }, \
	{ "auto_pad", { 0 }, "auto_pad", -1, PT_STRING, "NOTSET", DERIVED_NONE }, \
	{ "activation_type", { "activation" }, "activation", -1, PT_STRING, "none", DERIVED_ACTIVATION_TYPE }

static const fd_param_def conv_params[] = { CONV_PARAMS(NULL, NULL, NULL) };
static const fd_param_def conv1d_params[] = { CONV_PARAMS("[1]", "[1]", "[0, 0]") };
static const fd_param_def conv2d_params[] = { CONV_PARAMS("[1, 1]", "[1, 1]", "[0, 0, 0, 0]") };
static const fd_param_def conv3d_params[] = { CONV_PARAMS("[1, 1, 1]", "[1, 1, 1]", "[0, 0, 0, 0, 0, 0]") };

static const fd_param_def fused_conv_params[] = {
	CONV_PARAMS(NULL, NULL, NULL),
	{ "activation_params", { 0 }, "activation_params", -1, PT_FLOATS, NULL, DERIVED_NONE },
};

static const fd_param_def batchnorm_params[] = {
	{ "epsilon", { "eps" }, "epsilon", -1, PT_FLOAT, "1e-05", DERIVED_NONE },
	{ "momentum", { 0 }, "momentum", -1, PT_FLOAT, "0.9", DERIVED_NONE },
	{ "training_mode", { 0 }, "training_mode", -1, PT_BOOL, "0", DERIVED_NONE },
	{ "spatial", { 0 }, "spatial", -1, PT_INT, "1", DERIVED_NONE },   /* opset < 9 */
};

static const fd_param_def instancenorm_params[] = {
	{ "epsilon", { "eps" }, "epsilon", -1, PT_FLOAT, "1e-05", DERIVED_NONE },
};

static const fd_param_def layernorm_params[] = {
	{ "epsilon", { "eps" }, "epsilon", -1, PT_FLOAT, "1e-05", DERIVED_NONE },
	{ "axis", { "begin_norm_axis" }, "axis", -1, PT_INT, "-1", DERIVED_NONE },
	{ "normalized_shape", { 0 }, NULL, -1, PT_INTS, NULL, DERIVED_NORMALIZED_SHAPE },
	{ "elementwise_affine", { 0 }, NULL, -1, PT_BOOL, NULL, DERIVED_ELEMENTWISE_AFFINE },
	{ "stash_type", { 0 }, "stash_type", -1, PT_INT, "1", DERIVED_NONE },
	{ "form", { 0 }, NULL, -1, PT_STRING, NULL, DERIVED_FORM },
};

static const fd_param_def skip_layernorm_params[] = {
	{ "epsilon", { "eps" }, "epsilon", -1, PT_FLOAT, NULL, DERIVED_NONE },
	{ "normalized_shape", { 0 }, NULL, -1, PT_INTS, NULL, DERIVED_NORMALIZED_SHAPE },
	{ "elementwise_affine", { 0 }, NULL, -1, PT_BOOL, NULL, DERIVED_ELEMENTWISE_AFFINE },
};

static const fd_param_def swish_params[] = {
	{ "approximate", { 0 }, "approximate", -1, PT_STRING, "none", DERIVED_APPROXIMATE },
	{ "alpha", { "beta", "scale" }, "alpha", -1, PT_FLOAT, "1.0", DERIVED_NONE },
	{ "form", { 0 }, NULL, -1, PT_STRING, NULL, DERIVED_FORM },
};

/* FastGelu's approximate derives to "tanh"; plain Gelu's to its attribute or "none". */
static const fd_param_def gelu_params[] = {
	{ "approximate", { 0 }, "approximate", -1, PT_STRING, "none", DERIVED_APPROXIMATE },
	{ "form", { 0 }, NULL, -1, PT_STRING, NULL, DERIVED_FORM },
};

static const fd_param_def biasadd_params[] = {
	ATTR("data_format", "data_format", PT_STRING, "NCHW"),
	{ "form", { 0 }, NULL, -1, PT_STRING, NULL, DERIVED_FORM },
};

/* Commutative and other binary elementwise ops: `broadcast` is the opset<7
 * attribute when present, else derived (true when the inputs' shapes differ). */
static const fd_param_def binary_params[] = {
	{ "broadcast", { 0 }, "broadcast", -1, PT_BOOL, NULL, DERIVED_BROADCAST },
};

static const fd_param_def matmul_params[] = {
	{ "transpose_a", { "transA", "transpose_x1", "adj_x1" }, "transA", -1, PT_BOOL, "false", DERIVED_FALSE },
	{ "transpose_b", { "transB", "transpose_x2", "adj_x2" }, "transB", -1, PT_BOOL, "false", DERIVED_FALSE },
	{ "alpha", { 0 }, "alpha", -1, PT_FLOAT, "1.0", DERIVED_NONE },
};

static const fd_param_def gemm_params[] = {
	{ "transpose_a", { "transA" }, "transA", -1, PT_BOOL, "0", DERIVED_NONE },
	{ "transpose_b", { "transB" }, "transB", -1, PT_BOOL, "0", DERIVED_NONE },
	ATTR("alpha", "alpha", PT_FLOAT, "1.0"),
	ATTR("beta", "beta", PT_FLOAT, "1.0"),
};

static const fd_param_def fused_matmul_params[] = {
	{ "transpose_a", { "transA" }, "transA", -1, PT_BOOL, "0", DERIVED_NONE },
	{ "transpose_b", { "transB" }, "transB", -1, PT_BOOL, "0", DERIVED_NONE },
	ATTR("alpha", "alpha", PT_FLOAT, "1.0"),
	ATTR("transBatchA", "transBatchA", PT_BOOL, "0"),
	ATTR("transBatchB", "transBatchB", PT_BOOL, "0"),
};

static const fd_param_def softmax_params[] = {
	{ "axis", { "dim" }, "axis", -1, PT_INT, "-1", DERIVED_NONE },
};

static const fd_param_def axis0_params[] = { ATTR("axis", "axis", PT_INT, "0") };
static const fd_param_def axis1_params[] = { ATTR("axis", "axis", PT_INT, "1") };
static const fd_param_def concat_params[] = { { "axis", { "dim" }, "axis", -1, PT_INT, NULL, DERIVED_NONE } };

static const fd_param_def eltwise_params[] = {
	ATTR("mode", "mode", PT_INT, "1"),
	{ "coeff", { 0 }, "coeff", -1, PT_FLOATS, NULL, DERIVED_NONE },
};
static const fd_param_def leakyrelu_params[] = {
	{ "alpha", { "negative_slope" }, "alpha", -1, PT_FLOAT, "0.01", DERIVED_NONE },
};
static const fd_param_def elu_params[] = { ATTR("alpha", "alpha", PT_FLOAT, "1.0") };
static const fd_param_def selu_params[] = {
	ATTR("alpha", "alpha", PT_FLOAT, "1.67326319217681884765625"),
	ATTR("gamma", "gamma", PT_FLOAT, "1.05070102214813232421875"),
};
static const fd_param_def thresholded_relu_params[] = { ATTR("alpha", "alpha", PT_FLOAT, "1.0") };
static const fd_param_def hardsigmoid_params[] = {
	ATTR("alpha", "alpha", PT_FLOAT, "0.2"),
	ATTR("beta", "beta", PT_FLOAT, "0.5"),
};

static const fd_param_def clip_params[] = {
	{ "min", { "clip_min", "min_value" }, "min", 1, PT_FLOAT, NULL, DERIVED_NONE },
	{ "max", { "clip_max", "max_value" }, "max", 2, PT_FLOAT, NULL, DERIVED_NONE },
};

static const fd_param_def reshape_params[] = {
	{ "allow_zero_dim", { "allowzero" }, "allowzero", -1, PT_BOOL, "0", DERIVED_NONE },
	{ "shape", { 0 }, "shape", 1, PT_INTS, NULL, DERIVED_NONE },
};

static const fd_param_def transpose_params[] = { ATTR("perm", "perm", PT_INTS, NULL) };

static const fd_param_def dropout_params[] = {
	{ "ratio", { "p", "rate" }, "ratio", 1, PT_FLOAT, "0.5", DERIVED_NONE },
	{ "training_mode", { 0 }, NULL, 2, PT_BOOL, "false", DERIVED_NONE },
	ATTR("seed", "seed", PT_INT, NULL),
};

static const fd_param_def split_params[] = {
	ATTR("axis", "axis", PT_INT, "0"),
	{ "split", { "split_size", "sizes" }, "split", 1, PT_INTS, NULL, DERIVED_NONE },
	ATTR("num_outputs", "num_outputs", PT_INT, NULL),
};

static const fd_param_def slice_params[] = {
	{ "starts", { 0 }, "starts", 1, PT_INTS, NULL, DERIVED_NONE },
	{ "ends", { 0 }, "ends", 2, PT_INTS, NULL, DERIVED_NONE },
	{ "axes", { 0 }, "axes", 3, PT_INTS, NULL, DERIVED_NONE },
	{ "steps", { 0 }, NULL, 4, PT_INTS, NULL, DERIVED_NONE },
};

#define POOL_PARAMS \
	{ "kernel_size", { "kernel_shape" }, "kernel_shape", -1, PT_INTS, NULL, DERIVED_NONE }, \
	{ "strides", { "stride" }, "strides", -1, PT_INTS, NULL, DERIVED_NONE }, \
	{ "pads", { "padding", "paddings" }, "pads", -1, PT_INTS, NULL, DERIVED_NONE }, \
	ATTR("auto_pad", "auto_pad", PT_STRING, "NOTSET"), \
	ATTR("ceil_mode", "ceil_mode", PT_INT, "0")

static const fd_param_def maxpool_params[] = {
	POOL_PARAMS,
	{ "dilations", { "dilation" }, "dilations", -1, PT_INTS, NULL, DERIVED_NONE },
	ATTR("storage_order", "storage_order", PT_INT, "0"),
};
static const fd_param_def avgpool_params[] = {
	POOL_PARAMS,
	ATTR("count_include_pad", "count_include_pad", PT_INT, "0"),
};
static const fd_param_def pooling_params[] = { POOL_PARAMS };

static const fd_param_def axes_params[] = {
	{ "axes", { "dim" }, "axes", 1, PT_INTS, NULL, DERIVED_NONE },
};

static const fd_param_def cast_params[] = {
	{ "to", { "dtype" }, "to", -1, PT_ANY, NULL, DERIVED_NONE },   /* a DT_ number or a dtype name */
	ATTR("saturate", "saturate", PT_INT, "1"),
};

static const fd_param_def reduce_params[] = {
	{ "axes", { "dim" }, "axes", 1, PT_INTS, NULL, DERIVED_NONE },
	{ "keepdims", { "keep_dims", "keepdim" }, "keepdims", -1, PT_BOOL, "1", DERIVED_NONE },
	ATTR("noop_with_empty_axes", "noop_with_empty_axes", PT_BOOL, "0"),
};

static const fd_param_def expand_params[] = {
	{ "shape", { 0 }, NULL, 1, PT_INTS, NULL, DERIVED_NONE },
};

static const fd_param_def resize_params[] = {
	ATTR("mode", "mode", PT_STRING, "nearest"),
	ATTR("coordinate_transformation_mode", "coordinate_transformation_mode", PT_STRING, "half_pixel"),
	ATTR("nearest_mode", "nearest_mode", PT_STRING, "round_prefer_floor"),
	ATTR("cubic_coeff_a", "cubic_coeff_a", PT_FLOAT, "-0.75"),
	{ "scales", { 0 }, "scales", 2, PT_FLOATS, NULL, DERIVED_NONE },
	{ "sizes", { 0 }, NULL, 3, PT_INTS, NULL, DERIVED_NONE },
};

static const fd_param_def lrn_params[] = {
	ATTR("size", "size", PT_INT, NULL),
	ATTR("alpha", "alpha", PT_FLOAT, "0.0001"),
	ATTR("beta", "beta", PT_FLOAT, "0.75"),
	ATTR("bias", "bias", PT_FLOAT, "1.0"),
};

static const fd_param_def shape_params[] = {
	ATTR("start", "start", PT_INT, "0"),
	ATTR("end", "end", PT_INT, NULL),
};

static const fd_param_def pad_params[] = {
	ATTR("mode", "mode", PT_STRING, "constant"),
	{ "pads", { "paddings" }, "pads", 1, PT_INTS, NULL, DERIVED_NONE },
};

static const fd_param_def attention_params[] = {
	ATTR("num_heads", "num_heads", PT_INT, NULL),
	ATTR("unidirectional", "unidirectional", PT_BOOL, "0"),
	ATTR("qkv_hidden_sizes", "qkv_hidden_sizes", PT_INTS, NULL),
	ATTR("mask_filter_value", "mask_filter_value", PT_FLOAT, NULL),
	ATTR("scale", "scale", PT_FLOAT, NULL),
	ATTR("past_present_share_buffer", "past_present_share_buffer", PT_BOOL, "0"),
	ATTR("do_rotary", "do_rotary", PT_BOOL, "0"),
};

static const fd_param_def embed_layernorm_params[] = {
	{ "epsilon", { "eps" }, "epsilon", -1, PT_FLOAT, NULL, DERIVED_NONE },
	ATTR("mask_index_type", "mask_index_type", PT_INT, "1"),
};

static const fd_param_def constant_of_shape_params[] = { ATTR("value", "value", PT_ANY, "0") };

/* ---- ops -------------------------------------------------------------------
 * { name, {rule-side aliases}, {node op_types}, domain, spatial rank,
 *   commutative, composite, params } — one row per op. */
#define MS "com.microsoft"

static const fd_op_def ops[] = {
	/* convolution and pooling */
	{ "Conv2d", { "Conv2D" }, { "Conv", "Conv2D", "FusedConv" }, NULL, 2, false, COMPOSITE_NONE, PARAMS(conv2d_params) },
	{ "Conv", { "Convolution" }, { "Conv", "Conv2D", "Conv3D", "FusedConv" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(conv_params) },
	{ "Conv1d", { "Conv1D" }, { "Conv" }, NULL, 1, false, COMPOSITE_NONE, PARAMS(conv1d_params) },
	{ "Conv3d", { "Conv3D" }, { "Conv", "Conv3D" }, NULL, 3, false, COMPOSITE_NONE, PARAMS(conv3d_params) },
	{ "ConvTranspose", { "Conv2DTranspose", "Deconvolution" }, { "ConvTranspose", "Conv2DTranspose" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(conv_params) },
	{ "FusedConv", { 0 }, { "FusedConv" }, MS, -1, false, COMPOSITE_NONE, PARAMS(fused_conv_params) },
	{ "MaxPool", { "MaxPool2d", "MaxPoolV3" }, { "MaxPool", "MaxPoolV3" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(maxpool_params) },
	{ "AvgPool", { "AveragePool", "AvgPool2d", "AvgPoolV2" }, { "AveragePool", "AvgPool", "AvgPoolV2" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(avgpool_params) },
	{ "GlobalAveragePool", { "GlobalAvgPool" }, { "GlobalAveragePool", "GlobalAvgPool" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "GlobalMaxPool", { 0 }, { "GlobalMaxPool" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Pooling", { 0 }, { "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Pooling" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(pooling_params) },

	/* normalisation */
	{ "BatchNorm", { "BatchNormalization", "FusedBatchNorm", "FusedBatchNormV3", "BatchNorm2d" }, { "BatchNormalization", "BatchNorm", "FusedBatchNorm", "FusedBatchNormV3" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(batchnorm_params) },
	{ "InstanceNorm", { "InstanceNormalization" }, { "InstanceNormalization", "InstanceNorm" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(instancenorm_params) },
	{ "LayerNorm", { "LayerNormalization" }, { "LayerNormalization", "LayerNorm" }, NULL, -1, false, COMPOSITE_LAYERNORM, PARAMS(layernorm_params) },
	{ "SkipLayerNorm", { "SkipLayerNormalization" }, { "SkipLayerNormalization" }, MS, -1, false, COMPOSITE_NONE, PARAMS(skip_layernorm_params) },
	{ "EmbedLayerNorm", { "EmbedLayerNormalization" }, { "EmbedLayerNormalization" }, MS, -1, false, COMPOSITE_NONE, PARAMS(embed_layernorm_params) },
	{ "LRN", { 0 }, { "LRN" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(lrn_params) },

	/* activations */
	{ "Relu", { "ReLU" }, { "Relu" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Relu6", { "ReLU6" }, { "Relu6" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "LeakyRelu", { "LeakyReLU" }, { "LeakyRelu" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(leakyrelu_params) },
	{ "PRelu", { "PReLU" }, { "PRelu" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Elu", { "ELU" }, { "Elu" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(elu_params) },
	{ "Sigmoid", { 0 }, { "Sigmoid" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "HardSigmoid", { 0 }, { "HardSigmoid" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(hardsigmoid_params) },
	{ "HardSwish", { 0 }, { "HardSwish" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Tanh", { 0 }, { "Tanh" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Softplus", { 0 }, { "Softplus" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Softsign", { 0 }, { "Softsign" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Selu", { "SELU" }, { "Selu" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(selu_params) },
	{ "ThresholdedRelu", { 0 }, { "ThresholdedRelu" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(thresholded_relu_params) },
	{ "Swish", { "SiLU", "Silu" }, { "Swish" }, NULL, -1, false, COMPOSITE_SILU, PARAMS(swish_params) },
	{ "Gelu", { "GELU", "GeLU" }, { "Gelu", "FastGelu", "BiasGelu" }, NULL, -1, false, COMPOSITE_GELU, PARAMS(gelu_params) },
	{ "FastGelu", { 0 }, { "FastGelu" }, MS, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "BiasGelu", { 0 }, { "BiasGelu" }, MS, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Clip", { "ClipByValue" }, { "Clip", "ClipByValue" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(clip_params) },
	{ "Softmax", { "SoftmaxV2" }, { "Softmax", "SoftmaxV2" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(softmax_params) },
	{ "LogSoftmax", { 0 }, { "LogSoftmax" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(softmax_params) },

	/* elementwise arithmetic */
	{ "Add", { "AddV2" }, { "Add", "AddV2" }, NULL, -1, true, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Mul", { 0 }, { "Mul" }, NULL, -1, true, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Sub", { 0 }, { "Sub" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Div", { "RealDiv" }, { "Div", "RealDiv" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Max", { "Maximum" }, { "Max", "Maximum" }, NULL, -1, true, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Min", { "Minimum" }, { "Min", "Minimum" }, NULL, -1, true, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Sum", { "AddN" }, { "Sum", "AddN" }, NULL, -1, true, COMPOSITE_NONE, PARAMS(binary_params) },
	/* Caffe's Eltwise as CANN's Caffe parser keeps it in a GE graph (no ONNX
	 * operator): mode 0 product, 1 sum, 2 max, each commutative. */
	{ "Eltwise", { 0 }, { "Eltwise" }, NULL, -1, true, COMPOSITE_NONE, PARAMS(eltwise_params) },
	{ "Pow", { 0 }, { "Pow" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "BiasAdd", { 0 }, { "BiasAdd" }, NULL, -1, false, COMPOSITE_BIASADD, PARAMS(biasadd_params) },
	{ "Where", { "Select" }, { "Where", "Select" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(binary_params) },
	{ "Equal", { 0 }, { "Equal" }, NULL, -1, true, COMPOSITE_NONE, NOPARAMS },
	{ "Erf", { 0 }, { "Erf" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Not", { 0 }, { "Not" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Sqrt", { 0 }, { "Sqrt" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Exp", { 0 }, { "Exp" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Log", { 0 }, { "Log" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Neg", { 0 }, { "Neg" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Abs", { 0 }, { "Abs" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Reciprocal", { 0 }, { "Reciprocal" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },

	/* matrix products and attention */
	{ "MatMul", { "MatMulV2", "BatchMatMul", "BatchMatMulV2", "BatchMatmul" }, { "MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2", "FusedMatMul" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(matmul_params) },
	{ "Gemm", { "FullyConnected", "Linear" }, { "Gemm" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(gemm_params) },
	{ "FusedMatMul", { 0 }, { "FusedMatMul" }, MS, -1, false, COMPOSITE_NONE, PARAMS(fused_matmul_params) },
	{ "Attention", { "MultiHeadAttention" }, { "Attention", "MultiHeadAttention" }, MS, -1, false, COMPOSITE_NONE, PARAMS(attention_params) },

	/* reductions */
	{ "ReduceMean", { 0 }, { "ReduceMean" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(reduce_params) },
	{ "ReduceSum", { 0 }, { "ReduceSum" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(reduce_params) },
	{ "ReduceMax", { 0 }, { "ReduceMax" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(reduce_params) },

	/* data movement */
	{ "Reshape", { 0 }, { "Reshape" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(reshape_params) },
	{ "Transpose", { "Permute" }, { "Transpose" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(transpose_params) },
	{ "Flatten", { 0 }, { "Flatten" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(axis1_params) },
	{ "Squeeze", { 0 }, { "Squeeze" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(axes_params) },
	{ "Unsqueeze", { "ExpandDims" }, { "Unsqueeze", "ExpandDims" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(axes_params) },
	{ "Concat", { "ConcatV2", "ConcatD" }, { "Concat", "ConcatV2", "ConcatD" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(concat_params) },
	{ "Split", { "SplitV", "SplitD" }, { "Split", "SplitV", "SplitD" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(split_params) },
	{ "Slice", { "StridedSlice" }, { "Slice", "StridedSlice" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(slice_params) },
	{ "Gather", { "GatherV2" }, { "Gather", "GatherV2" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(axis0_params) },
	{ "Expand", { "BroadcastTo" }, { "Expand", "BroadcastTo" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(expand_params) },
	{ "Pad", { "PadV3" }, { "Pad", "PadV3" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(pad_params) },
	{ "Resize", { "Upsample", "ResizeBilinearV2", "ResizeNearestNeighborV2" }, { "Resize", "Upsample", "ResizeBilinearV2", "ResizeNearestNeighborV2" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(resize_params) },
	{ "Cast", { 0 }, { "Cast" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(cast_params) },
	{ "Identity", { 0 }, { "Identity" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "Dropout", { 0 }, { "Dropout" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(dropout_params) },
	{ "Shape", { 0 }, { "Shape" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(shape_params) },
	{ "Constant", { "Const" }, { "Constant", "Const" }, NULL, -1, false, COMPOSITE_NONE, NOPARAMS },
	{ "ConstantOfShape", { "Fill" }, { "ConstantOfShape", "Fill" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(constant_of_shape_params) },
	/* the quantizers' pair: a QDQ group is DQ -> op -> Q */
	{ "QuantizeLinear", { 0 }, { "QuantizeLinear" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(axis1_params) },
	{ "DequantizeLinear", { 0 }, { "DequantizeLinear" }, NULL, -1, false, COMPOSITE_NONE, PARAMS(axis1_params) },
};

int optable_count(void)
{
	return countof(ops);
}

const fd_op_def *optable_get(int id)
{
	return id >= 0 && id < countof(ops) ? &ops[id] : NULL;
}

/* Exact spellings first (canonical, then aliases, case-sensitive), then a
 * case-insensitive match of the canonical name only: "conv2d" finds Conv2d,
 * but aliases stay exact so "conv2D" is not silently read as something else. */
int optable_lookup(const char *type)
{
	if (!type)
		return -1;
	for (int id = 0; id < countof(ops); id++)
		if (!strcmp(type, ops[id].name))
			return id;
	for (int id = 0; id < countof(ops); id++)
		for (int a = 0; a < countof(ops[id].aliases) && ops[id].aliases[a]; a++)
			if (!strcmp(type, ops[id].aliases[a]))
				return id;
	for (int id = 0; id < countof(ops); id++)
		if (!strcasecmp(type, ops[id].name))
			return id;
	return -1;
}

static bool domain_matches(const char *want, const char *have)
{
	return !want || !strcmp(want, have);
}

/* The spatial rank is checked only when the node's rank is known: a Conv whose
 * weight and input shapes are both unknown (weights produced at run time,
 * symbolic inputs) is accepted as Conv2d rather than silently never matched. */
bool optable_node_matches(int id, const fd_graph *g, const fd_node *n)
{
	const fd_op_def *op = optable_get(id);
	if (!op || !n || !n->op_type)
		return false;
	bool type_ok = false;
	for (int t = 0; t < countof(op->onnx_types) && op->onnx_types[t]; t++)
		if (!strcmp(n->op_type, op->onnx_types[t])) {
			type_ok = true;
			break;
		}
	if (!type_ok || !domain_matches(op->domain, n->domain))
		return false;
	if (op->spatial_rank >= 0) {
		int32_t rank = node_spatial_rank(g, n);
		if (rank >= 0 && rank != op->spatial_rank)
			return false;
	}
	return true;
}

const fd_param_def *optable_param(int id, const char *param)
{
	const fd_op_def *op = optable_get(id);
	if (!op || !param)
		return NULL;
	for (int p = 0; p < op->n_params; p++) {
		const fd_param_def *def = &op->params[p];
		if (param[0] == def->name[0] && !strcmp(param, def->name))   /* most differ at once */
			return def;
		for (int a = 0; a < countof(def->aliases) && def->aliases[a]; a++)
			if (!strcmp(param, def->aliases[a]))
				return def;
	}
	return NULL;
}

/* Stores at most max ids, in table order; returns how many it stored. */
int optable_ids_for_onnx_type(const char *op_type, int *ids, int max)
{
	int n = 0;
	if (!op_type)
		return 0;
	for (int id = 0; id < countof(ops); id++)
		for (int t = 0; t < countof(ops[id].onnx_types) && ops[id].onnx_types[t]; t++)
			if (!strcmp(op_type, ops[id].onnx_types[t])) {
				if (n < max)
					ids[n++] = id;
				break;
			}
	return n;
}

/* ---- ops no fusion may cross -------------------------------------------------
 * { node op_type, why } — control flow owns bodies a kernel cannot inline;
 * the others make metadata a compiler folds, or outputs whose size only the
 * data decides. `suggest` cuts its chains at them (fusiondbg(1), SUGGEST). */
static const struct not_fusible {
	const char *op_type, *why;
} not_fusible[] = {
	{ "If", "control flow" },
	{ "Loop", "control flow" },
	{ "Scan", "control flow" },
	{ "SequenceMap", "control flow" },
	{ "Constant", "a constant" },
	{ "Shape", "shape metadata" },
	{ "Size", "shape metadata" },
	{ "NonZero", "data-dependent output shape" },
	{ "NonMaxSuppression", "data-dependent output shape" },
	{ "Unique", "data-dependent output shape" },
	{ "Compress", "data-dependent output shape" },
};

const char *optable_not_fusible(const char *op_type)
{
	for (int i = 0; op_type && i < countof(not_fusible); i++)
		if (!strcmp(op_type, not_fusible[i].op_type))
			return not_fusible[i].why;
	return NULL;
}

/* ---- what the lint asks of an op ------------------------------------------------ */

/* How many inputs an op can take at most; -1 unbounded or unknown. Only what
 * the lint needs to bound input indices and external-input counts. */
static const struct arity {
	const char *op;
	int max_inputs;
} arities[] = {
	{ "Conv2d", 3 }, { "Conv", 3 }, { "Conv1d", 3 }, { "Conv3d", 3 }, { "ConvTranspose", 3 },
	{ "FusedConv", 4 }, { "MaxPool", 1 }, { "AvgPool", 1 }, { "GlobalAveragePool", 1 },
	{ "GlobalMaxPool", 1 }, { "Pooling", 1 }, { "BatchNorm", 5 }, { "InstanceNorm", 3 },
	{ "LayerNorm", 3 }, { "SkipLayerNorm", 5 }, { "LRN", 1 },
	{ "Relu", 1 }, { "Relu6", 1 }, { "LeakyRelu", 1 }, { "PRelu", 2 }, { "Elu", 1 }, { "Sigmoid", 1 },
	{ "HardSigmoid", 1 }, { "HardSwish", 1 }, { "Tanh", 1 }, { "Softplus", 1 }, { "Swish", 1 },
	{ "Gelu", 2 }, { "FastGelu", 2 }, { "BiasGelu", 2 }, { "Clip", 3 }, { "Softmax", 1 }, { "LogSoftmax", 1 },
	{ "Add", 2 }, { "Mul", 2 }, { "Sub", 2 }, { "Div", 2 }, { "Pow", 2 }, { "BiasAdd", 2 }, { "Where", 3 },
	{ "Equal", 2 }, { "Erf", 1 }, { "Sqrt", 1 }, { "Exp", 1 }, { "Log", 1 }, { "Neg", 1 }, { "Abs", 1 },
	{ "Reciprocal", 1 }, { "MatMul", 2 }, { "Gemm", 3 }, { "FusedMatMul", 2 },
	{ "ReduceMean", 2 }, { "ReduceSum", 2 }, { "ReduceMax", 2 }, { "Reshape", 2 }, { "Transpose", 1 },
	{ "Flatten", 1 }, { "Squeeze", 2 }, { "Unsqueeze", 2 }, { "Split", 2 }, { "Slice", 5 }, { "Gather", 2 },
	{ "Expand", 2 }, { "Pad", 4 }, { "Resize", 4 }, { "Cast", 1 }, { "Identity", 1 }, { "Dropout", 3 },
	{ "Shape", 1 }, { "Constant", 0 }, { "ConstantOfShape", 1 },
};

int optable_max_inputs(int id)
{
	const fd_op_def *op = optable_get(id);
	if (!op)
		return -1;
	for (size_t i = 0; i < sizeof arities / sizeof *arities; i++)
		if (!strcmp(arities[i].op, op->name))
			return arities[i].max_inputs;
	return -1;
}

/* Ops whose output has the rank of their (first) input: a Conv's rank carries
 * through them to the match's output. */
bool optable_keeps_rank(int id)
{
	const fd_op_def *op = optable_get(id);
	if (!op)
		return false;
	const char *name = op->name;
	static const char *const names[] = {
		"BatchNorm", "InstanceNorm", "LayerNorm", "Relu", "Relu6", "LeakyRelu", "PRelu", "Elu", "Sigmoid",
		"HardSigmoid", "HardSwish", "Tanh", "Softplus", "Swish", "Gelu", "Clip", "Softmax", "Add", "Mul",
		"Sub", "Div", "BiasAdd", "Dropout", "Identity", "Cast", "MaxPool", "AvgPool", "GlobalAveragePool",
		"Max", "Min", "Sum", "Eltwise", "Pow", "Sqrt", "Erf", "Exp", "Neg", "Abs", "Reciprocal", NULL
	};
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* "groups, kernel_size, strides" */
const char *optable_param_list(const fd_op_def *op, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int p = 0; p < op->n_params && len < size - 40; p++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", p ? ", " : "", op->params[p].name);
	return buf;
}
