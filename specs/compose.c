/*
 * Composable-format files (specs/compose.h, docs/composable.md):
 *
 *   composable:
 *     matrix: A.mtx          # relative to the file
 *     op: spmm               # or sddmm (C = A * (X Y^T) at A's non-zeros)
 *     gpu: a100              # or h100: the GPU the cycles are for
 *     features: 64           # n, the columns of B and C (SDDMM: of X and Y)
 *     parts:                 # by hand ...
 *       - {name: blocks, format: bsr, block: 4, min_fill: 8}
 *       - {name: short, columns: [0, 8], max_length: 2, format: ell, width: 2}
 *       - {name: long, columns: [0, 8], min_length: 3, format: csr}
 *     hyb: {column_parts: 2, buckets: 3, remainder: split}   # ... or SparseTIR's hyb(c, k)
 *
 * Every problem is a located error with the key path; a misspelt key or
 * format gets a did-you-mean; parts that leave a gap or overlap are located
 * at the part concerned.
 */
#include "specs/compose.h"

#include <stdlib.h>
#include <string.h>

#include "specs/specs_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const top_keys[] = { "composable" };
static const char *const compose_keys[] = { "matrix", "op", "gpu", "features", "parts", "hyb" };
static const char *const op_names[] = { "spmm", "sddmm" };
static const char *const gpu_names[COMPOSE_N_GPUS] = { "a100", "h100" };
static const char *const part_keys[] = { "name", "format", "columns", "min_length", "max_length",
					 "width", "split", "block", "min_fill", "warp_features" };
static const char *const hyb_keys[] = { "column_parts", "buckets", "remainder", "block",
					"min_fill", "warp_features" };
static const char *const format_names[] = { "csr", "coo", "ell", "bsr" };
static const char *const remainder_names[] = { "split", "csr" };

/* The most parts a file may give (hyb: c * (k + 2) + 1). */
#define COMPOSE_MAX_PARTS 4096u

const char *const compose_count_names[COMPOSE_N_COUNTS] = {
	"nnz", "rows", "blocks", "slots", "data_reads", "meta_reads", "b_reads", "x_reads", "macs",
	"padded_macs", "c_updates", "c_reads", "max_unit"
};

void compose_counts_fields(const struct compose_counts *c, uint64_t out[COMPOSE_N_COUNTS])
{
	out[0] = c->nnz;
	out[1] = c->rows;
	out[2] = c->blocks;
	out[3] = c->slots;
	out[4] = c->data_reads;
	out[5] = c->meta_reads;
	out[6] = c->b_reads;
	out[COMPOSE_X_READS] = c->x_reads;
	out[8] = c->macs;
	out[9] = c->padded_macs;
	out[10] = c->c_updates;
	out[11] = c->c_reads;
	out[12] = c->max_unit;
}

const char *compose_format_name(enum compose_format f)
{
	return format_names[f];
}

const char *compose_op_name(enum compose_op op)
{
	return op_names[op];
}

const char *compose_gpu_name(enum compose_gpu_kind g)
{
	return gpu_names[g];
}

size_t compose_hyb_count(unsigned c, unsigned k, bool remainder_csr, uint64_t block)
{
	return (size_t)c * (k + 1 + (remainder_csr ? 1 : 0)) + (block ? 1 : 0);
}

size_t compose_hyb_parts(uint64_t n_cols, unsigned c, unsigned k, bool remainder_csr,
			 uint64_t block, uint64_t min_fill, struct compose_part *out)
{
	uint64_t ps = (n_cols + c - 1) / c;
	size_t n = 0;
	unsigned p, i;

	if (block) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].name = "bsr";
		out[n].format = COMPOSE_BSR;
		out[n].block = block;
		out[n].min_fill = min_fill ? min_fill : 1;
		n++;
	}
	for (p = 0; p < c; p++) {
		uint64_t lo = (uint64_t)p * ps, hi = lo + ps > n_cols ? n_cols : lo + ps;
		if (lo >= n_cols) /* more partitions than columns: empty ranges dropped */
			break;
		for (i = 0; i <= k; i++) {
			struct compose_part *q = &out[n++];
			memset(q, 0, sizeof(*q));
			q->name = "ell";
			q->format = COMPOSE_ELL;
			q->col_lo = lo;
			q->col_hi = hi;
			q->width = (uint64_t)1 << i;
			q->min_length = i ? ((uint64_t)1 << (i - 1)) + 1 : 1;
			q->max_length = q->width;
			if (i == k && !remainder_csr) {
				q->max_length = COMPOSE_NO_MAX;
				q->split = true;
			}
		}
		if (remainder_csr) {
			struct compose_part *q = &out[n++];
			memset(q, 0, sizeof(*q));
			q->name = "csr";
			q->format = COMPOSE_CSR;
			q->col_lo = lo;
			q->col_hi = hi;
			q->min_length = ((uint64_t)1 << k) + 1;
			q->max_length = COMPOSE_NO_MAX;
		}
	}
	return n;
}

