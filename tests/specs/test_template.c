/*
 * template.c and jinja.c: design files that are Jinja2 templates, rendered
 * by the real Jinja2 in the helper process. Values and locations of a
 * template that uses include_text(), include(), include_all(),
 * add_to_path(), path_exists(), cwd() and variables; template errors
 * located at the template's file and line; and the messages when Python 3
 * or Jinja2 is missing. Runs in a temporary directory with the helper
 * named by $FIBERLOOP_JINJA_HELPER (the source tree's copy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specs/template_int.h"
#include "tests/unit.h"
#include "util/strbuf.h"

static struct arena A = ARENA_INIT;
static char tmpdir[] = "/tmp/fl-template-XXXXXX";
static char olddir[4096];
static struct spec_jinja *shared;

/* Write 'text' to 'name' in the test directory. */
static void put(const char *name, const char *text)
{
	FILE *fp = fopen(name, "w");
	if (!fp) {
		perror(name);
		abort();
	}
	fputs(text, fp);
	fclose(fp);
}

/* Every diagnostic as "file:line:col: severity: message\n" (caller frees). */
static char *diags(const struct diag_list *dl)
{
	static const char *const sev[] = { "error", "warning", "note" };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	for (i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		strbuf_addf(&sb, "%s:%u", d->loc.file ? d->loc.file : "-", d->loc.line);
		if (d->loc.col)
			strbuf_addf(&sb, ":%u", d->loc.col);
		strbuf_addf(&sb, ": %s: %s\n", sev[d->severity], d->message);
	}
	return strbuf_detach(&sb, NULL);
}

/* Parse 'file' with variables vars[0..n) and the helper 'j'. */
static struct ysrc_node *load(const char *file, const char *const *vars, size_t n,
			      struct spec_jinja *j, struct diag_list *dl)
{
	struct tmpl_ctx t;
	struct ysrc_node *root = NULL;
	memset(&t, 0, sizeof(t));
	t.a = &A;
	t.dl = dl;
	t.vars = vars;
	t.n_vars = n;
	t.jinja = j;
	tmpl_parse_file(&t, file, file, NULL, 0, &root);
	tmpl_ctx_release(&t);
	return root;
}

static const struct ysrc_node *at(const struct ysrc_node *n, const char *path)
{
	char key[64];
	while (n && *path) {
		size_t len = strcspn(path, ".");
		if (path[0] >= '0' && path[0] <= '9') {
			size_t i = strtoul(path, NULL, 10);
			n = n->kind == YSRC_SEQ && i < n->n ? n->items[i] : NULL;
		} else {
			memcpy(key, path, len);
			key[len] = '\0';
			n = ysrc_map_get(n, key);
		}
		path += len + (path[len] == '.');
	}
	return n;
}

