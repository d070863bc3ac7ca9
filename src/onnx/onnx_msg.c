/* onnx_msg.c — the views of onnx_msg.h made from what protobuf-c unpacked,
 * and the choice for wire bytes: onnx_decode.c in place, protobuf-c for what
 * it leaves (the rare kinds, and malformed bytes, which protobuf-c and the
 * wire check then report as they always have). Views made here point into
 * the protobuf-c message, which must outlive them. */
#include <string.h>
#include "onnx/onnx.h"
#include "onnx/onnx_msg.h"

static bool wire_decoder = true;

void onnx_test_wire_decoder(bool on)
{
	wire_decoder = on;
}

static void *alloc(pb_arena *a, size_t n, size_t size)
{
	return n ? a->allocator.alloc(a, n * size) : NULL;
}

static onnx_str str(const char *s)
{
	return s ? (onnx_str){ s, strlen(s) } : (onnx_str){ "", 0 };
}

static onnx_str bytes(ProtobufCBinaryData b)
{
	return b.data ? (onnx_str){ (const char *)b.data, b.len } : (onnx_str){ "", 0 };
}

static void tensor_view(const Onnx__TensorProto *p, onnx_tensor_msg *t)
{
	*t = (onnx_tensor_msg){
		.name = str(p->name), .has_data_type = p->has_data_type, .data_type = p->data_type,
		.external = p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL,
		.dims = p->dims, .n_dims = p->n_dims,
		.values = {
			.raw = p->raw_data.data, .raw_len = p->raw_data.len, .has_raw = p->has_raw_data,
			.f32 = p->float_data, .n_f32 = p->n_float_data,
			.i32 = p->int32_data, .n_i32 = p->n_int32_data,
			.i64 = p->int64_data, .n_i64 = p->n_int64_data,
			.f64 = p->double_data, .n_f64 = p->n_double_data,
			.u64 = p->uint64_data, .n_u64 = p->n_uint64_data,
		},
		.counts = { .f32 = p->n_float_data, .i32 = p->n_int32_data, .strings = p->n_string_data,
		            .i64 = p->n_int64_data, .f64 = p->n_double_data, .u64 = p->n_uint64_data },
	};
}

const onnx_tensor_msg *onnx_msg_from_tensor(pb_arena *a, const Onnx__TensorProto *p)
{
	onnx_tensor_msg *t = alloc(a, 1, sizeof *t);
	tensor_view(p, t);
	return t;
}

static void attr_view(pb_arena *a, const Onnx__AttributeProto *p, onnx_attr_msg *v)
{
	*v = (onnx_attr_msg){
		.name = str(p->name), .ref_attr_name = str(p->ref_attr_name),
		.has_type = p->has_type, .has_f = p->has_f, .has_i = p->has_i, .has_s = p->has_s,
		.type = (int32_t)p->type, .f = p->f, .i = p->i, .s = bytes(p->s),
		.floats = p->floats, .n_floats = p->n_floats, .ints = p->ints, .n_ints = p->n_ints,
		.n_strings = p->n_strings, .n_tensors = p->n_tensors,
		.g = p->g, .graphs = p->graphs, .n_graphs = p->n_graphs,
		.sparse_tensor = p->sparse_tensor, .sparse_tensors = p->sparse_tensors,
		.n_sparse_tensors = p->n_sparse_tensors, .has_tp = p->tp != NULL, .n_type_protos = p->n_type_protos,
	};
	onnx_str *strings = alloc(a, p->n_strings, sizeof *strings);
	for (size_t i = 0; i < p->n_strings; i++)
		strings[i] = bytes(p->strings[i]);
	v->strings = strings;
	onnx_tensor_msg *tensors = alloc(a, p->n_tensors + 1, sizeof *tensors);
	for (size_t i = 0; i < p->n_tensors; i++)
		tensor_view(p->tensors[i], &tensors[i]);
	v->tensors = tensors;
	if (p->t) {
		tensor_view(p->t, &tensors[p->n_tensors]);
		v->t = &tensors[p->n_tensors];
	}
}

const onnx_node_msg *onnx_msg_from_node(pb_arena *a, const Onnx__NodeProto *p)
{
	onnx_node_msg *n = alloc(a, 1, sizeof *n);
	*n = (onnx_node_msg){ .name = str(p->name), .op_type = str(p->op_type), .domain = str(p->domain) };
	onnx_str *names = alloc(a, p->n_input + p->n_output, sizeof *names);
	for (size_t i = 0; i < p->n_input; i++)
		names[i] = str(p->input[i]);
	for (size_t i = 0; i < p->n_output; i++)
		names[p->n_input + i] = str(p->output[i]);
	n->input = names, n->n_input = p->n_input;
	n->output = names ? names + p->n_input : NULL, n->n_output = p->n_output;   /* NULL + 0 is undefined */
	onnx_attr_msg *attrs = alloc(a, p->n_attribute, sizeof *attrs);
	for (size_t i = 0; i < p->n_attribute; i++)
		if (p->attribute[i])
			attr_view(a, p->attribute[i], &attrs[n->n_attribute++]);
	n->attribute = attrs;
	return n;
}

const onnx_node_msg *onnx_msg_node(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth,
                                   wire_error *err)
{
	onnx_node_msg *n = alloc(a, 1, sizeof *n);
	if (wire_decoder && !onnx_decode_node(a, p, len, n))
		return n;
	const Onnx__NodeProto *pb = onnx_wire_unpack(&onnx__node_proto__descriptor, &a->allocator, p, len, base,
	                                             depth, err);
	return pb ? onnx_msg_from_node(a, pb) : NULL;
}

const onnx_tensor_msg *onnx_msg_tensor(pb_arena *a, const uint8_t *p, size_t len, size_t base, int depth,
                                       wire_error *err)
{
	onnx_tensor_msg *t = alloc(a, 1, sizeof *t);
	if (wire_decoder && !onnx_decode_tensor(a, p, len, t))
		return t;
	const Onnx__TensorProto *pb = onnx_wire_unpack(&onnx__tensor_proto__descriptor, &a->allocator, p, len,
	                                               base, depth, err);
	return pb ? onnx_msg_from_tensor(a, pb) : NULL;
}
