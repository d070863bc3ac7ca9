/* rule_schema.c — one YAML document → one typed fd_rule, with the schema
 * checks `verify` reports: required fields, types, ranges, unknown keys.
 *
 * Required: name (a non-empty string); match with a non-empty ops list or a
 * non-empty branches list (both may be given: alternatives); rewrite with
 * target_op. Everything else is optional; priority defaults to 0 (`check`
 * warns when it is missing), enabled to true, allow_intermediate_outputs to
 * false. Unknown keys are warnings, but for a top-level key near a known
 * one (constriants:), an error: it would drop a whole section. The conditions of an op, an input and
 * the subgraph, and a constraint's fields, are read by their entries of the
 * condition list (match/conditions.h), each setting its bit in the typed
 * rule's masks. Whether an op type or a param exists is not the schema's
 * business but `check`'s (rule_check.c), which reads the op table.
 *
 * Every message points at the offending value, or at the map that lacks a
 * required key. The typed rule lives in rs->arena and points into the YAML
 * tree (owned by the file in rs->files). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/nearest.h"
#include "ir/dtype.h"
#include "rules/optable.h"
#include "ruleset/rule_format.h"
#include "ruleset/ruleset.h"
#include "match/cond_constraint.h"
#include "match/conditions.h"

/* ", did you mean 'constraints'?" for a key near one of known (a ", "
 * separated list, as rule_field_keys writes it); "" when none is. */
static const char *key_hint(const char *typed, const char *known, char *buf, size_t size)
{
	char names[512];
	snprintf(names, sizeof names, "%s", known);
	fd_nearest nn;
	nearest_init(&nn, typed);
	for (char *save = NULL, *k = strtok_r(names, ", ", &save); k; k = strtok_r(NULL, ", ", &save))
		nearest_add(&nn, k);
	char list[256];
	if (!nearest_list(&nn, list, sizeof list)[0])
		return "";
	snprintf(buf, size, ", did you mean %s?", list);
	return buf;
}

static void rule_schema_unknown_keys(fd_schema *s, const fd_yval *map, const char *path, const char *section)
{
	if (!map || map->kind != YV_MAP)
		return;
	for (size_t i = 0; i < map->n; i++) {
		const char *k = map->keys[i]->text ? map->keys[i]->text : "";
		if (rule_field_key(section, k))
			continue;
		char list[512], hint[300] = "";
		rule_field_keys(section, list, sizeof list);
		key_hint(k, list, hint, sizeof hint);
		/* a misspelt top-level key (constriants:) drops a whole section: an error */
		fd_severity level = !*section && hint[0] ? DIAG_ERROR : DIAG_WARNING;
		schema_say(s, level, map->keys[i], "unknown key '%s' in %s%s (known: %s)", k, path, hint, list);
	}
}

/* ---- match ------------------------------------------------------------------ */

/* "input3" → 3; -1 when the key is not of that form. */
static int input_index(const char *key)
{
	if (strncmp(key, "input", 5) || !key[5])
		return -1;
	int k = 0;
	for (const char *p = key + 5; *p; p++) {
		if (*p < '0' || *p > '9' || k > FD_RULE_MAX_ITEMS)
			return k > FD_RULE_MAX_ITEMS ? -2 : -1;
		k = k * 10 + (*p - '0');
	}
	return k > FD_RULE_MAX_ITEMS ? -2 : k;
}

/* Each condition of an input written in the inputK map src, by its entry
 * of the list (match/conditions.h), in the list's order, its bit set in
 * is->conds when it states something. */
