#include "util/fileio.h"

#include <errno.h>
#include <stdbool.h>
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

/* Open 'path' itself for writing ("-": standard output). */
static int open_through(struct atomic_file *af, const char *path, struct strbuf *err)
{
	af->tmp = NULL;
	af->fp = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!af->fp) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		af->path = NULL;
		return -1;
	}
	af->path = xstrdup(path);
	return 0;
}

int atomic_file_open(struct atomic_file *af, const char *path, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;

	if (!*path) {
		strbuf_addstr(err, "cannot write '': the file name is empty");
		af->fp = NULL;
		af->path = af->tmp = NULL;
		return -1;
	}
	if (write_through(path))
		return open_through(af, path, err);
	strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	af->fp = fopen(tmp.buf, "w");
	if (!af->fp) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		strbuf_release(&tmp);
		af->path = af->tmp = NULL;
		return -1;
	}
	af->path = xstrdup(path);
	af->tmp = strbuf_detach(&tmp, NULL);
	return 0;
}

static void atomic_file_clear(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	af->fp = NULL;
	af->path = af->tmp = NULL;
}

/* Flush and close a file written through its path (standard output stays open). */
static int commit_through(struct atomic_file *af, struct strbuf *err)
{
	int bad = fflush(af->fp) != 0 || ferror(af->fp);
	if (af->fp != stdout && fclose(af->fp) != 0)
		bad = 1;
	if (bad)
		strbuf_addf(err, "cannot write '%s': %s", af->path, strerror(errno));
	atomic_file_clear(af);
	return bad ? -1 : 0;
}

int atomic_file_commit(struct atomic_file *af, struct strbuf *err)
{
	int bad;

	if (!af->tmp)
		return commit_through(af, err);
	bad = ferror(af->fp);
	if (fclose(af->fp) != 0 || bad) {
		strbuf_addf(err, "cannot write '%s': %s", af->path,
			    bad ? "write error" : strerror(errno));
		remove(af->tmp);
		atomic_file_clear(af);
		return -1;
	}
	if (rename(af->tmp, af->path) != 0) {
		strbuf_addf(err, "cannot rename '%s' to '%s': %s", af->tmp, af->path,
			    strerror(errno));
		remove(af->tmp);
		atomic_file_clear(af);
		return -1;
	}
	atomic_file_clear(af);
	return 0;
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
	size_t i, n_open = 0;
	int rc = -1;

	if (fileio_make_dirs(dir, err) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, names[i]);
		if (atomic_file_open(&af[i], path.buf, err) < 0)
			goto out;
		n_open++;
		if (bufs[i]->len && fwrite(bufs[i]->buf, 1, bufs[i]->len, af[i].fp) != bufs[i]->len) {
			strbuf_addf(err, "cannot write '%s': %s", path.buf, strerror(errno));
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		if (atomic_file_commit(&af[i], err) < 0)
			goto out;
	rc = 0;
out:
	for (i = 0; i < n_open; i++)
		atomic_file_abort(&af[i]); /* no-op for committed files */
	strbuf_release(&path);
	free(af);
	return rc;
}

int fileio_read(const char *path, struct strbuf *out, struct strbuf *err)
{
	char buf[65536];
	size_t n;
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(out, buf, n);
	if (ferror(fp)) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return 0;
}

int fileio_make_dirs(const char *path, struct strbuf *err)
{
	char *p, *s;
	int rc = 0;

	if (!*path) {
		strbuf_addstr(err, "cannot create directory '': the name is empty");
		return -1;
	}
	p = xstrdup(path);
	for (s = p + 1; ; s++) {
		char c = *s;
		if (c == '/' || c == '\0') {
			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				strbuf_addf(err, "cannot create directory '%s': %s", p,
					    strerror(errno));
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
