/* suggest.h — the fusions a model is missing: chains of unfused nodes
 * grouped by pattern across the model, ranked by the intermediate bytes a
 * fusion of every instance would keep off memory, each with the rule that
 * makes it (fusiondbg(1), SUGGEST).
 *
 * A pattern is a kernel a compiler engineer would write: at most max_heavy
 * heavy compute ops (suggest_kernel.c's table: Conv, MatMul, Gemm, …;
 * default 1) with the ops of its prologue and epilogue, as many as its
 * instances share. A node belongs to one pattern's instance at most, so
 * the bytes of the patterns add up: the instances of pattern k are where
 * its rule fires beside the rules of patterns 1..k-1 (which take theirs
 * first, at a higher priority).
 *
 * How (each step its own file):
 *   suggest_search.c  after the rules (every round, the final fusions):
 *                     the nodes no rule fused, that the op table can name
 *                     and does not mark as not fusible
 *                     (optable_not_fusible), that compute more than
 *                     constants and shape arithmetic; from each, a piece
 *                     grows over every consumer of a tensor it makes (so
 *                     that no intermediate leaves it) up to max_ops nodes
 *                     and max_heavy heavy ops; each prefix of it whose only
 *                     outputs are its last node's is a candidate; the
 *                     candidates are grouped by a key: op types and
 *                     domains, the dataflow (which op feeds which input;
 *                     a commutative op's two inputs in one order, so that
 *                     instances differing only there are one pattern), the
 *                     kind of every other input, and the string and
 *                     boolean params;
 *   suggest_select.c  the patterns one by one, greedily: the key whose
 *                     candidates on nodes no pattern took yet keep the
 *                     most bytes off memory, its rule made and run
 *                     (suggest_verify.c) beside the rules of the patterns
 *                     taken before, checked against the next key's bytes
 *                     (lazy greedy), then its instances' nodes taken;
 *   suggest_rule.c    a pattern's rule as YAML text: ops in order with
 *                     input_sources as the instances show them, source
 *                     types, dtypes, shapes and params that hold for every
 *                     instance, those that vary in a comment, the last op's
 *                     consumer counts, a priority below every rule that
 *                     competes for its op types (the set's and the
 *                     patterns' taken before), in a pass after every pass
 *                     of the set; names from the model escaped in comments;
 *   suggest_verify.c  the instances are where that rule fires: it is run
 *                     over the graph as the rules leave it (every fusion
 *                     one node), its firings become the instances, the
 *                     rule is made again from them, until the two agree
 *                     (at most SUGGEST_ROUNDS times); then the bytes and
 *                     the roofline speed-up (estimate.h) of those fusions,
 *                     and the rules that came nearest on the first instance
 *                     (explain.h's why-not across rounds);
 *   suggest_kernel.c  the heavy ops;
 *   suggest_chain.c   the same for one chain named by its ends;
 *   suggest_report.c  text and JSON.
 * Ranked by the bytes, a formula as its value with every unbound symbol 1.
 * Bounds: each node seeds one piece and a piece looks at most max_ops
 * nodes' consumers, so the search is linear in the graph; a selection step
 * is linear in the candidates; only the patterns kept (and those the lazy
 * greedy looks at) are verified (one run of their rules each).
 *
 * Ownership: an fd_suggest owns everything in it (its arena); it refers to
 * the model, rules and rounds it was made from by index only, and names
 * nodes by their original ids in the graph. */
#ifndef FD_SUGGEST_H
#define FD_SUGGEST_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "base/arena.h"
#include "base/diag.h"
#include "estimate/estimate.h"
#include "rounds/rounds.h"

#define SUGGEST_MAX_OPS_DEFAULT 8    /* bias + GELU after a MatMul, as PyTorch writes them, is 7 */
#define SUGGEST_MAX_OPS_LIMIT 16
#define SUGGEST_MAX_HEAVY_DEFAULT 1
#define SUGGEST_TOP_DEFAULT 10
#define SUGGEST_ROUNDS 4        /* rule made again from its firings at most this often */
#define SUGGEST_NEAR 3          /* nearest rules kept per pattern */

