/* fuzz_npy - pe_npy_parse on the whole input. */
#include "fuzz.h"
#include "io/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_matrix m = { 0 };
	struct pe_table_info info;
	struct pe_error err = { 0 };
	int rc = pe_npy_parse(data, size, "fuzz.npy", &m, &info, &err);

	if (rc == 0)
		FUZZ_REQUIRE(info.format == PE_IN_NPY && info.ndim >= 0 &&
			     info.ndim <= PE_READ_MAX_NDIM);
	fuzz_check_matrix(rc, &m, &err, "fuzz.npy");
	return 0;
}
