/*
 * The results database in SQLite: the schema (docs/sweep.md, "The
 * database"), opening with its checks, runs, rows written one transaction
 * per call in WAL mode, and queries as typed tables.
 */
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/table.h"
#include "util/xalloc.h"

/* The tables besides 'points' (whose metric columns are the caller's schema's). */
static const char tables_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
	" kind TEXT NOT NULL, definition TEXT NOT NULL, n_points INTEGER NOT NULL,"
	" inputs TEXT NOT NULL);";
static const char points_head_sql[] =
	"CREATE TABLE points(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
	" run INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, kind TEXT NOT NULL,"
	" name TEXT, parent TEXT, tags TEXT, command TEXT NOT NULL, design_hash TEXT NOT NULL,"
	" overrides TEXT NOT NULL, status TEXT NOT NULL, error TEXT";
static const char points_tail_sql[] =
	", mapping TEXT);"
	"CREATE INDEX points_order ON points(run, idx);"
	"CREATE TABLE levels(point INTEGER NOT NULL REFERENCES points(id),"
	" level INTEGER NOT NULL, name TEXT NOT NULL, energy_pj REAL NOT NULL,"
	" PRIMARY KEY(point, level)) WITHOUT ROWID;";

/* The columns of 'points' besides the metrics and the inputs. */
static const char *const point_cols[] = {
	"id", "key", "run", "idx", "kind", "name", "parent", "tags", "command", "design_hash",
	"overrides", "status", "error", "mapping",
};

/* The columns of a row written before the metrics (bound from parameter 1 on). */
#define N_HEAD_PARAMS 12

/* What a query lists before the inputs, between the inputs and the levels, and after. */
static const char *const head_cols[] = { "run", "idx", "kind", "name" };
static const char *const tail_cols[] = {
	"error", "mapping", "tags", "parent", "command", "design_hash", "overrides", "key",
};

static const char *const type_sql[] = {
	[STORE_INTEGER] = "INTEGER", [STORE_REAL] = "REAL", [STORE_TEXT] = "TEXT",
};

/*
 * The level rows of a point are inserted by one statement of up to this many
 * rows (a statement step each costs about as much as the row it writes).
 */
#define LEVELS_PER_PUT 16

struct store {
	sqlite3 *db;
	char *path;
	const struct store_schema *schema;
	bool *has_metric;              /* per metric of the schema: the database has its column */
	int *metric_param;             /* per metric: its parameter in put_point (0: none) */
	int mapping_param, inputs_param;
	int64_t run;                   /* the current run, or 0 */
	size_t n_inputs;
	const char **inputs;           /* the current run's input columns (the caller's) */
	sqlite3_stmt *put_point;
	sqlite3_stmt *put_levels[LEVELS_PER_PUT + 1];   /* [k]: k level rows, prepared when needed */
	sqlite3_stmt *has_key;         /* store_has_key(), prepared on its first call */
};

/* ------------------------------------------------------------ errors */

/* "PATH: what: SQLite's message" into 'err'; returns -1. */
static int db_error(struct store *st, const char *what, struct strbuf *err)
{
	int code = sqlite3_extended_errcode(st->db);

	strbuf_reset(err);
	strbuf_addf(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
	if ((code & 0xff) == SQLITE_FULL)
		strbuf_addstr(err, " (no space left for the database)");
	else if ((code & 0xff) == SQLITE_READONLY)
		strbuf_addstr(err, " (the file or its directory is read-only)");
	else if (((code & 0xff) == SQLITE_CANTOPEN || (code & 0xff) == SQLITE_IOERR) &&
		 sqlite3_system_errno(st->db) != 0)
		strbuf_addf(err, " (%s)", strerror(sqlite3_system_errno(st->db)));
	return -1;
}

/* Run 'sql' (no results). Returns 0 or -1 + 'err'. */
static int exec_sql(struct store *st, const char *sql, const char *what, struct strbuf *err)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(st, what, err);
	return 0;
}

static int prepare(struct store *st, const char *sql, sqlite3_stmt **out, struct strbuf *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
		return db_error(st, "cannot prepare a statement", err);
	return 0;
}

/* Append 'name' as a quoted SQL identifier. */
static void add_ident(struct strbuf *sb, const char *name)
{
	strbuf_addch(sb, '"');
	for (; *name; name++) {
		if (*name == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *name);
	}
	strbuf_addch(sb, '"');
}

/* ------------------------------------------------------------ opening */

/* The value of meta key 'key' into 'out' (empty when absent). Returns 0 or -1. */
static int meta_get(struct store *st, const char *key, struct strbuf *out, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	strbuf_reset(out);
	if (prepare(st, "SELECT value FROM meta WHERE key = ?", &q, err) < 0)
		return -1;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		strbuf_addstr(out, (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, "cannot read the schema version", err);
	return 0;
}

/* True when the database has a table named 'name'. */
static int has_table(struct store *st, const char *name, bool *out, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", &q,
		    err) < 0)
		return -1;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, "cannot read the database", err);
	*out = rc == SQLITE_ROW;
	return 0;
}

