/*
 * A consumer's output ring: one interface, three modes behind it.
 *
 *   noloss     perf-style head/tail. When full, new records are dropped and
 *              counted, and the next write that has room for the marker and
 *              at least one record first emits a lost record (the format's
 *              lost marker, cause ring_full) with the count.
 *   overwrite  flight recorder. The writer moves the tail past the oldest
 *              records and publishes it; a reader finds the first whole
 *              record at the tail and can read the newest N in order.
 *              Overwritten records are counted; the ring holds no markers.
 *   subbuf     LTTng-style: fixed-size sub-buffers ("packets"), each with a
 *              header carrying a packet sequence number and the number of
 *              records discarded (ring full) since the previous packet. The
 *              reader owns one spare sub-buffer and takes a full one by
 *              exchanging it with the spare in the ring's table: no copy.
 *
 * Records never change size inside a ring (see rec_format.h), so noloss
 * and overwrite rings are byte rings of any size, with records straddling
 * the end; sub-buffers hold whole records only.
 *
 * Concurrency: one writer (the drain path, on the producer's CPU: the PMI
 * handler for the inline strategy, the deferred handler for switch; never
 * both for one ring) and one reader, possibly on another CPU. Positions are
 * free-running 64-bit byte (or packet) counts, never reset:
 *   noloss:    writer stores data, then head (release); reader loads head
 *              (acquire), copies, then stores tail (release); writer loads
 *              tail (acquire) before reusing space.
 *   overwrite: writer stores the new tail, a release fence, the data, then
 *              head (release). Reader loads head, copies, an acquire fence,
 *              then reloads tail: anything below that tail may have been
 *              overwritten while it copied and is dropped (seqlock-style).
 *   subbuf:    writer fills the open packet, writes its header, then
 *              publishes the packet count (release). The reader exchanges a
 *              table entry only for a committed packet and then publishes
 *              its own count (release); the writer opens a packet only
 *              when that count (acquire) shows the slot was taken.
 * The writer updates the consumer's account (delivered, lost); the reader
 * never writes it.
 */
#ifndef LIB_RING_H
#define LIB_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/bts_account.h"
#include "lib/rec_format.h"

enum ring_mode {
	RING_NOLOSS,
	RING_OVERWRITE,
	RING_SUBBUF,
	RING_NMODES
};

#define RING_SUBBUF_MAX 64 /* sub-buffers in one ring, the spare included */

/* At the start of every sub-buffer. */
struct ring_packet {
	uint64_t seq;	    /* packet sequence number, from 0 */
	uint64_t discarded; /* records discarded since the previous packet */
	uint32_t nrec;	    /* records that follow the header */
	uint16_t rec_size;  /* bytes per record */
	uint16_t format;    /* enum rec_format_id */
};

_Static_assert(sizeof(struct ring_packet) == 24, "packet header layout");

struct ring_cfg {
	enum ring_mode mode;
	const struct rec_format *fmt;
	void *mem;	     /* caller's memory, 8-byte aligned */
	size_t bytes;	     /* its size */
	size_t subbuf_bytes; /* subbuf: one sub-buffer; mem holds n + 1 */
	uint16_t cpu;	     /* stamped into formats that carry it */
};

struct ring;

struct ring_ops {
	enum ring_mode mode;
	const char *name;
	/*
	 * Writer: encode n records (sequence numbers seq...) and store what
	 * the mode allows; update the account. Returns records stored.
	 */
	size_t (*write)(struct ring *r, const struct bts_record *src, size_t n,
			uint64_t seq);
	/*
	 * Writer: store one record already encoded in the ring's format
	 * (a pseudo-record) exactly as write() stores one record of
	 * sequence seq, with the same account. Returns records stored.
	 */
	size_t (*write_encoded)(struct ring *r, const void *rec, uint64_t seq);
	/* Writer: make everything written readable (subbuf: close packet). */
	void (*flush)(struct ring *r);
	/*
	 * Reader: copy up to max whole records, oldest first, to dst.
	 * noloss and subbuf consume them; overwrite copies the newest max
	 * without consuming (a flight recorder is read, not drained).
	 */
	size_t (*read)(struct ring *r, void *dst, size_t max);
};

