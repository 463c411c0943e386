#define _GNU_SOURCE                     /* O_TMPFILE */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* True when 'path' exists and is not a regular file (device, FIFO, symlink, ...). */
static bool write_through(const char *path)
{
	struct stat st;
	return !strcmp(path, "-") || (lstat(path, &st) == 0 && !S_ISREG(st.st_mode));
}

/* 'af' empty, nothing open. */
static void atomic_file_clear(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	af->fp = NULL;
	af->path = af->tmp = NULL;
	af->is_through = af->is_unnamed = false;
}

/* "cannot write 'path': why" into 'err' (errno 'e'); returns -1. */
static int write_error(struct strbuf *err, const char *path, int e)
{
	strbuf_addf(err, "cannot write '%s': %s", path, e ? strerror(e) : "write error");
	return -1;
}

/* Open 'path' itself for writing ("-": standard output). */
static int open_through(struct atomic_file *af, const char *path, struct strbuf *err)
{
	af->fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!af->fp)
		return write_error(err, path, errno);
	af->path = xstrdup(path);
	af->is_through = true;
	return 0;
}

/* The directory of 'path' ("." for a bare name), owned by the caller. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	dir = xmalloc((size_t)(slash - path) + 1);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return dir;
}

/*
 * Open an unnamed temporary file in the directory of 'path' (Linux's
 * O_TMPFILE): until atomic_file_commit() links it in, it has no name, so a
 * process killed while writing leaves nothing behind. Returns 1 when open,
 * 0 when the system or the file system cannot make one (the caller then
 * uses a named temporary), -1 with 'err' filled when the directory cannot
 * be written.
 */
static int open_unnamed(struct atomic_file *af, const char *path, struct strbuf *err)
{
#ifdef O_TMPFILE
	char *dir = dir_of(path);
	int fd, e;

	if (access("/proc/self/fd", X_OK) != 0) {   /* linked in through /proc at commit */
		free(dir);
		return 0;
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	e = errno;
	free(dir);
	if (fd < 0) {
		/* EISDIR: a kernel without O_TMPFILE; EOPNOTSUPP: a file system without */
		if (e == EISDIR || e == EOPNOTSUPP || e == EINVAL)
			return 0;
		return write_error(err, path, e);
	}
	af->fp = fdopen(fd, "w");
	if (!af->fp)
		BUG("fdopen of a new file failed: %s", strerror(errno));
	af->path = xstrdup(path);
	af->is_unnamed = true;
	return 1;
#else
	(void)af, (void)path, (void)err;
	return 0;
#endif
}

/* Open the named temporary "<path>.tmp.<pid>" beside 'path'. */
static int open_named(struct atomic_file *af, const char *path, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;

	strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	af->fp = fopen(tmp.buf, "w");
	if (!af->fp) {
		strbuf_release(&tmp);
		return write_error(err, path, errno);
	}
	af->path = xstrdup(path);
	af->tmp = strbuf_detach(&tmp, NULL);
	return 0;
}

int atomic_file_open(struct atomic_file *af, const char *path, struct strbuf *err)
{
	int rc;

	af->fp = NULL;
	af->path = af->tmp = NULL;
	af->is_through = af->is_unnamed = false;
	if (!*path) {
		strbuf_addstr(err, "cannot write '': the file name is empty");
		return -1;
	}
	if (write_through(path))
		return open_through(af, path, err);
	rc = open_unnamed(af, path, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	return open_named(af, path, err);
}

/*
 * Flush what 'af' holds to its file and, for a temporary, sync it to the
 * disk, so that the name never points to a file whose data a crash could
 * lose. Returns 0, or -1 with 'err' filled (a full disk shows here).
 */
static int finish(struct atomic_file *af, struct strbuf *err)
{
	if (fflush(af->fp) != 0)
		return write_error(err, af->path, errno);
	if (ferror(af->fp))                     /* an earlier write failed; its errno is gone */
		return write_error(err, af->path, 0);
	if (!af->is_through && fsync(fileno(af->fp)) != 0 && errno != EINVAL)
		return write_error(err, af->path, errno);   /* EINVAL: a file system without sync */
	return 0;
}

/*
 * Give the unnamed temporary of 'af' its name: linked in as 'path' when
 * there is none, else linked as "<path>.tmp.<pid>" and renamed over it.
 * Returns 0, or -1 with 'err' filled.
 */
static int link_unnamed(struct atomic_file *af, struct strbuf *err)
{
	char proc[64];
	struct strbuf tmp = STRBUF_INIT;
	int rc = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(af->fp));
	if (linkat(AT_FDCWD, proc, AT_FDCWD, af->path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != EEXIST)
		return write_error(err, af->path, errno);
	strbuf_addf(&tmp, "%s.tmp.%ld", af->path, (long)getpid());
	unlink(tmp.buf);                 /* left by a process of the same id that was killed */
	if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp.buf, AT_SYMLINK_FOLLOW) != 0) {
		rc = write_error(err, af->path, errno);
	} else if (rename(tmp.buf, af->path) != 0) {
		strbuf_addf(err, "cannot rename '%s' to '%s': %s", tmp.buf, af->path,
			    strerror(errno));
		unlink(tmp.buf);
		rc = -1;
	}
	strbuf_release(&tmp);
	return rc;
}

