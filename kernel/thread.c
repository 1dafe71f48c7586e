/*
 * Threads and their scheduler (see kernel/thread.h).
 *
 * Each thread has a kernel stack of its own; the scheduler runs on the
 * caller's (the test's) stack. A switch is thread_switch() between the
 * two, always with interrupts off: from a thread in a system call (yield,
 * exit), in the timer interrupt (preemption) or in an exception handler
 * (a fault in user code); the scheduler picks the next thread and
 * switches to it. A thread resumes where it switched away, and returns to
 * user mode through the system-call or interrupt exit it came in by; a
 * new thread starts in thread_first(), which enters user mode.
 */
#include "kernel/thread.h"

#include "drivers/apic_timer.h"
#include "drivers/lapic.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/ksyms.h"
#include "kernel/pmm.h"
#include "kernel/runner.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/user.h"
#include "kernel/vectors.h"
#include "lib/format.h"
#include "user/usys.h"

extern const char user_start[]; /* user/crt.c: calls fn(arg), then exit */

struct sched {
	uint64_t ksp; /* the scheduler's stack pointer while a thread runs */
	struct sched_stats stats;
	trap_handler old_timer;
	bool timer_on;
};

static uint8_t *kstacks[THREAD_MAX];

const char *thread_state_name(enum thread_state s)
{
	static const char *const names[] = {
		[TH_NEW] = "new",	  [TH_READY] = "ready",
		[TH_RUNNING] = "running", [TH_EXITED] = "exited",
		[TH_FAULTED] = "faulted", [TH_KILLED] = "killed",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int thread_init(struct thread *t, unsigned slot, const void *fn, uint64_t arg,
		char *err, unsigned len)
{
	const char *why = user_unavailable();
	uint64_t entry = user_addr(fn);

	*t = (struct thread){ 0 };
	if (why) {
		lib_snprintf(err, len, "no user mode: %s", why);
		return -1;
	}
	if (slot >= THREAD_MAX || !entry) {
		lib_snprintf(err, len, "thread slot %u or program %p invalid",
			     slot, fn);
		return -1;
	}
	if (!kstacks[slot])
		kstacks[slot] = pmm_alloc(THREAD_KSTACK_SIZE);
	if (!kstacks[slot] || !user_stack_map(slot)) {
		lib_snprintf(err, len, "out of memory for thread stacks");
		return -1;
	}
	t->id = slot + 1;
	t->slot = slot;
	t->entry = entry;
	t->arg = arg;
	t->kstack = kstacks[slot];
	t->state = TH_NEW;
	return 0;
}

static uint64_t kstack_top(const struct thread *t)
{
	return (uint64_t)(t->kstack + THREAD_KSTACK_SIZE);
}

/* A new thread's first instructions, on its own kernel stack. */
static void __attribute__((noreturn)) thread_first(void)
{
	struct thread *t = this_cpu()->thread;
	uint64_t rsp = user_stack_map(t->slot);
	struct trap_frame f = { 0 };

	/* The way out to user mode, for the BTS model's records. */
	f.rip = user_addr(user_start);
	f.cs = SEL_UCODE64 | 3;
	f.rsp = rsp;
	f.vector = VEC_USER_START;
	user_mode_exit(&f);
	/* rsp: as after a call, so user_start sees an aligned frame. */
	user_enter(f.rip, rsp - 8, t->entry, t->arg);
}

/* Back to the scheduler; returns when the thread is switched in again. */
static void to_sched(struct thread *t)
{
	struct sched *s = this_cpu()->sched;

	thread_switch(&t->ksp, s->ksp);
}

static struct thread *current(void)
{
	return this_cpu()->thread;
}

void thread_exit_current(int64_t code)
{
	struct thread *t = current();

	if (!t)
		return;
	t->exit_code = code;
	t->state = TH_EXITED;
	to_sched(t);
	for (;;) /* an ended thread is never switched in */
		asm volatile("hlt");
}

void thread_yield_current(void)
{
	struct thread *t = current();

	if (!t)
		return;
	t->yields++;
	t->state = TH_READY;
	to_sched(t);
}

uint64_t thread_current_id(void)
{
	struct thread *t = current();

	return t ? t->id : 0;
}

void thread_count_syscall(uint64_t nr)
{
	struct thread *t = current();

	(void)nr;
	if (t)
		t->syscalls++;
}

bool thread_fault_current(const struct trap_frame *f)
{
	struct thread *t = current();
	char sym[96];
	uint64_t k = user_to_kernel(f->rip);

	if (!t)
		return false;
	t->fault.vector = (unsigned)f->vector;
	t->fault.rip = f->rip;
	t->fault.rsp = f->rsp;
	t->fault.error_code = f->error_code;
	t->fault.cr2 = f->vector == VEC_PF ? read_cr2() : 0;
	t->fault.cs = f->cs;
	if (k)
		ksym_format(k, sym, sizeof(sym));
	else
		lib_snprintf(sym, sizeof(sym), "outside the user image");
	kprintf("# user fault: thread %u \"%s\" at rip 0x%lx (%s) cr2 0x%lx "
		"error 0x%lx\n",
		t->id, trap_name(t->fault.vector), f->rip, sym, t->fault.cr2,
		f->error_code);
	t->state = TH_FAULTED;
	to_sched(t);
	for (;;)
		asm volatile("hlt");
}

static void sched_tick(struct trap_frame *f)
{
	struct sched *s = this_cpu()->sched;
	struct thread *t = current();

	lapic_eoi();
	if (!s)
		return;
	s->stats.ticks++;
	if ((f->cs & 3) != 3 || !t) {
		s->stats.idle_ticks++;
		return;
	}
	t->preemptions++;
	t->state = TH_READY;
	to_sched(t);
}

static void sched_stop(struct sched *s)
{
	if (s->timer_on) {
		apic_timer_stop();
		trap_set_handler(VEC_APIC_TIMER, s->old_timer);
		s->timer_on = false;
	}
	this_cpu()->thread = 0;
	this_cpu()->sched = 0;
}

/* The runner's abort hook: a test that timed out inside threads_run. */
static void sched_abort(void)
{
	struct sched *s = this_cpu()->sched;

	if (s)
		sched_stop(s);
}

static bool hooks_registered;

static bool runnable(const struct thread *t)
{
	return t->state == TH_NEW || t->state == TH_READY;
}

static void switch_in(struct sched *s, struct thread *t,
		      const struct sched_hooks *h)
{
	struct cpu *c = this_cpu();

	if (h && h->switch_in)
		h->switch_in(t, h->ctx);
	if (t->state == TH_NEW) {
		uint64_t *sp = (uint64_t *)kstack_top(t);

		*--sp = 0;			/* thread_first's return */
		*--sp = (uint64_t)thread_first; /* thread_switch's ret */
		for (int i = 0; i < 6; i++)	/* rbx rbp r12-r15 */
			*--sp = 0;
		t->ksp = (uint64_t)sp;
	}
	t->state = TH_RUNNING;
	t->runs++;
	s->stats.switches++;
	c->thread = t;
	c->tss.rsp[0] = kstack_top(t);
	c->syscall_kstack = kstack_top(t);
	thread_switch(&s->ksp, t->ksp);
	c->thread = 0;
	if (t->state == TH_RUNNING) /* cannot happen: every way back sets it */
		t->state = TH_KILLED;
	if (h && h->switch_out)
		h->switch_out(t, h->ctx);
}

int threads_run(struct thread **ts, unsigned n, const struct sched_cfg *cfg,
		struct sched_stats *stats, char *err, unsigned len)
{
	struct sched s = { 0 };
	uint64_t flags = irq_save();
	uint64_t deadline = rdtsc() + ms_to_tsc(cfg->timeout_ms);
	unsigned next = 0, left;

	if (this_cpu()->sched) {
		irq_restore(flags);
		lib_snprintf(err, len, "threads_run is not reentrant");
		return -1;
	}
	if (!hooks_registered) {
		runner_on_abort(sched_abort);
		hooks_registered = true;
	}
	user_cpu_init();
	this_cpu()->sched = &s;
	if (cfg->slice_us) {
		const char *why = apic_timer_reason();

		if (!apic_timer_hz()) {
			sched_stop(&s);
			irq_restore(flags);
			lib_snprintf(err, len, "no APIC timer: %s", why);
			return -1;
		}
		s.old_timer = trap_get_handler(VEC_APIC_TIMER);
		trap_set_handler(VEC_APIC_TIMER, sched_tick);
		s.timer_on = true;
		apic_timer_periodic(
			(uint32_t)apic_timer_us_to_ticks(cfg->slice_us));
	}
	for (;;) {
		struct thread *t = 0;

		left = 0;
		for (unsigned i = 0; i < n; i++)
			left += runnable(ts[i]);
		if (!left)
			break;
		if (rdtsc() > deadline) {
			for (unsigned i = 0; i < n; i++)
				if (runnable(ts[i]))
					ts[i]->state = TH_KILLED;
			break;
		}
		for (unsigned i = 0; i < n && !t; i++) {
			struct thread *c = ts[(next + i) % n];

			if (runnable(c)) {
				t = c;
				next = (next + i + 1) % n;
			}
		}
		switch_in(&s, t, cfg->hooks);
	}
	sched_stop(&s);
	irq_restore(flags);
	if (stats)
		*stats = s.stats;
	return 0;
}

/*
 * Boot-time probe: one thread that makes system calls and exits. Under
 * some hypervisors SYSCALL does not work (nested KVM on AMD here enters
 * the kernel's entry point still at CPL 3); user mode is then disabled
 * with what was seen, and every test that needs it skips saying so.
 */
void threads_probe(void)
{
	static char why[160];
	struct thread th, *ts[1] = { &th };
	struct sched_cfg cfg = { .timeout_ms = 2000 };
	char err[96];

	if (user_unavailable())
		return;
	if (thread_init(&th, 0, uprog_syscalls, 3, err, sizeof(err)) ||
	    threads_run(ts, 1, &cfg, 0, err, sizeof(err))) {
		lib_snprintf(why, sizeof(why), "probe failed: %s", err);
		user_set_unavailable(why);
		return;
	}
	if (th.state == TH_EXITED && th.exit_code == (int64_t)th.id)
		return;
	if (th.state == TH_FAULTED && th.fault.rip == (uint64_t)syscall_entry)
		lib_snprintf(why, sizeof(why),
			     "SYSCALL reached its entry point at CPL %lu "
			     "(\"%s\" there, CS=0x%lx; probed at boot): the "
			     "CPU or hypervisor does not switch rings",
			     th.fault.cs & 3, trap_name(th.fault.vector),
			     th.fault.cs);
	else
		lib_snprintf(why, sizeof(why),
			     "probe thread ended %s (exit %ld, vector %u at "
			     "0x%lx)",
			     thread_state_name(th.state), th.exit_code,
			     th.fault.vector, th.fault.rip);
	user_set_unavailable(why);
}
