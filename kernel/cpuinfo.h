/* What the CPU is and which of the features btslab cares about it has. */
#ifndef KERNEL_CPUINFO_H
#define KERNEL_CPUINFO_H

#include <stdbool.h>
#include <stdint.h>

struct cpuinfo {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;
	bool intel;
	bool hypervisor;
	char hv_vendor[13];
	/* CPUID.1 */
	bool ds, dtes64, ds_cpl, pdcm, x2apic, tsc_deadline;
	/* CPUID.0AH: architectural performance monitoring */
	unsigned perfmon_version, perfmon_counters;
	/* IA32_MISC_ENABLE bits 11/12, when it can be read */
	bool misc_enable_read;
	int misc_enable_vector; /* fault vector when it could not */
	bool bts_unavailable, pebs_unavailable;
};

extern struct cpuinfo cpu_info;

void cpuinfo_init(void);

#endif
