/* madvise and MADV_HUGEPAGE are outside POSIX: this one file asks for them. */
#define _DEFAULT_SOURCE

#include "core/mem.h"

#include <stdlib.h>
#include <sys/mman.h>

void *pe_alloc_big(size_t n)
{
	void *p = NULL;

	if (n < PE_BIG_BYTES)
		return malloc(n ? n : 1);
	if (posix_memalign(&p, PE_BIG_BYTES, n) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n, MADV_HUGEPAGE);	/* a hint: without it, 4 KiB pages */
#endif
	return p;
}
