/* estimate.h — memory and cost estimates of a match result: per fusion
 * (inputs, outputs, intermediates removed from global memory, workspace, the
 * fused kernel's peak, a roofline speed-up) and per graph (the peak of live
 * activations by liveness, before and after the fusions, and the tensors that
 * make it).
 *
 * What is where in src/estimate/: estimate.c computes the numbers (and the
 * FLOPs table); estimate_report.c puts them in words (bytes and speed-ups
 * formatted, the advice, the JSON objects, `mem`'s text); hwprofile.[ch] is
 * the hardware table of the roofline. Reading a run in words without
 * estimates is explain/'s (a layer below, so it never shows these numbers).
 *
 * Formulas (also in the man page, section MEMORY AND COST ESTIMATE):
 *  - inputs  = Σ bytes of the fusion's external input tensors (activations
 *              and constants, reported separately);
 *  - outputs = Σ bytes of the tensors that leave the fusion;
 *  - removed = Σ bytes of its intermediates: each was written to global
 *              memory and read back once per consumer before; fused, never;
 *  - workspace = Σ workspace_estimate() of the members (Conv im2col:
 *              C_in/groups · kh · kw · H_out · W_out · N · dtype bytes);
 *  - kernel peak = activation inputs + constant inputs + outputs + workspace
 *              + the largest intermediate (a fused kernel holds one
 *              intermediate tile at a time between two stages; CANN's
 *              check_memory_peak.py adds im2col + gemm_out + residual +
 *              output, which is this with gemm_out as the intermediate);
 *    with rewrite.attributes tile_policy: chunked and chunk_size, the peak
 *    is scaled by ratio = Π chunk_size / elements of the largest output
 *    (clamped to 1);
 *  - over the threshold (opt.peak_warn, default 512 MiB) a fusion gets advice:
 *    enable chunked tiling, or spill_to_l2 when the workspace dominates;
 *  - roofline (hardware profile, hwprofile.h): unfused time = Σ over member
 *    nodes max(bytes moved / BW, FLOPs / peak(dtype)); fused time =
 *    max((inputs + outputs) / BW, Σ FLOPs / peak); speed-up = unfused / fused.
 *    FLOPs per op come from a small table (Conv 2·N·Cout·Hout·Wout·Cin/g·kh·kw,
 *    MatMul/Gemm 2·M·N·K·batch, elementwise 1 per output element, Softmax /
 *    LayerNorm ~5, BatchNorm ~2, …). An estimate, always labelled as one;
 *  - graph peak: topological order; a tensor is live from the step of its
 *    producer to the step of its last consumer; graph inputs from step 0,
 *    graph outputs to the end; initializers / constants excluded (reported
 *    as weight_bytes). After fusion: a fusion runs at the step of its last
 *    member, its intermediates are never live, its outputs appear at its
 *    step and its inputs stay live until it runs;
 *  - sizes that depend on symbols nobody bound are formulas (fd_sint with
 *    an expression: 256 KiB × batch); the *_f fields carry every figure as
 *    a number, a formula or unknown, and the int64 fields only the part
 *    that is a number. A graph's peak is a formula when one step's live
 *    bytes are at least every other step's for every value of the symbols
 *    (sint_ge_always); otherwise it depends on the values (peak_depends) and
 *    is unknown until they are bound. A speed-up over formulas is known when
 *    every size involved scales alike (their ratios are numbers); else 0.
 *  - unknown sizes (no dtype size, no rank, a fresh symbol no binding
 *    reaches) count as 0 in the int64 fields and are counted in n_unknown;
 *    a figure they are part of is unknown in its *_f field.
 *
 * Ownership: an fd_estimate owns its arrays (estimate_release frees them). It
 * reads the match result, context and model it was computed from; recompute
 * after every match_run. */
#ifndef FD_ESTIMATE_H
#define FD_ESTIMATE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "estimate/hwprofile.h"
#include "match/match.h"

#define ESTIMATE_PEAK_WARN_DEFAULT ((int64_t)512 << 20)
#define ESTIMATE_PEAK_TENSORS 10
#define ESTIMATE_PEAK_MAX 8   /* formulas a peak that depends on the values is the max of, at most */

typedef struct fd_estimate_options {
	int64_t peak_warn;           /* bytes; <= 0: ESTIMATE_PEAK_WARN_DEFAULT */
	const fd_hwprofile *hw;      /* NULL: hwprofile_default() */
} fd_estimate_options;

/* Why a fusion is over the threshold, and what to do:
 * X(id, JSON "advice" value (NULL: null), the advice in words). */
#define FD_MEM_ADVICE(X) \
	X(ADVICE_NONE, NULL, "") \
	X(ADVICE_CHUNKED, "chunked", \
	  "enable tile_policy: chunked with a chunk_size (rewrite.attributes) to bound the kernel's peak") \
	X(ADVICE_SMALLER_CHUNK, "smaller_chunk", \
	  "already chunked: lower chunk_size to bound the kernel's peak") \
	X(ADVICE_SPILL_L2, "spill_to_l2", \
	  "the workspace dominates: set spill_to_l2: true on workspace_size, or tile the kernel " \
	  "(tile_policy: chunked)")

