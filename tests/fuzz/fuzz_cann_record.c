/* fuzz_cann_record.c — libFuzzer harness for CANN's fusion_result.json
 * reader (ir/cann_record.h): any bytes are read as a record file. What
 * must hold: it reads or it fails with exactly one error; a file it reads
 * holds at least one record, each with an id (maybe empty), a layout,
 * copies >= 1, passes with names and counts >= 0, and the ids listed
 * once each. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ir/cann_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fd_diags d;
	diags_init(&d);
	fd_cann_records recs;
	if (cann_records_read(&recs, "fuzz.json", (const char *)data, size, &d) < 0) {
		if (d.errors != 1)
			abort();
		diags_release(&d);
		return 0;
	}
	if (d.errors || recs.n == 0 || recs.n_values == 0)
		abort();
	for (size_t k = 0; k < recs.n; k++) {
		const fd_cann_record *r = &recs.items[k];
		if (!r->id || !r->layout || r->copies < 1)
			abort();
		for (int s = 0; s < CANN_SECTION_COUNT; s++)
			for (size_t j = 0; j < r->n_passes[s]; j++) {
				const fd_cann_pass *p = &r->passes[s][j];
				if (!p->name || p->match < 0 || p->effect < 0 || p->repository_hit < -1)
					abort();
			}
	}
	char ids[256];
	cann_records_ids(&recs, ids, sizeof ids);
	if (cann_records_graphs(&recs) == 0 || cann_records_graphs(&recs) > recs.n || strlen(ids) >= sizeof ids)
		abort();
	cann_records_release(&recs);
	diags_release(&d);
	return 0;
}
