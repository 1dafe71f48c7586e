/*
 * The console: every line the kernel prints goes to all registered
 * consoles (the serial port now, the screen later). Output from several
 * CPUs is serialized by a lock that an NMI on the CPU holding it does not
 * wait for.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

struct console {
	const char *name;
	void (*write)(const char *s, size_t n);
	struct console *next;
};

void console_register(struct console *c);
/* Names of the registered consoles, comma-separated. */
void console_names(char *buf, size_t len);

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap);
void kputs(const char *s);

/* Drop the console lock if this CPU holds it (after aborting a test). */
void console_abort_unlock(void);

#endif