static void test_render(void)
{
	static const char *const vars[] = { "scale=2.5", "channels=5", "flag=False" };
	static const struct {
		const char *path, *str, *file;
		unsigned line;
	} rows[] = {
		{ "problem.version", "0.4", "base.yaml", 2 },
		{ "problem.instance.C", "5", "layer.yaml", 4 },
		{ "problem.instance.M", "64", "layer.yaml", 4 },
		{ "problem.instance.N", "1", "base.yaml", 3 },
		{ "parts.0.name", "a", "parts/a.yaml", 1 },
		{ "parts.1.n", "2", "parts/b.yaml", 1 },
		{ "first", "a", "parts/a.yaml", 1 },
		{ "has_b", "true", "top.j2", 7 },
		{ "scale", "2.5", "top.j2", 9 },
		{ "flag", "off", "top.j2", 10 },
		{ "here", "yes", "top.j2", 11 },
	};
	struct diag_list dl = DIAG_LIST_INIT;
	struct ysrc_node *root;
	size_t i;

	put("base.yaml", "base_ignore: &base\n  version: 0.4\n  instance: {N: 1, C: 1, M: 1}\n");
	put("layer.yaml", "{{include_text('base.yaml')}}\nproblem:\n  <<<: *base\n"
	    "  instance: {C: {{ channels | default(3) }}, M: 64}\n");
	put("parts/a.yaml", "part: {name: a, n: 1}\n");
	put("parts/b.yaml", "part: {name: b, n: 2}\n");
	{
		char buf[8192];
		snprintf(buf, sizeof(buf),
			 "{{add_to_path(cwd() ~ '/parts')}}\n"
			 "# a comment\n"
			 "problem: {{include('layer.yaml', 'problem')}}\n"
			 "parts: {{include_all('parts/*.yaml', 'part')}}\n"
			 "first: {{include('a.yaml', 'part.name')}}\n"
			 "{%% if path_exists('b.yaml') %%}\n"
			 "has_b: true\n"
			 "{%% endif %%}\n"
			 "scale: {{ scale }}\n"
			 "flag: {{ 'on' if flag else 'off' }}\n"
			 "here: {{ 'yes' if cwd() == '%s' else cwd() }}\n", tmpdir);
		put("top.j2", buf);
	}
	root = load("top.j2", vars, 3, shared, &dl);
	if (dl.n) {
		char *d = diags(&dl);
		fprintf(stderr, "%s", d);
		free(d);
	}
	CU_ASSERT_EQUAL(dl.n, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ysrc_node *n = at(root, rows[i].path);
		if (!n) {
			fprintf(stderr, "row %zu: no %s\n", i, rows[i].path);
			CU_FAIL("missing node");
			continue;
		}
		if (strcmp(n->str, rows[i].str) || strcmp(n->loc.file, rows[i].file) ||
		    n->loc.line != rows[i].line)
			fprintf(stderr, "row %zu: %s = '%s' at %s:%u\n", i, rows[i].path, n->str,
				n->loc.file, n->loc.line);
		CU_ASSERT_STRING_EQUAL(n->str, rows[i].str);
		CU_ASSERT_STRING_EQUAL(n->loc.file, rows[i].file);
		CU_ASSERT_EQUAL(n->loc.line, rows[i].line);
	}
	CU_ASSERT_EQUAL(at(root, "parts")->kind, YSRC_SEQ);
	CU_ASSERT_EQUAL(at(root, "parts")->n, 2);
	CU_ASSERT_PTR_NULL(at(root, "problem.base_ignore"));
	diag_list_release(&dl);
}

struct err_row {
	const char *file;
	const char *text;
	const char *expected;
};

/*
 * Jinja2 gives a line; the column is the name the message quotes, the end
 * of the line for an unexpected end, or the line's first '{{' or '{%'.
 */
static void test_errors(void)
{
	static const struct err_row rows[] = {
		{ "syntax.j2", "a: 1\nb: {{ 1 + }}\n",
		  "syntax.j2:2:4: error: Jinja2 template syntax error: unexpected 'end of print "
		  "statement'\n" },
		{ "block.j2", "a: 1\n{% if x %}\nb: 2\n",
		  "block.j2:2:11: error: Jinja2 template syntax error: Unexpected end of template. "
		  "Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The "
		  "innermost block that needs to be closed is 'if'.\n" },
		{ "undef.j2", "a: 1\n\nc: {{ nothere }}\n",
		  "undef.j2:3:7: error: Jinja2 template error: 'nothere' is undefined\n" },
		{ "inner.j2", "{{include_text('inner_bad.yaml')}}\nb: 2\n",
		  "inner_bad.yaml:2:7: error: Jinja2 template error: 'missing_var' is undefined\n" },
		{ "divzero.j2", "a: {{ 1 / 0 }}\n",
		  "divzero.j2:1:4: error: Jinja2 template error: ZeroDivisionError: division by zero\n" },
		{ "nofile.j2", "x: 1\ny: {{include('nope.yaml', 'a')}}\n",
		  "nofile.j2:2:15: error: Jinja2 template error: cannot find 'nope.yaml' (looked for: "
		  "nope.yaml)\n" },
		{ "many.j2", "y: {{include('parts/*.yaml')}}\n",
		  "many.j2:1:15: error: Jinja2 template error: include('parts/*.yaml') matches 2 files "
		  "(include_all() takes several)\n" },
		{ "nokey.j2", "a: 1\nb: {{include('parts/a.yaml', 'part.color')}}\n",
		  "nokey.j2:2:4: error: cannot include 'part.color' of 'parts/a.yaml': there is no "
		  "such key\nparts/a.yaml:1:7: note: 'color' is not among the keys here\n" },
		{ "yaml.j2", "{{include_text('base.yaml')}}\na: [1, 2\nb: 3\n",
		  "yaml.j2:3:2: error: YAML syntax error: did not find expected ',' or ']'\n"
		  "yaml.j2:2:4: note: while parsing a flow sequence\n" },
		{ "incyaml.j2", "a: {{include('broken.yaml', 'k')}}\n",
		  "broken.yaml:2:1: error: YAML syntax error: did not find expected ',' or '}'\n"
		  "broken.yaml:1:4: note: while parsing a flow mapping\n"
		  "incyaml.j2:1:4: note: 'broken.yaml' is included here\n" },
	};
	size_t i;

	put("inner_bad.yaml", "x: 1\ny: {{ missing_var }}\n");
	put("broken.yaml", "k: {a: 1\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct diag_list dl = DIAG_LIST_INIT;
		struct ysrc_node *root;
		char *got;
		put(rows[i].file, rows[i].text);
		root = load(rows[i].file, NULL, 0, shared, &dl);
		got = diags(&dl);
		CU_ASSERT_PTR_NULL(root);
		if (strcmp(got, rows[i].expected))
			fprintf(stderr, "row %zu:\n%s", i, got);
		CU_ASSERT_STRING_EQUAL(got, rows[i].expected);
		free(got);
		diag_list_release(&dl);
	}
}