/*
 * Put the finished file of 'af' in place (link or rename its temporary
 * over 'path') and close it; standard output stays open. Returns 0, or -1
 * with 'err' filled (a temporary is removed).
 */
static int publish(struct atomic_file *af, struct strbuf *err)
{
	int rc = 0;

	if (af->is_unnamed)
		rc = link_unnamed(af, err);     /* while its descriptor is open */
	if (af->fp != stdout && fclose(af->fp) != 0 && rc == 0)
		rc = write_error(err, af->path, errno);
	if (rc == 0 && af->tmp && rename(af->tmp, af->path) != 0) {
		strbuf_addf(err, "cannot rename '%s' to '%s': %s", af->tmp, af->path,
			    strerror(errno));
		rc = -1;
	}
	if (rc < 0 && af->tmp)
		remove(af->tmp);
	atomic_file_clear(af);
	return rc;
}

int atomic_file_commit(struct atomic_file *af, struct strbuf *err)
{
	if (finish(af, err) < 0) {
		atomic_file_abort(af);
		return -1;
	}
	return publish(af, err);
}

void atomic_file_abort(struct atomic_file *af)
{
	if (!af->fp)
		return;
	if (af->fp != stdout)
		fclose(af->fp);
	if (af->tmp)
		remove(af->tmp);
	atomic_file_clear(af);
}

/* True when 'path' is a directory or a symlink to one. */
static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Create directory 'path' and its missing parents. '*n_kept' is set to the
 * length of the longest prefix of 'path' that was there before (strlen(path)
 * when nothing was created). Returns 0, or -1 with 'err' filled (the
 * directories created are left for the caller to remove).
 */
