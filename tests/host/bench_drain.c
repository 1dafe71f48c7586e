/*
 * Host benchmark of the drain path: the cost of draining a full
 * 2048-record BTS buffer into one consumer, for every strategy x ring x
 * format, as a ratio to a plain memcpy of the same 48 KiB measured in the
 * same run (the physical limit), plus the 2009 baseline to beat: one
 * output call per record, as Linux's ds.c did.
 *
 * Two copies are the reference: libc's memcpy (vector stores: the host's
 * limit) and the kernel's own lib_memcpy ("rep movsb": what NMI code,
 * which may not touch vector registers, has). Formats other than raw are
 * built with 64-bit stores, so the kernel copy is their fair yardstick.
 *
 * The cost of software filtering by mode (lib/consumer.c) follows: the
 * user and kernel filters next to the unfiltered "both" on the same
 * stream, as a ratio to that "both" measured in the same run, on a mix
 * like a traced program's (runs of 200 user records, an entry, 54 kernel
 * records, an exit) and on the tests' dense pattern (3 kernel records,
 * an exit, 3 user records, an entry).
 *
 * Figures, never pass/fail: the targets (raw >= 90 % of memcpy, fixed
 * >= 50 %) are printed next to the figures. Combinations are measured
 * round-robin, so a slow spell of a shared machine hits all of them
 * alike; each figure is the median of all drains after a warm-up. The
 * stable figure on a noisy machine is the instruction count: run under
 * callgrind ("--callgrind FILE", see bench.mk) the program dumps the
 * counts of each combination to FILE.N and prints instructions per
 * record (callgrind's own memcpy stands in for libc's there).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/consumer.h"
#include "lib/drain.h"
#include "lib/string.h"
#include "tests/host/drain_testlib.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#else
#define HAVE_CALLGRIND 0
#endif

#define NREC	     2048
#define RING_BYTES   (128 * 1024)
#define SUBBUF_BYTES 4096
#define ROUNDS	     25
#define RUNS	     16 /* per combination and round */
#define WARMUP	     4
#define CG_RUNS	     8

struct combo {
	char name[48];
	enum drain_id id;
	enum ring_mode mode;
	enum rec_format_id fmt;
	bool per_record;
	int copy; /* 1: libc memcpy, 2: lib_memcpy; no drain */
	enum consumer_filter filter;
	int stream; /* STREAM_* */
	int base;   /* filter rows: index of their "both" row; else 0 */
};

enum {
	STREAM_DENSE, /* tl_rec(): 3 kernel, exit, 3 user, entry */
	STREAM_MIX,   /* 200 user, entry, 54 kernel, exit */
	STREAM_PERIOD = 256,
	STREAM_USER_RUN = 200,
};

static const char *const stream_names[] = { "dense", "mix" };

static struct {
	struct ds_area ds;
	struct drain d;
	struct consumer c;
	struct consumer_set set;
	uint64_t written;
} B;

static struct bts_record dsbuf[2][NREC] __attribute__((aligned(64)));
static uint64_t ringmem[RING_BYTES / 8] __attribute__((aligned(64)));

static void no_defer(void *ctx)
{
	(void)ctx; /* the benchmark runs the deferred entry itself */
}

static struct bts_record mix_rec(uint64_t i)
{
	uint64_t p = i % STREAM_PERIOD, off = (i % 0x100000) * 16;
	uint64_t u = TL_USER_LO + off, kern = TL_KERNEL_LO + off;
	struct bts_record r = { u, u + 0x40, (i & 1) ? BTS_FLAG_PREDICTED : 0 };

	if (p == STREAM_USER_RUN) { /* entry */
		r.to = kern;
	} else if (p == STREAM_PERIOD - 1) { /* exit */
		r.from = kern;
	} else if (p > STREAM_USER_RUN) {
		r.from = kern;
		r.to = kern + 0x40;
	}
	return r;
}

static void fill(int stream)
{
	int b;
	uint64_t i;

	for (b = 0; b < 2; b++)
		for (i = 0; i < NREC; i++)
			dsbuf[b][i] =
				stream == STREAM_MIX ? mix_rec(i) : tl_rec(i);
}

static void setup(const struct combo *k)
{
	struct ring_cfg rc = {
		.mode = k->mode,
		.fmt = rec_format_get(k->fmt),
		.mem = ringmem,
		.bytes = RING_BYTES,
		.subbuf_bytes = SUBBUF_BYTES,
	};
	struct drain_cfg cfg = {
		.ds = &B.ds,
		.bufs = { dsbuf[0], dsbuf[1] },
		.nbufs = k->id == DRAIN_SWITCH ? 2 : 1,
		.buf_records = NREC,
		.headroom = 0,
		.written = &B.written,
		.per_record = k->per_record,
		.sink = { consumer_set_emit, &B.set },
		.env = { no_defer, NULL, NULL },
	};

	memset(&B.set, 0, sizeof(B.set));
	fill(k->stream);
	if (consumer_init(&B.c, k->filter, NULL, &rc) ||
	    consumer_set_add(&B.set, &B.c) || drain_init(&B.d, k->id, &cfg)) {
		fprintf(stderr, "bench: cannot set up %s\n", k->name);
		exit(1);
	}
	drain_start(&B.d);
}

