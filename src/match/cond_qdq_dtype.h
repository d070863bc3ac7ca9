/* cond_qdq_dtype.h — the operand condition qdq_dtype between its file
 * (cond_qdq_dtype.c: reading it, what the data runs as) and the operand
 * family that checks it in one event with dtype (cond_operand.c). */
#ifndef FD_COND_QDQ_DTYPE_H
#define FD_COND_QDQ_DTYPE_H
#include <stddef.h>
#include <stdint.h>
#include "ir/graph.h"
#include "match/match.h"
#include "rules/schema.h"

/* A dtype name or a list of them into out[0..*n), errors at path. */
bool cond_dtype_list_parse(fd_schema *s, const fd_yval *v, const char *path, int32_t **out, int *n);

/* The type of the quantized data operand t (read by node at slot) as
 * onnxruntime's CPU kernels get it: the data is t itself; for a zero
 * point (slot 2 of a QuantizeLinear or DequantizeLinear) the data it
 * belongs to; for the output of a DequantizeLinear the data it reads. int8 data a QuantizeLinear writes for one DequantizeLinear
 * is uint8 when QDQS8ToU8Transformer turns the pair into uint8 (readers
 * that only compute constants are folded first and do not count). why gets
 * the reason in words ("" when the data is not int8 from a Q); data the
 * data tensor. The output of a node QDQPropagationTransformer moves a DQ
 * through (MaxPool, Reshape, Transpose, Squeeze, Unsqueeze, Slice at the
 * versions it knows, m's opset deciding) reads as a copy of that DQ. */
int32_t cond_qdq_dtype_of(const fd_graph_index *ix, const fd_model *m, int32_t node, int slot, int32_t t,
                          int32_t *data, char *why, size_t size);
#endif
