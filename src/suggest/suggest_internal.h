/* suggest_internal.h — what the steps of suggest (suggest.h) hand each
 * other. Everything works on the graph as the rules leave it (the fused
 * model: every final fusion one node of domain FD_FUSED_DOMAIN), the graph
 * a rule of a later pass sees; node ids are that model's until the report
 * maps them back. */
#ifndef FD_SUGGEST_INTERNAL_H
#define FD_SUGGEST_INTERNAL_H
#include "base/strbuf.h"
#include "base/vec.h"
#include "ir/rewrite.h"
#include "match/match.h"
#include "suggest/suggest.h"

/* A piece the search found: n nodes of one graph, topological order. */
typedef struct suggest_piece {
	int32_t graph, n;
	int32_t nodes[SUGGEST_MAX_OPS_LIMIT];
} suggest_piece;

/* The candidates grouped by key, each group's in topological order of
 * their first node (graph by graph). */
typedef struct suggest_group {
	const char *key;
	VEC(int32_t) pieces;         /* indices into suggest_found.pieces */
} suggest_group;

typedef struct suggest_found {
	VEC(suggest_piece) pieces;   /* every candidate; they overlap */
	VEC(int64_t) piece_bytes;    /* each one's intermediates: a formula as at 1 for every symbol, unknown 0 */
	VEC(suggest_group) groups;
	int64_t n_eligible;
	size_t bytes;                /* the search's own arrays, at their largest */
} suggest_found;

/* The heavy compute ops (suggest_kernel.c): at most max_heavy in a pattern. */
bool suggest_op_is_heavy(const char *op_type);

/* The op table entry a rule names node n by (its own name when the table
 * has one, else the first entry that matches it), or -1. */
int  suggest_node_op(const fd_graph *g, const fd_node *n);
/* Can a fusion take node i of graph gi of ctx's model? */
bool suggest_node_eligible(const fd_match_ctx *ctx, int32_t gi, int32_t i);
/* The search (suggest_search.c); keys live in a. */
void suggest_search(const fd_match_ctx *ctx, int max_ops, int max_heavy, fd_arena *a, suggest_found *out);
void suggest_found_release(suggest_found *f);

/* What a rule is made from (suggest_rule.c). */
typedef struct suggest_rule_in {
	const fd_match_ctx *ctx;     /* the fused model's */
	const fd_ruleset *rs;        /* the rules it joins */
	const fd_ruleset *above;     /* the rules of the patterns taken before it (NULL: none) */
	const char *target;
	const char *name, *target_op;
	int32_t n_ops;
	int32_t n_inst;
	const suggest_piece *inst;        /* nodes by position */
	int32_t n_found;             /* for the comment: how the search grouped them */
} suggest_rule_in;
/* The YAML document; *free_params: the params that vary ("" none). Both in a. */
const char *suggest_rule_yaml(const suggest_rule_in *in, fd_arena *a, const char **free_params);
/* How many instances read a commutative op's two inputs the other way
 * round from the first (the matcher tries both orders, so one rule takes
 * them all); *ops: those ops' names, ", "-joined, in a ("" none). */
int32_t suggest_rule_swapped(const suggest_rule_in *in, fd_arena *a, const char **ops);
/* A rule name and target op from the op types, unique in rs and among
 * taken (a strmap of names already given). */
void suggest_rule_names(const fd_graph *g, const suggest_piece *p, const fd_ruleset *rs, strmap *taken, fd_arena *a,
                   const char **name, const char **target_op);

/* The graph as the rules of rd leave it (every final fusion one node) and
 * its match context (suggest_verify.c); -1 + d when it cannot be built. */
typedef struct suggest_fused {
	fd_rewrite rw;
	fd_model fm;
	fd_rewrite_map map;          /* fm's nodes to rd's model's and back */
	fd_match_ctx ctx;
} suggest_fused;
int  suggest_fused_open(suggest_fused *fz, fd_rounds *rd, fd_diags *d);
void suggest_fused_close(suggest_fused *fz);
/* Defaults and limits put in. */
void suggest_options_settle(fd_suggest_options *o);

/* What making and verifying a pattern's rule needs (suggest_verify.c). */
typedef struct suggest_verify {
	const fd_match_ctx *ctx;     /* the fused model's */
	const fd_ruleset *rs;
	const fd_suggest_options *opt;
	fd_suggest *sg;
	strmap names;                /* rule names given so far */
	strbuf above_yaml;           /* the rules of the patterns taken, one document each */
	fd_ruleset above;            /* the same, loaded (the new rule goes below them) */
	int32_t n_above;
	fd_diags *d;                 /* where a rule that does not load is said (NULL: nowhere) */
} suggest_verify;
void suggest_verify_init(suggest_verify *vs, const fd_match_ctx *ctx, const fd_ruleset *rs,
                         const fd_suggest_options *opt, fd_suggest *sg, fd_diags *d);
void suggest_verify_release(suggest_verify *vs);
/* Adds pat's rule to the rules of the patterns taken. */
void suggest_verify_take(suggest_verify *vs, const fd_suggest_pattern *pat);
/* The rule made from the n pieces (fused model ids) and run beside the
 * rules of the patterns taken; its firings become the instances and the
 * rule is made again from them, at most `rounds` times, until the two
 * agree (verified). Fills pat (named by pat->rule_name and target_op when
 * set, else given new names); false when the rule fires nowhere. */
bool suggest_verify_pieces(suggest_verify *vs, const char *key, const suggest_piece *pieces, int32_t n,
                           int rounds, fd_suggest_pattern *pat);
/* The patterns kept: node ids mapped back to rd's model, titles, nearest
 * rules; sg takes them. */
void suggest_finish(fd_suggest *sg, fd_rounds *rd, const fd_ruleset *rs, const suggest_fused *fz,
                    fd_suggest_pattern *pats, int32_t n);

#endif
