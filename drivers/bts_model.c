/*
 * The software BTS producer. It obeys the hardware's contract on the same
 * DS save area a real CPU would use:
 *
 * - a record is written at the BTS index, then the index advances by 24;
 * - circular mode (BTINT clear): at the absolute maximum the index wraps
 *   to the base;
 * - interrupt mode: when a write takes the index to the threshold or past
 *   it, a PMI is raised through the real local APIC as the LVTPC entry
 *   says (NMI or fixed vector), and the LVTPC mask bit is set as the APIC
 *   does on delivery; while the mask is set no further PMI is raised;
 * - when the index reaches the absolute maximum before the handler has
 *   reset it, the producer stops and counts what it could not store;
 * - BTS_OFF_OS / BTS_OFF_USR suppress records by the branch's CPL.
 *
 * Production is tied to elapsed time while tracing is on: records accrue
 * at the chosen rate and are materialized at the next tick (an explicit
 * call, any interrupt or exception entry, and pause). Time spent with
 * tracing on in a handler therefore produces records, as it does when
 * hardware traces the kernel.
 *
 * Hardware writes a record atomically with respect to interrupts; the
 * model gets the same effect by writing the record first and publishing
 * the index with a compare-and-swap (a PMI that drained and reset the
 * index meanwhile makes the CAS fail, and the record goes to the new
 * index), and by not producing from an interrupt entry while the
 * interrupted code is itself inside the model.
 */
#include "drivers/bts_model.h"

#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/bts.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/user.h"

extern const uint64_t isr_stubs[256];

struct model {
	struct ds_area *ds;
	struct bts_config cfg;
	unsigned cpu;
	volatile bool active; /* between start and stop */
	volatile bool on;     /* TR and BTS set */
	volatile bool inside; /* normal context is in the model */
	enum model_source source;
	uint64_t rate; /* thousandths of records per microsecond */
	uint64_t last_tsc;
	uint64_t frac;	/* owed thousandths not yet produced */
	bool ovf;	/* our OvfBuf: set when a PMI is raised */
	bool cpl3;	/* modes: the CPU is in user mode */
	uint64_t burst; /* modes: records made at every event, besides time */
	struct model_counts c;
	/* Test oracle: every record made, before the CPL filter. */
	struct bts_record *shadow;
	uint64_t shadow_cap, shadow_n;
};

static struct model m;

static bool on_model_cpu(void)
{
	return m.active && this_cpu()->index == m.cpu;
}

/* Raise the PMI as the APIC would: unless masked, set the mask, send. */
static void raise_pmi(uint64_t index)
{
	uint32_t lvt;

	/*
	 * A PMI already raised and not yet handled (our OvfBuf is set) means
	 * the mask is set: no need to ask the APIC again for every record,
	 * which under a hypervisor costs an exit each time.
	 */
	if (m.ovf)
		return;
	lvt = apic->read(APIC_LVT_PERF);
	if (lvt & APIC_LVT_MASKED)
		return;
	apic->write(APIC_LVT_PERF, lvt | APIC_LVT_MASKED);
	m.ovf = true;
	m.c.pmis_raised++;
	m.c.raise_tsc = rdtsc();
	m.c.raise_index = index;
	if ((lvt & APIC_DM_MASK) == APIC_DM_NMI)
		apic->send(apic->id(), APIC_DM_NMI);
	else
		apic->send(0, APIC_DEST_SELF | APIC_DM_FIXED | (lvt & 0xFF));
}

/*
 * One record, as the hardware writes it. Returns false when stopped.
 * The CPL filter drops a record whose two ends are both at a suppressed
 * privilege level; a transition (user to kernel or back) is kept when
 * either side is traced: what an OS's software filter then expects to
 * turn into an "entered kernel" / "returned to user" mark. The SDM does
 * not say which CPL qualifies a transition: HARDWARE.md, **verify**.
 */
