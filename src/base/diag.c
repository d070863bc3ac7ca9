/* diag.c — diagnostic list and its one-line format. A diagnostic is one
 * line by contract, and its message is made of names from models and rule
 * files: it is escaped as it is made (base/text.h), so a name can never write
 * a control byte to the terminal or forge another "error:" line; the file
 * name is escaped where the line is formatted. */
#include "base/diag.h"
#include "base/arena.h"
#include "base/strbuf.h"
#include "base/text.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diags_init(fd_diags *d)
{
	memset(d, 0, sizeof *d);
}

void diags_clear(fd_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].file);
		free(d->items[i].message);
	}
	d->n = d->errors = d->warnings = 0;
}

void diags_release(fd_diags *d)
{
	diags_clear(d);
	free(d->items);
	diags_init(d);
}

void diag_vadd(fd_diags *d, fd_severity sev, fd_srcpos pos, const char *fmt, va_list ap)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->items = xrealloc(d->items, d->cap * sizeof *d->items);
	}
	fd_diag *g = &d->items[d->n++];
	strbuf raw = { 0 }, safe = { 0 };
	sb_vprintf(&raw, fmt, ap);
	text_escape(&safe, sb_str(&raw));
	sb_release(&raw);
	g->message = sb_take(&safe);
	g->severity = sev;
	g->file = pos.file ? xstrdup(pos.file) : NULL;
	g->pos = pos;
	g->pos.file = g->file;
	if (sev == DIAG_ERROR)
		d->errors++;
	else if (sev == DIAG_WARNING)
		d->warnings++;
}

void diag_add(fd_diags *d, fd_severity sev, fd_srcpos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, sev, pos, fmt, ap);
	va_end(ap);
}

void diag_error(fd_diags *d, fd_srcpos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, DIAG_ERROR, pos, fmt, ap);
	va_end(ap);
}

void diag_warning(fd_diags *d, fd_srcpos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(d, DIAG_WARNING, pos, fmt, ap);
	va_end(ap);
}

static const char *severity_name(fd_severity sev)
{
	static const char *const names[] = { "error", "warning", "note" };
	return names[sev];
}

fd_srcpos srcpos_file(const char *file)
{
	return (fd_srcpos){ file, 0, 0 };
}

char *diag_format(const fd_diag *g, char *buf, size_t size)
{
	const fd_srcpos *p = &g->pos;
	strbuf file = { 0 };
	text_escape(&file, p->file);
	const char *f = sb_str(&file);
	/* a long line keeps its head and its tail */
	if (p->file && p->line > 0 && p->col > 0)
		txt_cutf(buf, size, "%s:%d:%d: %s: %s", f, p->line, p->col, severity_name(g->severity), g->message);
	else if (p->file && p->line > 0)
		txt_cutf(buf, size, "%s:%d: %s: %s", f, p->line, severity_name(g->severity), g->message);
	else if (p->file)
		txt_cutf(buf, size, "%s: %s: %s", f, severity_name(g->severity), g->message);
	else
		txt_cutf(buf, size, "%s: %s", severity_name(g->severity), g->message);
	sb_release(&file);
	return buf;
}
