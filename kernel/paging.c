/*
 * Cache attributes of the boot identity map (boot/entry.asm builds it with
 * 2 MiB pages). Device registers must not be cached: a 2 MiB page is
 * write-back only if the memory map says it holds RAM; without a memory
 * map, everything below the MMIO window keeps write-back as the firmware's
 * MTRRs usually describe it.
 */
#include "kernel/paging.h"

#include "kernel/arch.h"
#include "kernel/boot_info.h"

#define PTE_PWT	 (1ull << 3)
#define PTE_PCD	 (1ull << 4)
#define PAGE_2M	 (2ull << 20)
#define PAGES_4G 2048

extern uint64_t boot_pd[PAGES_4G];
extern const char __kernel_start[], __kernel_end[];

static bool holds_ram(const struct boot_info *bi, uint64_t start)
{
	uint64_t end = start + PAGE_2M;

	for (size_t i = 0; i < bi->nmem; i++) {
		const struct mem_region *r = &bi->mem[i];

		if (r->type != MEM_USABLE && r->type != MEM_ACPI_RECLAIM &&
		    r->type != MEM_ACPI_NVS)
			continue;
		if (r->base < end && r->base + r->len > start)
			return true;
	}
	return false;
}

void paging_init(const struct boot_info *bi, struct paging_info *out)
{
	out->wb_pages = out->uc_pages = 0;
	if (!bi->nmem) {
		out->wb_pages = PAGES_4G - 16;
		out->uc_pages = 16;
		return;
	}
	for (uint64_t i = 0; i < PAGES_4G; i++) {
		uint64_t start = i * PAGE_2M;
		bool ram = holds_ram(bi, start) ||
			   (start < (uint64_t)__kernel_end &&
			    start + PAGE_2M > (uint64_t)__kernel_start);

		if (ram) {
			boot_pd[i] &= ~(PTE_PCD | PTE_PWT);
			out->wb_pages++;
		} else {
			boot_pd[i] |= PTE_PCD | PTE_PWT;
			out->uc_pages++;
		}
	}
	write_cr3(read_cr3()); /* flush the TLB */
}
