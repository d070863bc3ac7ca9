/* onnx_msg.h — the messages the loader converts, as views: a NodeProto, its
 * AttributeProtos and a TensorProto with their strings and tensor bytes left
 * where they lie (in the mapped file, or in what protobuf-c unpacked).
 *
 * Two makers, one shape, so that onnx_node.c has one converter:
 *   onnx_decode.c   reads the wire bytes in place (the main graph's nodes and
 *                   initializers, on two threads): names are views into the
 *                   file, a tensor's raw_data a view that is never read, its
 *                   typed fields decoded only when the tensor is small enough
 *                   to be a constant (onnx_tensor_small);
 *   onnx_msg.c      wraps a message protobuf-c unpacked (bodies of If / Loop /
 *                   Scan, and what the decoder leaves to protobuf-c), and picks
 *                   between the two for wire bytes.
 * A view lives as long as the arena it was made in and the bytes it points
 * into. Strings (onnx_str) need not end in a NUL, and every reader stops at
 * the first NUL inside one, as at the end of protobuf-c's C string (the
 * string pool does; so must any other reader). Private to the loader. */
#ifndef FD_ONNX_MSG_H
#define FD_ONNX_MSG_H
#include "onnx.pb-c.h"
#include "base/strmap.h"
#include "onnx/onnx_const.h"
#include "onnx/onnx_wire.h"

typedef fd_strview onnx_str;

typedef struct onnx_tensor_msg {
	onnx_str name;
	bool has_data_type;
	int32_t data_type;
	bool external;             /* data_location is EXTERNAL */
	const int64_t *dims;
	size_t n_dims;
	/* raw_data as a view; the typed fields only for a small tensor (the
	 * wire decoder leaves a weight's empty) */
	onnx_tensor_src values;
	onnx_data_counts counts;   /* every tensor's, a weight's too */
} onnx_tensor_msg;

typedef struct onnx_attr_msg {
	onnx_str name, ref_attr_name;
	bool has_type, has_f, has_i, has_s;
	int32_t type;
	float f;
	int64_t i;
	onnx_str s;
	const float *floats;
	size_t n_floats;
	const int64_t *ints;
	size_t n_ints;
	const onnx_str *strings;
	size_t n_strings;
	const onnx_tensor_msg *t;  /* NULL: absent */
	const onnx_tensor_msg *tensors;
	size_t n_tensors;
	/* the rare kinds: only in a message protobuf-c unpacked */
	const Onnx__GraphProto *g;
	Onnx__GraphProto *const *graphs;
	size_t n_graphs;
	const Onnx__SparseTensorProto *sparse_tensor;
	Onnx__SparseTensorProto *const *sparse_tensors;
	size_t n_sparse_tensors;
	bool has_tp;
	size_t n_type_protos;
} onnx_attr_msg;

typedef struct onnx_node_msg {
	onnx_str name, op_type, domain;
	const onnx_str *input;
	size_t n_input;
	const onnx_str *output;
	size_t n_output;
	const onnx_attr_msg *attribute;
	size_t n_attribute;
} onnx_node_msg;

/* onnx_decode.c: one message decoded from its wire bytes into views, the
 * arrays from a; -1 when the decoder leaves it to protobuf-c: a field of a
 * kind it does not read (a graph, a sparse tensor, a type), or anything
 * protobuf-c might read otherwise than it would (malformed bytes, a
 * singular message given twice). */
int onnx_decode_node(pb_arena *a, const uint8_t *p, size_t len, onnx_node_msg *out);
int onnx_decode_tensor(pb_arena *a, const uint8_t *p, size_t len, onnx_tensor_msg *out);

/* onnx_msg.c: the views of a message protobuf-c unpacked. */
const onnx_node_msg *onnx_msg_from_node(pb_arena *a, const Onnx__NodeProto *p);
const onnx_tensor_msg *onnx_msg_from_tensor(pb_arena *a, const Onnx__TensorProto *p);
/* A NodeProto / TensorProto at p (byte base of the file, nesting depth):
 * decoded in place, or else unpacked by protobuf-c (onnx_wire_unpack, which
 * says what is wrong in *err) and wrapped; NULL when malformed. */
const onnx_node_msg *onnx_msg_node(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth,
                                   wire_error *err);
const onnx_tensor_msg *onnx_msg_tensor(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth,
                                       wire_error *err);

#endif