/* Number of tables of the database, into '*n'. */
static int count_tables(struct store *st, int *n, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &q, err) < 0)
		return -1;
	rc = sqlite3_step(q);
	*n = rc == SQLITE_ROW ? sqlite3_column_int(q, 0) : 0;
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return db_error(st, "cannot read the database", err);
	return 0;
}

/* Create the schema in an empty database (inside the caller's transaction): the metric
 * columns are the schema's 'always' ones. */
static int create_schema(struct store *st, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	size_t i;
	int rc;

	strbuf_addf(&sql, "%s%s", tables_sql, points_head_sql);
	for (i = 0; i < st->schema->n_metrics; i++) {
		const struct store_metric *m = &st->schema->metrics[i];
		if (!m->always)
			continue;
		strbuf_addstr(&sql, ", ");
		add_ident(&sql, m->name);
		strbuf_addf(&sql, " %s", type_sql[m->type]);
	}
	strbuf_addf(&sql, "%sINSERT INTO meta VALUES('schema_version', '%d'),"
		    "('application', 'fiberloop');", points_tail_sql, STORE_SCHEMA_VERSION);
	rc = exec_sql(st, sql.buf, "cannot create the database", err);
	strbuf_release(&sql);
	return rc;
}

/* Check that the database is a fiberloop database of our schema (creating it when empty). */
static int check_schema_locked(struct store *st, enum store_mode mode, struct strbuf *err)
{
	struct strbuf v = STRBUF_INIT;
	bool has_meta = false;
	int n_tables = 0, rc = 0;

	if (has_table(st, "meta", &has_meta, err) < 0 || count_tables(st, &n_tables, err) < 0)
		return -1;
	if (!has_meta && n_tables == 0 && mode == STORE_WRITE)
		return create_schema(st, err);
	if (!has_meta) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: not a fiberloop results database (it has no table 'meta')",
			    st->path);
		return -1;
	}
	if (meta_get(st, "schema_version", &v, err) < 0)
		return -1;
	if (strcmp(v.buf, "1") != 0) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: schema version '%s'; this fiberloop reads version %d",
			    st->path, v.buf, STORE_SCHEMA_VERSION);
		rc = -1;
	}
	strbuf_release(&v);
	return rc;
}

/*
 * check_schema_locked() for a writer inside one IMMEDIATE transaction, so
 * that of two writers opening a new database together the second waits
 * for the first's schema and finds it, instead of creating it again.
 */
static int check_schema(struct store *st, enum store_mode mode, struct strbuf *err)
{
	int rc;

	if (mode != STORE_WRITE)
		return check_schema_locked(st, mode, err);
	if (exec_sql(st, "BEGIN IMMEDIATE", "cannot create the database", err) < 0)
		return -1;
	rc = check_schema_locked(st, mode, err);
	if (rc == 0 && exec_sql(st, "COMMIT", "cannot create the database", err) < 0)
		rc = -1;
	if (rc < 0)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * WAL mode, commits that survive a killed process, and a wait on a busy
 * database. Switching a new database to WAL needs it to itself, and SQLite
 * answers SQLITE_BUSY at once (no busy handler) when another process opens
 * it at the same moment: that is retried for up to the busy timeout.
 */
static int set_pragmas(struct store *st, struct strbuf *err)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };
	sqlite3_stmt *q;
	bool wal;
	int rc, tries = 0;

	sqlite3_busy_timeout(st->db, 10000);
	if (prepare(st, "PRAGMA journal_mode=WAL", &q, err) < 0)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_BUSY && ++tries < 500) {
		sqlite3_reset(q);
		nanosleep(&pause, NULL);
	}
	wal = rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(q, 0), "wal");
	sqlite3_finalize(q);
	if (!wal)
		return db_error(st, "cannot switch to WAL mode", err);
	/*
	 * Foreign keys are not enforced on the writer: it writes a point's level
	 * rows with the id of the point it has just inserted, and the check (a
	 * look-up of the point per level row) cost a sixth of a row's writing.
	 * The schema still declares the references.
	 */
	return exec_sql(st, "PRAGMA synchronous=NORMAL", "cannot set up the database", err);
}

/*
 * True, with 'err' filled, when 'path' does not exist and cannot be made:
 * its directory is missing, not a directory, or not writable. (SQLite only
 * says "unable to open database file", and its errno is of a read-only retry.)
 */
