/*
 * The summary screen (see kernel/summary.h). Its facts come from the log
 * lines the screen console saw (lib/logsum.c) and the runner's totals, so
 * it says what the log says. Layout, top to bottom: a title bar, the
 * verdict in a coloured band, the failed tests, the machine, the key
 * figures (metrics, as many as fit), and a footer saying where the full
 * log is.
 */
#include "kernel/summary.h"

#include "drivers/screen.h"
#include "kernel/runner.h"
#include "lib/format.h"
#include "lib/string.h"

#define ATTR_TEXT   SCREEN_ATTR(SC_WHITE, SC_BLACK)
#define ATTR_LABEL  SCREEN_ATTR(SC_LIGHT_CYAN, SC_BLACK)
#define ATTR_TITLE  SCREEN_ATTR(SC_WHITE, SC_BLUE)
#define ATTR_PASS   SCREEN_ATTR(SC_BLACK, SC_LIGHT_GREEN)
#define ATTR_FAIL   SCREEN_ATTR(SC_WHITE, SC_RED)
#define ATTR_FAILED SCREEN_ATTR(SC_LIGHT_RED, SC_BLACK)
#define ATTR_DIM    SCREEN_ATTR(SC_GREY, SC_BLACK)

#define INDENT 2

struct layout {
	unsigned row, cols, rows;
	char buf[256];
};

static void band(struct layout *l, uint8_t attr, const char *text)
{
	char row[257];
	unsigned n = l->cols < 256 ? l->cols : 256;

	memset(row, ' ', n);
	row[n] = 0;
	screen_text(l->row, 0, attr, row);
	screen_text(l->row, INDENT, attr, text);
	l->row++;
}

static void text(struct layout *l, unsigned col, uint8_t attr, const char *s)
{
	if (l->row < l->rows)
		screen_text(l->row, col, attr, s);
	l->row++;
}

static void failed_tests(struct layout *l, const struct logsum *f,
			 unsigned room)
{
	unsigned shown =
		f->nfailed < LOGSUM_FAILED ? f->nfailed : LOGSUM_FAILED;

	if (!f->nfailed)
		return;
	text(l, 0, ATTR_LABEL, "Failed tests:");
	if (shown > room)
		shown = room;
	for (unsigned i = 0; i < shown; i++)
		text(l, INDENT, ATTR_FAILED, f->failed[i]);
	if (shown < f->nfailed) {
		lib_snprintf(l->buf, sizeof(l->buf), "... and %u more",
			     f->nfailed - shown);
		text(l, INDENT, ATTR_FAILED, l->buf);
	}
	l->row++;
}

static void machine(struct layout *l, const struct logsum *f)
{
	text(l, 0, ATTR_LABEL, "Machine:");
	text(l, INDENT, ATTR_TEXT, f->cpu[0] ? f->cpu : "(cpu unknown)");
	lib_snprintf(l->buf, sizeof(l->buf), "cpus=%s apic=%s tsc_hz=%s",
		     f->cpus[0] ? f->cpus : "?", f->apic[0] ? f->apic : "?",
		     f->tsc_hz[0] ? f->tsc_hz : "?");
	text(l, INDENT, ATTR_TEXT, l->buf);
	lib_snprintf(l->buf, sizeof(l->buf), "bts hw=%s",
		     f->bts[0] ? f->bts : "?");
	text(l, INDENT, ATTR_TEXT, l->buf);
	if (f->hypervisor[0]) {
		lib_snprintf(l->buf, sizeof(l->buf), "hypervisor=%s",
			     f->hypervisor);
		text(l, INDENT, ATTR_TEXT, l->buf);
	}
	l->row++;
}

static void figures(struct layout *l, const struct logsum *f, unsigned room)
{
	unsigned kept =
		f->nmetrics < LOGSUM_METRICS ? f->nmetrics : LOGSUM_METRICS;
	unsigned shown = kept;

	if (!f->nmetrics || room < 2)
		return;
	if (shown > room - 1)
		shown = room - 1;
	text(l, 0, ATTR_LABEL, "Key figures (median or value):");
	for (unsigned i = 0; i < shown; i++) {
		const struct logsum_metric *m = &f->metrics[i];

		lib_snprintf(l->buf, sizeof(l->buf), "%-40s %14s %s", m->name,
			     m->value, m->unit);
		text(l, INDENT, ATTR_TEXT, l->buf);
	}
	if (shown < f->nmetrics) {
		lib_snprintf(l->buf, sizeof(l->buf),
			     "... %u more metrics in the log",
			     f->nmetrics - shown);
		text(l, INDENT, ATTR_DIM, l->buf);
	}
}

void screen_summary(const struct run_totals *tot)
{
	const struct logsum *f = screen_log_facts();
	struct layout l = { 0, screen_cols(), screen_rows(), { 0 } };
	bool pass = tot->failed == 0;
	unsigned rest;

	if (!screen_present())
		return;
	screen_take(ATTR_TEXT);
	band(&l, ATTR_TITLE, f->title[0] ? f->title : "btslab");
	l.row++;
	lib_snprintf(
		l.buf, sizeof(l.buf), "%s   %u passed, %u failed, %u skipped",
		pass ? "PASS" : "FAIL", tot->passed, tot->failed, tot->skipped);
	band(&l, pass ? ATTR_PASS : ATTR_FAIL, l.buf);
	l.row++;
	/* Failures first; machine facts take 5 rows, the footer 2. */
	rest = l.rows > l.row + 10 ? l.rows - l.row - 10 : 1;
	failed_tests(&l, f, rest);
	machine(&l, f);
	rest = l.rows > l.row + 2 ? l.rows - l.row - 2 : 0;
	figures(&l, f, rest);
	l.row = l.rows - 1;
	text(&l, 0, ATTR_DIM,
	     "Full log: COM1 115200 8N1, or EFI variables (docs/hardware.md)");
}