static bool source_conditions(fd_schema *s, fd_rule_op *op, fd_input_source *is, const fd_yval *src, const char *path,
                              int index, int n_ops)
{
	fd_cond_site at = { .op = op, .index = index, .n_ops = n_ops, .input = is, .map = src };
	bool ok = true;
	for (int k = 0; k < COND_COUNT; k++) {
		const fd_cond_def *d = cond_def((fd_cond_kind)k);
		const fd_yval *v = d->scope == SCOPE_INPUT ? yval_get(src, d->key) : NULL;
		if (!v)
			continue;
		char q[320];
		snprintf(q, sizeof q, "%.200s.%s", path, d->key);
		at.states = true;
		ok &= d->parse(s, &at, v, q);
		if (at.states)
			is->conds |= (uint64_t)1 << k;
		/* a map's own keys (same_as: {op, input}) are the format's; a key two
		 * entries read (dtype) is checked once */
		if (v->kind == YV_MAP && cond_by_key(SCOPE_INPUT, d->key) == (fd_cond_kind)k) {
			char section[96];
			snprintf(section, sizeof section, "match.ops.#.input_sources.*.%s", d->key);
			rule_schema_unknown_keys(s, v, q, section);
			/* and a map inside it the format knows (dtype: {same_as: {op, input}}) */
			for (size_t i = 0; i < v->n; i++) {
				const char *key = v->keys[i]->text;
				char inner[160], ip[400];
				snprintf(inner, sizeof inner, "%s.%s", section, key ? key : "");
				if (!key || v->items[i]->kind != YV_MAP || !rule_field_key(inner, "op"))
					continue;
				snprintf(ip, sizeof ip, "%s.%s", q, key);
				rule_schema_unknown_keys(s, v->items[i], ip, inner);
			}
		}
	}
	/* a field beside an entry's key (value's tolerance) without the key */
	const char *section = "match.ops.#.input_sources.*.";
	const fd_field *field;
	for (size_t k = 0; (field = rule_field_at(k)); k++) {
		const char *fp = field->path;
		if (field->kind == COND_COUNT || strncmp(fp, section, strlen(section)))
			continue;
		fp += strlen(section);
		const char *key = cond_def((fd_cond_kind)field->kind)->key;
		const fd_yval *f = strchr(fp, '.') || !strcmp(fp, key) ? NULL : yval_get(src, fp);
		if (f && !yval_get(src, key))
			WARN(s, f, "%.200s.%s: has no meaning without '%s'", path, fp, key);
	}
	/* optional says only when the others apply */
	uint64_t own = cond_rows(SCOPE_INPUT, EV_KIND_COUNT) & ~COND_BIT(OPTIONAL_INPUT);
	if (!(is->conds & own) && ok) {
		char keys[256];
		ERR(s, src, "%s: needs a condition (%s)", path, cond_keys(own, " or ", keys, sizeof keys));
		ok = false;
	}
	return ok;
}

/* index: the op's own place in its pattern of n_ops: from_op must name an
 * earlier op (the matcher binds ops in order). */
static void parse_sources(fd_schema *s, fd_rule_op *op, const fd_yval *v, const char *path, int index, int n_ops)
{
	char p[256];
	if (!schema_kind(s, v, YV_MAP, path) || !schema_count(s, v, path, FD_RULE_MAX_ITEMS, "inputs"))
		return;
	op->sources = arena_array(&s->rs->arena, v->n ? v->n : 1, sizeof *op->sources);
	for (size_t i = 0; i < v->n; i++) {
		const fd_yval *key = v->keys[i], *src = v->items[i];
		int k = input_index(key->text ? key->text : "");
		if (k == -2) {
			ERR(s, key, "%s: %s: K above %d; fusiondbg takes at most %d (see fusiondbg-rules(5), LIMITS)", path,
			    key->text, FD_RULE_MAX_ITEMS, FD_RULE_MAX_ITEMS);
			continue;
		}
		if (k < 0) {
			ERR(s, key, "%s: key '%s' is not inputK (input0, input1, …)", path, key->text ? key->text : "");
			continue;
		}
		snprintf(p, sizeof p, "%.200s.%.40s", path, key->text);
		if (!schema_kind(s, src, YV_MAP, p))
			continue;
		rule_schema_unknown_keys(s, src, p, "match.ops.#.input_sources.*");
		fd_input_source *is = &op->sources[op->n_sources];
		memset(is, 0, sizeof *is);
		is->input = k;
		is->where = src;
		bool ok = source_conditions(s, op, is, src, p, index, n_ops);
		for (int j = 0; j < op->n_sources; j++)
			if (op->sources[j].input == k) {
				ERR(s, key, "%s: input%d is given twice (as %s)", path, k, key->text);
				ok = false;
			}
		if (ok)
			op->n_sources++;
	}
}


/* The conditions of one scope (OP, SUBGRAPH) written in the map at->map,
 * each key present read by its entry's parse in the list's order, its bit
 * set in *conds when it states something; path is the map's ("match.ops[0]").
 * An op's input_sources and output_names are read at the place of the
 * INPUT rows (then). */
