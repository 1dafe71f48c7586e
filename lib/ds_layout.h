/*
 * The Debug Store contract shared by the BTS producers (hardware and model)
 * and the drain path. Layouts follow the Intel SDM Vol. 3, "Debug Store (DS)
 * Mechanism", 64-bit format (DTES64). Pure data: no hardware access here.
 */
#ifndef LIB_DS_LAYOUT_H
#define LIB_DS_LAYOUT_H

#include <stdint.h>

/* One BTS record, 64-bit format: 24 bytes. */
struct bts_record {
	uint64_t from;	/* linear address of the branch instruction */
	uint64_t to;	/* linear address of the target */
	uint64_t flags; /* bit 4: predicted (not on every microarchitecture) */
};

#define BTS_RECORD_SIZE	   24u
#define BTS_FLAG_PREDICTED (1ull << 4)

_Static_assert(sizeof(struct bts_record) == BTS_RECORD_SIZE,
	       "BTS record is 24 bytes in the 64-bit DS format");

/* DS save area, 64-bit layout. All BTS fields are linear addresses. */
struct ds_area {
	uint64_t bts_base;		/* 0x00 first record */
	uint64_t bts_index;		/* 0x08 next record is written here */
	uint64_t bts_abs_max;		/* 0x10 one past the last usable byte */
	uint64_t bts_int_threshold;	/* 0x18 PMI when index reaches this */
	uint64_t pebs_base;		/* 0x20 */
	uint64_t pebs_index;		/* 0x28 */
	uint64_t pebs_abs_max;		/* 0x30 */
	uint64_t pebs_int_threshold;	/* 0x38 */
	uint64_t pebs_counter_reset[4]; /* 0x40 */
};

_Static_assert(__builtin_offsetof(struct ds_area, bts_int_threshold) == 0x18,
	       "SDM: BTS interrupt threshold at offset 0x18");
_Static_assert(__builtin_offsetof(struct ds_area, pebs_counter_reset) == 0x40,
	       "SDM: PEBS counter reset values from offset 0x40");

#endif
