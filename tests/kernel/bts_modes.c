/*
 * Tracing across privilege levels and threads:
 *
 *   bts.filter.{both,user,kernel}.{model,hw}
 *	a workload of threads making system calls, taking timer interrupts
 *	and faulting, traced per CPU by an unfiltered consumer and one with
 *	the filter under test: the filtered stream must be exactly what the
 *	filter makes of the unfiltered one (software filtering, because the
 *	two consumers disagree). Then the filtered consumer alone, so that
 *	the producer filters by CPL (BTS_OFF_OS / BTS_OFF_USR), checked
 *	against every record the model made (its oracle). User-only streams
 *	hold no kernel address, kernel-only streams no user address, and a
 *	pseudo-record marks every ring transition.
 *   bts.thread.switch
 *	two traced threads and one untraced, switched by yield and the timer
 *	many times: every record in a thread's stream was made while that
 *	thread ran (checked against the model's sequence number at each
 *	switch), and the counts add up with the per-CPU stream.
 *   bts.consumers.mixed
 *	a per-CPU kernel+user consumer, a per-CPU kernel-only one, a
 *	per-thread user-only flight recorder and a per-thread unfiltered one,
 *	with different formats, ring modes and sizes, all at once.
 */
#include "drivers/bts_model.h"
#include "kernel/bts.h"
#include "kernel/bts_tracer.h"
#include "kernel/cpu.h"
#include "kernel/pmm.h"
#include "kernel/test.h"
#include "kernel/thread.h"
#include "kernel/trap.h"
#include "kernel/user.h"
#include "lib/format.h"
#include "lib/rec_format.h"
#include "lib/ring.h"
#include "lib/string.h"
#include "user/usys.h"

#define NSTREAMS   4
#define STREAM_CAP (1u << 13) /* records a test reads per consumer */
#define RING_BYTES (STREAM_CAP * REC_MAX_SIZE)
#define SCRATCH	   (64u << 10)
#define SPARES	   3
#define BURST	   3 /* model records per event besides transitions */
#define NTHREADS   3
#define MAX_MARKS  4096
#define TIMEOUT_MS 20000
#define SLICE_US   1000

extern const uint64_t isr_stubs[256];

static struct {
	bool ready;
	uint8_t *ring[NSTREAMS];
	struct rec_event *ev[NSTREAMS];
	struct bts_record *shadow;
	uint8_t *scratch;
	void *bufs[DRAIN_MAX_BUFS];
	uint32_t buf_records;
} mem;

static bool alloc_once(struct test_run *t)
{
	uint64_t bytes = (uint64_t)bts_settings.records * BTS_RECORD_SIZE;

	if (mem.ready && mem.buf_records == bts_settings.records)
		return true;
	for (int i = 0; i < NSTREAMS; i++) {
		mem.ring[i] = pmm_alloc(RING_BYTES);
		mem.ev[i] = pmm_alloc(STREAM_CAP * sizeof(struct rec_event));
		if (!mem.ring[i] || !mem.ev[i])
			goto oom;
	}
	mem.shadow = pmm_alloc(STREAM_CAP * sizeof(struct bts_record));
	mem.scratch = pmm_alloc(SCRATCH);
	for (int i = 0; i < 1 + SPARES; i++)
		if (!(mem.bufs[i] = pmm_alloc(bytes)))
			goto oom;
	if (!mem.shadow || !mem.scratch)
		goto oom;
	mem.buf_records = (uint32_t)bts_settings.records;
	mem.ready = true;
	return true;
oom:
	t_fail(t, "out of memory for rings and streams");
	return false;
}

/* --- what a filter makes of a record (the test's own reading) --- */

static bool is_user(uint64_t a)
{
	return a >= USER_LO && a < USER_HI;
}

static enum entry_kind kind_of(uint64_t to)
{
	if (to == (uint64_t)syscall_entry)
		return ENTRY_SYSCALL;
	for (unsigned v = 0; v < 256; v++)
		if (isr_stubs[v] == to)
			return v < 32 && v != VEC_NMI ? ENTRY_EXCEPTION
						      : ENTRY_INTERRUPT;
	return ENTRY_UNKNOWN;
}

