/*
 * libfiberloop from C: evaluate a design, then again with a larger workload,
 * and print its metrics (name, value, unit) and the energy of each level.
 *
 *   cc model.c $(pkg-config --cflags --libs fiberloop) -o model
 *   ./model input.yaml map.yaml ERT.yaml ART.yaml
 */
#include <fiberloop.h>
#include <stdio.h>

static void print_result(const fiberloop_result *r)
{
	size_t m, l;

	for (m = 0; m < fiberloop_metric_count(); m++)
		if (fiberloop_result_has(r, m) && !fiberloop_metric_per_level(m) &&
		    fiberloop_result_text(r, m) == NULL)
			printf("%s = %.17g %s\n", fiberloop_metric_name(m), fiberloop_result_real(r, m),
			       fiberloop_metric_unit(m));
	for (l = 0; l < fiberloop_result_levels(r); l++)
		printf("energy_pj.%s = %.17g pJ\n", fiberloop_result_level_name(r, l),
		       fiberloop_result_level_energy_pj(r, l));
}

int main(int argc, char **argv)
{
	fiberloop_spec *spec = fiberloop_spec_new();            /* give: freed below */
	fiberloop_error *err = NULL;
	fiberloop_result *r;
	int i, rc = 1;

	printf("libfiberloop %s (header %s)\n", fiberloop_version(), FIBERLOOP_VERSION);
	for (i = 1; i < argc; i++)
		if (fiberloop_spec_add_file(spec, argv[i], &err) < 0)
			goto out;
	if (!(r = fiberloop_model(spec, &err)))                 /* give */
		goto out;
	print_result(r);
	fiberloop_result_free(r);                               /* take */
	/* a sweep point: the same design with an override */
	if (fiberloop_spec_set(spec, "ERT.tables[0].actions[0].energy=2", &err) < 0 ||
	    !(r = fiberloop_model(spec, &err)))
		goto out;
	printf("with ERT.tables[0].actions[0].energy=2: energy_pj = %.17g\n",
	       fiberloop_result_real(r, (size_t)fiberloop_metric_find("energy_pj")));
	fiberloop_result_free(r);
	rc = 0;
out:
	if (err) {
		fputs(fiberloop_error_text(err), stderr);
		fiberloop_error_free(err);
	}
	fiberloop_spec_free(spec);
	return rc;
}
