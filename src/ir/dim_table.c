/* dim_table.c — a model's table of dims: its symbols with their bindings,
 * the atoms and expressions interned (equal expression, equal pointer), the
 * canonical text of each, and their values at the bindings (re-evaluated
 * when a binding changes, in creation order, which is dependency order).
 * Everything but the hash tables lives in the model arena. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/units.h"
#include "ir/dim_internal.h"

typedef struct dsym {
	const char *name;
	const fd_dexpr *expr;      /* the symbol alone */
	int64_t value;
	bool bound;
} dsym;

/* A made thing, for re-evaluation in order: an atom or an expression. */
typedef struct dnode {
	datom *atom;
	fd_dexpr *expr;
} dnode;

typedef struct hslot {
	uint64_t hash;
	void *item;                /* fd_dexpr * or datom * (floors) */
} hslot;

struct fd_dimtab {
	fd_arena *arena;
	strpool *names;
	dsym *syms;
	int32_t n_syms, cap_syms;
	strmap sym_index;
	dnode *nodes;
	size_t n_nodes, cap_nodes;
	hslot *exprs, *floors;
	size_t cap_exprs, n_exprs, cap_floors, n_floors;
	uint32_t next_id;
	uint32_t next_fresh;
};

fd_dimtab *dimtab_new(fd_arena *a, strpool *names)
{
	fd_dimtab *t = arena_alloc(a, sizeof *t);
	t->arena = a;
	t->names = names;
	strmap_init(&t->sym_index);
	return t;
}

void dimtab_rehome(fd_dimtab *t, fd_arena *a, strpool *names)
{
	if (!t)
		return;
	t->arena = a;
	t->names = names;
}

void dimtab_release(fd_dimtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->nodes);
	free(t->exprs);
	free(t->floors);
	strmap_release(&t->sym_index);
	memset(t, 0, sizeof *t);
}

static void note_node(fd_dimtab *t, datom *a, fd_dexpr *e)
{
	if (t->n_nodes == t->cap_nodes) {
		t->cap_nodes = t->cap_nodes ? t->cap_nodes * 2 : 64;
		t->nodes = xrealloc(t->nodes, t->cap_nodes * sizeof *t->nodes);
	}
	t->nodes[t->n_nodes++] = (dnode){ a, e };
}

/* ---- order and text ------------------------------------------------------------ */

