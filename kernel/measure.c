/*
 * Measurement glue between lib/stats.c and the log. See kernel/measure.h.
 */
#include "kernel/measure.h"

#include "kernel/arch.h"
#include "kernel/cpuinfo.h"
#include "kernel/fixup.h"
#include "kernel/test.h"
#include "kernel/time.h"

#define MSR_SMI_COUNT 0x34
#define MAX_SAMPLES   4096

static uint64_t samples[MAX_SAMPLES];
static uint64_t overhead;
static uint64_t last_median;

uint64_t measure_last_median(void)
{
	return last_median;
}

static uint64_t empty_pair(void *arg)
{
	uint64_t t0, t1;

	(void)arg;
	t0 = rdtsc_ordered();
	t1 = rdtsc_ordered();
	return t1 - t0;
}

uint64_t tsc_read_overhead(void)
{
	static const struct measure_cfg cfg = { 10, 101, 0 };

	if (!overhead)
		overhead = measure_overhead(&cfg, empty_pair, 0);
	return overhead;
}

/* MSR_SMI_COUNT is Intel's (Nehalem and later); elsewhere it faults. */
static int smi_read(uint64_t *v)
{
	if (!cpu_info.intel)
		return -1;
	return rdmsr_safe(MSR_SMI_COUNT, v);
}

static void report(struct test_run *t, const char *name, const char *mode,
		   const char *unit, struct sample_set *s, uint64_t smi_delta,
		   int smi_known)
{
	struct summary sum;
	struct json j;
	char buf[512];

	if (!samples_summarize(s, &sum)) {
		t_fail(t, "%s: no samples", name);
		return;
	}
	last_median = sum.median;
	json_init(&j, buf, sizeof(buf));
	json_begin(&j, 0);
	json_str(&j, "name", name);
	if (mode)
		json_str(&j, "mode", mode);
	json_str(&j, "unit", unit);
	summary_json(&j, &sum);
	json_u64(&j, "dropped", s->dropped);
	json_u64(&j, "tsc_hz", tsc.hz);
	json_u64(&j, "overhead", tsc_read_overhead());
	if (smi_known)
		json_u64(&j, "smi", smi_delta);
	if (cpu_info.hypervisor)
		json_str(&j, "hypervisor", cpu_info.hv_vendor);
	json_end(&j);
	t_metric(t, buf);
}

void report_samples(struct test_run *t, const char *name, const char *mode,
		    struct sample_set *s, uint64_t smi_delta, int smi_known)
{
	report(t, name, mode, "cycles", s, smi_delta, smi_known);
}

void report_samples_unit(struct test_run *t, const char *name, const char *mode,
			 const char *unit, struct sample_set *s)
{
	report(t, name, mode, unit, s, 0, 0);
}

size_t measure_and_report(struct test_run *t, const char *name,
			  const char *mode, measure_fn fn, void *arg)
{
	struct measure_cfg cfg = { MEASURE_DEFAULT_WARMUP, MEASURE_DEFAULT_REPS,
				   tsc_read_overhead() };
	struct sample_set s;
	uint64_t smi0 = 0, smi1 = 0;
	int smi_ok;
	size_t failed;

	samples_init(&s, samples, MAX_SAMPLES);
	smi_ok = smi_read(&smi0) == 0;
	failed = measure_run(&cfg, fn, arg, &s);
	smi_ok = smi_ok && smi_read(&smi1) == 0;
	if (failed)
		t_fail(t, "%s: %zu of %u samples failed", name, failed,
		       cfg.reps);
	report_samples(t, name, mode, &s, smi1 - smi0, smi_ok);
	return failed;
}