static void read_conditions(fd_schema *s, fd_cond_site *at, fd_cond_scope scope, const char *path, uint64_t *conds,
                            void (*then)(fd_schema *, fd_cond_site *, const char *))
{
	char p[256], section[96], keys[256];
	for (int k = 0; k < COND_COUNT; k++) {
		const fd_cond_def *d = cond_def((fd_cond_kind)k);
		if (then && d->scope == SCOPE_INPUT) {
			then(s, at, path);
			then = NULL;
		}
		const fd_yval *f = d->scope == scope ? yval_get(at->map, d->key) : NULL;
		if (!f)
			continue;
		snprintf(p, sizeof p, "%.200s.%s", path, d->key);
		/* a map of named fields (inputs, outputs; not params, of any names):
		 * the keys the format does not have */
		snprintf(section, sizeof section, "%s.%s", scope == SCOPE_OP ? "match.ops.#" : "match.subgraph", d->key);
		if (f->kind == YV_MAP && rule_field_keys(section, keys, sizeof keys)[0] && !rule_field_key(section, "*"))
			rule_schema_unknown_keys(s, f, p, section);
		at->states = true;
		d->parse(s, at, f, p);
		*conds = at->states ? *conds | (uint64_t)1 << k : *conds & ~((uint64_t)1 << k);
	}
}

/* An op's input_sources and output_names (read_conditions' then). */
static void read_inputs(fd_schema *s, fd_cond_site *at, const char *path)
{
	char p[256];
	fd_rule_op *op = at->op;
	const fd_yval *sources = yval_get(at->map, "input_sources");
	if (sources) {
		snprintf(p, sizeof p, "%.200s.input_sources", path);
		parse_sources(s, op, sources, p, at->index, at->n_ops);
	}
	const fd_yval *names = yval_get(at->map, "output_names");
	if (names) {
		snprintf(p, sizeof p, "%.200s.output_names", path);
		op->n_output_names = schema_strings(s, names, p, &op->output_names);
		op->output_names_where = names;
	}
}

static void parse_op(fd_schema *s, fd_rule_op *op, const fd_yval *v, const char *path, int index, int n_ops)
{
	memset(op, 0, sizeof *op);
	op->op = -1;
	op->where = v;
	if (!schema_kind(s, v, YV_MAP, path))
		return;
	rule_schema_unknown_keys(s, v, path, "match.ops.#");
	if (!yval_get(v, "type"))
		ERR(s, v, "%s: an op needs a 'type'", path);
	fd_cond_site at = { .op = op, .index = index, .n_ops = n_ops, .map = v };
	read_conditions(s, &at, SCOPE_OP, path, &op->conds, read_inputs);
	for (int k = 0; k < op->n_types; k++) {
		const fd_op_def *def = optable_get(op->ops[k]);
		if (def && def->composite != COMPOSITE_NONE)
			op->composite_mask |= 1u << def->composite;
	}
}

static void parse_pattern(fd_schema *s, fd_rule_pattern *pat, const fd_yval *ops, const char *path)
{
	char p[256];
	pat->where = ops;
	if (!schema_kind(s, ops, YV_SEQ, path))
		return;
	if (ops->n == 0) {
		ERR(s, ops, "%s: the list of ops is empty", path);
		return;
	}
	if (!schema_count(s, ops, path, FD_RULE_MAX_OPS, "ops"))
		return;
	pat->ops = arena_array(&s->rs->arena, ops->n, sizeof *pat->ops);
	pat->n_ops = (int)ops->n;
	for (size_t i = 0; i < ops->n; i++) {
		snprintf(p, sizeof p, "%.200s[%zu]", path, i);
		parse_op(s, &pat->ops[i], ops->items[i], p, (int)i, (int)ops->n);
	}
	cond_siblings_pattern(s, pat, path);
}

/* match.ops[i].effect and .change (rules.h): each an op's conditions
 * without its type, read as the op's (its types copied, so that params and
 * where read as its type's) into a pattern as long as match.ops. */