int dim_atom_cmp(const datom *a, const datom *b)
{
	if (a == b)
		return 0;
	int c = strcmp(a->text, b->text);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* Higher degree first, then the factors in atom order. */
int dim_term_cmp_monomial(const dterm *a, const dterm *b)
{
	if (a->nf != b->nf)
		return a->nf > b->nf ? -1 : 1;
	for (int i = 0; i < a->nf; i++) {
		int c = dim_atom_cmp(a->f[i], b->f[i]);
		if (c)
			return c;
	}
	return 0;
}

typedef struct textbuf {
	char *p;
	size_t n, cap;
} textbuf;

static void tb_put(textbuf *b, const char *s)
{
	size_t len = strlen(s);
	if (b->n + len + 1 > b->cap) {
		b->cap = (b->n + len + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, len + 1);
	b->n += len;
}

static void tb_num(textbuf *b, int64_t v)
{
	char s[24];
	snprintf(s, sizeof s, "%lld", (long long)v);
	tb_put(b, s);
}

/* "3*a*b^2/2"; the sign is the caller's. */
static void term_text(textbuf *b, const dterm *t)
{
	int64_t num = t->num < 0 ? -t->num : t->num;
	if (t->nf == 0 || num != 1) {
		tb_num(b, num);
		if (t->nf)
			tb_put(b, "*");
	}
	for (int i = 0; i < t->nf;) {
		int k = i;
		while (k < t->nf && t->f[k] == t->f[i])
			k++;
		if (i)
			tb_put(b, "*");
		tb_put(b, t->f[i]->text);
		if (k - i > 1) {
			tb_put(b, "^");
			tb_num(b, k - i);
		}
		i = k;
	}
	if (t->den > 1) {
		tb_put(b, "/");
		tb_num(b, t->den);
	}
}

static char *poly_text(fd_dimtab *t, const dterm *terms, int n)
{
	textbuf b = { 0 };
	for (int i = 0; i < n; i++) {
		if (terms[i].num < 0)
			tb_put(&b, "-");
		else if (i)
			tb_put(&b, "+");
		term_text(&b, &terms[i]);
	}
	char *s = arena_strdup(t->arena, b.p ? b.p : "0");
	free(b.p);
	return s;
}

/* ---- values at the bindings ---------------------------------------------------- */

static bool eval_terms(const dterm *terms, int n, int64_t *out)
{
	/* Σ num_i/den_i · Π f: over the lcm of the denominators, in 128 bits */
	int64_t l = 1;
	for (int i = 0; i < n; i++) {
		int64_t g = dim_gcd(l, terms[i].den);
		if (__builtin_mul_overflow(l / g, terms[i].den, &l))
			return false;
	}
	__int128 acc = 0;
	const __int128 lim = (__int128)1 << 100;
	for (int i = 0; i < n; i++) {
		__int128 v = (__int128)terms[i].num * (l / terms[i].den);
		for (int k = 0; k < terms[i].nf; k++) {
			const datom *a = terms[i].f[k];
			if (!a->known)
				return false;
			v *= a->value;
			if (v > lim || v < -lim)
				return false;
		}
		acc += v;
		if (acc > lim || acc < -lim)
			return false;
	}
	if (acc % l)
		return false;
	acc /= l;
	if (acc > INT64_MAX || acc < INT64_MIN + 1)
		return false;
	*out = (int64_t)acc;
	return true;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static void eval_atom(const fd_dimtab *t, datom *a)
{
	a->known = false;
	if (a->kind == ATOM_SYM) {
		a->known = t->syms[a->sym].bound;
		a->value = t->syms[a->sym].value;
	} else if (a->kind == ATOM_FLOOR && a->num->known) {
		a->known = true;
		a->value = floor_div(a->num->value, a->den);
	}
}

static void eval_expr(fd_dexpr *e)
{
	e->known = eval_terms(e->terms, e->n_terms, &e->value);
}

/* ---- interning ------------------------------------------------------------------- */

static uint64_t terms_hash(const dterm *terms, int n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < n; i++) {
		const dterm *x = &terms[i];
		h = (h ^ (uint64_t)x->num) * 0x100000001b3ull;
		h = (h ^ (uint64_t)x->den) * 0x100000001b3ull;
		for (int k = 0; k < x->nf; k++)
			h = (h ^ x->f[k]->id) * 0x100000001b3ull;
		h = (h ^ (uint64_t)x->nf) * 0x100000001b3ull;
		h ^= h >> 31;
	}
	return h ? h : 1;
}

static bool terms_equal(const dterm *a, const dterm *b, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i].num != b[i].num || a[i].den != b[i].den || a[i].nf != b[i].nf)
			return false;
		for (int k = 0; k < a[i].nf; k++)
			if (a[i].f[k] != b[i].f[k])
				return false;
	}
	return true;
}

static void table_grow(hslot **slots, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	hslot *ns = xcalloc(ncap, sizeof *ns);
	for (size_t i = 0; i < *cap; i++) {
		if (!(*slots)[i].item)
			continue;
		size_t j = (*slots)[i].hash & (ncap - 1);
		while (ns[j].item)
			j = (j + 1) & (ncap - 1);
		ns[j] = (*slots)[i];
	}
	free(*slots);
	*slots = ns;
	*cap = ncap;
}

/* The empty slot where hash h goes, the table grown first when it would be
 * half full. Only an insert grows a table, so looking up what is already
 * there writes nothing: the output writers' threads format the formulas the
 * matcher interned, concurrently. */
static size_t free_slot(hslot **slots, size_t *cap, size_t n, uint64_t h)
{
	if ((n + 1) * 2 > *cap)
		table_grow(slots, cap);
	size_t i = h & (*cap - 1);
	while ((*slots)[i].item)
		i = (i + 1) & (*cap - 1);
	return i;
}

