/*
 * Running one test: on its own stack, with a deadline, and with a saved
 * runner context to come back to whatever the test does.
 *
 * A test that faults: trap_dispatch calls runner_abort_exception, which
 * records the frame and rewrites it so that IRETQ lands in abort_landing
 * on a small stack of its own with interrupts off; abort_landing resumes
 * the runner context. A test that overruns its deadline: the watchdog tick
 * does the same from the timer interrupt. IRETQ also ends NMI blocking, so
 * a test aborted from an NMI leaves the CPU able to take the next one.
 *
 * A hang with interrupts disabled needs an NMI source to be caught; until
 * the APIC work provides one, such a hang is ended by the host's timeout.
 */
#include "kernel/runner.h"

#include "drivers/pic8259.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/ctx.h"
#include "kernel/ksyms.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/watchdog.h"
#include "lib/format.h"
#include "lib/rand.h"
#include "lib/string.h"

#define STACK_CANARY 0x57ACC0DE57ACC0DEull
#define CANARY_WORDS 64

extern const struct test_case __tests_start[], __tests_end[];

static uint64_t rand_state;
static void (*abort_hooks[RUNNER_MAX_ABORT_HOOKS])(void);

void runner_on_abort(void (*hook)(void))
{
	for (int i = 0; i < RUNNER_MAX_ABORT_HOOKS; i++) {
		if (!abort_hooks[i]) {
			abort_hooks[i] = hook;
			return;
		}
	}
}

const struct test_case *tests_begin(void)
{
	return __tests_start;
}

const struct test_case *tests_end(void)
{
	return __tests_end;
}

void runner_set_seed(uint64_t seed)
{
	rand_state = seed;
}

uint64_t t_rand(void)
{
	return splitmix64_next(&rand_state);
}

const void *t_arg(const struct test_run *t)
{
	return t->tc->arg;
}

bool t_failed(const struct test_run *t)
{
	return t->failures != 0;
}

void t_fail_at(struct test_run *t, const char *file, int line, const char *fmt,
	       ...)
{
	va_list ap;

	/* The first failure is the one reported; later ones are counted. */
	if (t->failures++ == 0) {
		va_start(ap, fmt);
		lib_vsnprintf(t->message, sizeof(t->message), fmt, ap);
		va_end(ap);
		t->file = file;
		t->line = line;
	}
	t->result = RESULT_FAIL;
}

bool t_assert_at(struct test_run *t, const char *file, int line, bool ok,
		 const char *text)
{
	if (!ok)
		t_fail_at(t, file, line, "assertion failed: %s", text);
	return ok;
}

bool t_expect_u64_at(struct test_run *t, const char *file, int line,
		     const char *what, uint64_t expected, uint64_t got)
{
	if (expected == got)
		return true;
	if (t->failures == 0) {
		lib_snprintf(t->expected, sizeof(t->expected), "%lu (0x%lx)",
			     expected, expected);
		lib_snprintf(t->got, sizeof(t->got), "%lu (0x%lx)", got, got);
	}
	t_fail_at(t, file, line, "%s differs", what);
	return false;
}

void t_skip(struct test_run *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failures)
		return;
	va_start(ap, fmt);
	lib_vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
	t->result = RESULT_SKIP;
}

void t_diag(struct test_run *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	(void)t;
	va_start(ap, fmt);
	lib_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kprintf("# %s\n", buf);
}

void t_metric(struct test_run *t, const char *json)
{
	(void)t;
	kprintf("# metric %s\n", json);
}

/* Where IRETQ lands after an abort: straight back into the runner. */
static void __attribute__((noreturn)) abort_landing(void)
{
	ctx_resume(&this_cpu()->runner_ctx, 1);
}

static void redirect_to_runner(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	/*
	 * Stop what the test started before leaving, here in the trap (maybe
	 * an NMI): a test caught in an interrupt storm (a PMI pending again
	 * as each handler returns) would otherwise never let the runner run
	 * one instruction. Hooks must be safe in NMI context.
	 */
	for (int i = 0; i < RUNNER_MAX_ABORT_HOOKS; i++)
		if (abort_hooks[i])
			abort_hooks[i]();

	c->test->frame = *f;
	f->rip = (uint64_t)abort_landing;
	f->cs = SEL_KCODE;
	f->ss = SEL_KDATA;
	/* As if abort_landing had been called: rsp + 8 is 16-byte aligned. */
	f->rsp = (uint64_t)(c->landing_stack + LANDING_STACK_SIZE) - 8;
	f->rflags = 0x2; /* interrupts off; the runner restores them */
	c->test_state = TEST_IDLE;
}

bool runner_abort_exception(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	if (c->test_state != TEST_RUNNING)
		return false;
	c->test->result = RESULT_EXCEPTION;
	c->test->cr2 = f->vector == VEC_PF ? read_cr2() : 0;
	redirect_to_runner(f);
	return true;
}

/* TSC when its frequency is known (any NMI can check it), else ticks. */
static bool deadline_passed(const struct test_run *t)
{
	if (t->deadline_tsc)
		return rdtsc() >= t->deadline_tsc;
	return watchdog_ticks() >= t->deadline_tick;
}

void runner_tick(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	if (c->test_state != TEST_RUNNING || !deadline_passed(c->test))
		return;
	c->test->result = RESULT_TIMEOUT;
	redirect_to_runner(f);
}

static void trampoline(void *arg)
{
	struct test_run *t = arg;
	struct cpu *c = this_cpu();

	c->test_state = TEST_RUNNING;
	irq_enable();
	t->tc->fn(t);
	irq_disable();
	c->test_state = TEST_IDLE;
}

