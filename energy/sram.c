/* Provisional: replaced by the CACTI-like model before this lands. */
#include "energy/energy_int.h"

#include <math.h>

int energy_sram_model(double size_bytes, double block_bytes, int tech_nm, int n_banks,
		      int n_ports, struct sram_result *out)
{
	double bits = block_bytes * 8;
	(void)n_banks; (void)n_ports;
	out->read_j = bits * 0.1e-12 * sqrt(size_bytes / 65536.0) * tech_nm / 45.0;
	out->write_j = out->read_j;
	out->leak_w = size_bytes * 2.5e-11;
	out->area_m2 = size_bytes * 3e-12;
	out->cycle_s = 1e-9;
	return 0;
}