/* A variable that is not NAME=VALUE is an error of the template that needs it. */
static void test_bad_variable(void)
{
	static const char *const vars[] = { "novalue" };
	struct diag_list dl = DIAG_LIST_INIT;
	char *got;
	put("needs_var.j2", "a: {{ x }}\n");
	CU_ASSERT_PTR_NULL(load("needs_var.j2", vars, 1, shared, &dl));
	got = diags(&dl);
	CU_ASSERT_STRING_EQUAL(got, "needs_var.j2:1:4: error: Jinja2 template error: a template "
			       "variable is NAME=VALUE, got 'novalue'\n");
	free(got);
	diag_list_release(&dl);
	/* the helper is still there for the next file */
	CU_ASSERT_PTR_NOT_NULL(load("needs_var.j2", (const char *const[]){ "x=1" }, 1, shared, &dl));
	diag_list_release(&dl);
}

/* The diagnostics of 'dl' must read 'want' (row 'row' of a table, shown when they do not). */
static void expect_diags(const struct diag_list *dl, const char *want, size_t row)
{
	char *got = diags(dl);
	if (strcmp(got, want))
		fprintf(stderr, "row %zu:\n%s", row, got);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

/* Without Python 3 or Jinja2, a template gets an error that says what to install. */
static void test_no_jinja(void)
{
	static const char hint[] = "templates need Python 3 with Jinja2 (on Debian: apt-get "
				   "install python3-jinja2)";
	struct {
		const char *python, *script;
		const char *why;
	} rows[] = {
		{ "/nonexistent/python3", NULL,
		  "cannot run '/nonexistent/python3' (No such file or directory); " },
		{ NULL, "fake-nojinja.py",
		  "'python3' has no Jinja2 module (No module named 'jinja2'); " },
		{ NULL, "/nonexistent/helper.py", NULL },
		{ NULL, "fake-silent.py", "'python3 fake-silent.py' exited without answering; " },
	};
	size_t i;

	put("fake-nojinja.py", "print(\"nojinja No module named 'jinja2'\")\n");
	put("fake-silent.py", "import sys\nsys.exit(3)\n");
	put("plain.yaml", "a: 1\n");
	put("tmpl.yaml", "a: 1\nb: {{ 2 }}\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_jinja *j = spec_jinja_new(rows[i].python ? rows[i].python : "python3",
						      rows[i].script);
		struct diag_list dl = DIAG_LIST_INIT;
		struct strbuf want = STRBUF_INIT;

		/* a file without template syntax never needs the helper */
		CU_ASSERT_PTR_NOT_NULL(load("plain.yaml", NULL, 0, j, &dl));
		CU_ASSERT_EQUAL(dl.n, 0);
		CU_ASSERT_PTR_NULL(load("tmpl.yaml", NULL, 0, j, &dl));
		strbuf_addstr(&want, "tmpl.yaml:2:4: error: this file is a Jinja2 template (it uses "
			      "'{{' here) and cannot be rendered: ");
		if (rows[i].why)
			strbuf_addf(&want, "%s%s\n", rows[i].why, hint);
		else
			strbuf_addf(&want, "the helper script '%s' is missing (set "
				    "FIBERLOOP_JINJA_HELPER to its path)\n", rows[i].script);
		expect_diags(&dl, want.buf, i);
		strbuf_release(&want);
		diag_list_release(&dl);
		spec_jinja_free(j);
	}
}