static void parse_stage(fd_schema *s, fd_rule *r, fd_rule_pattern *stage, const char *key)
{
	const fd_rule_pattern *pat = &r->match;
	char p[256];
	for (int i = 0; i < pat->n_ops; i++) {
		const fd_yval *v = pat->ops[i].where ? yval_get(pat->ops[i].where, key) : NULL;
		if (!v)
			continue;
		snprintf(p, sizeof p, "match.ops[%d].%s", i, key);
		if (!schema_kind(s, v, YV_MAP, p))
			continue;
		rule_schema_unknown_keys(s, v, p, "match.ops.#");
		const char *inner[] = { "type", "optional", "effect", "change" };
		for (size_t k = 0; k < sizeof inner / sizeof inner[0]; k++)
			if (yval_get(v, inner[k]))
				ERR(s, yval_get(v, inner[k]), "%s: '%s' is the op's own, not a condition checked after the match",
				    p, inner[k]);
		if (!stage->n_ops) {
			stage->ops = arena_array(&s->rs->arena, (size_t)pat->n_ops, sizeof *stage->ops);
			stage->n_ops = pat->n_ops;
			stage->where = pat->where;
			for (int j = 0; j < pat->n_ops; j++) {
				const fd_rule_op *m = &pat->ops[j];
				fd_rule_op *o = &stage->ops[j];
				memset(o, 0, sizeof *o);
				*o = (fd_rule_op){ .type = m->type, .op = m->op, .where = m->where, .type_where = m->type_where,
				                   .n_types = m->n_types, .types = m->types, .ops = m->ops,
				                   .optional = m->optional, .composite_mask = m->composite_mask };
			}
		}
		fd_rule_op *o = &stage->ops[i];
		o->where = v;
		fd_cond_site at = { .op = o, .index = i, .n_ops = pat->n_ops, .map = v };
		read_conditions(s, &at, SCOPE_OP, p, &o->conds, read_inputs);
	}
}

static void parse_subgraph(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	if (!schema_kind(s, v, YV_MAP, "match.subgraph"))
		return;
	rule_schema_unknown_keys(s, v, "match.subgraph", "match.subgraph");
	r->subgraph_where = v;
	fd_cond_site at = { .rule = r, .map = v };
	read_conditions(s, &at, SCOPE_SUBGRAPH, "match.subgraph", &r->conds, NULL);
}

static void parse_match(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	if (!schema_kind(s, v, YV_MAP, "match"))
		return;
	rule_schema_unknown_keys(s, v, "match", "match");
	const fd_yval *ops = yval_get(v, "ops"), *branches = yval_get(v, "branches");
	if (!ops && !branches) {
		ERR(s, v, "match: needs 'ops' (or 'branches')");
		return;
	}
	if (ops) {
		parse_pattern(s, &r->match, ops, "match.ops");
		parse_stage(s, r, &r->effect, "effect");
		parse_stage(s, r, &r->change, "change");
	}
	if (branches && schema_kind(s, branches, YV_SEQ, "match.branches")) {
		if (branches->n == 0)
			ERR(s, branches, "match.branches: the list of branches is empty");
		if (!schema_count(s, branches, "match.branches", FD_RULE_MAX_BRANCHES, "branches"))
			return;
		r->branches = arena_array(&s->rs->arena, branches->n ? branches->n : 1, sizeof *r->branches);
		for (size_t i = 0; i < branches->n; i++) {
			char p[64];
			snprintf(p, sizeof p, "match.branches[%zu]", i);
			const fd_yval *br = branches->items[i];
			if (!schema_kind(s, br, YV_MAP, p))
				continue;
			rule_schema_unknown_keys(s, br, p, "match.branches.#");
			const fd_yval *bops = yval_get(br, "ops");
			if (!bops) {
				ERR(s, br, "%s: a branch needs 'ops'", p);
				continue;
			}
			snprintf(p, sizeof p, "match.branches[%zu].ops", i);
			parse_pattern(s, &r->branches[r->n_branches++], bops, p);
			for (size_t j = 0; bops->kind == YV_SEQ && j < bops->n; j++)
				for (int k = 0; k < 2; k++)
					if (yval_get(bops->items[j], k ? "change" : "effect"))
						ERR(s, yval_get(bops->items[j], k ? "change" : "effect"),
						    "%s[%zu]: '%s' is read in match.ops only", p, j, k ? "change" : "effect");
		}
	}
	const fd_yval *sg = yval_get(v, "subgraph");
	if (sg)
		parse_subgraph(s, r, sg);
}

/* ---- rewrite -------------------------------------------------------------- */