/* The producer's CPL filter, as the model implements it. */
static bool producer_keeps(enum consumer_filter f, const struct rec_event *r)
{
	bool fu = is_user(r->from), tu = is_user(r->to);

	if (f == CF_USER)
		return fu || tu;
	if (f == CF_KERNEL)
		return !fu || !tu;
	return true;
}

/* What a consumer with filter f delivers for one record; false: none. */
static bool expect_one(enum consumer_filter f, const struct rec_event *r,
		       struct rec_event *out)
{
	bool fu = is_user(r->from), tu = is_user(r->to);

	*out = (struct rec_event){ .type = REC_BRANCH,
				   .from = r->from,
				   .to = r->to };
	if (f == CF_BOTH || (f == CF_USER && fu && tu) ||
	    (f == CF_KERNEL && !fu && !tu))
		return true;
	if (fu == tu)
		return false; /* the other side's branch */
	out->type = fu ? REC_KERNEL_ENTER : REC_KERNEL_EXIT;
	out->kind = fu ? kind_of(r->to) : ENTRY_UNKNOWN;
	if (f == CF_USER) {
		out->from = fu ? r->from : 0;
		out->to = fu ? 0 : r->to;
	} else {
		out->from = fu ? 0 : r->from;
		out->to = fu ? r->to : 0;
	}
	return true;
}

static bool same_event(const struct rec_event *want,
		       const struct rec_event *got, bool trunc32)
{
	uint64_t mask = trunc32 ? 0xFFFFFFFFull : ~0ull;

	if (want->type != got->type || (want->from & mask) != got->from ||
	    (want->to & mask) != got->to)
		return false;
	return want->type != REC_KERNEL_ENTER || want->kind == got->kind;
}

/* --- reading a consumer's ring --- */

struct stream {
	struct rec_event *ev;
	size_t n;
	uint64_t lost, bad, beyond; /* lost markers, undecodable, no room */
};

static void stream_read(struct consumer *c, struct stream *st, int slot)
{
	const struct rec_format *f = c->ring.fmt;

	*st = (struct stream){ .ev = mem.ev[slot] };
	ring_flush(&c->ring);
	for (;;) {
		size_t n = ring_read(&c->ring, mem.scratch, SCRATCH / f->size);

		for (size_t i = 0; i < n; i++) {
			struct rec_event e;

			if (!f->decode(mem.scratch + i * f->size, &e)) {
				st->bad++;
			} else if (e.type == REC_LOST) {
				st->lost += e.lost;
			} else if (st->n < STREAM_CAP) {
				st->ev[st->n++] = e;
			} else {
				st->beyond++;
			}
		}
		/* A flight recorder's read copies, it does not consume. */
		if (!n || c->ring.ops->mode == RING_OVERWRITE)
			break;
	}
}

static int consumer_setup(struct consumer *c, enum consumer_filter f,
			  enum ring_mode mode, enum rec_format_id fmt,
			  size_t bytes, int slot, const struct mode_map *map)
{
	struct ring_cfg rc = { .mode = mode,
			       .fmt = rec_format_get(fmt),
			       .mem = mem.ring[slot],
			       .bytes = bytes,
			       .subbuf_bytes = 16u << 10,
			       .cpu = (uint16_t)this_cpu()->index };

	return consumer_init(c, f, map, &rc);
}

static bool stream_ok(struct test_run *t, const char *name,
		      const struct stream *st, struct consumer *c)
{
	struct bts_account a;

	bts_account_read(&c->acct, &a);
	if (st->bad || st->lost || st->beyond) {
		t_fail(t,
		       "%s: %lu undecodable, %lu lost, %lu beyond the "
		       "test's room",
		       name, st->bad, st->lost, st->beyond);
		return false;
	}
	if (!bts_account_balanced(&a)) {
		t_fail(t, "%s: account off by %ld", name,
		       bts_account_imbalance(&a));
		return false;
	}
	return true;
}

/*
 * got must be exactly filter f applied to the records of ref for which
 * keep(seq) holds (ref's records are numbered from 0 by position), or its
 * last got->n of them when tail (a flight recorder).
 */