/* A fake helper that greets, reads one request and answers 'reply' (Python bytes literal). */
static void put_fake(const char *name, const char *reply)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "import sys\n"
		    "sys.stdout.write('fiberloop-jinja 1 fake\\n'); sys.stdout.flush()\n"
		    "while True:\n"
		    "    l = sys.stdin.buffer.readline()\n"
		    "    if not l or l.startswith(b'end '): break\n"
		    "    sys.stdin.buffer.read(int(l.split()[1]) + 1)\n"
		    "sys.stdout.buffer.write(%s); sys.stdout.flush()\n", reply);
	put(name, sb.buf);
	strbuf_release(&sb);
}

/*
 * A template runs Python and can write the helper's reply itself: the reply
 * is checked as an input. A line map past the text (which once allocated
 * 2 x 4e9 entries), a map before the text, a field longer than the limit
 * and a header line that never ends are refused; a helper that a template
 * stopped is started again for the next file.
 */
static void test_forged_replies(void)
{
	static const struct {
		const char *reply;
		const char *why;     /* after "...cannot be rendered: "; '@' the script */
	} rows[] = {
		{ "b'text 5\\nx: 1\\n\\nsrc 1\\nq\\nmap 17\\n1 4000000000 0 1\\n\\nend 0\\n\\n'",
		  "the Jinja2 helper '@' sent a bad 'map' field" },
		{ "b'text 5\\nx: 1\\n\\nsrc 1\\nq\\nmap 8\\n3 1 0 1\\n\\nend 0\\n\\n'",
		  "the Jinja2 helper '@' sent a bad 'map' field" },
		{ "b'src 1\\nq\\nmap 8\\n1 1 0 1\\n\\ntext 5\\nx: 1\\n\\nend 0\\n\\n'",
		  "the Jinja2 helper '@' sent a bad 'map' field" },
		{ "b'text 1000000000000\\nx'",
		  "the Jinja2 helper '@' announced a 'text' field of 1000000000000 bytes, more than "
		  "a reply may hold (256 MiB a field, 512 MiB in all)" },
		{ "b'text -1\\nx'", "the Jinja2 helper '@' stopped or sent something it should not" },
		{ "b'x' * 100000", "the Jinja2 helper '@' stopped or sent something it should not" },
	};
	size_t i;

	put("forged.j2", "a: {{ 1 }}\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct spec_jinja *j;
		struct diag_list dl = DIAG_LIST_INIT;
		struct strbuf want = STRBUF_INIT;
		const char *w;

		put_fake("fake-forged.py", rows[i].reply);
		j = spec_jinja_new(NULL, "fake-forged.py");
		CU_ASSERT_PTR_NULL(load("forged.j2", NULL, 0, j, &dl));
		strbuf_addstr(&want, "forged.j2:1:4: error: this file is a Jinja2 template (it uses "
			      "'{{' here) and cannot be rendered: ");
		for (w = rows[i].why; *w; w++)
			if (*w == '@')
				strbuf_addstr(&want, "fake-forged.py");
			else
				strbuf_addch(&want, *w);
		strbuf_addch(&want, '\n');
		expect_diags(&dl, want.buf, i);
		strbuf_release(&want);
		diag_list_release(&dl);
		spec_jinja_free(j);
	}
	{
		struct diag_list dl = DIAG_LIST_INIT;
		put("exits.j2", "a: {{ cycler.__init__.__globals__.os._exit(0) }}\n");
		CU_ASSERT_PTR_NULL(load("exits.j2", NULL, 0, shared, &dl));
		CU_ASSERT_EQUAL(dl.n_errors, 1);
		diag_list_release(&dl);
		CU_ASSERT_PTR_NOT_NULL(load("forged.j2", NULL, 0, shared, &dl));   /* restarted */
		CU_ASSERT_EQUAL(dl.n, 0);
		diag_list_release(&dl);
	}
}

