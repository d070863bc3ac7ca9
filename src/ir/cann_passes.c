/* cann_passes.c — the passes CANN's FE runs whatever a switch file says
 * (cann_switch.h): the list FE hard-codes as its forbidden-closed passes
 * (its fusion_pass_util.h, ForbiddenClosedPass), names only. A pass a
 * library registers with FRBDN_CLOSE cannot be switched off either; those
 * are known only to CANN at run time. Sorted, looked up by bsearch. */
#include <stdlib.h>
#include <string.h>
#include "ir/cann_switch.h"

static const char *const forbidden_closed[] = {
	"AABiasaddConvFusion", "ADeformableConv2dPass", "ADepthwiseFusionPass", "ALSTMFusionPass",
	"AReduceMeanFusionPass", "AReduceSumFusionPass", "AddNFusionPass", "ApplyAddOutputPass",
	"ArgMaxWithFusionPass", "AvgPool3DFusionPass", "AvgPool3DGradFusionPass", "AvgPoolGradFusionPass",
	"AvgPoolQuantProcessFusionPass", "BatchMatmulV2QuantProcessFusionPass", "BatchNormBnInferFusionPass",
	"BatchNormGradBnInferGradFusion", "BatchNormGradInfGradFusion", "COPYPass", "CommonLSTMFusionPass",
	"ConstToAttrGatherV2Fusion", "ConstToAttrPass", "ConstToAttrReduceSumFusion",
	"ConstToAttrResizeNearestNeighborGradFusion", "Conv2DQuantProcessFusionPass",
	"Conv2DTDQuantProcessFusionPass", "DWConv2DQuantProcessFusionPass", "DeConvQuantProcessFusionPass",
	"DeformableOffsetsFusionPass", "DepthwiseDfFusionPass", "DepthwiseDwMulFusionPass", "DepthwiseFusionPass",
	"DepthwiseInsertTransDataFusionPass", "DepthwiseToConv2dFusionPass", "DreluFusionPass",
	"DynamicGRUV2GradFusionPass", "DynamicRNNFusionPass", "DynamicRNNGradAFusionPass",
	"DynamicRNNGradAlignFusionPass", "DynamicRNNGradDAlignFusionPass", "DynamicRNNGradDFusionPass",
	"DynamicRNNGradFusionPass", "DynamicRNNInsertTransposePass", "DynamicRNNSeqFusionPass", "EinsumPass",
	"FCQuantProcessFusionPass", "FusedBatchNormBertFusionPass", "FusedBatchNormGradFusionPass",
	"FusedBatchnormFusionPass", "Globalavgpoolpass", "GroupConv2DQuantProcessFusionPass", "HostBNFusionPass",
	"MapIndexFusionPass", "MatmulV2QuantProcessFusionPass", "MaxPoolWithArgmaxFusionPass", "NormalizeFusionPass",
	"PReluGradFusionPass", "PackFusionPass", "PassThroughFusionPass", "PassThroughSecondFusionPass",
	"PermuteFusionPass", "PoolingQuantProcessFusionPass", "PriorBoxPass", "ProposalFusionPass", "RNNFusionPass",
	"SPPPass", "SingleBatchNormFusion", "SoftmaxGradExtFusion", "SpatialTransformerDPass",
	"TbeAntiquantMaxpoolingFusionPass", "TbeConvCommonRules0FusionPass", "TbeConvCommonRules2FusionPass",
	"TbeConvDequantS16FusionPass", "TbeConvRequantFusionPass", "TfMergeConv2DBackpropInputFusionPass",
	"TfMergeSubFusionPass", "TfTagNoConstFoldingFusionPass", "TransdataCastFusionPass",
	"TransposedUpdateFusionPass", "UnpackFusionPass", "V100NotRequantFusionPass", "V200NotRequantFusionPass",
	"YoloPass", "YoloV2DetectionOutputPass", "YoloV3DetectionOutputV2Pass", "ZConcatDFusionPass",
	"ZConfusionSoftmaxGradFusionPass", "ZSplitVDFusionPass", "ZSplitVFusionPass", "clip_by_norm_nodivsquaresum",
	"sedBatchNormGradFusionPass",   /* sic: the name as FE spells it */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool cann_pass_forbidden_closed(const char *name)
{
	return bsearch(&name, forbidden_closed, sizeof forbidden_closed / sizeof *forbidden_closed,
	               sizeof *forbidden_closed, by_name) != NULL;
}
