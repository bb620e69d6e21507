/* madvise and MADV_HUGEPAGE are outside POSIX: this one file asks for them. */
#define _DEFAULT_SOURCE

#include "core/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void *pe_alloc_big(size_t n)
{
	void *p = NULL;

	if (n < PE_BIG_BYTES / 2)
		return malloc(n ? n : 1);
	/* whole huge pages: a 1 MiB row block takes one fault, not 256 */
	if (n > SIZE_MAX - PE_BIG_BYTES)
		return NULL;
	n = (n + PE_BIG_BYTES - 1) / PE_BIG_BYTES * PE_BIG_BYTES;
	if (posix_memalign(&p, PE_BIG_BYTES, n) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n, MADV_HUGEPAGE);	/* a hint: without it, 4 KiB pages */
#endif
	return p;
}
