/* export_gv.c — Graphviz plumbing: object ids that never depend on memory
 * addresses, and Graphviz's messages caught as diagnostics.
 *
 * Determinism: cgraph orders subgraphs by object id, and its default id
 * discipline uses string addresses as ids; ours numbers names in creation
 * order, and the exporter creates clusters in fusion order and nodes in
 * topological order, so both the DOT text and dot's layout input never
 * depend on memory addresses.
 *
 * Graphviz's messages are caught with agseterrf (and its plugins' stderr
 * through a temp file) and returned as diagnostics; nothing is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "export/export_internal.h"

/* ---- deterministic ids ---------------------------------------------------- */

/* Names are kept as cgraph reference strings (agstrdup): agwrite asks
 * aghtmlstr() of every printed name, which reads the refstr header. */
typedef struct id_state {
	Agraph_t *g;
	strmap map;             /* name → index */
	VEC(char *) names;
	IDTYPE anon;            /* next odd id */
} id_state;

static void *id_open(Agraph_t *g, Agdisc_t *disc)
{
	id_state *s = xcalloc(1, sizeof *s);
	s->g = g;
	strmap_init(&s->map);
	s->anon = 1;
	return s;
}

static long id_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	id_state *s = state;
	if (!str) {
		*id = s->anon;
		s->anon += 2;
		return 1;
	}
	int32_t k = strmap_get(&s->map, str);
	if (k < 0) {
		if (!createflag)
			return 0;
		char *copy = agstrdup(s->g, str);
		vec_push(&s->names, copy);
		k = (int32_t)s->names.n - 1;
		strmap_put(&s->map, copy, k);
	}
	*id = (IDTYPE)k * 2;
	return 1;
}

static long id_alloc(void *state, int objtype, IDTYPE id)
{
	return (id & 1) != 0;   /* only anonymous ids may be asked for by number */
}

static void id_free(void *state, int objtype, IDTYPE id) {}

static char *id_print(void *state, int objtype, IDTYPE id)
{
	id_state *s = state;
	if (id & 1 || id / 2 >= s->names.n)
		return NULL;
	return s->names.items[id / 2];
}

static void id_close(void *state)
{
	id_state *s = state;
	/* agclose calls this before it closes the string dictionary */
	for (size_t i = 0; i < s->names.n; i++)
		agstrfree(s->g, s->names.items[i]);
	vec_release(&s->names);
	strmap_release(&s->map);
	free(s);
}

static void id_register(void *state, int objtype, void *obj) {}

static Agiddisc_t id_disc = { id_open, id_map, id_alloc, id_free, id_print, id_close, id_register };

static Agdisc_t graph_disc = { &AgMemDisc, &id_disc, &AgIoDisc };

Agraph_t *export_gv_open(const char *name)
{
	return agopen((char *)name, Agdirected, &graph_disc);
}

/* ---- Graphviz messages → diagnostics -------------------------------------- */

static fd_diags *gv_diags;
static const char *gv_where;
static char gv_line[1024];
static size_t gv_len;
static fd_severity gv_sev = DIAG_WARNING;

static void gv_flush(void)
{
	while (gv_len && (gv_line[gv_len - 1] == '\n' || gv_line[gv_len - 1] == ' '))
		gv_len--;
	gv_line[gv_len] = '\0';
	const char *msg = gv_line;
	if (!strncmp(msg, "Error: ", 7)) {
		gv_sev = DIAG_ERROR;
		msg += 7;
	} else if (!strncmp(msg, "Warning: ", 9)) {
		gv_sev = DIAG_WARNING;
		msg += 9;
	}
	if (*msg && gv_diags)
		diag_add(gv_diags, gv_sev, srcpos_file(gv_where), "graphviz: %s", msg);
	gv_len = 0;
}

static int gv_errf(char *text)
{
	for (const char *p = text; *p; p++) {
		if (gv_len < sizeof gv_line - 1)
			gv_line[gv_len++] = *p;
		if (*p == '\n')
			gv_flush();
	}
	return 0;
}

/* Some Graphviz plugins write to stderr directly (cairo's "graph is too
 * large for cairo-renderer bitmaps"), which would land on the TUI's screen:
 * while Graphviz runs, file descriptor 2 points at a temp file, read back
 * into diagnostics afterwards. */
static void gv_stderr_begin(export_capture *c)
{
	fflush(stderr);
	c->stderr_file = tmpfile();
	c->saved_fd2 = c->stderr_file ? dup(2) : -1;
	if (c->saved_fd2 < 0 || dup2(fileno(c->stderr_file), 2) < 0) {
		if (c->saved_fd2 >= 0)
			close(c->saved_fd2);
		if (c->stderr_file)
			fclose(c->stderr_file);
		c->saved_fd2 = -1;
		c->stderr_file = NULL;
	}
}

static void gv_stderr_end(export_capture *c)
{
	if (!c->stderr_file)
		return;
	fflush(stderr);
	dup2(c->saved_fd2, 2);
	close(c->saved_fd2);
	rewind(c->stderr_file);
	char line[1024];
	while (fgets(line, sizeof line, c->stderr_file)) {
		char *msg = line;
		if (!strncmp(msg, "(null): ", 8))   /* the plugin names the command, which is us */
			msg += 8;
		gv_errf(msg);
		if (!strchr(msg, '\n'))
			gv_errf("\n");
	}
	fclose(c->stderr_file);
	c->stderr_file = NULL;
}

void export_capture_begin(export_capture *c, fd_diags *d, const char *where)
{
	gv_diags = d;
	gv_where = where;
	gv_len = 0;
	gv_sev = DIAG_WARNING;
	c->old_f = agseterrf(gv_errf);
	c->old_level = agseterr(AGWARN);
	agreseterrors();
	gv_stderr_begin(c);
}

void export_capture_end(export_capture *c)
{
	gv_stderr_end(c);
	if (gv_len)
		gv_flush();
	agseterrf(c->old_f);
	agseterr(c->old_level);
	gv_diags = NULL;
}

