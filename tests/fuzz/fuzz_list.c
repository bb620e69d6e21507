/* fuzz_list - pe_table_list (the tensors of a safetensors or npy buffer) on
 * the whole input. */
#include "fuzz.h"
#include "io/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_tensor_entry *list = NULL;
	struct pe_error err = { 0 };
	size_t n = 0, i;
	int rc = pe_table_list(data, size, "fuzz.in", &list, &n, &err);

	if (rc == 0) {
		for (i = 0; i < n; i++) {
			FUZZ_REQUIRE(list[i].name != NULL);
			FUZZ_REQUIRE(memchr(list[i].dtype, '\0', sizeof list[i].dtype) != NULL);
			FUZZ_REQUIRE(list[i].ndim >= 0 && list[i].ndim <= PE_READ_MAX_NDIM);
			(void)strlen(list[i].name);
		}
		pe_tensor_entries_free(list, n);
	} else {
		FUZZ_REQUIRE(rc == -1);
		fuzz_check_error(&err, "fuzz.in");
	}
	return 0;
}
