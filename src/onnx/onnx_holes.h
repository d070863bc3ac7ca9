/* onnx_holes.h — a model file read into a private copy, its big tensors'
 * bytes left out as zero pages, so that what loading never reads never
 * becomes resident and nothing done to the file later reaches the copy
 * (onnx_holes.c says why neither a mapping of the file nor reading it all
 * would do). */
#ifndef FD_ONNX_HOLES_H
#define FD_ONNX_HOLES_H
#include <stddef.h>
#include <stdint.h>

/* The file open at fd, size bytes (its size when opened), read into a new
 * read-only anonymous mapping of size bytes (*out, release with munmap;
 * NULL when size is 0), all but the interiors of its big tensors' value
 * fields, which stay zero (*left_out: those bytes). 0, or -1 when no memory
 * can be mapped, -2 when the file reads shorter or longer than size (it
 * changed while it was read). */
int onnx_holes_read(int fd, size_t size, const uint8_t **out, size_t *left_out);

#endif
