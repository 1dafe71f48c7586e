/*
 * The facts a summary screen shows, collected from the log's own lines
 * (TAP verdicts, header comments, metrics), so the summary can never say
 * something the log does not. Hardware-free: fed line by line by the
 * screen console, tested on the host.
 */
#ifndef LIB_LOGSUM_H
#define LIB_LOGSUM_H

#include <stdbool.h>
#include <stddef.h>

#define LOGSUM_TEXT    96 /* longest text kept per field */
#define LOGSUM_NAME    64 /* longest test or metric name kept */
#define LOGSUM_FAILED  16 /* failed test names kept; the rest are counted */
#define LOGSUM_METRICS 24 /* metrics kept; the rest are counted */

struct logsum_metric {
	char name[LOGSUM_NAME];
	char value[24]; /* median, else value, as written in the JSON */
	char unit[24];
};

struct logsum {
	char title
		[LOGSUM_TEXT]; /* "btslab 0.1.0 (git ...) boot=... firmware=..." */
	char cpu[LOGSUM_TEXT]; /* the brand string */
	char tsc_hz[24];       /* from "# cpu ... tsc_hz=" */
	char bts[LOGSUM_TEXT]; /* "available" / "unavailable: reason" */
	char apic[24];	       /* "# apic mode=" */
	char cpus[16];	       /* "# smp online=" */
	char hypervisor[LOGSUM_TEXT];
	char bail_out[LOGSUM_TEXT]; /* "Bail out! ..." text, if any */
	char failed[LOGSUM_FAILED][LOGSUM_NAME];
	unsigned nfailed; /* all "not ok" lines, kept or not */
	unsigned ok, skipped, plan;
	struct logsum_metric metrics[LOGSUM_METRICS];
	unsigned nmetrics; /* all metric lines, kept or not */
};

void logsum_init(struct logsum *s);
/* One log line, without its newline; n bytes, not NUL-terminated. */
void logsum_line(struct logsum *s, const char *line, size_t n);

#endif