static bool cannot_create(const char *path, struct strbuf *err)
{
	const char *slash = strrchr(path, '/');
	struct strbuf dir = STRBUF_INIT;
	struct stat sb;
	bool bad = false;

	if (lstat(path, &sb) == 0)
		return false;
	if (!slash)
		strbuf_addstr(&dir, ".");
	else
		strbuf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
	if (errno != ENOENT || access(dir.buf, W_OK | X_OK) != 0) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: cannot create the database: %s", path, strerror(errno));
		bad = true;
	}
	strbuf_release(&dir);
	return bad;
}

/* Remove the database 'path' and SQLite's files beside it (a database this process made). */
static void remove_db_files(const char *path)
{
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
	struct strbuf p = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(suffixes); i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s%s", path, suffixes[i]);
		unlink(p.buf);
	}
	strbuf_release(&p);
}

struct store *store_open(const char *path, enum store_mode mode,
			 const struct store_schema *schema, struct strbuf *err)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int flags = mode == STORE_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
					: SQLITE_OPEN_READONLY;
	struct stat sb;
	bool is_new;

	st->path = xstrdup(path);
	st->schema = schema;
	st->has_metric = xcalloc(schema->n_metrics + 1, sizeof(*st->has_metric));
	st->metric_param = xcalloc(schema->n_metrics + 1, sizeof(*st->metric_param));
	if (mode == STORE_READ && stat(path, &sb) < 0) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: %s", path, strerror(errno));
		store_close(st);
		return NULL;
	}
	/* a reader that may write closes the database as its last user, removing the WAL files */
	if (mode == STORE_READ && access(path, W_OK) == 0 &&
	    sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
		flags = 0;
	else if (mode == STORE_READ && st->db) {
		sqlite3_close(st->db);
		st->db = NULL;
	}
	if (mode == STORE_WRITE && cannot_create(path, err)) {
		store_close(st);
		return NULL;
	}
	/* one process makes the file, and only it may remove it on failure */
	is_new = mode == STORE_WRITE && fileio_create_new(path);
	if (flags && sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		db_error(st, "cannot open", err);
		store_close(st);
		if (is_new)
			remove_db_files(path);
		return NULL;
	}
	if (mode == STORE_WRITE && sqlite3_db_readonly(st->db, "main") == 1) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: the database is read-only (cannot write results into it)",
			    path);
		store_close(st);
		return NULL;
	}
	if ((mode == STORE_WRITE && set_pragmas(st, err) < 0) || check_schema(st, mode, err) < 0) {
		store_close(st);
		if (is_new)
			remove_db_files(path);
		return NULL;
	}
	if (mode == STORE_READ)
		sqlite3_busy_timeout(st->db, 10000);
	return st;
}

/* The prepared inserts, finalized (prepare_puts() makes them again). */
static void finalize_puts(struct store *st)
{
	unsigned k;

	sqlite3_finalize(st->put_point);
	st->put_point = NULL;
	for (k = 0; k <= LEVELS_PER_PUT; k++) {
		sqlite3_finalize(st->put_levels[k]);
		st->put_levels[k] = NULL;
	}
}

void store_close(struct store *st)
{
	if (!st)
		return;
	finalize_puts(st);
	sqlite3_finalize(st->has_key);
	sqlite3_close(st->db);
	free(st->path);
	free(st->has_metric);
	free(st->metric_param);
	free(st);
}

const char *store_op_name(enum store_op op)
{
	static const char *const names[] = { "=", "!=", "<", "<=", ">", ">=", "~" };
	_Static_assert(ARRAY_SIZE(names) == STORE_OP_COUNT, "one name per operator");
	return (unsigned)op < STORE_OP_COUNT ? names[op] : "?";
}

/* ------------------------------------------------------------- columns */

/* The schema's metric named 'name', or -1. */
static long metric_of(const struct store *st, const char *name)
{
	size_t i;
	for (i = 0; i < st->schema->n_metrics; i++)
		if (!strcasecmp(st->schema->metrics[i].name, name))
			return (long)i;
	return -1;
}

/* True for a column of 'points' that is no input: a fixed column or a metric (SQLite's
 * column names ignore ASCII case, as strcasecmp() does). */
static bool is_point_col(const struct store *st, const char *name)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(point_cols); i++)
		if (!strcasecmp(point_cols[i], name))
			return true;
	return metric_of(st, name) >= 0;
}

/* True for the name of a per-level column, METRIC.LEVEL. */
static bool is_level_col(const struct store *st, const char *name)
{
	size_t n = strlen(st->schema->level_metric);
	return !strncasecmp(name, st->schema->level_metric, n) && name[n] == '.';
}