const fd_dexpr *dim_table_intern(fd_dimtab *t, const dpoly *p)
{
	uint64_t h = terms_hash(p->t, p->n);
	for (size_t i = h & (t->cap_exprs - 1); t->cap_exprs && t->exprs[i].item; i = (i + 1) & (t->cap_exprs - 1)) {
		const fd_dexpr *e = t->exprs[i].item;
		if (t->exprs[i].hash == h && e->n_terms == p->n && terms_equal(e->terms, p->t, p->n))
			return e;
	}
	size_t i = free_slot(&t->exprs, &t->cap_exprs, t->n_exprs, h);
	fd_dexpr *e = arena_alloc(t->arena, sizeof *e);
	e->tab = t;
	e->hash = h;
	e->id = t->next_id++;
	e->n_terms = (uint16_t)p->n;
	e->terms = arena_memdup(t->arena, p->t, (size_t)p->n * sizeof *p->t);
	for (int k = 0; k < p->n; k++)
		for (int f = 0; f < p->t[k].nf; f++)
			e->fresh |= p->t[k].f[f]->fresh;
	e->text = poly_text(t, p->t, p->n);
	eval_expr(e);
	t->exprs[i] = (hslot){ h, e };
	t->n_exprs++;
	note_node(t, NULL, e);
	return e;
}

static datom *atom_new(fd_dimtab *t, uint8_t kind)
{
	datom *a = arena_alloc(t->arena, sizeof *a);
	a->kind = kind;
	a->sym = -1;
	a->id = t->next_id++;
	return a;
}

/* The expression that is the atom alone. */
static const fd_dexpr *atom_expr(fd_dimtab *t, const datom *a)
{
	dpoly p;
	poly_atom(&p, a);
	return dim_table_intern(t, &p);
}

const datom *dim_table_floor_atom(fd_dimtab *t, const fd_dexpr *num, int64_t den)
{
	uint64_t h = ((uint64_t)num->id * 0x9e3779b97f4a7c15ull) ^ (uint64_t)den;
	h = h ? h : 1;
	for (size_t i = h & (t->cap_floors - 1); t->cap_floors && t->floors[i].item; i = (i + 1) & (t->cap_floors - 1)) {
		const datom *a = t->floors[i].item;
		if (t->floors[i].hash == h && a->num == num && a->den == den)
			return a;
	}
	size_t i = free_slot(&t->floors, &t->cap_floors, t->n_floors, h);
	datom *a = atom_new(t, ATOM_FLOOR);
	a->num = num;
	a->den = den;
	a->fresh = num->fresh;
	const dterm *only = num->n_terms == 1 ? &num->terms[0] : NULL;
	bool bare = only && only->num == 1 && only->den == 1 && only->nf == 1;
	a->text = arena_printf(t->arena, bare ? "floor(%s/%lld)" : "floor((%s)/%lld)", num->text, (long long)den);
	eval_atom(t, a);
	t->floors[i] = (hslot){ h, a };
	t->n_floors++;
	note_node(t, a, NULL);
	return a;
}

/* ---- symbols ---------------------------------------------------------------------- */

static fd_dim dim_of_expr(const fd_dexpr *e)
{
	fd_dim d = { e->known && e->value >= 0 ? e->value : -1, e };
	return d;
}

int32_t dimtab_find_symbol(const fd_dimtab *t, const char *name)
{
	return name ? strmap_get(&t->sym_index, name) : -1;
}

fd_dim dimtab_symbol(fd_dimtab *t, const char *name)
{
	name = strpool_intern(t->names, name);
	int32_t i = dimtab_find_symbol(t, name);
	if (i >= 0)
		return dim_of_expr(t->syms[i].expr);
	if (t->n_syms == t->cap_syms) {
		t->cap_syms = t->cap_syms ? t->cap_syms * 2 : 16;
		t->syms = xrealloc(t->syms, (size_t)t->cap_syms * sizeof *t->syms);
	}
	i = t->n_syms++;
	strmap_put(&t->sym_index, name, i);
	datom *a = atom_new(t, ATOM_SYM);
	a->sym = i;
	a->text = name;
	t->syms[i] = (dsym){ name, NULL, 0, false };
	note_node(t, a, NULL);
	t->syms[i].expr = atom_expr(t, a);
	return dim_of_expr(t->syms[i].expr);
}

