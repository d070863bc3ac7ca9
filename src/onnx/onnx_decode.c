/* onnx_decode.c — NodeProto, AttributeProto and TensorProto read in place
 * from their wire bytes into the views of onnx_msg.h: the fields the loader
 * converts and nothing more, each in two passes over its message (count,
 * then fill arrays of the right size from the arena).
 *
 * It only accepts what protobuf-c would read the same way, and leaves the
 * rest to it (-1): malformed framing, a known field with a wire type
 * protobuf-c refuses, a fixed-width packed field of a length that is no
 * multiple of its width, a singular message given twice (protobuf-c merges
 * them), a key or varint longer than protobuf-c reads, and the fields the
 * views do not carry (GRAPH, SPARSE_TENSOR, TYPE_PROTO attributes). Unknown
 * field numbers are skipped, as protobuf-c keeps them aside.
 *
 * A tensor's values are never read unless it is small (onnx_tensor_small):
 * raw_data becomes a view, a weight's fixed-width typed fields are only
 * framed, so those pages of the mapped file are never touched. A packed
 * varint run (int32_data, int64_data, uint64_data) is scanned whole, a
 * weight's too: protobuf-c refuses a varint of more than ten bytes anywhere
 * in it, and its element count is only known by counting (exporters write
 * weights as raw_data, so these runs are rare and short). Every tensor's
 * element counts are kept (onnx_data_counts) for the check of its data
 * against its dims.
 *
 * A tensor name (a node's input or output, a tensor's name) holding a NUL
 * byte is left to protobuf-c too, whose wire check refuses it by name. */
#include <string.h>
#include "onnx/onnx_msg.h"

enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2, WT_FIXED32 = 5 };

typedef struct field {
	uint32_t num;
	int wt;
	uint64_t v;             /* WT_VARINT */
	const uint8_t *data;    /* WT_LEN, WT_FIXED32, WT_FIXED64 */
	size_t len;
} field;

/* A varint of at most max bytes: protobuf-c reads 10 of a value, 5 of a
 * key or a length. */
static bool varint_long(const uint8_t **at, const uint8_t *end, uint64_t *v, int max)
{
	const uint8_t *p = *at;
	uint64_t x = 0;
	for (int i = 0; i < max && p < end; i++) {
		uint8_t c = *p++;
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			*at = p;
			return true;
		}
	}
	return false;
}

/* most varints are one byte: that case inline */
static inline __attribute__((always_inline)) bool varint_max(const uint8_t **at, const uint8_t *end,
                                                             uint64_t *v, int max)
{
	const uint8_t *p = *at;
	if (p < end && !(*p & 0x80)) {
		*v = *p;
		*at = p + 1;
		return true;
	}
	return varint_long(at, end, v, max);
}

static inline __attribute__((always_inline)) bool varint(const uint8_t **at, const uint8_t *end, uint64_t *v)
{
	return varint_max(at, end, v, 10);
}

/* The next field: 1, 0 at the end, -1 when malformed. */
static inline __attribute__((always_inline)) int next(const uint8_t **at, const uint8_t *end, field *f)
{
	if (*at >= end)
		return 0;
	uint64_t key;
	if (!varint_max(at, end, &key, 5) || key > UINT32_MAX || key >> 3 == 0)
		return -1;
	f->num = (uint32_t)(key >> 3);
	f->wt = (int)(key & 7);
	switch (f->wt) {
	case WT_VARINT:
		return varint(at, end, &f->v) ? 1 : -1;
	case WT_FIXED64:
	case WT_FIXED32:
		f->len = f->wt == WT_FIXED64 ? 8 : 4;
		if ((size_t)(end - *at) < f->len)
			return -1;
		f->data = *at;
		*at += f->len;
		return 1;
	case WT_LEN: {
		uint64_t n;
		if (!varint_max(at, end, &n, 5) || n > UINT32_MAX || n > (uint64_t)(end - *at))
			return -1;
		f->data = *at;
		f->len = (size_t)n;
		*at += n;
		return 1;
	}
	default:
		return -1;   /* groups and the unused wire types */
	}
}

