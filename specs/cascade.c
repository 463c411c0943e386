/*
 * Cascade files ('--cascade FILE', docs/workloads.md "Cascades of Einsums"):
 * a workload made of several Einsums run one after the other, each stage a
 * file whose top-level keys (its 'problem', and its 'mapping' and
 * 'sparse_optimizations' when it has them) replace the design's, the
 * tensors the cascade is given from outside ('inputs'), and the tensors
 * that keep the non-zeros of another ('structure': an intermediate of a
 * sparse softmax is non-zero where its input is). Relative paths are read
 * from the file's directory. Every problem is a located error with the key
 * path, and a misspelt key gets a did-you-mean. What the stages' problems
 * say about the tensors they share is checked where the stages are loaded
 * (job/cascade.c), against this file's locations.
 */
#include "specs/specs_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const char *const top_keys[] = { "cascade" };
static const char *const cascade_keys[] = { "name", "inputs", "structure", "stages" };
static const char *const stage_keys[] = { "name", "file" };

struct cascade_ld {
	struct ld ld;                  /* the value readers' context (dl and arena only) */
	const char *dir;               /* the file's directory, with its '/', or "" */
};

static const char *resolve(struct cascade_ld *c, const char *path)
{
	if (path[0] == '/' || !c->dir[0])
		return path;
	return arena_printf(c->ld.a, "%s%s", c->dir, path);
}

/* A non-empty name at 'n' (a tensor or a stage), or NULL after an error. */
static const char *name_at(struct cascade_ld *c, const struct ysrc_node *n, const struct kpath *p)
{
	const char *s = ld_str(&c->ld, n, p);
	if (s && !*s) {
		ld_error(&c->ld, n, p, "expected a name, got an empty string");
		return NULL;
	}
	return s;
}

static void read_inputs(struct cascade_ld *c, const struct ysrc_node *n, const struct kpath *p,
			struct spec_cascade *out)
{
	size_t i, k;

	if (ld_want_seq(&c->ld, n, p) < 0)
		return;
	out->inputs = arena_calloc(c->ld.a, n->n + 1, sizeof(*out->inputs));
	out->input_locs = arena_calloc(c->ld.a, n->n + 1, sizeof(*out->input_locs));
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		const char *s = name_at(c, n->items[i], &ip);
		if (!s)
			continue;
		for (k = 0; k < out->n_inputs && strcmp(out->inputs[k], s); k++)
			;
		if (k < out->n_inputs) {
			ld_error(&c->ld, n->items[i], &ip, "input '%s' is listed twice", s);
			continue;
		}
		out->input_locs[out->n_inputs] = n->items[i]->loc;
		out->inputs[out->n_inputs++] = s;
	}
}

static void read_structure(struct cascade_ld *c, const struct ysrc_node *n,
			   const struct kpath *p, struct spec_cascade *out)
{
	size_t i;

	if (ld_want_map(&c->ld, n, p) < 0)
		return;
	out->structure = arena_calloc(c->ld.a, n->n + 1, sizeof(*out->structure));
	for (i = 0; i < n->n; i++) {
		const struct ysrc_pair *pr = &n->pairs[i];
		struct kpath kp = KP_KEY(p, pr->key->str);
		struct spec_cascade_structure *st = &out->structure[out->n_structure];
		const char *from = name_at(c, pr->value, &kp);
		if (!from)
			continue;
		if (!strcmp(from, pr->key->str)) {
			ld_error(&c->ld, pr->value, &kp, "tensor '%s' cannot keep its own non-zeros",
				 from);
			continue;
		}
		st->tensor = pr->key->str;
		st->from = from;
		st->loc = pr->key->loc;
		st->from_loc = pr->value->loc;
		out->n_structure++;
	}
}

static void read_stages(struct cascade_ld *c, const struct ysrc_node *n, const struct kpath *p,
			struct spec_cascade *out)
{
	size_t i, k;

