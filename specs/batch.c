/*
 * Batch job files ('fiberloop batch JOBS.yaml', docs/sweep.md "Batch
 * files"): a list of jobs, each a design (its files, overrides, a command,
 * a name, tags) or a network (the layers mapped on one design), and
 * defaults shared by all. Relative paths are read from the file's
 * directory. Every problem is a located error with the key path, and a
 * misspelt key gets a did-you-mean.
 */
#include "specs/specs_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

/* The commands of a job when the caller gives none. */
static const char *const default_commands[] = { "check", "model", "map", "exec", "validate",
						NULL };

static const char *const top_keys[] = { "defaults", "jobs" };
static const char *const job_keys[] = { "name", "files", "set", "vars", "command", "tags",
					"layers", "seed", "prune" };

/* What a batch file's reader keeps. */
struct batch_ld {
	struct ld ld;                  /* the value readers' context (dl and arena only) */
	const char *dir;               /* the file's directory, with its '/', or "" */
	const char *const *commands;   /* the names a job's 'command' may take, NULL-ended */
};

/* 'path' relative to the batch file's directory unless absolute. */
static const char *resolve(struct batch_ld *b, const char *path)
{
	if (path[0] == '/' || !b->dir[0])
		return path;
	return arena_printf(b->ld.a, "%s%s", b->dir, path);
}

/* Where the text of scalar 'n' starts (after its opening quote). */
static struct diag_loc text_at(const struct ysrc_node *n)
{
	struct diag_loc at = n->loc;
	if (n->style == YSRC_QUOTED)
		at.col++;
	return at;
}

/*
 * A list of strings (or one string) at 'n' into '*out' ('*n_out'), after
 * the 'n_pre' strings of 'pre'; paths are resolved when 'paths'. With
 * 'at', where each string is written goes to (*at)[2i] (the 'n_pre' of
 * 'pre_at' first), (*at)[2i + 1] left at line 0.
 */
static int str_list(struct batch_ld *b, const struct ysrc_node *n, const struct kpath *p,
		    const char *const *pre, const struct diag_loc *pre_at, size_t n_pre,
		    bool paths, const char ***out, struct diag_loc **at, size_t *n_out)
{
	size_t i, k = 0, n_items = n->kind == YSRC_SEQ ? n->n : 1;
	const char **v = arena_calloc(b->ld.a, n_pre + n_items + 1, sizeof(*v));
	struct diag_loc *a = at ? arena_calloc(b->ld.a, 2 * (n_pre + n_items) + 1, sizeof(*a)) :
			     NULL;
	int rc = 0;

	for (i = 0; i < n_pre; i++) {
		if (a)
			memcpy(&a[2 * k], &pre_at[2 * i], 2 * sizeof(*a));
		v[k++] = pre[i];
	}
	*out = v;
	*n_out = k;
	if (at)
		*at = a;
	if (n->kind == YSRC_MAP)
		return ld_error(&b->ld, n, p, "expected a list of strings, got a mapping");
	for (i = 0; i < n_items; i++) {
		const struct ysrc_node *item = n->kind == YSRC_SEQ ? n->items[i] : n;
		struct kpath ip = KP_IDX(p, i);
		const char *s = ld_str(&b->ld, item, n->kind == YSRC_SEQ ? &ip : p);
		if (!s) {
			rc = -1;
		} else if (!*s) {
			rc = ld_error(&b->ld, item, n->kind == YSRC_SEQ ? &ip : p, "empty string");
		} else {
			if (a)
				a[2 * k] = text_at(item);
			v[k++] = paths ? resolve(b, s) : s;
		}
	}
	*n_out = k;
	return rc;
}

/*
 * The "KEY=VALUE" pairs of 'set' or 'vars': a list of such strings, or a
 * mapping of KEY: VALUE with scalar values; after pre[0..n_pre) (written
 * at pre_at[0..2 n_pre), as str_list() says).
 */
