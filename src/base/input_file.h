/* input_file.h — the one way a file the program reads is opened: only a
 * regular file is read (a FIFO would block, /dev/zero never ends, a directory
 * is no file), its size is checked against a limit named in the refusal
 * before anything is read, and it is read once. Never mapped: a mapped file
 * cut short by its writer faults (SIGBUS) where it is read; a read comes
 * back short instead (a model: onnx/onnx_holes.c). Every refusal is
 * one line naming the file.
 *
 * Models, fusion_result.json and optimized models (compare --with), pass
 * order files, recovery files and rule files read back before a save all go
 * through here. */
#ifndef FD_INPUT_FILE_H
#define FD_INPUT_FILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/diag.h"

/* A size limit and the words that explain it in a refusal:
 * "file is N bytes, larger than 2 GiB (the protobuf limit); not read". */
typedef struct {
	int64_t bytes;
	const char *why;
} fd_input_limit;

extern const fd_input_limit INPUT_LIMIT_MODEL;      /* 2 GiB: the protobuf limit */
extern const fd_input_limit INPUT_LIMIT_COMPARE;    /* 2 GiB: an optimized model or fusion_result.json */
extern const fd_input_limit INPUT_LIMIT_RULES;      /* 64 MiB, as the rule loader's */
extern const fd_input_limit INPUT_LIMIT_PASSES;     /* 16 MiB: a pass order file */
extern const fd_input_limit INPUT_LIMIT_RECOVERY;   /* 64 MiB: a recovery file */
extern const fd_input_limit INPUT_LIMIT_DEFAULT;    /* input_file_read_all's: 2 GiB */

/* Opens path for reading: a regular file within lim, else -1 and one line
 * in d. On success *fd is open (blocking) and *size is its size now. */
int input_open(const char *path, const fd_input_limit *lim, int *fd, int64_t *size, fd_diags *d);

/* The whole file, NUL-terminated, on the heap; NULL + d on error. A file that
 * grows past lim while it is read is refused too. */
char *input_read(const char *path, const fd_input_limit *lim, size_t *size, fd_diags *d);
/* input_read under INPUT_LIMIT_DEFAULT. */
char *input_file_read_all(const char *path, size_t *size, fd_diags *d);

#endif
