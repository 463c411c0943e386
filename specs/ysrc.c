/*
 * libyaml events -> located node tree, with anchors, aliases, merge keys
 * ('<<' and the front end's recursive '<<<') and duplicate-key errors (see
 * ysrc_int.h).
 */
#include "specs/ysrc_int.h"

#include <ctype.h>
#include <string.h>
#include <yaml.h>

#include "util/fileio.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define YSRC_MAX_DEPTH 512
/*
 * The most nodes a document may reach through its aliases (each alias
 * counts the nodes of its anchor's value, aliases in it expanded): a
 * 349-byte alias bomb reaches 10^9, which every later walk would visit.
 */
#define YSRC_MAX_ALIAS_NODES 1000000

struct anchor {
	char *name;
	struct ysrc_node *node;
};

struct yparse {
	yaml_parser_t parser;
	struct arena *a;
	const char *file;
	struct diag_list *dl;
	struct anchor *anchors;
	size_t n_anchors, alloc_anchors;
	bool failed;       /* a syntax error: stop */
	bool had_errors;   /* any error */
	unsigned depth;
	unsigned col_offset;   /* added to the columns of the first line */
	unsigned n_lines;      /* with a first column: the text's lines ... */
	unsigned end_col;      /* ... and the column just past its end */
	const struct ysrc_opts *opts;
	struct hashmap expanded;    /* items/pairs array -> struct expansion */
	uint64_t alias_nodes;       /* nodes reached through aliases so far */
	bool alias_refused;
};

/* A node with its aliases expanded: its nodes (saturating) and its depth. */
struct expansion {
	uint64_t nodes;
	uint64_t depth;
};

/* A libyaml mark (0-based) as a 1-based location (through the line map). */
static struct diag_loc mark_loc(const struct yparse *p, yaml_mark_t m)
{
	const struct ysrc_linemap *map = p->opts ? p->opts->map : NULL;
	unsigned col = (unsigned)m.column + 1 + (m.line == 0 ? p->col_offset : 0);

	if (p->n_lines && m.line >= p->n_lines)   /* a value's text: past it is its end */
		return (struct diag_loc){ p->file, p->n_lines, p->end_col };
	if (map && m.line < map->n_lines)
		return (struct diag_loc){ map->files[m.line], map->lines[m.line],
					  (unsigned)m.column + 1 };
	if (map && map->n_lines)   /* past the last line: the lines after it */
		return (struct diag_loc){ map->files[map->n_lines - 1],
					  map->lines[map->n_lines - 1] + (unsigned)(m.line + 1 -
										      map->n_lines),
					  (unsigned)m.column + 1 };
	return (struct diag_loc){ p->file, (unsigned)m.line + 1, col };
}

/* Report the libyaml parser error as a located syntax error. */
static void report_parser_error(struct yparse *p)
{
	const yaml_parser_t *y = &p->parser;
	const char *problem = y->problem ? y->problem : "cannot parse the YAML text";

	p->failed = p->had_errors = true;
	diag_error(p->dl, mark_loc(p, y->problem_mark), "YAML syntax error: %s", problem);
	if (y->context)
		diag_note(p->dl, mark_loc(p, y->context_mark), "%s", y->context);
}

/* Next event into 'ev'; false (after reporting) on a syntax error. */
static bool next_event(struct yparse *p, yaml_event_t *ev)
{
	if (p->failed)
		return false;
	if (!yaml_parser_parse(&p->parser, ev)) {
		report_parser_error(p);
		return false;
	}
	return true;
}

/* A new node of 'kind' at mark 'm' with tag 'tag' (may be NULL). */
static struct ysrc_node *node_new(struct yparse *p, enum ysrc_kind kind, yaml_mark_t m,
				  const yaml_char_t *tag)
{
	struct ysrc_node *n = arena_alloc(p->a, sizeof(*n));
	n->kind = kind;
	n->loc = mark_loc(p, m);
	n->tag = tag ? arena_strdup(p->a, (const char *)tag) : NULL;
	return n;
}

