/* fuzz_csv - pe_csv_parse on the whole input.  A header reported is a
 * line of the input, before every row, and its text a terminated string. */
#include "fuzz.h"
#include "io/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_matrix m = { 0 };
	struct pe_table_info info;
	struct pe_error err = { 0 };
	size_t lines = 1, i;
	int rc = pe_csv_parse(data, size, "fuzz.csv", &m, &info, &err);

	if (rc == 0) {
		for (i = 0; i < size; i++)
			lines += data[i] == '\n';
		FUZZ_REQUIRE(info.header_line <= lines);
		FUZZ_REQUIRE(memchr(info.header, '\0', sizeof info.header) != NULL);
		FUZZ_REQUIRE(info.header_line == 0 || info.header[0] != '\0');
	}
	fuzz_check_matrix(rc, &m, &err, "fuzz.csv");
	return 0;
}
