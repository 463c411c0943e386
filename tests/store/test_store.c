/*
 * The results database: rows written and read back (typed cells, inputs,
 * level columns, order by index whatever the order of writing), no
 * duplicate for a key written twice, a run found again by its key, the
 * keys listed for a resume, filters with numbers and text and an unknown
 * column with its hint, rows committed before a crash kept, the files it
 * refuses (another schema version, another database, a missing file), and
 * where a new database cannot be made (the error, and no file left).
 */
#include "store/store.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

static char dir[256];

/* A fresh path "dir/name" (removing what a previous run left). */
static const char *db_path(const char *name, char *buf, size_t size)
{
	char side[300];
	snprintf(buf, size, "%s/%s", dir, name);
	unlink(buf);
	snprintf(side, sizeof(side), "%s-wal", buf);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", buf);
	unlink(side);
	return buf;
}

static const char *const inputs[] = { "density", "format" };

/* The caller's metric columns (store/ knows none): two always there, two added on first use. */
static const struct store_metric metrics[] = {
	{ "energy_pj", STORE_REAL, true },
	{ "cycles", STORE_INTEGER, true },
	{ "speedup", STORE_REAL, false },
	{ "scheme", STORE_TEXT, false },
};
static const struct store_schema schema = { metrics, 4, "energy_pj" };

static const struct store_run_def run_def = {
	.key = "run-key-1", .kind = "sweep", .definition = "fiberloop sweep test",
	.n_points = 4, .n_inputs = 2, .inputs = inputs,
};

/* A row: point 'idx' with inputs 'density', 'format' and energy 'e' (or an error). */
struct row_case {
	uint64_t idx;
	const char *key, *density, *format, *status, *error;
	double energy_pj;
	uint64_t cycles;
};

/* Written in this order (not the order of idx). */
static const struct row_case rows[] = {
	{ 2, "k2", "0.4", "CSR", "ok", NULL, 2.5, 200 },
	{ 0, "k0", "0.01", "CSR", "ok", NULL, 0.125, 7 },
	{ 3, "k3", "0.4", "bitmask", "bad-input", "x.yaml:3:4: error: no", 0, 0 },
	{ 1, "k1", "0.01", "bitmask", "ok", NULL, 1e-300, 18446744073709551615ull },
};

static void fill_row(const struct row_case *c, const char **in, struct store_level *lv,
		     struct store_value *v, struct store_row *r)
{
	memset(r, 0, sizeof(*r));
	in[0] = c->density;
	in[1] = c->format;
	r->key = c->key;
	r->idx = c->idx;
	r->kind = "point";
	r->command = "model";
	r->design_hash = "abc";
	r->overrides = "problem.instance.densities.A.density=0.4";
	r->inputs = in;
	r->status = c->status;
	r->error = c->error;
	v[0] = (struct store_value){ c->error != NULL, 0, c->energy_pj, NULL };
	v[1] = (struct store_value){ c->error != NULL, c->cycles, 0, NULL };
	v[2] = v[3] = (struct store_value){ true, 0, 0, NULL };
	r->metrics = v;
	lv[0] = (struct store_level){ "Buffer", c->energy_pj / 4 };
	lv[1] = (struct store_level){ "DRAM", c->energy_pj / 2 };
	r->n_levels = c->error ? 0 : 2;
	r->levels = lv;
}

/* Write rows[from..to) one store_put() each. */
static void put_rows(struct store *st, size_t from, size_t to)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	for (i = from; i < to; i++) {
		const char *in[2];
		struct store_level lv[2];
		struct store_value v[4];
		struct store_row r;
		fill_row(&rows[i], in, lv, v, &r);
		CU_ASSERT_EQUAL(store_put(st, &r, 1, &err), 0);
	}
	strbuf_release(&err);
}

/* The text of cell (r, column 'col') of 't', or "(null)". */
static const char *cell(const struct table *t, size_t r, const char *col)
{
	long c = table_col(t, col);
	struct table_cell x;
	CU_ASSERT_FATAL(c >= 0);
	x = table_get(t, r, (size_t)c);
	return x.text ? x.text : "(null)";
}