/* Remember node 'n' under anchor 'name' (NULL: no anchor). */
static void anchor_add(struct yparse *p, const yaml_char_t *name, struct ysrc_node *n)
{
	if (!name)
		return;
	XGROW(p->anchors, p->n_anchors + 1, p->alloc_anchors);
	p->anchors[p->n_anchors].name = xstrdup((const char *)name);
	p->anchors[p->n_anchors].node = n;
	p->n_anchors++;
}

/* The node of the most recent anchor named 'name', or NULL. */
static struct ysrc_node *anchor_find(const struct yparse *p, const char *name)
{
	size_t i;
	for (i = p->n_anchors; i-- > 0;)
		if (!strcmp(p->anchors[i].name, name))
			return p->anchors[i].node;
	return NULL;
}

static struct ysrc_node *parse_node(struct yparse *p, yaml_event_t *ev);

/* A scalar event -> a scalar node (style kept: plain scalars may be null). */
static struct ysrc_node *parse_scalar(struct yparse *p, yaml_event_t *ev)
{
	struct ysrc_node *n = node_new(p, YSRC_SCALAR, ev->start_mark, ev->data.scalar.tag);
	n->str = arena_strndup(p->a, (const char *)ev->data.scalar.value, ev->data.scalar.length);
	switch (ev->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		n->style = YSRC_QUOTED;
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		n->style = YSRC_BLOCK;
		break;
	default:
		n->style = YSRC_PLAIN;
	}
	if (p->opts && p->opts->hook_tag && n->tag && !strcmp(n->tag, p->opts->hook_tag)) {
		struct ysrc_node *r = p->opts->hook(p->opts->hook_ctx, n);
		if (r)
			n = r;
		else
			p->had_errors = true;
	}
	anchor_add(p, ev->data.scalar.anchor, n);
	return n;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * The nodes and depth of 'n' with its aliases expanded. An alias's node
 * shares its items or pairs with its anchor's, which are memoized by that
 * array, so the cost is that of the nodes as written.
 */
static struct expansion expanded(struct yparse *p, const struct ysrc_node *n)
{
	struct expansion e = { 1, 1 }, c, *memo;
	const void *key = n->kind == YSRC_SEQ ? (const void *)n->items : (const void *)n->pairs;
	size_t i;

	if (n->kind == YSRC_SCALAR || n->n == 0)
		return e;
	if ((memo = hashmap_get(&p->expanded, &key)))
		return *memo;
	for (i = 0; i < n->n; i++) {
		if (n->kind == YSRC_MAP) {
			e.nodes = sat_add(e.nodes, 1);     /* the key, a scalar */
			c = expanded(p, n->pairs[i].value);
		} else {
			c = expanded(p, n->items[i]);
		}
		e.nodes = sat_add(e.nodes, c.nodes);
		if (c.depth + 1 > e.depth)
			e.depth = c.depth + 1;
	}
	*(struct expansion *)hashmap_put(&p->expanded, &key, NULL) = e;
	return e;
}

/*
 * Count the nodes alias 'n' (a copy of its anchor's node) reaches; refuse
 * the document, once, when the aliases reach more than YSRC_MAX_ALIAS_NODES
 * or nest deeper than YSRC_MAX_DEPTH.
 */
static void count_alias(struct yparse *p, const struct ysrc_node *n)
{
	struct expansion e = expanded(p, n);

	p->alias_nodes = sat_add(p->alias_nodes, e.nodes);
	if (p->alias_refused)
		return;
	if (p->alias_nodes > YSRC_MAX_ALIAS_NODES) {
		p->alias_refused = p->had_errors = true;
		diag_error(p->dl, n->loc, "the aliases of this document reach more than %d nodes "
			   "(each alias counts the nodes of its anchor's value)", YSRC_MAX_ALIAS_NODES);
	} else if (e.depth + p->depth > YSRC_MAX_DEPTH) {
		p->alias_refused = p->had_errors = true;
		diag_error(p->dl, n->loc, "aliases nest the YAML deeper than %d levels",
			   YSRC_MAX_DEPTH);
	}
}

/* An alias -> a copy of the anchored node, located at the alias. */
static struct ysrc_node *parse_alias(struct yparse *p, yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct ysrc_node *target = anchor_find(p, name);
	struct ysrc_node *n;

	if (!target) {
		p->had_errors = true;
		diag_error(p->dl, mark_loc(p, ev->start_mark),
			   "unknown anchor '%s' (an alias must follow its anchor '&%s')", name, name);
		n = node_new(p, YSRC_SCALAR, ev->start_mark, NULL);
		n->str = "";
		return n;
	}
	n = arena_memdup(p->a, target, sizeof(*n));
	n->loc = mark_loc(p, ev->start_mark);
	count_alias(p, n);
	return n;
}

/* A sequence, up to its end event. */
static struct ysrc_node *parse_seq(struct yparse *p, yaml_event_t *ev)
{
	struct ysrc_node *n = node_new(p, YSRC_SEQ, ev->start_mark, ev->data.sequence_start.tag);
	struct ysrc_node **items = NULL;
	size_t alloc = 0;
	yaml_char_t *anchor = ev->data.sequence_start.anchor;

