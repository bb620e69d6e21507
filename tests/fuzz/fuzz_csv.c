/* fuzz_csv - pe_csv_parse on the whole input. */
#include "fuzz.h"
#include "io/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_matrix m = { 0 };
	struct pe_table_info info;
	struct pe_error err = { 0 };
	int rc = pe_csv_parse(data, size, "fuzz.csv", &m, &info, &err);

	fuzz_check_matrix(rc, &m, &err, "fuzz.csv");
	return 0;
}
