#include "tests/accel/ipu_fixture.h"

#include <stdio.h>
#include <string.h>

#include "tests/specs/spec_test.h"
#include "util/strbuf.h"

struct spec_set *ipf_load(const char *preset, const char *layer)
{
	struct diag_list dl = DIAG_LIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	const char *texts[1];
	struct spec_set *s;

	strbuf_addf(&sb, "ipu:\n  device: {preset: %s}\n  layer: {%s}\n", preset, layer);
	texts[0] = sb.buf;
	s = st_load(texts, 1, NULL, &dl);
	if (!s) {
		fprintf(stderr, "ipf_load: %s\n", sb.buf);
		diag_print(&dl, stderr);
	}
	diag_list_release(&dl);
	strbuf_release(&sb);
	return s;
}

const char *ipf_mtx(const char *name, unsigned rows, unsigned cols, const unsigned (*blocks)[2],
		    size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *path;
	size_t i;

	strbuf_addf(&sb, "%%%%MatrixMarket matrix coordinate pattern general\n%u %u %zu\n", rows,
		    cols, n);
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "%u %u\n", blocks[i][0] + 1, blocks[i][1] + 1);
	path = st_write(name, sb.buf);
	strbuf_release(&sb);
	return path;
}

void ipf_layer_init(struct ipf_layer *f, bool half, bool half_partials, unsigned kb)
{
	memset(f, 0, sizeof(*f));
	f->dev.preset = "bow";
	f->dev.tiles = 1472;
	f->dev.bytes_per_tile = 624 * 1024;
	f->dev.workers = 6;
	f->dev.clock_hz = 1.85e9;
	f->dev.exchange_bytes_per_cycle = 4;
	f->dev.exchange_bus_sharing = true;
	f->dev.amp_macs_per_cycle[SPEC_IPU_HALF] = 64;
	f->dev.amp_macs_per_cycle[SPEC_IPU_FLOAT] = 16;
	f->dev.conv_units[SPEC_IPU_HALF] = 16;
	f->dev.conv_units[SPEC_IPU_FLOAT] = 8;
	f->dev.conv_units_half_float = 8;
	f->dev.block_macs_per_cycle[SPEC_IPU_HALF][0] = 8;
	f->dev.block_macs_per_cycle[SPEC_IPU_HALF][1] = 16;
	f->dev.block_macs_per_cycle[SPEC_IPU_HALF][2] = 64;
	f->dev.block_macs_per_cycle[SPEC_IPU_FLOAT][0] = 4;
	f->dev.block_macs_per_cycle[SPEC_IPU_FLOAT][1] = 8;
	f->l.dtype = half ? SPEC_IPU_HALF : SPEC_IPU_FLOAT;
	f->l.partials_type = half_partials ? SPEC_IPU_HALF : SPEC_IPU_FLOAT;
	f->l.dense_partials_type = f->l.partials_type;
	f->l.block_size = kb;
	f->l.passes = 1u << SPEC_IPU_FWD;
	f->l.available_memory_proportion = 0.6;
	f->l.meta_info_bucket_oversize_proportion = 0.3;
	f->L.dev = &f->dev;
	f->L.l = &f->l;
	f->L.half = half;
	f->L.half_partials = half_partials;
	f->L.b_in = half ? 2 : 4;
	f->L.b_p = half_partials ? 2 : 4;
	f->L.block = kb > 1;
	f->L.kb = kb;
	f->L.q = 1;
	f->L.o = 0.3;
	f->L.W = 6;
	f->L.E = 4;
}