static void parse_attributes(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	if (!schema_kind(s, v, YV_MAP, "rewrite.attributes"))
		return;
	r->rewrite_attributes = v;
	/* each becomes an attribute of the fused ONNX node: ONNX wants a name */
	for (size_t i = 0; i < v->n; i++)
		if (!v->keys[i]->text || !*v->keys[i]->text)
			ERR(s, v->keys[i], "rewrite.attributes: an attribute needs a name (the key is empty)");
	const fd_yval *tp = yval_get(v, "tile_policy");
	if (tp)
		schema_str(s, tp, "rewrite.attributes.tile_policy", &r->tile_policy);
	const fd_yval *cs = yval_get(v, "chunk_size");
	if (cs && schema_kind(s, cs, YV_SEQ, "rewrite.attributes.chunk_size")) {
		r->chunk_size = arena_array(&s->rs->arena, cs->n ? cs->n : 1, sizeof *r->chunk_size);
		for (size_t i = 0; i < cs->n; i++) {
			char p[64];
			snprintf(p, sizeof p, "rewrite.attributes.chunk_size[%zu]", i);
			if (schema_int(s, cs->items[i], p, 1, &r->chunk_size[r->n_chunk_size]))
				r->n_chunk_size++;
		}
	}
	const fd_yval *os = yval_get(v, "overlap_size");
	if (os && schema_kind(s, os, YV_SEQ, "rewrite.attributes.overlap_size"))
		for (size_t i = 0; i < os->n; i++) {
			char p[64];
			int64_t x;
			snprintf(p, sizeof p, "rewrite.attributes.overlap_size[%zu]", i);
			schema_int(s, os->items[i], p, 0, &x);
		}
	bool b;
	const fd_yval *ic = yval_get(v, "inplace_compute");
	if (ic)
		schema_bool(s, ic, "rewrite.attributes.inplace_compute", &b);
	const fd_yval *io = yval_get(v, "inplace_override_input_idx");
	int x;
	if (io)
		schema_small_int(s, io, "rewrite.attributes.inplace_override_input_idx", 0, &x);
}

static void parse_rewrite(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	if (!schema_kind(s, v, YV_MAP, "rewrite"))
		return;
	rule_schema_unknown_keys(s, v, "rewrite", "rewrite");
	const fd_yval *t = yval_get(v, "target_op");
	if (!t)
		ERR(s, v, "rewrite: needs 'target_op'");
	else if (schema_str(s, t, "rewrite.target_op", &r->target_op) && !*r->target_op)
		ERR(s, t, "rewrite.target_op: must not be empty");
	const fd_yval *in = yval_get(v, "inputs");
	if (in && schema_kind(s, in, YV_SEQ, "rewrite.inputs")) {
		r->rewrite_inputs = arena_array(&s->rs->arena, in->n ? in->n : 1, sizeof *r->rewrite_inputs);
		for (size_t i = 0; i < in->n; i++) {
			char p[64], q[128];
			snprintf(p, sizeof p, "rewrite.inputs[%zu]", i);
			const fd_yval *e = in->items[i];
			if (!schema_kind(s, e, YV_MAP, p))
				continue;
			rule_schema_unknown_keys(s, e, p, "rewrite.inputs.#");
			fd_rewrite_input ri = { .from_op = -1, .output_idx = 0, .input_port = (int)i, .where = e };
			const fd_yval *f = yval_get(e, "from_op"), *oi = yval_get(e, "output_idx"),
			              *ip = yval_get(e, "input_port"), *ds = yval_get(e, "description");
			bool ok = true;
			snprintf(q, sizeof q, "%.200s.from_op", p);
			if (!f) {
				ERR(s, e, "%s: needs 'from_op'", p);
				ok = false;
			} else {
				ok &= schema_small_int(s, f, q, 0, &ri.from_op);
			}
			snprintf(q, sizeof q, "%.200s.output_idx", p);
			if (oi)
				ok &= schema_small_int(s, oi, q, 0, &ri.output_idx);
			snprintf(q, sizeof q, "%.200s.input_port", p);
			if (ip)
				ok &= schema_small_int(s, ip, q, 0, &ri.input_port);
			snprintf(q, sizeof q, "%.200s.description", p);
			if (ds && !yval_is_null(ds))
				ok &= schema_str(s, ds, q, &ri.description);
			if (ok)
				r->rewrite_inputs[r->n_rewrite_inputs++] = ri;
		}
	}
	const fd_yval *attr = yval_get(v, "attributes");
	if (attr && !yval_is_null(attr))
		parse_attributes(s, r, attr);
	const fd_yval *tl = yval_get(v, "tensor_layout");
	if (tl)
		schema_str(s, tl, "rewrite.tensor_layout", &r->tensor_layout);
	const fd_yval *kc = yval_get(v, "kernel_config");
	if (kc && !yval_is_null(kc) && schema_kind(s, kc, YV_MAP, "rewrite.kernel_config"))
		r->kernel_config = kc;
	const fd_yval *rm = yval_get(v, "refuses_model");
	if (rm && !yval_is_null(rm) && schema_str(s, rm, "rewrite.refuses_model", &r->refuses_model)) {
		r->refuses_model_where = rm;
		if (!*r->refuses_model)
			ERR(s, rm, "rewrite.refuses_model: must not be empty (the compiler's message)");
	}
}

