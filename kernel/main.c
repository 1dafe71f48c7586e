/*
 * kernel_main: bring the machine up far enough to test, print the log
 * header, run the selected tests, print the verdict and stop.
 */
#include "drivers/apic_timer.h"
#include "drivers/hpet.h"
#include "drivers/lapic.h"
#include "drivers/pic8259.h"
#include "drivers/qemu_exit.h"
#include "drivers/screen.h"
#include "drivers/serial.h"
#include "kernel/acpi_tables.h"
#include "kernel/arch.h"
#include "kernel/boot_info.h"
#include "kernel/bts.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/cpuinfo.h"
#include "kernel/defer.h"
#include "kernel/fixup.h"
#include "kernel/keyfig.h"
#include "kernel/ksyms.h"
#include "kernel/nmi.h"
#include "kernel/options.h"
#include "kernel/paging.h"
#include "kernel/pmm.h"
#include "kernel/reboot.h"
#include "kernel/runner.h"
#include "kernel/smp.h"
#include "kernel/summary.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/user.h"
#include "kernel/vectors.h"
#include "kernel/version.h"
#include "kernel/watchdog.h"

#define TICK_HZ	      100
#define TICK_CHECK_MS 100

const struct boot_info *smp_boot_info;
static struct paging_info paging;
static bool tick_alive;
static bool acpi_ok;

static void check_tick(void)
{
	uint64_t t0 = watchdog_ticks();
	uint64_t end = rdtsc() + ms_to_tsc(TICK_CHECK_MS);

	while (rdtsc() < end && watchdog_ticks() == t0)
		cpu_relax();
	tick_alive = watchdog_ticks() != t0;
}

static void print_cpu(void)
{
	const struct cpuinfo *ci = &cpu_info;
	bool bts = ci->ds && ci->misc_enable_read && !ci->bts_unavailable;
	bool pebs = ci->ds && ci->misc_enable_read && !ci->pebs_unavailable;

	kprintf("# cpu vendor=%s family=%u model=0x%x stepping=%u \"%s\"\n",
		ci->vendor, ci->family, ci->model, ci->stepping, ci->brand);
	kprintf("# cpu ds=%d dtes64=%d ds_cpl=%d pdcm=%d bts=%d pebs=%d "
		"x2apic=%d tsc_deadline=%d perfmon=%u counters=%u "
		"tsc_hz=%lu tsc_source=%s invariant_tsc=%d\n",
		ci->ds, ci->dtes64, ci->ds_cpl, ci->pdcm, bts, pebs, ci->x2apic,
		ci->tsc_deadline, ci->perfmon_version, ci->perfmon_counters,
		tsc.hz, tsc.source, tsc.invariant);
	if (tsc.other_hz) {
		int64_t d = (int64_t)tsc.other_hz - (int64_t)tsc.hz;

		kprintf("# tsc %s=%lu %s=%lu differ_ppm=%ld\n", tsc.source,
			tsc.hz, tsc.other_source, tsc.other_hz,
			d * 1000000 / (int64_t)tsc.hz);
	}
	if (!ci->ds)
		kputs("# bts hw=unavailable reason=\"CPUID.1:EDX[21]=0 (no "
		      "Debug Store)\"\n");
	else if (!ci->misc_enable_read)
		kprintf("# bts hw=unavailable reason=\"reading "
			"IA32_MISC_ENABLE (0x1A0) raised vector %d\"\n",
			ci->misc_enable_vector);
	else if (ci->bts_unavailable)
		kputs("# bts hw=unavailable reason=\"IA32_MISC_ENABLE[11]=1 "
		      "(BTS unavailable)\"\n");
	else
		kputs("# bts hw=available reason=\"CPUID.1:EDX[21]=1, "
		      "IA32_MISC_ENABLE[11]=0\"\n");
	if (ci->hypervisor)
		kprintf("# hypervisor vendor=\"%s\" note=\"anything that exits "
			"to the hypervisor (APIC, IPIs, MSRs, port I/O) is "
			"timed with the hypervisor's cost, not the "
			"hardware's\"\n",
			ci->hv_vendor);
}

