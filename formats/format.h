/*
 * Fibertree rank formats (semantics 4.3): analytical occupancy of a tensor
 * tile stored as a tree of fibers, one format per rank.
 *
 * Ranks are numbered little-endian: rank 0 is the innermost (the last one a
 * user lists). Occupancies are expected counts of *units* (one metadata or
 * payload word of the rank); widths are in *bits*. Everything here is a pure
 * function of plain values: the probabilities that tiles are empty come from
 * the tensor's density model (density/density.h), which the caller queries, so
 * this module never sees a density model, a YAML node or an allocation.
 */
#ifndef FORMATS_FORMAT_H
#define FORMATS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "specs/spec.h"

/* ------------------------------------------------------------ one rank */

/* What one rank's format model needs to know (semantics 4.3.2). */
struct fmt_rank_query {
	uint64_t fiber_shape;   /* f: coordinates in one fiber of this rank */
	double n_fibers;        /* F: fiber positions of this rank (empty ones included) */
	double p_empty_cur;     /* P(a fiber of this rank is empty) */
	double p_empty_next;    /* P(an element of a fiber, the next rank's tile, is empty) */
	uint64_t fixed_coords;  /* CP only: coordinates kept per fiber, padded (a sparse_fixed
				 * axis, ELL's width n_col); 0: the non-empty elements */
};

/* Expected occupancy of one rank. */
struct fmt_rank_occupancy {
	double fibers;          /* F': fibers actually stored */
	double metadata_units;
	double payload_units;
};

/* The model of one rank format. */
struct fmt_ops {
	enum fmt_kind kind;
	const char *name;                  /* as Timeloop prints it, lower case ("uop") */
	bool compressed;                   /* stores only non-empty elements */
	bool implicit;                     /* a lone rank of this format has no metadata */
	unsigned default_metadata_word_bits; /* 0: the level's default */
	/* Occupancy of one rank for 'q'; never NULL. */
	struct fmt_rank_occupancy (*occupancy)(const struct fmt_rank_query *q);
};

/* The model of format 'kind' (a static table; never NULL for a valid kind). */
const struct fmt_ops *fmt_get(enum fmt_kind kind);

/* ------------------------------------------------------------ word bits */

enum fmt_bits_status {
	FMT_BITS_OK,            /* used as given (or defaulted) */
	FMT_BITS_ADJUSTED,      /* raised until they divide the metadata storage width */
	FMT_BITS_TOO_WIDE,      /* wider than the metadata storage width: a spec error */
};

/*
 * Word bits of one rank's metadata ('is_metadata') or payload (semantics 1.5
 * AdjustFormatWordBits). 'spec_bits' < 0 means unspecified: then the
 * format's own default (B: 1 metadata bit) or else 'level_default_bits' is
 * used, unadjusted. A specified, non-zero width that does not divide
 * 'storage_width_bits' (when that is non-zero) is raised until it does.
 * Writes the bits to '*out' (OUT) and returns how they were obtained.
 */
enum fmt_bits_status fmt_word_bits(enum fmt_kind kind, bool is_metadata, int spec_bits,
				   unsigned level_default_bits, unsigned storage_width_bits,
				   unsigned *out);

/* -------------------------------------------------- one tile, every rank */

/*
 * A tensor's format at one level, with the loop-derived fiber shapes
 * (semantics 4.3.1; fmt_assign_ranks() computes them).
 */
struct fmt_layout {
	unsigned n_ranks;                              /* R >= 1 */
	enum fmt_kind kind[SPEC_MAX_FMT_RANKS];        /* [r], r = 0 innermost */
	uint64_t fiber_shape[SPEC_MAX_FMT_RANKS];      /* [r] */
	unsigned metadata_word_bits[SPEC_MAX_FMT_RANKS]; /* [r], after fmt_word_bits() */
	unsigned payload_word_bits[SPEC_MAX_FMT_RANKS];
	uint64_t fixed_coords[SPEC_MAX_FMT_RANKS];     /* [r], see fmt_rank_query; 0 = none */
	bool inner_to_outer;                           /* rank_application_order */
};

