/*
 * fuzz_raw - pe_raw_parse: the first two bytes give rows and cols (0..254,
 * 255 meaning a huge count, to reach the overflow checks), the rest is the
 * data.
 */
#include "fuzz.h"
#include "io/read.h"

static uint64_t count(uint8_t b)
{
	return b == 255 ? ((uint64_t)1 << 62) + 3 : b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_matrix m = { 0 };
	struct pe_table_info info;
	struct pe_error err = { 0 };
	uint64_t rows, cols;
	int rc;

	if (size < 2)
		return 0;
	rows = count(data[0]);
	cols = count(data[1]);
	rc = pe_raw_parse(data + 2, size - 2, "fuzz.f32", rows, cols, &m, &info, &err);
	if (rc == 0)
		FUZZ_REQUIRE(m.rows * m.cols == rows * cols && (size - 2) == rows * cols * 4);
	fuzz_check_matrix(rc, &m, &err, "fuzz.f32");
	return 0;
}