static bool check_filtered(struct test_run *t, const char *name,
			   const struct stream *ref, const struct stream *got,
			   enum consumer_filter f, bool trunc32,
			   bool (*keep)(uint64_t seq, void *ctx), void *ctx,
			   bool tail)
{
	size_t expected = 0, skip, j = 0;
	struct rec_event want;

	for (size_t i = 0; i < ref->n; i++)
		if ((!keep || keep(i, ctx)) &&
		    expect_one(f, &ref->ev[i], &want))
			expected++;
	if (tail ? got->n > expected : got->n != expected) {
		t_fail(t, "%s: %zu records, the filter admits %zu", name,
		       got->n, expected);
		return false;
	}
	skip = expected - got->n;
	for (size_t i = 0; i < ref->n; i++) {
		if ((keep && !keep(i, ctx)) ||
		    !expect_one(f, &ref->ev[i], &want))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		if (!same_event(&want, &got->ev[j], trunc32)) {
			t_fail(t,
			       "%s: record %zu is type %d 0x%lx -> 0x%lx kind "
			       "%d, expected type %d 0x%lx -> 0x%lx kind %d",
			       name, j, got->ev[j].type, got->ev[j].from,
			       got->ev[j].to, got->ev[j].kind, want.type,
			       want.from, want.to, want.kind);
			return false;
		}
		j++;
	}
	return true;
}

/* No address of the filtered side; pseudo-records alternate properly. */
static bool check_pure(struct test_run *t, const char *name,
		       const struct stream *st, enum consumer_filter f,
		       uint64_t *enters, uint64_t *exits)
{
	*enters = *exits = 0;
	for (size_t i = 0; i < st->n; i++) {
		const struct rec_event *e = &st->ev[i];

		*enters += e->type == REC_KERNEL_ENTER;
		*exits += e->type == REC_KERNEL_EXIT;
		if (f == CF_BOTH)
			continue;
		for (int k = 0; k < 2; k++) {
			uint64_t a = k ? e->to : e->from;

			if (!a && e->type != REC_BRANCH)
				continue;
			if (is_user(a) != (f == CF_USER)) {
				t_fail(t,
				       "%s: record %zu has the %s address "
				       "0x%lx",
				       name, i, is_user(a) ? "user" : "kernel",
				       a);
				return false;
			}
		}
	}
	return true;
}

/* --- the workload --- */

static int start_threads(struct thread *th, struct thread **ts, char *err,
			 unsigned len)
{
	/* A mix of system calls, kernel work, yields, timer preemption
	 * (uprog_mixed), a fault (uprog_fault_ud) and many short calls. */
	if (thread_init(&th[0], 0, uprog_mixed, 120, err, len) ||
	    thread_init(&th[1], 1, uprog_fault_ud, 0, err, len) ||
	    thread_init(&th[2], 2, uprog_syscalls, 60, err, len))
		return -1;
	for (int i = 0; i < NTHREADS; i++)
		ts[i] = &th[i];
	return 0;
}

static bool run_threads(struct test_run *t, struct bts_tracer *tr,
			struct thread **ts)
{
	struct sched_cfg sc = { .slice_us = SLICE_US,
				.timeout_ms = TIMEOUT_MS,
				.hooks = &tr->hooks };
	char err[128];

	if (threads_run(ts, NTHREADS, &sc, 0, err, sizeof(err))) {
		t_fail(t, "%s", err);
		return false;
	}
	for (int i = 0; i < NTHREADS; i++)
		if (ts[i]->state != TH_EXITED && ts[i]->state != TH_FAULTED) {
			t_fail(t, "thread %u ended %s", ts[i]->id,
			       thread_state_name(ts[i]->state));
			return false;
		}
	return true;
}