static void print_acpi(void)
{
	const struct acpi_info *a = &acpi_info;
	const struct acpi_madt *m = &a->madt;

	if (!a->root_sig[0]) {
		kprintf("# acpi none (rsdp=%s)\n", acpi_rsdp_source());
	} else {
		kprintf("# acpi rsdp=%s rev=%u oem=\"%s\" root=%s tables=%zu "
			"problems=%zu\n",
			acpi_rsdp_source(), a->rsdp_revision, a->oem_id,
			a->root_sig, a->ntables, a->nmsgs + a->msgs_dropped);
		kprintf("# acpi madt=%d cpus=%zu enabled=%zu dropped=%zu "
			"ioapics=%zu overrides=%zu lapic_nmis=%zu "
			"pcat_compat=%d "
			"hpet=%d\n",
			m->present, m->ncpus, m->cpus_enabled, m->cpus_dropped,
			m->nioapics, m->noverrides, m->nlapic_nmis,
			m->pcat_compat, a->hpet.usable);
	}
	for (size_t i = 0; i < a->nmsgs; i++)
		kprintf("# acpi problem=\"%s\"\n", a->msgs[i]);
	(void)acpi_ok;
}

static void print_apic(void)
{
	if (!apic) {
		kputs("# apic mode=none reason=\"CPUID.1:EDX[9]=0\"\n");
		return;
	}
	kprintf("# apic mode=%s id=%u base=0x%lx moved=%d firmware_mode=%s "
		"x2apic=%d\n",
		apic->name, apic->id(), apic_boot.mmio_base, apic_boot.moved,
		apic_boot.x2apic_at_boot ? "x2apic" : "xapic",
		apic_boot.x2apic_capable);
}

static void print_timers(void)
{
	kprintf("# hpet usable=%d period_fs=%u reason=\"%s\"\n", hpet_usable(),
		hpet_period_fs(), hpet_reason());
	kprintf("# apic_timer hz=%lu bound_ppm=%lu tsc_deadline=%d\n",
		apic_timer_hz(), apic_timer_bound_ppm(),
		apic_timer_has_deadline());
}

/* Memory types: the firmware's MTRR default and the PAT (caching of RAM). */
static void print_memtype(void)
{
	uint64_t def = 0, pat = 0;
	int def_ok = rdmsr_safe(0x2FF, &def) == 0;
	int pat_ok = rdmsr_safe(0x277, &pat) == 0;

	kprintf("# memtype mtrr_def_type=0x%lx mtrr_read=%d pat=0x%lx "
		"pat_read=%d\n",
		def, def_ok, pat, pat_ok);
}

static void print_user(void)
{
	const char *why = user_unavailable();

	if (why)
		kprintf("# user mode=none reason=\"%s\"\n", why);
	else
		kprintf("# user mode=ring3 image=0x%llx stacks=0x%llx "
			"entry=syscall\n",
			USER_IMAGE_BASE, USER_STACK_BASE);
}

static void print_smp(void)
{
	kprintf("# smp online=%u listed=%u failed=%u capped=%u max=%d "
		"trampoline=0x%x",
		smp_info.online, smp_info.listed, smp_info.failed,
		smp_info.capped, MAX_CPUS, smp_info.trampoline);
	for (unsigned i = 0; i < smp_info.failed && i < 8; i++)
		kprintf(" failed_apic_id=%u", smp_info.failed_ids[i]);
	if (smp_info.note[0])
		kprintf(" note=\"%s\"", smp_info.note);
	kputs("\n");
}

static void print_header(const struct boot_info *bi)
{
	uint64_t usable = 0;
	char names[64];

	kputs("TAP version 13\n");
	kprintf("# btslab %s (git %s) boot=%s firmware=%s\n", BTSLAB_VERSION,
		BTSLAB_GIT, boot_path_name(bi->path),
		firmware_name(bi->firmware));
	if (bi->path != BOOT_EFI && bi->magic != 0x2BADB002u &&
	    bi->magic != 0x36D76289u)
		kprintf("# boot magic=0x%x note=\"unknown loader: no boot "
			"information\"\n",
			bi->magic);
	kprintf("# loader name=\"%s\" cmdline=\"%s\" cmdline_truncated=%d\n",
		bi->loader[0] ? bi->loader : "unknown", bi->cmdline,
		bi->cmdline_truncated);
	print_cpu();
	for (size_t i = 0; i < bi->nmem; i++)
		if (bi->mem[i].type == MEM_USABLE)
			usable += bi->mem[i].len;
	kprintf("# memory regions=%zu dropped=%zu usable_mib=%lu "
		"map_wb_2m=%zu map_uc_2m=%zu\n",
		bi->nmem, bi->mem_dropped, usable >> 20, paging.wb_pages,
		paging.uc_pages);
	print_acpi();
	print_apic();
	print_timers();
	print_memtype();
	print_smp();
	print_user();
	if (bi->fb.present)
		kprintf("# framebuffer width=%u height=%u bpp=%u type=%u "
			"addr=0x%lx\n",
			bi->fb.width, bi->fb.height, bi->fb.bpp, bi->fb.type,
			bi->fb.addr);
	else
		kputs("# framebuffer none=1\n");
	console_names(names, sizeof(names));
	kprintf("# console names=%s qemu=%d exit_device=%s\n", names,
		qemu_present(), qemu_present() ? "isa-debug-exit" : "none");
	kprintf("# seed=%lu symbols=%zu\n", settings.seed, ksym_count());
	kprintf("# watchdog tick=%s hz=%u alive=%d default_ms=%lu "
		"catches_cli=%d",
		watchdog_source(), watchdog_hz(), tick_alive,
		settings.watchdog_ms, watchdog_catches_cli());
	if (!watchdog_catches_cli())
		kprintf(" reason=\"%s\" note=\"a test hung with interrupts "
			"disabled ends the run by the host's timeout\"",
			watchdog_no_nmi_reason());
	kputs("\n");
}

