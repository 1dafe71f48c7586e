/*
 * SMP start-up and cross-CPU calls.
 *
 * The start-up sequence is the one the SDM's MP initialization protocol
 * gives for xAPIC and x2APIC processors: INIT, 10 ms, STARTUP, 200 us,
 * STARTUP again if the AP has not answered. APs are started one at a time
 * because they share the trampoline's parameter block.
 *
 * A call uses a per-CPU slot with sequence numbers: the caller fills the
 * slot, sends VEC_CALL and waits for the target to publish the same
 * sequence number as done. A call that times out leaves the slot owned
 * until the target finishes it; a new call to that CPU then fails as
 * busy instead of overwriting a call the target may still be reading.
 */
#include "kernel/smp.h"

#include "drivers/lapic.h"
#include "kernel/acpi_tables.h"
#include "kernel/arch.h"
#include "kernel/boot_info.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/vectors.h"
#include "lib/string.h"

#define TRAMPOLINE_LOW	     0x1000
#define TRAMPOLINE_HIGH	     0x9F000 /* below the EBDA */
#define INIT_DELAY_US	     10000
#define SIPI_DELAY_US	     200
#define AP_ONLINE_TIMEOUT_MS 500

struct trampoline_params {
	uint64_t cr3;
	uint64_t stack_top;
	uint64_t cpu;
	uint64_t entry;
	uint64_t started;
};

struct call_slot {
	void (*fn)(void *);
	void *arg;
	uint64_t req;  /* sequence number of the last call sent */
	uint64_t done; /* sequence number of the last call completed */
};

extern const char trampoline_start[], trampoline_end[], trampoline_params[];

/* Offsets into the blob, by address (they are linker symbols). */
static uint64_t blob_offset(const char *sym)
{
	return (uintptr_t)sym - (uintptr_t)trampoline_start;
}
extern uint64_t boot_pml4[];
extern const struct boot_info *smp_boot_info;

struct smp_info smp_info;
static struct call_slot slots[MAX_CPUS];
static unsigned ncpus = 1;

static void call_handler(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	struct call_slot *s = &slots[c->index];
	uint64_t req = __atomic_load_n(&s->req, __ATOMIC_ACQUIRE);

	(void)f;
	lapic_eoi();
	if (req == __atomic_load_n(&s->done, __ATOMIC_RELAXED))
		return; /* nothing new: a late or duplicate IPI */
	s->fn(s->arg);
	__atomic_store_n(&s->done, req, __ATOMIC_RELEASE);
}

/* First C code on an AP, on its own stack (boot/trampoline.asm). */
static void __attribute__((noreturn)) ap_main(struct cpu *c)
{
	volatile struct trampoline_params *p =
		phys_ptr(smp_info.trampoline + blob_offset(trampoline_params));

	cpu_set_current(c);
	gdt_init(c);
	idt_load();
	lapic_set_mode(lapic_mode());
	c->apic_id = apic->id();
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	p->started = 1;
	irq_enable();
	for (;;)
		halt();
}

/* The highest usable page below the EBDA, which the loaders left free. */
static uint32_t find_trampoline_page(const struct boot_info *bi)
{
	uint64_t best = 0;

	for (size_t i = 0; i < bi->nmem; i++) {
		const struct mem_region *r = &bi->mem[i];
		uint64_t end = r->base + r->len, page;

		if (r->type != MEM_USABLE)
			continue;
		if (end > TRAMPOLINE_HIGH)
			end = TRAMPOLINE_HIGH;
		page = (end & ~0xFFFull) - 0x1000;
		if (end < 0x2000 || page < r->base || page < TRAMPOLINE_LOW)
			continue;
		if (page > best)
			best = page;
	}
	return (uint32_t)best;
}

static void send_init_sipi(uint32_t apic_id, uint32_t page,
			   volatile struct trampoline_params *p)
{
	apic->send(apic_id,
		   APIC_DM_INIT | APIC_LEVEL_ASSERT | APIC_TRIGGER_LEVEL);
	lapic_wait_idle();
	tsc_delay_us(INIT_DELAY_US);
	if (lapic_mode() == APIC_MODE_XAPIC) {
		/* De-assert: needed by old APICs, ignored by newer ones. */
		apic->send(apic_id, APIC_DM_INIT | APIC_TRIGGER_LEVEL);
		lapic_wait_idle();
	}
	for (int i = 0; i < 2 && !p->started; i++) {
		apic->send(apic_id, APIC_DM_STARTUP | (page >> 12));
		lapic_wait_idle();
		tsc_delay_us(SIPI_DELAY_US);
	}
}

static bool start_ap(struct cpu *c, uint32_t page)
{
	volatile struct trampoline_params *p =
		phys_ptr(page + blob_offset(trampoline_params));
	uint64_t end;

	p->cr3 = (uint64_t)boot_pml4;
	p->stack_top = (uint64_t)(c->stack + KERNEL_STACK_SIZE);
	p->cpu = (uint64_t)c;
	p->entry = (uint64_t)ap_main;
	p->started = 0;
	send_init_sipi(c->apic_id, page, p);
	end = rdtsc() + ms_to_tsc(AP_ONLINE_TIMEOUT_MS);
	while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
	return true;
}