static int tracer_start(struct bts_tracer *tr, const struct bts_backend *be,
			enum drain_id strategy, struct thread **ts, char *err,
			unsigned len)
{
	struct bts_config cfg;
	struct drain_cfg dc;
	bool model = be == &bts_model;

	bts_default_config(&cfg);
	cfg.interrupt = true;
	memset(&dc, 0, sizeof(dc));
	dc.nbufs = strategy == DRAIN_SWITCH ? 1 + SPARES : 1;
	for (size_t i = 0; i < dc.nbufs; i++)
		dc.bufs[i] = mem.bufs[i];
	dc.buf_records = cfg.records;
	dc.headroom = cfg.records - cfg.threshold;
	dc.policy = DRAIN_HEADROOM;
	dc.dropped = model ? bts_model_dropped_counter() : 0;
	dc.written = model ? bts_model_written_counter() : 0;
	if (model) {
		bts_model_reset_counts();
		bts_model_set_source(MODEL_MODES);
	}
	if (bts_tracer_start(tr, be, &cfg, strategy, &dc, ts, NTHREADS, err,
			     len))
		return -1;
	if (model) {
		bts_model_set_rate(MODEL_RATE_STOP);
		bts_model_set_burst(BURST);
	}
	return 0;
}

static const struct bts_backend *need_backend(struct test_run *t,
					      const char *name)
{
	const struct bts_backend *be = name[0] == 'h' ? &bts_hw : &bts_model;
	const char *why = be->why_unavailable();

	if (user_unavailable()) {
		t_skip(t, "no user mode: %s", user_unavailable());
		return 0;
	}
	if (why) {
		t_skip(t, "no BTS: %s", why);
		return 0;
	}
	return alloc_once(t) ? be : 0;
}

/* --- bts.filter.* --- */

struct filter_case {
	enum consumer_filter filter;
	const char *backend;
};

static void filter_software(struct test_run *t, const struct bts_backend *be,
			    enum consumer_filter f)
{
	struct bts_tracer tr = { 0 };
	struct consumer ref, x;
	struct stream sref, sx;
	struct thread th[NTHREADS], *ts[NTHREADS];
	struct model_counts mc;
	uint64_t enters, exits, ref_enters = 0, ref_exits = 0;
	char err[160], json[320];

	bts_tracer_mode_map(&tr.map);
	if (consumer_setup(&ref, CF_BOTH, RING_NOLOSS, REC_RAW, RING_BYTES, 0,
			   &tr.map) ||
	    consumer_setup(&x, f, RING_NOLOSS, REC_FIXED, RING_BYTES, 1,
			   &tr.map))
		return t_fail(t, "consumer_init refused a ring");
	consumer_set_add(&tr.cpu, &ref);
	consumer_set_add(&tr.cpu, &x);
	if (start_threads(th, ts, err, sizeof(err)) ||
	    tracer_start(&tr, be, DRAIN_INLINE, ts, err, sizeof(err)))
		return t_fail(t, "%s", err);
	if (f != CF_BOTH && strcmp(tr.filter_by, "software"))
		t_fail(t, "filtered by %s, expected software", tr.filter_by);
	run_threads(t, &tr, ts);
	bts_tracer_stop(&tr);
	stream_read(&ref, &sref, 0);
	stream_read(&x, &sx, 1);
	if (!stream_ok(t, "unfiltered", &sref, &ref) ||
	    !stream_ok(t, consumer_filter_name(f), &sx, &x))
		return;
	if (!check_filtered(t, consumer_filter_name(f), &sref, &sx, f, false, 0,
			    0, false) ||
	    !check_pure(t, consumer_filter_name(f), &sx, f, &enters, &exits))
		return;
	for (size_t i = 0; i < sref.n; i++) {
		bool fu = is_user(sref.ev[i].from), tu = is_user(sref.ev[i].to);

		ref_enters += fu && !tu;
		ref_exits += !fu && tu;
	}
	if (f != CF_BOTH) {
		T_EXPECT_EQ(t, "entered-kernel marks", ref_enters, enters);
		T_EXPECT_EQ(t, "returned-to-user marks", ref_exits, exits);
	}
	/* The workload crossed rings: system calls, interrupts, a fault. */
	T_ASSERT(t, ref_enters >= 100 && ref_exits >= 100);
	if (be == &bts_model) {
		bts_model_counts(&mc);
		T_EXPECT_EQ(t, "transitions (model's count)", mc.transitions,
			    ref_enters + ref_exits);
		T_EXPECT_EQ(t, "records (model's count)", mc.produced, sref.n);
	}
	lib_snprintf(json, sizeof(json),
		     "{\"name\":\"bts.filter\",\"backend\":\"%s\","
		     "\"filter\":\"%s\",\"by\":\"software\",\"unit\":"
		     "\"records\",\"value\":%zu,\"unfiltered\":%zu,"
		     "\"enters\":%lu,\"exits\":%lu}",
		     be->name, consumer_filter_name(f), sx.n, sref.n,
		     ref_enters, ref_exits);
	t_metric(t, json);
}