static void test_round_trip(void)
{
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct store *st;
	char path[300];
	static const char *const want_cols[] = {
		"run", "idx", "kind", "name", "density", "format", "status", "energy_pj",
		"cycles", "energy_pj.DRAM", "energy_pj.Buffer", "error", "mapping", "tags",
		"parent", "command", "design_hash", "overrides", "key",
	};
	size_t i;

	st = store_open(db_path("rt.db", path, sizeof(path)), STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(store_begin_run(st, &run_def, &err), 0);
	put_rows(st, 0, 4);
	put_rows(st, 0, 1);            /* again: no duplicate */
	CU_ASSERT_EQUAL(store_query(st, NULL, 0, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_cols, ARRAY_SIZE(want_cols));
	for (i = 0; i < ARRAY_SIZE(want_cols) && i < t.n_cols; i++)
		CU_ASSERT_STRING_EQUAL(t.cols[i], want_cols[i]);
	CU_ASSERT_EQUAL_FATAL(t.n_rows, 4);
	for (i = 0; i < 4; i++) {
		char want[8];
		snprintf(want, sizeof(want), "%zu", i);
		CU_ASSERT_STRING_EQUAL(cell(&t, i, "idx"), want);
	}
	/* typed: a density is a real, a cycle count an integer, a format text */
	CU_ASSERT_EQUAL(table_get(&t, 0, (size_t)table_col(&t, "density")).type, TABLE_REAL);
	CU_ASSERT_EQUAL(table_get(&t, 0, (size_t)table_col(&t, "format")).type, TABLE_TEXT);
	CU_ASSERT_EQUAL(table_get(&t, 0, (size_t)table_col(&t, "cycles")).type, TABLE_INT);
	CU_ASSERT_STRING_EQUAL(cell(&t, 0, "density"), "0.01");
	CU_ASSERT_STRING_EQUAL(cell(&t, 0, "energy_pj"), "0.125");
	CU_ASSERT_STRING_EQUAL(cell(&t, 0, "energy_pj.DRAM"), "0.0625");
	CU_ASSERT_STRING_EQUAL(cell(&t, 0, "energy_pj.Buffer"), "0.03125");
	CU_ASSERT_STRING_EQUAL(cell(&t, 1, "energy_pj"), "1e-300");     /* shortest round trip */
	CU_ASSERT_STRING_EQUAL(cell(&t, 1, "cycles"), "1.8446744073709552e+19");
	CU_ASSERT_STRING_EQUAL(cell(&t, 2, "cycles"), "200");
	CU_ASSERT_STRING_EQUAL(cell(&t, 3, "status"), "bad-input");
	CU_ASSERT_STRING_EQUAL(cell(&t, 3, "error"), "x.yaml:3:4: error: no");
	CU_ASSERT_STRING_EQUAL(cell(&t, 3, "energy_pj"), "(null)");
	CU_ASSERT_STRING_EQUAL(cell(&t, 3, "energy_pj.DRAM"), "(null)");
	CU_ASSERT_STRING_EQUAL(cell(&t, 2, "key"), "k2");
	table_release(&t);
	store_close(st);
	strbuf_release(&err);
}

/*
 * A point with more levels than one insert takes (16): every level's energy
 * read back under its own name, in order.
 */
static void test_many_levels(void)
{
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct store_level lv[37];
	char names[37][8];
	const char *in[2];
	struct store_value v[4];
	struct store_row r;
	struct store *st;
	char path[300];
	unsigned l;

	st = store_open(db_path("levels.db", path, sizeof(path)), STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(store_begin_run(st, &run_def, &err), 0);
	fill_row(&rows[0], in, lv, v, &r);
	for (l = 0; l < 37; l++) {
		snprintf(names[l], sizeof(names[l]), "L%u", l);
		lv[l] = (struct store_level){ names[l], 0.5 * l };
	}
	r.n_levels = 37;
	CU_ASSERT_EQUAL(store_put(st, &r, 1, &err), 0);
	CU_ASSERT_EQUAL(store_query(st, NULL, 0, &t, &err), 0);
	CU_ASSERT_EQUAL_FATAL(t.n_rows, 1);
	for (l = 0; l < 37; l++) {
		char col[32], want[16];
		snprintf(col, sizeof(col), "energy_pj.L%u", l);
		snprintf(want, sizeof(want), "%g", 0.5 * l);
		CU_ASSERT_STRING_EQUAL(cell(&t, 0, col), want);
	}
	table_release(&t);
	store_close(st);
	strbuf_release(&err);
}

/*
 * A metric that is not 'always' gets its column when a row first has a
 * value for it, and the rows before and without it read as NULL; a
 * database none of whose rows have it has no such column at all.
 */
static void test_added_metrics(void)
{
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct store *st;
	char path[300];
	const char *in[2];
	struct store_level lv[2];
	struct store_value v[4];
	struct store_row r;

	st = store_open(db_path("added.db", path, sizeof(path)), STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(store_begin_run(st, &run_def, &err), 0);
	put_rows(st, 0, 2);
	CU_ASSERT_EQUAL(store_query(st, NULL, 0, &t, &err), 0);
	CU_ASSERT(table_col(&t, "speedup") < 0 && table_col(&t, "scheme") < 0);
	table_release(&t);
	fill_row(&rows[2], in, lv, v, &r);
	r.key = "k9";
	r.idx = 9;
	r.status = "ok";
	r.error = NULL;
	v[0].is_null = v[1].is_null = false;
	v[2] = (struct store_value){ false, 0, 16.5, NULL };
	v[3] = (struct store_value){ false, 0, 0, "C1" };
	CU_ASSERT_EQUAL(store_put(st, &r, 1, &err), 0);
	CU_ASSERT_EQUAL(store_query(st, NULL, 0, &t, &err), 0);
	CU_ASSERT_EQUAL_FATAL(t.n_rows, 3);
	/* in the schema's order, after the metrics that were always there */
	CU_ASSERT_EQUAL(table_col(&t, "speedup"), table_col(&t, "cycles") + 1);
	CU_ASSERT_EQUAL(table_col(&t, "scheme"), table_col(&t, "cycles") + 2);
	CU_ASSERT_STRING_EQUAL(cell(&t, 0, "speedup"), "(null)");
	CU_ASSERT_STRING_EQUAL(cell(&t, 2, "speedup"), "16.5");
	CU_ASSERT_STRING_EQUAL(cell(&t, 2, "scheme"), "C1");
	CU_ASSERT_EQUAL(table_get(&t, 2, (size_t)table_col(&t, "speedup")).type, TABLE_REAL);
	table_release(&t);
	/* an input may not take a metric's name, even one the database does not have yet */
	{
		static const char *const bad_inputs[] = { "scheme" };
		struct store_run_def bad = run_def;
		bad.key = "run-key-2";
		bad.inputs = bad_inputs;
		bad.n_inputs = 1;
		CU_ASSERT_EQUAL(store_begin_run(st, &bad, &err), -1);
	}
	store_close(st);
	strbuf_release(&err);
}

/* A filter and the indexes of the rows it keeps. */
struct where_case {
	const char *column;
	enum store_op op;
	const char *value;
	const char *want;              /* "0,1" */
};

static const struct where_case where_cases[] = {
	{ "density", STORE_LT, "0.1", "0,1" },
	{ "density", STORE_GE, "0.4", "2,3" },
	{ "format", STORE_EQ, "CSR", "0,2" },
	{ "format", STORE_NE, "CSR", "1,3" },
	{ "format", STORE_LIKE, "bit%", "1,3" },
	{ "status", STORE_EQ, "ok", "0,1,2" },
	{ "cycles", STORE_GT, "100", "1,2" },
	{ "energy_pj", STORE_LE, "0.125", "0,1" },
	{ "idx", STORE_EQ, "3", "3" },
};

static void test_where(void)
{
	struct strbuf err = STRBUF_INIT, got = STRBUF_INIT;
	struct store *st;
	char path[300];
	size_t i, r;

	st = store_open(db_path("where.db", path, sizeof(path)), STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(store_begin_run(st, &run_def, &err), 0);
	put_rows(st, 0, 4);
	for (i = 0; i < ARRAY_SIZE(where_cases); i++) {
		const struct where_case *c = &where_cases[i];
		struct store_cond w = { c->column, c->op, c->value };
		struct table t = TABLE_INIT;
		CU_ASSERT_EQUAL(store_query(st, &w, 1, &t, &err), 0);
		strbuf_reset(&got);
		for (r = 0; r < t.n_rows; r++)
			strbuf_addf(&got, "%s%s", r ? "," : "", cell(&t, r, "idx"));
		if (strcmp(got.buf, c->want))
			fprintf(stderr, "\nwhere %s %s %s: got %s, want %s\n", c->column,
				store_op_name(c->op), c->value, got.buf, c->want);
		CU_ASSERT_STRING_EQUAL(got.buf, c->want);
		table_release(&t);
	}
	{
		struct store_cond two[] = { { "density", STORE_LT, "0.1" }, { "format", STORE_EQ, "CSR" } };
		struct table t = TABLE_INIT;
		CU_ASSERT_EQUAL(store_query(st, two, 2, &t, &err), 0);
		CU_ASSERT_EQUAL(t.n_rows, 1);
		table_release(&t);
	}
	{
		struct store_cond bad = { "densty", STORE_LT, "0.1" };
		struct table t = TABLE_INIT;
		CU_ASSERT_EQUAL(store_query(st, &bad, 1, &t, &err), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "no column 'densty' to filter on; did you mean 'density'?"));
		table_release(&t);
	}
	store_close(st);
	strbuf_release(&got);
	strbuf_release(&err);
}

/* Rows of a child killed after two commits are there; the run and its keys are found again. */
static void test_crash_resume(void)
{
	static const struct { const char *key; bool has; } look[] = {
		{ "k0", true }, { "k2", true }, { "k1", false }, { "k3", false }, { "k", false },
	};
	struct strbuf err = STRBUF_INIT;
	struct table t = TABLE_INIT;
	struct store *st;
	char path[300];
	bool any = false;
	int status;
	size_t i;
	pid_t pid;

	db_path("crash.db", path, sizeof(path));
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		st = store_open(path, STORE_WRITE, &schema, &err);
		if (!st || store_begin_run(st, &run_def, &err) < 0)
			_exit(2);
		put_rows(st, 0, 2);
		kill(getpid(), SIGKILL);   /* no close, no checkpoint */
		_exit(3);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	st = store_open(path, STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	CU_ASSERT_EQUAL(store_has_points(st, &any, &err), 0);
	CU_ASSERT_TRUE(any);
	for (i = 0; i < ARRAY_SIZE(look); i++) {   /* each looked up on the key index */
		bool has = !look[i].has;
		CU_ASSERT_EQUAL(store_has_key(st, look[i].key, &has, &err), 0);
		CU_ASSERT_EQUAL(has, look[i].has);
	}
	CU_ASSERT_EQUAL(store_begin_run(st, &run_def, &err), 0);
	put_rows(st, 0, 4);            /* the rerun: two are there already */
	CU_ASSERT_EQUAL(store_query(st, NULL, 0, &t, &err), 0);
	CU_ASSERT_EQUAL(t.n_rows, 4);
	CU_ASSERT_STRING_EQUAL(cell(&t, 0, "run"), "1");     /* the same run */
	CU_ASSERT_STRING_EQUAL(cell(&t, 3, "run"), "1");
	table_release(&t);
	store_close(st);
	strbuf_release(&err);
}

/* A database 'path' made with 'sql' by SQLite directly. */
static void make_db(const char *path, const char *sql)
{
	sqlite3 *db;
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
	CU_ASSERT_EQUAL(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_refused(void)
{
	struct strbuf err = STRBUF_INIT;
	struct store *st;
	char path[300];
	FILE *fp;

	/* another schema version */
	st = store_open(db_path("v2.db", path, sizeof(path)), STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	store_close(st);
	make_db(path, "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
	CU_ASSERT_PTR_NULL(store_open(path, STORE_READ, &schema, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "schema version '2'; this fiberloop reads version 1"));
	/* another database */
	make_db(db_path("other.db", path, sizeof(path)), "CREATE TABLE t(x)");
	CU_ASSERT_PTR_NULL(store_open(path, STORE_WRITE, &schema, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "not a fiberloop results database"));
	/* not a database at all */
	db_path("text.db", path, sizeof(path));
	fp = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs("density,energy\n0.1,2\n", fp);
	fclose(fp);
	CU_ASSERT_PTR_NULL(store_open(path, STORE_READ, &schema, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "not a database"));
	/* missing, for reading */
	CU_ASSERT_PTR_NULL(store_open(db_path("none.db", path, sizeof(path)), STORE_READ, &schema, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "No such file"));
	/* an input with a result's name */
	st = store_open(db_path("clash.db", path, sizeof(path)), STORE_WRITE, &schema, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	{
		static const char *const bad_inputs[] = { "status" };
		struct store_run_def d = run_def;
		d.n_inputs = 1;
		d.inputs = bad_inputs;
		CU_ASSERT_EQUAL(store_begin_run(st, &d, &err), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.buf, "the input 'status' has the name of a result column"));
	}
	store_close(st);
	strbuf_release(&err);
}

/* A database that cannot be made: where, and the exact error ('@' is the test directory). */
struct create_case {
	const char *path;
	const char *err;
};

static const struct create_case create_cases[] = {
	{ "none/x.db", "@/none/x.db: cannot create the database: No such file or directory" },
	{ "afile/x.db", "@/afile/x.db: cannot create the database: Not a directory" },
	{ "adir", "@/adir: cannot open: unable to open database file (Is a directory)" },
};

/*
 * Open a new database in a child whose files may not grow (RLIMIT_FSIZE 0,
 * as on a full disk). Returns 0 when store_open() failed there.
 */
static int open_without_space(const char *path)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit lim = { 0, 0 };
		struct strbuf err = STRBUF_INIT;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &lim);
		_exit(store_open(path, STORE_WRITE, &schema, &err) ? 1 : 0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static void test_cannot_create(void)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	char path[300];
	size_t i;
	FILE *fp;

	fp = fopen(db_path("afile", path, sizeof(path)), "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/adir", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0777), 0);
	for (i = 0; i < ARRAY_SIZE(create_cases); i++) {
		const char *w;

		strbuf_reset(&err);
		strbuf_reset(&want);
		for (w = create_cases[i].err; *w; w++)
			if (*w == '@')
				strbuf_addstr(&want, dir);
			else
				strbuf_addch(&want, *w);
		snprintf(path, sizeof(path), "%s/%s", dir, create_cases[i].path);
		CU_ASSERT_PTR_NULL(store_open(path, STORE_WRITE, &schema, &err));
		CU_ASSERT_STRING_EQUAL(err.buf, want.buf);
	}
	/* a database that could not be set up is not left behind */
	CU_ASSERT_EQUAL(open_without_space(db_path("full.db", path, sizeof(path))), 0);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	strbuf_release(&err);
	strbuf_release(&want);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_store.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static CU_TestInfo store_tests[] = {
	{ "rows round trip, ordered by index", test_round_trip },
	{ "metric columns added with their first value", test_added_metrics },
	{ "a point with more levels than one insert takes", test_many_levels },
	{ "filters", test_where },
	{ "kill -9 after two commits, then resume", test_crash_resume },
	{ "refused files", test_refused },
	{ "a database that cannot be made", test_cannot_create },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "store", .pInitFunc = setup, .pCleanupFunc = teardown, .pTests = store_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
