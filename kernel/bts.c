/*
 * BTS sessions and the overflow interrupt path.
 *
 * The PMI handler follows HARDWARE.md: tracing off on entry (the interrupt
 * is itself a branch and would be recorded, and the drain would refill the
 * buffer), then decide whether the PMI is a BTS threshold PMI (the index
 * against the threshold, as Linux does; GLOBAL_STATUS.OvfBuf where a PMU
 * reports it), drain and reset the index, and only then clear the LVTPC
 * mask the APIC set on delivery: with the index back at the base, the
 * threshold condition is gone and no second PMI follows. Tracing resumes
 * last; a fixed-vector PMI ends with an EOI.
 *
 * The handler runs in NMI context: no exceptions (kernel/nmi.h), so no
 * *_safe probes; backends check everything they touch at start.
 */
#include "kernel/bts.h"

#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "kernel/nmi.h"
#include "kernel/pmm.h"
#include "kernel/runner.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"
#include "lib/drain.h"
#include "lib/format.h"

#define BTS_MIN_RECORDS	 16
#define BTS_MAX_RECORDS	 65536
/* Records between the threshold and the end: room for the PMI's skid. */
#define BTS_MIN_HEADROOM 4

struct bts_settings bts_settings = {
	.records = 2048,
};

void bts_default_config(struct bts_config *cfg)
{
	cfg->records = (uint32_t)bts_settings.records;
	/* Linux leaves 1/16 of the buffer as headroom past the threshold. */
	cfg->threshold = bts_settings.threshold_given
				 ? (uint32_t)bts_settings.threshold
				 : cfg->records - cfg->records / 16;
	cfg->interrupt = true;
	cfg->off_os = false;
	cfg->off_usr = false;
	cfg->delivery = LVTPC_NMI;
	cfg->keep_threshold = false;
}

int bts_config_check(const struct bts_config *cfg, char *err, unsigned len)
{
	if (cfg->records < BTS_MIN_RECORDS || cfg->records > BTS_MAX_RECORDS) {
		lib_snprintf(err, len, "%u records is out of range %d..%d",
			     cfg->records, BTS_MIN_RECORDS, BTS_MAX_RECORDS);
		return -1;
	}
	if ((cfg->interrupt || cfg->keep_threshold) &&
	    (cfg->threshold < 1 ||
	     cfg->threshold + BTS_MIN_HEADROOM > cfg->records)) {
		lib_snprintf(err, len,
			     "threshold %u must be 1..%u for %u records (at "
			     "least %d records of headroom)",
			     cfg->threshold, cfg->records - BTS_MIN_HEADROOM,
			     cfg->records, BTS_MIN_HEADROOM);
		return -1;
	}
	return 0;
}

/* A buffer of at least 'bytes' for this CPU, kept for reuse. */
static int get_buffer(struct cpu *c, uint64_t bytes)
{
	if (c->bts_buf_bytes < bytes) {
		void *b = pmm_alloc(bytes);

		if (!b)
			return -1;
		c->bts_buf = b;
		c->bts_buf_bytes = bytes;
	}
	return 0;
}

static void ds_setup(struct ds_area *ds, void *buf,
		     const struct bts_config *cfg)
{
	uint64_t base = (uint64_t)buf;

	ds->bts_base = base;
	ds->bts_index = base;
	ds->bts_abs_max = base + (uint64_t)cfg->records * BTS_RECORD_SIZE;
	/* Circular mode: clearing BTINT is not enough, the threshold goes
	 * above the absolute maximum too (HARDWARE.md, to verify). */
	ds->bts_int_threshold =
		cfg->interrupt || cfg->keep_threshold
			? base + (uint64_t)cfg->threshold * BTS_RECORD_SIZE
			: ds->bts_abs_max + BTS_RECORD_SIZE;
}

uint64_t bts_pending(const struct bts_session *s)
{
	return (s->ds->bts_index - s->ds->bts_base) / BTS_RECORD_SIZE;
}

static void drain_now(struct bts_session *s, uint64_t index)
{
	uint64_t n = (index - s->ds->bts_base) / BTS_RECORD_SIZE;

	if (n && s->drain)
		s->drain(s, s->buf, n);
	s->drained += n;
	s->ds->bts_index = s->ds->bts_base;
}

/*
 * Whether the PMI is a BTS one, and if so drain: the strategy decides from
 * the index and switches or drains; without one, the index against the
 * threshold decides and the plain copy drains. The overflow bit alone also
 * makes it ours.
 */
static bool drain_if_ours(struct bts_session *s, uint64_t index,
			  uint64_t threshold)
{
	bool ours = s->strategy ? drain_pmi(s->strategy)
				: s->cfg.interrupt && index >= threshold;

	if (s->be->ovf_pending()) {
		s->be->ovf_clear();
		ours = true;
	}
	if (ours && !s->strategy)
		drain_now(s, index);
	return ours;
}

static void count_pmi(struct bts_session *s, uint64_t tsc, uint64_t index,
		      uint64_t threshold, bool masked)
{
	s->pmis++;
	s->entry_tsc = tsc;
	s->entry_index = index;
	s->masked_on_entry += masked;
	if (index < threshold)
		s->early++;
	else if ((index - threshold) / BTS_RECORD_SIZE > s->skid_max)
		s->skid_max = (index - threshold) / BTS_RECORD_SIZE;
}

