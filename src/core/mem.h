/*
 * mem.h - allocation of large buffers (tables, row blocks).
 *
 * Why: first touching fresh memory costs a page fault per 4 KiB page, and
 * on the virtual machines posenc was measured on a fault costs about 12 us:
 * a 32 MiB table is 0.1 s of faults before any work.  Buffers of at least
 * PE_BIG_BYTES / 2 (the pump's 1 MiB blocks) are therefore rounded up to
 * whole 2 MiB pages, aligned to them and marked for transparent huge pages
 * (madvise MADV_HUGEPAGE, where the system has it), so a 2 MiB page takes
 * one fault.  Smaller ones are plain malloc.  Either kind is
 * released with free().
 */
#ifndef PE_MEM_H
#define PE_MEM_H

#include <stddef.h>

#define PE_BIG_BYTES ((size_t)2 << 20)

/* Uninitialised memory for n bytes, or NULL. */
void *pe_alloc_big(size_t n);

#endif
