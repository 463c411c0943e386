/*
 * Overrides ("--set PATH=VALUE"): the path language, resolved on the merged
 * top-level view of one build and applied copy-on-write (the nodes on the
 * path are copied into the set's arena, everything else stays shared with
 * the source), and the notes that tie a diagnostic about an overridden node
 * to its override. docs/yaml-reference.md, "Overrides", is the user's view.
 */
#include "specs/specs_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

#define OV_MAX_STEPS 32
#define OV_MAX_CONDS 8
#define OV_MAX_NAMES 16      /* values listed by "no item of ... has" */
#define OV_MAX_LISTED 8      /* indexes listed by "matches N items" */

enum step_kind { STEP_KEY, STEP_INDEX, STEP_SELECT };

/* One condition KEY=VALUE of a [KEY=VALUE,...] step. */
struct cond {
	const char *key, *value;
};

/* One step of a path: .KEY, [N] or [KEY=VALUE,...]. */
struct step {
	enum step_kind kind;
	unsigned col;              /* 1-based column of its first character */
	size_t end;                /* offset just past it in the path */
	const char *key;           /* STEP_KEY */
	size_t index;              /* STEP_INDEX (SIZE_MAX: too large) */
	unsigned n_conds;          /* STEP_SELECT */
	struct cond conds[OV_MAX_CONDS];
};

struct opath {
	const char *text;          /* the path as written */
	unsigned n;
	struct step steps[OV_MAX_STEPS];
};

/* What a build keeps of one override: where its nodes are, what it changed. */
struct ld_override {
	const struct spec_override *ov;
	const char *file;          /* the set's copy of ov->origin: the file of its nodes */
	bool applied;
	bool added;                /* its last key was new */
	struct diag_loc replaced;  /* the node it replaced (when !added) */
	struct diag_loc holder;    /* the mapping or list that holds its node */
	const char *last;          /* its last step as written ("format", "[2]") */
	unsigned last_col;
	const char *last_key;      /* its last step when a key (a file value's key to take) */
	struct ld_ov_memo *memo;   /* what the source keeps of the parse of this PATH=VALUE */
};

/*
 * What the source keeps of the parse of one PATH=VALUE (a sweep's axis
 * value is the same text at every point that has it): the steps of its path
 * (their strings in cc_arena; the offsets and columns are the text's), and
 * once a build has parsed it, its value when that is a scalar and nothing
 * was said (each build takes a copy located in its own copy of the origin).
 * Written under cc_mu; the steps never change once kept.
 */
struct ld_ov_memo {
	const char *path, *value;
	unsigned value_col;
	unsigned n_steps;
	const struct step *steps;
	struct ysrc_node *node;                /* the value; NULL until a build parsed it */
};

/*
 * The nodes from a file's value of the top-level key down to the node
 * reached: node[i + 1] is child idx[i] (pair or item) of node[i].
 */
struct trail {
	unsigned top_i;
	unsigned n;
	const struct ysrc_node *node[OV_MAX_STEPS];
	size_t idx[OV_MAX_STEPS];
};

/* The nodes a path prefix reaches: one per file that gives it (merged keys). */
struct view {
	struct ld_top *slot;
	unsigned n;
	struct trail t[LD_MAX_FILES_PER_KEY];
};

/* ------------------------------------------------------------- the path */

