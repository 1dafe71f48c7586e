/*
 * Physical memory for buffers (kernel/pmm.c): page-aligned, zeroed,
 * write-back RAM below 4 GiB (inside the identity map), never on a page
 * holding code. Allocations are never freed: a run sets up its buffers
 * once. The DS save area and BTS buffers come from here.
 */
#ifndef KERNEL_PMM_H
#define KERNEL_PMM_H

#include <stddef.h>
#include <stdint.h>

struct boot_info;

void pmm_init(const struct boot_info *bi);
/* NULL when no usable region has room. */
void *pmm_alloc(size_t bytes);
uint64_t pmm_free_bytes(void);

#endif