	if (ld_want_seq(&c->ld, n, p) < 0)
		return;
	if (!n->n) {
		ld_error(&c->ld, n, p, "expected at least one stage, got an empty list");
		return;
	}
	out->stages = arena_calloc(c->ld.a, n->n + 1, sizeof(*out->stages));
	for (i = 0; i < n->n; i++) {
		const struct ysrc_node *it = n->items[i], *v;
		struct kpath ip = KP_IDX(p, i);
		struct spec_cascade_stage *st = &out->stages[out->n_stages];
		const char *s;

		memset(st, 0, sizeof(*st));
		st->loc = it->loc;
		if (it->kind == YSRC_SCALAR) {     /* just the file: named after it */
			if (!(s = name_at(c, it, &ip)))
				continue;
			st->file = resolve(c, s);
			st->file_loc = it->loc;
			st->name = s;
		} else {
			if (ld_want_map(&c->ld, it, &ip) < 0)
				continue;
			ld_check_keys(&c->ld, it, &ip, stage_keys, ARRAY_SIZE(stage_keys));
			if (!(v = ld_get(it, "file"))) {
				ld_error(&c->ld, it, &ip, "a stage needs its 'file' (its problem, "
					 "and its mapping and sparse_optimizations when it has them)");
				continue;
			} else {
				struct kpath kp = KP_KEY(&ip, "file");
				if (!(s = name_at(c, v, &kp)))
					continue;
				st->file = resolve(c, s);
				st->file_loc = v->loc;
				st->name = s;
			}
			if ((v = ld_get(it, "name"))) {
				struct kpath kp = KP_KEY(&ip, "name");
				if (!(s = name_at(c, v, &kp)))
					continue;
				st->name = s;
			}
		}
		for (k = 0; k < out->n_stages && strcmp(out->stages[k].name, st->name); k++)
			;
		if (k < out->n_stages) {
			ld_error(&c->ld, it, &ip, "stage name '%s' is used twice (give each a 'name')",
				 st->name);
			continue;
		}
		out->n_stages++;
	}
}

struct spec_cascade *spec_cascade_load(const char *path, struct diag_list *dl)
{
	struct spec_cascade *cs = xcalloc(1, sizeof(*cs));
	struct cascade_ld c;
	const struct ysrc_node *top, *v;
	struct ysrc_node *root;
	const char *slash = strrchr(path, '/');
	unsigned errors = dl->n_errors;
	struct kpath kp = KP_KEY(NULL, "cascade");

	memset(&c, 0, sizeof(c));
	c.ld.a = &cs->arena;
	c.ld.dl = dl;
	cs->path = path;
	c.dir = slash ? arena_strndup(&cs->arena, path, (size_t)(slash - path) + 1) : "";
	if (ysrc_parse_file(&cs->arena, cs->path, dl, &root) < 0)
		goto fail;
	if (!root || root->kind != YSRC_MAP) {
		diag_error(dl, root ? root->loc : (struct diag_loc){ cs->path, 1, 1 },
			   "expected a mapping with 'cascade', got %s",
			   root ? ysrc_kind_name(root) : "an empty file");
		goto fail;
	}
	ld_check_keys(&c.ld, root, NULL, top_keys, ARRAY_SIZE(top_keys));
	if (!(top = ld_get(root, "cascade"))) {
		diag_error(dl, root->loc, "no 'cascade' key (its 'stages', 'inputs' and "
			   "'structure')");
		goto fail;
	}
	if (ld_want_map(&c.ld, top, &kp) < 0)
		goto fail;
	ld_check_keys(&c.ld, top, &kp, cascade_keys, ARRAY_SIZE(cascade_keys));
	cs->loc = top->loc;
	if ((v = ld_get(top, "name"))) {
		struct kpath np = KP_KEY(&kp, "name");
		cs->name = name_at(&c, v, &np);
	}
	if ((v = ld_get(top, "inputs"))) {
		struct kpath np = KP_KEY(&kp, "inputs");
		read_inputs(&c, v, &np, cs);
	}
	if ((v = ld_get(top, "structure"))) {
		struct kpath np = KP_KEY(&kp, "structure");
		read_structure(&c, v, &np, cs);
	}
	if (!(v = ld_get(top, "stages"))) {
		diag_error(dl, top->loc, "no 'stages' list in 'cascade'");
	} else {
		struct kpath np = KP_KEY(&kp, "stages");
		read_stages(&c, v, &np, cs);
	}
	if (dl->n_errors == errors)
		return cs;
fail:
	spec_cascade_free(cs);
	return NULL;
}

void spec_cascade_free(struct spec_cascade *cs)
{
	if (!cs)
		return;
	arena_release(&cs->arena);
	free(cs);
}