fd_dim dimtab_fresh(fd_dimtab *t)
{
	char name[32];
	for (;;) {
		snprintf(name, sizeof name, "unk__%u", t->next_fresh++);
		if (strpool_find(t->names, name, strlen(name)) < 0)
			break;
	}
	datom *a = atom_new(t, ATOM_FRESH);
	a->fresh = true;
	a->text = strpool_intern(t->names, name);
	note_node(t, a, NULL);
	return dim_of_expr(atom_expr(t, a));
}

bool dimtab_bind(fd_dimtab *t, const char *name, int64_t value)
{
	int32_t i = dimtab_find_symbol(t, name);
	if (i < 0)
		return false;
	t->syms[i].value = value;
	t->syms[i].bound = true;
	for (size_t k = 0; k < t->n_nodes; k++) {
		if (t->nodes[k].atom)
			eval_atom(t, t->nodes[k].atom);
		else
			eval_expr(t->nodes[k].expr);
	}
	return true;
}

int32_t dimtab_n_symbols(const fd_dimtab *t)
{
	return t ? t->n_syms : 0;
}

const char *dimtab_symbol_name(const fd_dimtab *t, int32_t i)
{
	return t->syms[i].name;
}

bool dimtab_symbol_bound(const fd_dimtab *t, int32_t i, int64_t *value)
{
	if (value)
		*value = t->syms[i].value;
	return t->syms[i].bound;
}

/* ---- reading an expression ---------------------------------------------------- */

const char *dexpr_text(const fd_dexpr *e)
{
	return e->text;
}

bool dexpr_value(const fd_dexpr *e, int64_t *v)
{
	if (e->known)
		*v = e->value;
	return e->known;
}

bool dexpr_has_fresh(const fd_dexpr *e)
{
	return e->fresh;
}

#define SYMS_MAX 64

static int add_symbols(const fd_dexpr *e, bool unbound_only, const char **names, int n)
{
	for (int i = 0; i < e->n_terms; i++)
		for (int k = 0; k < e->terms[i].nf; k++) {
			const datom *a = e->terms[i].f[k];
			if (a->kind == ATOM_FLOOR) {
				n = add_symbols(a->num, unbound_only, names, n);
				continue;
			}
			if (a->kind != ATOM_SYM || (unbound_only && a->known))
				continue;
			int at = 0;
			while (at < n && strcmp(names[at], a->text) < 0)
				at++;
			if ((at < n && names[at] == a->text) || n == SYMS_MAX)
				continue;
			memmove(names + at + 1, names + at, (size_t)(n - at) * sizeof *names);
			names[at] = a->text;
			n++;
		}
	return n;
}

int dexpr_symbols(const fd_dexpr *e, bool unbound_only, const char **names, int max)
{
	const char *all[SYMS_MAX];
	int n = e ? add_symbols(e, unbound_only, all, 0) : 0;
	for (int i = 0; i < n && i < max; i++)
		names[i] = all[i];
	return n;
}

bool dexpr_linear(const fd_dexpr *e, const char **sym, int64_t *num, int64_t *den)
{
	if (e->n_terms != 1 || e->terms[0].nf != 1 || e->terms[0].f[0]->kind != ATOM_SYM)
		return false;
	*sym = e->terms[0].f[0]->text;
	*num = e->terms[0].num;
	*den = e->terms[0].den;
	return true;
}

bool dexpr_largest_within(const fd_dexpr *e, int64_t limit, int64_t *v)
{
	const char *one[2];
	int64_t x;
	if (e->fresh || dexpr_symbols(e, true, one, 2) != 1 || !dexpr_monotone(e) ||
	    !dexpr_value_with(e, 1, &x) || x > limit)
		return false;
	int64_t lo = 1, hi = (int64_t)1 << 40;   /* lo fits, hi does not (or is beyond any dim) */
	const char *sym;
	int64_t num, den;
	if (dexpr_linear(e, &sym, &num, &den) && num > 0 && den == 1) {   /* c·s, the common case: no search */
		__int128 q = (__int128)limit / num;
		*v = q > hi ? hi : (int64_t)q;
		return true;
	}
	if (dexpr_value_with(e, hi, &x) && x <= limit) {
		*v = hi;
		return true;
	}
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (dexpr_value_with(e, mid, &x) && x <= limit)
			lo = mid;
		else
			hi = mid;
	}
	*v = lo;
	return true;
}

