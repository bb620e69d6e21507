/*
 * fuzz_values - pe_values_parse_text, the text form of a list of numbers
 * (generate timestep --timesteps-file).  The first byte picks the most
 * values allowed, the rest is the file.  A success is between one and that
 * many finite values, no more than the input has tokens; a failure leaves
 * no list and names the file first.
 */
#include <math.h>

#include "fuzz.h"
#include "io/values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t limits[] = { 1, 2, 7, 256, (size_t)-1 };
	struct pe_error err = { 0 };
	double *v = (double *)&err;	/* must be set either way */
	size_t n = 7, max, tokens = 0, i;
	int rc, in_token = 0;

	if (size < 1)
		return 0;
	max = limits[data[0] % 5];
	data++;
	size--;
	/* an upper bound on the numbers: runs of bytes other than separators */
	for (i = 0; i < size; i++) {
		int sep = strchr(", \t\n\r\f\v#", data[i]) != NULL || data[i] == '\0';

		tokens += !sep && !in_token;
		in_token = !sep;
	}
	rc = pe_values_parse_text(data, size, "fuzz.txt", max, &v, &n, &err);
	if (rc == 0) {
		FUZZ_REQUIRE(v != NULL && n >= 1 && n <= max && n <= tokens);
		for (i = 0; i < n; i++)
			FUZZ_REQUIRE(isfinite(v[i]));
		free(v);
	} else {
		FUZZ_REQUIRE(rc == -1);
		FUZZ_REQUIRE(v == NULL && n == 0);
		fuzz_check_error(&err, "fuzz.txt");
	}
	return 0;
}
