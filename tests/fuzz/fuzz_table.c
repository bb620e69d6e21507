/* fuzz_table - pe_table_parse with PE_IN_AUTO: the sniffing, then whichever
 * reader it picks, on the whole input; integer dtypes taken when the
 * input's length is odd (pe_read_opts.integers).  And the stream bound
 * (readers.h's extents, what a pipe is read up to): a file that parses is
 * exactly as long as its safetensors header says, at least as long as its
 * npy header says, and a prefix that holds the header gives the same
 * length. */
#include "fuzz.h"
#include "io/read.h"

static void check_extent(int (*extent)(const unsigned char *, size_t, uint64_t *),
			 const uint8_t *data, size_t size, int parsed, int exact)
{
	uint64_t total = 0, part = 0;
	int k = extent(data, size, &total), kp;

	if (parsed) {
		FUZZ_REQUIRE(k == 1);
		FUZZ_REQUIRE(exact ? total == size : total <= size);
	}
	kp = extent(data, size / 2, &part);
	if (k == 1 && kp == 1)
		FUZZ_REQUIRE(part == total);
}

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
	if (pe_in_sniff(data, size) == PE_IN_NPY)
		check_extent(pe_npy_extent, data, size, rc == 0, 0);
	else if (pe_in_sniff(data, size) == PE_IN_SAFETENSORS)
		check_extent(pe_safetensors_extent, data, size, rc == 0, 1);
	fuzz_check_matrix(rc, &m, &err, "fuzz.in");
	return 0;
}
