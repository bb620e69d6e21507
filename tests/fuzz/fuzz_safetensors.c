/*
 * fuzz_safetensors - pe_safetensors_parse on the whole input, once by the
 * default rule and once for the tensor named "wpe.weight" (a name the seeds
 * use), so both lookups and the listing in their messages are reached.
 */
#include "fuzz.h"
#include "io/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tensors[] = { NULL, "wpe.weight" };
	size_t k;

	for (k = 0; k < sizeof tensors / sizeof tensors[0]; k++) {
		struct pe_matrix m = { 0 };
		struct pe_table_info info;
		struct pe_error err = { 0 };
		int rc = pe_safetensors_parse(data, size, "fuzz.safetensors", tensors[k], &m, &info,
					      &err);

		if (rc == 0)
			FUZZ_REQUIRE(info.format == PE_IN_SAFETENSORS &&
				     memchr(info.tensor, '\0', sizeof info.tensor) != NULL);
		fuzz_check_matrix(rc, &m, &err, "fuzz.safetensors");
	}
	return 0;
}
