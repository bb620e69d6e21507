/*
 * fuzz_hfconfig - pe_hfconfig_parse on the whole input.  The input is not
 * NUL-terminated (the parser must not need it): libFuzzer's buffer ends
 * exactly at size, so an over-read shows.
 */
#include <math.h>

#include "fuzz.h"
#include "io/hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_hfconfig c;
	struct pe_error err = { 0 };
	int rc = pe_hfconfig_parse((const char *)data, size, "config.json", &c, &err);

	if (rc == 0) {
		size_t t;
		uint64_t k;

		FUZZ_REQUIRE(memchr(c.model_type, '\0', sizeof c.model_type) != NULL);
		FUZZ_REQUIRE(c.ntypes >= 1 && c.ntypes <= PE_HF_MAX_TYPES);
		for (t = 0; t < c.ntypes; t++) {
			FUZZ_REQUIRE(c.rope[t].partial_rotary_factor > 0 &&
				     c.rope[t].partial_rotary_factor <= 1);
			FUZZ_REQUIRE(memchr(c.rope[t].name, '\0', sizeof c.rope[t].name) != NULL);
		}
		for (k = 0; k < c.nlayers; k++)
			FUZZ_REQUIRE(c.layer_rope[k] >= -1 && c.layer_rope[k] < (int)c.ntypes &&
				     c.layer_kind[k] < c.nkinds);
	} else {
		FUZZ_REQUIRE(rc == -1);
		fuzz_check_error(&err, "config.json");
	}
	pe_hfconfig_free(&c);
	return 0;
}
