/*
 * The summary screen at the end of a run (kernel/summary.c): the verdict,
 * the counts, the failed tests and the key figures, in large clear rows
 * that can be read from a photo of a machine without a serial port.
 */
#ifndef KERNEL_SUMMARY_H
#define KERNEL_SUMMARY_H

struct run_totals;

/* Replace the scrolling log on the screen by the summary (no screen: no-op). */
void screen_summary(const struct run_totals *tot);

#endif
