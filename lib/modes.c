/*
 * Privilege modes of a branch (see modes.h): the default map, the entry
 * kind through the kernel's callback, and names.
 */
#include "lib/modes.h"

#include <stddef.h>

static const char *const kind_names[ENTRY_NKINDS] = {
	[ENTRY_UNKNOWN] = "unknown",
	[ENTRY_SYSCALL] = "syscall",
	[ENTRY_EXCEPTION] = "exception",
	[ENTRY_INTERRUPT] = "interrupt",
};

static const char *const class_names[BR_NCLASSES] = {
	[BR_USER] = "user",
	[BR_KERNEL] = "kernel",
	[BR_ENTRY] = "entry",
	[BR_EXIT] = "exit",
};

void mode_map_default(struct mode_map *m)
{
	m->user_lo = MODE_USER_LO_DEFAULT;
	m->user_hi = MODE_USER_HI_DEFAULT;
	m->entry_kind = NULL;
	m->ctx = NULL;
}

enum entry_kind mode_entry_kind(const struct mode_map *m, uint64_t kernel_addr)
{
	enum entry_kind k;

	if (!m->entry_kind)
		return ENTRY_UNKNOWN;
	k = m->entry_kind(m->ctx, kernel_addr);
	return (unsigned int)k < ENTRY_NKINDS ? k : ENTRY_UNKNOWN;
}

const char *entry_kind_name(enum entry_kind k)
{
	if ((unsigned int)k >= ENTRY_NKINDS)
		return "?";
	return kind_names[k];
}

const char *br_class_name(enum br_class c)
{
	if ((unsigned int)c >= BR_NCLASSES)
		return "?";
	return class_names[c];
}