	for (;;) {
		yaml_event_t item;
		struct ysrc_node *child;
		if (!next_event(p, &item))
			break;
		if (item.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&item);
			break;
		}
		child = parse_node(p, &item);
		yaml_event_delete(&item);
		if (!child)
			break;
		XGROW(items, n->n + 1, alloc);
		items[n->n++] = child;
	}
	n->items = n->n ? arena_memdup(p->a, items, n->n * sizeof(*items)) : NULL;
	free(items);
	anchor_add(p, anchor, n);
	return n;
}

/* Index of the pair in 'pairs[0..n)' whose key equals 'key', or -1. */
static long pair_index(const struct ysrc_pair *pairs, size_t n, const char *key)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (ysrc_key_eq(pairs[i].key->str, key))
			return (long)i;
	return -1;
}

/* A plain '<<' key. */
static bool is_merge_key(const struct ysrc_node *k)
{
	return k->style == YSRC_PLAIN && !strcmp(k->str, "<<");
}

/* A plain '<<<' key: the front end's recursive merge. */
static bool is_rmerge_key(const struct ysrc_node *k)
{
	return k->style == YSRC_PLAIN && !strcmp(k->str, "<<<");
}

struct pairvec {
	struct ysrc_pair *v;
	size_t n, alloc;
};

/* Append the pair (k, v). */
static void pairvec_push(struct pairvec *pv, struct ysrc_node *k, struct ysrc_node *v)
{
	XGROW(pv->v, pv->n + 1, pv->alloc);
	pv->v[pv->n].key = k;
	pv->v[pv->n].value = v;
	pv->n++;
}

/* Add the pairs of the merged mapping 'src' that 'out' does not have yet. */
static void merge_from(struct yparse *p, struct pairvec *out, const struct ysrc_node *src)
{
	size_t i;
	if (src->kind != YSRC_MAP) {
		p->had_errors = true;
		diag_error(p->dl, src->loc,
			   "a merge key '<<' needs a mapping or a list of mappings, got %s",
			   ysrc_kind_name(src));
		return;
	}
	for (i = 0; i < src->n; i++)
		if (pair_index(out->v, out->n, src->pairs[i].key->str) < 0)
			pairvec_push(out, src->pairs[i].key, src->pairs[i].value);
}

static void rmerge_pairs(struct yparse *p, struct pairvec *out, const struct ysrc_node *src);

/*
 * A new mapping: 'target' with the keys of 'src' that it lacks, recursively
 * for keys that are mappings in both. Neither input is changed.
 */
static struct ysrc_node *rmerged(struct yparse *p, const struct ysrc_node *target,
				 const struct ysrc_node *src)
{
	struct ysrc_node *n = arena_memdup(p->a, target, sizeof(*n));
	struct pairvec pv = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < target->n; i++)
		pairvec_push(&pv, target->pairs[i].key, target->pairs[i].value);
	rmerge_pairs(p, &pv, src);
	n->n = pv.n;
	n->pairs = pv.n ? arena_memdup(p->a, pv.v, pv.n * sizeof(*pv.v)) : NULL;
	free(pv.v);
	return n;
}

/*
 * The recursive merge of '<<<': a key of mapping 'src' that 'out' lacks is
 * added (after the others); one that both hold as mappings is merged the
 * same way; otherwise 'out' keeps its own value.
 */
