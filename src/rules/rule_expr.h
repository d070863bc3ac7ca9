/* rule_expr.h — the expressions of an op's `where` (fusiondbg-rules(5),
 * ATTRIBUTE PREDICATES): one small language for allowed values, ranges and
 * relations between attributes and shapes, instead of a key per kind of
 * predicate:
 *
 *   where: "mode == 'constant'"
 *   where: "alpha >= 0 && alpha <= 0.5"
 *   where: "perm[:-2] == range(rank - 2) && perm[-2:] == [rank - 1, rank - 2]"
 *
 * Here: the parser (text -> tree, with the byte offset of every error) and
 * the table of built-in functions, which `check` and the matcher share. The
 * evaluation over a node is the matcher's (match/match_where.c); which names
 * an op has is `check`'s (rule_check_ext.c). A tree lives in the arena it
 * was parsed into (the rule set's) and points into the text it came from. */
#ifndef FD_RULE_EXPR_H
#define FD_RULE_EXPR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"

typedef enum fd_expr_kind {
	EX_INT, EX_FLOAT, EX_STR, EX_BOOL, EX_NULL,
	EX_NAME,        /* a param of the op, `rank`, or a tensor: inputK / outputK; opJ.NAME: op J's */
	EX_LIST,        /* [a, b, …] */
	EX_CALL,        /* name(args…) */
	EX_INDEX,       /* args[0][args[1]] (negative counts from the end) */
	EX_SLICE,       /* args[0][args[1]:args[2]], either bound NULL */
	EX_NEG, EX_NOT, /* -args[0], !args[0] */
	EX_BINARY,      /* args[0] op args[1] */
} fd_expr_kind;

/* Binary operators, loosest first within || && (compare) (+ -) (* / %). */
#define FD_EXPR_OPS(X) \
	X(OR, "||") X(AND, "&&") \
	X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=") X(IN, "in") X(NOT_IN, "not in") \
	X(ADD, "+") X(SUB, "-") X(MUL, "*") X(DIV, "/") X(MOD, "%")

typedef enum fd_expr_op {
#define FD_EXPR_OP_ENUM(id, text) XO_##id,
	FD_EXPR_OPS(FD_EXPR_OP_ENUM)
#undef FD_EXPR_OP_ENUM
	XO_COUNT
} fd_expr_op;

typedef struct fd_expr fd_expr;
struct fd_expr {
	fd_expr_kind kind;
	fd_expr_op op;             /* EX_BINARY */
	int32_t at, len;           /* its characters in text (byte offset, length) */
	const char *text;          /* the whole expression */
	int64_t i;                 /* EX_INT, EX_BOOL; EX_NAME of a tensor: K */
	double f;                  /* EX_FLOAT */
	const char *s;             /* EX_STR (unquoted), EX_NAME, EX_CALL: the name */
	int tensor;                /* EX_NAME: 0 a param or rank, 'i' inputK, 'o' outputK */
	int op_ref;                /* EX_NAME: J of opJ.NAME (the name read on pattern op J), -1 the op's own */
	int n;                     /* operands, items, arguments */
	fd_expr **args;
};

/* Parses text. On an error returns NULL, *err_at the byte offset where it
 * is and err the message ("expected ')'"). Trees nest at most
 * FD_EXPR_MAX_DEPTH deep (an error beyond), each operand of a chain
 * (a + b + c) a level: evaluating never recurses deeper than that. An
 * integer literal beyond int64, or a number beyond double's range, is an
 * error at its first character (INT64_MIN is written -9223372036854775807 - 1,
 * as in C). */
#define FD_EXPR_MAX_DEPTH 64
/* The list items one evaluation of an expression may build, all its lists
 * together (range(), shape(), slices, +, literals…): past it the
 * evaluation ends with a fault, before allocating. An expression is
 * evaluated on every candidate node, so this bounds what a rule can cost
 * per node: 8192 items, about 320 KB, twice the largest constant a rule
 * reads (FD_CONST_MAX values); a shape or a perm is far below. (At 65536
 * the fuzzer's slow-input limit caught an expression of 89 bytes building
 * 48,576 items on every node: 1.9 s on two small models under ASan.) */
#define FD_EXPR_MAX_ITEMS 8192
fd_expr *expr_parse(fd_arena *a, const char *text, size_t *err_at, char *err, size_t errsize);

/* The text of e as written. */
static inline const char *expr_text(const fd_expr *e, int *len)
{
	*len = e->len;
	return e->text + e->at;
}

const char *expr_op_text(fd_expr_op op);

/* The built-in functions: X(id, name, min args, max args, first argument a
 * tensor, what it gives). */
#define FD_EXPR_FUNCS(X) \
	X(LEN,       "len",       1, 1, false, "the length of a list or string") \
	X(RANGE,     "range",     1, 2, false, "range(n): [0, 1, …, n-1]; range(a, b): [a, …, b-1]") \
	X(ABS,       "abs",       1, 1, false, "the absolute value") \
	X(MIN,       "min",       1, 2, false, "the smaller of two numbers, or the least item of a list") \
	X(MAX,       "max",       1, 2, false, "the larger of two numbers, or the greatest item of a list") \
	X(SORTED,    "sorted",    1, 1, false, "a list in ascending order") \
	X(ATTR,      "attr",      1, 1, false, "the node's ONNX attribute of that name, null when absent") \
	X(KNOWN,     "known",     1, 1, false, "true when a value is known this run, else false") \
	X(RANK,      "rank",      1, 1, true,  "the rank of a tensor") \
	X(SHAPE,     "shape",     1, 1, true,  "the dims of a tensor") \
	X(DIM,       "dim",       2, 2, true,  "dim(t, i): dim i of a tensor (negative from the end)") \
	X(DTYPE,     "dtype",     1, 1, true,  "the element type: 'float32', 'float16', …") \
	X(VALUE,     "value",     1, 1, true,  "a small constant's values (a number for one element)") \
	X(CONSUMERS, "consumers", 1, 1, true,  "how many inputs of other nodes read a tensor") \
	X(PRODUCER,  "producer",  1, 1, true,  "the op type of the node making a tensor, null for none") \
	X(READERS,   "readers",   1, 1, true,  "the op types of the nodes reading a tensor, sorted, one per input read") \
	X(OUTER,     "outer",     1, 1, true,  "true when a body reads the tensor from an enclosing graph") \
	X(QMIN,      "qmin",      1, 1, true,  "the least value of a tensor's integer type: uint8 0, int8 -128, …") \
	X(QMAX,      "qmax",      1, 1, true,  "the greatest value of a tensor's integer type: uint8 255, int8 127, …") \
	X(FLOAT32,   "float32",   1, 1, false, "a number rounded to the nearest 32-bit float, as C's (float) does")

typedef enum fd_expr_func {
#define FD_EXPR_FUNC_ENUM(id, name, lo, hi, tensor, doc) XF_##id,
	FD_EXPR_FUNCS(FD_EXPR_FUNC_ENUM)
#undef FD_EXPR_FUNC_ENUM
	XF_COUNT
} fd_expr_func;

typedef struct fd_expr_func_def {
	const char *name;
	int min_args, max_args;
	bool tensor_arg;
	const char *doc;
} fd_expr_func_def;

/* The function of that name, or -1. */
int expr_func_lookup(const char *name);
/* The names of every function, ", "-separated, into buf. */
void expr_func_names(char *buf, size_t size);
const fd_expr_func_def *expr_func(int f);

#endif
