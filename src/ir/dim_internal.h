/* dim_internal.h — the representation behind ir/dim.h, shared by its three
 * files and by nothing else:
 *   dim_table.c  the table: symbols, atoms and expressions interned, their
 *                text and their values at the bindings
 *   dim_poly.c   polynomials being computed (dpoly): sums, products,
 *                floors, exact quotients, and making one an expression
 *   dim.c        the public arithmetic on fd_sint / fd_dim, and formatting
 * An expression is immutable once interned; a dpoly is a scratch value on
 * the stack. */
#ifndef FD_DIM_INTERNAL_H
#define FD_DIM_INTERNAL_H
#include "ir/dim.h"

enum { ATOM_SYM, ATOM_FRESH, ATOM_FLOOR };

typedef struct datom {
	uint8_t kind;
	bool fresh;                /* is or contains a fresh symbol */
	bool known;                /* value at the bindings */
	int32_t sym;               /* ATOM_SYM: index in the table's symbols */
	uint32_t id;               /* creation order: breaks ties of equal text */
	int64_t value;
	int64_t den;               /* ATOM_FLOOR: floor(num / den), den > 1 */
	const fd_dexpr *num;
	const char *text;          /* "batch", "unk__3", "floor((L+1)/2)" */
} datom;

#define DTERM_MAXF 8           /* factors of a term (degree) */
typedef struct dterm {
	int64_t num, den;          /* coefficient num/den: den >= 1, coprime, num != 0 */
	uint8_t nf;
	const datom *f[DTERM_MAXF];  /* sorted by dim_atom_cmp; a repeated atom is a power */
} dterm;

struct fd_dexpr {
	fd_dimtab *tab;
	const char *text;
	uint64_t hash;
	uint32_t id;
	uint16_t n_terms;
	bool fresh;
	bool known;
	int64_t value;
	const dterm *terms;        /* canonical order, constant term last */
};

#define DPOLY_MAX 64
typedef struct dpoly {
	int n;
	bool bad;                  /* not expressible: too large, overflow, no exact quotient */
	dterm t[DPOLY_MAX];
} dpoly;

/* dim_table.c */
int  dim_atom_cmp(const datom *a, const datom *b);
int  dim_term_cmp_monomial(const dterm *a, const dterm *b);     /* monomials only */
/* The expression of p (normalised, at least one non-constant term). */
const fd_dexpr *dim_table_intern(fd_dimtab *t, const dpoly *p);
/* floor(num / den) as an atom (num canonical, integer coefficients in [0, den)). */
const datom *dim_table_floor_atom(fd_dimtab *t, const fd_dexpr *num, int64_t den);

/* dim_poly.c */
void poly_expr(dpoly *p, const fd_dexpr *e);
void poly_of_sint(dpoly *p, fd_sint s);  /* a number or an expression */
void poly_atom(dpoly *p, const datom *a);
void poly_add(dpoly *out, const dpoly *a, const dpoly *b, int sign);
void poly_mul(dpoly *out, const dpoly *a, const dpoly *b);
void poly_floordiv(fd_dimtab *t, dpoly *out, const dpoly *a, int64_t q);
void poly_div_exact(dpoly *out, const dpoly *a, const dpoly *b);
/* p as a symbolic integer (a number when p is constant). */
fd_sint poly_result(fd_dimtab *t, const dpoly *p);
/* gcd of |a| and |b| (gcd(0, b) = |b|). */
int64_t dim_gcd(int64_t a, int64_t b);

#endif