static void canary_set(struct cpu *c)
{
	uint64_t *w = (uint64_t *)c->test_stack;

	for (int i = 0; i < CANARY_WORDS; i++)
		w[i] = STACK_CANARY;
}

static bool canary_ok(struct cpu *c)
{
	const uint64_t *w = (const uint64_t *)c->test_stack;

	for (int i = 0; i < CANARY_WORDS; i++)
		if (w[i] != STACK_CANARY)
			return false;
	return true;
}

/* YAML needs quotes around text that may hold ':', '#' or quotes. */
static void yaml_quote(const char *s)
{
	kputs("\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			kprintf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			kprintf("\\x%02x", (unsigned char)*s);
		else
			kprintf("%c", *s);
	}
	kputs("\"");
}

static void yaml_str(const char *key, const char *s)
{
	kprintf("  %s: ", key);
	yaml_quote(s);
	kputs("\n");
}

static void report(const struct test_run *t, struct run_totals *tot)
{
	const char *name = t->tc->name;
	char buf[160];

	switch (t->result) {
	case RESULT_PASS:
		kprintf("ok %u - %s\n", t->number, name);
		tot->passed++;
		return;
	case RESULT_SKIP:
		kprintf("ok %u - %s # SKIP %s\n", t->number, name, t->message);
		tot->skipped++;
		return;
	case RESULT_FAIL:
		kprintf("not ok %u - %s\n  ---\n", t->number, name);
		yaml_str("message", t->message);
		if (t->expected[0]) {
			yaml_str("expected", t->expected);
			yaml_str("got", t->got);
		}
		if (t->file) {
			lib_snprintf(buf, sizeof(buf), "%s:%d", t->file,
				     t->line);
			yaml_str("at", buf);
		}
		if (t->failures > 1)
			kprintf("  failures: %u\n", t->failures);
		break;
	case RESULT_TIMEOUT:
		kprintf("not ok %u - %s # TIMEOUT after %u ms\n  ---\n",
			t->number, name, t->timeout_ms);
		lib_snprintf(buf, sizeof(buf),
			     "watchdog expired after %u ms (tick %s)",
			     t->timeout_ms, watchdog_source());
		yaml_str("message", buf);
		ksym_format(t->frame.rip, buf, sizeof(buf));
		kprintf("  rip: \"0x%016lx %s\"\n", t->frame.rip, buf);
		kprintf("  rsp: \"0x%016lx\"\n", t->frame.rsp);
		kprintf("  interrupts: \"%s\"\n",
			t->frame.rflags & RFLAGS_IF ? "enabled" : "disabled");
		break;
	case RESULT_EXCEPTION:
		kprintf("not ok %u - %s\n  ---\n", t->number, name);
		lib_snprintf(buf, sizeof(buf),
			     "unexpected exception %s (vector %lu) in the test",
			     trap_name(t->frame.vector), t->frame.vector);
		yaml_str("message", buf);
		if (t->frame.vector == VEC_PF)
			kprintf("  fault_address: \"0x%016lx\"\n", t->cr2);
		trap_dump(&t->frame, "  ");
		break;
	}
	kputs("  ...\n");
	tot->failed++;
}

void runner_run(const struct test_case *tc, unsigned number,
		uint32_t default_timeout_ms, struct run_totals *tot)
{
	static struct test_run t;
	struct cpu *c = this_cpu();
	uint64_t hz = watchdog_hz();
	uint64_t now = rdtsc();

	memset(&t, 0, sizeof(t));
	t.tc = tc;
	t.number = number;
	t.result = RESULT_PASS;
	t.timeout_ms = tc->timeout_ms ? tc->timeout_ms : default_timeout_ms;
	/* Round up, plus one tick: the first may come at once. */
	t.deadline_tick =
		watchdog_ticks() + (t.timeout_ms * hz + 999) / 1000 + 1;
	t.deadline_tsc = tsc.hz ? now + ms_to_tsc(t.timeout_ms) : 0;

	irq_disable();
	c->test = &t;
	canary_set(c);
	if (ctx_save(&c->runner_ctx) == 0) {
		call_on_stack(trampoline, &t, c->test_stack + TEST_STACK_SIZE);
	} else {
		/* Aborted: release what the test may have held. */
		console_abort_unlock();
		pic_eoi_in_service();
	}
	c->test_state = TEST_IDLE;
	c->test = 0;
	if (!canary_ok(c) && t.result != RESULT_EXCEPTION) {
		t.failures++;
		t.result = RESULT_FAIL;
		lib_snprintf(t.message, sizeof(t.message),
			     "test stack overflow: the %d bytes at the bottom "
			     "of the %d-byte test stack were overwritten",
			     CANARY_WORDS * 8, TEST_STACK_SIZE);
		t.expected[0] = 0;
		t.file = 0;
	}
	irq_enable();
	report(&t, tot);
}

void runner_report_fail(unsigned number, const char *name,
			const char *const *messages, size_t n,
			struct run_totals *tot)
{
	kprintf("not ok %u - %s\n  ---\n", number, name);
	yaml_str("message", n ? messages[0] : "failed");
	if (n > 1) {
		kputs("  errors:\n");
		for (size_t i = 0; i < n; i++) {
			kputs("    - ");
			yaml_quote(messages[i]);
			kputs("\n");
		}
	}
	kputs("  ...\n");
	tot->failed++;
}
