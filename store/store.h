/*
 * store: the results database of sweeps, batches and networks, in SQLite
 * (the only module that includes <sqlite3.h>, as only specs/ includes
 * <yaml.h>). One row per point or job, with its inputs (the run's input
 * columns, the overrides, the design's hash), its metrics and its status
 * and error text; per-level energies in a table of their own. The metric
 * columns are the caller's (a struct store_schema: job/'s vocabulary); store/
 * knows no metric by name. A database
 * is in WAL mode and every store_put() is one committed transaction, so a
 * process killed at any moment loses no row that store_put() returned for.
 * The schema is versioned (STORE_SCHEMA_VERSION) and documented in
 * docs/sweep.md. Errors come back as text for the caller to print.
 */
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct table;

/* The schema this code writes and reads (the 'schema_version' of table 'meta'). */
#define STORE_SCHEMA_VERSION 1

enum store_mode {
	STORE_WRITE,   /* create the database if missing; it must be writable */
	STORE_READ,    /* an existing database, only read (opened read-write when the file
			  allows, so that the last user to close it removes the WAL files) */
};

/* A run: one sweep, batch or network invocation; rows belong to the run that wrote them. */
struct store_run_def {
	const char *key;               /* identity: the same key is the same run (resume) */
	const char *kind;              /* "sweep", "batch", "network" */
	const char *definition;        /* what was run, for people (the command line) */
	uint64_t n_points;
	size_t n_inputs;
	const char *const *inputs;     /* the run's input columns (sweep axes), in order */
};

/* One storage level's energy. */
struct store_level {
	const char *name;
	double energy_pj;
};

enum store_type { STORE_INTEGER, STORE_REAL, STORE_TEXT };

/* A metric column of the table of points. */
struct store_metric {
	const char *name;
	enum store_type type;
	bool always;                   /* a column of every database (made with it); else
					  added when a row first has a value for it */
};

/*
 * The metric columns a database has or may get, in the order queries list
 * them, and the name of the per-level metric ("energy_pj": queries name
 * the level columns energy_pj.LEVEL).
 */
struct store_schema {
	const struct store_metric *metrics;
	size_t n_metrics;
	const char *level_metric;
};

/* A metric's value in a row: the field of its column's type; NULL: SQL NULL. */
struct store_value {
	bool is_null;
	uint64_t integer;
	double real;
	const char *text;
};

/* One finished point or job. Strings are borrowed; NULL is SQL NULL. */
struct store_row {
	const char *key;               /* the point key (unique in the database) */
	uint64_t idx;                  /* index in its run: rows are listed in this order */
	const char *kind;              /* "point", "job", "network", "layer" */
	const char *name, *parent, *tags;
	const char *command;           /* "model", "map", ... */
	const char *design_hash;
	const char *overrides;         /* every override of the point, one "PATH=VALUE" a line */
	const char *const *inputs;     /* values of the run's input columns (NULL: none) */
	const char *status;            /* "ok", "bad-input", ... */
	const char *error;             /* why, when not ok */
	const struct store_value *metrics;   /* one per metric of the schema; NULL: all null */
	const char *mapping;
	unsigned n_levels;             /* storage levels, 0 = innermost */
	const struct store_level *levels;
};

/* A filter of store_query(): COLUMN OP VALUE. */
enum store_op { STORE_EQ, STORE_NE, STORE_LT, STORE_LE, STORE_GT, STORE_GE, STORE_LIKE,
		STORE_OP_COUNT };

struct store_cond {
	const char *column;
	enum store_op op;
	const char *value;             /* a number compares as a number, other text as text */
};

struct store;

/*
 * Open the database 'path' with the metric columns of 'schema' (borrowed
 * until store_close()). STORE_WRITE creates it (with the schema's 'always'
 * metrics) when missing, switches it to WAL mode and checks that it can be
 * written; STORE_READ opens an existing one read-only. A file that is not
 * a fiberloop database, or one of another schema version, is refused.
 * Returns the handle, or NULL with 'err' filled ("PATH: why").
 */
struct store *store_open(const char *path, enum store_mode mode,
			 const struct store_schema *schema, struct strbuf *err);

/*
 * Register the run 'def' (or find it, when its key is known) and make it
 * the run that store_put() writes to; its input columns are added to the
 * table of points when missing. An input named like a result column is
 * refused. Returns 0, or -1 with 'err' filled.
 */
int store_begin_run(struct store *st, const struct store_run_def *def, struct strbuf *err);

/* '*any': the database has a point (of any run). Returns 0 or -1 + 'err'. */
int store_has_points(struct store *st, bool *any, struct strbuf *err);

/*
 * '*has': a point of key 'key' is in the database (one look-up on the key's
 * index: a resumed run keeps no set of the keys). Not reentrant: one thread
 * at a time uses a store. Returns 0 or -1 + 'err'.
 */
int store_has_key(struct store *st, const char *key, bool *has, struct strbuf *err);

/*
 * Write rows[0..n) to the current run in one committed transaction (the
 * columns of metrics they are the first to have added before it). A row
 * whose key is already there is left as it is (never duplicated). Returns
 * 0, or -1 with 'err' filled (a full disk, a read-only file: nothing of
 * this call is written).
 */
int store_put(struct store *st, const struct store_row *rows, size_t n, struct strbuf *err);

/*
 * Every row matching all of w[0..n_w) into 'out' (released by the caller),
 * ordered by run and index: the columns are run, idx, kind, name, the
 * input columns, status, the metrics the database has (the schema's order),
 * one "METRIC.LEVEL" column per level name (outermost first; METRIC is the
 * schema's level_metric), error, mapping, tags, parent, command,
 * design_hash, overrides and key. An unknown column in a condition is an
 * error with a hint. Returns 0, or -1 with 'err' filled.
 */
int store_query(struct store *st, const struct store_cond *w, size_t n_w, struct table *out,
		struct strbuf *err);

/* Close the database. store_close(NULL) is a no-op. */
void store_close(struct store *st);

/* "=", "!=", "<", "<=", ">", ">=", "~" (SQL LIKE). */
const char *store_op_name(enum store_op op);

#endif