/* ---- constraints ------------------------------------------------------------ */

/* The generic part (type, description, the keys no constraint has, the
 * fields of another type), then the type's own fields by its entry of the
 * condition list. An unknown type reads nothing more: the lint warns and
 * the matcher passes it with FD-WN01. */
static void parse_constraint(fd_schema *s, fd_constraint *c, const fd_yval *v, const char *path)
{
	char p[256];
	memset(c, 0, sizeof *c);
	c->where = v;
	c->kind = COND_COUNT;
	c->max_intermediate_size = c->max_output_size = c->max_workspace = -1;   /* read by every kind's measure */
	c->channel_dim = 1;
	const fd_yval *t = yval_get(v, "type");
	if (!t) {
		ERR(s, v, "%s: a constraint needs a 'type'", path);
		return;
	}
	snprintf(p, sizeof p, "%.200s.type", path);
	if (!schema_str(s, t, p, &c->type))
		return;
	c->kind = cond_by_key(SCOPE_CONSTRAINT, c->type);
	rule_schema_unknown_keys(s, v, path, "constraints.#");
	for (size_t i = 0; i < v->n && c->kind != COND_COUNT; i++) {
		/* a field of another constraint type (the first of equal keys) */
		const char *k = v->keys[i]->text ? v->keys[i]->text : "";
		const fd_field *fd = rule_field_key("constraints.#", k);
		if (fd && fd->kind != COND_COUNT && fd->kind != c->kind && yval_key(v, k) == v->keys[i])
			WARN(s, v->keys[i], "%s: '%s' has no meaning for a %s constraint", path, k, c->type);
	}
	const fd_yval *f;
	if ((f = yval_get(v, "description")) && !yval_is_null(f)) {
		snprintf(p, sizeof p, "%.200s.description", path);
		schema_str(s, f, p, &c->description);
	}
	fd_cond_site at = { .constraint = c, .map = v, .states = true };
	const fd_cond_def *d = cond_def((fd_cond_kind)c->kind);
	if (d && d->scope == SCOPE_CONSTRAINT)
		d->parse(s, &at, v, path);
}

static void parse_constraints(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	if (yval_is_null(v))
		return;
	if (!schema_kind(s, v, YV_SEQ, "constraints") || !schema_count(s, v, "constraints", FD_RULE_MAX_ITEMS, "constraints"))
		return;
	r->constraints = arena_array(&s->rs->arena, v->n ? v->n : 1, sizeof *r->constraints);
	for (size_t i = 0; i < v->n; i++) {
		char p[48];
		snprintf(p, sizeof p, "constraints[%zu]", i);
		if (!schema_kind(s, v->items[i], YV_MAP, p))
			continue;
		int before = s->errors;
		parse_constraint(s, &r->constraints[r->n_constraints], v->items[i], p);
		if (s->errors == before)
			r->n_constraints++;
	}
}

/* ---- output --------------------------------------------------------------- */

