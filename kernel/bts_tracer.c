/*
 * Per-CPU and per-thread consumers on one producer (kernel/bts_tracer.h).
 */
#include "kernel/bts_tracer.h"

#include "drivers/lapic.h"
#include "kernel/cpu.h"
#include "kernel/cpuinfo.h"
#include "kernel/defer.h"
#include "kernel/runner.h"
#include "kernel/trap.h"
#include "kernel/user.h"
#include "lib/format.h"

extern const uint64_t isr_stubs[256];

/* One tracer at a time (the tests run one on the boot CPU). */
static struct bts_tracer *active;
static struct defer_work work;

static enum entry_kind kernel_entry_kind(void *ctx, uint64_t addr)
{
	(void)ctx;
	if (addr == (uint64_t)syscall_entry)
		return ENTRY_SYSCALL;
	for (unsigned v = 0; v < 256; v++)
		if (isr_stubs[v] == addr)
			return v < 32 && v != VEC_NMI ? ENTRY_EXCEPTION
						      : ENTRY_INTERRUPT;
	return ENTRY_UNKNOWN;
}

void bts_tracer_mode_map(struct mode_map *map)
{
	map->user_lo = USER_LO;
	map->user_hi = USER_HI;
	map->entry_kind = kernel_entry_kind;
	map->ctx = 0;
}

void bts_tracer_trace_thread(struct thread *t, struct consumer_set *set)
{
	t->traced = set != 0;
	t->trace = set;
}

/* The sink: the per-CPU consumers, and the running thread's. */
static void emit(void *ctx, const struct bts_record *recs, size_t n,
		 uint64_t seq)
{
	struct bts_tracer *tr = ctx;

	consumer_set_emit(&tr->cpu, recs, n, seq);
	if (tr->cur)
		consumer_set_emit(tr->cur, recs, n, seq);
}

static void run_deferred(struct defer_work *w)
{
	(void)w;
	if (active)
		drain_deferred(&active->d);
}

static void env_defer(void *ctx)
{
	(void)ctx;
	defer_queue(&work);
}

static void env_kick(void *ctx)
{
	(void)ctx;
	apic->send(apic->id(), APIC_DM_NMI);
}

/* Drain at a switch point; go on tracing if someone wants the next. */
static void sync_to(struct bts_tracer *tr, struct thread *t)
{
	struct consumer_set *next = t && t->traced ? t->trace : 0;

	bts_sync(&tr->s, false);
	tr->syncs++;
	tr->cur = next;
	if (tr->on_switch)
		tr->on_switch(tr, t, tr->on_switch_ctx);
	tr->running = tr->cpu.n || next;
	if (tr->running)
		bts_resume(&tr->s);
}

static void hook_in(struct thread *t, void *ctx)
{
	sync_to(ctx, t);
}

static void hook_out(struct thread *t, void *ctx)
{
	(void)t;
	sync_to(ctx, 0);
}

/* The filter every consumer agrees on; CF_NFILTERS when they differ. */
static enum consumer_filter common_filter(const struct consumer_set **sets,
					  unsigned n)
{
	enum consumer_filter f = CF_BOTH;
	bool any = false;

	for (unsigned i = 0; i < n; i++) {
		for (size_t j = 0; sets[i] && j < sets[i]->n; j++) {
			enum consumer_filter cf = sets[i]->c[j]->filter;

			if (any && f != cf)
				return CF_NFILTERS;
			f = cf;
			any = true;
		}
	}
	return f;
}

/* The runner's abort hook (the session itself is stopped by bts.c's). */
static void tracer_abort(void)
{
	active = 0;
}

int bts_tracer_start(struct bts_tracer *tr, const struct bts_backend *be,
		     const struct bts_config *cfg0, enum drain_id strategy,
		     const struct drain_cfg *dc0, struct thread **threads,
		     unsigned nthreads, char *err, unsigned len)
{
	const struct consumer_set *sets[THREAD_MAX + 1];
	struct bts_config cfg = *cfg0;
	struct drain_cfg dc = *dc0;
	enum consumer_filter common;
	unsigned n = 0;

	static bool hooked;

	if (active) {
		lib_snprintf(err, len, "a tracer is already running");
		return -1;
	}
	if (!hooked) {
		runner_on_abort(tracer_abort);
		hooked = true;
	}
	sets[n++] = &tr->cpu;
	for (unsigned i = 0; i < nthreads && n < THREAD_MAX + 1; i++)
		if (threads[i]->traced)
			sets[n++] = threads[i]->trace;
	common = common_filter(sets, n);
	cfg.off_os = cfg.off_usr = false;
	tr->filter_by = "software";
	tr->software_why = 0;
	if (common == CF_NFILTERS) {
		tr->software_why = "the consumers want different privilege "
				   "levels";
	} else if (common == CF_BOTH) {
		tr->filter_by = "none";
	} else if (be == &bts_hw && !cpu_info.ds_cpl) {
		tr->software_why = "no DS_CPL (CPUID.1:ECX[4]=0)";
	} else {
		cfg.off_os = common == CF_USER;
		cfg.off_usr = common == CF_KERNEL;
		tr->filter_by = "producer";
	}

	dc.ds = bts_ds_area();
	dc.sink.emit = emit;
	dc.sink.ctx = tr;
	dc.env.defer = env_defer;
	dc.env.kick = env_kick;
	dc.env.ctx = tr;
	if (!dc.ds) {
		lib_snprintf(err, len, "no DS save area");
		return -1;
	}
	if (drain_init(&tr->d, strategy, &dc)) {
		lib_snprintf(err, len, "drain_init refused the configuration");
		return -1;
	}
	tr->cur = 0;
	tr->syncs = 0;
	tr->hooks = (struct sched_hooks){ .switch_in = hook_in,
					  .switch_out = hook_out,
					  .ctx = tr };
	work = (struct defer_work)DEFER_WORK_INIT(run_deferred);
	active = tr;
	if (bts_start_strategy(&tr->s, be, &cfg, &tr->d, err, len)) {
		active = 0;
		return -1;
	}
	/* Until the first thread runs, only the per-CPU consumers listen. */
	sync_to(tr, 0);
	return 0;
}

void bts_tracer_stop(struct bts_tracer *tr)
{
	bts_stop(&tr->s);
	active = 0;
}