/* The PMI path, for both deliveries. True when it was a BTS PMI. */
static bool bts_pmi(void)
{
	struct bts_session *s = this_cpu()->bts;
	uint64_t tsc = rdtsc(), index, threshold;
	bool ours;

	/*
	 * An NMI while a drain runs (a fixed-vector PMI, or a flush, being
	 * interrupted) must not drain the same buffer: it is not ours.
	 */
	if (!s || !s->active || s->hold || s->busy)
		return false;
	if (s->stop_tsc && tsc > s->stop_tsc) {
		/* The flood guard: end the experiment from here. */
		s->be->stop();
		s->active = false;
		s->stopped_by_guard = true;
		lapic_lvtpc_unmask();
		return true;
	}
	s->busy = true;
	s->be->pause();
	index = s->ds->bts_index;
	threshold = s->ds->bts_int_threshold;
	ours = drain_if_ours(s, index, threshold);
	if (ours) {
		/* Deciding did not touch the LVTPC: the mask is as the APIC
		 * left it on delivery (read only now, an APIC access is an
		 * exit under a hypervisor and most NMIs are not ours). */
		count_pmi(s, tsc, index, threshold, lapic_lvtpc_masked());
		/* The threshold condition is gone: no second PMI follows. */
		lapic_lvtpc_unmask();
	} else {
		s->not_ours++;
	}
	s->be->resume();
	s->handler_cycles += rdtsc() - tsc;
	s->busy = false;
	return ours;
}

static bool bts_pmi_nmi(struct trap_frame *f)
{
	(void)f;
	return bts_pmi();
}

static void bts_pmi_vector(struct trap_frame *f)
{
	(void)f;
	bts_pmi();
	lapic_eoi();
}

/* A test was aborted with a session running: stop it where it stands. */
static void bts_abort(void)
{
	struct cpu *c = this_cpu();
	struct bts_session *s = c->bts;

	if (!s)
		return;
	s->be->stop();
	s->active = false;
	c->bts = 0;
	lapic_lvtpc_set(LVTPC_NMI, true);
}

void bts_init(void)
{
	runner_on_abort(bts_abort);
	nmi_register(bts_pmi_nmi);
	trap_set_handler(VEC_PMI, bts_pmi_vector);
}

struct ds_area *bts_ds_area(void)
{
	struct cpu *c = this_cpu();

	if (!c->ds_area)
		c->ds_area = pmm_alloc(sizeof(struct ds_area));
	return c->ds_area;
}

/* What both ways of starting need: the backend, an APIC, a sane config. */
static int start_checks(const struct bts_backend *be,
			const struct bts_config *cfg, char *err,
			unsigned errlen)
{
	const char *why = be->why_unavailable();

	if (why) {
		lib_snprintf(err, errlen, "%s backend not available: %s",
			     be->name, why);
		return -1;
	}
	if (!apic) {
		lib_snprintf(err, errlen, "no local APIC for the PMI");
		return -1;
	}
	if (!bts_ds_area()) {
		lib_snprintf(err, errlen, "no memory for the DS save area");
		return -1;
	}
	return bts_config_check(cfg, err, errlen);
}

static void session_init(struct bts_session *s, const struct bts_backend *be,
			 const struct bts_config *cfg)
{
	*s = (struct bts_session){ 0 };
	s->be = be;
	s->cfg = *cfg;
	s->ds = this_cpu()->ds_area;
}

/* The DS area is programmed: make the session this CPU's and trace. */
static int activate(struct bts_session *s, char *err, unsigned errlen)
{
	struct cpu *c = this_cpu();
	uint64_t flags;

	lapic_lvtpc_set(s->cfg.delivery, false);
	flags = irq_save();
	c->bts = s;
	s->active = true;
	if (s->be->start(s->ds, &s->cfg, err, errlen)) {
		s->active = false;
		c->bts = 0;
		lapic_lvtpc_set(LVTPC_NMI, true);
		irq_restore(flags);
		return -1;
	}
	irq_restore(flags);
	return 0;
}

int bts_start(struct bts_session *s, const struct bts_backend *be,
	      const struct bts_config *cfg, bts_drain_fn drain, char *err,
	      unsigned errlen)
{
	if (start_checks(be, cfg, err, errlen))
		return -1;
	if (get_buffer(this_cpu(), (uint64_t)cfg->records * BTS_RECORD_SIZE)) {
		lib_snprintf(err, errlen, "no memory for %u records",
			     cfg->records);
		return -1;
	}
	session_init(s, be, cfg);
	s->buf = this_cpu()->bts_buf;
	s->drain = drain;
	ds_setup(s->ds, s->buf, cfg);
	return activate(s, err, errlen);
}

int bts_start_strategy(struct bts_session *s, const struct bts_backend *be,
		       const struct bts_config *cfg, struct drain *d, char *err,
		       unsigned errlen)
{
	if (start_checks(be, cfg, err, errlen))
		return -1;
	session_init(s, be, cfg);
	s->strategy = d;
	drain_start(d); /* the strategy programs the DS area */
	return activate(s, err, errlen);
}

void bts_sync(struct bts_session *s, bool resume)
{
	uint64_t flags = irq_save();

	s->busy = true;
	s->be->pause();
	if (s->strategy)
		drain_flush(s->strategy);
	else
		drain_now(s, s->ds->bts_index);
	if (resume)
		s->be->resume();
	s->busy = false;
	irq_restore(flags);
}

void bts_flush(struct bts_session *s)
{
	bts_sync(s, true);
}

void bts_resume(struct bts_session *s)
{
	s->be->resume();
}

void bts_stop(struct bts_session *s)
{
	uint64_t flags = irq_save();

	s->busy = true;
	s->be->stop();
	if (s->strategy)
		drain_flush(s->strategy);
	else
		drain_now(s, s->ds->bts_index);
	s->active = false;
	s->busy = false;
	this_cpu()->bts = 0;
	lapic_lvtpc_set(LVTPC_NMI, true);
	irq_restore(flags);
}