static void rmerge_pairs(struct yparse *p, struct pairvec *out, const struct ysrc_node *src)
{
	size_t i;
	for (i = 0; i < src->n; i++) {
		long j = pair_index(out->v, out->n, src->pairs[i].key->str);
		struct ysrc_node *sv = src->pairs[i].value;
		if (j < 0)
			pairvec_push(out, src->pairs[i].key, sv);
		else if (out->v[j].value->kind == YSRC_MAP && sv->kind == YSRC_MAP)
			out->v[j].value = rmerged(p, out->v[j].value, sv);
	}
}

/* Apply the one '<<<' key of raw pairs 'raw' (if any) to 'out'. */
static void apply_rmerge(struct yparse *p, struct pairvec *out, const struct pairvec *raw)
{
	const struct ysrc_pair *first = NULL;
	size_t i;

	for (i = 0; i < raw->n; i++) {
		const struct ysrc_pair *pr = &raw->v[i];
		if (!is_rmerge_key(pr->key))
			continue;
		if (first) {
			p->had_errors = true;
			diag_error(p->dl, pr->key->loc, "a second '<<<' key in one mapping");
			diag_note(p->dl, first->key->loc, "the first one is here");
			continue;
		}
		first = pr;
		if (pr->value->kind == YSRC_MAP) {
			rmerge_pairs(p, out, pr->value);
			continue;
		}
		p->had_errors = true;
		if (pr->value->kind == YSRC_SEQ)
			diag_error(p->dl, pr->value->loc, "a recursive merge key '<<<' takes one "
				   "mapping, got a list (merge a list of mappings with '<<')");
		else
			diag_error(p->dl, pr->value->loc, "a recursive merge key '<<<' needs a "
				   "mapping, got %s", ysrc_kind_name(pr->value));
	}
}

/* Build the final pairs of a mapping from its raw pairs: duplicates, '<<', '<<<'. */
static void finish_map(struct yparse *p, struct ysrc_node *n, struct pairvec *raw)
{
	struct pairvec out = { NULL, 0, 0 };
	size_t i, j;

	for (i = 0; i < raw->n; i++) {
		struct ysrc_node *k = raw->v[i].key;
		long first;
		if (is_merge_key(k) || is_rmerge_key(k))
			continue;
		first = pair_index(out.v, out.n, k->str);
		if (first >= 0) {
			p->had_errors = true;
			diag_error(p->dl, k->loc, "duplicate key '%s'", k->str);
			diag_note(p->dl, out.v[first].key->loc, "'%s' first given here",
				  out.v[first].key->str);
			continue;
		}
		pairvec_push(&out, k, raw->v[i].value);
	}
	for (i = 0; i < raw->n; i++) {
		const struct ysrc_node *v = raw->v[i].value;
		if (!is_merge_key(raw->v[i].key))
			continue;
		if (v->kind == YSRC_SEQ)
			for (j = 0; j < v->n; j++)
				merge_from(p, &out, v->items[j]);
		else
			merge_from(p, &out, v);
	}
	apply_rmerge(p, &out, raw);
	n->n = out.n;
	n->pairs = out.n ? arena_memdup(p->a, out.v, out.n * sizeof(*out.v)) : NULL;
	free(out.v);
}

/* Parse one key/value pair starting at event 'kev'; false to stop. */
static bool parse_pair(struct yparse *p, yaml_event_t *kev, struct pairvec *raw)
{
	struct ysrc_node *k = parse_node(p, kev), *v;
	yaml_event_t vev;

	if (!k)
		return false;
	if (k->kind != YSRC_SCALAR) {
		p->had_errors = true;
		diag_error(p->dl, k->loc, "a mapping key must be a plain string, got %s",
			   ysrc_kind_name(k));
	}
	if (!next_event(p, &vev))
		return false;
	v = parse_node(p, &vev);
	yaml_event_delete(&vev);
	if (!v)
		return false;
	if (k->kind == YSRC_SCALAR)
		pairvec_push(raw, k, v);
	return true;
}

