/*
 * Whole-file input and output (fileio_*), and output that never leaves a
 * half-written file behind (struct atomic_file).
 *
 * An output to a regular file (or to a path that does not exist yet) is
 * written to a temporary file in the same directory, synced to the disk and
 * renamed over 'path' only when everything was written; on failure the
 * temporary is removed and 'path' keeps what it held. On Linux the
 * temporary has no name until it is complete (O_TMPFILE), so even a process
 * killed while writing (SIGKILL) leaves no file behind; elsewhere it is
 * "<path>.tmp.<pid>". An output to something else (a device such as
 * /dev/null, a FIFO, a symlink, or "-" for standard output) is written
 * through it, never replaced. Errors are returned as text for cli/ to print.
 */
#ifndef UTIL_FILEIO_H
#define UTIL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf;

struct atomic_file {
	FILE *fp;         /* write here */
	char *path;       /* final name */
	char *tmp;        /* the named temporary; NULL when unnamed or writing through */
	bool is_unnamed;  /* an O_TMPFILE temporary, linked in at commit */
	bool is_through;  /* writing through 'path' itself */
};

/*
 * Open a temporary beside 'path' (or 'path' itself when it is not a regular
 * file, see above). Returns 0, or -1 with 'err' filled.
 */
int atomic_file_open(struct atomic_file *af, const char *path, struct strbuf *err);

/* Flush, close and rename into place. Returns 0, or -1 with 'err' filled
 * (the temporary is removed). */
int atomic_file_commit(struct atomic_file *af, struct strbuf *err);

/* Close and remove the temporary without touching 'path'. */
void atomic_file_abort(struct atomic_file *af);

/* Write 'len' bytes of 'data' to 'path' atomically. Returns 0 or -1 + 'err'. */
int fileio_write_atomic(const char *path, const void *data, size_t len, struct strbuf *err);

/*
 * Write 'n' buffers into directory 'dir' (created if missing) as
 * dir/names[i]. Every file is written in full to a temporary before any is
 * renamed into place, so a write error replaces nothing. Returns 0, or -1
 * with 'err' filled.
 */
int fileio_write_files_atomic(const char *dir, const char *const *names,
			      const struct strbuf *const *bufs, size_t n, struct strbuf *err);

/*
 * The largest input fileio_read() takes, in bytes (docs/yaml-reference.md
 * section 1): a regular file larger than FILEIO_MAX_READ_BYTES is refused
 * from its size, before it is read; any other input (a FIFO, a pipe,
 * /dev/zero), whose size is not known before, once it has given more than
 * FILEIO_MAX_STREAM_BYTES.
 */
#define FILEIO_MAX_READ_BYTES ((size_t)256 << 20)
#define FILEIO_MAX_STREAM_BYTES ((size_t)64 << 20)

/*
 * Read the whole file into 'out', within the limits above. Returns 0, or
 * -1 with 'err' filled.
 */
int fileio_read(const char *path, struct strbuf *out, struct strbuf *err);

/*
 * fileio_read() with a limit of 'max' bytes for a regular file, and of the
 * smaller of 'max' and FILEIO_MAX_STREAM_BYTES for anything else.
 */
int fileio_read_max(const char *path, size_t max, struct strbuf *out, struct strbuf *err);

/*
 * Create 'path' as an empty file (mode 0644 less the umask) unless something
 * is there already: true when this call made it, so that of several
 * processes creating it at once exactly one learns it did (O_EXCL).
 */
bool fileio_create_new(const char *path);

/*
 * Create directory 'path' (and parents) if missing. Returns 0 or -1 + 'err'
 * (also for an empty 'path', and when 'path' or a parent is not a directory).
 */
int fileio_make_dirs(const char *path, struct strbuf *err);

#endif