bool dexpr_monomial(const fd_dexpr *e, int64_t *num, int64_t *den, const fd_dexpr **mono)
{
	if (e->n_terms != 1 || e->terms[0].nf == 0)
		return false;
	dpoly p;
	poly_expr(&p, e);
	*num = p.t[0].num;
	*den = p.t[0].den;
	p.t[0].num = p.t[0].den = 1;
	*mono = dim_table_intern(e->tab, &p);
	return true;
}

bool dexpr_monotone(const fd_dexpr *e)
{
	for (int i = 0; i < e->n_terms; i++)
		if (e->terms[i].num < 0)
			return false;
	return true;
}

bool dexpr_divisible(const fd_dexpr *e, int64_t d)
{
	if (d <= 0)
		return false;
	for (int i = 0; i < e->n_terms; i++)
		if (e->terms[i].den != 1 || e->terms[i].num % d)
			return false;
	return true;
}

/* ---- sizes in words ----------------------------------------------------------------- */

/* A coefficient of a formula: exact bytes under 10 KiB ("1028 B"), else in
 * units with one decimal under 100 ("2.6 MiB", "12.5 KiB", "256 KiB"). */
static void coef_bytes(double v, char *buf, size_t size)
{
	if (v < 10240) {
		snprintf(buf, size, v == floor(v) ? "%.0f B" : "%.1f B", v);
		return;
	}
	const char *unit;
	double x = units_scale_bytes((int64_t)v, 6, &unit);
	x *= v / (double)(int64_t)v;   /* the fraction units_scale_bytes never saw */
	snprintf(buf, size, x < 100 && fabs(x - round(x)) >= 0.05 ? "%.1f %s" : "%.0f %s", x, unit);
}

char *dexpr_format_bytes(const fd_dexpr *e, char *buf, size_t size)
{
	return dexpr_format_bytes_as(e, true, buf, size);
}

char *dexpr_format_bytes_as(const fd_dexpr *e, bool human, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < e->n_terms && at + 1 < size; i++) {
		const dterm *t = &e->terms[i];
		double c = (double)t->num / (double)t->den;
		char cb[32];
		coef_bytes(fabs(c), cb, sizeof cb);
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? (c < 0 ? " - " : " + ") : (c < 0 ? "-" : ""), cb);
		for (int k = 0; k < t->nf && at + 1 < size; k++) {
			char name[256];
			if (human)
				dim_alias_text(e->tab, t->f[k]->text, name, sizeof name);
			else
				snprintf(name, sizeof name, "%s", t->f[k]->text);
			at += (size_t)snprintf(buf + at, size - at, human && dim_display_ascii() ? " x %s" : " \xc3\x97 %s", name);   /* × */
		}
	}
	return buf;
}

/* An atom's value with every unbound symbol at v. */
static bool atom_value_with(const datom *a, int64_t v, int64_t *out)
{
	if (a->known) {
		*out = a->value;
		return true;
	}
	if (a->kind == ATOM_SYM) {
		*out = v;
		return true;
	}
	if (a->kind == ATOM_FLOOR) {
		int64_t n;
		if (!dexpr_value_with(a->num, v, &n))
			return false;
		*out = floor_div(n, a->den);
		return true;
	}
	return false;
}

bool dexpr_value_with(const fd_dexpr *e, int64_t v, int64_t *out)
{
	if (e->known) {
		*out = e->value;
		return true;
	}
	/* as eval_terms, with the atoms' values given here */
	dterm terms[DPOLY_MAX];
	datom vals[DPOLY_MAX * DTERM_MAXF];
	int nv = 0;
	if (e->n_terms > DPOLY_MAX)
		return false;
	for (int i = 0; i < e->n_terms; i++) {
		terms[i] = e->terms[i];
		for (int k = 0; k < terms[i].nf; k++) {
			datom *x = &vals[nv++];
			memset(x, 0, sizeof *x);
			x->known = atom_value_with(e->terms[i].f[k], v, &x->value);
			terms[i].f[k] = x;
		}
	}
	return eval_terms(terms, e->n_terms, out);
}