/* A mapping, up to its end event; then duplicates and merge keys. */
static struct ysrc_node *parse_map(struct yparse *p, yaml_event_t *ev)
{
	struct ysrc_node *n = node_new(p, YSRC_MAP, ev->start_mark, ev->data.mapping_start.tag);
	struct pairvec raw = { NULL, 0, 0 };
	yaml_char_t *anchor = ev->data.mapping_start.anchor;

	for (;;) {
		yaml_event_t kev;
		bool go_on;
		if (!next_event(p, &kev))
			break;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			break;
		}
		go_on = parse_pair(p, &kev, &raw);
		yaml_event_delete(&kev);
		if (!go_on)
			break;
	}
	finish_map(p, n, &raw);
	free(raw.v);
	anchor_add(p, anchor, n);
	return n;
}

/* Parse the node that starts with event 'ev' (not consumed); NULL on failure. */
static struct ysrc_node *parse_node(struct yparse *p, yaml_event_t *ev)
{
	struct ysrc_node *n = NULL;

	if (p->depth >= YSRC_MAX_DEPTH) {
		p->failed = p->had_errors = true;
		diag_error(p->dl, mark_loc(p, ev->start_mark),
			   "YAML nesting deeper than %d levels", YSRC_MAX_DEPTH);
		return NULL;
	}
	p->depth++;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = parse_scalar(p, ev);
		break;
	case YAML_ALIAS_EVENT:
		n = parse_alias(p, ev);
		break;
	case YAML_SEQUENCE_START_EVENT:
		n = parse_seq(p, ev);
		break;
	case YAML_MAPPING_START_EVENT:
		n = parse_map(p, ev);
		break;
	default:
		BUG("unexpected YAML event %d", (int)ev->type);
	}
	p->depth--;
	return p->failed ? NULL : n;
}

/* Expect an event of 'type' (skipping nothing); false on anything else. */
static bool expect_event(struct yparse *p, yaml_event_type_t type, yaml_event_t *ev)
{
	if (!next_event(p, ev))
		return false;
	if (ev->type != type) {
		yaml_event_delete(ev);
		return false;
	}
	return true;
}

/* Parse the stream: one document at most. */
static struct ysrc_node *parse_stream(struct yparse *p)
{
	yaml_event_t ev;
	struct ysrc_node *root = NULL;

	if (!expect_event(p, YAML_STREAM_START_EVENT, &ev))
		return NULL;
	yaml_event_delete(&ev);
	if (!next_event(p, &ev))
		return NULL;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		return NULL;
	}
	yaml_event_delete(&ev);   /* DOCUMENT_START */
	if (!next_event(p, &ev))
		return NULL;
	root = parse_node(p, &ev);
	yaml_event_delete(&ev);
	if (!root || !expect_event(p, YAML_DOCUMENT_END_EVENT, &ev))
		return root;
	yaml_event_delete(&ev);
	if (!next_event(p, &ev))
		return root;
	if (ev.type == YAML_DOCUMENT_START_EVENT) {
		p->had_errors = true;
		diag_error(p->dl, mark_loc(p, ev.start_mark),
			   "a second YAML document in one file is not supported "
			   "(give each document as its own file)");
	}
	yaml_event_delete(&ev);
	return root;
}

/*
 * The lines of text[0..len) and the column just past its last character
 * (columns count characters; 'col_offset' is added on the first line).
 */
static void text_end(const char *text, size_t len, unsigned col_offset, unsigned *n_lines,
		     unsigned *end_col)
{
	size_t i;

	*n_lines = 1;
	*end_col = 1 + col_offset;
	for (i = 0; i < len; i++) {
		if (text[i] == '\n' && i + 1 < len) {
			(*n_lines)++;
			*end_col = 1;
		} else if (text[i] != '\n' && ((unsigned char)text[i] & 0xC0) != 0x80) {
			(*end_col)++;
		}
	}
}

int ysrc_parse(struct arena *a, const char *file, const char *text, size_t len,
	       struct diag_list *dl, struct ysrc_node **root)
{
	return ysrc_parse_opts(a, file, text, len, NULL, dl, root);
}