/* Occupancy of every rank of one data tile. */
struct fmt_tile_occupancy {
	unsigned n_ranks;
	struct fmt_rank_occupancy rank[SPEC_MAX_FMT_RANKS];  /* [r], r = 0 innermost */
	bool empty[SPEC_MAX_FMT_RANKS];  /* rank skipped (fiber shape 1 below the top) */
};

/*
 * Per-rank occupancy of one data tile (semantics 4.3.2,
 * GetMetaDataTileOccupancyGivenDataTile). 'p_empty_data' is P(the data tile
 * is empty); 'p_empty_sub[r]' (r = 0 .. R-1) is P(the element tile of rank r
 * is empty), i.e. of the tile of rank r-1, or of a scalar for r = 0. All
 * under the caller's constraint (usually "the data tile holds n non-zeros").
 * Rank R-1 takes one fiber whose tile is the data tile; rank r < R-1 takes
 * the fibers of rank r+1's elements. A rank of fiber shape 1 that is not the
 * top rank (rank 0 under inner_to_outer) is empty. Finally the innermost
 * non-empty rank's payload is zeroed: its payload is the data itself.
 */
void fmt_tile_occupancy(const struct fmt_layout *lay, double p_empty_data,
			const double *p_empty_sub, struct fmt_tile_occupancy *out);

/*
 * Bits of a tile's metadata: sum over ranks of md_units * md_word_bits +
 * pl_units * pl_word_bits. With 'ceil_units' each unit count is rounded up
 * first (semantics 4.7, capacity); otherwise it is used as is (3.2, accesses).
 */
double fmt_tile_bits(const struct fmt_layout *lay, const struct fmt_tile_occupancy *occ,
		     bool ceil_units);

/*
 * P(a tile is empty given that the data tile holds 'occupancy' non-zeros),
 * for the tile 'entry' of a layout: entry 0 is a scalar, entry r+1 the tile
 * of rank r, entry R the data tile. Supplied by the caller from the density
 * model; 'ctx' is passed through.
 */
typedef double (*fmt_p_empty_fn)(void *ctx, unsigned entry, uint64_t occupancy);

/* Expected occupancy of a kept tile over its occupancy distribution. */
struct fmt_expected {
	double keep_ratio;      /* 1 - p_first when empty tiles are dropped, else 1 */
	double data_occupancy;  /* expected non-zeros stored */
	struct fmt_tile_occupancy metadata;  /* expected per-rank units */
};

/*
 * Expected data and metadata occupancy (semantics 4.3.3,
 * CalculateExpectedOccupancy). 'probs[i]' = P(occupancy = n_min + i) for
 * i < n_probs, the unconstrained distribution of the tile. Only non-zero
 * entries count ("stored"); with 'drop_empty' (the parent has metadata) and
 * P(0) > 0, P(0) is removed and the rest renormalized by 1 - P(0), which is
 * also returned as keep_ratio. (Timeloop removes the first stored
 * probability whenever n_min == 0, even when it is not P(0): with
 * hypergeometric min densities, whose n_min is 0, a tile that cannot be
 * empty would then lose all its non-zeros. Both agree when P(0) > 0.) The
 * per-rank units average fmt_tile_occupancy() over n, with the P0 values
 * from 'p_empty'. 'lay' may be NULL (no metadata): only the data occupancy
 * is computed. When every stored probability is dropped, keep_ratio is 0
 * and the occupancies are 0.
 */
void fmt_expected_occupancy(const struct fmt_layout *lay, uint64_t n_min, size_t n_probs,
			    const double *probs, bool drop_empty, fmt_p_empty_fn p_empty,
			    void *ctx, struct fmt_expected *out);

/* True when any rank of 'kinds[0..n)' is compressed. */
bool fmt_any_compressed(const enum fmt_kind *kinds, unsigned n);

/*
 * Timeloop's HasMetaData: compressed, or more than one rank, or a single
 * rank whose format is not implicit. False for n == 0.
 */
bool fmt_has_metadata(const enum fmt_kind *kinds, unsigned n);

/*
 * True when a compressed rank lies above an uncompressed one (rank r
 * compressed, some rank below r not): Timeloop rejects such formats.
 */
bool fmt_compressed_above_uncompressed(const enum fmt_kind *kinds, unsigned n);

