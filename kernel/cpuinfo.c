/*
 * CPU identification from CPUID, plus IA32_MISC_ENABLE, which tells whether
 * BTS and PEBS are available. That MSR is Intel's: elsewhere (AMD, some
 * hypervisors) the read faults, so it goes through rdmsr_safe and the
 * fault is recorded as the reason.
 */
#include "kernel/cpuinfo.h"

#include "kernel/arch.h"
#include "kernel/fixup.h"
#include "lib/string.h"

#define MSR_IA32_MISC_ENABLE  0x1A0
#define MISC_BTS_UNAVAILABLE  (1ull << 11)
#define MISC_PEBS_UNAVAILABLE (1ull << 12)

struct cpuinfo cpu_info;

static void regs_to_str(char *dst, uint32_t a, uint32_t b, uint32_t c)
{
	memcpy(dst, &a, 4);
	memcpy(dst + 4, &b, 4);
	memcpy(dst + 8, &c, 4);
	dst[12] = 0;
}

void cpuinfo_init(void)
{
	struct cpuinfo *ci = &cpu_info;
	struct cpuid_regs r = cpuid(0, 0);
	uint32_t max = r.eax, fam, model;
	uint64_t misc;

	regs_to_str(ci->vendor, r.ebx, r.edx, r.ecx);
	ci->intel = !strcmp(ci->vendor, "GenuineIntel");

	r = cpuid(1, 0);
	fam = (r.eax >> 8) & 0xF;
	model = (r.eax >> 4) & 0xF;
	/* Extended family/model fields, as the SDM defines the display. */
	if (fam == 0xF)
		fam += (r.eax >> 20) & 0xFF;
	if (fam == 0x6 || fam >= 0xF)
		model |= ((r.eax >> 16) & 0xF) << 4;
	ci->family = fam;
	ci->model = model;
	ci->stepping = r.eax & 0xF;
	ci->ds = r.edx & (1u << 21);
	ci->dtes64 = r.ecx & (1u << 2);
	ci->ds_cpl = r.ecx & (1u << 4);
	ci->pdcm = r.ecx & (1u << 15);
	ci->x2apic = r.ecx & (1u << 21);
	ci->tsc_deadline = r.ecx & (1u << 24);
	ci->hypervisor = r.ecx & (1u << 31);

	if (max >= 0xA) {
		r = cpuid(0xA, 0);
		ci->perfmon_version = r.eax & 0xFF;
		ci->perfmon_counters = (r.eax >> 8) & 0xFF;
	}
	if (ci->hypervisor) {
		r = cpuid(0x40000000, 0);
		regs_to_str(ci->hv_vendor, r.ebx, r.ecx, r.edx);
	}
	if (cpuid(0x80000000, 0).eax >= 0x80000004) {
		for (uint32_t i = 0; i < 3; i++) {
			r = cpuid(0x80000002 + i, 0);
			memcpy(ci->brand + i * 16, &r, 16);
		}
		ci->brand[48] = 0;
	}

	if (rdmsr_safe(MSR_IA32_MISC_ENABLE, &misc) == 0) {
		ci->misc_enable_read = true;
		ci->bts_unavailable = misc & MISC_BTS_UNAVAILABLE;
		ci->pebs_unavailable = misc & MISC_PEBS_UNAVAILABLE;
	} else {
		ci->misc_enable_vector = fault_vector();
	}
}