int ysrc_parse_at(struct arena *a, const char *file, unsigned first_col, const char *text,
		  size_t len, struct diag_list *dl, struct ysrc_node **root)
{
	struct ysrc_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.first_col = first_col;
	return ysrc_parse_opts(a, file, text, len, &opts, dl, root);
}

int ysrc_parse_opts(struct arena *a, const char *file, const char *text, size_t len,
		    const struct ysrc_opts *opts, struct diag_list *dl, struct ysrc_node **root)
{
	struct yparse p;
	size_t i;

	memset(&p, 0, sizeof(p));
	hashmap_init(&p.expanded, sizeof(const void *), sizeof(struct expansion));
	p.a = a;
	p.file = file;
	p.dl = dl;
	p.opts = opts;
	p.col_offset = opts && opts->first_col ? opts->first_col - 1 : 0;
	if (opts && opts->first_col)
		text_end(text, len, p.col_offset, &p.n_lines, &p.end_col);
	if (!yaml_parser_initialize(&p.parser))
		BUG("yaml_parser_initialize failed");
	yaml_parser_set_input_string(&p.parser, (const unsigned char *)text, len);
	*root = parse_stream(&p);
	yaml_parser_delete(&p.parser);
	for (i = 0; i < p.n_anchors; i++)
		free(p.anchors[i].name);
	free(p.anchors);
	hashmap_release(&p.expanded);
	if (p.had_errors) {
		*root = NULL;
		return -1;
	}
	return 0;
}

int ysrc_parse_file(struct arena *a, const char *path, struct diag_list *dl,
		    struct ysrc_node **root)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	int rc;

	*root = NULL;
	if (fileio_read(path, &text, &err) < 0) {
		diag_error(dl, (struct diag_loc){ path, 0, 0 }, "%s", err.buf);
		rc = -1;
	} else {
		rc = ysrc_parse(a, path, text.buf, text.len, dl, root);
	}
	strbuf_release(&text);
	strbuf_release(&err);
	return rc;
}

const struct ysrc_pair *ysrc_map_pair(const struct ysrc_node *map, const char *key)
{
	size_t i;
	if (!map || map->kind != YSRC_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (ysrc_key_eq(map->pairs[i].key->str, key))
			return &map->pairs[i];
	return NULL;
}

const struct ysrc_node *ysrc_map_get(const struct ysrc_node *map, const char *key)
{
	const struct ysrc_pair *pr = ysrc_map_pair(map, key);
	return pr ? pr->value : NULL;
}

bool ysrc_is_null(const struct ysrc_node *n)
{
	const char *s;
	if (!n || n->kind != YSRC_SCALAR || n->style != YSRC_PLAIN)
		return false;
	s = n->str;          /* "", "~", "null", "Null" or "NULL": asked of every value read */
	switch (s[0]) {
	case '\0':
		return true;
	case '~':
		return s[1] == '\0';
	case 'n':
		return !strcmp(s + 1, "ull");
	case 'N':
		return !strcmp(s + 1, "ull") || !strcmp(s + 1, "ULL");
	default:
		return false;
	}
}

struct ysrc_node *ysrc_scalar_new(struct arena *a, const char *text, struct diag_loc loc)
{
	struct ysrc_node *n = arena_alloc(a, sizeof(*n));
	n->kind = YSRC_SCALAR;
	n->style = YSRC_PLAIN;
	n->str = arena_strdup(a, text);
	n->loc = loc;
	return n;
}

struct diag_loc ysrc_scalar_loc_at(const struct ysrc_node *n, size_t offset)
{
	struct diag_loc loc = n->loc;
	if (n->kind != YSRC_SCALAR || n->style == YSRC_BLOCK || strchr(n->str, '\n') ||
	    offset > strlen(n->str) || !loc.col)
		return loc;
	loc.col += (unsigned)offset + (n->style == YSRC_QUOTED);
	return loc;
}

const char *ysrc_kind_name(const struct ysrc_node *n)
{
	if (!n)
		return "nothing";
	switch (n->kind) {
	case YSRC_MAP:
		return "a mapping";
	case YSRC_SEQ:
		return "a list";
	case YSRC_SCALAR:
		if (ysrc_is_null(n))
			return "null";
		return "a scalar";
	}
	return "?";
}
