/* The identity map of the first 4 GiB and its cache attributes. */
#ifndef KERNEL_PAGING_H
#define KERNEL_PAGING_H

#include <stddef.h>

struct boot_info;

struct paging_info {
	size_t wb_pages; /* 2 MiB pages mapped write-back (RAM) */
	size_t uc_pages; /* 2 MiB pages mapped uncacheable (everything else) */
};

/*
 * Map every 2 MiB page below 4 GiB that holds RAM (usable or ACPI) as
 * write-back, everything else (device memory) uncacheable.
 */
void paging_init(const struct boot_info *bi, struct paging_info *out);

#endif
