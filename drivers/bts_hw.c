/*
 * The hardware BTS backend: IA32_DS_AREA and IA32_DEBUGCTL (SDM Vol. 3,
 * "Branch Trace Store (BTS)" and "Debug Store (DS) Mechanism").
 *
 * Availability is decided from CPUID and IA32_MISC_ENABLE, then every MSR
 * the PMI path will write is probed with wrmsr_safe at start and read back:
 * a hypervisor that refuses or ignores a write gives an error naming the
 * MSR, never a fault. After that the pause/resume/status paths (which run
 * in NMI context, where no exception may happen) use plain RDMSR/WRMSR.
 */
#include "kernel/arch.h"
#include "kernel/bts.h"
#include "kernel/cpuinfo.h"
#include "kernel/fixup.h"
#include "lib/format.h"

#define MSR_IA32_DEBUGCTL	 0x1D9
#define MSR_IA32_DS_AREA	 0x600
#define MSR_PERF_GLOBAL_STATUS	 0x38E
#define MSR_PERF_GLOBAL_OVF_CTRL 0x390

#define DEBUGCTL_TR	     (1ull << 6)
#define DEBUGCTL_BTS	     (1ull << 7)
#define DEBUGCTL_BTINT	     (1ull << 8)
#define DEBUGCTL_BTS_OFF_OS  (1ull << 9)
#define DEBUGCTL_BTS_OFF_USR (1ull << 10)
#define DEBUGCTL_BTS_BITS                                                    \
	(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_OS | \
	 DEBUGCTL_BTS_OFF_USR)
#define GLOBAL_OVF_BUF (1ull << 62)

static uint64_t debugctl_off, debugctl_on;
uint64_t bts_hw_pmi_status;
static bool have_global_status;

static const char *hw_why_unavailable(void)
{
	static char why[128];
	const struct cpuinfo *ci = &cpu_info;

	if (!ci->ds)
		return "CPUID.1:EDX[21]=0 (no Debug Store)";
	if (!ci->dtes64)
		return "CPUID.1:ECX[2]=0 (no 64-bit DS layout, DTES64)";
	if (!ci->misc_enable_read) {
		lib_snprintf(
			why, sizeof(why),
			"reading IA32_MISC_ENABLE (0x1A0) raised vector %d",
			ci->misc_enable_vector);
		return why;
	}
	if (ci->bts_unavailable)
		return "IA32_MISC_ENABLE[11]=1 (BTS unavailable)";
	return 0;
}

/* Write an MSR that may be refused, and check it kept the value. */
static int probe_write(uint32_t msr, const char *name, uint64_t v, char *err,
		       unsigned len)
{
	uint64_t back;

	if (wrmsr_safe(msr, v)) {
		lib_snprintf(err, len,
			     "writing %s (0x%x) = 0x%lx raised vector %d", name,
			     msr, v, fault_vector());
		return -1;
	}
	if (rdmsr_safe(msr, &back)) {
		lib_snprintf(err, len,
			     "reading %s (0x%x) back raised vector %d", name,
			     msr, fault_vector());
		return -1;
	}
	if (back != v) {
		lib_snprintf(err, len,
			     "%s (0x%x) reads 0x%lx after writing 0x%lx", name,
			     msr, back, v);
		return -1;
	}
	return 0;
}

static int hw_start(struct ds_area *ds, const struct bts_config *cfg, char *err,
		    unsigned len)
{
	uint64_t cur, status;

	if ((cfg->off_os || cfg->off_usr) && !cpu_info.ds_cpl) {
		lib_snprintf(err, len,
			     "BTS_OFF_OS/BTS_OFF_USR need DS_CPL "
			     "(CPUID.1:ECX[4]=0)");
		return -1;
	}
	if (rdmsr_safe(MSR_IA32_DEBUGCTL, &cur)) {
		lib_snprintf(err, len, "reading IA32_DEBUGCTL raised vector %d",
			     fault_vector());
		return -1;
	}
	debugctl_off = cur & ~DEBUGCTL_BTS_BITS;
	debugctl_on = debugctl_off | DEBUGCTL_TR | DEBUGCTL_BTS;
	if (cfg->interrupt)
		debugctl_on |= DEBUGCTL_BTINT;
	if (cfg->off_os)
		debugctl_on |= DEBUGCTL_BTS_OFF_OS;
	if (cfg->off_usr)
		debugctl_on |= DEBUGCTL_BTS_OFF_USR;
	/* PMU version 2 has GLOBAL_STATUS and GLOBAL_OVF_CTRL. */
	have_global_status = cpu_info.perfmon_version >= 2 &&
			     rdmsr_safe(MSR_PERF_GLOBAL_STATUS, &status) == 0;
	if (probe_write(MSR_IA32_DS_AREA, "IA32_DS_AREA", (uint64_t)ds, err,
			len))
		return -1;
	/* Off first (proves the write path), then on: tracing starts here. */
	if (probe_write(MSR_IA32_DEBUGCTL, "IA32_DEBUGCTL", debugctl_off, err,
			len))
		return -1;
	if (probe_write(MSR_IA32_DEBUGCTL, "IA32_DEBUGCTL", debugctl_on, err,
			len)) {
		wrmsr_safe(MSR_IA32_DEBUGCTL, debugctl_off);
		return -1;
	}
	return 0;
}

static void hw_pause(void)
{
	wrmsr(MSR_IA32_DEBUGCTL, debugctl_off);
}

static void hw_resume(void)
{
	wrmsr(MSR_IA32_DEBUGCTL, debugctl_on);
}

static void hw_stop(void)
{
	hw_pause();
	wrmsr(MSR_IA32_DS_AREA, 0);
}

static bool hw_ovf_pending(void)
{
	if (!have_global_status)
		return false;
	bts_hw_pmi_status = rdmsr(MSR_PERF_GLOBAL_STATUS);
	return bts_hw_pmi_status & GLOBAL_OVF_BUF;
}

static void hw_ovf_clear(void)
{
	if (have_global_status)
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, GLOBAL_OVF_BUF);
}

/* The hardware does not say how many records it could not store. */
static uint64_t hw_lost_at_max(void)
{
	return UINT64_MAX;
}

const struct bts_backend bts_hw = {
	.name = "hw",
	.why_unavailable = hw_why_unavailable,
	.start = hw_start,
	.stop = hw_stop,
	.pause = hw_pause,
	.resume = hw_resume,
	.ovf_pending = hw_ovf_pending,
	.ovf_clear = hw_ovf_clear,
	.lost_at_max = hw_lost_at_max,
};
