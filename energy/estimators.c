/*
 * Choosing the estimator of a primitive, as Accelergy does: every plug-in
 * reports its accuracy for the query, the most accurate one that estimates
 * it wins, and one that fails hands over to the next (equal accuracies keep
 * Accelergy's order of its standard plug-ins: Aladdin before NeuroSim).
 * The dummy table prices anything whose technology is -1: 0 pJ per action
 * (its 1 pJ for non-leak actions never reaches an ERT, since Timeloop's
 * dummy levels have no actions) and 1 um^2.
 */
#include "energy/energy_int.h"

#include <string.h>
#include <strings.h>

/* A technology of -1 asks for the dummy table. */
static int dummy_accuracy(struct ectx *c, const struct equery *q, struct strbuf *why)
{
	const struct eattr *t = eattrs_get(q->attrs, "technology");
	double v;

	(void)c;
	(void)why;
	return t && spec_value_number(&t->v, &v) && v == -1 ? 100 : 0;
}

static int dummy_estimate(struct ectx *c, const struct equery *q, double *v, struct strbuf *why)
{
	(void)c;
	(void)why;
	*v = q->action ? 0 : 1;
	return 0;
}

const struct estimator energy_est_dummy = {
	"dummy_table", ENERGY_FAMILY_DUMMY, dummy_accuracy, dummy_estimate,
};

/* Accelergy's order of its standard plug-ins, for equal accuracies. */
static const struct estimator *const estimators[] = {
	&energy_est_aladdin, &energy_est_dummy, &energy_est_neurosim, &energy_est_library,
	&energy_est_cacti_dram, &energy_est_cacti_sram,
};

#define N_EST (sizeof(estimators) / sizeof(estimators[0]))

int energy_price(struct ectx *c, const struct equery *q, double *value,
		 enum energy_family *family, struct strbuf *why)
{
	int acc[N_EST], order[N_EST];
	struct strbuf not = STRBUF_INIT;
	size_t i, j, n = 0;

	for (i = 0; i < N_EST; i++) {
		size_t before = not.len;
		acc[i] = estimators[i]->accuracy(c, q, &not);
		if (not.len > before)
			strbuf_addstr(&not, "; ");
		if (acc[i] <= 0)
			continue;
		for (j = n; j > 0 && acc[order[j - 1]] < acc[i]; j--)
			order[j] = order[j - 1];
		order[j] = (int)i;
		n++;
	}
	for (i = 0; i < n; i++) {
		const struct estimator *e = estimators[order[i]];
		size_t before = why->len;
		if (e->estimate(c, q, value, why) == 0) {
			*family = e->family;
			strbuf_release(&not);
			return 0;
		}
		if (why->len > before)
			strbuf_addstr(why, "; ");
	}
	if (n == 0 && not.len)
		strbuf_addbuf(why, &not);
	else if (n == 0)
		strbuf_addf(why, "no estimator prices class '%s'%s%s", q->class_name,
			    q->action ? " action " : "", q->action ? q->action : "");
	strbuf_release(&not);
	return -1;
}

/* Every primitive class some estimator prices (the dummy table aside), for hints. */
static const char *const primitive_names[] = {
	"aladdin_adder", "aladdin_comparator", "aladdin_counter", "aladdin_multiplier",
	"aladdin_register", "dummy_storage", "dummy_compute", "regfile", "SRAM", "counter",
	"comparator", "crossbar", "wire", "FIFO", "bitwise", "intadder", "intmultiplier",
	"intmac", "fpadder", "fpmultiplier", "fpmac", "reg", "DRAM",
};

bool energy_primitive_known(const char *cls, size_t *n, const char *const **names)
{
	size_t i;

	*n = ARRAY_SIZE(primitive_names);
	*names = primitive_names;
	for (i = 0; i < ARRAY_SIZE(primitive_names); i++)
		if (!strcasecmp(primitive_names[i], cls))
			return true;
	return false;
}

const char *energy_family_name(enum energy_family f)
{
	static const char *const names[] = {
		[ENERGY_FAMILY_CACTI_SRAM] = "CactiSRAM", [ENERGY_FAMILY_CACTI_DRAM] = "CactiDRAM",
		[ENERGY_FAMILY_LIBRARY] = "Library", [ENERGY_FAMILY_ALADDIN] = "Aladdin_table",
		[ENERGY_FAMILY_NEUROSIM] = "Neurosim Plug-In", [ENERGY_FAMILY_DUMMY] = "dummy_table",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == ENERGY_FAMILY_COUNT, "a name each");
	return (unsigned)f < ENERGY_FAMILY_COUNT ? names[f] : "?";
}