/* ------------------------------------------------------------ coverage */

static int cmp_range(const void *a, const void *b)
{
	const struct compose_part *x = *(const struct compose_part *const *)a;
	const struct compose_part *y = *(const struct compose_part *const *)b;
	if (x->col_lo != y->col_lo)
		return x->col_lo < y->col_lo ? -1 : 1;
	if (x->col_hi != y->col_hi)
		return x->col_hi < y->col_hi ? -1 : 1;
	if (x->min_length != y->min_length)
		return x->min_length < y->min_length ? -1 : 1;
	return x < y ? -1 : x > y;
}

static const char *part_label(const struct compose_part *q, char *buf, size_t n)
{
	snprintf(buf, n, "%s", q->path ? q->path : q->name ? q->name : "a part");
	return buf;
}

static void len_text(uint64_t v, char *buf, size_t n)
{
	if (v == COMPOSE_NO_MAX)
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

int compose_check_cover(const struct compose_part *parts, size_t n, uint64_t n_cols,
			struct diag_list *dl)
{
	const struct compose_part **v = xcalloc(n + 1, sizeof(*v));
	size_t m = 0, i, n_bsr = 0;
	uint64_t col = 0;
	unsigned errors = dl->n_errors;
	char a[160], b[160], l1[32], l2[32];

	for (i = 0; i < n; i++) {
		if (parts[i].format == COMPOSE_BSR) {
			if (++n_bsr > 1)
				diag_error(dl, parts[i].loc, "in '%s': a second BSR part: blocks are "
					   "taken once, by one BSR part", part_label(&parts[i], a, sizeof(a)));
			continue;
		}
		if (parts[i].col_hi > n_cols)
			diag_error(dl, parts[i].loc, "in '%s': columns [%llu, %llu) reach past the "
				   "matrix's %llu columns", part_label(&parts[i], a, sizeof(a)),
				   (unsigned long long)parts[i].col_lo,
				   (unsigned long long)parts[i].col_hi, (unsigned long long)n_cols);
		v[m++] = &parts[i];
	}
	if (dl->n_errors != errors)
		goto out;
	if (m == 0) {
		diag_error(dl, n ? parts[0].loc : DIAG_LOC_NONE, "in 'composable.parts': no part "
			   "holds the non-zeros outside blocks: give a CSR, COO or ELL part");
		goto out;
	}
	qsort(v, m, sizeof(*v), cmp_range);
	for (i = 0; i < m;) {
		const struct compose_part *q = v[i];
		uint64_t next_len = 1;
		size_t j = i;
		if (q->col_lo > col) {
			diag_error(dl, q->loc, "in '%s': no part holds columns [%llu, %llu): the parts' "
				   "column ranges must cover [0, %llu) (hint: start a range at %llu)",
				   part_label(q, a, sizeof(a)), (unsigned long long)col,
				   (unsigned long long)q->col_lo, (unsigned long long)n_cols,
				   (unsigned long long)col);
			goto out;
		}
		if (q->col_lo < col) {
			diag_error(dl, q->loc, "in '%s': columns [%llu, %llu) overlap %s's [%llu, %llu): "
				   "two ranges must be equal or disjoint", part_label(q, a, sizeof(a)),
				   (unsigned long long)q->col_lo, (unsigned long long)q->col_hi,
				   part_label(v[i - 1], b, sizeof(b)), (unsigned long long)v[i - 1]->col_lo,
				   (unsigned long long)v[i - 1]->col_hi);
			goto out;
		}
		for (; j < m && v[j]->col_lo == q->col_lo && v[j]->col_hi == q->col_hi; j++) {
			const struct compose_part *r = v[j];
			if (next_len == COMPOSE_NO_MAX || r->min_length < next_len) {
				len_text(r->min_length, l1, sizeof(l1));
				len_text(r->max_length, l2, sizeof(l2));
				diag_error(dl, r->loc, "in '%s': rows of length %s..%s in columns [%llu, "
					   "%llu) are also %s's: the parts overlap",
					   part_label(r, a, sizeof(a)), l1, l2,
					   (unsigned long long)q->col_lo, (unsigned long long)q->col_hi,
					   part_label(v[j - 1], b, sizeof(b)));
				goto out;
			}
			if (r->min_length > next_len) {
				len_text(next_len, l1, sizeof(l1));
				len_text(r->min_length - 1, l2, sizeof(l2));
				diag_error(dl, r->loc, "in '%s': no part holds the rows of length %s..%s in "
					   "columns [%llu, %llu) (hint: start this part at min_length %s)",
					   part_label(r, a, sizeof(a)), l1, l2,
					   (unsigned long long)q->col_lo, (unsigned long long)q->col_hi, l1);
				goto out;
			}
			next_len = r->max_length == COMPOSE_NO_MAX ? COMPOSE_NO_MAX : r->max_length + 1;
		}
		if (next_len != COMPOSE_NO_MAX) {
			len_text(next_len, l1, sizeof(l1));
			diag_error(dl, v[j - 1]->loc, "in '%s': no part holds the rows longer than %llu "
				   "in columns [%llu, %llu) (hint: give the last part no max_length, or a "
				   "part from min_length %s)", part_label(v[j - 1], a, sizeof(a)),
				   (unsigned long long)(next_len - 1), (unsigned long long)q->col_lo,
				   (unsigned long long)q->col_hi, l1);
			goto out;
		}
		col = q->col_hi;
		i = j;
	}
	if (col < n_cols)
		diag_error(dl, v[m - 1]->loc, "in '%s': no part holds columns [%llu, %llu): the "
			   "parts' column ranges must cover [0, %llu)", part_label(v[m - 1], a, sizeof(a)),
			   (unsigned long long)col, (unsigned long long)n_cols,
			   (unsigned long long)n_cols);
out:
	free(v);
	return dl->n_errors == errors ? 0 : -1;
}

/* ------------------------------------------------------------- loading */

struct compose_ld {
	struct ld ld;
	const char *dir;
	struct spec_compose *c;
};

static int read_columns(struct compose_ld *cl, const struct ysrc_node *n, const struct kpath *p,
			uint64_t n_cols, struct compose_part *q)
{
	struct kpath p0 = KP_IDX(p, 0), p1 = KP_IDX(p, 1);

	if (ld_want_seq(&cl->ld, n, p) < 0)
		return -1;
	if (n->n != 2)
		return ld_error(&cl->ld, n, p, "expected [first, end): two column numbers, got %zu",
				n->n);
	if (ld_uint(&cl->ld, n->items[0], &p0, 0, n_cols ? n_cols - 1 : 0, &q->col_lo) < 0 ||
	    ld_uint(&cl->ld, n->items[1], &p1, q->col_lo + 1, n_cols, &q->col_hi) < 0)
		return -1;
	return 0;
}

static int read_part(struct compose_ld *cl, const struct ysrc_node *n, const struct kpath *p,
		     uint64_t n_cols, struct compose_part *q)
{
	struct ld *ld = &cl->ld;
	const struct ysrc_node *v;
	unsigned errors = ld->dl->n_errors;
	int f;

	memset(q, 0, sizeof(*q));
	q->loc = n->loc;
	q->path = ld_kpath_strdup(ld, p);
	q->col_hi = n_cols;
	q->min_length = 1;
	q->max_length = COMPOSE_NO_MAX;
	if (ld_want_map(ld, n, p) < 0)
		return -1;
	ld_check_keys(ld, n, p, part_keys, ARRAY_SIZE(part_keys));
	if ((v = ld_get(n, "name"))) {
		struct kpath np = KP_KEY(p, "name");
		q->name = ld_str(ld, v, &np);
	}
	if (!(v = ld_get(n, "format")))
		return ld_error(ld, n, p, "a part needs a 'format' (csr, coo, ell or bsr)");
	{
		struct kpath fp = KP_KEY(p, "format");
		if (ld_want_scalar(ld, v, &fp) < 0 ||
		    (f = ld_lookup_keyword(ld, v, &fp, "format", v->str, format_names,
					   ARRAY_SIZE(format_names))) < 0)
			return -1;
		q->format = (enum compose_format)f;
	}
	if (!q->name)
		q->name = format_names[q->format];
	if ((v = ld_get(n, "warp_features"))) {
		struct kpath wp = KP_KEY(p, "warp_features");
		if (ld_uint(ld, v, &wp, 1, 1u << 20, &q->warp_features) < 0)
			return -1;
	}
	if (q->format == COMPOSE_BSR) {
		static const char *const not_bsr[] = { "columns", "min_length", "max_length", "width",
						       "split" };
		size_t i;
		struct kpath bp = KP_KEY(p, "block"), mp = KP_KEY(p, "min_fill");
		for (i = 0; i < ARRAY_SIZE(not_bsr); i++)
			if ((v = ld_get(n, not_bsr[i]))) {
				struct kpath xp = KP_KEY(p, not_bsr[i]);
				ld_error(ld, v, &xp, "a BSR part takes whole blocks: it has no '%s' (it "
					 "has 'block' and 'min_fill')", not_bsr[i]);
			}
		if (!(v = ld_get(n, "block")))
			return ld_error(ld, n, p, "a BSR part needs a 'block' edge");
		if (ld_uint(ld, v, &bp, 1, 1024, &q->block) < 0)
			return -1;
		q->min_fill = 1;
		if ((v = ld_get(n, "min_fill")) &&
		    ld_uint(ld, v, &mp, 1, q->block * q->block, &q->min_fill) < 0)
			return -1;
		return ld->dl->n_errors == errors ? 0 : -1;
	}
	if ((v = ld_get(n, "block")) || (v = ld_get(n, "min_fill"))) {
		struct kpath xp = KP_KEY(p, ld_get(n, "block") ? "block" : "min_fill");
		return ld_error(ld, v, &xp, "only a BSR part has blocks");
	}
	if ((v = ld_get(n, "columns"))) {
		struct kpath cp = KP_KEY(p, "columns");
		if (read_columns(cl, v, &cp, n_cols, q) < 0)
			return -1;
	}
	if ((v = ld_get(n, "min_length"))) {
		struct kpath lp = KP_KEY(p, "min_length");
		if (ld_uint(ld, v, &lp, 1, UINT32_MAX, &q->min_length) < 0)
			return -1;
	}
	if ((v = ld_get(n, "max_length"))) {
		struct kpath lp = KP_KEY(p, "max_length");
		if (ld_uint(ld, v, &lp, q->min_length, UINT32_MAX, &q->max_length) < 0)
			return -1;
	}
	if (q->format != COMPOSE_ELL) {
		if ((v = ld_get(n, "width")) || (v = ld_get(n, "split"))) {
			struct kpath xp = KP_KEY(p, ld_get(n, "width") ? "width" : "split");
			return ld_error(ld, v, &xp, "only an ELL part has a width");
		}
		return ld->dl->n_errors == errors ? 0 : -1;
	}
	if (!(v = ld_get(n, "width")))
		return ld_error(ld, n, p, "an ELL part needs a 'width' (the slots of every row)");
	{
		struct kpath wp = KP_KEY(p, "width");
		if (ld_uint(ld, v, &wp, 1, 1u << 20, &q->width) < 0)
			return -1;
	}
	if ((v = ld_get(n, "split"))) {
		struct kpath sp = KP_KEY(p, "split");
		if (ld_bool(ld, v, &sp, &q->split) < 0)
			return -1;
	}
	if (!q->split && q->max_length > q->width) {
		char l[32];
		len_text(q->max_length, l, sizeof(l));
		return ld_error(ld, n, p, "rows of length up to %s do not fit width %llu (hint: "
				"'max_length: %llu', or 'split: true' to cut longer rows into rows of "
				"the width)", l, (unsigned long long)q->width,
				(unsigned long long)q->width);
	}
	return ld->dl->n_errors == errors ? 0 : -1;
}

static void read_hyb(struct compose_ld *cl, const struct ysrc_node *n, const struct kpath *p,
		     uint64_t n_cols)
{
	struct ld *ld = &cl->ld;
	struct spec_compose *c = cl->c;
	const struct ysrc_node *v;
	uint64_t cp = 1, k = 0, block = 0, fill = 0, wf = 0;
	bool rcsr = false;
	size_t i, m;

	if (ld_want_map(ld, n, p) < 0)
		return;
	if (ld_check_keys(ld, n, p, hyb_keys, ARRAY_SIZE(hyb_keys)))
		return;
	if ((v = ld_get(n, "column_parts"))) {
		struct kpath q = KP_KEY(p, "column_parts");
		if (ld_uint(ld, v, &q, 1, n_cols ? n_cols : 1, &cp) < 0)
			return;
	}
	if ((v = ld_get(n, "buckets"))) {
		struct kpath q = KP_KEY(p, "buckets");
		if (ld_uint(ld, v, &q, 0, 20, &k) < 0)
			return;
	}
	if ((v = ld_get(n, "remainder"))) {
		struct kpath q = KP_KEY(p, "remainder");
		int r;
		if (ld_want_scalar(ld, v, &q) < 0 ||
		    (r = ld_lookup_keyword(ld, v, &q, "remainder", v->str, remainder_names,
					   ARRAY_SIZE(remainder_names))) < 0)
			return;
		rcsr = r == 1;
	}
	if ((v = ld_get(n, "block"))) {
		struct kpath q = KP_KEY(p, "block");
		if (ld_uint(ld, v, &q, 1, 1024, &block) < 0)
			return;
	}
	if ((v = ld_get(n, "min_fill"))) {
		struct kpath q = KP_KEY(p, "min_fill");
		if (!block) {
			ld_error(ld, v, &q, "'min_fill' needs a 'block'");
			return;
		}
		if (ld_uint(ld, v, &q, 1, block * block, &fill) < 0)
			return;
	}
	if ((v = ld_get(n, "warp_features"))) {
		struct kpath q = KP_KEY(p, "warp_features");
		if (ld_uint(ld, v, &q, 1, 1u << 20, &wf) < 0)
			return;
	}
	if (compose_hyb_count((unsigned)cp, (unsigned)k, rcsr, block) > COMPOSE_MAX_PARTS) {
		ld_error(ld, n, p, "hyb(%llu, %llu) makes more than %u parts",
			 (unsigned long long)cp, (unsigned long long)k, COMPOSE_MAX_PARTS);
		return;
	}
	c->parts = arena_calloc(&c->arena, compose_hyb_count((unsigned)cp, (unsigned)k, rcsr, block),
				sizeof(*c->parts));
	m = compose_hyb_parts(n_cols, (unsigned)cp, (unsigned)k, rcsr, block, fill, c->parts);
	for (i = 0; i < m; i++) {
		c->parts[i].loc = n->loc;
		c->parts[i].warp_features = wf;
		c->parts[i].path = arena_printf(&c->arena, "composable.hyb (part %zu, %s)", i,
						c->parts[i].name);
	}
	c->n_parts = m;
}

/* The index in 'names' of the keyword at 'key' of 'top'; 'dflt' when absent; -1 after an error. */
static int read_keyword(struct ld *ld, const struct ysrc_node *top, const struct kpath *kp,
			const char *key, const char *what, const char *const *names, size_t n,
			int dflt)
{
	const struct ysrc_node *v = ld_get(top, key);
	struct kpath p = KP_KEY(kp, key);

	if (!v)
		return dflt;
	if (ld_want_scalar(ld, v, &p) < 0)
		return -1;
	return ld_lookup_keyword(ld, v, &p, what, v->str, names, n);
}

static struct spec_compose *load_root(struct spec_compose *c, struct ysrc_node *root,
				      const struct spec_matrix *matrix, struct diag_list *dl)
{
	struct compose_ld cl;
	const struct ysrc_node *top, *v, *pv, *hv;
	struct kpath kp = KP_KEY(NULL, "composable");
	unsigned errors = dl->n_errors;
	const char *slash = strrchr(c->path, '/');
	uint64_t n_cols;
	int o, g;

	memset(&cl, 0, sizeof(cl));
	cl.ld.a = &c->arena;
	cl.ld.dl = dl;
	cl.c = c;
	cl.dir = slash ? arena_strndup(&c->arena, c->path, (size_t)(slash - c->path) + 1) : "";
	if (!root || root->kind != YSRC_MAP) {
		diag_error(dl, root ? root->loc : (struct diag_loc){ c->path, 1, 1 },
			   "expected a mapping with 'composable', got %s",
			   root ? ysrc_kind_name(root) : "an empty file");
		return NULL;
	}
	ld_check_keys(&cl.ld, root, NULL, top_keys, ARRAY_SIZE(top_keys));
	if (!(top = ld_get(root, "composable"))) {
		diag_error(dl, root->loc, "no 'composable' key (its 'matrix', 'features' and "
			   "'parts' or 'hyb')");
		return NULL;
	}
	if (ld_want_map(&cl.ld, top, &kp) < 0)
		return NULL;
	if (ld_check_keys(&cl.ld, top, &kp, compose_keys, ARRAY_SIZE(compose_keys)))
		return NULL;
	c->matrix = matrix;
	if (!c->matrix) {
		struct kpath mp = KP_KEY(&kp, "matrix");
		const char *f;
		if (!(v = ld_get(top, "matrix"))) {
			diag_error(dl, top->loc, "in 'composable': no 'matrix' (a Matrix Market file)");
			return NULL;
		}
		if (!(f = ld_str(&cl.ld, v, &mp)))
			return NULL;
		if (f[0] != '/' && cl.dir[0])
			f = arena_printf(&c->arena, "%s%s", cl.dir, f);
		if (!(c->matrix = spec_matrix_load_at(&cl.ld, f, v->loc, &mp)))
			return NULL;
	}
	if (c->matrix->n_ranks != 2) {
		diag_error(dl, top->loc, "in 'composable.matrix': a composable format splits a "
			   "matrix; '%s' has %u ranks", c->matrix->file ? c->matrix->file : "the data",
			   c->matrix->n_ranks);
		return NULL;
	}
	n_cols = c->matrix->shape[1];
	if ((o = read_keyword(&cl.ld, top, &kp, "op", "operation", op_names, ARRAY_SIZE(op_names),
			      COMPOSE_SPMM)) < 0 ||
	    (g = read_keyword(&cl.ld, top, &kp, "gpu", "GPU", gpu_names, ARRAY_SIZE(gpu_names),
			      COMPOSE_GPU_A100)) < 0)
		return NULL;
	c->op = (enum compose_op)o;
	c->gpu = (enum compose_gpu_kind)g;
	c->features = 1;
	if ((v = ld_get(top, "features"))) {
		struct kpath fp = KP_KEY(&kp, "features");
		if (ld_uint(&cl.ld, v, &fp, 1, 1u << 20, &c->features) < 0)
			return NULL;
	}
	pv = ld_get(top, "parts");
	hv = ld_get(top, "hyb");
	if (!!pv == !!hv) {
		diag_error(dl, top->loc, "in 'composable': give the parts by exactly one of 'parts' "
			   "or 'hyb'");
		return NULL;
	}
	if (hv) {
		struct kpath hp = KP_KEY(&kp, "hyb");
		read_hyb(&cl, hv, &hp, n_cols);
	} else {
		struct kpath pp = KP_KEY(&kp, "parts");
		size_t i;
		if (ld_want_seq(&cl.ld, pv, &pp) < 0)
			return NULL;
		if (pv->n == 0 || pv->n > COMPOSE_MAX_PARTS) {
			ld_error(&cl.ld, pv, &pp, "expected 1 to %u parts, got %zu", COMPOSE_MAX_PARTS,
				 pv->n);
			return NULL;
		}
		c->parts = arena_calloc(&c->arena, pv->n, sizeof(*c->parts));
		c->n_parts = pv->n;
		for (i = 0; i < pv->n; i++) {
			struct kpath ip = KP_IDX(&pp, i);
			read_part(&cl, pv->items[i], &ip, n_cols, &c->parts[i]);
		}
	}
	if (dl->n_errors != errors)
		return NULL;
	if (compose_check_cover(c->parts, c->n_parts, n_cols, dl) < 0)
		return NULL;
	return c;
}

struct spec_compose *spec_compose_parse(const char *name, const char *text, size_t len,
					const struct spec_matrix *matrix, struct diag_list *dl)
{
	struct spec_compose *c = xcalloc(1, sizeof(*c));
	struct ysrc_node *root;

	/* the locations outlive 'c': the file name lives in the diagnostics list */
	c->path = diag_list_strdup(dl, name);
	if (ysrc_parse(&c->arena, c->path, text, len, dl, &root) < 0 ||
	    !load_root(c, root, matrix, dl)) {
		spec_compose_free(c);
		return NULL;
	}
	return c;
}

struct spec_compose *spec_compose_load(const char *path, struct diag_list *dl)
{
	struct spec_compose *c = xcalloc(1, sizeof(*c));
	struct ysrc_node *root;

	c->path = diag_list_strdup(dl, path);
	if (ysrc_parse_file(&c->arena, c->path, dl, &root) < 0 || !load_root(c, root, NULL, dl)) {
		spec_compose_free(c);
		return NULL;
	}
	return c;
}

void spec_compose_free(struct spec_compose *c)
{
	if (!c)
		return;
	arena_release(&c->arena);
	free(c);
}
