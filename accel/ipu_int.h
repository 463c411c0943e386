/*
 * Internals of the IPU model: the layer's derived constants, the plan's
 * geometry, the PopLibs vertex estimates (ipu_vertex.c), the planner's pass
 * estimates and search (ipu_plan.c), the partitioner (ipu_partition.c), the
 * realized cost of a filled layout (ipu_cost.c), the density-aware draws
 * (ipu_density.c) and the dense baseline (ipu_dense.c).
 * Sizes are in elements, grains (groups of the grouping) or bytes as named.
 */
#ifndef ACCEL_IPU_INT_H
#define ACCEL_IPU_INT_H

#include "accel/accel.h"

#include "util/xalloc.h"

/* ------------------------------------------------------------- the layer */

struct ipu_layer {
	const struct spec_ipu_device *dev;
	const struct spec_ipu_layer *l;
	bool half;                 /* input type half */
	bool half_partials;
	unsigned b_in, b_p;        /* bytes of the input and partials types */
	bool block;                /* block sparsity */
	unsigned kb;               /* kernel block side (1 element-wise) */
	unsigned q;                /* layer blocks are q x q kernel blocks */
	uint64_t X, Y, Z;          /* elements */
	double d;                  /* density of W's blocks */
	bool grad_a, grad_w;
	double o;                  /* metaInfoBucketOversizeProportion */
	unsigned W;                /* workers */
	unsigned E;                /* exchange bytes per cycle */
};

/* Derive the constants of 's''s layer. */
void ipu_layer_init(struct ipu_layer *L, const struct spec_set *s);

/* A candidate method with its grouping (poplibs §1.2). */
struct ipu_method {
	unsigned gx, gy, gz;
	enum accel_ipu_method m[SPEC_IPU_N_PASSES];
	bool grad_w_exch;          /* gradWExchangeBuckets */
};

/* The partition of a plan. */
struct ipu_geom {
	unsigned px, py, pz;
	uint64_t T;
	uint64_t Nx, Ny, Nz;       /* grains */
	uint64_t nx, ny, nz;       /* grains per partition */
};

/* Bucket sizes (poplibs §1.4). */
struct ipu_sizes {
	uint64_t Rg, rb, nz_elems, meta_words;
	uint64_t bytes_r;          /* B_r: values + metaInfo, Fwd/GradA */
	uint64_t bytes_w;          /* B_w: GradW (partials + metaInfo) */
	double a1, c1;             /* U(d, n_x, n_y): non-empty rows, nz per row */
};

/* The phases of one pass's cycles (planner or realized). */
struct ipu_pass_est {
	double transpose, dist_exch, dist_compute, prop, reduce;
	double total;
	uint64_t temp;
};

/* ------------------------------------------------------ vertex estimates */

enum ipu_ew_kind { IPU_EW_FWD, IPU_EW_GRAD_A, IPU_EW_TRANSPOSE, IPU_EW_GRAD_W };

double ipu_ew_worker(enum ipu_ew_kind k, bool half, uint64_t z, double rows, double nz);
double ipu_ew_supervisor(enum ipu_ew_kind k, uint64_t n_buckets, uint64_t n_info,
			 uint64_t n_subgroups);
double ipu_empty_bucket_cycles(bool block, uint64_t n_subgroups);
double ipu_info_bucket_cycles(bool block, enum ipu_ew_kind k, uint64_t n_subgroups);
int ipu_block_kind(unsigned b);
unsigned ipu_block_conv_units(const struct ipu_layer *L);
void ipu_block_consts(unsigned b, bool half, bool half_partials, unsigned conv_units, uint64_t z,
		      double *ov, double *io, double *nu);
double ipu_block_cpz(const struct ipu_layer *L, unsigned b);
double ipu_block_worker(const struct ipu_layer *L, unsigned b, uint64_t z, double blocks,
			bool retain_x);
double ipu_block_supervisor(const struct ipu_layer *L, unsigned b, uint64_t n_buckets,
			    uint64_t n_info, uint64_t n_subgroups, double rows, double blocks,
			    bool retain_x);
double ipu_block_gradw_worker(const struct ipu_layer *L, unsigned b, uint64_t z, double rows,
			      double blocks);
