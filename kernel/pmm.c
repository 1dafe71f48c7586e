/*
 * A bump allocator over the largest usable memory region below 4 GiB that
 * lies above the kernel image. Simple on purpose: buffers live for the
 * whole run, and a single region keeps them contiguous.
 */
#include "kernel/pmm.h"

#include "kernel/arch.h"
#include "kernel/boot_info.h"
#include "lib/string.h"

#define PAGE  4096ull
#define LIMIT (4ull << 30)

extern const char __kernel_end[];

static uint64_t next, end;

void pmm_init(const struct boot_info *bi)
{
	uint64_t floor = ((uint64_t)__kernel_end + PAGE - 1) & ~(PAGE - 1);

	for (size_t i = 0; i < bi->nmem; i++) {
		const struct mem_region *r = &bi->mem[i];
		uint64_t lo = r->base, hi = r->base + r->len;

		if (r->type != MEM_USABLE)
			continue;
		if (lo < floor)
			lo = floor;
		if (hi > LIMIT)
			hi = LIMIT;
		lo = (lo + PAGE - 1) & ~(PAGE - 1);
		hi &= ~(PAGE - 1);
		if (hi > lo && hi - lo > end - next) {
			next = lo;
			end = hi;
		}
	}
}

void *pmm_alloc(size_t bytes)
{
	uint64_t size = (bytes + PAGE - 1) & ~(PAGE - 1);
	void *p;

	if (!size || size > end - next)
		return 0;
	p = phys_ptr(next);
	next += size;
	memset(p, 0, size);
	return p;
}

uint64_t pmm_free_bytes(void)
{
	return end - next;
}