static void filter_producer(struct test_run *t, const struct bts_backend *be,
			    enum consumer_filter f)
{
	struct bts_tracer tr = { 0 };
	struct consumer x;
	struct stream sx, shadow;
	struct thread th[NTHREADS], *ts[NTHREADS];
	struct model_counts mc;
	uint64_t enters, exits, made = 0;
	bool model = be == &bts_model;
	char err[160], json[320];

	bts_tracer_mode_map(&tr.map);
	if (consumer_setup(&x, f, RING_NOLOSS, REC_FIXED, RING_BYTES, 1,
			   &tr.map))
		return t_fail(t, "consumer_init refused a ring");
	consumer_set_add(&tr.cpu, &x);
	if (start_threads(th, ts, err, sizeof(err)) ||
	    tracer_start(&tr, be, DRAIN_INLINE, ts, err, sizeof(err)))
		return t_fail(t, "%s", err);
	if (strcmp(tr.filter_by, "producer")) {
		t_diag(t, "producer does not filter: %s", tr.software_why);
		bts_tracer_stop(&tr);
		return;
	}
	if (model)
		bts_model_set_shadow(mem.shadow, STREAM_CAP);
	run_threads(t, &tr, ts);
	bts_tracer_stop(&tr);
	if (model) {
		made = bts_model_shadow_count();
		bts_model_set_shadow(0, 0);
	}
	stream_read(&x, &sx, 1);
	if (!stream_ok(t, "producer-filtered", &sx, &x) ||
	    !check_pure(t, "producer-filtered", &sx, f, &enters, &exits))
		return;
	T_ASSERT(t, enters >= 50 && exits >= 50);
	if (model) {
		if (made > STREAM_CAP)
			return t_fail(t, "the oracle overflowed: %lu records",
				      made);
		/* The oracle through the producer's filter, as a stream. */
		shadow = (struct stream){ .ev = mem.ev[0] };
		for (uint64_t i = 0; i < made; i++) {
			struct rec_event e = { .type = REC_BRANCH,
					       .from = mem.shadow[i].from,
					       .to = mem.shadow[i].to };

			if (producer_keeps(f, &e))
				shadow.ev[shadow.n++] = e;
		}
		check_filtered(t, "producer-filtered", &shadow, &sx, f, false,
			       0, 0, false);
		bts_model_counts(&mc);
		T_ASSERT(t, mc.filtered > 0);
		T_EXPECT_EQ(t, "made = kept + filtered", made,
			    mc.produced + mc.filtered);
	}
	lib_snprintf(json, sizeof(json),
		     "{\"name\":\"bts.filter\",\"backend\":\"%s\","
		     "\"filter\":\"%s\",\"by\":\"producer\",\"unit\":"
		     "\"records\",\"value\":%zu,\"made\":%lu}",
		     be->name, consumer_filter_name(f), sx.n, made);
	t_metric(t, json);
}

static void bts_filter(struct test_run *t)
{
	const struct filter_case *fc = t_arg(t);
	const struct bts_backend *be = need_backend(t, fc->backend);

	if (!be)
		return;
	filter_software(t, be, fc->filter);
	if (!t_failed(t) && fc->filter != CF_BOTH)
		filter_producer(t, be, fc->filter);
}