typedef enum fd_mem_advice {
#define X(id, json, text) id,
	FD_MEM_ADVICE(X)
#undef X
	ADVICE_COUNT
} fd_mem_advice;

typedef struct fd_fusion_est {
	int64_t input_act_bytes;     /* external activation inputs */
	int64_t input_const_bytes;   /* weights and other constants read */
	int64_t inputs_bytes;        /* the two together */
	int64_t outputs_bytes;
	int64_t intermediate_bytes_removed;
	int64_t largest_intermediate_bytes;
	int64_t workspace_bytes;     /* 0 when unknown (workspace_known false) */
	bool workspace_known;
	int64_t kernel_peak_unchunked_bytes;
	double chunk_ratio;          /* 1 when not chunked */
	int64_t kernel_peak_bytes;   /* after chunking */
	int32_t n_unknown;           /* tensors of unknown size, counted as 0 */
	fd_mem_advice advice;        /* ADVICE_NONE unless kernel_peak_bytes > peak_warn */
	/* every figure as a number, a formula or unknown (estimate_format_size) */
	fd_sint inputs_f, input_act_f, input_const_f, outputs_f, removed_f, workspace_f, kernel_peak_f;
	bool symbolic;               /* some figure is a formula: the int64 fields are partial */
	/* roofline (seconds, FLOPs; an estimate) */
	double flops;
	double time_unfused_s, time_fused_s;
	double speedup;              /* unfused / fused; 0 when nothing is known */
	bool compute_bound;          /* fused time is set by FLOPs, not bytes */
} fd_fusion_est;

typedef struct fd_peak_tensor {
	int32_t tensor;              /* in the graph */
	int64_t bytes;               /* -1 when size is a formula or unknown */
	fd_sint size;
} fd_peak_tensor;

/* One side (before or after the fusions) of a graph's liveness. */
typedef struct fd_liveness {
	int64_t peak_bytes;          /* -1 when the peak is not a number (peak_f) */
	fd_sint peak_f;              /* the number, the formula, or unknown */
	int64_t peak_at_least;       /* peak unknown through sizes nobody knows: the bytes of the known ones, else 0 */
	fd_sint peak_lower;          /* the same as a number or a formula (the known sizes live at the peak's
	                              * step: a lower bound, true for every binding); unknown when none */
	bool peak_depends;           /* formulas, but no step is the peak for every value */
	int32_t n_peak_max;          /* peak_depends: the peak is max(peak_max[0..n-1]); 0 when more would be needed */
	fd_sint peak_max[ESTIMATE_PEAK_MAX];
	bool peak_max_lower;         /* sizes nobody knows are live too: that max is a lower bound */
	int32_t peak_step;           /* topo index of the node at the peak, -1 for an empty graph */
	int32_t peak_body;           /* the body (graph index) the node at the peak runs, whose own peak counts
	                              * on top of the live tensors; -1 none */
	fd_sint peak_body_size;      /* that body's peak */
	int32_t n_peak_tensors;      /* ≤ ESTIMATE_PEAK_TENSORS, bytes desc then name */
	fd_peak_tensor peak_tensors[ESTIMATE_PEAK_TENSORS];
	int32_t n_live_at_peak;      /* all tensors live at the peak (the top ones above) */
} fd_liveness;

typedef struct fd_graph_est {
	int32_t graph;
	fd_liveness before, after;
	int64_t weight_bytes;        /* initializers and constants, excluded from the peak */
	int32_t n_unknown;           /* activations of unknown size, counted as 0 */
	int32_t n_activations;
} fd_graph_est;

typedef struct fd_estimate {
	const fd_match_result *r;
	fd_estimate_options opt;     /* with defaults filled in */
	size_t n_fusions;
	fd_fusion_est *fusions;      /* by fusion index of r */
	int32_t n_graphs;
	fd_graph_est *graphs;        /* by graph index; [0] is the main graph (status bar) */
	int32_t n_over_threshold;    /* fusions with advice */
	/* private: buffers kept across estimate_compute calls, so a re-run
	 * allocates (and page-faults) nothing new */
	void *scratch;
	size_t scratch_size, cap_fusions;
	int32_t cap_graphs;
	void *cache;                 /* per-model sizes and node times (they never change) */
} fd_estimate;

/* A graph's memory timeline (estimate_liveness.c): live activation bytes
 * at each step of the topological order, before (live[0]) and after
 * (live[1]) the fusions, with each side's peak step. Where sizes are
 * formulas, the values are in bytes per unit of one monomial (unit: "batch"
 * — the live bytes are value × batch) when every step scales alike;
 * otherwise known is false and why says what to bind. Unknown sizes count
 * 0 and are counted in n_unknown. */