/* The columns of 'points' (all of them, in table order) into 'cols' (strings owned). */
static int points_columns(struct store *st, char ***cols, size_t *n, struct strbuf *err)
{
	sqlite3_stmt *q;
	size_t alloc = 0;
	int rc;

	*cols = NULL;
	*n = 0;
	if (prepare(st, "SELECT name FROM pragma_table_info('points')", &q, err) < 0)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		XGROW(*cols, *n + 1, alloc);
		(*cols)[(*n)++] = xstrdup((const char *)sqlite3_column_text(q, 0));
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_error(st, "cannot read the columns", err);
	return 0;
}

static void free_columns(char **cols, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(cols[i]);
	free(cols);
}

/* Add the input columns of 'def' that 'points' lacks. */
static int add_inputs(struct store *st, const struct store_run_def *def, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	char **cols;
	size_t n, i, j;
	int rc = 0;

	for (i = 0; i < def->n_inputs; i++)
		if (is_point_col(st, def->inputs[i]) || is_level_col(st, def->inputs[i])) {
			strbuf_reset(err);
			strbuf_addf(err, "%s: the input '%s' has the name of a result column",
				    st->path, def->inputs[i]);
			return -1;
		}
	if (points_columns(st, &cols, &n, err) < 0)
		return -1;
	for (i = 0; i < def->n_inputs && rc == 0; i++) {
		for (j = 0; j < n && strcasecmp(cols[j], def->inputs[i]); j++)
			;
		if (j < n)
			continue;
		strbuf_reset(&sql);
		strbuf_addstr(&sql, "ALTER TABLE points ADD COLUMN ");
		add_ident(&sql, def->inputs[i]);
		rc = exec_sql(st, sql.buf, "cannot add an input column", err);
	}
	free_columns(cols, n);
	strbuf_release(&sql);
	return rc;
}

/* The run of key 'key' into '*id' (0 when absent). */
static int find_run(struct store *st, const char *key, int64_t *id, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	*id = 0;
	if (prepare(st, "SELECT id FROM runs WHERE key = ?", &q, err) < 0)
		return -1;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, "cannot read the runs", err);
	return 0;
}

/* Insert the run 'def'; its id into '*id'. */
static int insert_run(struct store *st, const struct store_run_def *def, int64_t *id,
		      struct strbuf *err)
{
	struct strbuf inputs = STRBUF_INIT;
	sqlite3_stmt *q;
	size_t i;
	int rc;

