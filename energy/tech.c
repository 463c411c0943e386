/*
 * Technology scaling between CMOS nodes, from A. Stillmaker and B. Baas,
 * "Scaling equations for the accurate prediction of CMOS device performance
 * from 180 nm to 7 nm", Integration 58 (2017) 74-81, doi:10.1016/j.vlsi.
 * 2017.02.002: the area factors between nodes (their table of area scaling)
 * and, per node, the fitted polynomial of energy in the supply voltage,
 * E(V) = a V^2 + b V + c (their energy equations). The component library
 * plug-in of Accelergy scales its 45 nm tables with the same equations,
 * interpolating linearly in the position of a node in the list below and at
 * 0.8 V unless a voltage is given (docs/energy.md, "Technology").
 */
#include "energy/energy_int.h"

#include <math.h>

#define N_NODES 10

/* The nodes of the paper, largest first (nm). */
static const double nodes[N_NODES] = { 130, 90, 65, 45, 32, 20, 16, 14, 10, 7 };

/* area_scale[x][y]: area at node y over area at node x (Stillmaker & Baas). */
static const double area_scale[N_NODES][N_NODES] = {
	{ 1, 0.44, 0.23, 0.16, 0.072, 0.033, 0.03, 0.027, 0.016, 0.0092 },
	{ 2.3, 1, 0.53, 0.35, 0.16, 0.075, 0.067, 0.061, 0.036, 0.021 },
	{ 4.3, 1.9, 1, 0.66, 0.31, 0.14, 0.13, 0.12, 0.068, 0.039 },
	{ 6.4, 2.8, 1.5, 1, 0.46, 0.21, 0.19, 0.17, 0.1, 0.059 },
	{ 14, 6.1, 3.3, 2.2, 1, 0.46, 0.41, 0.38, 0.22, 0.13 },
	{ 30, 13, 7.1, 4.7, 2.2, 1, 0.89, 0.82, 0.48, 0.28 },
	{ 34, 15, 7.9, 5.3, 2.4, 1.1, 1, 0.91, 0.54, 0.31 },
	{ 37, 16, 8.7, 5.8, 2.7, 1.2, 1.1, 1, 0.59, 0.34 },
	{ 63, 28, 15, 9.8, 4.5, 2.1, 1.9, 1.7, 1, 0.58 },
	{ 110, 48, 25, 17, 7.8, 3.6, 3.2, 2.9, 1.7, 1 },
};

/* energy_poly[x] = {a, b, c}: energy at node x is a V^2 + b V + c (Stillmaker & Baas). */
static const double energy_poly[N_NODES][3] = {
	{ 7.171, -6.709, 2.904 },
	{ 4.762, -4.781, 2.092 },
	{ 3.755, -4.398, 1.975 },
	{ 1.103, -0.362, 0.2767 },
	{ 0.9559, -0.7823, 0.471 },
	{ 0.373, -0.1582, 0.04104 },
	{ 0.2958, -0.1241, 0.03024 },
	{ 0.2363, -0.09675, 0.02239 },
	{ 0.2068, -0.09311, 0.02375 },
	{ 0.1776, -0.09097, 0.02447 },
};

/* The fractional position of node 'nm' in nodes[]; false outside [7, 130] nm. */
static bool node_index(double nm, double *idx)
{
	int i;

	if (!(nm >= nodes[N_NODES - 1] && nm <= nodes[0]))
		return false;
	for (i = 0; i < N_NODES - 1; i++) {
		if (nm <= nodes[i] && nm >= nodes[i + 1]) {
			*idx = i + (nodes[i] - nm) / (nodes[i] - nodes[i + 1]);
			return true;
		}
	}
	*idx = N_NODES - 1;
	return true;
}

static double poly_at(int x, double vdd)
{
	return energy_poly[x][0] * vdd * vdd + energy_poly[x][1] * vdd + energy_poly[x][2];
}

/* The energy polynomial at fractional position 'x', interpolated linearly. */
static double energy_at(double x, double vdd)
{
	int lo = (int)floor(x), hi = (int)ceil(x);
	double f = x - lo;

	return poly_at(lo, vdd) * (1 - f) + poly_at(hi, vdd) * f;
}

bool energy_tech_energy_scale(double from_nm, double to_nm, double vdd, double *out)
{
	double x, y;

	if (!node_index(from_nm, &x) || !node_index(to_nm, &y))
		return false;
	if (vdd <= 0)
		vdd = 0.8;
	*out = energy_at(y, vdd) / energy_at(x, vdd);
	return true;
}

bool energy_tech_area_scale(double from_nm, double to_nm, double *out)
{
	double x, y, fx, fy;
	int x0, x1, y0, y1;

	if (!node_index(from_nm, &x) || !node_index(to_nm, &y))
		return false;
	x0 = (int)floor(x), x1 = (int)ceil(x), y0 = (int)floor(y), y1 = (int)ceil(y);
	fx = x - x0, fy = y - y0;
	*out = area_scale[x0][y0] * (1 - fx) * (1 - fy) + area_scale[x0][y1] * (1 - fx) * fy +
	       area_scale[x1][y0] * fx * (1 - fy) + area_scale[x1][y1] * fx * fy;
	return true;
}