/* Report an error at column 'col' of the override located in 'file'. */
static int __attribute__((format(printf, 4, 5)))
ov_error(struct diag_list *dl, const char *file, unsigned col, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag_error(dl, (struct diag_loc){ file, 1, col }, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* 'n' bytes of 's' without leading and trailing blanks, copied into 'a'. */
static const char *trimmed(struct arena *a, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return arena_strndup(a, s, n);
}

/* Offset of the first 'c' at bracket depth 0 in s[0..n), or n. */
static size_t find_top(const char *s, size_t n, char c)
{
	size_t i;
	int depth = 0;
	for (i = 0; i < n; i++) {
		if (s[i] == c && depth == 0)
			return i;
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth > 0)
			depth--;
	}
	return n;
}

/* Offset of the outermost '[' of 's' that is never closed, or strlen(s). */
static size_t unclosed(const char *s)
{
	size_t i, open = 0;
	int depth = 0;
	for (i = 0; s[i]; i++) {
		if (s[i] == '[' && depth++ == 0)
			open = i;
		else if (s[i] == ']' && depth > 0)
			depth--;
	}
	return depth ? open : i;
}

/* Parse "N" (decimal digits only) into '*out'; false when not a number. */
static bool parse_index(const char *s, size_t n, size_t *out)
{
	size_t i, v = 0;
	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v > (SIZE_MAX - 9) / 10 ? SIZE_MAX : v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* The conditions KEY=VALUE,... of the selector text s[0..n) at offset 'off'. */
static int parse_conds(struct arena *a, const char *file, const char *s, size_t n, size_t off,
		       struct step *st, struct diag_list *dl)
{
	size_t i = 0;

	st->kind = STEP_SELECT;
	while (i <= n) {
		size_t len = find_top(s + i, n - i, ','), eq = find_top(s + i, len, '=');
		const char *key = eq < len ? trimmed(a, s + i, eq) : "";
		const char *value = eq < len ? trimmed(a, s + i + eq + 1, len - eq - 1) : "";
		if (!*key || !*value)
			return ov_error(dl, file, (unsigned)(off + i + 1), "expected [N] or "
					"[KEY=VALUE,...], got '[%.*s]'", (int)n, s);
		if (st->n_conds == OV_MAX_CONDS)
			return ov_error(dl, file, (unsigned)(off + i + 1), "at most %d conditions "
					"in one '[...]'", OV_MAX_CONDS);
		st->conds[st->n_conds].key = key;
		st->conds[st->n_conds].value = value;
		st->n_conds++;
		i += len + 1;
	}
	return 0;
}

/* The step "[...]" at path[*i] ('[' there); '*i' moves past its ']'. */
static int parse_bracket(struct arena *a, const char *file, const char *path, size_t *i,
			 struct step *st, struct diag_list *dl)
{
	size_t open = *i, j = open + 1, n;
	int depth = 1;

	for (; path[j] && depth; j++)
		depth += path[j] == '[' ? 1 : path[j] == ']' ? -1 : 0;
	if (depth)
		return ov_error(dl, file, (unsigned)open + 1, "'[' is not closed");
	*i = j;
	n = j - open - 2;
	if (n == 0)
		return ov_error(dl, file, (unsigned)open + 1, "expected [N] or [KEY=VALUE,...], "
				"got '[]'");
	if (parse_index(path + open + 1, n, &st->index)) {
		st->kind = STEP_INDEX;
		return 0;
	}
	return parse_conds(a, file, path + open + 1, n, open + 1, st, dl);
}

/*
 * Parse 'path' (column 1 of the override's text) into 'op', strings in 'a'.
 * Syntax errors are reported at their column in 'file'.
 */
static int parse_path(struct arena *a, const char *file, const char *path, struct opath *op,
		      struct diag_list *dl)
{
	size_t i = 0;
	bool after_dot = false;

	op->text = path;
	op->n = 0;
	for (;;) {
		struct step *st = &op->steps[op->n];
		if (op->n == OV_MAX_STEPS)
			return ov_error(dl, file, (unsigned)i + 1, "a path has at most %d steps",
					OV_MAX_STEPS);
		memset(st, 0, sizeof(*st));
		st->col = (unsigned)i + 1;
		if (path[i] == '[' && op->n && !after_dot) {
			if (parse_bracket(a, file, path, &i, st, dl) < 0)
				return -1;
		} else {
			size_t k = strcspn(path + i, ".[]");
			if (k == 0)
				return ov_error(dl, file, (unsigned)i + 1, op->n ?
						"expected a key after '.'" :
						"expected a top-level key at the start of the path");
			st->kind = STEP_KEY;
			st->key = arena_strndup(a, path + i, k);
			i += k;
		}
		st->end = i;
		op->n++;
		after_dot = path[i] == '.';
		if (!path[i])
			return 0;
		if (path[i] == ']')
			return ov_error(dl, file, (unsigned)i + 1, "']' without '['");
		if (!after_dot && path[i] != '[')
			return ov_error(dl, file, (unsigned)i + 1, "expected '.' or '[' after ']'");
		if (after_dot)
			i++;
	}
}

/* ------------------------------------------------------ parsing overrides */

/*
 * Where line 'line', column 'col' of override 'ov''s text is written: in
 * its origin, or in the file its caller read it from (ov->at, and
 * ov->value_at for the columns of VALUE).
 */
static struct diag_loc ov_loc(const struct spec_override *ov, unsigned line, unsigned col)
{
	struct diag_loc at = ov->at;

	if (!at.line)
		return (struct diag_loc){ ov->origin, line, col };
	if (ov->value_at.line && col >= ov->value_col) {
		at = ov->value_at;
		col -= ov->value_col - 1;
	}
	if (line > 1)
		return (struct diag_loc){ at.file, at.line + line - 1, col };
	return (struct diag_loc){ at.file, at.line, col ? at.col + col - 1 : at.col };
}

/* Copy the diagnostics of 'from' to 'to', those located in ov->origin put where ov->at says. */
static void ov_relocate(const struct spec_override *ov, const struct diag_list *from,
			struct diag_list *to)
{
	size_t i;

	for (i = 0; i < from->n; i++) {
		const struct diag *d = &from->items[i];
		struct diag_loc loc = d->loc.file == ov->origin ?
				      ov_loc(ov, d->loc.line, d->loc.col) : d->loc;
		diag_copy(to, d, loc);
	}
}

static int parse_text(const char *text, struct spec_override *ov, struct diag_list *dl);

int spec_override_parse(const char *text, struct spec_override *ov, struct diag_list *dl)
{
	struct diag_list tmp = DIAG_LIST_INIT;
	int rc;

	if (!ov->at.line)
		return parse_text(text, ov, dl);
	rc = parse_text(text, ov, &tmp);
	ov_relocate(ov, &tmp, dl);
	diag_list_release(&tmp);
	return rc;
}

/* spec_override_parse(), its diagnostics in ov->origin. */
static int parse_text(const char *text, struct spec_override *ov, struct diag_list *dl)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(text), eq = find_top(text, len, '='), o_origin, o_path, o_value;
	struct arena a = ARENA_INIT;
	struct opath *op;
	int rc = 0;

	strbuf_add(&sb, text, len);
	strbuf_addch(&sb, '\0');
	o_origin = sb.len;
	strbuf_addf(&sb, "--set '%s'", text);
	strbuf_addch(&sb, '\0');
	o_path = sb.len;
	strbuf_add(&sb, text, eq);
	strbuf_addch(&sb, '\0');
	o_value = sb.len;
	if (eq < len)
		strbuf_addstr(&sb, text + eq + 1);
	ov->buf_ = strbuf_detach(&sb, NULL);
	ov->text = ov->buf_;
	ov->origin = ov->buf_ + o_origin;
	ov->path = ov->buf_ + o_path;
	ov->value = ov->buf_ + o_value;
	ov->value_col = (unsigned)eq + 2;
	if (eq == len && unclosed(text) < len)
		return ov_error(dl, ov->origin, (unsigned)unclosed(text) + 1, "'[' is not closed");
	if (eq == len)
		return ov_error(dl, ov->origin, (unsigned)len + 1,
				"expected PATH=VALUE: no '=' after the path");
	if (eq == 0)
		return ov_error(dl, ov->origin, 1, "the path before '=' is empty");
	op = xmalloc(sizeof(*op));
	if (parse_path(&a, ov->origin, ov->path, op, dl) < 0)
		rc = -1;
	free(op);
	arena_release(&a);
	return rc;
}

void spec_override_release(struct spec_override *ov)
{
	free(ov->buf_);
	*ov = (struct spec_override)SPEC_OVERRIDE_INIT;
}

/* ------------------------------------------------------ copy-on-write */

/* A copy of 'n' in 'a' with its own pair or item array (children shared). */
static struct ysrc_node *copy_node(struct arena *a, const struct ysrc_node *n, size_t extra)
{
	struct ysrc_node *c = arena_memdup(a, n, sizeof(*n));
	if (n->kind == YSRC_MAP) {
		c->pairs = arena_calloc(a, n->n + extra, sizeof(*c->pairs));
		if (n->n)
			memcpy(c->pairs, n->pairs, n->n * sizeof(*n->pairs));
	} else if (n->kind == YSRC_SEQ) {
		c->items = arena_calloc(a, n->n + extra, sizeof(*c->items));
		if (n->n)
			memcpy(c->items, n->items, n->n * sizeof(*n->items));
	}
	return c;
}

/* A copy of container 'n' whose child 'i' (a pair's value or an item) is 'child'. */
static struct ysrc_node *copy_set(struct arena *a, const struct ysrc_node *n, size_t i,
				  const struct ysrc_node *child)
{
	struct ysrc_node *c = copy_node(a, n, 0);
	if (c->kind == YSRC_MAP)
		c->pairs[i].value = (struct ysrc_node *)child;
	else
		c->items[i] = (struct ysrc_node *)child;
	return c;
}

/* A copy of map 'n' without pair 'i'. */
static struct ysrc_node *copy_without(struct arena *a, const struct ysrc_node *n, size_t i)
{
	struct ysrc_node *c = copy_node(a, n, 0);
	memmove(&c->pairs[i], &c->pairs[i + 1], (c->n - i - 1) * sizeof(*c->pairs));
	c->n--;
	return c;
}

/* A copy of map 'n' with the pair (key, value) added at the end. */
static struct ysrc_node *copy_adding(struct arena *a, const struct ysrc_node *n,
				     struct ysrc_node *key, struct ysrc_node *value)
{
	struct ysrc_node *c = copy_node(a, n, 1);
	c->pairs[c->n].key = key;
	c->pairs[c->n].value = value;
	c->n++;
	return c;
}

/* Replace the last node of 't' by 'cur', copying every node above it. */
static void commit(struct ld *ld, struct view *v, const struct trail *t, struct ysrc_node *cur)
{
	unsigned i = t->n - 1;
	while (i-- > 0)
		cur = copy_set(ld->a, t->node[i], t->idx[i], cur);
	v->slot->values[t->top_i] = cur;
}

/* ------------------------------------------------------------ resolution */

/* The node a trail has reached. */
static const struct ysrc_node *cur_of(const struct trail *t)
{
	return t->node[t->n - 1];
}

/* Extend 't' by child 'i' of its last node. */
static void descend(struct trail *t, size_t i)
{
	const struct ysrc_node *c = cur_of(t);
	t->idx[t->n - 1] = i;
	t->node[t->n] = c->kind == YSRC_MAP ? c->pairs[i].value : c->items[i];
	t->n++;
}

/* Index of the pair of map 'm' whose key equals 'key' ('-' == '_'), or -1. */
static long pair_of(const struct ysrc_node *m, const char *key)
{
	size_t i;
	for (i = 0; i < m->n; i++)
		if (ysrc_key_eq(m->pairs[i].key->str, key))
			return (long)i;
	return -1;
}

/* The path as written up to (not including) step 's', into 'sb'. */
static void add_prefix(struct strbuf *sb, const struct opath *op, unsigned s)
{
	strbuf_add(sb, op->text, op->steps[s - 1].end);
}

/* The value of override 'r' parsed as YAML, located in the override; NULL after errors. */
/* The value of a file-valued override: the file, or its top-level key 'key' when it has it. */
static struct ysrc_node *file_value(struct ld *ld, const struct ld_override *r, const char *key)
{
	/* its nodes' file name: the caller's string, which outlives the set and its diagnostics */
	const char *path = r->ov->value_file;
	struct ysrc_node *root = NULL;
	long k;

	if (ysrc_parse_file(ld->a, path, ld->dl, &root) < 0)
		return NULL;
	if (!root) {
		ov_error(ld->dl, r->file, r->ov->value_col, "'%s' is empty", path);
		return NULL;
	}
	if (key && root->kind == YSRC_MAP && (k = pair_of(root, key)) >= 0)
		return root->pairs[k].value;
	return root;
}

/* A scalar value parsed with nothing said, for every build with this override's text. */
static void memo_value(struct ld *ld, struct ld_override *r, const struct ysrc_node *root)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	struct ysrc_node *v;

	pthread_mutex_lock(&src->cc_mu);
	if (!r->memo->node) {
		v = arena_memdup(&src->cc_arena, root, sizeof(*root));
		v->str = arena_strdup(&src->cc_arena, root->str);
		v->tag = arena_strdup(&src->cc_arena, root->tag);
		v->loc.file = NULL;
		r->memo->node = v;
	}
	pthread_mutex_unlock(&src->cc_mu);
}

