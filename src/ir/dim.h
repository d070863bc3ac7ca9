/* dim.h — one dimension of a shape: a number, a symbol ("batch"), or an
 * expression over symbols ("floor((samples+128)/160)-3", "2*L+1",
 * "batch*sequence/4") kept in one canonical form, so that equal dims are
 * equal pointers. The small API every module reads dims through: is it
 * known, are two equal, its text, its value at the bindings, which symbols
 * it depends on; and the arithmetic shape inference (and the estimates) do
 * on dims.
 *
 * The canonical form: a sum of terms, each a rational coefficient times a
 * product of atoms; an atom is a symbol of the model (a dim_param, or a
 * name given to an unnamed input dim), a fresh symbol ("unk__N": a dim no
 * rule of inference can express, never bound), or floor(P / q) for a
 * polynomial P with integer coefficients in [0, q) and q > 1, which is what
 * Conv and pooling windows, integer Div and ceil modes produce. Terms are
 * sorted (higher degree first, then by atom text), equal monomials merged,
 * floors normalised (integer parts pulled out, common factors cancelled,
 * floor(floor(a/b)/c) = floor(a/(b*c))), so one value has one form.
 * Expressions are interned in the model's table (fd_dimtab, one per model,
 * in its arena): equal expressions are the same pointer.
 *
 * A plain number never touches the table: an fd_dim with expr NULL is the
 * number value (value < 0: nothing is known), and the arithmetic below
 * stays int64 when both operands are numbers — a static model pays nothing.
 *
 * Bindings: each symbol of the model is bound (--dim, --input-shape) or
 * not. An expression's value at the bindings is known when every atom in it
 * is bound; an fd_dim caches it in value (-1 when not known). */
#ifndef FD_DIM_H
#define FD_DIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/strmap.h"

typedef struct fd_dexpr fd_dexpr;    /* interned: equal expressions are equal pointers */
typedef struct fd_dimtab fd_dimtab;  /* a model's symbols and expressions */

/* value >= 0: the number (for a symbolic dim, its value at the bindings);
 * value < 0: not known. expr NULL: a plain number (or nothing known). */
typedef struct fd_dim {
	int64_t value;
	const fd_dexpr *expr;
} fd_dim;

static inline fd_dim dim_of(int64_t v) { fd_dim x = { v, NULL }; return x; }
static inline fd_dim dim_unknown(void) { fd_dim x = { -1, NULL }; return x; }
/* Unknown because the model contradicts itself (a broadcast of 16 against
 * 8): no fresh symbol stands for it, it stays "?" (shape/ sh_set). */
static inline fd_dim dim_invalid(void) { fd_dim x = { -2, NULL }; return x; }
static inline bool dim_is_invalid(fd_dim d) { return d.value == -2 && !d.expr; }
/* a number at the bindings (literal or evaluated) */
static inline bool dim_known(fd_dim d) { return d.value >= 0; }
/* an expression over symbols, bound or not */
static inline bool dim_is_symbolic(fd_dim d) { return d.expr != NULL; }
/* known in some form: a number or an expression (a fresh symbol included) */
static inline bool dim_defined(fd_dim d) { return d.expr || d.value >= 0; }
/* The same number, or the same expression; two unknown dims are not equal. */
static inline bool dim_equal(fd_dim a, fd_dim b)
{
	return a.expr || b.expr ? a.expr == b.expr : a.value >= 0 && a.value == b.value;
}
/* ---- as the user reads them (dim_display.c) ---------------------------------- */
/* "64" (a number, or an expression whose symbols are all bound), "batch",
 * "2*L+1" (the formula in what is still unbound, long symbol names as their
 * aliases), "?" (nothing known). Returns buf. */
char *dim_format(fd_dim d, char *buf, size_t size);
/* e at the bindings: its number, or its formula in the unbound symbols
 * with aliases for the long names. Returns buf. */
char *dexpr_display(const fd_dexpr *e, char *buf, size_t size);
/* Symbol i's short alias ("d0") when its name is long or spelled with an
 * operator's character ('/', '.', ':'); false when it reads as itself. */
