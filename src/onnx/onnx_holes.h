/* onnx_holes.h — a mapped model's big tensor bytes replaced by zero pages
 * before it is read, so that what loading never reads never becomes
 * resident (onnx_holes.c says why a mapping alone does not do it). */
#ifndef FD_ONNX_HOLES_H
#define FD_ONNX_HOLES_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* map: path's size bytes, mapped read-only and private, page-aligned.
 * Returns the bytes taken out (0 when none, or when path cannot be read). */
size_t onnx_holes_punch(const char *path, const uint8_t *map, size_t size);

#endif
