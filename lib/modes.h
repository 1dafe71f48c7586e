/*
 * Privilege modes of a branch: which of a BTS record's two ends lie in
 * user space, and what kind of kernel entry a user-to-kernel branch was.
 *
 * One address range decides: an address is a user address iff
 * user_lo <= a < user_hi; every other address is a kernel address (the
 * kernel's identity-mapped low addresses and its upper half alike). A
 * record (from, to) is then in one of four classes:
 *
 *   BR_USER    user -> user
 *   BR_KERNEL  kernel -> kernel
 *   BR_ENTRY   user -> kernel: a system call, an exception, an interrupt
 *   BR_EXIT    kernel -> user: the return to user mode
 *
 * The kernel-side target of an entry tells which entry it was; the
 * kernel, which owns its system-call entry and its IDT stubs, supplies
 * entry_kind() to say so. Without it every entry is ENTRY_UNKNOWN, and
 * so is any answer outside enum entry_kind.
 *
 * Hardware-free, no state: a map is set up once and only read.
 */
#ifndef LIB_MODES_H
#define LIB_MODES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/ds_layout.h"

/*
 * Default user range: the lower canonical half above 64 TiB. The model's
 * synthetic user records (0x0000400000000000 | seq << 4) and the user
 * code (at 0x0000700000000000) are in it; the kernel at low identity-
 * mapped addresses and at 0xFFFF800000000000 | ... is not.
 */
#define MODE_USER_LO_DEFAULT 0x0000400000000000ull
#define MODE_USER_HI_DEFAULT 0x0000800000000000ull

enum br_class {
	BR_USER,
	BR_KERNEL,
	BR_ENTRY,
	BR_EXIT,
	BR_NCLASSES
};

/* Stable numbers: they appear in pseudo-records (rec_format.h). */
enum entry_kind {
	ENTRY_UNKNOWN = 0,
	ENTRY_SYSCALL = 1,
	ENTRY_EXCEPTION = 2,
	ENTRY_INTERRUPT = 3,
	ENTRY_NKINDS
};

struct mode_map {
	uint64_t user_lo, user_hi; /* [lo, hi): user addresses */
	/* Kind of an entry, from its kernel-side target; NULL: unknown. */
	enum entry_kind (*entry_kind)(void *ctx, uint64_t kernel_addr);
	void *ctx;
};

/* The default range, no entry_kind callback. */
void mode_map_default(struct mode_map *m);

static inline bool mode_is_user(const struct mode_map *m, uint64_t addr)
{
	return addr >= m->user_lo && addr < m->user_hi;
}

static inline enum br_class br_classify(const struct mode_map *m,
					const struct bts_record *r)
{
	bool from_user = mode_is_user(m, r->from);
	bool to_user = mode_is_user(m, r->to);

	if (from_user)
		return to_user ? BR_USER : BR_ENTRY;
	return to_user ? BR_EXIT : BR_KERNEL;
}

/* entry_kind(kernel_addr) through the callback; ENTRY_UNKNOWN without
 * one or for an answer that is no entry_kind. */
enum entry_kind mode_entry_kind(const struct mode_map *m, uint64_t kernel_addr);

/* "unknown", "syscall", "exception", "interrupt"; "?" when invalid. */
const char *entry_kind_name(enum entry_kind k);

/* "user", "kernel", "entry", "exit"; "?" when invalid. */
const char *br_class_name(enum br_class c);

#endif
