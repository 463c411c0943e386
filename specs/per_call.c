/*
 * The 'per_call' key (docs/model.md, "Per call"; docs/yaml-reference.md):
 * what one call of the kernel costs beyond the kernel when a framework or a
 * library makes it. The host's time per call (the framework's operators,
 * a library's per-call setup), the device's time per kernel launched, the
 * extra kernels the call runs (copies for transposes and padding, pruning
 * and compressing an operand each call) and dense stages of a model that
 * run beside the kernel (attention, norms, elementwise: their bytes and
 * flops). model/per_call.c turns them into times; the kernel's own cycles
 * are never changed by them.
 */
#include "specs/specs_int.h"

#include <math.h>
#include <string.h>

#include "util/xalloc.h"

static const char *const per_call_keys[] = {
	"clock_mhz", "host_us", "ops", "setup_us", "launch_us", "copy", "compress", "stages",
};
static const char *const stage_keys[] = { "name", "bytes", "flops", "count" };

/* The optional number 'key' of 'n', at least 'lo', into 'out'. */
static int opt_double(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		      const char *key, double lo, double *out)
{
	const struct ysrc_node *v = ld_get(n, key);
	struct kpath kp = KP_KEY(p, key);
	return v ? ld_double(ld, v, &kp, lo, HUGE_VAL, out) : 0;
}

static int opt_uint(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		    const char *key, uint64_t lo, uint64_t *out)
{
	const struct ysrc_node *v = ld_get(n, key);
	struct kpath kp = KP_KEY(p, key);
	return v ? ld_uint(ld, v, &kp, lo, UINT32_MAX, out) : 0;
}

/* One dense stage: {name, bytes, flops, count}. */
static int parse_stage(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
		       struct spec_per_call_stage *st)
{
	const struct ysrc_node *v;
	struct kpath np = KP_KEY(p, "name");
	int rc = 0;

	if (ld_want_map(ld, n, p) < 0)
		return -1;
	if (ld_check_keys(ld, n, p, stage_keys, ARRAY_SIZE(stage_keys)))
		rc = -1;
	st->count = 1;
	if (!(v = ld_get(n, "name")))
		rc = ld_error(ld, n, p, "a stage needs a 'name'");
	else if (!(st->name = ld_str(ld, v, &np)))
		rc = -1;
	if (!ld_get(n, "bytes"))
		rc = ld_error(ld, n, p, "a stage needs 'bytes' (the bytes it reads and writes)");
	if (opt_double(ld, n, p, "bytes", 0, &st->bytes) < 0 ||
	    opt_double(ld, n, p, "flops", 0, &st->flops) < 0 ||
	    opt_uint(ld, n, p, "count", 1, &st->count) < 0)
		rc = -1;
	return rc;
}

static int parse_stages(struct ld *ld, const struct ysrc_node *n, const struct kpath *p,
			struct spec_per_call *pc)
{
	struct spec_per_call_stage *st;
	size_t i;
	int rc = 0;

	if (ld_want_seq(ld, n, p) < 0)
		return -1;
	st = arena_calloc(ld->a, n->n + 1, sizeof(*st));
	for (i = 0; i < n->n; i++) {
		struct kpath ip = KP_IDX(p, i);
		if (parse_stage(ld, n->items[i], &ip, &st[i]) < 0)
			rc = -1;
	}
	pc->stages = st;
	pc->n_stages = n->n;
	return rc;
}

int spec_per_call_load(struct ld *ld)
{
	const struct ld_top *top = ld_top_get(ld, "per_call");
	struct spec_per_call *pc = &ld->s->per_call;
	const struct ysrc_node *n, *v;
	struct kpath p = KP_KEY(NULL, "per_call");
	int rc = 0;

	memset(pc, 0, sizeof(*pc));
	if (!top)
		return 0;
	n = top->values[0];
	if (ld_want_map(ld, n, &p) < 0)
		return -1;
	if (ld_check_keys(ld, n, &p, per_call_keys, ARRAY_SIZE(per_call_keys)))
		rc = -1;
	pc->loc = n->loc;
	pc->ops = 1;
	if (!(v = ld_get(n, "clock_mhz"))) {
		rc = ld_error(ld, n, &p, "'per_call' needs 'clock_mhz' (the kernel's cycles to time)");
	} else {
		struct kpath cp = KP_KEY(&p, "clock_mhz");
		if (ld_double(ld, v, &cp, 0, HUGE_VAL, &pc->clock_mhz) < 0)
			rc = -1;
		else if (pc->clock_mhz <= 0)
			rc = ld_error(ld, v, &cp, "expected a clock above 0 MHz, got %s", v->str);
	}
	if (opt_double(ld, n, &p, "host_us", 0, &pc->host_us) < 0 ||
	    opt_double(ld, n, &p, "setup_us", 0, &pc->setup_us) < 0 ||
	    opt_double(ld, n, &p, "launch_us", 0, &pc->launch_us) < 0 ||
	    opt_uint(ld, n, &p, "ops", 0, &pc->ops) < 0)
		rc = -1;
	if ((v = ld_get(n, "copy"))) {
		struct kpath kp = KP_KEY(&p, "copy");
		if (ld_tensor_list(ld, v, &kp, &pc->copy_mask, NULL, NULL) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "compress"))) {
		struct kpath kp = KP_KEY(&p, "compress");
		if (ld_tensor_list(ld, v, &kp, &pc->compress_mask, NULL, NULL) < 0)
			rc = -1;
	}
	if ((v = ld_get(n, "stages"))) {
		struct kpath kp = KP_KEY(&p, "stages");
		if (parse_stages(ld, v, &kp, pc) < 0)
			rc = -1;
	}
	if (rc == 0)
		pc->present = true;
	return rc;
}
