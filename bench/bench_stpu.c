/*
 * bench_stpu: figures of the STPU model (docs/stpu.md, examples/stpu).
 *
 * 1. Packing speed: a 10000 x 10000 matrix at density 0.01 (1M non-zeros)
 *    generated once, then packed by each packer on a 128-row partition
 *    array; the target is under 1 s for STPU's packers.
 * 2. Packing efficiency: STPU-C0, STPU-C1 and KMZ on uniform matrices of
 *    dimension 1000, 5000 and 10000, ultra-sparse (0.001-0.01) and
 *    moderately sparse (0.05-0.45), with the means of each set beside the
 *    paper's figures (seed 004, section 5.1).
 *    The density-aware estimate's efficiency and its error against the
 *    exact STPU-C0 packed width (one seed) are in the same table.
 * 3. SpMV speedup and energy ratio over the TPU, int8 and fp32.
 *
 * Usage: bench_stpu [quick]   ("quick" skips the 10000-dimension rows of 2-4)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel/accel.h"
#include "accel/stpu_int.h"
#include "job/job.h"
#include "specs/spec.h"
#include "util/diag.h"
#include "util/strbuf.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A design loaded from YAML text through a temporary file. */
static struct spec_set *load(const char *yaml)
{
	char path[] = "/tmp/bench-stpu-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	const char *p = path;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_load_options lo = { .kinds = job_spec_kinds() };
	struct spec_set *s;

	if (!fp) {
		perror("mkstemp");
		return NULL;
	}
	fputs(yaml, fp);
	fclose(fp);
	s = spec_set_load(&p, 1, &lo, &dl);
	diag_print(&dl, stderr);
	diag_list_release(&dl);
	remove(path);
	return s;
}

static void count_part(void *ctx, const struct stpu_part *part)
{
	(void)ctx;
	(void)part;
}