/* --------------------------------------------- ranks onto loops (4.3.1) */

/* A loop of the singleton subnest. */
struct fmt_loop {
	uint8_t dim;
	uint64_t end;
};

/* How one rank was bound to loops. */
struct fmt_rank_binding {
	int first_loop;         /* index into fmt_assign_in.loops; -1: none (empty,
				 * dummy or taken from the pre-tiled child) */
	unsigned n_loops;       /* consecutive loops first_loop, first_loop-1, ... taken */
	uint64_t fiber_shape;   /* tensor points of the op box of its loops alone */
	uint64_t fiber_dims[SPEC_MAX_DIMS];  /* that op box (1 = not spanned) */
	uint64_t tile_points;   /* tensor points of its tile (entry r+1) */
	uint64_t tile_dims[SPEC_MAX_DIMS];   /* that tile's op box */
	uint64_t tile_extent[SPEC_MAX_TENSOR_RANKS]; /* and its tensor-rank extents */
};

/* The result of a rank assignment. */
struct fmt_assign {
	unsigned n_ranks;
	struct fmt_rank_binding rank[SPEC_MAX_FMT_RANKS];   /* [r], r = 0 innermost */
};

/* Input of a rank assignment at one level. */
struct fmt_assign_in {
	const struct spec_tensor *tensor;  /* projection of the tensor (ranks, dim_mask) */
	unsigned n_loops;
	const struct fmt_loop *loops;      /* singleton subnest, inner -> outer; loops
					    * whose dim does not project are skipped */
	uint64_t child_factor[SPEC_MAX_DIMS]; /* per dim: product of its loop ends in
					    * levels 0..c (the child and below); 0 or 1 = none */
	unsigned n_ranks;                  /* R: the level's ranks (1 without metadata) */
	bool has_metadata;
	bool inner_to_outer;
	/* per rank, r = 0 innermost: flattened_rankIDs groups (masks of dims) */
	unsigned n_flatten_groups[SPEC_MAX_FMT_RANKS];
	uint32_t flatten_groups[SPEC_MAX_FMT_RANKS][SPEC_MAX_TENSOR_RANKS];
	const struct fmt_assign *pretiled; /* the child's assignment under
					    * pre-tiling, else NULL */
};

enum fmt_assign_status {
	FMT_ASSIGN_OK,
	FMT_ASSIGN_MORE_RANKS_NEEDED,  /* non-trivial loops left over */
	FMT_ASSIGN_PRETILE_RANKS,      /* the child has more ranks than this level */
	FMT_ASSIGN_PRETILE_FORMATS,    /* the child's (compressed) formats differ */
};

/* A fixed message for 'st' ("more compression ranks needed", ...). */
const char *fmt_assign_status_str(enum fmt_assign_status st);

/*
 * Pre-tiling rule (semantics 4.3.1): is pre-tiling required at a level that
 * is 'compressed', over a child (if 'has_child') whose tile has
 * 'child_tile_points' points?
 */
bool fmt_pretiling_required(bool compressed, bool has_child, uint64_t child_tile_points);

/*
 * Check the pre-tiling constraints: the child's 'n_child' ranks must not
 * exceed this level's 'n', and when the child is compressed its formats
 * must equal this level's on ranks 0 .. n_child-1 (kinds are r = 0 first).
 */
enum fmt_assign_status fmt_pretiling_check(const enum fmt_kind *kinds, unsigned n,
					   const enum fmt_kind *child_kinds, unsigned n_child);

/*
 * Bind the ranks of one level to the loops of its singleton subnest
 * (semantics 4.3.1, DefineCompressionFormatModels), writing the per-rank
 * fiber shapes and tiles to '*out' (OUT). Without pre-tiling the innermost
 * loop of each dimension has its end multiplied by 'child_factor'; a loop is
 * trivial when its (multiplied) end is 1. With pre-tiling the child's ranks
 * become ranks 0 .. n_child-1. Returns FMT_ASSIGN_OK or the failure.
 */
enum fmt_assign_status fmt_assign_ranks(const struct fmt_assign_in *in, struct fmt_assign *out);

