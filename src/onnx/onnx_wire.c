/* onnx_wire.c — wire-format walking for the ONNX loader (see onnx_wire.h). */
#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "onnx/onnx_wire.h"

static int read_varint_long(const uint8_t *p, size_t len, size_t *at, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*at >= len)
			return -1;
		uint8_t c = p[(*at)++];
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* A key is one byte, a message's length one or two: those cases inline. */
static inline __attribute__((always_inline)) int read_varint(const uint8_t *p, size_t len, size_t *at, uint64_t *v)
{
	if (*at < len && len - *at >= 2) {
		const uint8_t *q = p + *at;
		if (!(q[0] & 0x80)) {
			*v = q[0];
			*at += 1;
			return 0;
		}
		if (!(q[1] & 0x80)) {
			*v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
			*at += 2;
			return 0;
		}
	}
	return read_varint_long(p, len, at, v);
}

/* Skips one field's value after its key; -1 when the data ends early. */
static inline __attribute__((always_inline)) int skip_value(const uint8_t *p, size_t len, size_t *at, uint64_t key, uint64_t *vlen)
{
	uint64_t v;
	*vlen = 0;
	switch (key & 7) {
	case 0:
		return read_varint(p, len, at, &v);
	case 1:
	case 5: {
		size_t w = (key & 7) == 1 ? 8 : 4;
		if (len - *at < w)
			return -1;
		*at += w;
		return 0;
	}
	case 2:
		if (read_varint(p, len, at, &v) || v > len - *at)
			return -1;
		*vlen = v;
		*at += (size_t)v;
		return 0;
	default:
		return -2; /* groups (3, 4) and 6, 7: not in ONNX */
	}
}

bool onnx_wire_tensor_name(const ProtobufCMessageDescriptor *desc, uint32_t field)
{
	static const struct {
		const char *message;
		uint32_t fields;    /* a bit per field number */
	} names[] = {
		{ "onnx.NodeProto", 1u << 1 | 1u << 2 },   /* input, output */
		{ "onnx.TensorProto", 1u << 8 },           /* name */
		{ "onnx.ValueInfoProto", 1u << 1 },        /* name */
	};
	for (size_t i = 0; field < 32 && i < sizeof names / sizeof *names; i++)
		if (!strcmp(desc->name, names[i].message))
			return names[i].fields >> field & 1;
	return false;
}

static int check(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
                 size_t base, int depth, const wire_skip *skip, wire_error *err)
{
	if (depth > WIRE_MAX_DEPTH) {
		*err = (wire_error){ .at = base, .why = "messages nested too deeply" };
		return -1;
	}
	bool skipping = skip && skip->desc == desc && skip->depth == depth;
	size_t at = 0;
	while (at < len) {
		size_t start = at;
		uint64_t key, vlen;
		if (read_varint(p, len, &at, &key)) {
			*err = (wire_error){ .at = base + start, .why = "truncated" };
			return -1;
		}
		if ((key >> 3) == 0) {
			*err = (wire_error){ .at = base + start, .why = "bad field key" };
			return -1;
		}
		int rc = skip_value(p, len, &at, key, &vlen);
		if (rc) {
			*err = (wire_error){ .at = base + start, .why = rc == -2 ? "bad wire type" : "truncated" };
			return -1;
		}
		if ((key & 7) != 2 || (skipping && (key >> 3) < 32 && (skip->fields >> (key >> 3) & 1)))
			continue;
		const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(desc, (unsigned)(key >> 3));
		if (f && f->type == PROTOBUF_C_TYPE_STRING && onnx_wire_tensor_name(desc, f->id) &&
		    memchr(p + at - vlen, 0, (size_t)vlen)) {
			*err = (wire_error){ base + start, NULL, p + at - vlen, (size_t)vlen };
			return -1;
		}
		if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
		    check(f->descriptor, p + at - vlen, (size_t)vlen, base + at - vlen, depth + 1, skip, err))
			return -1;
	}
	return 0;
}

int onnx_wire_check(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
               const wire_skip *skip, wire_error *err)
{
	return check(desc, p, len, 0, 0, skip, err);
}