/* A field this file does not read: an unknown number is skipped; a known one
 * is left to protobuf-c. */
static bool unread(const ProtobufCMessageDescriptor *desc, const field *f)
{
	return !protobuf_c_message_descriptor_get_field(desc, f->num);
}

/* a `string` view is read up to its first NUL by whoever reads it */
static onnx_str string_view(const field *f)
{
	return (onnx_str){ (const char *)f->data, f->len };
}

static onnx_str bytes_view(const field *f)
{
	return (onnx_str){ (const char *)f->data, f->len };
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- repeated scalars: packed or one field an element -------------------- */

/* The varints of a packed run: each ends in a byte below 0x80, and none
 * may be longer than ten bytes (protobuf-c's limit); -1 when one is. */
static int64_t varint_run_count(const uint8_t *p, size_t len)
{
	int64_t n = 0;
	unsigned run = 0;    /* continuation bytes so far in this varint */
	for (size_t i = 0; i < len; i++) {
		if (p[i] & 0x80) {
			if (++run == 10)
				return -1;
		} else {
			run = 0;
			n++;
		}
	}
	return run ? -1 : n;
}

/* Elements of one occurrence of a repeated field of wire type wt (its
 * elements' own: WT_VARINT, WT_FIXED32, WT_FIXED64); -1 when protobuf-c
 * would refuse it. */
static int64_t elems(const field *f, int wt)
{
	if (f->wt == wt)
		return 1;
	if (f->wt != WT_LEN)
		return -1;
	if (wt != WT_VARINT) {
		size_t w = wt == WT_FIXED32 ? 4 : 8;
		return f->len % w ? -1 : (int64_t)(f->len / w);
	}
	return varint_run_count(f->data, f->len);
}

static void put(void *out, size_t i, int width, uint64_t v)
{
	if (width == 4) {
		uint32_t w = (uint32_t)v;
		memcpy((uint8_t *)out + i * 4, &w, 4);
	} else {
		memcpy((uint8_t *)out + i * 8, &v, 8);
	}
}

/* Appends one occurrence's elements to out[*n..] (room checked by elems):
 * wt as for elems, width of the element in bytes for out. */
static void fill_elems(const field *f, int wt, int width, void *out, size_t *n, size_t max)
{
	if (f->wt != WT_LEN) {
		if (*n >= max)
			return;
		uint64_t v = wt == WT_VARINT ? f->v : wt == WT_FIXED32 ? le32(f->data) : le64(f->data);
		put(out, (*n)++, width, v);
		return;
	}
	for (const uint8_t *p = f->data, *end = p + f->len; p < end && *n < max; ++*n) {
		uint64_t v;
		if (wt == WT_VARINT) {
			if (!varint(&p, end, &v))
				return;   /* not reached: the run was checked */
		} else if (wt == WT_FIXED32)
			v = le32(p), p += 4;
		else
			v = le64(p), p += 8;
		put(out, *n, width, v);
	}
}

static void *alloc(pb_arena *a, size_t n, size_t size)
{
	return n ? a->allocator.alloc(a, n * size) : NULL;
}

/* ---- messages that are only checked --------------------------------------- */

/* StringStringEntryProto (external_data) and TensorProto.Segment: fields
 * of the wire types their descriptor names. */
static int check_small(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len)
{
	const uint8_t *at = p, *end = p + len;
	field f = { 0 };
	int rc;
	while ((rc = next(&at, end, &f)) > 0) {
		/* two fields each: a scan, not protobuf-c's search (a weight's
		 * external_data is three entries of two fields) */
		const ProtobufCFieldDescriptor *d = NULL;
		for (unsigned i = 0; i < desc->n_fields && !d; i++)
			if (desc->fields[i].id == f.num)
				d = &desc->fields[i];
		if (!d)
			continue;
		int want = d->type == PROTOBUF_C_TYPE_STRING ? WT_LEN : d->type == PROTOBUF_C_TYPE_INT64 ? WT_VARINT : -1;
		if (f.wt != want)
			return -1;
	}
	return rc;
}

/* ---- TensorProto ----------------------------------------------------------- */

enum { T_DIMS = 1, T_DATA_TYPE = 2, T_SEGMENT = 3, T_FLOAT = 4, T_INT32 = 5, T_STRING = 6, T_INT64 = 7,
       T_NAME = 8, T_RAW = 9, T_DOUBLE = 10, T_UINT64 = 11, T_DOC = 12, T_EXTERNAL = 13, T_LOCATION = 14 };

/* A typed value field: its number, element wire type and width in bytes. */
static const struct typed {
	uint32_t num;
	int wt, width;
} typed[] = {
	{ T_FLOAT, WT_FIXED32, 4 }, { T_INT32, WT_VARINT, 4 }, { T_INT64, WT_VARINT, 8 },
	{ T_DOUBLE, WT_FIXED64, 8 }, { T_UINT64, WT_VARINT, 8 },
};
enum { N_TYPED = sizeof typed / sizeof *typed };
static int typed_index(uint32_t num)
{
	for (int k = 0; k < N_TYPED; k++)
		if (typed[k].num == num)
			return k;
	return -1;
}

int onnx_decode_tensor(pb_arena *a, const uint8_t *p, size_t len, onnx_tensor_msg *out)
{
	memset(out, 0, sizeof *out);
	out->name = (onnx_str){ "", 0 };
	const uint8_t *at = p, *end = p + len;
	size_t n_dims = 0, typed_count[N_TYPED] = { 0 };
	bool any_typed = false;
	field f = { 0 };
	int rc;
	/* pass 1: the scalars, the views, the dims and values counted, the rest checked */
	while ((rc = next(&at, end, &f)) > 0) {
		int k = typed_index(f.num);
		if (k >= 0) {
			int64_t n = elems(&f, typed[k].wt);
			if (n < 0)
				return -1;
			typed_count[k] += (size_t)n;
			any_typed = true;
			continue;
		}
		switch (f.num) {
		case T_DIMS: {
			int64_t n = elems(&f, WT_VARINT);
			if (n < 0)
				return -1;
			n_dims += (size_t)n;
			break;
		}
		case T_DATA_TYPE:
		case T_LOCATION:
			if (f.wt != WT_VARINT)
				return -1;
			if (f.num == T_DATA_TYPE) {
				out->has_data_type = true;
				out->data_type = (int32_t)f.v;
			} else {
				out->external = (int32_t)f.v == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
			}
			break;
		case T_NAME:
		case T_RAW:
		case T_STRING:
		case T_DOC:
			if (f.wt != WT_LEN)
				return -1;
			if (f.num == T_NAME && memchr(f.data, 0, f.len))
				return -1;   /* protobuf-c's check names it */
			if (f.num == T_NAME)
				out->name = string_view(&f);
			out->counts.strings += f.num == T_STRING;
			if (f.num == T_RAW)
				out->values.raw = f.data, out->values.raw_len = f.len, out->values.has_raw = true;
			break;
		case T_SEGMENT:
		case T_EXTERNAL:
			if (f.wt != WT_LEN ||
			    check_small(f.num == T_SEGMENT ? &onnx__tensor_proto__segment__descriptor
			                                   : &onnx__string_string_entry_proto__descriptor, f.data, f.len))
				return -1;
			break;
		default:
			if (!unread(&onnx__tensor_proto__descriptor, &f))
				return -1;
		}
	}
	if (rc < 0)
		return -1;
	out->counts = (onnx_data_counts){ .f32 = typed_count[0], .i32 = typed_count[1], .strings = out->counts.strings,
	                                  .i64 = typed_count[2], .f64 = typed_count[3], .u64 = typed_count[4] };
	/* pass 2: the dims */
	int64_t *dims = alloc(a, n_dims, sizeof *dims);
	size_t nd = 0;
	for (at = p; n_dims && next(&at, end, &f) > 0;)
		if (f.num == T_DIMS)
			fill_elems(&f, WT_VARINT, 8, dims, &nd, n_dims);
	/* pass 3, a small tensor's only: its typed values, as many as it has
	 * elements (onnx_const_decode reads no more) */
	if (any_typed && onnx_tensor_small(dims, n_dims, out->external)) {
		size_t count = (size_t)onnx_dims_count(dims, n_dims);
		void *arr[N_TYPED];
		size_t have[N_TYPED] = { 0 };
		for (int k = 0; k < N_TYPED; k++)
			arr[k] = alloc(a, count, (size_t)typed[k].width);
		for (at = p; next(&at, end, &f) > 0;) {
			int k = typed_index(f.num);
			if (k < 0)
				continue;
			fill_elems(&f, typed[k].wt, typed[k].width, arr[k], &have[k], count);
		}
		onnx_tensor_src *v = &out->values;
		v->f32 = arr[0], v->n_f32 = have[0];
		v->i32 = arr[1], v->n_i32 = have[1];
		v->i64 = arr[2], v->n_i64 = have[2];
		v->f64 = arr[3], v->n_f64 = have[3];
		v->u64 = arr[4], v->n_u64 = have[4];
	}
	out->dims = dims;
	out->n_dims = n_dims;
	return 0;
}

/* ---- AttributeProto ----------------------------------------------------------- */

enum { A_NAME = 1, A_F = 2, A_I = 3, A_S = 4, A_T = 5, A_G = 6, A_FLOATS = 7, A_INTS = 8, A_STRINGS = 9,
       A_TENSORS = 10, A_GRAPHS = 11, A_DOC = 13, A_TP = 14, A_TYPE_PROTOS = 15, A_TYPE = 20,
       A_REF = 21, A_SPARSE = 22, A_SPARSES = 23 };

static int decode_attr(pb_arena *a, const uint8_t *p, size_t len, onnx_attr_msg *out)
{
	memset(out, 0, sizeof *out);
	out->name = out->ref_attr_name = out->s = (onnx_str){ "", 0 };
	const uint8_t *at = p, *end = p + len;
	size_t nf = 0, ni = 0, ns = 0, nt = 0, t_seen = 0;
	field f = { 0 };
	int rc;
	while ((rc = next(&at, end, &f)) > 0) {
		int64_t k;
		switch (f.num) {
		case A_NAME:
		case A_REF:
		case A_DOC:
		case A_S:
		case A_STRINGS:
			if (f.wt != WT_LEN)
				return -1;
			if (f.num == A_NAME)
				out->name = string_view(&f);
			else if (f.num == A_REF)
				out->ref_attr_name = string_view(&f);
			else if (f.num == A_S)
				out->s = bytes_view(&f), out->has_s = true;
			ns += f.num == A_STRINGS;
			break;
		case A_F:
			if (f.wt != WT_FIXED32)
				return -1;
			{
				uint32_t b = le32(f.data);
				memcpy(&out->f, &b, sizeof out->f);
			}
			out->has_f = true;
			break;
		case A_I:
		case A_TYPE:
			if (f.wt != WT_VARINT)
				return -1;
			if (f.num == A_I)
				out->i = (int64_t)f.v, out->has_i = true;
			else
				out->type = (int32_t)f.v, out->has_type = true;
			break;
		case A_FLOATS:
		case A_INTS:
			if ((k = elems(&f, f.num == A_FLOATS ? WT_FIXED32 : WT_VARINT)) < 0)
				return -1;
			*(f.num == A_FLOATS ? &nf : &ni) += (size_t)k;
			break;
		case A_T:
		case A_TENSORS:
			if (f.wt != WT_LEN || (f.num == A_T && t_seen++))
				return -1;   /* a second t: protobuf-c merges the two */
			nt += f.num == A_TENSORS;
			break;
		case A_G:
		case A_GRAPHS:
		case A_TP:
		case A_TYPE_PROTOS:
		case A_SPARSE:
		case A_SPARSES:
			return -1;   /* the rare kinds: protobuf-c's */
		default:
			if (!unread(&onnx__attribute_proto__descriptor, &f))
				return -1;
		}
	}
	if (rc < 0)
		return -1;
	if (!(nf | ni | ns | nt | t_seen))
		return 0;   /* a scalar: no arrays to fill */
	float *floats = alloc(a, nf, sizeof *floats);
	int64_t *ints = alloc(a, ni, sizeof *ints);
	onnx_str *strings = alloc(a, ns, sizeof *strings);
	onnx_tensor_msg *tensors = alloc(a, nt + (t_seen ? 1 : 0), sizeof *tensors);
	size_t kf = 0, ki = 0, ks = 0, kt = 0;
	for (at = p; next(&at, end, &f) > 0;) {
		switch (f.num) {
		case A_FLOATS: fill_elems(&f, WT_FIXED32, 4, floats, &kf, nf); break;
		case A_INTS: fill_elems(&f, WT_VARINT, 8, ints, &ki, ni); break;
		case A_STRINGS: strings[ks++] = bytes_view(&f); break;
		case A_T:
			if (onnx_decode_tensor(a, f.data, f.len, &tensors[nt]))
				return -1;
			out->t = &tensors[nt];
			break;
		case A_TENSORS:
			if (onnx_decode_tensor(a, f.data, f.len, &tensors[kt++]))
				return -1;
			break;
		default:
			break;
		}
	}
	out->floats = floats, out->n_floats = nf;
	out->ints = ints, out->n_ints = ni;
	out->strings = strings, out->n_strings = ns;
	out->tensors = tensors, out->n_tensors = nt;
	return 0;
}

/* ---- NodeProto --------------------------------------------------------------- */

enum { N_INPUT = 1, N_OUTPUT = 2, N_NAME = 3, N_OP_TYPE = 4, N_ATTRIBUTE = 5, N_DOC = 6, N_DOMAIN = 7 };

int onnx_decode_node(pb_arena *a, const uint8_t *p, size_t len, onnx_node_msg *out)
{
	memset(out, 0, sizeof *out);
	out->name = out->op_type = out->domain = (onnx_str){ "", 0 };
	const uint8_t *at = p, *end = p + len;
	size_t n_in = 0, n_out = 0, n_attr = 0;
	field f = { 0 };
	int rc;
	while ((rc = next(&at, end, &f)) > 0) {
		if (f.num > N_DOMAIN) {
			if (!unread(&onnx__node_proto__descriptor, &f))
				return -1;
			continue;
		}
		if (f.wt != WT_LEN)
			return -1;   /* every NodeProto field is length-delimited */
		if ((f.num == N_INPUT || f.num == N_OUTPUT) && memchr(f.data, 0, f.len))
			return -1;   /* a tensor name with a NUL: protobuf-c's check names it */
		switch (f.num) {
		case N_INPUT: n_in++; break;
		case N_OUTPUT: n_out++; break;
		case N_NAME: out->name = string_view(&f); break;
		case N_OP_TYPE: out->op_type = string_view(&f); break;
		case N_DOMAIN: out->domain = string_view(&f); break;
		case N_ATTRIBUTE: n_attr++; break;
		default: break;
		}
	}
	if (rc < 0)
		return -1;
	/* inputs and outputs in one array, as the converter takes them */
	onnx_str *names = alloc(a, n_in + n_out, sizeof *names);
	onnx_attr_msg *attrs = alloc(a, n_attr, sizeof *attrs);
	size_t ki = 0, ko = n_in, ka = 0;
	for (at = p; next(&at, end, &f) > 0;) {
		if (f.num == N_INPUT)
			names[ki++] = string_view(&f);
		else if (f.num == N_OUTPUT)
			names[ko++] = string_view(&f);
		else if (f.num == N_ATTRIBUTE && decode_attr(a, f.data, f.len, &attrs[ka++]))
			return -1;
	}
	out->input = names, out->n_input = n_in;
	out->output = names ? names + n_in : NULL, out->n_output = n_out;   /* NULL + 0 is undefined */
	out->attribute = attrs, out->n_attribute = n_attr;
	return 0;
}
