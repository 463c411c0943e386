/*
 * The acceptance sweep: 10^5 model points of 04.2.1-eyeriss-like-gating,
 * density of Inputs (100 values) x the DRAM format of Inputs (2 x 5 per-
 * rank formats) x the global buffer's depth (100 values), run as
 * 'fiberloop sweep' runs it (one parsed source, every point built,
 * validated and evaluated in memory on all cores, every row committed to a
 * fresh SQLite database on disk), then the rows read back. Prints the wall
 * time, the CPU time (user + system, all threads) and points per second,
 * and the load average, since the machine may be shared.
 * Usage: bench_sweep CORPUS_DIR [DENSITIES [DEPTHS [THREADS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "job/job.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/table.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
	       (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "input.yaml", "map.yaml", "ERT.yaml" };
	unsigned n_dens = argc > 2 ? (unsigned)atoi(argv[2]) : 100;
	unsigned n_depth = argc > 3 ? (unsigned)atoi(argv[3]) : 100;
	unsigned threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
	char files[3][1024], axes_text[3][512], dir[] = "/tmp/bench_sweep.XXXXXX", db[1100];
	const char *fp[3];
	struct job_axis axes[4];
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct job_options opts;
	struct job_run_result res;
	struct job_runner rn;
	double t0, c0, wall, cpu, t1, loads[3] = { 0, 0, 0 };
	size_t i;
	int rc = 0;

	if (argc < 2 || !n_dens || !n_depth) {
		fprintf(stderr, "usage: bench_sweep CORPUS_DIR [DENSITIES [DEPTHS [THREADS]]]\n");
		return 2;
	}
	for (i = 0; i < 3; i++) {
		snprintf(files[i], sizeof(files[i]), "%s/04.2.1-eyeriss-like-gating/%s", argv[1],
			 names[i]);
		fp[i] = files[i];
	}
	snprintf(axes_text[0], sizeof(axes_text[0]),
		 "density:problem.instance.densities.Inputs.density=0.01:%g:+0.01", 0.01 * n_dens);
	snprintf(axes_text[1], sizeof(axes_text[1]), "glb:architecture.subtree[0].local"
		 "[name=shared_glb].attributes.depth=12800:%u:+128", 12800 + 128 * (n_depth - 1));
	{
		const char *const texts[] = {
			axes_text[0],
			"r0:sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=Inputs].ranks[0].format=UOP,U",
			"r1:sparse_optimizations.targets[name=DRAM].representation_format.data_spaces[name=Inputs].ranks[1].format=RLE,CP,B,UB,U",
			axes_text[1],
		};
		for (i = 0; i < 4; i++)
			if (job_axis_parse(texts[i], &axes[i], &dl) < 0) {
				diag_print(&dl, stderr);
				return 1;
			}
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(db, sizeof(db), "%s/sweep.db", dir);
	job_options_init(&opts, JOB_MODEL);
	{
		struct job_design d = { .files = fp, .n_files = 3, .command = JOB_MODEL };
		struct job_sweep sw = { &d, axes, 4, false, &opts };
		memset(&rn, 0, sizeof(rn));
		rn.db_path = db;
		rn.resume = true;
		rn.n_workers = threads;
		rn.definition = "bench_sweep";
		t0 = now_s();
		c0 = cpu_s();
		if (job_sweep_run(&sw, &rn, &res, &dl) < 0) {
			diag_print(&dl, stderr);
			fprintf(stderr, "bench_sweep: %s\n", res.error);
			rc = 1;
		}
		wall = now_s() - t0;
		cpu = cpu_s() - c0;
	}
	t1 = now_s();
	if (rc == 0 && job_results_query(db, NULL, 0, &t, &err) < 0) {
		fprintf(stderr, "bench_sweep: %s\n", err.buf);
		rc = 1;
	}
	{
		FILE *la = fopen("/proc/loadavg", "r");
		if (la && fscanf(la, "%lf %lf %lf", &loads[0], &loads[1], &loads[2]) != 3)
			loads[0] = loads[1] = loads[2] = -1;
		if (la)
			fclose(la);
	}
	if (rc == 0) {
		printf("sweep of 04.2.1-eyeriss-like-gating: %llu points (%u densities x 10 formats x "
		       "%u depths), %llu not ok\n", (unsigned long long)res.n_total, n_dens, n_depth,
		       (unsigned long long)res.n_failed);
		printf("  %u threads: %.2f s wall, %.2f s CPU, %.0f points/s, %.0f points/CPU-s "
		       "(database included)\n", res.n_workers, wall, cpu, (double)res.n_done / wall,
		       (double)res.n_done / cpu);
		printf("  read back %zu rows in %.2f s; load average %.2f %.2f %.2f\n", t.n_rows,
		       now_s() - t1, loads[0], loads[1], loads[2]);
		if (t.n_rows != res.n_total)
			rc = 1;
	}
	table_release(&t);
	for (i = 0; i < 4; i++)
		job_axis_release(&axes[i]);
	diag_list_release(&dl);
	strbuf_release(&err);
	snprintf(files[0], sizeof(files[0]), "rm -rf '%s'", dir);
	if (system(files[0]) != 0)
		rc = 1;
	return rc;
}