static struct ysrc_node *parse_value(struct ld *ld, struct ld_override *r)
{
	const struct spec_override *ov = r->ov;
	struct spec_source *src = (struct spec_source *)ld->s->source;
	const struct ysrc_node *kept = NULL;
	struct ysrc_node *root;
	size_t said;

	if (ov->value_file)
		return file_value(ld, r, r->last_key);
	if (r->memo) {
		pthread_mutex_lock(&src->cc_mu);
		kept = r->memo->node;
		pthread_mutex_unlock(&src->cc_mu);
	}
	if (kept) {   /* the build's own node, located in its copy of the origin */
		root = arena_memdup(ld->a, kept, sizeof(*kept));
		root->loc.file = r->file;
		return root;
	}
	said = ld_said(ld);
	if (ysrc_parse_at(ld->a, r->file, ov->value_col, ov->value, strlen(ov->value), ld->dl,
			  &root) < 0)
		return NULL;
	if (!root)   /* empty: null, as "key:" is */
		return ysrc_scalar_new(ld->a, "", (struct diag_loc){ r->file, 1, ov->value_col });
	if (r->memo && root->kind == YSRC_SCALAR && ld_said(ld) == said)
		memo_value(ld, r, root);
	return root;
}

/*
 * A key 'key' somewhere in the maps one or two levels below the maps of
 * 'v' ("instance" for "densities" below "problem"): the keys on the way,
 * dot-separated, into 'sb'; false when there is none.
 */
static bool find_deeper(const struct view *v, const char *key, struct strbuf *sb)
{
	unsigned k;
	size_t i, j;

	for (k = 0; k < v->n; k++) {
		const struct ysrc_node *m = cur_of(&v->t[k]);
		if (m->kind != YSRC_MAP)
			continue;
		for (i = 0; i < m->n; i++) {
			const struct ysrc_node *c = m->pairs[i].value;
			if (c->kind == YSRC_MAP && pair_of(c, key) >= 0) {
				strbuf_addstr(sb, m->pairs[i].key->str);
				return true;
			}
		}
		for (i = 0; i < m->n; i++) {
			const struct ysrc_node *c = m->pairs[i].value;
			if (c->kind != YSRC_MAP)
				continue;
			for (j = 0; j < c->n; j++) {
				const struct ysrc_node *d = c->pairs[j].value;
				if (d->kind == YSRC_MAP && pair_of(d, key) >= 0) {
					strbuf_addf(sb, "%s.%s", m->pairs[i].key->str,
						    c->pairs[j].key->str);
					return true;
				}
			}
		}
	}
	return false;
}

/* The first node of 'v' of kind 'kind', or NULL. */
static const struct ysrc_node *first_of_kind(const struct view *v, enum ysrc_kind kind)
{
	unsigned k;
	for (k = 0; k < v->n; k++)
		if (cur_of(&v->t[k])->kind == kind)
			return cur_of(&v->t[k]);
	return NULL;
}

/* Note "'PREFIX' is given here" at node 'n'. */
static void note_given(struct ld *ld, const struct opath *op, unsigned s,
		       const struct ysrc_node *n)
{
	struct strbuf sb = STRBUF_INIT;
	add_prefix(&sb, op, s);
	diag_note(ld->dl, n->loc, "'%s' is given here", sb.buf);
	strbuf_release(&sb);
}

