/* The identity map of the first 4 GiB and its cache attributes. */
#ifndef KERNEL_PAGING_H
#define KERNEL_PAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * Make [phys, phys + len) reachable at the same virtual address,
 * uncacheable: below 4 GiB it already is (device memory is not RAM);
 * above, 2 MiB pages are added from a small pool of page tables (a
 * framebuffer or firmware region placed high). False when the pool or the
 * address space (48 bits) runs out.
 */
bool paging_map_device(uint64_t phys, uint64_t len);

#endif