	for (i = 0; i < def->n_inputs; i++)
		strbuf_addf(&inputs, "%s%s", i ? "\n" : "", def->inputs[i]);
	if (prepare(st, "INSERT INTO runs(key, kind, definition, n_points, inputs) "
		    "VALUES(?, ?, ?, ?, ?)", &q, err) < 0) {
		strbuf_release(&inputs);
		return -1;
	}
	sqlite3_bind_text(q, 1, def->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, def->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, def->definition, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)def->n_points);
	sqlite3_bind_text(q, 5, inputs.buf, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	strbuf_release(&inputs);
	if (rc != SQLITE_DONE)
		return db_error(st, "cannot record the run", err);
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* Which metric columns the database has (into st->has_metric). */
static int read_metric_columns(struct store *st, struct strbuf *err)
{
	char **cols;
	size_t n, i;
	long m;

	if (points_columns(st, &cols, &n, err) < 0)
		return -1;
	memset(st->has_metric, 0, st->schema->n_metrics * sizeof(*st->has_metric));
	for (i = 0; i < n; i++)
		if ((m = metric_of(st, cols[i])) >= 0)
			st->has_metric[m] = true;
	free_columns(cols, n);
	return 0;
}

/*
 * Prepare the inserts of rows of the current run: the fixed columns, the
 * metrics the database has, the mapping and the run's input columns.
 */
static int prepare_puts(struct store *st, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	int param = N_HEAD_PARAMS;
	size_t i;
	int rc;

	finalize_puts(st);
	strbuf_addstr(&sql, "INSERT INTO points(key, run, idx, kind, name, parent, tags, command,"
		      " design_hash, overrides, status, error");
	for (i = 0; i < st->schema->n_metrics; i++) {
		st->metric_param[i] = st->has_metric[i] ? ++param : 0;
		if (!st->has_metric[i])
			continue;
		strbuf_addstr(&sql, ", ");
		add_ident(&sql, st->schema->metrics[i].name);
	}
	st->mapping_param = ++param;
	strbuf_addstr(&sql, ", mapping");
	st->inputs_param = param + 1;
	for (i = 0; i < st->n_inputs; i++) {
		strbuf_addstr(&sql, ", ");
		add_ident(&sql, st->inputs[i]);
	}
	strbuf_addstr(&sql, ") VALUES(?");
	for (i = 1; i < (size_t)param + st->n_inputs; i++)
		strbuf_addstr(&sql, ", ?");
	strbuf_addstr(&sql, ") ON CONFLICT(key) DO NOTHING");
	rc = prepare(st, sql.buf, &st->put_point, err);
	strbuf_release(&sql);
	return rc;
}

/* The insert of k level rows (1 <= k <= LEVELS_PER_PUT), prepared on its first use. */
static sqlite3_stmt *put_levels(struct store *st, unsigned k, struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	unsigned i;

	if (st->put_levels[k])
		return st->put_levels[k];
	strbuf_addstr(&sql, "INSERT INTO levels(point, level, name, energy_pj) VALUES(?, ?, ?, ?)");
	for (i = 1; i < k; i++)
		strbuf_addstr(&sql, ", (?, ?, ?, ?)");
	prepare(st, sql.buf, &st->put_levels[k], err);   /* NULL on failure (sqlite3_prepare_v2) */
	strbuf_release(&sql);
	return st->put_levels[k];
}

int store_begin_run(struct store *st, const struct store_run_def *def, struct strbuf *err)
{
	int64_t id;

	if (exec_sql(st, "BEGIN IMMEDIATE", "cannot write", err) < 0)
		return -1;
	if (add_inputs(st, def, err) < 0 || find_run(st, def->key, &id, err) < 0 ||
	    (id == 0 && insert_run(st, def, &id, err) < 0) ||
	    exec_sql(st, "COMMIT", "cannot commit", err) < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	st->run = id;
	st->n_inputs = def->n_inputs;
	st->inputs = (const char **)def->inputs;
	if (read_metric_columns(st, err) < 0)
		return -1;
	return prepare_puts(st, err);
}

int store_has_points(struct store *st, bool *any, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	*any = false;
	if (prepare(st, "SELECT EXISTS(SELECT 1 FROM points)", &q, err) < 0)
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*any = sqlite3_column_int(q, 0) != 0;
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return db_error(st, "cannot read the finished points", err);
	return 0;
}

int store_has_key(struct store *st, const char *key, bool *has, struct strbuf *err)
{
	int rc;

	*has = false;
	if (!st->has_key && prepare(st, "SELECT 1 FROM points WHERE key = ?1", &st->has_key,
				    err) < 0)
		return -1;
	sqlite3_bind_text(st->has_key, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st->has_key);
	*has = rc == SQLITE_ROW;
	sqlite3_reset(st->has_key);
	sqlite3_clear_bindings(st->has_key);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, "cannot read the finished points", err);
	return 0;
}

/* ------------------------------------------------------------- writing */

/* Bind 'text' as an integer or a real when it reads as one, else as text (NULL: null). */
static void bind_value(sqlite3_stmt *q, int i, const char *text)
{
	char *end;
	long long ll;
	double d;

	if (!text) {
		sqlite3_bind_null(q, i);
		return;
	}
	errno = 0;
	ll = strtoll(text, &end, 10);
	if (*text && !*end && errno == 0 && !strchr(" \t", *text)) {
		sqlite3_bind_int64(q, i, ll);
		return;
	}
	d = strtod(text, &end);
	if (*text && !*end && errno == 0 && isfinite(d) && !strchr(" \t", *text)) {
		sqlite3_bind_double(q, i, d);
		return;
	}
	sqlite3_bind_text(q, i, text, -1, SQLITE_STATIC);
}

static void bind_u64(sqlite3_stmt *q, int i, uint64_t v)
{
	if (v <= INT64_MAX)
		sqlite3_bind_int64(q, i, (sqlite3_int64)v);
	else
		sqlite3_bind_double(q, i, (double)v);
}

static void bind_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, i);
}

/* Bind the metrics of 'r' that the database has, and its mapping. */
static void bind_metrics(struct store *st, sqlite3_stmt *q, const struct store_row *r)
{
	size_t i;

	for (i = 0; i < st->schema->n_metrics; i++) {
		const struct store_value *v = r->metrics ? &r->metrics[i] : NULL;
		int p = st->metric_param[i];
		if (!p)
			continue;
		if (!v || v->is_null)
			sqlite3_bind_null(q, p);
		else if (st->schema->metrics[i].type == STORE_INTEGER)
			bind_u64(q, p, v->integer);
		else if (st->schema->metrics[i].type == STORE_REAL)
			sqlite3_bind_double(q, p, v->real);
		else
			bind_text(q, p, v->text);
	}
	bind_text(q, st->mapping_param, r->mapping);
}

/* True when one of rows[0..n) has a value for metric 'm'. */
static bool has_value(const struct store_row *rows, size_t n, size_t m)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (rows[k].metrics && !rows[k].metrics[m].is_null)
			return true;
	return false;
}

/*
 * Add the columns of the metrics that rows[0..n) have and the database
 * lacks, in a transaction of their own, and prepare the inserts again.
 */
