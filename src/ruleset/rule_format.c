/* rule_format.c — the rule format's fields (rule_format.h) and the names of
 * its source types (rules.h): the tables, and the lookups over them. The
 * order of the fields is the format's: it is the order of the keys a
 * message lists as known. (A constraint type's name is its condition's
 * key, match/conditions.h.) */
#include "ruleset/rule_format.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "base/nearest.h"
#include "match/conditions.h"

/* FIELD(path, type, edit): edit says whether a what-if may set it. The
 * conditions' fields come from their list (match/conditions.h), below the
 * place their scope names; a row's kind is its condition, COND_COUNT for
 * the fields that are no condition. */
#define FIELD(path, type, edit) { path, FT_##type, edit, COND_COUNT }
#define SECTION_OP          "match.ops.#."
#define SECTION_INPUT       "match.ops.#.input_sources.*."
#define SECTION_SUBGRAPH    "match.subgraph."
#define SECTION_CONSTRAINT  "constraints.#."
#define COND_FIELD(id, scope, path, type) { SECTION_##scope path, FT_##type, true, COND_##id },

static const fd_field cond_fields[] = { FD_CONDITION_FIELDS(COND_FIELD) };

static const fd_field head[] = {
	FIELD("version",                                    STR,    true),
	FIELD("name",                                       STR,    false), /* renaming a rule is not a what-if */
	FIELD("priority",                                   INT,    true),
	FIELD("enabled",                                    BOOL,   true),
	FIELD("scope",                                      LIST,   true),
	FIELD("description",                                STR,    true),
	FIELD("source",                                     STR,    false),
	FIELD("sources.*",                                  STR,    false), /* key: a path in the rule */
};
static const fd_field op_names[] = {
	FIELD("match.ops.#.output_names",                   LIST,   true),
	FIELD("match.ops.#.effect",                         ANY,    false), /* an op's conditions, after the match */
	FIELD("match.ops.#.change",                         ANY,    false),
};
static const fd_field middle[] = {
	FIELD("match.branches.#.ops",                       LIST,   false), /* its ops are match.ops.#'s fields */
	FIELD("rewrite.target_op",                          STR,    true),
	FIELD("rewrite.inputs.#.from_op",                   UINT,   true),
	FIELD("rewrite.inputs.#.output_idx",                UINT,   true),
	FIELD("rewrite.inputs.#.input_port",                UINT,   true),
	FIELD("rewrite.inputs.#.description",               STR,    true),
	FIELD("rewrite.attributes.*",                       ANY,    true), /* tile_policy, chunk_size, …: the schema's */
	FIELD("rewrite.tensor_layout",                      STR,    true),
	FIELD("rewrite.refuses_model",                      STR,    false), /* the compiler's, not a what-if */
	FIELD("rewrite.kernel_config.*",                    ANY,    true),
	FIELD("constraints.#.type",                         STR,    false),
	FIELD("constraints.#.description",                  STR,    true),
};
static const fd_field tail[] = {
	FIELD("output.kernel_name",                         STR,    true),
	FIELD("output.file_path",                           STR,    true),
	FIELD("output.compiler",                            STR,    true),
	FIELD("output.build_config.*",                      ANY,    true),
	FIELD("output.debug_symbols",                       BOOL,   true),
	FIELD("output.gen_dot_graph",                       BOOL,   true),
	FIELD("output.dot_graph_path",                      STR,    true),
	FIELD("pass",                                       UINT,   true), /* rounds: the pass order */
	FIELD("run_once",                                   BOOL,   true), /* rounds: once over its pass's graph */
};
#undef FIELD

#define countof(a) (sizeof(a) / sizeof((a)[0]))
enum { N_FIELDS = countof(cond_fields) + countof(head) + countof(op_names) + countof(middle) + countof(tail) };

/* The fields in the format's order (the order of the keys a message lists
 * as known): the rule's own; an op's conditions through its inputs' (the
 * seed's), output_names, its other conditions and the subgraph's; the
 * rewrite's and a constraint's own; the constraint types'; the output's. */
