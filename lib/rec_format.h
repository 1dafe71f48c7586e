/*
 * Record formats a consumer can ask for: how one BTS record (and one "lost
 * records" marker) is laid out in the consumer's ring.
 *
 *   raw      the 24-byte hardware record, copied: the cheapest, but
 *            64-bit-kernel specific and without CPU or sequence.
 *   fixed    arch-independent, 32 bytes: type, CPU, sequence, from, to,
 *            flags; explicit widths, no padding on any ABI, little-endian.
 *            Record i is at offset 32 * i, so a reader can seek (the
 *            "constant-size records" asked for on the 2009 thread).
 *   compat32 what a 32-bit consumer reads: the 12-byte 32-bit DS BTS
 *            record (from, to, flags, 32 bits each).
 *
 * Every format has one fixed size for data and lost records alike, so a
 * ring of one format always has its record boundaries at multiples of the
 * size: that is what makes the flight recorder's tail trivially findable.
 *
 * Lost marker, per format (count = records lost, cause = bts_loss_cause):
 *   raw      from = 0, to = count, flags = REC_RAW_LOST | cause << 8
 *   fixed    type = REC_LOST, seq = sequence of the record that follows,
 *            from = count, to = cause
 *   compat32 from = 0, to = min(count, 2^32 - 1), flags = REC_C32_LOST |
 *            cause << 8
 * The hardware never sets bit 63 of a 64-bit flags word, and bit 31 of the
 * 32-bit form is produced only here.
 *
 * Mode pseudo-records (type = REC_KERNEL_ENTER "entered kernel", with the
 * entry kind, or REC_KERNEL_EXIT "returned to user"; kind = enum
 * entry_kind, which a consumer leaves 0 for an exit) stand in for a
 * branch between user and kernel in a stream filtered to one side
 * (consumer.h), where the other side's address is 0. Per format:
 *   raw      from, to; flags = REC_RAW_MODE | type << 16 | kind << 8
 *   fixed    type = 3 or 4, seq = the sequence of the branch it replaces,
 *            from, to; kind in bits 8..15 of the flags field
 *   compat32 from, to truncated as for branches (REC_C32_TRUNC when one
 *            does not fit); flags = REC_C32_MODE | type << 16 |
 *            kind << 8 (| REC_C32_TRUNC)
 * Bit 62 of the 64-bit flags word and bit 29 of the 32-bit one are
 * likewise never set by the hardware. A fixed-format reader that predates
 * the pseudo-records rejects types 3 and 4; the record size is the same,
 * so it can skip them.
 */
#ifndef LIB_REC_FORMAT_H
#define LIB_REC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/bts_account.h"
#include "lib/ds_layout.h"
#include "lib/modes.h"

enum rec_format_id {
	REC_RAW,
	REC_FIXED,
	REC_COMPAT32,
	REC_NFORMATS
};

enum rec_type {
	REC_BRANCH = 1,
	REC_LOST = 2,
	REC_KERNEL_ENTER = 3, /* entered the kernel; kind: enum entry_kind */
	REC_KERNEL_EXIT = 4   /* returned to user */
};

/* raw: flag bits btslab adds to the hardware's 64-bit flags word */
#define REC_RAW_LOST	(1ull << 63)
#define REC_RAW_MODE	(1ull << 62) /* a mode pseudo-record */
#define REC_CAUSE_SHIFT 8
#define REC_CAUSE_MASK	0xffull
/* raw and compat32 pseudo-records: type and kind in the flags word */
#define REC_TYPE_SHIFT	16
#define REC_TYPE_MASK	0xffull
#define REC_KIND_SHIFT	8
#define REC_KIND_MASK	0xffull

/* The arch-independent record. Offsets are part of the format. */
struct rec_fixed {
	uint8_t type;	 /* enum rec_type */
	uint8_t version; /* REC_FIXED_VERSION */
	uint16_t cpu;
	uint32_t flags; /* REC_F_*; mode records: kind << REC_F_KIND_SHIFT */
	uint64_t seq;	/* producer sequence number of this record */
	uint64_t from;	/* REC_LOST: number of records lost */
	uint64_t to;	/* REC_LOST: cause */
	/* REC_KERNEL_ENTER, REC_KERNEL_EXIT: from and to, as given */
};

#define REC_FIXED_VERSION 1
#define REC_F_PREDICTED	  (1u << 0)
#define REC_F_KIND_SHIFT  8 /* mode records: enum entry_kind, bits 8..15 */
#define REC_F_KIND_MASK	  (0xffu << REC_F_KIND_SHIFT)

_Static_assert(sizeof(struct rec_fixed) == 32, "fixed record is 32 bytes");

/* The 32-bit DS BTS record, as a 32-bit consumer reads it. */
struct rec_compat32 {
	uint32_t from;
	uint32_t to;
	uint32_t flags; /* bit 4 predicted (as the hardware) + below */
};

#define REC_C32_LOST  (1u << 31)
#define REC_C32_TRUNC (1u << 30) /* from or to did not fit in 32 bits */
#define REC_C32_MODE  (1u << 29) /* a mode pseudo-record */

_Static_assert(sizeof(struct rec_compat32) == 12, "compat32 is 12 bytes");

#define REC_MAX_SIZE 32u

/* A decoded record of any format; fields a format lacks are 0. */
struct rec_event {
	enum rec_type type;
	uint16_t cpu;
	uint64_t seq;
	uint64_t from, to;
	bool predicted;
	bool truncated;		   /* compat32: an address lost high bits */
	uint64_t lost;		   /* REC_LOST: count */
	enum bts_loss_cause cause; /* REC_LOST */
	enum entry_kind kind;	   /* REC_KERNEL_ENTER (and _EXIT: 0) */
};

/*
 * One format. encode() writes n records of size bytes each to dst, the
 * i-th with sequence seq + i; dst needs no alignment. encode_lost() and
 * encode_mode() write one lost marker or one mode pseudo-record (type
 * REC_KERNEL_ENTER or REC_KERNEL_EXIT, kind < ENTRY_NKINDS). decode()
 * returns false for bytes that are no valid record of this format.
 */
struct rec_format {
	enum rec_format_id id;
	const char *name;
	size_t size;
	void (*encode)(void *dst, const struct bts_record *src, size_t n,
		       uint64_t seq, uint16_t cpu);
	void (*encode_lost)(void *dst, uint64_t count,
			    enum bts_loss_cause cause, uint64_t seq,
			    uint16_t cpu);
	void (*encode_mode)(void *dst, enum rec_type type, enum entry_kind kind,
			    uint64_t from, uint64_t to, uint64_t seq,
			    uint16_t cpu);
	bool (*decode)(const void *src, struct rec_event *ev);
};

extern const struct rec_format rec_formats[REC_NFORMATS];

/* NULL for an unknown id or name. */
const struct rec_format *rec_format_get(enum rec_format_id id);
const struct rec_format *rec_format_by_name(const char *name);

#endif
