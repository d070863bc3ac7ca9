/* export_fusion_dots.c — output.gen_dot_graph: one DOT per fusion of the
 * rules that ask for it, each the fusion's cluster with its direct producers
 * and consumers, written under the rule's dot_graph_path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "export/export_internal.h"
#include "trace/trace.h"

static bool wants_dots(const fd_match_result *r, const fd_export_options *o, int32_t rule)
{
	const fd_rule *ru = &r->rules->rules[rule];
	return ru->gen_dot_graph && (!o->rule || !strcmp(o->rule, ru->name));
}

size_t export_fusion_dots_pending(const fd_match_result *r, const fd_export_options *o)
{
	size_t n = 0;
	for (size_t f = 0; f < r->n_fusions; f++)
		n += wants_dots(r, o, r->fusions[f].rule);
	return n;
}

/* dir (a rule's dot_graph_path) under base, lexically: "." and ".."
 * resolved, never above base; an absolute dir only inside base. Heap, or
 * NULL + d naming the rule. */
static char *confined(const char *base, const char *dir, const char *rule, fd_diags *d)
{
	char *real_base = realpath(base, NULL);
	if (!real_base) {
		diag_error(d, srcpos_file(base), "cannot use it as the directory of the fusion DOTs: %s", strerror(errno));
		return NULL;
	}
	const char *rel = dir;
	size_t bl = strlen(real_base);
	if (dir[0] == '/') {
		if (strncmp(dir, real_base, bl) || (dir[bl] != '/' && dir[bl] != '\0' && bl > 1)) {
			diag_error(d, (fd_srcpos){ 0 }, "rule %s: dot_graph_path '%s' is outside %s, where the fusion DOTs go; "
			           "name a directory that holds it with --dots-dir DIR", rule, dir, real_base);
			free(real_base);
			return NULL;
		}
		rel = dir + (bl > 1 ? bl : 0);
	}
	/* the result is spelt from base as given ("dots/x", not "/home/…/dots/x") */
	strbuf out = { 0 };
	bool here = !strcmp(base, ".");
	sb_puts(&out, here ? "" : base);
	size_t floor = out.n;
	char *copy = xstrdup(rel);
	for (char *seg = strtok(copy, "/"); seg; seg = strtok(NULL, "/")) {
		if (!strcmp(seg, "."))
			continue;
		if (!strcmp(seg, "..")) {
			char *slash = out.n > floor ? strrchr(out.s + floor, '/') : NULL;
			if (!slash && here && out.n > floor)
				slash = out.s + floor;   /* "a" back to "" */
			if (!slash) {
				diag_error(d, (fd_srcpos){ 0 }, "rule %s: dot_graph_path '%s' leaves %s, where the fusion DOTs go; "
				           "name the directory with --dots-dir DIR", rule, dir, real_base);
				free(copy);
				free(real_base);
				sb_release(&out);
				return NULL;
			}
			out.n = (size_t)(slash - out.s);
			out.s[out.n] = '\0';
			continue;
		}
		sb_printf(&out, "%s%s", out.n || !here ? "/" : "", seg);
	}
	free(copy);
	free(real_base);
	if (!out.n)
		sb_puts(&out, ".");
	return sb_take(&out);
}

/* After make_dirs: the directory must still be inside base once links are
 * followed. */
static int still_inside(const char *base, const char *dir, const char *rule, fd_diags *d)
{
	char *rb = realpath(base, NULL), *rd = realpath(dir, NULL);
	size_t bl = rb ? strlen(rb) : 0;
	int rc = rb && rd && !strncmp(rd, rb, bl) && (rd[bl] == '/' || rd[bl] == '\0' || bl == 1) ? 0 : -1;
	if (rc < 0)
		diag_error(d, srcpos_file(dir), "rule %s: dot_graph_path leads out of %s through a symbolic link; "
		           "not written", rule, rb ? rb : base);
	free(rb);
	free(rd);
	return rc;
}

/* mkdir -p (an absolute path). */
static int make_dirs(const char *dir, fd_diags *d)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			diag_error(d, srcpos_file(p), "cannot create the directory (dot_graph_path): %s",
			           strerror(errno));
			rc = -1;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

