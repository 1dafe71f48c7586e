/*
 * Key figures: the few numbers a person reading the log (or the screen)
 * wants without tools. Tests add a line each; the kernel prints them as a
 * plain-text table just before the closing line (kernel/keyfig.c).
 */
#ifndef KERNEL_KEYFIG_H
#define KERNEL_KEYFIG_H

#define KEYFIG_MAX 24
#define KEYFIG_LEN 120

/* "area: text"; lines beyond KEYFIG_MAX are counted, not kept. */
void key_figure(const char *area, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void key_figures_print(void);

#endif
