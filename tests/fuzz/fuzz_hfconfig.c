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
		FUZZ_REQUIRE(memchr(c.model_type, '\0', sizeof c.model_type) != NULL);
		if (c.has_rope)
			FUZZ_REQUIRE(c.partial_rotary_factor > 0 && c.partial_rotary_factor <= 1);
	} else {
		FUZZ_REQUIRE(rc == -1);
		fuzz_check_error(&err, "config.json");
	}
	pe_hfconfig_free(&c);
	return 0;
}