typedef struct fd_suggest_options {
	int max_ops;                /* nodes in a pattern, 2..SUGGEST_MAX_OPS_LIMIT; 0: default */
	int max_heavy;              /* heavy compute ops in a pattern, 1..SUGGEST_MAX_OPS_LIMIT; 0: default */
	int top;                    /* patterns verified and kept; 0: default */
	const char *target;         /* the scope the rules are written for (NULL: ai_core) */
	fd_estimate_options est;
} fd_suggest_options;

/* One instance: the nodes at the pattern's positions (original ids of its graph). */
typedef struct fd_suggest_instance {
	int32_t graph;
	int32_t *nodes;             /* n_ops of them, by position */
} fd_suggest_instance;

typedef struct fd_suggest_near {
	int32_t rule;
	int32_t round;              /* the round that answers (1-based) */
	const char *line;           /* the why-not line */
} fd_suggest_near;

typedef struct fd_suggest_pattern {
	const char *key;            /* the grouping key */
	const char *title;          /* "Conv -> Relu" */
	int32_t n_ops;
	const char **op_types;      /* the first instance's node op types */
	int32_t n_found;            /* candidates the search grouped under the key (on nodes free when taken) */
	int32_t n_instances;
	fd_suggest_instance *instances;   /* where the rule fires, topological order */
	fd_sint bytes_f;            /* Σ intermediates removed: number, formula, or unknown */
	int64_t bytes;              /* its part that is a number (sort key) */
	double speedup;             /* Σ unfused time / Σ fused time; 0 when unknown */
	const char *rule_name, *target_op;
	const char *rule_yaml;      /* the rule, a document of its own */
	const char *free_params;    /* "op0 Conv: kernel_size, pads; …", "" when none */
	bool verified;              /* the rule's firings are the instances it was made from */
	int32_t n_swapped;          /* instances reading a commutative op's two inputs the other way round */
	const char *swapped_ops;    /* those ops: "Add", "Add, Mul"; "" when n_swapped is 0 */
	int32_t n_near;
	fd_suggest_near near[SUGGEST_NEAR];
} fd_suggest_pattern;

typedef struct fd_suggest {
	fd_arena arena;
	int32_t max_ops, max_heavy;
	int64_t n_eligible;         /* nodes a fusion could take */
	int64_t n_pieces;           /* candidate chains found (two nodes or more; they may overlap) */
	int32_t n_keys;             /* candidate patterns (keys) before selection */
	int32_t n_fire_nowhere;     /* candidate patterns looked at whose rule fired nowhere */
	int32_t n;                  /* patterns kept, ranked */
	fd_suggest_pattern *patterns;
	double search_ms, verify_ms;
	size_t peak_search_bytes;   /* the search's own arrays */
} fd_suggest;

void suggest_init(fd_suggest *sg);
void suggest_release(fd_suggest *sg);
/* The patterns of rd's model after the rules of rs (rd: a finished run,
 * rounds_make_all is called on it). -1 + d when the graph as the rules
 * leave it cannot be built. */
int suggest_run(fd_suggest *sg, fd_rounds *rd, const fd_ruleset *rs, const fd_suggest_options *opt, fd_diags *d);

/* The pattern of one chain (suggest_chain.c): every node of graph on a
 * dataflow path between original nodes first and last (either order),
 * and the rule made from that chain alone, run once: sg holds one pattern
 * whose instances are where that rule fires (verified: on the chain only).
 * -1 + d naming the node when the chain is not one a rule can fuse (a node
 * fused already or not fusible, no path, an inner tensor read outside,
 * more than SUGGEST_MAX_OPS_LIMIT nodes). */
int suggest_chain(fd_suggest *sg, fd_rounds *rd, const fd_ruleset *rs, const fd_suggest_options *opt, int32_t graph,
                  int32_t first, int32_t last, fd_diags *d);

/* ---- words (suggest_report.c) ---- */
void suggest_write_text(FILE *f, const fd_suggest *sg, const fd_model *m, const fd_ruleset *rs);
void suggest_write_json(FILE *f, const fd_suggest *sg, const fd_model *m, const fd_ruleset *rs);
/* The heavy ops for a message (suggest_kernel.c): "Conv, ConvTranspose, MatMul, Gemm, Einsum, …". */
const char *suggest_heavy_list(void);
/* Why sg has no pattern, in words ("every chain a fusion could take is
 * fused already"); what the text report and --write both say. */
const char *suggest_none_reason(const fd_suggest *sg, char *buf, size_t size);

#endif