static int make_dirs(const char *path, size_t *n_kept, struct strbuf *err)
{
	char *p, *s;
	int rc = 0;

	*n_kept = strlen(path);
	if (!*path) {
		strbuf_addstr(err, "cannot create directory '': the name is empty");
		return -1;
	}
	p = xstrdup(path);
	for (s = p + 1; ; s++) {
		char c = *s;
		if (c == '/' || c == '\0') {
			*s = '\0';
			if (mkdir(p, 0777) == 0) {
				if (*n_kept == strlen(path)) {
					char *up = strrchr(p, '/');
					*n_kept = up ? (size_t)(up - p) : 0;
				}
			} else if (errno != EEXIST || (!c && !is_dir(p))) {  /* a parent: next mkdir() */
				strbuf_addf(err, "cannot create directory '%s': %s", p,
					    strerror(errno == EEXIST ? ENOTDIR : errno));
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return rc;
}

/* Remove the directories of 'path' past its first 'n_kept' bytes (make_dirs() made them). */
static void remove_made_dirs(const char *path, size_t n_kept)
{
	char *p = xstrdup(path), *up;
	size_t len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	while (len > n_kept && rmdir(p) == 0 && (up = strrchr(p, '/')) != NULL) {
		*up = '\0';
		len = (size_t)(up - p);
	}
	free(p);
}

int fileio_make_dirs(const char *path, struct strbuf *err)
{
	size_t n_kept;
	return make_dirs(path, &n_kept, err);
}

int fileio_write_atomic(const char *path, const void *data, size_t len, struct strbuf *err)
{
	struct atomic_file af;
	if (atomic_file_open(&af, path, err) < 0)
		return -1;
	if (len && fwrite(data, 1, len, af.fp) != len) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		atomic_file_abort(&af);
		return -1;
	}
	return atomic_file_commit(&af, err);
}

int fileio_write_files_atomic(const char *dir, const char *const *names,
			      const struct strbuf *const *bufs, size_t n, struct strbuf *err)
{
	struct atomic_file *af = xcalloc(n, sizeof(*af));
	struct strbuf path = STRBUF_INIT;
	size_t i, n_open = 0, n_kept;
	int rc = -1;

	if (make_dirs(dir, &n_kept, err) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, names[i]);
		if (atomic_file_open(&af[i], path.buf, err) < 0)
			goto out;
		n_open++;
		if (bufs[i]->len && fwrite(bufs[i]->buf, 1, bufs[i]->len, af[i].fp) != bufs[i]->len) {
			write_error(err, path.buf, errno);
			goto out;
		}
	}
	for (i = 0; i < n; i++)          /* every file complete before any is replaced */
		if (finish(&af[i], err) < 0)
			goto out;
	for (i = 0; i < n; i++)
		if (publish(&af[i], err) < 0)
			goto out;
	rc = 0;
out:
	for (i = 0; i < n_open; i++)
		atomic_file_abort(&af[i]); /* no-op for published files */
	if (rc < 0)
		remove_made_dirs(dir, n_kept);
	strbuf_release(&path);
	free(af);
	return rc;
}

/* The error of an input larger than 'max' bytes ('stream': not a regular file); returns -1. */
static int too_large(const char *path, size_t max, bool stream, struct strbuf *err)
{
	const char *what = stream ? "an input that is not a regular file" : "an input file";

	if (max >= (1 << 20) && max % (1 << 20) == 0)
		strbuf_addf(err, "'%s' is larger than %zu MiB, the limit of %s", path, max >> 20,
			    what);
	else
		strbuf_addf(err, "'%s' is larger than %zu bytes, the limit of %s", path, max, what);
	return -1;
}

bool fileio_create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int fileio_read(const char *path, struct strbuf *out, struct strbuf *err)
{
	return fileio_read_max(path, FILEIO_MAX_READ_BYTES, out, err);
}

int fileio_read_max(const char *path, size_t max, struct strbuf *out, struct strbuf *err)
{
	size_t n, start = out->len, chunk = 65536;
	struct stat sb;
	bool stream;
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	stream = fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode);
	if (!stream && (uint64_t)sb.st_size > max) {
		fclose(fp);
		return too_large(path, max, false, err);
	}
	if (stream && max > FILEIO_MAX_STREAM_BYTES)
		max = FILEIO_MAX_STREAM_BYTES;
	for (;;) {                          /* read straight into 'out', in growing chunks */
		strbuf_grow(out, chunk);
		n = fread(out->buf + out->len, 1, chunk, fp);
		if (n == 0)
			break;
		out->len += n;
		out->buf[out->len] = '\0';
		if (out->len - start > max) {
			fclose(fp);
			strbuf_setlen(out, start);
			return too_large(path, max, stream, err);
		}
		if (chunk < ((size_t)16 << 20))
			chunk *= 2;
	}
	if (ferror(fp)) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return 0;
}