static int pairs(struct batch_ld *b, const struct ysrc_node *n, const struct kpath *p,
		 const char *const *pre, const struct diag_loc *pre_at, size_t n_pre,
		 const char ***out, struct diag_loc **at, size_t *n_out)
{
	struct diag_loc *a;
	size_t i;
	int rc = 0;

	if (n->kind != YSRC_MAP)
		return str_list(b, n, p, pre, pre_at, n_pre, false, out, at, n_out);
	*out = arena_calloc(b->ld.a, n_pre + n->n + 1, sizeof(**out));
	*at = a = arena_calloc(b->ld.a, 2 * (n_pre + n->n) + 1, sizeof(*a));
	*n_out = 0;
	for (i = 0; i < n_pre; i++) {
		memcpy(&a[2 * *n_out], &pre_at[2 * i], 2 * sizeof(*a));
		(*out)[(*n_out)++] = pre[i];
	}
	for (i = 0; i < n->n; i++) {
		const struct ysrc_node *v = n->pairs[i].value;
		struct kpath kp = KP_KEY(p, n->pairs[i].key->str);
		if (ld_want_scalar(&b->ld, v, &kp) < 0) {
			rc = -1;
			continue;
		}
		a[2 * *n_out] = text_at(n->pairs[i].key);
		a[2 * *n_out + 1] = v->loc;
		(*out)[(*n_out)++] = arena_printf(b->ld.a, "%s=%s", n->pairs[i].key->str,
						  v->style == YSRC_QUOTED ?
						  arena_printf(b->ld.a, "'%s'", v->str) : v->str);
	}
	return rc;
}

/*
 * Check the job's own 'set' entries, from 'first' on, as overrides (their
 * paths' syntax), located where they are written.
 */
static int check_sets(struct batch_ld *b, const struct spec_batch_job *j, size_t first)
{
	size_t i;
	int rc = 0;

	for (i = first; i < j->n_sets; i++) {
		struct spec_override ov = SPEC_OVERRIDE_INIT;
		ov.at = j->set_at[2 * i];
		ov.value_at = j->set_at[2 * i + 1];
		if (spec_override_parse(j->sets[i], &ov, b->ld.dl) < 0)
			rc = -1;
		spec_override_release(&ov);
	}
	return rc;
}

/* Check the job's own 'vars' entries, from 'first' on: NAME=VALUE, NAME not empty. */
static int check_vars(struct batch_ld *b, const struct spec_batch_job *j,
		      const struct diag_loc *at, size_t first, const struct kpath *p)
{
	size_t i;
	int rc = 0;

	for (i = first; i < j->n_vars; i++)
		if (!strchr(j->vars[i], '=') || j->vars[i][0] == '=')
			rc = ld_error_at(&b->ld, at[2 * i], p, "expected NAME=VALUE, got '%s'",
					 j->vars[i]);
	return rc;
}

/* The command named at 'n' (one of b->commands). */
static int command_of(struct batch_ld *b, const struct ysrc_node *n, const struct kpath *p,
		      const char **out)
{
	size_t n_names = 0;
	int c;

	if (ld_want_scalar(&b->ld, n, p) < 0)
		return -1;
	while (b->commands[n_names])
		n_names++;
	c = ld_lookup_keyword(&b->ld, n, p, "command", n->str, b->commands, n_names);
	if (c < 0)
		return -1;
	*out = b->commands[c];
	return 0;
}

