/*
 * Kernel side of a measurement (kernel/measure.c): runs a measure_fn with
 * warm-up and repetitions (lib/stats.h), subtracts the cost of reading the
 * TSC itself, counts SMIs during the run where the CPU can (Intel's
 * MSR_SMI_COUNT), and prints one "# metric" line with min/median/p99/max/n,
 * the TSC frequency and, under a hypervisor, its name.
 */
#ifndef KERNEL_MEASURE_H
#define KERNEL_MEASURE_H

#include <stdint.h>

#include "lib/stats.h"

struct test_run;

#define MEASURE_DEFAULT_WARMUP 10
#define MEASURE_DEFAULT_REPS   200

/* Cycles that a back-to-back pair of ordered TSC reads costs (median). */
uint64_t tsc_read_overhead(void);

/*
 * Measure fn (which returns end - start cycles of what it times) with the
 * default warm-up and repetitions, minus the TSC-read overhead, and print
 * the metric. 'mode' (e.g. "xapic") may be NULL. Returns the number of
 * failed samples.
 */
size_t measure_and_report(struct test_run *t, const char *name,
			  const char *mode, measure_fn fn, void *arg);

/* Median of the last measure_and_report or report_samples (0: none). */
uint64_t measure_last_median(void);

/* Print a metric for samples gathered another way (in cycles). */
void report_samples(struct test_run *t, const char *name, const char *mode,
		    struct sample_set *s, uint64_t smi_delta, int smi_known);
/* The same in another unit (records, ticks...). */
void report_samples_unit(struct test_run *t, const char *name, const char *mode,
			 const char *unit, struct sample_set *s);

#endif