double ipu_block_gradw_amp(const struct ipu_layer *L, unsigned b, uint64_t z, double rows,
			   double blocks, uint64_t n_info);
double ipu_zero_cycles(const struct ipu_layer *L, double n);
double ipu_cast_cycles(const struct ipu_layer *L, double n);
double ipu_reduce_cycles(const struct ipu_layer *L, uint64_t out, uint64_t p);
double ipu_transpose_cycles(const struct ipu_layer *L, uint64_t n, unsigned r, unsigned c);
double ipu_block_transpose_gradw_cycles(const struct ipu_layer *L, unsigned bs, uint64_t n_blocks,
					uint64_t z);
unsigned ipu_vector_width(enum spec_ipu_dtype t);

/* --------------------------------------------------------------- planner */

/* Exchange of 'bytes' to one tile with 'consecutive' tiles receiving the same
 * data among 'T' (poplibs §1.5), plus the device's sync. */
double ipu_exchange_cycles(const struct ipu_layer *L, uint64_t bytes, uint64_t consecutive,
			   uint64_t T, bool allow_sharing);

/* U(d, a, c) of §1.4: (non-empty rows, nz per non-empty row). */
void ipu_uniform(double d, uint64_t a, uint64_t c, double *a1, double *c1);

/* The largest piece (rows, cols) of splitTileBetweenWorkers(r, c, W), grid case. */
void ipu_split_workers(uint64_t r, uint64_t c, unsigned W, uint64_t *rows, uint64_t *cols);

/* Bucket sizes of 'g' under method 'm'. */
void ipu_sizes_init(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		    bool is_static, struct ipu_sizes *z);

/* The geometry of partitions (px, py, pz) under 'm'. */
void ipu_geom_init(const struct ipu_layer *L, const struct ipu_method *m, unsigned px,
		   unsigned py, unsigned pz, struct ipu_geom *g);

/* The planner's cost of pass 'p' (§1.6, §1.7); static sparsity per docs/ipu.md. */
void ipu_pass_plan(const struct ipu_layer *L, const struct ipu_method *m, const struct ipu_geom *g,
		   const struct ipu_sizes *z, enum spec_ipu_pass p, bool is_static,
		   struct ipu_pass_est *e);

/* Bytes a tile holds under the plan (bucket, dense shares, 'temp' temporaries). */
uint64_t ipu_tile_bytes(const struct ipu_layer *L, const struct ipu_method *m,
			const struct ipu_geom *g, const struct ipu_sizes *z, uint64_t temp);

/* The candidate methods of the layer (§1.2); returns their count (<= 4). */
unsigned ipu_methods(const struct ipu_layer *L, struct ipu_method *out);

/* The planner's search (§1.8); -1 and 'why' when no partition is possible. */
int ipu_plan_search(const struct ipu_layer *L, bool is_static, struct ipu_method *m,
		    struct ipu_geom *g, struct ipu_sizes *z, uint64_t *bound, uint64_t *n_evaluated,
		    char *why, size_t why_size);

/* ----------------------------------------------------------- partitioner */

/* One row piece: a row of an X/Y partition (index inside it) and its blocks. */
struct ipu_row {
	uint32_t row;
	uint32_t nz;
};

/* splitTileBetweenWorkers(n, c, W) with the rows' non-zeros as weights: one
 * past each piece's last row into 'ends' (W entries); returns the pieces. */
unsigned ipu_split_workers_weighted(const struct ipu_row *rows, uint32_t n, unsigned W,
				    uint32_t *ends);

/* A sub-group in a bucket: rows of partition 'sg' (x * P_y + y). */
struct ipu_subgroup {
	uint32_t sg;
	uint32_t n_rows;
	uint64_t nz;
	struct ipu_row *rows;      /* owned */
};

struct ipu_bucket {
	uint32_t n, alloc;
	struct ipu_subgroup *sgs;  /* owned */
	uint64_t nz, meta;         /* used: blocks, metaInfo words */
};

/* What the partitioner needs of the plan (capacities in kernel blocks, words). */
struct ipu_part_cfg {
	unsigned px, py, pz;
	uint64_t cap_groups;       /* nzElemsPerBucket / (g_x g_y) */
	uint64_t cap_meta;         /* M: metaInfo words of a bucket */
	uint64_t fixed_meta;       /* per sub-group: 9 + 5W (+GradW) / 7 (+GradW) */
};

