/*
 * Named formats (CSR, CSC, COO, bitmask, CSF, N:M) expanded into per-rank
 * formats. The expansions are documented in docs/formats-and-densities.md.
 */
#include "formats/format.h"

#include <string.h>

#include "util/xalloc.h"

unsigned fmt_named_n_ranks(enum spec_named_format named, unsigned own_loops,
			   unsigned child_ranks)
{
	if (named == SPEC_NAMED_COO)
		return child_ranks + 1;
	return child_ranks + (own_loops ? own_loops : 1);
}

/* One rank of format 'kind' with metadata word bits 'md_bits' (-1: default). */
static struct spec_rank_format rank_of(enum fmt_kind kind, int md_bits)
{
	struct spec_rank_format rf;

	memset(&rf, 0, sizeof(rf));
	rf.kind = kind;
	rf.metadata_word_bits = md_bits;
	rf.payload_word_bits = -1;
	rf.parent = -1;
	return rf;
}

unsigned fmt_named_expand(enum spec_named_format named, unsigned n_ranks, uint32_t dim_mask,
			  unsigned nm_m, int metadata_word_bits, struct spec_rank_format *out)
{
	unsigned i, last;

	if (named == SPEC_NAMED_NONE || n_ranks == 0 || n_ranks > SPEC_MAX_FMT_RANKS)
		return 0;
	last = n_ranks - 1;  /* the innermost rank, listed last */
	for (i = 0; i < n_ranks; i++) {
		switch (named) {
		case SPEC_NAMED_CSR:
		case SPEC_NAMED_CSC:
			out[i] = rank_of(i == last ? FMT_CP : FMT_UOP, metadata_word_bits);
			break;
		case SPEC_NAMED_COO:
			out[i] = rank_of(FMT_CP, metadata_word_bits);
			out[i].n_flatten_groups = 1;
			out[i].flatten_groups[0] = dim_mask;
			break;
		case SPEC_NAMED_BITMASK:
			out[i] = rank_of(FMT_B, metadata_word_bits);
			break;
		case SPEC_NAMED_CSF:
			out[i] = rank_of(FMT_CP, metadata_word_bits);
			break;
		case SPEC_NAMED_RLE:
			out[i] = rank_of(i == last ? FMT_RLE : FMT_U, metadata_word_bits);
			break;
		case SPEC_NAMED_NM:
			if (i == last)
				out[i] = rank_of(FMT_CP, metadata_word_bits >= 0 ? metadata_word_bits
									 : (int)fmt_nm_index_bits(nm_m));
			else
				out[i] = rank_of(FMT_U, metadata_word_bits);
			break;
		default:
			BUG("bad named format %d", (int)named);
		}
	}
	return n_ranks;
}