#define FILTER_CASE(f, F, be)                                            \
	static const struct filter_case fc_##f##_##be = { CF_##F, #be }; \
	TEST_CASE(bts_filter_##f##_##be, .fn = bts_filter,               \
		  .arg = &fc_##f##_##be, .name = "bts.filter." #f "." #be)

FILTER_CASE(both, BOTH, model);
FILTER_CASE(user, USER, model);
FILTER_CASE(kernel, KERNEL, model);
FILTER_CASE(both, BOTH, hw);
FILTER_CASE(user, USER, hw);
FILTER_CASE(kernel, KERNEL, hw);

/* --- who ran when: the model's sequence number at every switch --- */

static struct marks {
	size_t n;
	bool overflow;
	uint64_t end; /* the model's next sequence number at the end */
	struct {
		uint64_t seq;
		unsigned owner; /* thread id, 0: no thread */
	} m[MAX_MARKS];
} marks;

static void mark(struct bts_tracer *tr, struct thread *next, void *ctx)
{
	struct model_counts mc;

	(void)tr;
	(void)ctx;
	bts_model_counts(&mc);
	if (marks.n == MAX_MARKS) {
		marks.overflow = true;
		return;
	}
	marks.m[marks.n].seq = mc.next_seq;
	marks.m[marks.n].owner = next ? next->id : 0;
	marks.n++;
}

static unsigned owner_of(uint64_t seq)
{
	size_t lo = 0, hi = marks.n;

	/* The last mark at or below seq (marks are in order). */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (marks.m[mid].seq <= seq)
			lo = mid;
		else
			hi = mid;
	}
	return marks.n && marks.m[lo].seq <= seq ? marks.m[lo].owner : ~0u;
}

/* Records made while thread id ran, by the marks. */
static uint64_t made_by(unsigned id)
{
	uint64_t n = 0;

	for (size_t i = 0; i < marks.n; i++) {
		uint64_t end = i + 1 < marks.n ? marks.m[i + 1].seq : marks.end;

		if (marks.m[i].owner == id)
			n += end - marks.m[i].seq;
	}
	return n;
}

static bool owned_by(uint64_t seq, void *ctx)
{
	return owner_of(seq) == *(unsigned *)ctx;
}

static bool synthetic_seq(const struct rec_event *e, uint64_t *seq)
{
	uint64_t base = e->from & ~(MODEL_SEQ_MASK << 4);

	if ((base != MODEL_USER_BASE && base != MODEL_KERNEL_BASE) ||
	    e->to != e->from + 4)
		return false;
	*seq = (e->from >> 4) & MODEL_SEQ_MASK;
	return true;
}

/* A fixed-format stream of thread id: every record made while it ran. */
static void check_owned(struct test_run *t, const char *name,
			const struct stream *st, unsigned id)
{
	uint64_t mseq;

	for (size_t i = 0; i < st->n; i++) {
		const struct rec_event *e = &st->ev[i];

		if (owner_of(e->seq) != id)
			return t_fail(t,
				      "%s: record %zu (seq %lu) was made "
				      "while thread %u ran, not %u",
				      name, i, e->seq, owner_of(e->seq), id);
		if (synthetic_seq(e, &mseq) && mseq != e->seq)
			return t_fail(t,
				      "%s: record %zu has seq %lu, the model "
				      "made it as %lu",
				      name, i, e->seq, mseq);
	}
	if (id)
		T_EXPECT_EQ(t, "records of the thread", made_by(id), st->n);
}

static bool run_n(struct test_run *t, struct bts_tracer *tr, struct thread **ts,
		  unsigned n, struct sched_stats *st)
{
	struct sched_cfg sc = { .slice_us = SLICE_US,
				.timeout_ms = TIMEOUT_MS,
				.hooks = &tr->hooks };
	char err[128];

	if (threads_run(ts, n, &sc, st, err, sizeof(err))) {
		t_fail(t, "%s", err);
		return false;
	}
	for (unsigned i = 0; i < n; i++)
		if (ts[i]->state != TH_EXITED) {
			t_fail(t, "thread %u ended %s", ts[i]->id,
			       thread_state_name(ts[i]->state));
			return false;
		}
	return true;
}