/* Job (or the defaults, 'pre' NULL) at 'n' into 'j', on top of the defaults 'pre'. */
static int read_job(struct batch_ld *b, const struct ysrc_node *n, const struct kpath *p,
		    const struct spec_batch_job *pre, struct spec_batch_job *j)
{
	const struct ysrc_node *v;
	int rc = 0;

	if (pre)
		*j = *pre;
	j->loc = n->loc;
	if (ld_want_map(&b->ld, n, p) < 0)
		return -1;
	if (ld_check_keys(&b->ld, n, p, job_keys, ARRAY_SIZE(job_keys)))
		rc = -1;
	if ((v = ld_get(n, "name"))) {
		struct kpath kp = KP_KEY(p, "name");
		if (!pre)
			rc = ld_error(&b->ld, v, &kp, "a name is given per job, not in the defaults");
		else if (!(j->name = ld_str(&b->ld, v, &kp)) || !*j->name)
			rc = ld_error(&b->ld, v, &kp, "expected a non-empty name");
		j->name_loc = v->loc;
	}
	if ((v = ld_get(n, "files"))) {
		struct kpath kp = KP_KEY(p, "files");
		if (str_list(b, v, &kp, pre ? pre->files : NULL, NULL, pre ? pre->n_files : 0, true,
			     &j->files, NULL, &j->n_files) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "set"))) {
		struct kpath kp = KP_KEY(p, "set");
		size_t first = pre ? pre->n_sets : 0;
		struct diag_loc *at;
		if (pairs(b, v, &kp, pre ? pre->sets : NULL, pre ? pre->set_at : NULL, first,
			  &j->sets, &at, &j->n_sets) < 0)
			rc = -1;
		j->set_at = at;
		if (check_sets(b, j, first) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "vars"))) {
		struct kpath kp = KP_KEY(p, "vars");
		size_t first = pre ? pre->n_vars : 0;
		struct diag_loc *at;
		if (pairs(b, v, &kp, pre ? pre->vars : NULL, pre ? pre->var_at : NULL, first,
			  &j->vars, &at, &j->n_vars) < 0)
			rc = -1;
		j->var_at = at;
		if (check_vars(b, j, at, first, &kp) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "tags"))) {
		struct kpath kp = KP_KEY(p, "tags");
		if (str_list(b, v, &kp, pre ? pre->tags : NULL, NULL, pre ? pre->n_tags : 0, false,
			     &j->tags, NULL, &j->n_tags) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "prune"))) {
		struct kpath kp = KP_KEY(p, "prune");
		if (str_list(b, v, &kp, pre ? pre->prunes : NULL, NULL, pre ? pre->n_prunes : 0,
			     false, &j->prunes, NULL, &j->n_prunes) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "layers"))) {
		struct kpath kp = KP_KEY(p, "layers");
		if (str_list(b, v, &kp, NULL, NULL, 0, true, &j->layers, NULL, &j->n_layers) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "command"))) {
		struct kpath kp = KP_KEY(p, "command");
		if (command_of(b, v, &kp, &j->command) < 0)
			rc = -1;
		j->has_command = true;
	}
	if ((v = ld_get(n, "seed"))) {
		struct kpath kp = KP_KEY(p, "seed");
		if (ld_uint(&b->ld, v, &kp, 0, UINT64_MAX, &j->seed) < 0)
			rc = -1;
		j->has_seed = true;
	}
	return rc;
}

/* Check job 'j' (index 'i') once read: files, a network maps, names are unique. */
static int check_job(struct batch_ld *b, const struct spec_batch *batch, size_t i,
		     const struct kpath *p)
{
	const struct spec_batch_job *j = &batch->jobs[i];
	size_t k;
	int rc = 0;

	if (!j->n_files)
		rc = ld_error_at(&b->ld, j->loc, p, "the job has no 'files' (nor the defaults)");
	if (j->n_layers && j->has_command && strcmp(j->command, "map"))
		rc = ld_error_at(&b->ld, j->loc, p, "a job with 'layers' maps them: its command "
				 "must be 'map', not '%s'", j->command);
	for (k = 0; k < i; k++)
		if (batch->jobs[k].name && !strcmp(batch->jobs[k].name, j->name)) {
			rc = ld_error_at(&b->ld, j->name_loc, p, "two jobs are named '%s'", j->name);
			ld_note(&b->ld, batch->jobs[k].name_loc, "'%s' first given here", j->name);
			break;
		}
	return rc;
}

