/* suggest_kernel.c — what makes a suggested pattern a kernel: the heavy
 * compute ops, one table. A pattern holds at most max_heavy of them
 * (suggest.h, default 1); every other op of it is the prologue or epilogue
 * a kernel of that op runs on its operands or its result (a bias, an
 * activation, a norm, a cast). Two heavy ops in one pattern are two
 * kernels a compiler would write apart (Conv -> SiLU -> Conv is two
 * Conv -> SiLU kernels). */
#include <string.h>
#include "suggest/suggest_internal.h"

/* The ONNX op types (any domain) whose work is a contraction over a weight
 * or another activation: their own kernels, chosen by tiling. */
static const char *const HEAVY_OPS[] = {
	"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "FusedConv", "NhwcConv",
	"MatMul", "MatMulInteger", "QLinearMatMul", "MatMulNBits", "FusedMatMul", "Gemm", "FusedGemm",
	"Einsum", "Attention", "MultiHeadAttention", "LSTM", "GRU", "RNN",
};

bool suggest_op_is_heavy(const char *op_type)
{
	for (size_t i = 0; i < sizeof HEAVY_OPS / sizeof *HEAVY_OPS; i++)
		if (!strcmp(HEAVY_OPS[i], op_type))
			return true;
	return false;
}

const char *suggest_heavy_list(void)
{
	return "Conv, ConvTranspose, MatMul, Gemm, Einsum, …";
}