static bool put2(uint64_t from, uint64_t to, bool user_from, bool user_to)
{
	struct ds_area *ds = m.ds;
	uint64_t idx;

	if (m.shadow && m.shadow_n < m.shadow_cap)
		m.shadow[m.shadow_n++] =
			(struct bts_record){ .from = from, .to = to };
	else if (m.shadow)
		m.shadow_n++; /* counted: the test sees it overflowed */
	if ((m.cfg.off_usr && user_from && user_to) ||
	    (m.cfg.off_os && !user_from && !user_to)) {
		m.c.filtered++;
		return true;
	}
	m.c.produced++;
	for (;;) {
		struct bts_record *r;

		idx = __atomic_load_n(&ds->bts_index, __ATOMIC_ACQUIRE);
		if (idx + BTS_RECORD_SIZE > ds->bts_abs_max) {
			if (m.cfg.interrupt) {
				m.c.lost_at_max++;
				return false;
			}
			/* Circular: back to the base. */
			if (__atomic_compare_exchange_n(
				    &ds->bts_index, &idx, ds->bts_base, 0,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				m.c.wraps++;
			continue;
		}
		r = (struct bts_record *)idx;
		r->from = from;
		r->to = to;
		r->flags = 0;
		if (__atomic_compare_exchange_n(
			    &ds->bts_index, &idx, idx + BTS_RECORD_SIZE, 0,
			    __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
			break;
	}
	m.c.stored++;
	if (m.cfg.interrupt && idx + BTS_RECORD_SIZE >= ds->bts_int_threshold)
		raise_pmi(idx + BTS_RECORD_SIZE);
	return true;
}

static bool put(uint64_t from, uint64_t to, bool user)
{
	return put2(from, to, user, user);
}

static void put_synthetic(void)
{
	uint64_t seq = m.c.next_seq++;
	bool user = m.source == MODEL_MODES ? m.cpl3 : bts_model_seq_user(seq);
	uint64_t from = (user ? MODEL_USER_BASE : MODEL_KERNEL_BASE) | seq << 4;

	put(from, from + 4, user);
}

/* The buffer is full in interrupt mode: the producer has stopped. */
static bool stopped(void)
{
	return m.cfg.interrupt &&
	       m.ds->bts_index + BTS_RECORD_SIZE > m.ds->bts_abs_max;
}

/* Synthetic records with sequence number below x that are "user" ones. */
static uint64_t users_below(uint64_t x)
{
	return x / 4; /* seq % 4 == 3 */
}

/*
 * n records from next_seq on that cannot be stored, or that are written
 * and overwritten at once: counted by CPL, as the filter says, in O(1).
 */
static void account(uint64_t n, bool lost)
{
	uint64_t first = m.c.next_seq;
	uint64_t user = m.source == MODEL_MODES
				? (m.cpl3 ? n : 0)
				: users_below(first + n) - users_below(first);
	uint64_t kernel = n - user;
	uint64_t kept =
		(m.cfg.off_usr ? 0 : user) + (m.cfg.off_os ? 0 : kernel);

	m.c.next_seq += n;
	m.c.filtered += n - kept;
	m.c.produced += kept;
	if (m.shadow)
		m.shadow_n += n; /* not kept one by one: overflowed */
	if (lost)
		m.c.lost_at_max += kept;
	else
		m.c.stored += kept;
}

static void produce(uint64_t n)
{
	uint64_t cap = m.cfg.records;

	/*
	 * Circular mode, more than a buffer to write: each whole trip round
	 * the buffer ends where it started (the wrap happens on the write
	 * after the maximum), so whole trips can be skipped: produced and
	 * overwritten at once. Without a CPL filter only: with one, a trip
	 * holds fewer records than the buffer.
	 */
	if (!m.cfg.interrupt && !m.cfg.off_os && !m.cfg.off_usr && n > cap) {
		uint64_t trips = (n - cap) / cap;

		if (trips && m.ds->bts_index == m.ds->bts_base) {
			/* From the base, the first trip ends at the maximum
			 * without a wrap. */
			m.ds->bts_index = m.ds->bts_abs_max;
			m.c.wraps += trips - 1;
		} else {
			m.c.wraps += trips;
		}
		account(trips * cap, false);
		n -= trips * cap;
	}
	while (n) {
		/* Stopped meanwhile (by an NMI): nothing more is produced. */
		if (!m.active)
			return;
		if (stopped()) {
			account(n, true);
			return;
		}
		put_synthetic();
		n--;
	}
}

/* Buffers' worth of records one tick may produce at most. */
#define TICK_MAX_BUFFERS 4

/*
 * Records owed for the time since the last tick. A tick that comes late
 * (a long handler, a hypervisor exit) may owe millions; simulating them
 * would take longer than the time they stand for, and the model would
 * never catch up. Beyond a few buffers the rest is counted as throttled:
 * the model's achieved rate is then lower than asked, and says so.
 */
static uint64_t owed(uint64_t now)
{
	uint64_t per_us = tsc.hz / 1000000, milli, n;
	uint64_t cap = (uint64_t)m.cfg.records * TICK_MAX_BUFFERS;

	if (!m.rate || !per_us || now <= m.last_tsc)
		return 0;
	milli = muldiv64(now - m.last_tsc, m.rate, per_us) + m.frac;
	m.frac = milli % 1000;
	n = milli / 1000;
	if (n > cap) {
		m.c.throttled += n - cap;
		n = cap;
	}
	return n;
}

/* Sources that produce by elapsed time. */
static bool by_time(void)
{
	return m.source == MODEL_SYNTHETIC || m.source == MODEL_MODES;
}

void bts_model_tick(void)
{
	uint64_t n;

	if (!on_model_cpu() || !m.on || m.inside || !by_time())
		return;
	m.inside = true;
	n = owed(rdtsc());
	m.last_tsc = rdtsc();
	produce(n);
	m.inside = false;
}

void bts_model_produce(uint64_t n)
{
	if (!on_model_cpu() || !m.on || m.inside)
		return;
	m.inside = true;
	produce(n);
	m.inside = false;
}

void bts_model_branch(uint64_t from, uint64_t to)
{
	if (!on_model_cpu() || !m.on || m.inside || m.source != MODEL_BRANCHES)
		return;
	m.inside = true;
	put(from, to, false);
	m.inside = false;
}

/* Materialize the records owed for the time so far (and the burst). */
static void catch_up(void)
{
	uint64_t n = owed(rdtsc());

	m.last_tsc = rdtsc();
	if (m.source == MODEL_MODES)
		n += m.burst;
	produce(n);
}

/* Interrupts and exceptions: materialize the time so far, and record the
 * interrupt itself, which is a branch like any other. Entries from user
 * mode were handled by model_mode() just before. */
static void model_trap(struct trap_frame *f)
{
	if (!on_model_cpu() || !m.on || m.inside || (f->cs & 3) == 3)
		return;
	m.inside = true;
	if (m.source == MODEL_SYNTHETIC) {
		catch_up();
	} else if (m.source == MODEL_MODES) {
		catch_up();
		m.c.next_seq++;
		put(f->rip, isr_stubs[f->vector & 0xFF], false);
	} else {
		put(f->rip, isr_stubs[f->vector & 0xFF], false);
	}
	m.inside = false;
}

/*
 * Ring transitions (kernel/user.c): the time so far belongs to the mode
 * being left; then the transition itself is a branch record, user to
 * kernel entry (syscall, interrupt or exception) or kernel exit to user.
 * The mode is tracked even while tracing is off.
 */
static void model_mode(const struct trap_frame *f, bool entering)
{
	uint64_t from, to;

	if (!on_model_cpu())
		return;
	if (!m.on || m.inside || m.source != MODEL_MODES) {
		m.cpl3 = !entering;
		return;
	}
	m.inside = true;
	catch_up();
	if (entering) {
		/* SYSCALL: rcx is past the 2-byte instruction. */
		from = f->vector == VEC_SYSCALL ? f->rip - 2 : f->rip;
		to = f->vector == VEC_SYSCALL ? (uint64_t)syscall_entry
					      : isr_stubs[f->vector & 0xFF];
	} else {
		from = f->vector == VEC_SYSCALL	     ? (uint64_t)syscall_sysret
		       : f->vector == VEC_USER_START ? (uint64_t)user_iret
						     : (uint64_t)isr_iret;
		to = f->rip;
	}
	m.c.next_seq++;
	put2(from, to, !entering, entering);
	m.c.transitions++;
	m.cpl3 = !entering;
	m.inside = false;
}

static const char *model_why_unavailable(void)
{
	return 0;
}

static int model_start(struct ds_area *ds, const struct bts_config *cfg,
		       char *err, unsigned len)
{
	(void)err;
	(void)len;
	m.ds = ds;
	m.cfg = *cfg;
	m.inside = false;
	m.active = true;
	/* Nothing is produced by time until the test asks for a rate: a
	 * rate left over from another test would otherwise run on. */
	m.rate = MODEL_RATE_STOP;
	m.burst = 0;
	m.cpu = this_cpu()->index;
	m.ovf = false;
	m.frac = 0;
	m.last_tsc = rdtsc();
	m.cpl3 = false; /* started from kernel code */
	trap_set_entry_hook(model_trap);
	user_set_mode_hook(model_mode);
	m.on = true;
	return 0;
}

static void model_pause(void)
{
	if (!on_model_cpu())
		return;
	if (m.on && !m.inside && by_time()) {
		uint64_t n;

		m.inside = true;
		n = owed(rdtsc());
		produce(n);
		m.inside = false;
	}
	m.on = false;
}

static void model_resume(void)
{
	if (!on_model_cpu())
		return;
	m.last_tsc = rdtsc();
	m.on = true;
}

/*
 * May run in an NMI that interrupted the model itself (the runner's abort
 * hooks, an experiment's flood guard): the DS pointer stays valid for the
 * interrupted code, which sees 'active' clear and stops.
 */
static void model_stop(void)
{
	model_pause();
	trap_set_entry_hook(0);
	user_set_mode_hook(0);
	m.active = false;
}

static bool model_ovf_pending(void)
{
	return m.ovf;
}

static void model_ovf_clear(void)
{
	m.ovf = false;
}

static uint64_t model_lost_at_max(void)
{
	return m.c.lost_at_max;
}

const struct bts_backend bts_model = {
	.name = "model",
	.why_unavailable = model_why_unavailable,
	.start = model_start,
	.stop = model_stop,
	.pause = model_pause,
	.resume = model_resume,
	.ovf_pending = model_ovf_pending,
	.ovf_clear = model_ovf_clear,
	.lost_at_max = model_lost_at_max,
};

/*
 * The trace-pc callback of code built with -fsanitize-coverage=trace-pc:
 * called at every basic block, it turns the previous block and this one
 * into a (from, to) record. (This file itself is not instrumented.)
 */
static uint64_t prev_pc;

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void)
{
	uint64_t pc = (uint64_t)__builtin_return_address(0);

	if (prev_pc)
		bts_model_branch(prev_pc, pc);
	prev_pc = pc;
}

void bts_model_set_rate(uint64_t milli_per_us)
{
	m.rate = milli_per_us;
	m.frac = 0;
	m.last_tsc = rdtsc();
}

void bts_model_set_burst(uint64_t n)
{
	m.burst = n;
}

void bts_model_set_source(enum model_source src)
{
	m.source = src;
	prev_pc = 0;
}

void bts_model_set_shadow(struct bts_record *buf, uint64_t cap)
{
	m.shadow_n = 0;
	m.shadow_cap = cap;
	m.shadow = buf;
}

uint64_t bts_model_shadow_count(void)
{
	return m.shadow_n;
}

void bts_model_counts(struct model_counts *out)
{
	*out = m.c;
}

void bts_model_reset_counts(void)
{
	m.c = (struct model_counts){ 0 };
}

const uint64_t *bts_model_dropped_counter(void)
{
	return &m.c.lost_at_max;
}

const uint64_t *bts_model_written_counter(void)
{
	return &m.c.stored;
}
