/* onnx_wire.h — protobuf wire-format helpers for the ONNX loader: a bounded
 * depth check run before protobuf-c recurses, top-level field scanning (so
 * that the main graph is unpacked one message at a time), magic numbers of
 * files mistaken for models, and the scratch arena protobuf-c allocates from.
 * No generated ONNX types here; the scratch arena owns its blocks. */
#ifndef FD_ONNX_WIRE_H
#define FD_ONNX_WIRE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

#define WIRE_MAX_DEPTH 256      /* nested messages accepted */

typedef struct wire_error {
	size_t at;                  /* byte offset of the field that is wrong */
	const char *why;            /* "truncated", "bad wire type", … */
	const uint8_t *name;        /* or a tensor name holding a NUL byte (why NULL), */
	size_t name_len;            /* its bytes as written */
} wire_error;

/* Walks p as a message of type desc and every sub-message the descriptors
 * name; -1 with *err on malformed or too deeply nested data, or on a tensor
 * name (a node's input or output, a tensor's, a value_info's) holding a NUL
 * byte: every reader of a name stops at its first NUL, so two names that
 * differ only after one would be one tensor. With skip, the
 * entries of some fields of the messages of type skip->desc at nesting depth
 * skip->depth are only framed, not entered: the loader checks those (the
 * main graph's initializers and nodes) one by one as it unpacks them, with onnx_wire_unpack. */
typedef struct wire_skip {
	const ProtobufCMessageDescriptor *desc;
	int depth;
	uint32_t fields;            /* a bit per field number (below 32) */
} wire_skip;
int onnx_wire_check(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
               const wire_skip *skip, wire_error *err);

/* Whether field of messages of type desc is a tensor name (checked for NUL). */
bool onnx_wire_tensor_name(const ProtobufCMessageDescriptor *desc, uint32_t field);

/* One message (p at byte base of the file, depth its nesting) unpacked
 * from a; NULL with *err when it is malformed (err->why and err->name NULL:
 * protobuf-c refused what the check let through). The check runs first:
 * protobuf-c would recurse past the depth limit, and its C strings end at a
 * NUL inside a name, which only the wire bytes still show. Only the
 * messages the in-place decoder leaves to protobuf-c come here. */
const void *onnx_wire_unpack(const ProtobufCMessageDescriptor *desc, ProtobufCAllocator *a, const uint8_t *p,
                        size_t len, size_t base, int depth, wire_error *err);

/* The next length-delimited field number `field` at the top level of
 * p[*at..len): 1 and its bytes, or 0 at the end. Data must be onnx_wire_check'ed. */
int onnx_wire_next(const uint8_t *p, size_t len, size_t *at, unsigned field, const uint8_t **data, size_t *n);

/* Where each length-delimited top-level field number below n_fields lies:
 * how many, and the bytes from the first one to the end of the last. One
 * pass, so that reading the fields of one number scans only their range
 * (writers group a repeated field's entries). */
typedef struct wire_span {
	size_t first, end, count;
} wire_span;
void onnx_wire_spans(const uint8_t *p, size_t len, wire_span *spans, unsigned n_fields);

/* Copies p without the top-level fields numbered `field` into out (len
 * bytes at most); returns the bytes written. */
size_t onnx_wire_strip(const uint8_t *p, size_t len, unsigned field, uint8_t *out);

/* "a PNG image" when the bytes start like a file people mistake for a model. */
const char *onnx_wire_magic(const uint8_t *p, size_t len);

/* Bump allocator for protobuf-c: nothing is freed singly; reset keeps the
 * blocks for the next message, release frees them. */
typedef struct pb_arena {
	struct pb_block *head, *cur;
	ProtobufCAllocator allocator;
} pb_arena;

void onnx_pb_arena_init(pb_arena *a);
void onnx_pb_arena_reset(pb_arena *a);
void onnx_pb_arena_release(pb_arena *a);

#endif
