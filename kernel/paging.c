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

#define PTE_P	 (1ull << 0)
#define PTE_W	 (1ull << 1)
#define PTE_PS	 (1ull << 7)
#define PTE_ADDR 0x000FFFFFFFFFF000ull
#define PTE_PWT	 (1ull << 3)
#define PTE_PCD	 (1ull << 4)
#define PAGE_2M	 (2ull << 20)
#define PAGES_4G 2048

#define TABLE_POOL 8 /* page tables for mappings above 4 GiB */
#define ADDR_LIMIT (1ull << 48)

extern uint64_t boot_pml4[512];
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

static uint64_t table_pool[TABLE_POOL][512] __attribute__((aligned(4096)));
static unsigned tables_used;

/* The table an entry points to, made (zeroed) if it is not present. */
static uint64_t *next_table(uint64_t *entry)
{
	uint64_t *t;

	if (*entry & PTE_P)
		return (uint64_t *)(*entry & PTE_ADDR);
	if (tables_used == TABLE_POOL)
		return NULL;
	t = table_pool[tables_used++];
	*entry = (uint64_t)t | PTE_P | PTE_W;
	return t;
}

bool paging_map_device(uint64_t phys, uint64_t len)
{
	uint64_t start = phys & ~(PAGE_2M - 1), end = phys + len;

	if (end < phys || end > ADDR_LIMIT)
		return false;
	for (uint64_t a = start; a < end; a += PAGE_2M) {
		uint64_t *pdpt, *pd;

		if (a < PAGES_4G * PAGE_2M)
			continue; /* the boot identity map */
		pdpt = next_table(&boot_pml4[a >> 39 & 511]);
		pd = pdpt ? next_table(&pdpt[a >> 30 & 511]) : NULL;
		if (!pd)
			return false;
		pd[a >> 21 & 511] =
			a | PTE_P | PTE_W | PTE_PS | PTE_PCD | PTE_PWT;
	}
	write_cr3(read_cr3());
	return true;
}
