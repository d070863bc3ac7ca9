/* diag.h — diagnostics as values: the core fills an fd_diags list, the front
 * end decides how to show it. The list owns its messages (heap copies). */
#ifndef FD_DIAG_H
#define FD_DIAG_H
#include <stdarg.h>
#include <stddef.h>

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } fd_severity;

/* A place in a source file; line and col are 1-based, 0 means unknown. */
typedef struct fd_srcpos {
	const char *file;
	int line, col;
} fd_srcpos;

typedef struct fd_diag {
	fd_severity severity;
	fd_srcpos pos;
	char *file;     /* owned copy of pos.file (pos.file points at it) */
	char *message;  /* owned */
} fd_diag;

typedef struct fd_diags {
	fd_diag *items;
	size_t n, cap;
	size_t errors, warnings;
} fd_diags;

void diags_init(fd_diags *d);
void diags_release(fd_diags *d);
void diags_clear(fd_diags *d);
void diag_add(fd_diags *d, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_vadd(fd_diags *d, fd_severity sev, fd_srcpos pos, const char *fmt, va_list ap);
void diag_error(fd_diags *d, fd_srcpos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(fd_diags *d, fd_srcpos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "file:line:col: error: message" (parts without a value are left out). Returns buf. */
char *diag_format(const fd_diag *diag, char *buf, size_t size);
fd_srcpos srcpos_file(const char *file); /* a position naming only a file */

#endif
