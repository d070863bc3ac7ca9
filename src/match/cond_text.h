/* cond_text.h — the words the conditions' checks share (cond_text.c): a
 * value as the rule writes it, a node's param value, a composite's kind.
 * An op's type list, a tensor's name and an empty facts record too.
 * explain/ words the same things through these (explain_yval, explain_pval,
 * explain_composite_name), so a trace and a condition's facts agree. */
#ifndef FD_COND_TEXT_H
#define FD_COND_TEXT_H
#include <stddef.h>
#include "match/param_value.h"
#include "rules/yaml_tree.h"
#include "match/conditions.h"

/* "[1, 1]", "\"NCHW\"", "null", "{…}". Returns buf. */
char *cond_yval_text(const fd_yval *v, char *buf, size_t size);
/* "3", "[1, 2, …]", "absent", "no such param". Returns buf. */
char *cond_pval_text(const fd_pval *v, char *buf, size_t size);
/* "Swish", "Gelu", "LayerNorm", "BiasAdd" (fd_composite), "?" otherwise. */
const char *cond_composite_name(int kind);
/* An op's type list as written: "[Relu, Sigmoid]". Returns buf. */
char *cond_types_text(const fd_rule_op *op, char *buf, size_t size);
/* "w (initializer)", "x (graph input)", "y from conv1 (Conv)". */
void cond_tensor_origin(const fd_match_ctx *ctx, int32_t gi, int64_t t, char *buf, size_t size);
/* Tensor t's name, "-" when there is none. */
const char *cond_tensor_name(const fd_graph *g, int64_t t);
/* Every field of a facts record empty: the condition holds, nothing decided. */
void cond_facts_clear(fd_cond_facts *f);

/* The most inputs any of op's types takes (optable_max_inputs), -1 when one
 * is unbounded or unknown. */
int cond_op_max_inputs(const fd_rule_op *op);
/* The op's canonical type ("Conv2d"), or its list ("[Relu, Tanh]"). Returns buf. */
const char *cond_op_types_name(const fd_rule_op *op, char *buf, size_t size);

#endif