static int add_metric_columns(struct store *st, const struct store_row *rows, size_t n,
			      struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	bool missing = false;
	size_t m;
	int rc;

	for (m = 0; m < st->schema->n_metrics && !missing; m++)
		missing = !st->has_metric[m] && has_value(rows, n, m);
	if (!missing)
		return 0;
	if (exec_sql(st, "BEGIN IMMEDIATE", "cannot write", err) < 0)
		return -1;
	rc = read_metric_columns(st, err);   /* another writer may have added some */
	for (m = 0; m < st->schema->n_metrics && rc == 0; m++) {
		if (st->has_metric[m] || !has_value(rows, n, m))
			continue;
		strbuf_reset(&sql);
		strbuf_addstr(&sql, "ALTER TABLE points ADD COLUMN ");
		add_ident(&sql, st->schema->metrics[m].name);
		strbuf_addf(&sql, " %s", type_sql[st->schema->metrics[m].type]);
		rc = exec_sql(st, sql.buf, "cannot add a metric column", err);
	}
	strbuf_release(&sql);
	if (rc == 0)
		rc = exec_sql(st, "COMMIT", "cannot commit", err);
	if (rc < 0) {                  /* has_metric[] is as the rollback leaves the table */
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (read_metric_columns(st, err) < 0)
		return -1;
	return prepare_puts(st, err);
}

/* Insert one row and its levels (inside the caller's transaction). */
static int put_one(struct store *st, const struct store_row *r, struct strbuf *err)
{
	sqlite3_stmt *q = st->put_point;
	sqlite3_int64 id;
	unsigned l, k, j;
	size_t i;
	int rc;

	sqlite3_reset(q);
	sqlite3_bind_text(q, 1, r->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, st->run);
	bind_u64(q, 3, r->idx);
	bind_text(q, 4, r->kind);
	bind_text(q, 5, r->name);
	bind_text(q, 6, r->parent);
	bind_text(q, 7, r->tags);
	bind_text(q, 8, r->command);
	bind_text(q, 9, r->design_hash);
	bind_text(q, 10, r->overrides ? r->overrides : "");
	bind_text(q, 11, r->status);
	bind_text(q, 12, r->error);
	bind_metrics(st, q, r);
	for (i = 0; i < st->n_inputs; i++)
		bind_value(q, st->inputs_param + (int)i, r->inputs ? r->inputs[i] : NULL);
	if (sqlite3_step(q) != SQLITE_DONE)
		return db_error(st, "cannot write a result", err);
	if (sqlite3_changes(st->db) == 0)
		return 0;              /* already there */
	id = sqlite3_last_insert_rowid(st->db);
	for (l = 0; l < r->n_levels; l += k) {
		sqlite3_stmt *lq;
		k = r->n_levels - l < LEVELS_PER_PUT ? r->n_levels - l : LEVELS_PER_PUT;
		if (!(lq = put_levels(st, k, err)))
			return -1;
		for (j = 0; j < k; j++) {
			sqlite3_bind_int64(lq, 4 * (int)j + 1, id);
			sqlite3_bind_int(lq, 4 * (int)j + 2, (int)(l + j));
			sqlite3_bind_text(lq, 4 * (int)j + 3, r->levels[l + j].name, -1,
					  SQLITE_STATIC);
			sqlite3_bind_double(lq, 4 * (int)j + 4, r->levels[l + j].energy_pj);
		}
		if (sqlite3_step(lq) != SQLITE_DONE) {
			rc = db_error(st, "cannot write a result", err);
			sqlite3_reset(lq);
			return rc;
		}
		sqlite3_reset(lq);
	}
	return 0;
}

int store_put(struct store *st, const struct store_row *rows, size_t n, struct strbuf *err)
{
	size_t i;

	if (!st->put_point)
		BUG("store_put() before store_begin_run()");
	if (add_metric_columns(st, rows, n, err) < 0 ||
	    exec_sql(st, "BEGIN IMMEDIATE", "cannot write", err) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (put_one(st, &rows[i], err) < 0)
			goto fail;
	if (exec_sql(st, "COMMIT", "cannot commit", err) < 0)
		goto fail;
	return 0;
fail:
	sqlite3_reset(st->put_point);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* ------------------------------------------------------------- queries */

/* Cell (r, c) of 't' from column 'i' of the current row of 'q'. */
static void take_cell(struct table *t, size_t r, size_t c, sqlite3_stmt *q, int i)
{
	char buf[40];

	switch (sqlite3_column_type(q, i)) {
	case SQLITE_INTEGER:
		snprintf(buf, sizeof(buf), "%lld", (long long)sqlite3_column_int64(q, i));
		table_set(t, r, c, TABLE_INT, buf);
		break;
	case SQLITE_FLOAT:
		table_format_real(sqlite3_column_double(q, i), buf, sizeof(buf));
		table_set(t, r, c, TABLE_REAL, buf);
		break;
	case SQLITE_NULL:
		break;
	default:
		table_set(t, r, c, TABLE_TEXT, (const char *)sqlite3_column_text(q, i));
		break;
	}
}

/* Check the columns of the conditions against 'cols'; an error with a hint for an unknown one. */
static int check_conds(struct store *st, const struct store_cond *w, size_t n_w,
		       char **cols, size_t n_cols, struct strbuf *err)
{
	size_t i, j;

	for (i = 0; i < n_w; i++) {
		const char *h;
		for (j = 0; j < n_cols && strcmp(cols[j], w[i].column); j++)
			;
		if (j < n_cols && strcmp(w[i].column, "id"))
			continue;
		strbuf_reset(err);
		strbuf_addf(err, "%s: no column '%s' to filter on", st->path, w[i].column);
		h = diag_suggest(w[i].column, (const char *const *)cols, n_cols);
		if (h)
			strbuf_addf(err, "; did you mean '%s'?", h);
		return -1;
	}
	return 0;
}

/* Bind the value of condition 'c' as parameter 'i': a number as a number. */
static void bind_cond(sqlite3_stmt *q, int i, const struct store_cond *c)
{
	if (c->op == STORE_LIKE)
		sqlite3_bind_text(q, i, c->value, -1, SQLITE_STATIC);
	else
		bind_value(q, i, c->value);
}

/* Append " WHERE ..." for w[0..n_w). */
static void add_where(struct strbuf *sql, const struct store_cond *w, size_t n_w)
{
	static const char *const sql_ops[] = { "=", "!=", "<", "<=", ">", ">=", "LIKE" };
	size_t i;

	for (i = 0; i < n_w; i++) {
		strbuf_addstr(sql, i ? " AND " : " WHERE ");
		add_ident(sql, w[i].column);
		strbuf_addf(sql, " %s ?", sql_ops[w[i].op]);
	}
}

/* What a query gathers before it makes the table: the point ids of its rows in order. */
struct gathered {
	struct table t;                /* the points' columns, one row per point */
	int64_t *ids;
	size_t n_ids, alloc_ids;
};

/* The matching points, with the columns 'names' (the head, inputs, metrics and tail). */
static int gather_points(struct store *st, const struct store_cond *w, size_t n_w,
			 const char *const *names, size_t n_names, struct gathered *g,
			 struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *q;
	size_t i;
	int rc;

	strbuf_addstr(&sql, "SELECT id");
	for (i = 0; i < n_names; i++) {
		strbuf_addstr(&sql, ", ");
		add_ident(&sql, names[i]);
		table_add_col(&g->t, names[i]);
	}
	strbuf_addstr(&sql, " FROM points");
	add_where(&sql, w, n_w);
	strbuf_addstr(&sql, " ORDER BY run, idx, id");
	rc = prepare(st, sql.buf, &q, err);
	strbuf_release(&sql);
	if (rc < 0)
		return -1;
	for (i = 0; i < n_w; i++)
		bind_cond(q, (int)i + 1, &w[i]);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		size_t r = table_add_row(&g->t);
		XGROW(g->ids, g->n_ids + 1, g->alloc_ids);
		g->ids[g->n_ids++] = sqlite3_column_int64(q, 0);
		for (i = 0; i < n_names; i++)
			take_cell(&g->t, r, i, q, (int)i + 1);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_error(st, "cannot read the results", err);
	return 0;
}

/* Row of point 'id' among the sorted (id, row) pairs, or -1. */
static long row_of(const int64_t (*pairs)[2], size_t n, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (pairs[mid][0] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && pairs[lo][0] == id ? (long)pairs[lo][1] : -1;
}

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* One level energy of a gathered row. */
struct level_cell {
	size_t row, seq;               /* its row; its place among the row's levels */
	const char *name;              /* owned by the caller's arena */
	char value[40];
};

static int cmp_level_cell(const void *a, const void *b)
{
	const struct level_cell *x = a, *y = b;
	if (x->row != y->row)
		return (x->row > y->row) - (x->row < y->row);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The level energies of the gathered rows into cells[0..*n_cells), sorted
 * by row and level (outermost first), and the level names in the order in
 * which they first appear so, into names[0..*n_names).
 */
static int gather_levels(struct store *st, struct gathered *g, struct arena *a,
			 struct level_cell **cells, size_t *n_cells, const char ***names,
			 size_t *n_names, struct strbuf *err)
{
	int64_t (*pairs)[2] = xcalloc(g->n_ids ? g->n_ids : 1, sizeof(*pairs));
	size_t i, k, alloc_cells = 0, alloc_names = 0, seq = 0;
	sqlite3_stmt *q;
	int rc;

	for (i = 0; i < g->n_ids; i++) {
		pairs[i][0] = g->ids[i];
		pairs[i][1] = (int64_t)i;
	}
	qsort(pairs, g->n_ids, sizeof(*pairs), cmp_pair);
	if (prepare(st, "SELECT point, name, energy_pj FROM levels ORDER BY point, level DESC",
		    &q, err) < 0) {
		free(pairs);
		return -1;
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		long r = row_of((const int64_t (*)[2])pairs, g->n_ids, sqlite3_column_int64(q, 0));
		struct level_cell *c;
		if (r < 0)
			continue;
		XGROW(*cells, *n_cells + 1, alloc_cells);
		c = &(*cells)[(*n_cells)++];
		c->row = (size_t)r;
		c->seq = seq++;
		c->name = arena_strdup(a, (const char *)sqlite3_column_text(q, 1));
		table_format_real(sqlite3_column_double(q, 2), c->value, sizeof(c->value));
	}
	sqlite3_finalize(q);
	free(pairs);
	if (rc != SQLITE_DONE)
		return db_error(st, "cannot read the level energies", err);
	if (*n_cells)
		qsort(*cells, *n_cells, sizeof(**cells), cmp_level_cell);
	for (i = 0; i < *n_cells; i++) {
		for (k = 0; k < *n_names && strcmp((*names)[k], (*cells)[i].name); k++)
			;
		if (k == *n_names) {
			XGROW(*names, *n_names + 1, alloc_names);
			(*names)[(*n_names)++] = (*cells)[i].name;
		}
	}
	return 0;
}

/*
 * Make 'out' from the gathered table: its columns up to 'n_before' (head,
 * inputs, metrics), the level columns (LEVEL_METRIC.NAME), then the rest
 * (the tail).
 */
static void assemble(const struct gathered *g, size_t n_before, const char *level_metric,
		     struct level_cell *cells, size_t n_cells, const char *const *lnames,
		     size_t n_lnames, struct table *out)
{
	struct strbuf name = STRBUF_INIT;
	size_t r, c, k;

	for (c = 0; c < n_before; c++)
		table_add_col(out, g->t.cols[c]);
	for (k = 0; k < n_lnames; k++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s.%s", level_metric, lnames[k]);
		table_add_col(out, name.buf);
	}
	for (c = n_before; c < g->t.n_cols; c++)
		table_add_col(out, g->t.cols[c]);
	for (r = 0; r < g->t.n_rows; r++) {
		table_add_row(out);
		for (c = 0; c < g->t.n_cols; c++) {
			struct table_cell cell = table_get(&g->t, r, c);
			table_set(out, r, c < n_before ? c : c + n_lnames, cell.type, cell.text);
		}
	}
	for (k = 0; k < n_cells; k++) {
		size_t j;
		for (j = 0; j < n_lnames && strcmp(lnames[j], cells[k].name); j++)
			;
		table_set(out, cells[k].row, n_before + j, TABLE_REAL, cells[k].value);
	}
	strbuf_release(&name);
}

int store_query(struct store *st, const struct store_cond *w, size_t n_w, struct table *out,
		struct strbuf *err)
{
	struct gathered g = { TABLE_INIT, NULL, 0, 0 };
	struct arena a = ARENA_INIT;
	struct level_cell *cells = NULL;
	const char **lnames = NULL, **names = NULL;
	size_t n_cols, n_names = 0, n_cells = 0, n_lnames = 0, n_before, i;
	char **cols;
	int rc = -1;

	if (points_columns(st, &cols, &n_cols, err) < 0)
		return -1;
	if (check_conds(st, w, n_w, cols, n_cols, err) < 0)
		goto out;
	if (read_metric_columns(st, err) < 0)
		goto out;
	names = xcalloc(n_cols + ARRAY_SIZE(head_cols) + 1 + st->schema->n_metrics +
			ARRAY_SIZE(tail_cols), sizeof(*names));
	for (i = 0; i < ARRAY_SIZE(head_cols); i++)
		names[n_names++] = head_cols[i];
	for (i = 0; i < n_cols; i++)
		if (!is_point_col(st, cols[i]))
			names[n_names++] = cols[i];
	names[n_names++] = "status";
	for (i = 0; i < st->schema->n_metrics; i++)
		if (st->has_metric[i])
			names[n_names++] = st->schema->metrics[i].name;
	n_before = n_names;
	for (i = 0; i < ARRAY_SIZE(tail_cols); i++)
		names[n_names++] = tail_cols[i];
	if (gather_points(st, w, n_w, names, n_names, &g, err) < 0 ||
	    gather_levels(st, &g, &a, &cells, &n_cells, &lnames, &n_lnames, err) < 0)
		goto out;
	assemble(&g, n_before, st->schema->level_metric, cells, n_cells, lnames, n_lnames, out);
	rc = 0;
out:
	free(names);
	free(cells);
	free(lnames);
	free(g.ids);
	table_release(&g.t);
	arena_release(&a);
	free_columns(cols, n_cols);
	return rc;
}