/* The 'jobs' list at 'n' into 'batch', each on top of 'defaults'. */
static int read_jobs(struct batch_ld *b, const struct ysrc_node *n,
		     const struct spec_batch_job *defaults, struct spec_batch *batch)
{
	struct kpath kp = KP_KEY(NULL, "jobs");
	size_t i;
	int rc = 0;

	if (ld_want_seq(&b->ld, n, &kp) < 0)
		return -1;
	if (n->n == 0)
		return ld_error(&b->ld, n, &kp, "no jobs");
	batch->jobs = arena_calloc(b->ld.a, n->n, sizeof(*batch->jobs));
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(&kp, i);
		struct spec_batch_job *j = &batch->jobs[batch->n_jobs++];
		if (read_job(b, n->items[i], &ip, defaults, j) < 0) {
			rc = -1;       /* its name, if any, still counts for the later jobs' */
			continue;
		}
		if (!j->name) {
			j->name = arena_printf(b->ld.a, "job%zu", i + 1);
			j->name_loc = j->loc;
		}
		if (!j->has_command && j->n_layers) {
			j->command = "map";
			j->has_command = true;
		}
		if (check_job(b, batch, i, &ip) < 0)
			rc = -1;
	}
	return rc;
}

/* spec_batch_load(), or its text[0..len) when 'text' is not NULL. */
static struct spec_batch *load(const char *path, const char *text, size_t len,
			       const char *const *commands, struct diag_list *dl)
{
	struct spec_batch *batch = xcalloc(1, sizeof(*batch));
	struct batch_ld b;
	struct spec_batch_job defaults;
	const struct ysrc_node *v;
	struct ysrc_node *root;
	const char *slash = strrchr(path, '/');
	unsigned errors = dl->n_errors;

	memset(&b, 0, sizeof(b));
	memset(&defaults, 0, sizeof(defaults));
	b.ld.a = &batch->arena;
	b.ld.dl = dl;
	batch->path = path;            /* borrowed: the diagnostics' locations point to it */
	b.dir = slash ? arena_strndup(&batch->arena, path, (size_t)(slash - path) + 1) : "";
	defaults.command = "model";
	b.commands = commands ? commands : default_commands;
	if ((text ? ysrc_parse(&batch->arena, batch->path, text, len, dl, &root) :
		    ysrc_parse_file(&batch->arena, batch->path, dl, &root)) < 0)
		goto fail;
	if (!root || root->kind != YSRC_MAP) {
		diag_error(dl, root ? root->loc : (struct diag_loc){ batch->path, 1, 1 },
			   "expected a mapping with 'jobs' (and 'defaults'), got %s",
			   root ? ysrc_kind_name(root) : "an empty file");
		goto fail;
	}
	ld_check_keys(&b.ld, root, NULL, top_keys, ARRAY_SIZE(top_keys));
	if ((v = ld_get(root, "defaults"))) {
		struct kpath kp = KP_KEY(NULL, "defaults");
		read_job(&b, v, &kp, NULL, &defaults);
	}
	if (!(v = ld_get(root, "jobs")))
		diag_error(dl, root->loc, "no 'jobs' list");
	else
		read_jobs(&b, v, &defaults, batch);
	if (dl->n_errors == errors)
		return batch;
fail:
	spec_batch_free(batch);
	return NULL;
}

struct spec_batch *spec_batch_load(const char *path, const char *const *commands,
				   struct diag_list *dl)
{
	return load(path, NULL, 0, commands, dl);
}

struct spec_batch *spec_batch_load_text(const char *path, const char *text, size_t len,
					const char *const *commands, struct diag_list *dl)
{
	return load(path, text, len, commands, dl);
}

void spec_batch_free(struct spec_batch *batch)
{
	if (!batch)
		return;
	arena_release(&batch->arena);
	free(batch);
}