static const fd_field *ordered(size_t i)
{
	size_t inputs_end = 0, constraints = countof(cond_fields);
	for (size_t k = 0; k < countof(cond_fields); k++) {
		fd_cond_scope sc = cond_def((fd_cond_kind)cond_fields[k].kind)->scope;
		if (sc == SCOPE_INPUT)
			inputs_end = k + 1;
		if (sc == SCOPE_CONSTRAINT && constraints == countof(cond_fields))
			constraints = k;
	}
	const struct { const fd_field *rows; size_t n; } parts[] = {
		{ head, countof(head) },
		{ cond_fields, inputs_end },
		{ op_names, countof(op_names) },
		{ cond_fields + inputs_end, constraints - inputs_end },
		{ middle, countof(middle) },
		{ cond_fields + constraints, countof(cond_fields) - constraints },
		{ tail, countof(tail) },
	};
	for (size_t p = 0; p < countof(parts); i -= parts[p].n, p++)
		if (i < parts[p].n)
			return &parts[p].rows[i];
	return NULL;
}

const fd_field *rule_field_at(size_t i)
{
	return ordered(i);
}

static const char *const type_words[] = {
#define WORDS(id, words) [FT_##id] = words,
	FD_FIELD_TYPES(WORDS)
#undef WORDS
};
static_assert(countof(type_words) == FT_COUNT, "words for every field type");

const char *rule_field_type_words(fd_field_type t)
{
	return t < FT_COUNT ? type_words[t] : "";
}

/* ---- lookups ------------------------------------------------------------- */

static bool segment_matches(const char *pat, size_t plen, const char *seg, size_t slen, bool in_constraints)
{
	if (plen == 1 && pat[0] == '*')
		return slen > 0;
	if (plen == 1 && pat[0] == '#') {
		if (in_constraints)
			return slen > 0;
		for (size_t i = 0; i < slen; i++)
			if (seg[i] < '0' || seg[i] > '9')
				return false;
		return slen > 0;
	}
	return plen == slen && !memcmp(pat, seg, plen);
}

static bool path_matches(const char *pat, const char *path)
{
	bool in_constraints = !strncmp(path, "constraints.", 12);
	for (;;) {
		const char *pe = strchr(pat, '.'), *se = strchr(path, '.');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), sl = se ? (size_t)(se - path) : strlen(path);
		if (!segment_matches(pat, pl, path, sl, in_constraints))
			return false;
		if (!pe || !se)
			return !pe && !se;
		pat = pe + 1;
		path = se + 1;
	}
}

const fd_field *rule_field(const char *path)
{
	char buf[512];
	int b, off = 0;
	/* "match.branches.B.ops.…" reads as "match.ops.…" */
	if (sscanf(path, "match.branches.%d.%n", &b, &off) == 1 && off > 0 && !strncmp(path + off, "ops.", 4)) {
		snprintf(buf, sizeof buf, "match.%s", path + off);
		path = buf;
	}
	/* "match.ops.N.effect.…" (and change) reads as "match.ops.N.…": the op's conditions */
	int n, at = 0;
	if (sscanf(path, "match.ops.%d.%n", &n, &at) == 1 && at > 0
	    && (!strncmp(path + at, "effect.", 7) || !strncmp(path + at, "change.", 7))) {
		char stage[512];
		snprintf(stage, sizeof stage, "match.ops.%d.%s", n, path + at + 7);
		memcpy(buf, stage, sizeof buf);
		path = buf;
	}
	const fd_field *f;
	for (size_t i = 0; (f = ordered(i)); i++)
		if (path_matches(f->path, path))
			return f;
	return NULL;
}

/* The key of the section that field path p leads through, or NULL (its
 * length in *klen). */
static const char *key_in(const char *p, const char *section, size_t len, size_t *klen)
{
	if (len && (strncmp(p, section, len) || p[len] != '.'))
		return NULL;
	const char *key = len ? p + len + 1 : p;
	*klen = strcspn(key, ".");
	return key;
}