typedef struct fd_timeline {
	int32_t graph, n_steps;
	double *live[2];
	int32_t peak_step[2];
	double peak[2];
	char unit[128];              /* "" when the values are plain bytes */
	bool known;
	bool unknowable;             /* not known, and no binding would make it so */
	char why[256];
	int32_t n_unknown;
} fd_timeline;
int  estimate_timeline(const fd_estimate *e, int32_t graph, fd_timeline *out);   /* -1: no such graph */
void estimate_timeline_release(fd_timeline *t);

/* A model's memory against a baseline's (estimate_compare.c): a quantized
 * model (t[0]) beside the float model it was made from (t[1]), main graphs.
 * steps: the baseline's after-fusion timeline, each step with the step of
 * the node of the same name here (-1 none) and this model's live bytes
 * after fusion, the largest since the row before (-1 when there is no such
 * node). ratio: this model's peak / the baseline's, [0] before and [1]
 * after the fusions. Not known (why) when a timeline is not numbers or the
 * two scale by different symbols. */
typedef struct fd_mem_step {
	int32_t base_step;           /* the baseline's step (weights' nodes are left out) */
	int32_t node;                /* the baseline's node at this step */
	int32_t step;                /* the same-named node's step here, -1 none */
	double base_live, live;      /* live bytes after fusion (or per unit); live -1: none */
} fd_mem_step;
typedef struct fd_mem_compare {
	fd_timeline t[2];            /* [0] this model, [1] the baseline */
	bool known;
	char why[320];
	double ratio[2];
	int32_t n_steps, n_aligned;
	fd_mem_step *steps;
} fd_mem_compare;
int  estimate_compare(const fd_estimate *e, const fd_estimate *base, fd_mem_compare *out);   /* -1: no main graph */
void estimate_compare_release(fd_mem_compare *c);
/* mem --baseline's section: both peaks, the ratios, the steps side by side. */
void estimate_write_compare_text(FILE *f, const fd_estimate *e, const fd_estimate *base, const fd_mem_compare *c);
/* The same as one JSON object ("baseline" in mem's JSON; keys: fusiondbg(1), mem). */
void estimate_write_compare_json(FILE *f, const fd_estimate *base, const fd_mem_compare *c);

void estimate_init(fd_estimate *e);
void estimate_release(fd_estimate *e);
/* Fills e from r (reusing e's arrays). opt may be NULL. Returns 0, -1 on OOM. */
int  estimate_compute(fd_estimate *e, const fd_match_result *r, const fd_estimate_options *opt);
/* Per-fusion estimate alone (what the TUI's detail view needs). */
void estimate_fusion(const fd_match_result *r, size_t fusion, const fd_estimate_options *opt,
                     fd_fusion_est *out);
/* FLOPs of one node by the op table in estimate.c; -1 when unknown. */
double estimate_node_flops(const fd_graph *g, const fd_node *n);

/* ---- words (estimate_report.c) ---- */
const char *estimate_advice_text(fd_mem_advice a);  /* "enable tile_policy: chunked …", "" */
/* "784 KiB", "9.6 MiB", "0 B" (binary units, one decimal under 10). Returns buf. */
char *estimate_format_bytes(int64_t bytes, char *buf, size_t size);
/* A figure of an estimate: "784 KiB", "256 KiB × batch", "unknown". Returns buf. */
char *estimate_format_size(fd_sint s, char *buf, size_t size);
/* "else branch (sr != 16000)", "then branch (cond true)", "body": the
 * body graph as its owner runs it. Returns buf. */
char *estimate_body_words(const fd_model *m, int32_t body, char *buf, size_t size);
/* A graph's peak: its size, or "unknown (depends on batch, seq)". Returns buf. */
char *estimate_format_peak(const fd_model *m, const fd_liveness *lv, char *buf, size_t size);
/* "est. ×2.1", or "est. n/a" when 0. Returns buf. */
char *estimate_format_speedup(double speedup, char *buf, size_t size);

/* JSON with the keys fusiondbg(1) documents (OPTIONS, --format); `match --format json` uses the same.
 * The fusion's memory object: {"inputs_bytes", "input_activation_bytes",
 * "input_constant_bytes", "outputs_bytes", "intermediate_bytes_removed",
 * "workspace_bytes", "kernel_peak_bytes", "chunk_ratio", "speedup_estimate",
 * "advice"}. */
/* The graph-level object: {"peak_before_bytes", "peak_after_bytes",
 * "peak_tensors": [{"name", "bytes"}…] (after), "peak_tensors_before",
 * "weight_bytes", "unknown_tensors", "peak_warn_bytes", "hardware",
 * "graphs": [...] (subgraph bodies, when any)}. */
void estimate_write_memory_json(FILE *f, const fd_estimate *e);
/* Makes explain_match_json / explain_match_json_fields write each fusion's
 * memory object with estimate_write_fusion_json (the same keys in `match`
 * and `mem`). e must stay alive and match r while r is written. */
void estimate_attach_json(fd_match_result *r, const fd_estimate *e);
/* `mem`'s text report: per fusion, then the whole graph and warnings. */
void estimate_write_text(FILE *f, const fd_estimate *e);

#endif