static void parse_output(fd_schema *s, fd_rule *r, const fd_yval *v)
{
	if (!schema_kind(s, v, YV_MAP, "output"))
		return;
	rule_schema_unknown_keys(s, v, "output", "output");
	static const struct { const char *key; size_t off; } strs[] = {
		{ "kernel_name", offsetof(fd_rule, kernel_name) },
		{ "file_path", offsetof(fd_rule, file_path) },
		{ "compiler", offsetof(fd_rule, compiler) },
		{ "dot_graph_path", offsetof(fd_rule, dot_graph_path) },
	};
	char p[64];
	const fd_yval *f;
	for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
		if ((f = yval_get(v, strs[i].key))) {
			snprintf(p, sizeof p, "output.%s", strs[i].key);
			schema_str(s, f, p, (const char **)((char *)r + strs[i].off));
		}
	if ((f = yval_get(v, "build_config")) && !yval_is_null(f) && schema_kind(s, f, YV_MAP, "output.build_config"))
		r->build_config = f;
	if ((f = yval_get(v, "debug_symbols")))
		schema_bool(s, f, "output.debug_symbols", &r->debug_symbols);
	if ((f = yval_get(v, "gen_dot_graph")))
		schema_bool(s, f, "output.gen_dot_graph", &r->gen_dot_graph);
}

/* ---- the rule ---------------------------------------------------------------- */

int rule_from_yaml(fd_ruleset *rs, fd_rule *out, const fd_ydoc *doc, fd_diags *d)
{
	fd_schema s = { rs, d, 0, out };
	fd_rule *r = out;
	memset(r, 0, sizeof *r);
	r->file = doc->file;
	r->doc_index = doc->index;
	r->root = doc->root;
	r->enabled = true;
	r->conds = COND_BIT(ALLOW_INTERMEDIATE_OUTPUTS);   /* the seed's default: none escapes */
	r->name = "";
	const fd_yval *root = doc->root;
	char b[128];
	if (!root || root->kind != YV_MAP) {
		fd_srcpos pos = root ? root->pos : (fd_srcpos){ doc->file, 1, 1 };
		diag_error(d, pos, "a rule document must be a map (name:, match:, …), not %s",
		           root && root->kind == YV_SEQ ? "a list" : schema_describe(root, b, sizeof b));
		return -1;
	}
	rule_schema_unknown_keys(&s, root, "the rule", "");
	const fd_yval *v;
	if ((v = yval_get(root, "version")) && !yval_is_null(v))
		schema_str(&s, v, "version", &r->version);
	if (!(v = yval_get(root, "name")))
		ERR(&s, root, "rule has no 'name'");
	else if (schema_str(&s, v, "name", &r->name) && !*r->name)
		ERR(&s, v, "name: must not be empty");
	if ((v = yval_get(root, "priority"))) {
		r->priority_where = v;
		if (!schema_int(&s, v, "priority", INT64_MIN, &r->priority))
			r->priority = 0;
	}
	if ((v = yval_get(root, "pass"))) {
		r->pass_where = v;
		if (!yval_int(v, &r->pass) || r->pass < 0 || r->pass > 1000000) {
			ERR(&s, v, "pass: expected an integer >= 0 (passes run in ascending order), got %s",
			    schema_describe(v, b, sizeof b));
			r->pass = 0;
		}
	}
	if ((v = yval_get(root, "run_once"))) {
		r->run_once_where = v;
		schema_bool(&s, v, "run_once", &r->run_once);
	}
	if ((v = yval_get(root, "enabled")))
		schema_bool(&s, v, "enabled", &r->enabled);
	if ((v = yval_get(root, "scope")) && !yval_is_null(v)) {
		if (v->kind != YV_SEQ)
			ERR(&s, v, "scope: expected a list of strings (targets such as ai_core), got %s", schema_describe(v, b, sizeof b));
		else
			r->n_scope = schema_strings(&s, v, "scope", &r->scope);
	}
	if ((v = yval_get(root, "description")) && !yval_is_null(v))
		schema_str(&s, v, "description", &r->description);
	if ((v = yval_get(root, "source")) && !yval_is_null(v))
		schema_str(&s, v, "source", &r->source);
	if ((v = yval_get(root, "sources")) && !yval_is_null(v))
		rule_schema_sources(&s, r, v);
	if (!(v = yval_get(root, "match")))
		ERR(&s, root, "rule has no 'match'");
	else
		parse_match(&s, r, v);
	if (!(v = yval_get(root, "rewrite")))
		ERR(&s, root, "rule has no 'rewrite' (rewrite.target_op names the fused op)");
	else
		parse_rewrite(&s, r, v);
	if ((v = yval_get(root, "constraints")))
		parse_constraints(&s, r, v);
	if ((v = yval_get(root, "output")) && !yval_is_null(v))
		parse_output(&s, r, v);
	return s.errors ? -1 : 0;
}