static void __attribute__((noreturn)) finish(const struct run_totals *tot)
{
	/* Interrupts nobody asked for: not fatal, but never hidden. */
	kprintf("# events nmi=%lu nmi_unclaimed=%lu unexpected_interrupts=%lu "
		"apic_spurious=%lu apic_errors=%lu pic_spurious=%lu "
		"serial_dropped=%lu note=\"watchdog ticks are NMIs that no "
		"handler claims\"\n",
		nmi_count(), nmi_unclaimed(), trap_unexpected_count(),
		apic ? lapic_spurious_count() : 0,
		apic ? lapic_error_count() : 0, pic_spurious_count(),
		serial_dropped());
	key_figures_print();
	/* Before the closing line: once it is out, the screen is final. */
	screen_summary(tot);
	kprintf("# btslab done: %u passed, %u failed, %u skipped\n",
		tot->passed, tot->failed, tot->skipped);
	qemu_exit(tot->failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
	if (settings.reboot)
		machine_reboot();
	for (;;) {
		irq_disable();
		halt();
	}
}

static unsigned count_selected(void)
{
	unsigned n = 0;

	for (const struct test_case *tc = tests_begin(); tc < tests_end(); tc++)
		n += test_selected(tc);
	return n;
}

static void list_tests(void)
{
	for (const struct test_case *tc = tests_begin(); tc < tests_end(); tc++)
		kprintf("# test %s%s\n", tc->name,
			tc->flags & TEST_EXPLICIT ? " (explicit)" : "");
	kputs("1..0 # SKIP listing the tests only\n");
}

void kernel_main(struct boot_info *bi)
{
	static struct cmdline_errors errs;
	struct run_totals tot = { 0, 0, 0 };
	struct cpu *c = &cpus[0];
	unsigned planned, number = 0;
	const char *msgs[CMDLINE_ERR_MAX + 1];
	size_t nerr;

	c->index = 0;
	cpu_set_current(c);
	gdt_init(c);
	idt_init();
	serial_init();
	qemu_detect();
	cpuinfo_init();
	paging_init(bi, &paging);
	screen_init(bi);
	pmm_init(bi);
	user_init();
	pic_init(VEC_PIC_BASE);
	if (lapic_probe())
		lapic_set_mode(apic_boot.x2apic_at_boot ? APIC_MODE_X2APIC
							: APIC_MODE_XAPIC);
	nmi_init();
	defer_init();
	acpi_ok = acpi_tables_init(bi);
	time_init();
	watchdog_init();
	apic_timer_init();
	irq_enable();
	check_tick();
	smp_boot_info = bi;
	if (apic) {
		smp_init();
		bts_init();
		threads_probe();
	}

	nerr = options_parse(bi->cmdline, &errs);
	if (!settings.seed_given)
		settings.seed = rdtsc();
	runner_set_seed(settings.seed);
	print_header(bi);

	if (nerr) {
		/* Never run a default suite in place of the one asked for. */
		size_t n = 0;

		for (; n < errs.n; n++)
			msgs[n] = errs.msg[n];
		if (errs.dropped)
			msgs[n++] = "further errors not shown";
		kputs("1..1\n");
		runner_report_fail(1, "cmdline.parse", msgs, n, &tot);
		finish(&tot);
	}
	if (settings.list) {
		list_tests();
		finish(&tot);
	}

	planned = count_selected() * (unsigned)settings.repeat;
	kprintf("# boot entry_to_first_test_cycles=%lu us=%lu\n",
		rdtsc() - bi->entry_tsc, tsc_to_us(rdtsc() - bi->entry_tsc));
	kprintf("1..%u\n", planned);
	for (const struct test_case *tc = tests_begin(); tc < tests_end();
	     tc++) {
		if (!test_selected(tc))
			continue;
		for (uint64_t r = 0; r < settings.repeat; r++)
			runner_run(tc, ++number, (uint32_t)settings.watchdog_ms,
				   &tot);
	}
	finish(&tot);
}
