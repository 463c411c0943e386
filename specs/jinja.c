/*
 * The fiberloop-jinja helper process: found, started on first use, and
 * spoken to in the field protocol its script describes. A socket pair
 * carries the requests (sent with MSG_NOSIGNAL, so a helper that died is an
 * error, not a SIGPIPE); its standard error goes to /dev/null. A helper
 * takes one request at a time (a mutex), so threads may share one; the
 * process has one shared helper for the loads that name none, so that a
 * run starts Python (and whatever stands for 'python3' on the PATH, such
 * as a pyenv shim) once, however many templates it renders.
 */
#include "specs/template_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/xalloc.h"

#ifndef FIBERLOOP_PKGDATADIR
#define FIBERLOOP_PKGDATADIR "/usr/local/share/fiberloop"
#endif

#define JINJA_PROTOCOL 1
#define JINJA_SCRIPT "fiberloop-jinja.py"
#define JINJA_INSTALL_HINT "templates need Python 3 with Jinja2 (on Debian: apt-get install " \
	"python3-jinja2)"

/*
 * What a reply may hold. A template runs Python and can write to the
 * helper's standard output, so a reply is checked like any input: a header
 * line is short, a field is at most an input file's size, and a reply at
 * most two of those.
 */
#define JINJA_MAX_LINE 4096
#define JINJA_MAX_FIELD FILEIO_MAX_READ_BYTES
#define JINJA_MAX_REPLY (2 * FILEIO_MAX_READ_BYTES)

extern char **environ;

struct spec_jinja {
	pthread_mutex_t mu;            /* held for a whole request and its reply */
	char *python;                  /* the interpreter (searched in PATH without a '/') */
	char *script;                  /* the helper script */
	pid_t pid;                     /* 0: not running */
	int fd;                        /* our end of the socket; -1 when closed */
	char *broken;                  /* why it cannot run, once known */
	char buf[65536];               /* input buffer */
	size_t buf_pos, buf_len;
};

/* True when 'path' names a readable file. */
static bool readable(const char *path)
{
	return path && access(path, R_OK) == 0;
}

/* The helper script: explicit, $FIBERLOOP_JINJA_HELPER, installed, then the source tree's. */
static char *find_script(const char *script)
{
	const char *env = getenv("FIBERLOOP_JINJA_HELPER");
#ifdef FIBERLOOP_SRCDIR
	const char *src = FIBERLOOP_SRCDIR "/specs/" JINJA_SCRIPT;
#else
	const char *src = NULL;
#endif
	const char *installed = FIBERLOOP_PKGDATADIR "/" JINJA_SCRIPT;

	if (script)
		return xstrdup(script);
	if (env && *env)
		return xstrdup(env);
	if (readable(installed) || !readable(src))
		return xstrdup(installed);
	return xstrdup(src);
}

struct spec_jinja *spec_jinja_new(const char *python, const char *script)
{
	struct spec_jinja *j = xcalloc(1, sizeof(*j));
	const char *env = getenv("FIBERLOOP_PYTHON");

	pthread_mutex_init(&j->mu, NULL);
	j->python = xstrdup(python ? python : env && *env ? env : "python3");
	j->script = find_script(script);
	j->fd = -1;
	return j;
}

static struct spec_jinja *shared_jinja;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

/* At exit: stop the shared helper (it ends at the end of its input) and wait for it. */
static void shared_stop(void)
{
	spec_jinja_free(shared_jinja);
	shared_jinja = NULL;
}

static void shared_init(void)
{
	shared_jinja = spec_jinja_new(NULL, NULL);
	atexit(shared_stop);
}

struct spec_jinja *spec_jinja_shared(void)
{
	pthread_once(&shared_once, shared_init);
	return shared_jinja;
}