bool dimtab_symbol_alias(const fd_dimtab *t, int32_t i, char *buf, size_t size);
/* name as the shapes show it: its alias (written in buf) or itself. */
const char *dimtab_display_name(const fd_dimtab *t, const char *name, char *buf, size_t size);
/* The symbol named name, or whose alias is name (what --dim d0=1 binds);
 * -1 when none. */
int32_t dimtab_find_name_or_alias(const fd_dimtab *t, const char *name);
/* in with every aliased symbol name replaced by its alias; returns the
 * length written (cut to size). */
size_t dim_alias_text(const fd_dimtab *t, const char *in, char *buf, size_t size);
/* Text in ASCII only (the locale is not UTF-8, or NO_COLOR): the front end
 * says so once; shapes then separate dims with "x" instead of "×". */
void dim_display_set_ascii(bool ascii);
bool dim_display_ascii(void);

/* ---- expressions ------------------------------------------------------------ */
const char *dexpr_text(const fd_dexpr *e);          /* canonical, compact: "2*L+1" */
bool dexpr_value(const fd_dexpr *e, int64_t *v);    /* at the bindings; false when not known */
/* Its fresh symbols ("unk__N"): no binding can give them a value. */
bool dexpr_has_fresh(const fd_dexpr *e);
/* Every symbol of the model that e depends on (fresh ones not included),
 * distinct, sorted by name; returns how many (up to max are stored). With
 * unbound_only, only those not bound. */
int  dexpr_symbols(const fd_dexpr *e, bool unbound_only, const char **names, int max);
/* e is c * s for one symbol s (degree 1, no floor): the c (as num/den) and s. */
bool dexpr_linear(const fd_dexpr *e, const char **sym, int64_t *num, int64_t *den);
/* Every coefficient of e is an integer divisible by d (then e is, for any
 * integer values of its symbols). */
bool dexpr_divisible(const fd_dexpr *e, int64_t d);
/* e is one term c * M: c (num/den) and M, the monomial alone (coefficient 1). */
bool dexpr_monomial(const fd_dexpr *e, int64_t *num, int64_t *den, const fd_dexpr **mono);
/* Every coefficient of e is positive: e never shrinks as a symbol grows
 * (floors are normalised with coefficients >= 0, so they grow too). */
bool dexpr_monotone(const fd_dexpr *e);

/* e as a size in bytes, each term's coefficient in binary units:
 * "2.6 MiB × batch", "64 KiB × batch × seq + 12 KiB × batch". Returns buf. */
char *dexpr_format_bytes(const fd_dexpr *e, char *buf, size_t size);
/* The same for people (human: aliases, ASCII when asked) or for JSON
 * (the symbols' own names, always "×"). */
char *dexpr_format_bytes_as(const fd_dexpr *e, bool human, char *buf, size_t size);
/* e's value with every unbound symbol set to v (a what-if on the
 * bindings, or the smallest case: 1); false when not a number. */
bool dexpr_value_with(const fd_dexpr *e, int64_t v, int64_t *out);
/* For e monotone in one unbound symbol: the largest value of it (>= 1) at
 * which e <= limit, in *v; false when there is none or e is not of that kind
 * ("memory_limit holds for batch <= 128"). */
bool dexpr_largest_within(const fd_dexpr *e, int64_t limit, int64_t *v);

/* ---- symbolic integers: the arithmetic --------------------------------------- */
/* An integer that may be negative (shape arithmetic on values: Shape →
 * Gather → Sub …): the number n (e NULL; SINT_UNKNOWN when not known) or the
 * expression e. Dims convert in and out (a negative value is no dim). */
#define SINT_UNKNOWN INT64_MIN
typedef struct fd_sint {
	int64_t n;
	const fd_dexpr *e;
} fd_sint;