static int three_mixed(struct thread *th, struct thread **ts, char *err,
		       unsigned len)
{
	for (unsigned i = 0; i < 3; i++) {
		if (thread_init(&th[i], i, uprog_mixed, 150 + 10 * i, err, len))
			return -1;
		ts[i] = &th[i];
	}
	return 0;
}

static void finish_marks(void)
{
	struct model_counts mc;

	bts_model_counts(&mc);
	marks.end = mc.next_seq;
}

static void bts_thread_switch(struct test_run *t)
{
	const struct bts_backend *be = need_backend(t, "model");
	struct bts_tracer tr = { 0 };
	struct consumer cpu, ca, cb;
	struct consumer_set sa = { 0 }, sb = { 0 };
	struct stream scpu, sta, stb;
	struct thread th[3], *ts[3];
	struct sched_stats ss;
	struct model_counts mc;
	char err[160], json[320];

	if (!be)
		return;
	bts_tracer_mode_map(&tr.map);
	if (consumer_setup(&cpu, CF_BOTH, RING_NOLOSS, REC_FIXED, RING_BYTES, 0,
			   &tr.map) ||
	    consumer_setup(&ca, CF_BOTH, RING_NOLOSS, REC_FIXED, RING_BYTES, 1,
			   &tr.map) ||
	    consumer_setup(&cb, CF_BOTH, RING_NOLOSS, REC_FIXED, RING_BYTES, 2,
			   &tr.map))
		return t_fail(t, "consumer_init refused a ring");
	consumer_set_add(&tr.cpu, &cpu);
	consumer_set_add(&sa, &ca);
	consumer_set_add(&sb, &cb);
	if (three_mixed(th, ts, err, sizeof(err)))
		return t_fail(t, "%s", err);
	bts_tracer_trace_thread(&th[0], &sa);
	bts_tracer_trace_thread(&th[1], &sb); /* th[2]: untraced */
	marks.n = 0;
	marks.overflow = false;
	tr.on_switch = mark;
	if (tracer_start(&tr, be, DRAIN_SWITCH, ts, err, sizeof(err)))
		return t_fail(t, "%s", err);
	run_n(t, &tr, ts, 3, &ss);
	bts_tracer_stop(&tr);
	finish_marks();
	if (marks.overflow)
		return t_fail(t, "more than %d switches", MAX_MARKS);
	stream_read(&cpu, &scpu, 0);
	stream_read(&ca, &sta, 1);
	stream_read(&cb, &stb, 2);
	if (!stream_ok(t, "per-cpu", &scpu, &cpu) ||
	    !stream_ok(t, "thread A", &sta, &ca) ||
	    !stream_ok(t, "thread B", &stb, &cb))
		return;
	/* The per-CPU stream: one stream, every record, in order. */
	bts_model_counts(&mc);
	T_EXPECT_EQ(t, "per-cpu records (model's count)", mc.produced, scpu.n);
	for (size_t i = 0; i < scpu.n; i++)
		if (scpu.ev[i].seq != i)
			return t_fail(t, "per-cpu record %zu has seq %lu", i,
				      scpu.ev[i].seq);
	check_owned(t, "thread A", &sta, th[0].id);
	check_owned(t, "thread B", &stb, th[1].id);
	T_ASSERT(t, made_by(th[2].id) > 0); /* C ran and was traced per CPU */
	T_ASSERT(t, ss.switches >= 30);
	T_ASSERT(t, th[0].preemptions + th[1].preemptions + th[2].preemptions +
				    th[0].yields >
			    0);
	lib_snprintf(json, sizeof(json),
		     "{\"name\":\"bts.thread.switch\",\"unit\":\"records\","
		     "\"value\":%zu,\"thread_a\":%zu,\"thread_b\":%zu,"
		     "\"untraced\":%lu,\"switches\":%lu,\"syncs\":%lu}",
		     scpu.n, sta.n, stb.n, made_by(th[2].id), ss.switches,
		     tr.syncs);
	t_metric(t, json);
}
TEST_CASE(bts_thread_switch, .name = "bts.thread.switch",
	  .fn = bts_thread_switch);