/* Remember why the helper cannot run (the first reason wins); returns -1. */
static int broken(struct spec_jinja *j, struct strbuf *why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int broken(struct spec_jinja *j, struct strbuf *why, const char *fmt, ...)
{
	if (!j->broken) {
		struct strbuf sb = STRBUF_INIT;
		va_list ap;
		va_start(ap, fmt);
		strbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
		j->broken = strbuf_detach(&sb, NULL);
	}
	strbuf_addstr(why, j->broken);
	return -1;
}

/* Close the socket and reap the process. */
static void stop(struct spec_jinja *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (j->pid > 0) {
		int status;
		while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	j->pid = 0;
	j->buf_pos = j->buf_len = 0;
}

/* Fill the input buffer; false at the end of input or on an error. */
static bool fill(struct spec_jinja *j)
{
	ssize_t n;
	if (j->buf_pos < j->buf_len)
		return true;
	do
		n = recv(j->fd, j->buf, sizeof(j->buf), 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return false;
	j->buf_pos = 0;
	j->buf_len = (size_t)n;
	return true;
}

/* Read one line (without its '\n') into 'sb'; false at the end of input or past JINJA_MAX_LINE. */
static bool read_line(struct spec_jinja *j, struct strbuf *sb)
{
	strbuf_reset(sb);
	for (;;) {
		char c;
		if (!fill(j) || sb->len >= JINJA_MAX_LINE)
			return false;
		c = j->buf[j->buf_pos++];
		if (c == '\n')
			return true;
		strbuf_addch(sb, c);
	}
}

/* Read exactly 'n' bytes into 'sb'. */
static bool read_bytes(struct spec_jinja *j, size_t n, struct strbuf *sb)
{
	strbuf_reset(sb);
	while (n > 0) {
		size_t take;
		if (!fill(j))
			return false;
		take = j->buf_len - j->buf_pos < n ? j->buf_len - j->buf_pos : n;
		strbuf_add(sb, j->buf + j->buf_pos, take);
		j->buf_pos += take;
		n -= take;
	}
	return true;
}

/* Start the process and read its greeting; 0, or -1 with 'why'. */
static int start(struct spec_jinja *j, struct strbuf *why)
{
	posix_spawn_file_actions_t fa;
	char *argv[3];
	struct strbuf line = STRBUF_INIT;
	int sv[2], rc;

	if (j->broken)
		return broken(j, why, "%s", j->broken);
	if (!readable(j->script))
		return broken(j, why, "the helper script '%s' is missing (set FIBERLOOP_JINJA_HELPER "
			      "to its path)", j->script);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return broken(j, why, "cannot make a socket for the Jinja2 helper: %s",
			      strerror(errno));
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, sv[1]);
	argv[0] = j->python;
	argv[1] = j->script;
	argv[2] = NULL;
	rc = posix_spawnp(&j->pid, j->python, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		j->pid = 0;
		return broken(j, why, "cannot run '%s' (%s); %s", j->python, strerror(rc),
			      JINJA_INSTALL_HINT);
	}
	j->fd = sv[0];
	if (!read_line(j, &line)) {
		stop(j);
		strbuf_release(&line);
		return broken(j, why, "'%s %s' exited without answering; %s", j->python, j->script,
			      JINJA_INSTALL_HINT);
	}
	if (!strncmp(line.buf, "nojinja ", 8)) {
		stop(j);
		rc = broken(j, why, "'%s' has no Jinja2 module (%s); %s", j->python, line.buf + 8,
			    JINJA_INSTALL_HINT);
		strbuf_release(&line);
		return rc;
	}
	if (strncmp(line.buf, "fiberloop-jinja ", 16) || atoi(line.buf + 16) != JINJA_PROTOCOL) {
		stop(j);
		rc = broken(j, why, "'%s' is not a fiberloop-jinja helper of protocol %d (it said "
			    "'%.60s')", j->script, JINJA_PROTOCOL, line.buf);
		strbuf_release(&line);
		return rc;
	}
	strbuf_release(&line);
	return 0;
}

/* Append the field KEY VALUE to 'sb'. */
static void add_field(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_addf(sb, "%s %zu\n", key, strlen(value));
	strbuf_addstr(sb, value);
	strbuf_addch(sb, '\n');
}

/* Send all of 'sb'; false if the helper is gone. */
static bool send_all(struct spec_jinja *j, const struct strbuf *sb)
{
	size_t off = 0;
	while (off < sb->len) {
		ssize_t n = send(j->fd, sb->buf + off, sb->len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		off += (size_t)n;
	}
	return true;
}

/*
 * Read one field of a reply of which '*budget' bytes may still come.
 * Returns 1, 0 at the end of input or a malformed header, or -1 (with 'why')
 * when the field is longer than a field or the reply may be.
 */
static int read_field(struct spec_jinja *j, struct strbuf *key, struct strbuf *value,
		      uint64_t *budget, struct strbuf *why)
{
	struct strbuf nl = STRBUF_INIT;
	char *sp, *end;
	unsigned long long n;
	bool ok;

	if (!read_line(j, key))
		return 0;
	sp = strchr(key->buf, ' ');
	if (!sp || !isdigit((unsigned char)sp[1]))
		return 0;
	errno = 0;
	n = strtoull(sp + 1, &end, 10);
	if (*end || errno == ERANGE)
		return 0;
	strbuf_setlen(key, (size_t)(sp - key->buf));
	if (n > JINJA_MAX_FIELD || n + key->len + 2 > *budget) {
		strbuf_addf(why, "the Jinja2 helper '%s' announced a '%.40s' field of %llu bytes, "
			    "more than a reply may hold (%zu MiB a field, %zu MiB in all)",
			    j->script, key->buf, n, (size_t)JINJA_MAX_FIELD >> 20,
			    (size_t)JINJA_MAX_REPLY >> 20);
		return -1;
	}
	*budget -= n + key->len + 2;
	ok = read_bytes(j, (size_t)n, value) && read_bytes(j, 1, &nl) && nl.buf[0] == '\n';
	strbuf_release(&nl);
	return ok;
}

/* The number of lines the helper splits 'text' into (Python's text.split("\n")). */
static size_t text_lines(const struct strbuf *text)
{
	size_t i, n = 1;
	for (i = 0; i < text->len; i++)
		n += text->buf[i] == '\n';
	return n;
}

static char **push_str(char **v, size_t *n, const char *s)
{
	v = xrealloc(v, (*n + 1) * sizeof(*v));
	v[(*n)++] = xstrdup(s);
	return v;
}

/*
 * The runs "OUT COUNT FILE SRC" of a 'map' field into per-line arrays. The
 * runs must lie within the lines of the text received before (a forged
 * "1 4000000000 0 1" would otherwise allocate gigabytes).
 */
static bool parse_map(struct jinja_result *res, const char *text)
{
	const char *s = text;
	size_t n_text = res->has_text ? text_lines(&res->text) : 0;

	while (*s) {
		unsigned long out, count, file, src, k;
		char *end;
		if (!isdigit((unsigned char)*s))
			return false;
		out = strtoul(s, &end, 10);
		count = strtoul(end, &end, 10);
		file = strtoul(end, &end, 10);
		src = strtoul(end, &end, 10);
		if (*end != '\n' || out == 0 || file >= res->n_files || out > n_text ||
		    count > n_text - (out - 1))
			return false;
		s = end + 1;
		if (out - 1 + count > res->n_lines) {
			size_t n = out - 1 + count;
			res->line_file = xrealloc(res->line_file, n * sizeof(unsigned));
			res->line_src = xrealloc(res->line_src, n * sizeof(unsigned));
			for (k = res->n_lines; k < n; k++)
				res->line_file[k] = res->line_src[k] = 0;
			res->n_lines = n;
		}
		for (k = 0; k < count; k++) {
			res->line_file[out - 1 + k] = (unsigned)file;
			res->line_src[out - 1 + k] = (unsigned)(src + k);
		}
	}
	return true;
}

/* Start an include entry from "ID SINGLE INDICES". */
static bool add_include(struct jinja_result *res, const char *text)
{
	struct jinja_include *inc;
	unsigned id, single;
	int used = 0;

	if (sscanf(text, "%u %u %n", &id, &single, &used) < 2)
		return false;
	res->includes = xrealloc(res->includes, (res->n_includes + 1) * sizeof(*res->includes));
	inc = &res->includes[res->n_includes++];
	memset(inc, 0, sizeof(*inc));
	inc->id = id;
	inc->single = single != 0;
	inc->indices = xstrdup(text + used);
	return true;
}

/* Store one response field into 'res'; false on a malformed one. */
static bool take_field(struct jinja_result *res, const char *key, const struct strbuf *v)
{
	struct jinja_include *inc = res->n_includes ? &res->includes[res->n_includes - 1] : NULL;

	if (!strcmp(key, "text")) {
		strbuf_addbuf(&res->text, v);
		res->has_text = true;
	} else if (!strcmp(key, "src")) {
		res->files = push_str(res->files, &res->n_files, v->buf);
	} else if (!strcmp(key, "map")) {
		return parse_map(res, v->buf);
	} else if (!strcmp(key, "inc")) {
		return add_include(res, v->buf);
	} else if (!strcmp(key, "ipath") && inc) {
		inc->paths = push_str(inc->paths, &inc->n_paths, v->buf);
	} else if (!strcmp(key, "idisp") && inc && inc->n_displays < inc->n_paths) {
		inc->displays = push_str(inc->displays, &inc->n_displays, v->buf);
	} else if (!strcmp(key, "idir") && inc) {
		inc->dirs = push_str(inc->dirs, &inc->n_dirs, v->buf);
	} else if (!strcmp(key, "error")) {
		res->error = xstrdup(v->buf);
	} else if (!strcmp(key, "kind")) {
		res->syntax_error = !strcmp(v->buf, "syntax");
	} else if (!strcmp(key, "efile")) {
		res->error_file = xstrdup(v->buf);
	} else if (!strcmp(key, "eline")) {
		res->error_line = (unsigned)strtoul(v->buf, NULL, 10);
	} else {
		return false;
	}
	return true;
}

/* The request's fields. */
static void build_request(struct strbuf *rq, const char *path, const char *name,
			  const char *const *vars, size_t n_vars, const char *const *dirs,
			  size_t n_dirs)
{
	size_t i;
	add_field(rq, "render", path);
	add_field(rq, "name", name);
	for (i = 0; i < n_vars; i++)
		add_field(rq, "var", vars[i]);
	for (i = 0; i < n_dirs; i++)
		add_field(rq, "dir", dirs[i]);
	add_field(rq, "end", "");
}

int jinja_render(struct spec_jinja *j, const char *path, const char *name,
		 const char *const *vars, size_t n_vars, const char *const *dirs, size_t n_dirs,
		 struct jinja_result *res, struct strbuf *why)
{
	struct strbuf rq = STRBUF_INIT, key = STRBUF_INIT, value = STRBUF_INIT;
	uint64_t budget = JINJA_MAX_REPLY;
	int rc = -1, got;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->text, 0);
	pthread_mutex_lock(&j->mu);
	if (j->pid == 0 && start(j, why) < 0) {
		pthread_mutex_unlock(&j->mu);
		return -1;
	}
	build_request(&rq, path, name, vars, n_vars, dirs, n_dirs);
	if (!send_all(j, &rq)) {
		stop(j);
		strbuf_addf(why, "the Jinja2 helper '%s' stopped", j->script);
		goto out;
	}
	for (;;) {
		if ((got = read_field(j, &key, &value, &budget, why)) <= 0) {
			stop(j);
			if (got == 0)
				strbuf_addf(why, "the Jinja2 helper '%s' stopped or sent something "
					    "it should not", j->script);
			goto out;
		}
		if (!strcmp(key.buf, "end"))
			break;
		if (!take_field(res, key.buf, &value)) {
			stop(j);
			strbuf_addf(why, "the Jinja2 helper '%s' sent a bad '%.40s' field", j->script,
				    key.buf);
			goto out;
		}
	}
	rc = res->error ? 1 : 0;
out:
	pthread_mutex_unlock(&j->mu);
	strbuf_release(&rq);
	strbuf_release(&key);
	strbuf_release(&value);
	return rc;
}

static void free_strs(char **v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void jinja_result_release(struct jinja_result *res)
{
	size_t i;
	strbuf_release(&res->text);
	free_strs(res->files, res->n_files);
	free(res->line_file);
	free(res->line_src);
	for (i = 0; i < res->n_includes; i++) {
		struct jinja_include *inc = &res->includes[i];
		free(inc->indices);
		free_strs(inc->paths, inc->n_paths);
		free_strs(inc->displays, inc->n_displays);
		free_strs(inc->dirs, inc->n_dirs);
	}
	free(res->includes);
	free(res->error);
	free(res->error_file);
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->text, 0);
}

void spec_jinja_free(struct spec_jinja *j)
{
	if (!j)
		return;
	stop(j);
	pthread_mutex_destroy(&j->mu);
	free(j->python);
	free(j->script);
	free(j->broken);
	free(j);
}
