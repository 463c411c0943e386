/*
 * The per-call view (docs/model.md, "Per call"): what one call of the
 * kernel costs beyond it, from the design's 'per_call' key
 * (model_per_call()), as text after the summary and as the "per_call"
 * object of the JSON document.
 */
#include "report/report_int.h"

#include "model/model.h"
#include "util/json.h"

void report_per_call(const struct spec_set *s, const struct model_result *r, struct strbuf *out)
{
	const struct spec_per_call *pc = &s->per_call;
	struct model_per_call c;
	size_t i;

	model_per_call(s, r, &c);
	if (!c.present)
		return;
	strbuf_addf(out, "Per call: %.2f us, the longer of device %.2f us and host %.2f us "
		    "(kernel alone: %.2f us)\n", c.call_us, c.device_us, c.host_us, c.kernel_us);
	strbuf_addf(out, "    kernel    %12.2f us  %llu cycles at %g MHz\n", c.kernel_us,
		    (unsigned long long)r->cycles, pc->clock_mhz);
	strbuf_addf(out, "    launches  %12.2f us  %u kernels at %g us\n", c.launch_us, c.kernels,
		    pc->launch_us);
	strbuf_addf(out, "    copies    %12.2f us\n", c.copy_us);
	strbuf_addf(out, "    compress  %12.2f us\n", c.compress_us);
	strbuf_addf(out, "    stages    %12.2f us", c.stages_us);
	for (i = 0; i < pc->n_stages; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "  ", pc->stages[i].name);
	strbuf_addch(out, '\n');
	strbuf_addf(out, "    host      %12.2f us  %llu ops at %g us + setup %g us\n", c.host_us,
		    (unsigned long long)pc->ops, pc->host_us, pc->setup_us);
}

void report_per_call_json(struct json_writer *w, const struct spec_set *s,
			  const struct model_result *r)
{
	struct model_per_call c;

	model_per_call(s, r, &c);
	if (!c.present)
		return;
	json_open(w, "per_call", '{');
	json_double(w, "clock_mhz", s->per_call.clock_mhz);
	json_double(w, "call_us", c.call_us);
	json_double(w, "device_us", c.device_us);
	json_double(w, "host_us", c.host_us);
	json_double(w, "kernel_us", c.kernel_us);
	json_u64(w, "kernels", c.kernels);
	json_double(w, "launch_us", c.launch_us);
	json_double(w, "copy_us", c.copy_us);
	json_double(w, "compress_us", c.compress_us);
	json_double(w, "stages_us", c.stages_us);
	json_close(w, '}');
}