void smp_init(void)
{
	const struct acpi_madt *m = &acpi_info.madt;
	uint32_t self = apic->id();
	uint32_t page;

	smp_info.online = 1;
	smp_info.listed = 1;
	smp_info.note = "";
	cpus[0].apic_id = self;
	cpus[0].online = true;
	trap_set_handler(VEC_CALL, call_handler);
	if (!m->present) {
		smp_info.note = "no MADT: boot CPU only";
		return;
	}
	smp_info.listed = (unsigned)m->cpus_enabled;
	page = find_trampoline_page(smp_boot_info);
	if (!page) {
		smp_info.note = "no free page below 640 KiB for the start-up "
				"code";
		return;
	}
	smp_info.trampoline = page;
	memcpy(phys_ptr(page), trampoline_start,
	       (size_t)blob_offset(trampoline_end));
	for (size_t i = 0; i < m->ncpus; i++) {
		const struct acpi_cpu *ac = &m->cpus[i];
		struct cpu *c;

		if (!ac->enabled || ac->apic_id == self)
			continue;
		if (ncpus == MAX_CPUS) {
			smp_info.capped++;
			continue;
		}
		if (ac->apic_id > 0xFE && lapic_mode() != APIC_MODE_X2APIC) {
			/* xAPIC destinations are 8 bits: x2APIC is needed. */
			smp_info.failed++;
			continue;
		}
		c = &cpus[ncpus];
		c->index = ncpus;
		c->apic_id = ac->apic_id;
		if (start_ap(c, page)) {
			ncpus++;
			smp_info.online++;
		} else if (smp_info.failed++ < 8) {
			smp_info.failed_ids[smp_info.failed - 1] = ac->apic_id;
		}
	}
	smp_info.capped += (unsigned)m->cpus_dropped_enabled;
}

unsigned smp_cpus_online(void)
{
	return ncpus;
}

int smp_cpu_by_rank(unsigned n)
{
	return n < ncpus ? (int)n : -1;
}

enum smp_call_result smp_call(unsigned cpu, void (*fn)(void *), void *arg,
			      uint64_t timeout_ms)
{
	struct call_slot *s = &slots[cpu];
	uint64_t seq, end;

	if (cpu >= ncpus || !cpus[cpu].online)
		return SMP_CALL_OFFLINE;
	if (cpu == this_cpu()->index) {
		fn(arg);
		return SMP_CALL_OK;
	}
	if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) != s->req)
		return SMP_CALL_BUSY;
	s->fn = fn;
	s->arg = arg;
	seq = s->req + 1;
	__atomic_store_n(&s->req, seq, __ATOMIC_RELEASE);
	apic->send(cpus[cpu].apic_id, APIC_DM_FIXED | VEC_CALL);
	end = rdtsc() + ms_to_tsc(timeout_ms);
	while (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) != seq) {
		if (rdtsc() > end)
			return SMP_CALL_TIMEOUT;
		cpu_relax();
	}
	return SMP_CALL_OK;
}

enum smp_call_result smp_call_post(unsigned cpu, void (*fn)(void *), void *arg,
				   uint64_t *seq)
{
	struct call_slot *s = &slots[cpu];

	if (cpu >= ncpus || !cpus[cpu].online || cpu == this_cpu()->index)
		return SMP_CALL_OFFLINE;
	if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) != s->req)
		return SMP_CALL_BUSY;
	s->fn = fn;
	s->arg = arg;
	*seq = s->req + 1;
	__atomic_store_n(&s->req, *seq, __ATOMIC_RELEASE);
	apic->send(cpus[cpu].apic_id, APIC_DM_FIXED | VEC_CALL);
	return SMP_CALL_OK;
}

enum smp_call_result smp_call_wait(unsigned cpu, uint64_t seq,
				   uint64_t timeout_ms)
{
	uint64_t end = rdtsc() + ms_to_tsc(timeout_ms);

	while (__atomic_load_n(&slots[cpu].done, __ATOMIC_ACQUIRE) != seq) {
		if (rdtsc() > end)
			return SMP_CALL_TIMEOUT;
		cpu_relax();
	}
	return SMP_CALL_OK;
}

unsigned on_each_cpu(void (*fn)(void *), void *arg, uint64_t timeout_ms)
{
	unsigned failed = 0;

	for (unsigned i = 0; i < ncpus; i++)
		if (smp_call(i, fn, arg, timeout_ms) != SMP_CALL_OK)
			failed++;
	return failed;
}

const char *smp_call_result_name(enum smp_call_result r)
{
	switch (r) {
	case SMP_CALL_OK:
		return "ok";
	case SMP_CALL_TIMEOUT:
		return "timeout";
	case SMP_CALL_BUSY:
		return "busy";
	case SMP_CALL_OFFLINE:
		return "offline";
	}
	return "?";
}
