/* units.c — see units.h. */
#include "base/units.h"

double units_scale_bytes(int64_t bytes, int max_unit, const char **unit)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = 0;
	if (max_unit > 6)
		max_unit = 6;
	while (v >= 1024 && u < max_unit) {
		v /= 1024;
		u++;
	}
	*unit = names[u];
	return v;
}
