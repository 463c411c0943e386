/*
 * N:M structured sparsity as stored: the values plus one index per value
 * (docs/formats-and-densities.md, "N:M as stored"), and the packed layout
 * of a library that pads small matrices (cuSPARSELt).
 */
#include "formats/format.h"

#include "util/ckmath.h"

const struct fmt_nm_packing fmt_nm_cusparselt = { 16, 32, 32 };

unsigned fmt_nm_index_bits(unsigned m)
{
	unsigned bits = 1;

	while (bits < 31 && (1u << bits) < m)
		bits++;
	return bits;
}

/*
 * Stored bits over dense bits, reduced: n (value_bits + index_bits) /
 * (m value_bits). Per group of m dense elements the format keeps n values
 * of value_bits each and n indices of index_bits each (the position of the
 * value in its group). 2:4 at 16 bits: 2 (16 + 2) / (4 16) = 9/16; at 8
 * bits 2 (8 + 2) / (4 8) = 10/16; 1:2 at 32 bits: (32 + 1) / 64.
 */
struct fmt_nm_ratio fmt_nm_stored_ratio(unsigned n, unsigned m, unsigned value_bits,
					unsigned index_bits)
{
	struct fmt_nm_ratio r = { 0, 1 };
	uint64_t g;

	if (!n || !m || n > m || !value_bits)
		return r;
	if (!index_bits)
		index_bits = fmt_nm_index_bits(m);
	r.num = (uint64_t)n * (value_bits + index_bits);
	r.den = (uint64_t)m * value_bits;
	g = gcd_u64(r.num, r.den);
	r.num /= g;
	r.den /= g;
	return r;
}

/*
 * The packed buffers of a rows x cols matrix pruned n:m along its columns
 * (the reduction dimension K of the sparse operand, row-major):
 *   values   = roundup(rows, value_row_multiple) x (cols n / m) x value_bits / 8
 *   metadata = ceil(rows / md_block_rows) x ceil(cols / md_block_cols)
 *              x (md_block_rows md_block_cols n / m index_bits / 8)
 * Both buffers in bytes, each rounded up to a whole byte.
 */
int fmt_nm_packed_size(uint64_t rows, uint64_t cols, unsigned n, unsigned m,
		       unsigned value_bits, unsigned index_bits, const struct fmt_nm_packing *p,
		       struct fmt_nm_packed *out)
{
	uint64_t prow, kept_cols, vbits, blocks, block_bits, mbits;

	out->value_bytes = out->metadata_bytes = out->total_bytes = 0;
	if (!rows || !cols || !n || !m || n > m || !value_bits || cols % m)
		return -1;
	if (!index_bits)
		index_bits = fmt_nm_index_bits(m);
	prow = p && p->value_row_multiple > 1 ?
	       ceil_div_u64(rows, p->value_row_multiple) * p->value_row_multiple : rows;
	kept_cols = cols / m * n;
	if (!ck_mul_u64(prow, kept_cols, &vbits) || !ck_mul_u64(vbits, value_bits, &vbits))
		return -1;
	if (p && p->md_block_rows && p->md_block_cols) {
		blocks = ceil_div_u64(rows, p->md_block_rows) * ceil_div_u64(cols, p->md_block_cols);
		block_bits = (uint64_t)p->md_block_rows * p->md_block_cols / m * n * index_bits;
		if (!ck_mul_u64(blocks, block_bits, &mbits))
			return -1;
	} else if (!ck_mul_u64(rows, kept_cols, &mbits) ||
		   !ck_mul_u64(mbits, index_bits, &mbits)) {
		return -1;
	}
	out->value_bytes = ceil_div_u64(vbits, 8);
	out->metadata_bytes = ceil_div_u64(mbits, 8);
	out->total_bytes = out->value_bytes + out->metadata_bytes;
	return 0;
}