static void bench_packing_speed(void)
{
	static const unsigned lg[2] = { 15, 4 };
	struct spec_set *s = load("stpu:\n  array: {rows: 128, cols: 128}\n"
				  "  matrix: {rows: 10000, cols: 10000, density: 0.01, seed: 1}\n");
	struct stpu_pattern pat = STPU_PATTERN_INIT;
	struct stpu_pack_params pp;
	struct strbuf err = STRBUF_INIT;
	double t0;
	unsigned k;

	if (!s)
		return;
	t0 = now_s();
	if (stpu_pattern_build(s->stpu, &pat, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		return;
	}
	printf("Packing a 10000 x 10000 matrix at density 0.01 (%llu non-zeros), "
	       "128-row partitions\n", (unsigned long long)pat.nnz);
	printf("  %-8s %9.3f s\n", "generate", now_s() - t0);
	memset(&pp, 0, sizeof(pp));
	pp.part_rows = 128;
	pp.max_collision_row = 1;
	pp.n_iter = 2;
	pp.max_collision_group = lg;
	pp.kmz_max_columns = 8;
	for (k = 0; k < ACCEL_STPU_N_SCHEMES; k++) {
		struct accel_stpu_packing st;
		t0 = now_s();
		stpu_pack(&pat, (enum accel_stpu_scheme)k, &pp, &st, count_part, NULL);
		printf("  %-8s %9.3f s   efficiency %8.2f, packed columns %llu\n",
		       accel_stpu_scheme_name((enum accel_stpu_scheme)k), now_s() - t0, st.efficiency,
		       (unsigned long long)st.packed_width);
	}
	stpu_pattern_release(&pat);
	spec_set_free(s);
}

enum mode { MODE_QUICK, MODE_DEFAULT, MODE_FULL };

/* Is (dim, density) in the run? */
static bool wanted(enum mode md, unsigned dim, double density)
{
	if (dim < 10000 || md == MODE_FULL)
		return true;
	return md == MODE_DEFAULT && density <= 0.1;
}

/* Evaluate a uniform matrix; false on failure. */
static bool eval(unsigned dim, double density, const char *dtype, bool estimate,
		 struct accel_stpu_result *r)
{
	char yaml[512];
	struct strbuf err = STRBUF_INIT;
	struct accel_stpu_options o = { estimate, 0 };
	struct spec_set *s;
	int rc;

	snprintf(yaml, sizeof(yaml), "stpu:\n  array: {rows: 128, cols: 128, dtype: %s}\n"
		 "  matrix: {rows: %u, cols: %u, density: %.9g, seed: 1}\n", dtype, dim, dim,
		 density);
	s = load(yaml);
	if (!s)
		return false;
	rc = accel_stpu_eval(s, &o, r, &err);
	if (rc < 0)
		fprintf(stderr, "%s\n", err.buf);
	spec_set_free(s);
	return rc == 0;
}

struct set_mean {
	double c0, c1, kmz;
	unsigned n;
};

static void bench_efficiency(enum mode md)
{
	static const unsigned dims[] = { 1000, 5000, 10000 };
	static const double ultra[] = { 0.001, 0.005, 0.01 };
	static const double moderate[] = { 0.05, 0.1, 0.2, 0.3, 0.45 };
	struct set_mean mu = { 0, 0, 0, 0 }, mm = { 0, 0, 0, 0 };
	static struct accel_stpu_result r;
	unsigned d, i;

	printf("\nPacking efficiency (original columns / packed columns), 128 x 128 array\n");
	printf("  %6s %7s %10s %10s %10s %10s %9s %8s\n", "dim", "density", "STPU-C0", "STPU-C1",
	       "KMZ", "estimate", "est. err", "time");
	for (d = 0; d < 3; d++) {
		for (i = 0; i < 3 + 5; i++) {
			double dens = i < 3 ? ultra[i] : moderate[i - 3];
			struct set_mean *m = i < 3 ? &mu : &mm;
			double t0 = now_s();
			if (!wanted(md, dims[d], dens) || !eval(dims[d], dens, "fp32", true, &r))
				continue;
			printf("  %6u %7.3f %10.2f %10.2f %10.2f %10.2f %+8.2f%% %7.2fs\n", dims[d],
			       dens, r.scheme[ACCEL_STPU_C0].packing.efficiency,
			       r.scheme[ACCEL_STPU_C1].packing.efficiency,
			       r.scheme[ACCEL_STPU_KMZ].packing.efficiency, r.estimate.efficiency,
			       100.0 * (r.estimate.packed_width -
					(double)r.scheme[ACCEL_STPU_C0].packing.packed_width) /
				       (double)r.scheme[ACCEL_STPU_C0].packing.packed_width,
			       now_s() - t0);
			m->c0 += r.scheme[ACCEL_STPU_C0].packing.efficiency;
			m->c1 += r.scheme[ACCEL_STPU_C1].packing.efficiency;
			m->kmz += r.scheme[ACCEL_STPU_KMZ].packing.efficiency;
			m->n++;
		}
	}
	printf("  mean ultra-sparse (<= 0.01):  C0 %.2f  C1 %.2f  KMZ %.2f   (paper: 144.0, 143.4, 8.0)\n",
	       mu.c0 / mu.n, mu.c1 / mu.n, mu.kmz / mu.n);
	printf("  mean moderate (0.05-0.45):    C0 %.2f  C1 %.2f  KMZ %.2f   (paper: 4.48, 6.92, 1.07)\n",
	       mm.c0 / mm.n, mm.c1 / mm.n, mm.kmz / mm.n);
}

static void bench_spmv(enum mode md)
{
	static const unsigned dims[] = { 1000, 5000, 10000 };
	static const double dens[] = { 0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.45 };
	static struct accel_stpu_result r8, r32;
	double gs = 0, ge8 = 0, ge32 = 0, ga8 = 0, ga32 = 0;
	unsigned d, i, n = 0;

	printf("\nSpMV on a 128 x 128 array: STPU-C1 over the TPU (cycles; energy int8 and fp32, "
	       "all of it and the array alone)\n");
	printf("  %6s %7s %10s %10s %10s %10s %10s\n", "dim", "density", "speedup", "E int8",
	       "E fp32", "array int8", "array fp32");
	for (d = 0; d < 3; d++) {
		for (i = 0; i < 8; i++) {
			if (!wanted(md, dims[d], dens[i]) ||
			    !eval(dims[d], dens[i], "int8", false, &r8) ||
			    !eval(dims[d], dens[i], "fp32", false, &r32))
				continue;
			printf("  %6u %7.3f %10.2f %10.2f %10.2f %10.2f %10.2f\n", dims[d], dens[i],
			       r32.scheme[ACCEL_STPU_C1].speedup_vs_tpu,
			       r8.scheme[ACCEL_STPU_C1].energy_ratio_vs_tpu,
			       r32.scheme[ACCEL_STPU_C1].energy_ratio_vs_tpu,
			       r8.scheme[ACCEL_STPU_C1].array_energy_ratio_vs_tpu,
			       r32.scheme[ACCEL_STPU_C1].array_energy_ratio_vs_tpu);
			ga8 += r8.scheme[ACCEL_STPU_C1].array_energy_ratio_vs_tpu;
			ga32 += r32.scheme[ACCEL_STPU_C1].array_energy_ratio_vs_tpu;
			gs += r32.scheme[ACCEL_STPU_C1].speedup_vs_tpu;
			ge8 += r8.scheme[ACCEL_STPU_C1].energy_ratio_vs_tpu;
			ge32 += r32.scheme[ACCEL_STPU_C1].energy_ratio_vs_tpu;
			n++;
		}
	}
	if (n)
		printf("  mean: speedup %.2f, energy int8 %.2f, fp32 %.2f; the array alone int8 %.2f, "
		       "fp32 %.2f   (paper: 16.08, 4.39, 19.79)\n", gs / n, ge8 / n, ge32 / n,
		       ga8 / n, ga32 / n);
}

int main(int argc, char **argv)
{
	enum mode md = argc > 1 && !strcmp(argv[1], "quick") ? MODE_QUICK :
		       argc > 1 && !strcmp(argv[1], "full")  ? MODE_FULL : MODE_DEFAULT;

	bench_packing_speed();
	bench_efficiency(md);
	bench_spmv(md);
	return 0;
}