static inline fd_sint sint_num(int64_t n) { fd_sint s = { n, NULL }; return s; }
static inline fd_sint sint_unknown(void) { fd_sint s = { SINT_UNKNOWN, NULL }; return s; }
static inline bool sint_defined(fd_sint s) { return s.e || s.n != SINT_UNKNOWN; }
bool    sint_value(fd_sint s, int64_t *v);            /* a number at the bindings */
static inline bool sint_equal(fd_sint a, fd_sint b)
{
	return a.e || b.e ? a.e == b.e : a.n != SINT_UNKNOWN && a.n == b.n;
}
fd_sint sint_of_dim(fd_dim d);
fd_dim  dim_of_sint(fd_sint s);                        /* unknown when negative */
fd_sint sint_add(fd_sint a, fd_sint b);
fd_sint sint_sub(fd_sint a, fd_sint b);
fd_sint sint_mul(fd_sint a, fd_sint b);
/* floor(a / b) for b a positive number, or a / b when it divides exactly. */
fd_sint sint_floordiv(fd_sint a, fd_sint b);
/* a / b when exact for every value of the symbols (Reshape's -1 from the
 * element counts; a rational coefficient is allowed: batch*3/2); unknown
 * otherwise. */
fd_sint sint_div_exact(fd_sint a, fd_sint b);
/* a mod b (b a positive number): a - b*floor(a/b). */
fd_sint sint_mod(fd_sint a, fd_sint b);
/* -1, 0, 1 when the order is known (values at the bindings, or a constant
 * difference), 2 when not. */
int     sint_cmp(fd_sint a, fd_sint b);
/* a >= b for every value >= 1 of the unbound symbols (floors >= 0): a
 * sufficient test — each negative term of a - b is covered by positive
 * coefficients on multiples of its monomial — so false means "not shown",
 * not "smaller". Used to name one step the peak of a formula timeline. */
bool    sint_ge_always(fd_sint a, fd_sint b);
/* a / b as a number when a is a constant multiple of b (sizes that scale
 * alike: their ratio does not depend on the bindings). */
bool    sint_ratio(fd_sint a, fd_sint b, double *r);
/* s with every bound symbol replaced by its value: the formula in what is
 * still unbound (4 B × batch × samples at batch=2 is 8 B × samples). */
fd_sint sint_partial(fd_sint s);

/* The same on dims (both plain: int64 with overflow → unknown). */
fd_dim dim_add(fd_dim a, fd_dim b);
fd_dim dim_sub(fd_dim a, fd_dim b);
fd_dim dim_mul(fd_dim a, fd_dim b);
fd_dim dim_floordiv(fd_dim a, int64_t q);              /* q > 0 */
fd_dim dim_ceildiv(fd_dim a, int64_t q);               /* q > 0 */
fd_dim dim_div_exact(fd_dim a, fd_dim b);
/* Π dims[from, to): a number, an expression, or unknown. */
fd_dim dim_product(const fd_dim *dims, int32_t from, int32_t to);

/* ---- the table ------------------------------------------------------------------ */
/* One per model (in its arena; the names come from its pool). */
fd_dimtab *dimtab_new(fd_arena *a, strpool *names);
/* The arena and name pool t allocates from moved (their model moved: model_move). */
void dimtab_rehome(fd_dimtab *t, fd_arena *a, strpool *names);
void       dimtab_release(fd_dimtab *t);                /* its hash tables; the rest is the arena's */
/* The dim of the model's symbol name (made on first use). */
fd_dim     dimtab_symbol(fd_dimtab *t, const char *name);
/* A new fresh symbol "unk__N" (N counting up, skipping names the model has). */
fd_dim     dimtab_fresh(fd_dimtab *t);
/* Binds symbol name (false when the table has no such symbol) and
 * re-evaluates every expression made so far. */
bool       dimtab_bind(fd_dimtab *t, const char *name, int64_t value);
/* The model's symbols in order of first use, with their bindings. */
int32_t    dimtab_n_symbols(const fd_dimtab *t);
const char *dimtab_symbol_name(const fd_dimtab *t, int32_t i);
bool       dimtab_symbol_bound(const fd_dimtab *t, int32_t i, int64_t *value);
int32_t    dimtab_find_symbol(const fd_dimtab *t, const char *name);   /* -1 when absent */

#endif