/*
 * Number of ranks a level needs for its own loops: its non-trivial
 * projecting loops (after the child_factor multiplication when not
 * pre-tiled), at least 1. Used to size named formats.
 */
unsigned fmt_count_rank_loops(const struct fmt_assign_in *in);

/* Tensor points of the projection of an op-space box 'dims' (extent per dim). */
uint64_t fmt_box_points(const struct spec_tensor *t, const uint64_t *dims,
			uint64_t *extent /* OUT, per tensor rank; may be NULL */);

/* ---------------------------------------------------------- named formats */

/*
 * Ranks of named format 'named' at a level whose own loops need 'own_loops'
 * ranks (fmt_count_rank_loops), above 'child_ranks' pre-tiled child ranks
 * (0 without pre-tiling). COO uses one flattened rank for the level's own
 * loops; every other named format one rank per loop.
 */
unsigned fmt_named_n_ranks(enum spec_named_format named, unsigned own_loops,
			   unsigned child_ranks);

/*
 * Expand a named format into 'n_ranks' per-rank formats, written OUTERMOST
 * first into 'out' (the order of spec_tensor_format.ranks). 'dim_mask' is the
 * tensor's dims (COO flattens them all); 'nm_m' is M of N:M (its indices take
 * ceil(log2 M) bits); 'metadata_word_bits' < 0: defaults. See
 * docs/formats-and-densities.md for each expansion. Returns n_ranks, or 0
 * when 'named' is SPEC_NAMED_NONE or n_ranks is 0 or too large.
 */
unsigned fmt_named_expand(enum spec_named_format named, unsigned n_ranks, uint32_t dim_mask,
			  unsigned nm_m, int metadata_word_bits, struct spec_rank_format *out);

/* ------------------------------------------------------ N:M as stored */

/*
 * Bits of the index of a value inside its group of 'm': ceil(log2 m), at
 * least 1 (2 for 2:4, 1 for 1:2, 3 for 2:6 and 2:8).
 */
unsigned fmt_nm_index_bits(unsigned m);

/* A fraction num/den, reduced. */
struct fmt_nm_ratio {
	uint64_t num, den;
};

/*
 * The size of an n:m tensor stored as its values plus one index per value,
 * as a fraction of its dense size: n (value_bits + index_bits) / (m
 * value_bits), reduced. 'index_bits' 0 means fmt_nm_index_bits(m). 2:4 at
 * 16 bits is 9/16, at 8 bits 5/8 (10/16); 1:2 at 32 bits 33/64. Returns
 * 0/1 for n = 0, m = 0, n > m or value_bits = 0.
 */
struct fmt_nm_ratio fmt_nm_stored_ratio(unsigned n, unsigned m, unsigned value_bits,
					unsigned index_bits);

/*
 * How a library pads the two buffers of a packed n:m matrix: the values'
 * rows are rounded up to a multiple of 'value_row_multiple' (1: none), the
 * metadata is stored in whole blocks of md_block_rows x md_block_cols dense
 * elements (0: no blocks, exactly one index per value).
 */
struct fmt_nm_packing {
	unsigned value_row_multiple;
	unsigned md_block_rows, md_block_cols;
};

/*
 * cuSPARSELt's packing, as far as public sources show it: values padded to
 * 16 rows (the m16 of mma.sp), metadata in blocks of 32 x 32 dense elements
 * (docs/formats-and-densities.md gives the sources and what is inferred).
 */
extern const struct fmt_nm_packing fmt_nm_cusparselt;

/* The packed buffers of one matrix, in bytes. */
struct fmt_nm_packed {
	uint64_t value_bytes, metadata_bytes, total_bytes;
};

/*
 * The packed size of a rows x cols matrix pruned n:m along its columns,
 * values of 'value_bits' and indices of 'index_bits' (0: the default),
 * padded as 'p' says (NULL: no padding). Writes '*out' (OUT) and returns 0,
 * or -1 when cols is not a multiple of m, an argument is 0, n > m, or a
 * size overflows 64 bits.
 */
int fmt_nm_packed_size(uint64_t rows, uint64_t cols, unsigned n, unsigned m,
		       unsigned value_bits, unsigned index_bits, const struct fmt_nm_packing *p,
		       struct fmt_nm_packed *out);

#endif
