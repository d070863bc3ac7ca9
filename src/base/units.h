/* units.h — byte counts in binary units: the one scaling every size in the
 * output goes through; each caller chooses its own precision and wording. */
#ifndef FD_UNITS_H
#define FD_UNITS_H
#include <stdint.h>

/* bytes scaled down by 1024 while that leaves >= 1 and a unit is left, up to
 * max_unit (0 B, 1 KiB, 2 MiB, 3 GiB, 4 TiB, 5 PiB, 6 EiB); *unit names it. */
double units_scale_bytes(int64_t bytes, int max_unit, const char **unit);

#endif