const void *onnx_wire_unpack(const ProtobufCMessageDescriptor *desc, ProtobufCAllocator *a, const uint8_t *p,
                        size_t len, size_t base, int depth, wire_error *err)
{
	*err = (wire_error){ base, NULL, NULL, 0 };
	if (check(desc, p, len, base, depth, NULL, err))
		return NULL;
	*err = (wire_error){ base, NULL, NULL, 0 };
	return protobuf_c_message_unpack(desc, a, len, p);
}

int onnx_wire_next(const uint8_t *p, size_t len, size_t *at, unsigned field, const uint8_t **data, size_t *n)
{
	while (*at < len) {
		uint64_t key, vlen;
		if (read_varint(p, len, at, &key) || skip_value(p, len, at, key, &vlen))
			return 0;
		if ((key & 7) == 2 && (key >> 3) == field) {
			*data = p + *at - vlen;
			*n = (size_t)vlen;
			return 1;
		}
	}
	return 0;
}

void onnx_wire_spans(const uint8_t *p, size_t len, wire_span *spans, unsigned n_fields)
{
	memset(spans, 0, n_fields * sizeof *spans);
	size_t at = 0;
	while (at < len) {
		size_t start = at;
		uint64_t key, vlen;
		if (read_varint(p, len, &at, &key) || skip_value(p, len, &at, key, &vlen))
			return;
		uint64_t f = key >> 3;
		if ((key & 7) != 2 || f >= n_fields)
			continue;
		if (!spans[f].count++)
			spans[f].first = start;
		spans[f].end = at;
	}
}

size_t onnx_wire_strip(const uint8_t *p, size_t len, unsigned field, uint8_t *out)
{
	size_t at = 0, w = 0;
	while (at < len) {
		size_t start = at;
		uint64_t key, vlen;
		if (read_varint(p, len, &at, &key) || skip_value(p, len, &at, key, &vlen))
			break;
		if ((key >> 3) == field)
			continue;
		memcpy(out + w, p + start, at - start);
		w += at - start;
	}
	return w;
}

/* Files people mistake for models, by their first bytes. */
static const struct magic {
	const char *bytes;
	size_t len;
	const char *what;
} magics[] = {
	{ "\x89PNG\r\n\x1a\n", 8, "a PNG image" },
	{ "\xff\xd8\xff", 3, "a JPEG image" },
	{ "GIF8", 4, "a GIF image" },
	{ "PK\x03\x04", 4, "a zip archive (a PyTorch checkpoint?)" },
	{ "\x1f\x8b", 2, "gzip data" },
	{ "\x7f" "ELF", 4, "an ELF binary" },
	{ "\x93NUMPY", 6, "a NumPy array" },
	{ "<", 1, "an XML or HTML file" },
	{ "ir_version", 10, "ONNX text format, not the binary protobuf" },
};

const char *onnx_wire_magic(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < sizeof magics / sizeof *magics; i++)
		if (len >= magics[i].len && !memcmp(p, magics[i].bytes, magics[i].len))
			return magics[i].what;
	return NULL;
}

typedef struct pb_block {
	struct pb_block *next;
	size_t size, used;
	max_align_t data[];
} pb_block;

static void *pb_alloc(void *data, size_t size)
{
	pb_arena *a = data;
	size = (size + 15) & ~(size_t)15;
	while (a->cur && a->cur->size - a->cur->used < size && a->cur->next) {
		a->cur = a->cur->next; /* blocks kept by a reset */
		a->cur->used = 0;
	}
	pb_block *b = a->cur;
	if (!b || b->size - b->used < size) {
		size_t want = arena_next_block_size(b ? b->size : 0, 256 * 1024, size);
		pb_block *nb = xmalloc(sizeof *nb + want);
		nb->size = want;
		nb->used = 0;
		nb->next = NULL;
		if (b)
			b->next = nb;
		else
			a->head = nb;
		a->cur = b = nb;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	return p;
}

static void pb_free(void *data, void *p)
{
	(void)data;
	(void)p; /* everything goes with a reset or the release */
}

void onnx_pb_arena_init(pb_arena *a)
{
	a->head = a->cur = NULL;
	a->allocator = (ProtobufCAllocator){ pb_alloc, pb_free, a };
}

void onnx_pb_arena_reset(pb_arena *a)
{
	a->cur = a->head;
	if (a->cur)
		a->cur->used = 0;
}

void onnx_pb_arena_release(pb_arena *a)
{
	for (pb_block *b = a->head; b;) {
		pb_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = a->cur = NULL;
}