/* What is timed: one full buffer from the producer to the ring. */
static __attribute__((noinline)) void drain_once(const struct combo *k)
{
	if (k->copy) {
		if (k->copy == 1)
			memcpy(ringmem, dsbuf[0], sizeof(dsbuf[0]));
		else
			lib_memcpy(ringmem, dsbuf[0], sizeof(dsbuf[0]));
		__asm__ volatile("" ::: "memory");
		return;
	}
	switch (k->id) {
	case DRAIN_SNAPSHOT:
		B.written += NREC;
		drain_snapshot(&B.d, NREC);
		break;
	case DRAIN_SWITCH:
		B.ds.bts_index = B.ds.bts_abs_max;
		drain_pmi(&B.d);
		drain_deferred(&B.d);
		break;
	default:
		B.ds.bts_index = B.ds.bts_abs_max;
		drain_pmi(&B.d);
		break;
	}
}

/* Untimed: the reader empties the ring without looking. */
static void reader_reset(const struct combo *k)
{
	struct ring *r = &B.c.ring;
	const struct ring_packet *p;

	if (k->copy)
		return;
	if (k->mode == RING_NOLOSS)
		__atomic_store_n(&r->b.tail, r->b.head, __ATOMIC_RELEASE);
	while (k->mode == RING_SUBBUF && (p = ring_subbuf_get(r)))
		ring_subbuf_put(r, p);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One round: RUNS timed drains of combination k, appended to t[]. */
static void time_round(const struct combo *k, uint64_t timer_ns, uint64_t *t)
{
	int i;

	if (!k->copy)
		setup(k);
	for (i = 0; i < WARMUP + RUNS; i++) {
		uint64_t t0, t1;

		reader_reset(k);
		t0 = now_ns();
		drain_once(k);
		t1 = now_ns();
		if (i >= WARMUP)
			t[i - WARMUP] =
				t1 - t0 > timer_ns ? t1 - t0 - timer_ns : 0;
	}
	if (!k->copy && !bts_account_balanced(&B.c.acct))
		fprintf(stderr, "bench: %s: consumer books do not balance\n",
			k->name);
}

static uint64_t timer_cost(void)
{
	uint64_t t[101];
	int i;

	for (i = 0; i < 101; i++) {
		uint64_t t0 = now_ns();

		t[i] = now_ns() - t0;
	}
	qsort(t, 101, sizeof(t[0]), cmp_u64);
	return t[50];
}

/* Instructions per record under callgrind, read back from its dump. */
static double callgrind_combo(const struct combo *k, const char *out, int dump)
{
#if HAVE_CALLGRIND
	char path[512], line[256];
	double ir = -1;
	FILE *f;
	int i;

	if (!k->copy)
		setup(k);
	for (i = 0; i < 2 + CG_RUNS; i++) {
		reader_reset(k);
		if (i >= 2)
			CALLGRIND_TOGGLE_COLLECT;
		drain_once(k);
		if (i >= 2)
			CALLGRIND_TOGGLE_COLLECT;
	}
	CALLGRIND_DUMP_STATS_AT(k->name);
	snprintf(path, sizeof(path), "%s.%d", out, dump);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "totals:", 7))
			ir = strtod(line + 7, NULL) / (CG_RUNS * NREC);
	if (f)
		fclose(f);
	return ir;
#else
	(void)k;
	(void)out;
	(void)dump;
	return -1;
#endif
}

/*
 * The filter rows, inline drain: on the mix, every format into a noloss
 * ring and raw into the other rings; on the dense pattern, raw into a
 * noloss ring. Each group is both, user, kernel; at is the index of c[0].
 */
static size_t make_filter_combos(struct combo *c, int at)
{
	static const struct {
		int stream;
		enum ring_mode mode;
		enum rec_format_id fmt;
	} groups[] = {
		{ STREAM_MIX, RING_NOLOSS, REC_RAW },
		{ STREAM_MIX, RING_NOLOSS, REC_FIXED },
		{ STREAM_MIX, RING_NOLOSS, REC_COMPAT32 },
		{ STREAM_MIX, RING_OVERWRITE, REC_RAW },
		{ STREAM_MIX, RING_SUBBUF, REC_RAW },
		{ STREAM_DENSE, RING_NOLOSS, REC_RAW },
	};
	size_t n = 0, g;
	int f;

	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (f = 0; f < CF_NFILTERS; f++, n++) {
			c[n] = (struct combo){ .id = DRAIN_INLINE,
					       .mode = groups[g].mode,
					       .fmt = groups[g].fmt,
					       .filter = f,
					       .stream = groups[g].stream,
					       .base = at + (int)(n - f) };
			snprintf(c[n].name, sizeof(c[n].name),
				 "%s inline/%s/%s %s",
				 stream_names[groups[g].stream],
				 ring_mode_name(groups[g].mode),
				 rec_formats[groups[g].fmt].name,
				 consumer_filter_name(f));
		}
	return n;
}