/* "no key 'K' in 'PREFIX'" with the nearest key, or where the key is deeper down. */
static int missing_key(struct ld *ld, const struct ld_override *r, const struct opath *op,
		       unsigned s, const struct view *v)
{
	const struct step *st = &op->steps[s];
	const char **names = NULL;
	size_t n_names = 0, alloc = 0, i;
	const char *hint;
	struct strbuf sb = STRBUF_INIT, deep = STRBUF_INIT;
	unsigned k;

	for (k = 0; k < v->n; k++) {
		const struct ysrc_node *m = cur_of(&v->t[k]);
		for (i = 0; m->kind == YSRC_MAP && i < m->n; i++) {
			XGROW(names, n_names + 1, alloc);
			names[n_names++] = m->pairs[i].key->str;
		}
	}
	hint = diag_suggest(st->key, names, n_names);
	strbuf_addf(&sb, "no key '%s' in '", st->key);
	add_prefix(&sb, op, s);
	strbuf_addstr(&sb, "'");
	if (hint) {
		strbuf_addf(&sb, "; did you mean '%s'?", hint);
	} else if (find_deeper(v, st->key, &deep)) {
		strbuf_addstr(&sb, "; did you mean '");
		add_prefix(&sb, op, s);
		strbuf_addf(&sb, ".%s.%s'?", deep.buf, op->text + st->col - 1);
	} else {
		strbuf_addstr(&sb, " (only the last key of a path may be new)");
	}
	ov_error(ld->dl, r->file, st->col, "%s", sb.buf);
	note_given(ld, op, s, first_of_kind(v, YSRC_MAP));
	strbuf_release(&sb);
	strbuf_release(&deep);
	free(names);
	return -1;
}