static void bts_consumers_mixed(struct test_run *t)
{
	const struct bts_backend *be = need_backend(t, "model");
	struct bts_tracer tr = { 0 };
	struct consumer all, kern, ua, b;
	struct consumer_set sa = { 0 }, sb = { 0 };
	struct stream s_all, s_kern, s_ua, s_b;
	struct thread th[3], *ts[3];
	struct model_counts mc;
	uint64_t en, ex;
	unsigned ida, idb;
	char err[160], json[320];

	if (!be)
		return;
	bts_tracer_mode_map(&tr.map);
	if (consumer_setup(&all, CF_BOTH, RING_NOLOSS, REC_RAW, RING_BYTES, 0,
			   &tr.map) ||
	    consumer_setup(&kern, CF_KERNEL, RING_SUBBUF, REC_COMPAT32,
			   RING_BYTES / 2, 1, &tr.map) ||
	    consumer_setup(&ua, CF_USER, RING_OVERWRITE, REC_FIXED, 512 * 32, 2,
			   &tr.map) ||
	    consumer_setup(&b, CF_BOTH, RING_NOLOSS, REC_FIXED, RING_BYTES, 3,
			   &tr.map))
		return t_fail(t, "consumer_init refused a ring");
	consumer_set_add(&tr.cpu, &all);
	consumer_set_add(&tr.cpu, &kern);
	consumer_set_add(&sa, &ua);
	consumer_set_add(&sb, &b);
	if (three_mixed(th, ts, err, sizeof(err)))
		return t_fail(t, "%s", err);
	bts_tracer_trace_thread(&th[0], &sa);
	bts_tracer_trace_thread(&th[1], &sb);
	marks.n = 0;
	marks.overflow = false;
	tr.on_switch = mark;
	if (tracer_start(&tr, be, DRAIN_SWITCH, ts, err, sizeof(err)))
		return t_fail(t, "%s", err);
	T_ASSERT(t, !strcmp(tr.filter_by, "software"));
	run_n(t, &tr, ts, 3, 0);
	bts_tracer_stop(&tr);
	finish_marks();
	if (marks.overflow)
		return t_fail(t, "more than %d switches", MAX_MARKS);
	stream_read(&all, &s_all, 0);
	stream_read(&kern, &s_kern, 1);
	stream_read(&ua, &s_ua, 2);
	stream_read(&b, &s_b, 3);
	if (!stream_ok(t, "per-cpu both", &s_all, &all) ||
	    !stream_ok(t, "per-cpu kernel", &s_kern, &kern) ||
	    !stream_ok(t, "thread A user", &s_ua, &ua) ||
	    !stream_ok(t, "thread B both", &s_b, &b))
		return;
	bts_model_counts(&mc);
	T_EXPECT_EQ(t, "per-cpu records (model's count)", mc.produced, s_all.n);
	ida = th[0].id;
	idb = th[1].id;
	check_filtered(t, "per-cpu kernel", &s_all, &s_kern, CF_KERNEL, true, 0,
		       0, false);
	check_pure(t, "per-cpu kernel", &s_kern, CF_KERNEL, &en, &ex);
	/* The flight recorder kept the newest of thread A's user view. */
	check_filtered(t, "thread A user", &s_all, &s_ua, CF_USER, false,
		       owned_by, &ida, true);
	check_pure(t, "thread A user", &s_ua, CF_USER, &en, &ex);
	T_EXPECT_EQ(t, "flight recorder full", 512, s_ua.n);
	check_filtered(t, "thread B", &s_all, &s_b, CF_BOTH, false, owned_by,
		       &idb, false);
	check_owned(t, "thread B", &s_b, idb);
	lib_snprintf(json, sizeof(json),
		     "{\"name\":\"bts.consumers.mixed\",\"unit\":\"records\","
		     "\"value\":%zu,\"kernel_only\":%zu,\"thread_a_user_tail\":"
		     "%zu,\"thread_b\":%zu,\"filter_by\":\"%s\"}",
		     s_all.n, s_kern.n, s_ua.n, s_b.n, tr.filter_by);
	t_metric(t, json);
}
TEST_CASE(bts_consumers_mixed, .name = "bts.consumers.mixed",
	  .fn = bts_consumers_mixed);