static size_t make_combos(struct combo *c)
{
	size_t n = 0;
	int id, mode, fmt;

	c[n++] = (struct combo){ .name = "memcpy", .copy = 1 };
	c[n++] = (struct combo){ .name = "memcpy-kernel (rep movsb)",
				 .copy = 2 };
	for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
		c[n] = (struct combo){ .id = DRAIN_INLINE,
				       .mode = RING_NOLOSS,
				       .fmt = fmt,
				       .per_record = true };
		snprintf(c[n].name, sizeof(c[n].name),
			 "baseline-per-record/noloss/%s",
			 rec_formats[fmt].name);
		n++;
	}
	for (id = 0; id < DRAIN_NIDS; id++)
		for (mode = 0; mode < RING_NMODES; mode++)
			for (fmt = 0; fmt < REC_NFORMATS; fmt++) {
				c[n] = (struct combo){ .id = id,
						       .mode = mode,
						       .fmt = fmt };
				snprintf(c[n].name, sizeof(c[n].name),
					 "%s/%s/%s", drain_ops_get(id)->name,
					 ring_mode_name(mode),
					 rec_formats[fmt].name);
				n++;
			}
	return n + make_filter_combos(c + n, (int)n);
}

#define NFILTER_COMBOS (CF_NFILTERS * (REC_NFORMATS + RING_NMODES - 1 + 1))
#define NCOMBOS \
	(2 + REC_NFORMATS * (1 + DRAIN_NIDS * RING_NMODES) + NFILTER_COMBOS)

static const char *target(const struct combo *k, double ratio)
{
	if (k->per_record || k->copy || k->fmt == REC_COMPAT32)
		return "";
	if (k->fmt == REC_RAW)
		return ratio >= 0.9 ? ">=90% met" : ">=90% missed";
	return ratio >= 0.5 ? ">=50% met" : ">=50% missed";
}

int main(int argc, char **argv)
{
	static uint64_t t[NCOMBOS][ROUNDS * RUNS];
	static struct combo c[NCOMBOS];
	const char *cg_out =
		argc > 2 && !strcmp(argv[1], "--callgrind") ? argv[2] : NULL;
	size_t n = make_combos(c), i;
	uint64_t timer = timer_cost();
	double ns[NCOMBOS];
	int round;

	_Static_assert(CF_BOTH == 0, "a filter group starts with both");
	fill(STREAM_DENSE);
	if (cg_out) {
		printf("instructions per record under callgrind (a rep movs "
		       "counts once per iteration,\nso copies that use it "
		       "count about one per byte)\n");
		printf("%-36s %10s\n", "combination", "Ir/record");
		for (i = 0; i < n; i++)
			printf("%-36s %10.1f\n", c[i].name,
			       callgrind_combo(&c[i], cg_out, (int)i + 1));
		return 0;
	}
	for (round = 0; round < ROUNDS; round++)
		for (i = 0; i < n; i++)
			time_round(&c[i], timer, &t[i][round * RUNS]);
	for (i = 0; i < n; i++) {
		qsort(t[i], ROUNDS * RUNS, sizeof(t[i][0]), cmp_u64);
		ns[i] = (double)t[i][ROUNDS * RUNS / 2] / NREC;
	}
	printf("drain of a %d-record (%d KiB) buffer into one consumer: "
	       "median of %d, timer (%llu ns) subtracted\n",
	       NREC, NREC * 24 / 1024, ROUNDS * RUNS,
	       (unsigned long long)timer);
	printf("%-36s %7s %7s %9s %9s  %s\n", "combination", "ns/rec", "MB/s",
	       "vs memcpy", "vs kernel", "target (vs memcpy)");
	for (i = 0; i < n; i++) {
		double r = ns[i] > 0 ? ns[0] / ns[i] : 0;
		double rk = ns[i] > 0 ? ns[1] / ns[i] : 0;

		if (c[i].base)
			continue; /* a filter row: below */
		printf("%-36s %7.3f %7.0f %8.1f%% %8.1f%%  %s\n", c[i].name,
		       ns[i], ns[i] > 0 ? 24e3 / ns[i] : 0.0, 100 * r, 100 * rk,
		       target(&c[i], r));
	}
	printf("\nsoftware filtering by mode, same stream, same run "
	       "(mix: %d user, entry, %d kernel, exit;\ndense: 3 kernel, "
	       "exit, 3 user, entry); \"vs both\": the unfiltered row's "
	       "ns over this one's\n",
	       STREAM_USER_RUN, STREAM_PERIOD - STREAM_USER_RUN - 2);
	printf("%-36s %7s %9s %9s\n", "stream strategy/ring/format filter",
	       "ns/rec", "vs both", "vs memcpy");
	for (i = 0; i < n; i++) {
		const struct combo *k = &c[i];

		if (!k->base)
			continue;
		printf("%-36s %7.3f %8.1f%% %8.1f%%\n", k->name, ns[i],
		       ns[i] > 0 ? 100 * ns[k->base] / ns[i] : 0.0,
		       ns[i] > 0 ? 100 * ns[0] / ns[i] : 0.0);
	}
	return 0;
}