/* "'PREFIX' is a list, not a mapping" (or the other way round). */
static int wrong_kind(struct ld *ld, const struct ld_override *r, const struct opath *op,
		      unsigned s, const struct view *v)
{
	const struct step *st = &op->steps[s];
	const struct ysrc_node *n = cur_of(&v->t[0]);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addch(&sb, '\'');
	add_prefix(&sb, op, s);
	if (st->kind == STEP_KEY)
		strbuf_addf(&sb, "' is %s, not a mapping%s", ysrc_kind_name(n),
			    n->kind == YSRC_SEQ ? ": pick an item with [N] or [KEY=VALUE]" : "");
	else
		strbuf_addf(&sb, "' is %s, not a list: '%.*s' needs a list", ysrc_kind_name(n),
			    (int)(st->end - st->col + 1), op->text + st->col - 1);
	ov_error(ld->dl, r->file, st->col, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * How well the scalar 'have' matches the selector value 'want': 0 equal,
 * 1 equal without an instance range ("PE[0..255]" for "PE"), 2 equal to
 * the component after the last '.' without a range (an ERT table name
 * "system.Buffer[1..1]" for "Buffer"), 3 no match.
 */
static int match_tier(const char *have, const char *want)
{
	size_t base = strcspn(have, "["), n = strlen(want), dot = base;

	if (!strcmp(have, want))
		return 0;
	if (have[base] && base == n && !strncmp(have, want, n))
		return 1;
	if (strchr(want, '.'))
		return 3;
	while (dot > 0 && have[dot - 1] != '.')
		dot--;
	if (dot > 0 && base - dot == n && !strncmp(have + dot, want, n))
		return 2;
	return 3;
}

/* The best tier at which item 'it' satisfies every condition of 'st' (3: none). */
static int item_tier(const struct ysrc_node *it, const struct step *st)
{
	unsigned c;
	int worst = 0;

	if (it->kind != YSRC_MAP)
		return 3;
	for (c = 0; c < st->n_conds; c++) {
		const struct ysrc_node *v = ysrc_map_get(it, st->conds[c].key);
		int t = v && v->kind == YSRC_SCALAR ? match_tier(v->str, st->conds[c].value) : 3;
		if (t > worst)
			worst = t;
	}
	return worst;
}

/* One item of the lists a view reaches: trail 'k', item 'i' (number 'pos' overall). */
struct pick {
	unsigned k;
	size_t i, pos;
};

/*
 * The value among names[0..n) nearest to 'want', each also taken without
 * its instance range and without its prefix up to the last '.' (as the
 * selector matches them): the form that is near, copied into 'a', or NULL.
 */
static const char *suggest_value(struct arena *a, const char *want, const char *const *names,
				 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t base = strcspn(names[i], "["), dot = base;
		const char *cand[3], *hint;
		while (dot > 0 && names[i][dot - 1] != '.')
			dot--;
		cand[0] = names[i];
		cand[1] = arena_strndup(a, names[i], base);
		cand[2] = cand[1] + dot;
		if ((hint = diag_suggest(want, cand, 3)))
			return hint;
	}
	return NULL;
}

/* "no item of 'PREFIX' has K=V", with the nearest value and the values there are. */
static int no_item(struct ld *ld, const struct ld_override *r, const struct opath *op,
		   unsigned s, const struct view *v)
{
	const struct step *st = &op->steps[s];
	const char *names[OV_MAX_NAMES];
	size_t n_names = 0, i, j;
	const struct cond *c = &st->conds[0];
	const char *hint;
	struct strbuf sb = STRBUF_INIT;
	unsigned k, ci;

	for (ci = 0; ci < st->n_conds; ci++) {     /* the first condition no item satisfies */
		struct step one = *st;
		bool any = false;
		one.n_conds = 1;
		one.conds[0] = st->conds[ci];
		for (k = 0; k < v->n && !any; k++) {
			const struct ysrc_node *l = cur_of(&v->t[k]);
			for (i = 0; l->kind == YSRC_SEQ && i < l->n && !any; i++)
				any = item_tier(l->items[i], &one) < 3;
		}
		if (!any) {
			c = &st->conds[ci];
			break;
		}
	}
	strbuf_addstr(&sb, "no item of '");
	add_prefix(&sb, op, s);
	strbuf_addf(&sb, "' has %.*s", (int)(st->end - st->col - 1), op->text + st->col);
	for (k = 0; k < v->n; k++) {
		const struct ysrc_node *l = cur_of(&v->t[k]);
		for (i = 0; l->kind == YSRC_SEQ && i < l->n; i++) {
			const struct ysrc_node *nv = ysrc_map_get(l->items[i], c->key);
			bool seen = false;
			if (!nv || nv->kind != YSRC_SCALAR || n_names == OV_MAX_NAMES)
				continue;
			for (j = 0; j < n_names && !seen; j++)
				seen = !strcmp(names[j], nv->str);
			if (!seen)
				names[n_names++] = nv->str;
		}
	}
	hint = ci < st->n_conds ? suggest_value(ld->a, c->value, names, n_names) : NULL;
	if (hint)
		strbuf_addf(&sb, "; did you mean '%s'?", hint);
	if (n_names) {
		strbuf_addf(&sb, " (values of '%s':", c->key);
		for (j = 0; j < n_names; j++)
			strbuf_addf(&sb, "%s %s", j ? "," : "", names[j]);
		strbuf_addch(&sb, ')');
	}
	ov_error(ld->dl, r->file, st->col, "%s", sb.buf);
	note_given(ld, op, s, first_of_kind(v, YSRC_SEQ));
	strbuf_release(&sb);
	return -1;
}

/* "'PREFIX[...]' matches N items ([a], [b], ...)". */
static int ambiguous(struct ld *ld, const struct ld_override *r, const struct opath *op,
		     unsigned s, const struct pick *picks, size_t n)
{
	const struct step *st = &op->steps[s];
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addf(&sb, "'%.*s' matches %zu items (", (int)st->end, op->text, n);
	for (i = 0; i < n && i < OV_MAX_LISTED; i++)
		strbuf_addf(&sb, "%s[%zu]", i ? ", " : "", picks[i].pos);
	strbuf_addf(&sb, "%s); add a condition to pick one", n > OV_MAX_LISTED ? ", ..." : "");
	ov_error(ld->dl, r->file, st->col, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* The item step 's' ([N] or [K=V,...]) picks from the lists of 'v'; -1 after an error. */
static int pick_item(struct ld *ld, const struct ld_override *r, const struct opath *op,
		     unsigned s, const struct view *v, struct pick *out)
{
	const struct step *st = &op->steps[s];
	struct pick *picks = NULL;
	size_t n_picks = 0, alloc = 0, pos = 0, i;
	int best = 3, rc = 0;
	unsigned k;

	if (!first_of_kind(v, YSRC_SEQ))
		return wrong_kind(ld, r, op, s, v);
	for (k = 0; k < v->n; k++) {
		const struct ysrc_node *l = cur_of(&v->t[k]);
		for (i = 0; l->kind == YSRC_SEQ && i < l->n; i++, pos++) {
			int t = st->kind == STEP_INDEX ? (st->index == pos ? 0 : 3) :
				item_tier(l->items[i], st);
			if (t > best || t == 3)
				continue;
			if (t < best)
				n_picks = 0;
			best = t;
			XGROW(picks, n_picks + 1, alloc);
			picks[n_picks++] = (struct pick){ k, i, pos };
		}
	}
	if (n_picks == 1) {
		*out = picks[0];
	} else if (n_picks > 1) {
		rc = ambiguous(ld, r, op, s, picks, n_picks);
	} else if (st->kind == STEP_INDEX) {
		struct strbuf sb = STRBUF_INIT;
		add_prefix(&sb, op, s);
		rc = ov_error(ld->dl, r->file, st->col, "index %.*s is out of range: '%s' has %zu "
			      "item%s", (int)(st->end - st->col - 1), op->text + st->col, sb.buf,
			      pos, pos == 1 ? "" : "s");
		strbuf_release(&sb);
	} else {
		rc = no_item(ld, r, op, s, v);
	}
	free(picks);
	return rc;
}

/* Remember for the notes what override 'r' changes at the last node of 't'. */
static void record(struct ld_override *r, const struct trail *t, const struct ysrc_node *old,
		   const struct opath *op)
{
	const struct step *st = &op->steps[op->n - 1];
	r->holder = cur_of(t)->loc;
	r->added = !old;
	if (old)
		r->replaced = old->loc;
	r->last_col = st->col;
}

/* The last step is a key: replace it where the files give it, else add it. */
static int set_key(struct ld *ld, struct ld_override *r, const struct opath *op,
		   struct view *v, struct ysrc_node *value)
{
	const struct step *st = &op->steps[op->n - 1];
	const struct trail *first = NULL, *first_map = NULL;
	unsigned k;

	for (k = 0; k < v->n; k++) {
		const struct trail *t = &v->t[k];
		const struct ysrc_node *m = cur_of(t);
		long i = m->kind == YSRC_MAP ? pair_of(m, st->key) : -1;
		if (m->kind == YSRC_MAP && !first_map)
			first_map = t;
		if (i < 0)
			continue;
		if (first) {     /* given in several files: the value replaces all of them */
			commit(ld, v, t, copy_without(ld->a, m, (size_t)i));
			continue;
		}
		first = t;
		record(r, t, m->pairs[i].value, op);
		commit(ld, v, t, copy_set(ld->a, m, (size_t)i, value));
	}
	if (first)
		return 0;
	if (!first_map)
		return wrong_kind(ld, r, op, op->n - 1, v);
	record(r, first_map, NULL, op);
	commit(ld, v, first_map,
	       copy_adding(ld->a, cur_of(first_map),
			   ysrc_scalar_new(ld->a, st->key, (struct diag_loc){ r->file, 1, st->col }),
			   value));
	return 0;
}

/* A path of one step: the whole value of a top-level key (added when no file gives it). */
static int set_top(struct ld *ld, struct ld_override *r, const struct opath *op,
		   const struct top_key *tk)
{
	struct ld_top *slot = ld_top_slot(ld->top, &ld->n_top, tk->canonical);
	struct ysrc_node *value = parse_value(ld, r);

	if (!value)
		return -1;
	r->last_col = 1;
	if (slot->n) {
		r->replaced = slot->values[0]->loc;
	} else {
		r->added = true;
		slot->keys[0] = ysrc_scalar_new(ld->a, op->steps[0].key,
						(struct diag_loc){ r->file, 1, 1 });
	}
	slot->values[0] = value;
	slot->n = 1;
	return 0;
}

/* ------------------------------------------------- addressing by name */

#define OV_MAX_FOUND 64

/* The components a name (or '*') addresses: trails to their maps, and their paths. */
struct found {
	size_t n, n_total;             /* kept, and all that matched */
	struct ld_top *slot[OV_MAX_FOUND];
	struct trail t[OV_MAX_FOUND];
	char path[OV_MAX_FOUND][160];
	bool has_next[OV_MAX_FOUND];   /* it has the path's next key (itself or in attributes) */
	const char *names[OV_MAX_FOUND];   /* with 'want' NULL: every component's name */
};

/* 'name' as a component's name: equal, or equal before a "[1..N]" suffix. */
static bool name_is(const char *have, const char *want)
{
	size_t n = strcspn(have, "[");
	return strlen(want) == n && !strncmp(have, want, n);
}

/* True when map 'm' has 'key' itself or in its 'attributes'. */
static bool has_key_or_attr(const struct ysrc_node *m, const char *key)
{
	long a;
	if (pair_of(m, key) >= 0)
		return true;
	a = pair_of(m, "attributes");
	return a >= 0 && m->pairs[a].value->kind == YSRC_MAP &&
	       pair_of(m->pairs[a].value, key) >= 0;
}

/*
 * Walk node 'n' (reached by trail 't', written 'path'): every map of a list
 * whose 'name' is 'want' (any named map for "*" that has 'next' itself or
 * in its attributes) is found; the walk goes on inside it.
 */
static void find_named(struct ld_top *slot, struct trail *t, struct strbuf *path,
		       const char *want, const char *next, struct found *f)
{
	const struct ysrc_node *n = cur_of(t);
	size_t i, len = path->len;

	if (t->n + 2 >= OV_MAX_STEPS)
		return;
	for (i = 0; i < n->n; i++) {
		const struct ysrc_node *c = n->kind == YSRC_MAP ? n->pairs[i].value : n->items[i];
		if (c->kind == YSRC_SCALAR)
			continue;
		if (n->kind == YSRC_MAP)
			strbuf_addf(path, ".%s", n->pairs[i].key->str);
		else
			strbuf_addf(path, "[%zu]", i);
		descend(t, i);
		if (n->kind == YSRC_SEQ && c->kind == YSRC_MAP) {
			long k = pair_of(c, "name");
			const struct ysrc_node *nm = k >= 0 ? c->pairs[k].value : NULL;
			bool hit = nm && nm->kind == YSRC_SCALAR &&
				   (!want || (strcmp(want, "*") ? name_is(nm->str, want) :
					      next && has_key_or_attr(c, next)));
			if (hit && f->n_total++ < OV_MAX_FOUND) {
				f->names[f->n] = nm->str;
				f->has_next[f->n] = next && has_key_or_attr(c, next);
				f->slot[f->n] = slot;
				f->t[f->n] = *t;
				snprintf(f->path[f->n++], sizeof(f->path[0]), "%s", path->buf);
			}
		}
		find_named(slot, t, path, want, next, f);
		t->n--;
		strbuf_setlen(path, len);
	}
}

/*
 * Find what the first step of 'op' (a name, or '*') addresses in every
 * top-level value; with 'all', every named component. A name that several
 * components have keeps those with the path's next key, when some have it.
 */
static void find_all_named(struct ld *ld, const struct opath *op, bool all, struct found *f)
{
	struct strbuf path = STRBUF_INIT;
	struct trail t;
	size_t i, j;

	f->n = f->n_total = 0;
	for (i = 0; i < ld->n_top; i++)
		for (j = 0; j < ld->top[i].n; j++) {
			memset(&t, 0, sizeof(t));
			t.top_i = (unsigned)j;
			t.n = 1;
			t.node[0] = ld->top[i].values[j];
			strbuf_reset(&path);
			strbuf_addstr(&path, ld->top[i].key);
			find_named(&ld->top[i], &t, &path, all ? NULL : op->steps[0].key,
				   op->n > 1 && op->steps[1].kind == STEP_KEY ? op->steps[1].key : NULL,
				   f);
		}
	strbuf_release(&path);
	if (!all && f->n_total == f->n && f->n > 1) {
		size_t k, kept = 0;
		for (k = 0; k < f->n; k++)
			kept += f->has_next[k];
		if (kept && kept < f->n) {
			size_t w = 0;
			for (k = 0; k < f->n; k++) {
				if (!f->has_next[k])
					continue;
				f->slot[w] = f->slot[k];
				f->t[w] = f->t[k];
				memcpy(f->path[w], f->path[k], sizeof(f->path[0]));
				f->has_next[w] = true;
				f->names[w++] = f->names[k];
			}
			f->n = f->n_total = w;
		}
	}
}

/* "unknown top-level key 'X'", with a did-you-mean over the keys, else over the components. */
static int no_such_name(struct ld *ld, const struct ld_override *r, const struct opath *op,
			struct found *f)
{
	struct strbuf sb = STRBUF_INIT;
	const char *near;
	size_t k, n = 0;
	const char *names[OV_MAX_FOUND];

	ld_top_key_unknown(ld->s->source, op->steps[0].key, &sb);
	if (!strstr(sb.buf, "did you mean")) {
		find_all_named(ld, op, true, f);
		for (k = 0; k < f->n; k++) {
			char *c = arena_strndup(ld->a, f->names[k], strcspn(f->names[k], "["));
			names[n++] = c;
		}
		near = diag_suggest(op->steps[0].key, names, n);
		strbuf_addf(&sb, ", nor a component's name");
		if (near)
			strbuf_addf(&sb, "; did you mean '%s'?", near);
	}
	ov_error(ld->dl, r->file, 1, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * The view of component 'k' of 'f' for the rest of the path: a key the
 * component does not have but its 'attributes' do is reached through them
 * (psum_spad.depth is psum_spad.attributes.depth).
 */
static void view_of_found(const struct found *f, size_t k, const struct opath *op,
			  struct view *v)
{
	const struct ysrc_node *m;
	long a;

	v->slot = f->slot[k];
	v->n = 1;
	v->t[0] = f->t[k];
	m = cur_of(&v->t[0]);
	if (op->n > 1 && op->steps[1].kind == STEP_KEY && pair_of(m, op->steps[1].key) < 0 &&
	    (a = pair_of(m, "attributes")) >= 0 && m->pairs[a].value->kind == YSRC_MAP &&
	    pair_of(m->pairs[a].value, op->steps[1].key) >= 0)
		descend(&v->t[0], (size_t)a);
}

/* The first step: a top-level key given by at least one file; fills 'v'. */
static int start_view(struct ld *ld, struct ld_override *r, const struct opath *op,
		      struct view *v)
{
	const struct step *st = &op->steps[0];
	struct top_key buf;
	const struct top_key *tk = ld_top_key_of(ld->s->source, st->key, &buf);
	struct ld_top *slot = NULL;
	size_t i;

	if (!tk) {
		struct strbuf sb = STRBUF_INIT;
		ld_top_key_unknown(ld->s->source, st->key, &sb);
		ov_error(ld->dl, r->file, 1, "%s", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	if (tk->merge == TOP_IGNORED)
		return ov_error(ld->dl, r->file, 1, "'%s' is accepted and ignored: an override "
				"of it would change nothing", st->key);
	if (op->n == 1)
		return set_top(ld, r, op, tk);
	for (i = 0; i < ld->n_top; i++)
		if (!strcmp(ld->top[i].key, tk->canonical))
			slot = &ld->top[i];
	if (!slot || !slot->n)
		return ov_error(ld->dl, r->file, 1, "no file gives '%s' (only the last key of a "
				"path may be new)", st->key);
	v->slot = slot;
	v->n = (unsigned)slot->n;
	for (i = 0; i < slot->n; i++) {
		v->t[i].top_i = (unsigned)i;
		v->t[i].n = 1;
		v->t[i].node[0] = slot->values[i];
	}
	return 0;
}

/* Step 's' (not the last) is a key: keep the trails whose map has it. */
static int step_key(struct ld *ld, const struct ld_override *r, const struct opath *op,
		    unsigned s, struct view *v)
{
	unsigned k, kept = 0;

	for (k = 0; k < v->n; k++) {
		const struct ysrc_node *m = cur_of(&v->t[k]);
		long i = m->kind == YSRC_MAP ? pair_of(m, op->steps[s].key) : -1;
		if (i < 0)
			continue;
		if (kept != k)
			v->t[kept] = v->t[k];
		descend(&v->t[kept++], (size_t)i);
	}
	if (kept) {
		v->n = kept;
		return 0;
	}
	return first_of_kind(v, YSRC_MAP) ? missing_key(ld, r, op, s, v) :
		wrong_kind(ld, r, op, s, v);
}

/* Resolve the steps after the first of 'op' from view 'v' and apply the value. */
static int apply_rest(struct ld *ld, struct ld_override *r, struct opath *op, struct view *v)
{
	unsigned s;
	struct pick pk;
	struct ysrc_node *value;

	r->last = arena_strndup(ld->a, op->text + op->steps[op->n - 1].col - 1,
				op->steps[op->n - 1].end - op->steps[op->n - 1].col + 1);
	for (s = 1; s + 1 < op->n; s++) {
		if (op->steps[s].kind == STEP_KEY) {
			if (step_key(ld, r, op, s, v) < 0)
				return -1;
			continue;
		}
		if (pick_item(ld, r, op, s, v, &pk) < 0)
			return -1;
		if (pk.k)
			v->t[0] = v->t[pk.k];
		v->n = 1;
		descend(&v->t[0], pk.i);
	}
	if (op->steps[s].kind != STEP_KEY && pick_item(ld, r, op, s, v, &pk) < 0)
		return -1;
	if (!(value = parse_value(ld, r)))
		return -1;
	if (op->steps[s].kind == STEP_KEY)
		return set_key(ld, r, op, v, value);
	record(r, &v->t[pk.k], cur_of(&v->t[pk.k])->items[pk.i], op);
	commit(ld, v, &v->t[pk.k], copy_set(ld->a, cur_of(&v->t[pk.k]), pk.i, value));
	return 0;
}

/*
 * A whole file as an override: each of its top-level keys replaces the
 * design's (as if the file were given last, replacing rather than merging).
 */
static int apply_file(struct ld *ld, struct ld_override *r)
{
	struct ysrc_node *root = file_value(ld, r, NULL);
	size_t i;

	if (!root)
		return -1;
	if (root->kind != YSRC_MAP)
		return ov_error(ld->dl, r->file, r->ov->value_col, "'%s' is not a mapping of "
				"top-level keys", r->ov->value_file);
	r->last_col = r->ov->value_col;
	r->added = true;
	for (i = 0; i < root->n; i++) {
		struct top_key buf;
		const struct top_key *tk = ld_top_key_of(ld->s->source, root->pairs[i].key->str, &buf);
		struct ld_top *slot;
		if (!tk) {
			struct strbuf sb = STRBUF_INIT;
			ld_top_key_unknown(ld->s->source, root->pairs[i].key->str, &sb);
			diag_error(ld->dl, root->pairs[i].key->loc, "%s", sb.buf);
			strbuf_release(&sb);
			return -1;
		}
		if (tk->merge == TOP_IGNORED)
			continue;
		slot = ld_top_slot(ld->top, &ld->n_top, tk->canonical);
		slot->keys[0] = root->pairs[i].key;
		slot->values[0] = root->pairs[i].value;
		slot->n = 1;
	}
	return 0;
}

/* A first step that names a component (or '*' for every one with the next key). */
static bool addresses_by_name(struct ld *ld, const struct opath *op)
{
	struct top_key buf;
	const struct step *st = &op->steps[0];

	if (st->kind != STEP_KEY || op->n < 2)
		return false;
	return !strcmp(st->key, "*") || !ld_top_key_of(ld->s->source, st->key, &buf);
}

/*
 * Apply 'r' by name: NAME.REST sets REST in the one component named NAME at
 * any depth (ambiguous: an error listing the paths); *.REST in every named
 * component that has REST's first key (itself or in its attributes). None
 * found: the error of an unknown top-level key, and the names near NAME.
 */
static int apply_named(struct ld *ld, struct ld_override *r, struct opath *op, struct view *v)
{
	struct found *f = xmalloc(sizeof(*f));
	const struct step *st = &op->steps[0];
	bool star = !strcmp(st->key, "*");
	size_t k, n;
	int rc = 0;

	find_all_named(ld, op, false, f);
	n = f->n;
	if (n == 0) {
		if (star)
			rc = ov_error(ld->dl, r->file, 1, "'*' matches no component with '%s' (itself "
				      "or in its attributes)", op->steps[1].key);
		else
			rc = no_such_name(ld, r, op, f);
	} else if (!star && f->n_total > 1) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "'%s' names %zu components (", st->key, f->n_total);
		for (k = 0; k < n && k < OV_MAX_LISTED; k++)
			strbuf_addf(&sb, "%s%s", k ? ", " : "", f->path[k]);
		strbuf_addf(&sb, "%s); write the path of the one meant", f->n_total > k ? ", ..." : "");
		rc = ov_error(ld->dl, r->file, 1, "%s", sb.buf);
		strbuf_release(&sb);
	} else if (f->n_total > OV_MAX_FOUND) {
		rc = ov_error(ld->dl, r->file, 1, "'*' matches more than %d components",
			      OV_MAX_FOUND);
	} else {
		/* each apply copies the nodes on its path: find the next one again after it */
		for (k = 0; k < n && rc == 0; k++) {
			if (k)
				find_all_named(ld, op, false, f);
			if (f->n != n)
				BUG("the components found changed under an override");
			view_of_found(f, k, op, v);
			rc = apply_rest(ld, r, op, v);
		}
	}
	free(f);
	return rc;
}

/* ------------------------------------------------- overrides parsed once */

#define LD_MAX_OV_MEMO 1024

static size_t ov_hash(const struct spec_override *ov)
{
	const unsigned char *s;
	size_t h = 14695981039346656037ull;

	for (s = (const unsigned char *)ov->path; *s; s++)
		h = (h ^ *s) * 1099511628211ull;
	h = (h ^ '=') * 1099511628211ull;
	for (s = (const unsigned char *)ov->value; *s; s++)
		h = (h ^ *s) * 1099511628211ull;
	return h ^ ov->value_col;
}

/* The slot of 'ov' in the source's table: its entry, or the empty slot for it. Under cc_mu. */
static struct ld_ov_memo **ov_slot(const struct spec_source *src, const struct spec_override *ov)
{
	size_t h = ov_hash(ov) & (src->ov_memo_cap - 1);
	struct ld_ov_memo *e;

	while ((e = src->ov_memo[h]) != NULL) {
		if (e->value_col == ov->value_col && !strcmp(e->path, ov->path) &&
		    !strcmp(e->value, ov->value))
			break;
		h = (h + 1) & (src->ov_memo_cap - 1);
	}
	return &src->ov_memo[h];
}

/* Keep the steps op->steps[0..op->n) of 'r''s path, for the next builds. Under cc_mu. */
static struct ld_ov_memo *ov_keep(struct spec_source *src, const struct ld_override *r,
				  const struct opath *op)
{
	struct ld_ov_memo **slot, *e;
	struct step *steps;
	unsigned i, c;

	if (!src->ov_memo) {
		src->ov_memo_cap = 2 * LD_MAX_OV_MEMO;
		src->ov_memo = arena_calloc(&src->cc_arena, src->ov_memo_cap, sizeof(*src->ov_memo));
	}
	slot = ov_slot(src, r->ov);
	if (*slot || src->n_ov_memo >= LD_MAX_OV_MEMO)
		return *slot;
	steps = arena_memdup(&src->cc_arena, op->steps, op->n * sizeof(*steps));
	for (i = 0; i < op->n; i++) {
		steps[i].key = arena_strdup(&src->cc_arena, steps[i].key);
		for (c = 0; c < steps[i].n_conds; c++) {
			steps[i].conds[c].key = arena_strdup(&src->cc_arena, steps[i].conds[c].key);
			steps[i].conds[c].value = arena_strdup(&src->cc_arena,
							       steps[i].conds[c].value);
		}
	}
	e = arena_calloc(&src->cc_arena, 1, sizeof(*e));
	e->path = arena_strdup(&src->cc_arena, r->ov->path);
	e->value = arena_strdup(&src->cc_arena, r->ov->value);
	e->value_col = r->ov->value_col;
	e->n_steps = op->n;
	e->steps = steps;
	*slot = e;
	src->n_ov_memo++;
	return e;
}

/*
 * Parse the path of 'r' into 'op': as an earlier build of the source parsed
 * the same PATH=VALUE, or now (kept when it parses: a path's errors are
 * reported by every build).
 */
static int parse_path_memo(struct ld *ld, struct ld_override *r, struct opath *op)
{
	struct spec_source *src = (struct spec_source *)ld->s->source;
	const struct spec_override *ov = r->ov;
	struct ld_ov_memo *e = NULL;

	if (!src || !ov->path || !ov->value)
		return parse_path(ld->a, r->file, ov->path, op, ld->dl);
	pthread_mutex_lock(&src->cc_mu);
	if (src->ov_memo)
		e = *ov_slot(src, ov);
	pthread_mutex_unlock(&src->cc_mu);
	if (e) {
		memcpy(op->steps, e->steps, e->n_steps * sizeof(*op->steps));
		op->text = ov->path;
		op->n = e->n_steps;
		r->memo = e;
		return 0;
	}
	if (parse_path(ld->a, r->file, ov->path, op, ld->dl) < 0)
		return -1;
	pthread_mutex_lock(&src->cc_mu);
	r->memo = ov_keep(src, r, op);
	pthread_mutex_unlock(&src->cc_mu);
	return 0;
}

/* Resolve and apply override 'r' to the merged view of 'ld'. */
static int apply_one(struct ld *ld, struct ld_override *r, struct opath *op, struct view *v)
{
	if (r->ov->whole_file)
		return apply_file(ld, r);
	if (parse_path_memo(ld, r, op) < 0)
		return -1;
	if (op->steps[op->n - 1].kind == STEP_KEY)
		r->last_key = op->steps[op->n - 1].key;
	if (addresses_by_name(ld, op))
		return apply_named(ld, r, op, v);
	if (start_view(ld, r, op, v) < 0)
		return -1;
	if (op->n == 1)
		return 0;
	return apply_rest(ld, r, op, v);
}

int spec_overrides_apply(struct ld *ld, const struct spec_override *ov, size_t n)
{
	struct opath *op;
	struct view *v;
	size_t i;
	int rc = 0;

	if (!n)
		return 0;
	/*
	 * The path and view scratch (~15 KB) come from the build's arena, not
	 * malloc: a sweep worker's arena chunks are kept between its builds,
	 * while a malloc'd and freed 15 KB made glibc grow and trim the
	 * worker's heap at every point (an mprotect system call each time).
	 */
	op = arena_alloc(ld->a, sizeof(*op));
	v = arena_alloc(ld->a, sizeof(*v));
	ld->ovr = arena_calloc(ld->a, n, sizeof(*ld->ovr));
	ld->n_ovr = n;
	for (i = 0; i < n; i++) {
		struct ld_override *r = &ld->ovr[i];
		r->ov = &ov[i];
		r->file = arena_strdup(ld->a, ov[i].origin);
		if (apply_one(ld, r, op, v) < 0)
			rc = -1;
		else
			r->applied = true;
	}
	return rc;
}

/* ------------------------------------------------------------ diagnostics */

bool ld_from_override(const struct ld *ld, struct diag_loc loc)
{
	size_t i;
	for (i = 0; loc.file && i < ld->n_ovr; i++)
		if (loc.file == ld->ovr[i].file)
			return true;
	return false;
}

bool ld_override_key_first(struct ld *ld, struct diag_loc key_loc)
{
	size_t i;
	if (!ld_from_override(ld, key_loc))
		return false;
	for (i = 0; i < ld->n_ov_seen; i++)
		if (ld->ov_seen[i].file == key_loc.file && ld->ov_seen[i].line == key_loc.line &&
		    ld->ov_seen[i].col == key_loc.col)
			return false;
	XGROW(ld->ov_seen, ld->n_ov_seen + 1, ld->alloc_ov_seen);
	ld->ov_seen[ld->n_ov_seen++] = key_loc;
	return true;
}

/* 'loc' in the set's copy of an origin, as the caller locates it (ov_loc()). */
static struct diag_loc caller_loc(const struct ld *ld, struct diag_loc loc)
{
	size_t i;
	for (i = 0; loc.file && i < ld->n_ovr; i++)
		if (loc.file == ld->ovr[i].file)
			return ov_loc(ld->ovr[i].ov, loc.line, loc.col);
	return loc;
}

/* Copy one diagnostic to 'to'. */
static void emit(const struct ld *ld, const struct diag *d, struct diag_list *to)
{
	diag_copy(to, d, caller_loc(ld, d->loc));
}

static bool same_loc(struct diag_loc a, struct diag_loc b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

/* The notes that tie diagnostic 'd' to the overrides it is about. */
static void override_notes(const struct ld *ld, const struct diag *d, struct diag_list *to)
{
	size_t i;

	for (i = 0; i < ld->n_ovr; i++) {
		const struct ld_override *r = &ld->ovr[i];
		if (!r->applied)
			continue;
		if (d->loc.file == r->file && !r->added)
			diag_note(to, caller_loc(ld, r->replaced),
				  "the override replaces the value given here");
		else if (d->loc.file == r->file && r->holder.file)
			diag_note(to, caller_loc(ld, r->holder), "the override adds '%s' to the "
				  "mapping given here", r->last);
		else if (d->loc.file != r->file && r->last && same_loc(d->loc, r->holder))
			diag_note(to, ov_loc(r->ov, 1, r->last_col),
				  "'%s' is set by this override", r->last);
	}
}

void spec_overrides_report(const struct ld *ld, const struct diag_list *from,
			   struct diag_list *to)
{
	size_t i = 0;

	while (i < from->n) {
		const struct diag *d = &from->items[i++];
		emit(ld, d, to);
		while (i < from->n && from->items[i].severity == DIAG_NOTE)
			emit(ld, &from->items[i++], to);
		if (d->severity != DIAG_NOTE)
			override_notes(ld, d, to);
	}
}