/* The partitioner's result: buckets in PN order and the propagation header. */
struct ipu_layout {
	struct ipu_part_cfg cfg;
	uint64_t n_buckets;
	struct ipu_bucket *buckets;    /* owned */
	bool overflow;                 /* "Overflow in buckets" */
	uint64_t leftover_groups;
	/* propagation (§2 "Overflow info"): Fwd and GradA */
	unsigned dx_max, dy_max;       /* lexicographic max distance (Fwd order) */
	unsigned gdx_max, gdy_max;     /* the same in GradA order (y outer... swapped) */
	uint8_t *xbits;                /* [px]: some data at X distance k */
	uint8_t *ybits;                /* [py]: some data at Y distance k (GradA) */
	uint64_t n_subgroups, n_spilled, spilled_groups;
};

/* The partitioner's view of a plan: capacities in kernel blocks and words,
 * the sub-group header (9 + 5 W (+ 4 W + 1 GradW) element-wise, 7 (+ 4 W)
 * for blocks, §2 sizes). */
struct ipu_part_cfg ipu_part_cfg_of(const struct ipu_layer *L, const struct ipu_method *m,
				    const struct ipu_geom *g, const struct ipu_sizes *z);

/*
 * Fill the buckets of 'cfg' from the rows of every X/Y partition:
 * part_rows[i] (n_rows[i] entries, non-empty rows in row order) for
 * partition i = x * P_y + y. Returns the layout (free with ipu_layout_free).
 */
struct ipu_layout *ipu_partition(const struct ipu_part_cfg *cfg, struct ipu_row *const *part_rows,
				 const uint32_t *n_rows);

/* Propagation steps of the Fwd (grad_a false) or GradA order, and the X (or Y)
 * iterations skipped by the bitset. */
uint64_t ipu_layout_steps(const struct ipu_layout *lay, bool grad_a, uint64_t *skipped);

void ipu_layout_free(struct ipu_layout *lay);

/* ------------------------------------------------------- realized costs */

/* The realized cost of pass 'p' on a filled layout (distribution with the
 * actual per-tile work, every propagation step, reduction). */
void ipu_pass_realize(const struct ipu_layer *L, const struct ipu_method *m,
		      const struct ipu_geom *g, const struct ipu_sizes *z,
		      const struct ipu_layout *lay, enum spec_ipu_pass p, struct ipu_pass_est *e);

/* The blocks of the busiest tile in the distribution, and summed over the
 * propagation steps of pass 'p' (what the executor counts). */
void ipu_layout_work(const struct ipu_layout *lay, enum spec_ipu_pass p, uint64_t *dist_max,
		     uint64_t *step_max_sum);

/* ----------------------------------------------------------- the density */

/*
 * The rows of every X/Y partition of 's''s actual data under 'g' (in kernel
 * blocks): part_rows[i], n_rows[i] for i = x * P_y + y, owned by the caller
 * (ipu_rows_free). Returns 0, or -1 when W has no actual data.
 */
int ipu_rows_actual(const struct spec_set *s, const struct ipu_layer *L, const struct ipu_geom *g,
		    struct ipu_row ***part_rows, uint32_t **n_rows);

/* Free what ipu_rows_actual() or the draws returned for 'n' partitions. */
void ipu_rows_free(struct ipu_row **part_rows, uint32_t *n_rows, uint64_t n);

/*
 * Density-aware steps and costs: draw 'o->n_samples' patterns' partition
 * contents from W's density model, partition each and cost it; fills the
 * realized phases, steps and percentile of out->passes, and the partitioner
 * summary of 'out'.
 */
void ipu_density_eval(const struct spec_set *s, const struct ipu_layer *L,
		      const struct ipu_method *m, const struct ipu_geom *g,
		      const struct ipu_sizes *z, const struct accel_ipu_options *o,
		      struct accel_ipu_result *out);

/* ------------------------------------------------------------- dense */

/* The dense IPU matmul baseline of every pass present into 'out'. */
void ipu_dense_eval(const struct ipu_layer *L, struct accel_ipu_result *out);

#endif
