/*
 * Tests of util/fileio.c under faults: an output that cannot be written
 * (a missing parent, a parent that is a file, a directory, a read-only
 * directory, a full device, a file size limit) fails with its reason and
 * leaves what was there byte for byte, with no temporary beside it; a
 * symlink, a FIFO or a device is written through, never replaced; a
 * process killed while writing leaves the old file and nothing else; a set
 * of files is replaced all together or not at all.
 */
#include "util/fileio.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit.h"
#include "util/strbuf.h"

static char scratch[64];

/* A fresh scratch directory for one test. */
static void scratch_new(void)
{
	strcpy(scratch, "/tmp/fiberloop-fileio-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(scratch));
}

static void scratch_remove(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+w '%s' && rm -rf '%s'", scratch, scratch);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* scratch/rel, in one of four rotating buffers. */
static const char *at(const char *rel)
{
	static char bufs[4][256];
	static unsigned next;
	char *b = bufs[next++ % 4];
	snprintf(b, sizeof(bufs[0]), "%s/%s", scratch, rel);
	return b;
}

static void put(const char *rel, const char *text)
{
	FILE *fp = fopen(at(rel), "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs(text, fp);
	CU_ASSERT_EQUAL(fclose(fp), 0);
}

/* The content of scratch/rel, or "(none)" when it cannot be read. Static buffer. */
static const char *content(const char *rel)
{
	static struct strbuf sb = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;

	strbuf_reset(&sb);
	if (fileio_read(at(rel), &sb, &err) < 0)
		strbuf_addstr(&sb, "(none)");
	strbuf_release(&err);
	return sb.buf;
}

static int not_dot(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* The names in scratch/rel ("" for scratch), sorted, separated by spaces. Static buffer. */
static const char *listing(const char *rel)
{
	static struct strbuf sb = STRBUF_INIT;
	struct dirent **names;
	int i, n = scandir(*rel ? at(rel) : scratch, &names, not_dot, alphasort);

	strbuf_reset(&sb);
	for (i = 0; i < n; i++) {
		strbuf_addf(&sb, "%s%s", i ? " " : "", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	else
		strbuf_addstr(&sb, "(no directory)");
	return sb.buf;
}

/* 'want' with every "@" replaced by the scratch directory. Static buffer. */
static const char *expand(const char *want)
{
	static struct strbuf sb = STRBUF_INIT;
	strbuf_reset(&sb);
	for (; *want; want++)
		if (*want == '@')
			strbuf_addstr(&sb, scratch);
		else
			strbuf_addch(&sb, *want);
	return sb.buf;
}

static void setup_old(void)
{
	put("x.txt", "old\n");
}

static void setup_file(void)
{
	put("file", "old\n");
}

static void setup_dir(void)
{
	CU_ASSERT_EQUAL(mkdir(at("d"), 0777), 0);
}

static void setup_link(void)
{
	put("target", "old\n");
	CU_ASSERT_EQUAL(symlink("target", at("link")), 0);
}

static void setup_dangling(void)
{
	CU_ASSERT_EQUAL(symlink("made", at("link")), 0);
}

static void setup_read_only(void)
{
	put("x.txt", "old\n");
	CU_ASSERT_EQUAL(chmod(scratch, 0555), 0);
}

/* One write of "new\n" to 'path' and what must hold after it. */
struct write_case {
	const char *name;
	void (*setup)(void);           /* may be NULL */
	const char *path;              /* in the scratch directory */
	int rc;
	const char *err;               /* the error text exactly ('@' is the scratch directory) */
	const char *listing;           /* the scratch directory after */
	const char *file, *text;       /* a file of it and its content after */
	bool needs_non_root;           /* root writes a read-only directory anyway */
};

static const struct write_case write_cases[] = {
	{ "a new file", NULL, "x.txt", 0, "", "x.txt", "x.txt", "new\n", false },
	{ "over an old file", setup_old, "x.txt", 0, "", "x.txt", "x.txt", "new\n", false },
	{ "the parent is missing", NULL, "missing/x.txt", -1,
	  "cannot write '@/missing/x.txt': No such file or directory", "", "missing", "(none)",
	  false },
	{ "the parent is a file", setup_file, "file/x.txt", -1,
	  "cannot write '@/file/x.txt': Not a directory", "file", "file", "old\n", false },
	{ "the path is a directory", setup_dir, "d", -1, "cannot write '@/d': Is a directory",
	  "d", "d", "(none)", false },
	{ "a symlink is written through", setup_link, "link", 0, "", "link target", "target",
	  "new\n", false },
	{ "a dangling symlink makes its target", setup_dangling, "link", 0, "", "link made",
	  "made", "new\n", false },
	{ "a read-only directory", setup_read_only, "x.txt", -1,
	  "cannot write '@/x.txt': Permission denied", "x.txt", "x.txt", "old\n", true },
};

static void test_write_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(write_cases) / sizeof(write_cases[0]); i++) {
		const struct write_case *c = &write_cases[i];
		struct strbuf err = STRBUF_INIT;
		struct stat st;
		int rc;

		if (c->needs_non_root && geteuid() == 0) {
			printf("\n  skipped as root: %s ", c->name);
			continue;
		}
		scratch_new();
		if (c->setup)
			c->setup();
		rc = fileio_write_atomic(at(c->path), "new\n", 4, &err);
		CU_ASSERT_EQUAL(rc, c->rc);
		CU_ASSERT_STRING_EQUAL(err.buf, expand(c->err));
		CU_ASSERT_STRING_EQUAL(listing(""), c->listing);
		CU_ASSERT_STRING_EQUAL(content(c->file), c->text);
		if (c->setup == setup_link || c->setup == setup_dangling)
			CU_ASSERT_TRUE(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
		if (strcmp(err.buf, expand(c->err)) || strcmp(listing(""), c->listing))
			printf("\n  case '%s': error '%s', files '%s'\n", c->name, err.buf,
			       listing(""));
		strbuf_release(&err);
		scratch_remove();
	}
}

/* A FIFO is written through (a reader gets the bytes) and stays a FIFO. */
static void test_fifo(void)
{
	struct strbuf err = STRBUF_INIT;
	char buf[16] = "";
	struct stat st;
	int fd;

	scratch_new();
	CU_ASSERT_EQUAL_FATAL(mkfifo(at("fifo"), 0666), 0);
	fd = open(at("fifo"), O_RDWR | O_NONBLOCK);   /* a reader, so that the writer does not wait */
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(fileio_write_atomic(at("fifo"), "new\n", 4, &err), 0);
	CU_ASSERT_EQUAL(read(fd, buf, sizeof(buf) - 1), 4);
	CU_ASSERT_STRING_EQUAL(buf, "new\n");
	CU_ASSERT_TRUE(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode));
	CU_ASSERT_STRING_EQUAL(listing(""), "fifo");
	close(fd);
	strbuf_release(&err);
	scratch_remove();
}

/* A full device (/dev/full) is written through; a short write and a long one both fail. */
static void test_full_device(void)
{
	static char big[100000];
	struct strbuf err = STRBUF_INIT;

	CU_ASSERT_EQUAL(fileio_write_atomic("/dev/full", "new\n", 4, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "cannot write '/dev/full': No space left on device");
	strbuf_reset(&err);
	CU_ASSERT_EQUAL(fileio_write_atomic("/dev/full", big, sizeof(big), &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "cannot write '/dev/full': No space left on device");
	strbuf_release(&err);
}

/*
 * Write 'len' bytes over scratch/x.txt in a child process whose files may
 * not grow past 1 KiB (RLIMIT_FSIZE, as a full disk would stop them); the
 * error text into 'err'. Returns the child's fileio_write_atomic() result.
 */
static int write_limited(size_t len, struct strbuf *err)
{
	int fds[2], st, rc = 99;
	char buf[512];
	ssize_t n;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = { 1024, 1024 };
		struct strbuf e = STRBUF_INIT;
		char *data = calloc(len, 1);

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &lim);
		rc = fileio_write_atomic(at("x.txt"), data, len, &e);
		if (write(fds[1], e.buf, e.len) < 0)
			_exit(98);
		_exit(rc == 0 ? 0 : 1);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		strbuf_add(err, buf, (size_t)n);
	close(fds[0]);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st))
		rc = WEXITSTATUS(st) == 1 ? -1 : WEXITSTATUS(st);
	return rc;
}

/* A regular file that cannot be written in full: an error, the old file kept, no temporary. */
static void test_file_too_large(void)
{
	static const size_t lens[] = { 3000, 100000 };   /* failing at the end, and while writing */
	size_t i;

	for (i = 0; i < 2; i++) {
		struct strbuf err = STRBUF_INIT;

		scratch_new();
		setup_old();
		CU_ASSERT_EQUAL(write_limited(lens[i], &err), -1);
		CU_ASSERT_STRING_EQUAL(err.buf, expand("cannot write '@/x.txt': File too large"));
		CU_ASSERT_STRING_EQUAL(content("x.txt"), "old\n");
		CU_ASSERT_STRING_EQUAL(listing(""), "x.txt");
		strbuf_release(&err);
		scratch_remove();
	}
}

/*
 * A process killed (SIGKILL) in the middle of writing: the old file is
 * there byte for byte and, where the system has unnamed temporaries, no
 * other file is.
 */
static void test_killed_while_writing(void)
{
	int fds[2], st;
	char how = 0;
	pid_t pid;

	scratch_new();
	setup_old();
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct strbuf err = STRBUF_INIT;
		struct atomic_file af;
		int i;

		if (atomic_file_open(&af, at("x.txt"), &err) < 0)
			_exit(1);
		for (i = 0; i < 10000; i++)
			fputs("half-written line\n", af.fp);
		fflush(af.fp);
		how = af.is_unnamed ? 'u' : 'n';
		if (write(fds[1], &how, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	CU_ASSERT_EQUAL(read(fds[0], &how, 1), 1);
	close(fds[0]);
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CU_ASSERT_STRING_EQUAL(content("x.txt"), "old\n");
	if (how == 'u') {
		CU_ASSERT_STRING_EQUAL(listing(""), "x.txt");
	} else {
		printf("\n  no unnamed temporaries here: a killed writer leaves '%s' ", listing(""));
	}
	scratch_remove();
}

static void test_make_dirs(void)
{
	struct strbuf err = STRBUF_INIT;

	scratch_new();
	CU_ASSERT_EQUAL(fileio_make_dirs(at("out/sub"), &err), 0);
	CU_ASSERT_EQUAL(fileio_make_dirs(at("out/sub/"), &err), 0);   /* there already */
	CU_ASSERT_STRING_EQUAL(listing("out"), "sub");
	put("file", "old\n");
	CU_ASSERT_EQUAL(fileio_make_dirs(at("file"), &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, expand("cannot create directory '@/file': Not a directory"));
	strbuf_reset(&err);
	CU_ASSERT_EQUAL(fileio_make_dirs("", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, "cannot create directory '': the name is empty");
	CU_ASSERT_STRING_EQUAL(content("file"), "old\n");
	strbuf_release(&err);
	scratch_remove();
}

/* Write "new a" and "new b" as dir/a.txt and dir/b.txt (or 'name_b'). */
static int write_two(const char *dir, const char *name_b, struct strbuf *err)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	const char *names[2] = { "a.txt", name_b ? name_b : "b.txt" };
	const struct strbuf *bufs[2] = { &a, &b };
	int rc;

	strbuf_addstr(&a, "new a\n");
	strbuf_addstr(&b, "new b\n");
	rc = fileio_write_files_atomic(at(dir), names, bufs, 2, err);
	strbuf_release(&a);
	strbuf_release(&b);
	return rc;
}

static void test_write_files(void)
{
	struct strbuf err = STRBUF_INIT;

	/* the directory and its parents made, the files in it */
	scratch_new();
	CU_ASSERT_EQUAL(write_two("fresh/out", NULL, &err), 0);
	CU_ASSERT_STRING_EQUAL(listing("fresh/out"), "a.txt b.txt");
	CU_ASSERT_STRING_EQUAL(content("fresh/out/b.txt"), "new b\n");
	scratch_remove();

	/* the second file fails when flushed: the first is not replaced either */
	scratch_new();
	CU_ASSERT_EQUAL(mkdir(at("out"), 0777), 0);
	put("out/a.txt", "old a\n");
	CU_ASSERT_EQUAL(symlink("/dev/full", at("out/b.txt")), 0);
	CU_ASSERT_EQUAL(write_two("out", NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf,
			       expand("cannot write '@/out/b.txt': No space left on device"));
	CU_ASSERT_STRING_EQUAL(content("out/a.txt"), "old a\n");
	CU_ASSERT_STRING_EQUAL(listing("out"), "a.txt b.txt");
	scratch_remove();

	/* a directory that is a file, or under one */
	scratch_new();
	setup_file();
	strbuf_reset(&err);
	CU_ASSERT_EQUAL(write_two("file", NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, expand("cannot create directory '@/file': Not a directory"));
	strbuf_reset(&err);
	CU_ASSERT_EQUAL(write_two("file/out", NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf,
			       expand("cannot create directory '@/file/out': Not a directory"));
	CU_ASSERT_STRING_EQUAL(content("file"), "old\n");
	CU_ASSERT_STRING_EQUAL(listing(""), "file");
	scratch_remove();

	/* a failure after the directories were made: they are removed again */
	scratch_new();
	CU_ASSERT_EQUAL(mkdir(at("kept"), 0777), 0);
	strbuf_reset(&err);
	CU_ASSERT_EQUAL(write_two("kept/fresh/out", "no/b.txt", &err), -1);
	CU_ASSERT_STRING_EQUAL(err.buf, expand("cannot write '@/kept/fresh/out/no/b.txt': "
					       "No such file or directory"));
	CU_ASSERT_STRING_EQUAL(listing(""), "kept");
	CU_ASSERT_STRING_EQUAL(listing("kept"), "");
	scratch_remove();
	strbuf_release(&err);
}

/*
 * Inputs have a size limit: a regular file over it is refused before it is
 * read (its size), anything else once it has given more (a never-ending
 * device; at most 64 MiB, whatever the limit asked); at the limit exactly
 * the file is read whole.
 */
static void test_read_limit(void)
{
	static const struct {
		const char *path;       /* NULL: the scratch file of 'size' bytes */
		off_t size;
		size_t max;
		int rc;
		const char *err;        /* '@': the path */
	} rows[] = {
		{ NULL, 1000, 1000, 0, "" },
		{ NULL, 1001, 1000, -1, "'@' is larger than 1000 bytes, the limit of an input file" },
		{ NULL, (off_t)300 << 20, FILEIO_MAX_READ_BYTES, -1,
		  "'@' is larger than 256 MiB, the limit of an input file" },
		{ "/dev/zero", 0, 100000, -1,
		  "'@' is larger than 100000 bytes, the limit of an input that is not a regular "
		  "file" },
	};
	size_t i;

	scratch_new();
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
		const char *path = rows[i].path ? rows[i].path : at("big");
		const char *e;
		if (!rows[i].path) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			CU_ASSERT_FATAL(fd >= 0);
			CU_ASSERT_EQUAL(ftruncate(fd, rows[i].size), 0);   /* sparse: no disk used */
			close(fd);
		}
		strbuf_addstr(&sb, "kept");
		CU_ASSERT_EQUAL(fileio_read_max(path, rows[i].max, &sb, &err), rows[i].rc);
		for (e = rows[i].err; *e; e++)
			if (*e == '@')
				strbuf_addstr(&want, path);
			else
				strbuf_addch(&want, *e);
		CU_ASSERT_STRING_EQUAL(err.buf, want.buf);
		CU_ASSERT_EQUAL(sb.len, rows[i].rc == 0 ? 4 + (size_t)rows[i].size : 4);
		strbuf_release(&sb);
		strbuf_release(&err);
		strbuf_release(&want);
	}
	scratch_remove();
}

/* Of two creations of one new file the first makes it, the second finds it there. */
static void test_create_new(void)
{
	struct stat sb;

	scratch_new();
	CU_ASSERT_TRUE(fileio_create_new(at("new.db")));
	CU_ASSERT_FALSE(fileio_create_new(at("new.db")));
	CU_ASSERT_EQUAL(stat(at("new.db"), &sb), 0);
	CU_ASSERT_EQUAL(sb.st_size, 0);
	CU_ASSERT_FALSE(fileio_create_new(at("none/x.db")));
	scratch_remove();
}

static CU_TestInfo fileio_tests[] = {
	{ "a new file, made once", test_create_new },
	{ "an input's size limit", test_read_limit },
	{ "writes that fail and writes through", test_write_cases },
	{ "a FIFO", test_fifo },
	{ "a full device", test_full_device },
	{ "a file size limit", test_file_too_large },
	{ "killed while writing", test_killed_while_writing },
	{ "directories", test_make_dirs },
	{ "several files at once", test_write_files },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "fileio", .pTests = fileio_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
