/* onnx_ops.c — the names of the standard ONNX operators as sorted tables:
 * ai.onnx up to opset 21 (with deprecated and removed experimental ops such as
 * Upsample, Scatter, ImageScaler, Crop, so old exports still count as
 * standard), ai.onnx.ml and ai.onnx.preview.training. Listed from python3-onnx
 * 1.12 (onnx.defs.get_all_schemas_with_history) plus the ops of opsets 18-21
 * and the removed experimental ones by hand. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "ir/onnx_ops.h"

/* each list sorted by strcmp: binary search below relies on it */
static const char *const ops_onnx[] = {
	"ATen", "Abs", "Acos", "Acosh", "Add", "Affine", "AffineGrid", "And", "ArgMax", "ArgMin",
	"Asin", "Asinh", "Atan", "Atanh", "AveragePool", "BatchNormalization", "Bernoulli",
	"BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "BlackmanWindow",
	"Cast", "CastLike", "Ceil", "Celu", "CenterCropPad", "Clip", "Col2Im", "Compress",
	"Concat", "ConcatFromSequence", "Constant", "ConstantFill", "ConstantOfShape", "Conv",
	"ConvInteger", "ConvTranspose", "Cos", "Cosh", "Crop", "CumSum", "DFT", "DeformConv",
	"DepthToSpace", "DequantizeLinear", "Det", "Div", "Dropout", "DynamicQuantizeLinear",
	"DynamicSlice", "Einsum", "Elu", "Equal", "Erf", "Exp", "Expand", "EyeLike", "Flatten",
	"Floor", "GRU", "GRUUnit", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm",
	"GivenTensorFill", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "Greater",
	"GreaterOrEqual", "GridSample", "GroupNormalization", "HammingWindow", "HannWindow",
	"HardSigmoid", "HardSwish", "Hardmax", "Identity", "If", "ImageDecoder", "ImageScaler",
	"InstanceNormalization", "IsInf", "IsNaN", "LRN", "LSTM", "LayerNormalization",
	"LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax", "Loop", "LpNormalization",
	"LpPool", "MatMul", "MatMulInteger", "Max", "MaxPool", "MaxRoiPool", "MaxUnpool", "Mean",
	"MeanVarianceNormalization", "MelWeightMatrix", "Min", "Mish", "Mod", "Mul",
	"Multinomial", "Neg", "NegativeLogLikelihoodLoss", "NonMaxSuppression", "NonZero", "Not",
	"OneHot", "Optional", "OptionalGetElement", "OptionalHasElement", "Or", "PRelu", "Pad",
	"ParametricSoftplus", "Pow", "QLinearConv", "QLinearMatMul", "QuantizeLinear", "RNN",
	"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Range",
	"Reciprocal", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
	"ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "RegexFullMatch",
	"Relu", "Reshape", "Resize", "ReverseSequence", "RoiAlign", "Round", "STFT", "Scale",
	"ScaledTanh", "Scan", "Scatter", "ScatterElements", "ScatterND", "Selu", "SequenceAt",
	"SequenceConstruct", "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength",
	"SequenceMap", "Shape", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Size", "Slice",
	"Softmax", "SoftmaxCrossEntropyLoss", "Softplus", "Softsign", "SpaceToDepth", "Split",
	"SplitToSequence", "Sqrt", "Squeeze", "StringConcat", "StringNormalizer", "StringSplit",
	"Sub", "Sum", "Tan", "Tanh", "TfIdfVectorizer", "ThresholdedRelu", "Tile", "TopK",
	"Transpose", "Trilu", "Unique", "Unsqueeze", "Upsample", "Where", "Xor",
};

static const char *const ops_ml[] = {
	"ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer",
	"FeatureVectorizer", "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor",
	"Normalizer", "OneHotEncoder", "SVMClassifier", "SVMRegressor", "Scaler", "TreeEnsemble",
	"TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap",
};

static const char *const ops_training[] = {
	"Adagrad", "Adam", "Gradient", "Momentum",
};

static const struct op_domain {
	const char *domain;
	const char *const *ops;
	size_t n;
} domains[] = {
	{ "", ops_onnx, sizeof ops_onnx / sizeof *ops_onnx },
	{ "ai.onnx.ml", ops_ml, sizeof ops_ml / sizeof *ops_ml },
	{ "ai.onnx.preview.training", ops_training, sizeof ops_training / sizeof *ops_training },
};

const char *onnx_domain_normal(const char *domain)
{
	return !domain || !strcmp(domain, ONNX_DOMAIN) ? "" : domain;
}

const char *onnx_domain_name(const char *domain)
{
	return domain && domain[0] ? domain : ONNX_DOMAIN;
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

bool onnx_op_is_standard(const char *domain, const char *op_type)
{
	if (!op_type)
		return false;
	domain = onnx_domain_normal(domain);
	for (size_t i = 0; i < sizeof domains / sizeof *domains; i++)
		if (!strcmp(domain, domains[i].domain))
			return bsearch(op_type, domains[i].ops, domains[i].n, sizeof(char *), cmp_name) != NULL;
	return false;
}

/* ---- versions ------------------------------------------------------------------ */

typedef struct op_versions {
	const char *name;
	int versions[8];   /* ascending; 0 ends the list */
} op_versions;

static const op_versions versions[] = {
#include "ir/onnx_op_versions.inc"
};

static int cmp_versions(const void *key, const void *elem)
{
	return strcmp(key, ((const op_versions *)elem)->name);
}

int onnx_op_since_version(const char *domain, const char *op_type, int opset)
{
	if (!op_type || onnx_domain_normal(domain)[0] || opset < 1 || opset > ONNX_OP_VERSIONS_OPSET)
		return -1;
	const op_versions *v = bsearch(op_type, versions, sizeof versions / sizeof *versions, sizeof *versions,
	                               cmp_versions);
	int since = -1;
	for (int k = 0; v && k < 8 && v->versions[k] && v->versions[k] <= opset; k++)
		since = v->versions[k];
	return since;
}
static_assert(ONNX_OP_VERSIONS_OPSET == ONNX_OP_VERSIONS_OPSET_MAX, "onnx_ops.h says the table's opset");
