/* onnx_ops.h — names of the standard ONNX operators (ai.onnx, ai.onnx.ml), as
 * data, so `info` can list the op types no standard defines (unknown_ops),
 * and the versions of the ai.onnx ones (where's since_version); and the one
 * spelling of the default domain that nodes and opset imports hold. */
#ifndef FD_ONNX_OPS_H
#define FD_ONNX_OPS_H
#include <stdbool.h>

/* The default ONNX domain's name as a model may write it. Nodes and opset
 * imports hold that domain as "" however the model spells it: every path
 * that makes a node (the loader, a rewritten model) stores
 * onnx_domain_normal's answer, so node_is (graph.h) and every comparison of
 * domains can trust "" alone. */
#define ONNX_DOMAIN "ai.onnx"
/* "" for NULL, "" and ONNX_DOMAIN; any other domain as it is. */
const char *onnx_domain_normal(const char *domain);
/* The domain for people to read: ONNX_DOMAIN for the default one. */
const char *onnx_domain_name(const char *domain);

bool onnx_op_is_standard(const char *domain, const char *op_type);
/* The version of ai.onnx operator op_type a model importing opset runs (its
 * since_version: Conv is 1 below opset 11, then 11), -1 when the op is not
 * ai.onnx's, has no version by then, or opset is newer than the table
 * (ONNX_OP_VERSIONS_OPSET, onnx_op_versions.inc). */
int onnx_op_since_version(const char *domain, const char *op_type, int opset);
/* The newest opset the table knows (onnx_op_versions.inc's ONNX_OP_VERSIONS_OPSET). */
#define ONNX_OP_VERSIONS_OPSET_MAX 17

#endif
