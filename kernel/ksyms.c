/*
 * Lookup in the generated symbol table. Layout of .ksyms (see
 * tools/gen-ksyms): a count, then that many (address, name pointer) pairs
 * sorted by address, then the names; the end of the text section closes
 * the last function.
 */
#include "kernel/ksyms.h"
#include <stdbool.h>

#include "lib/format.h"
#include "lib/string.h"

struct ksym {
	uint64_t addr;
	const char *name;
};

struct ksym_table {
	uint64_t count;
	struct ksym sym[];
};

extern const struct ksym_table __ksyms_start;
extern const char __text_end[], __user_start[], __user_text_end[];

size_t ksym_count(void)
{
	return __ksyms_start.count;
}

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	const struct ksym_table *t = &__ksyms_start;
	size_t lo = 0, hi = t->count;

	bool user = addr >= (uint64_t)__user_start &&
		    addr < (uint64_t)__user_text_end;

	if (!t->count || addr < t->sym[0].addr ||
	    (addr >= (uint64_t)__text_end && !user))
		return NULL;
	/* Find the last symbol at or below addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sym[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - t->sym[lo].addr;
	return t->sym[lo].name;
}

void ksym_format(uint64_t addr, char *buf, size_t len)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);

	if (name)
		lib_snprintf(buf, len, "%s+0x%lx", name, off);
	else
		lib_snprintf(buf, len, "?");
}

uint64_t ksym_address(const char *name)
{
	const struct ksym_table *t = &__ksyms_start;

	for (uint64_t i = 0; i < t->count; i++)
		if (!strcmp(t->sym[i].name, name))
			return t->sym[i].addr;
	return 0;
}