const fd_field *rule_field_key(const char *section, const char *key)
{
	size_t len = strlen(section), klen;
	const fd_field *f;
	for (size_t i = 0; (f = ordered(i)); i++) {
		const char *k = key_in(f->path, section, len, &klen);
		if (k && klen == strlen(key) && !strncmp(k, key, klen))
			return f;
	}
	return NULL;
}

const char *rule_field_keys(const char *section, char *buf, size_t size)
{
	size_t len = strlen(section), klen, used = 0;
	buf[0] = '\0';
	const fd_field *f;
	for (size_t i = 0; (f = ordered(i)); i++) {
		const char *k = key_in(f->path, section, len, &klen);
		char key[64];
		snprintf(key, sizeof key, "%.*s", k ? (int)klen : 0, k ? k : "");
		if (!k || rule_field_key(section, key) != f)
			continue;   /* not in the section, or not the key's first field */
		if (used + klen + 3 < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", key);
	}
	return buf;
}

/* ---- did you mean --------------------------------------------------------- */

/* Pattern pat with path's segments where it has '#' or '*' (same segment
 * count), into out; false when the counts differ. */
static bool instantiate(const char *pat, const char *path, char *out, size_t size)
{
	size_t used = 0;
	for (;;) {
		const char *pe = strchr(pat, '.'), *se = strchr(path, '.');
		size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), sl = se ? (size_t)(se - path) : strlen(path);
		bool wild = pl == 1 && (pat[0] == '#' || pat[0] == '*');
		int w = snprintf(out + used, size - used, "%s%.*s", used ? "." : "", (int)(wild ? sl : pl), wild ? path : pat);
		if (w < 0 || (size_t)w >= size - used)
			return false;
		used += (size_t)w;
		if (!pe || !se)
			return !pe && !se;
		pat = pe + 1;
		path = se + 1;
	}
}

char *rule_field_nearest(const char *path, char *buf, size_t size)
{
	/* match.branches.B.ops.… is offered as the match.ops.… fields under that branch */
	char lead[64] = "", tail[512];
	int b, off = 0;
	const char *rest = path;
	if (sscanf(path, "match.branches.%d.%n", &b, &off) == 1 && off > 0 && !strncmp(path + off, "ops.", 4)) {
		snprintf(lead, sizeof lead, "match.branches.%d.", b);
		snprintf(tail, sizeof tail, "match.%s", path + off);
		rest = tail;
	}
	char cand[N_FIELDS][512];
	fd_nearest nn;
	nearest_init(&nn, path);
	/* a typo is in one segment: near is what nearest.h allows for the longest */
	int longest = 0;
	for (const char *p = path; *p;) {
		int l = (int)strcspn(p, ".");
		longest = l > longest ? l : longest;
		p += l + (p[l] == '.');
	}
	nn.limit = longest / 3 > 2 ? longest / 3 : 2;
	/* constraints.memory_limit.…: only memory_limit's fields */
	int kind = COND_COUNT;
	if (!strncmp(rest, "constraints.", 12)) {
		char seg[64];
		snprintf(seg, sizeof seg, "%.*s", (int)strcspn(rest + 12, "."), rest + 12);
		kind = cond_by_key(SCOPE_CONSTRAINT, seg);
	}
	const fd_field *f;
	for (size_t i = 0; (f = ordered(i)); i++) {
		char one[512];
		if (!f->edit || !instantiate(f->path, rest, one, sizeof one) ||
		    (kind != COND_COUNT && f->kind != COND_COUNT && f->kind != kind))
			continue;
		if (rest == tail)
			snprintf(cand[i], sizeof cand[i], "%s%s", lead, one + strlen("match."));
		else
			snprintf(cand[i], sizeof cand[i], "%s", one);
		nearest_add(&nn, cand[i]);
	}
	return nearest_list(&nn, buf, size);
}