/* One fusion and the nodes right around it. */
static void select_one(const fd_match_result *r, size_t f, const fd_export_selection *all,
                       fd_export_selection *sel)
{
	const fd_fusion *fu = &r->fusions[f];
	const fd_graph *gr = &r->ctx->model->graphs[fu->graph];
	for (int32_t g = 0; g < sel->n_graphs; g++) {
		memset(sel->node_on[g], 0, (size_t)r->ctx->model->graphs[g].n_nodes);
		sel->graph_on[g] = g == fu->graph;
	}
	memset(sel->fusion_drawn, 0, r->n_fusions);
	sel->fusion_drawn[f] = 1;
	uint8_t *on = sel->node_on[fu->graph];
	const int32_t *nodes = fusion_ids(r, fu->nodes);
	for (int32_t i = 0; i < fu->n_nodes; i++)
		on[nodes[i]] = 1;
	for (int32_t i = 0; i < fu->n_nodes; i++) {
		const fd_node *node = &gr->nodes[nodes[i]];
		for (int32_t k = 0; k < node->n_inputs; k++) {
			int32_t t = node->inputs[k];
			int32_t p = t == FD_NONE ? FD_NONE : gr->tensors[t].producer;
			if (p >= 0 && all->node_on[fu->graph][p])
				on[p] = 1;
		}
		for (int32_t k = 0; k < node->n_outputs; k++) {
			int32_t t = node->outputs[k];
			if (t == FD_NONE)
				continue;
			for (int32_t c = 0; c < gr->tensors[t].n_consumers; c++)
				if (all->node_on[fu->graph][gr->tensors[t].consumers[c]])
					on[gr->tensors[t].consumers[c]] = 1;
		}
	}
	sel->n_nodes = 0;
	for (int32_t n = 0; n < gr->n_nodes; n++)
		sel->n_nodes += on[n];
	sel->n_hidden_consts = all->n_hidden_consts;
	sel->n_initializers = gr->n_initializers;
}

/* "<dir>/<rule>_<n>.dot"; the rule name is a file name here: nothing that
 * leaves the directory. */
static char *fusion_dot_path(const char *dir, const char *rule, int32_t n)
{
	size_t dl = strlen(dir);
	char *path = xmalloc(dl + strlen(rule) + 32);
	sprintf(path, "%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/");
	char *start = path + strlen(path), *p = start;
	for (const char *c = rule; *c; c++)
		*p++ = *c == '/' || *c == '\\' || (unsigned char)*c < 0x20 ? '_' : *c;
	if (*start == '.')
		*start = '_';
	sprintf(p, "_%d.dot", (int)n);
	return path;
}

int export_fusion_dots(const fd_match_result *r, const fd_export_options *o, fd_export_files *written,
                       fd_diags *d)
{
	if (!export_fusion_dots_pending(r, o))
		return 0;
	fd_export_options whole = *o;
	whole.around = NULL;
	whole.rule = NULL;
	whole.after = false;
	whole.near_misses = false;
	whole.format = EXPORT_DOT;
	fd_export_selection all, one;
	if (export_select(r, &whole, &all, d) < 0)
		return -1;
	if (export_select(r, &whole, &one, d) < 0) {
		export_selection_release(&all);
		return -1;
	}
	fd_estimate own;
	const fd_estimate *est = export_estimate_for(r, o, &own);
	int32_t *seq = xcalloc((size_t)r->n_rules + 1, sizeof *seq);
	int count = 0, rc = 0;
	for (size_t f = 0; f < r->n_fusions && rc == 0; f++) {
		const fd_fusion *fu = &r->fusions[f];
		seq[fu->rule]++;
		if (!wants_dots(r, o, fu->rule))
			continue;
		const fd_rule *ru = &r->rules->rules[fu->rule];
		const char *base = o->dots_dir ? o->dots_dir : ".";
		char *dir = confined(base, ru->dot_graph_path && *ru->dot_graph_path ? ru->dot_graph_path : ".", ru->name, d);
		if (!dir || make_dirs(dir, d) < 0 || still_inside(base, dir, ru->name, d) < 0) {
			free(dir);
			rc = -1;
			break;
		}
		char *path = fusion_dot_path(dir, ru->name, seq[fu->rule]);
		free(dir);
		select_one(r, f, &all, &one);
		rc = export_draw_and_write(r, &whole, est, &one, EXPORT_DOT, path, d);
		if (rc == 0) {
			if (written->n == written->cap) {
				written->cap = written->cap ? written->cap * 2 : 8;
				written->paths = xrealloc(written->paths, written->cap * sizeof *written->paths);
			}
			written->paths[written->n++] = path;
			count++;
		} else {
			free(path);
		}
	}
	free(seq);
	if (est == &own)
		estimate_release(&own);
	export_selection_release(&all);
	export_selection_release(&one);
	return rc < 0 ? -1 : count;
}