struct ring_bytes { /* noloss, overwrite */
	uint8_t *mem;
	size_t bytes;
	size_t cap;	  /* overwrite: bytes of whole records; else bytes */
	uint64_t head;	  /* writer publishes */
	uint64_t tail;	  /* noloss: reader publishes; overwrite: writer */
	uint64_t pending; /* noloss: records dropped, no marker yet */
};

struct ring_subbufs {
	/* The table of packets; the reader exchanges entries. */
	uint8_t *slot[RING_SUBBUF_MAX];
	size_t n;	    /* sub-buffers in the table */
	size_t bytes;	    /* one sub-buffer */
	size_t per_packet;  /* records that fit after the header */
	uint64_t committed; /* packets closed; writer publishes */
	uint64_t taken;	    /* packets taken; reader publishes */
	uint32_t used;	    /* writer: records in the open packet */
	uint64_t discarded; /* writer: not yet reported in a header */
	uint8_t *spare;	    /* reader: its own sub-buffer */
	uint8_t *held;	    /* reader: packet being read by read() */
	uint32_t held_off;  /* reader: records of it already copied */
};

struct ring {
	const struct ring_ops *ops;
	const struct rec_format *fmt;
	struct bts_account *acct; /* the consumer's */
	size_t rec;		  /* fmt->size */
	uint16_t cpu;
	union {
		struct ring_bytes b;
		struct ring_subbufs s;
	};
};

extern const struct ring_ops ring_noloss_ops, ring_overwrite_ops,
	ring_subbuf_ops;

/*
 * Set up r over cfg->mem. Needs room for two records (noloss: marker and
 * record), one record (overwrite), or two sub-buffers of which one is the
 * reader's spare, each with room for the header and a record (subbuf).
 * Returns 0, or -1 when the configuration cannot work.
 */
int ring_init(struct ring *r, const struct ring_cfg *cfg,
	      struct bts_account *acct);

const char *ring_mode_name(enum ring_mode mode);

/* Records the ring can hold at once (subbuf: all packets). */
size_t ring_capacity(const struct ring *r);

static inline size_t ring_write(struct ring *r, const struct bts_record *src,
				size_t n, uint64_t seq)
{
	return r->ops->write(r, src, n, seq);
}

/*
 * Write one mode pseudo-record (rec_format.h: type REC_KERNEL_ENTER or
 * REC_KERNEL_EXIT) with sequence seq, as one record: delivered, or lost
 * with the same cause and marker a branch record would get. Returns 1
 * when stored, 0 when not.
 */
size_t ring_write_mode(struct ring *r, enum rec_type type, enum entry_kind kind,
		       uint64_t from, uint64_t to, uint64_t seq);

static inline void ring_flush(struct ring *r)
{
	r->ops->flush(r);
}

static inline size_t ring_read(struct ring *r, void *dst, size_t max)
{
	return r->ops->read(r, dst, max);
}

/*
 * overwrite: copy the newest (up to) max records in order to dst; *first
 * (if not NULL) gets the stream index of the first one copied: the
 * number of records written to the ring before it since ring_init().
 */
size_t ring_read_newest(struct ring *r, void *dst, size_t max, uint64_t *first);

/*
 * subbuf, zero-copy reader: take the oldest committed packet by
 * exchanging the reader's spare into its slot (NULL when none is
 * committed); give it back with ring_subbuf_put() before the next get.
 */
const struct ring_packet *ring_subbuf_get(struct ring *r);
void ring_subbuf_put(struct ring *r, const struct ring_packet *p);

/*
 * Shared by the byte rings (pos: stream position in bytes; len at most
 * the ring's size): encode records, copy bytes in, copy bytes out, each
 * across the end of the ring where needed.
 */
void ring_bytes_put(struct ring *r, uint64_t pos, const struct bts_record *src,
		    size_t n, uint64_t seq);
void ring_bytes_copy_in(struct ring *r, uint64_t pos, const void *src,
			size_t len);
void ring_bytes_get(const struct ring *r, uint64_t pos, void *dst, size_t len);

#endif