/* Loads through spec_set_load() share a helper and take '--var' values. */
static void test_load_options(void)
{
	static const char *const vars[] = { "arch=arch.yaml", "dw=16" };
	static const char *const files[] = { "design.j2" };
	const char *files2[1];
	struct spec_load_options opt;
	struct diag_list dl = DIAG_LIST_INIT;
	struct spec_set *s;
	int k;

	put("arch.yaml",
	    "architecture:\n  version: 0.4\n  nodes:\n"
	    "  - !Container {name: sys}\n"
	    "  - !Component {name: DRAM, class: DRAM, attributes: {datawidth: {{ dw | default(16) }}, width: 64}}\n"
	    "  - !Nothing\n"
	    "  - !Component {name: unused, class: SRAM, enabled: false, attributes: {depth: 8}}\n"
	    "  - !Component {name: mac, class: intmac}\n");
	put("design.j2", "architecture: {{include(arch, 'architecture')}}\n"
	    "problem: {{include('prob.yaml', 'problem')}}\n");
	put("prob.yaml", "{{include_text('base.yaml')}}\nproblem:\n  <<<: *base\n  shape:\n"
	    "    name: mm\n    dimensions: [N, C, M]\n    data_spaces:\n"
	    "    - {name: A, projection: [[[N]], [[C]]]}\n"
	    "    - {name: B, projection: [[[C]], [[M]]]}\n"
	    "    - {name: Z, projection: [[[N]], [[M]]], read_write: true}\n"
	    "  instance: {C: {{ channels | default(5) }}}\n");
	memset(&opt, 0, sizeof(opt));
	opt.template_vars = vars;
	opt.n_template_vars = 2;
	opt.jinja = shared;
	for (k = 0; k < 2; k++) {
		s = spec_set_load(files, 1, &opt, &dl);
		if (dl.n) {
			char *d = diags(&dl);
			fprintf(stderr, "%s", d);
			free(d);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->arch.n_levels, 1);
		CU_ASSERT_EQUAL(s->arch.levels[0].word_bits, 16);
		CU_ASSERT_EQUAL(s->workload.bounds[spec_dim_find(&s->workload, "C")], 5);
		spec_set_free(s);
		opt.n_template_vars = 1;    /* now 'dw' takes its default, 16 too */
	}
	/* a failed load frees its source: the names of included files must stay valid */
	put("bad_design.j2", "architecture: {{include(arch, 'architecture')}}\n"
	    "problem: {{include('broken.yaml', 'k')}}\n");
	files2[0] = "bad_design.j2";
	s = spec_set_load(files2, 1, &opt, &dl);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_TRUE_FATAL(dl.n >= 1);
	CU_ASSERT_STRING_EQUAL(dl.items[0].loc.file, "broken.yaml");
	diag_list_release(&dl);
}

static int setup(void)
{
	if (!getcwd(olddir, sizeof(olddir)) || !mkdtemp(tmpdir) || chdir(tmpdir) < 0)
		return -1;
	if (system("mkdir -p parts") != 0)
		return -1;
	shared = spec_jinja_new(NULL, NULL);
	return 0;
}

static int teardown(void)
{
	char cmd[4200];
	spec_jinja_free(shared);
	arena_release(&A);
	if (chdir(olddir) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static CU_TestInfo template_tests[] = {
	{ "rendering, includes, locations", test_render },
	{ "template errors, located", test_errors },
	{ "a malformed variable", test_bad_variable },
	{ "no Python or no Jinja2", test_no_jinja },
	{ "forged replies", test_forged_replies },
	{ "load options", test_load_options },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ .pName = "template", .pInitFunc = setup, .pCleanupFunc = teardown,
	  .pTests = template_tests },
	CU_SUITE_INFO_NULL,
};

int main(void)
{
	return unit_main(suites);
}
