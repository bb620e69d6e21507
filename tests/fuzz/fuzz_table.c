/* fuzz_table - pe_table_parse with PE_IN_AUTO: the sniffing, then whichever
 * reader it picks, on the whole input; integer dtypes taken when the
 * input's length is odd (pe_read_opts.integers). */
#include "fuzz.h"
#include "io/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_read_opts o = { PE_IN_AUTO, NULL, 0, 0, 0 };
	struct pe_matrix m = { 0 };
	struct pe_table_info info;
	struct pe_error err = { 0 };
	int rc;

	o.integers = (int)(size & 1);
	rc = pe_table_parse(data, size, "fuzz.in", &o, &m, &info, &err);
	if (rc == 0)
		FUZZ_REQUIRE(info.format == pe_in_sniff(data, size));
	fuzz_check_matrix(rc, &m, &err, "fuzz.in");
	return 0;
}
