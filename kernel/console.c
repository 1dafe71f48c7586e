/*
 * Console fan-out and kprintf. Formatting goes through a small buffer that
 * is flushed to every console when it fills and at the end of the call.
 */
#include "kernel/console.h"

#include "kernel/arch.h"
#include "kernel/cpu.h"
#include "lib/format.h"
#include "lib/string.h"

#define NO_OWNER (-1)

static struct console *consoles;
static int lock_owner = NO_OWNER;

/*
 * Take the console lock. A CPU that already holds it (an NMI or exception
 * arriving while it prints) goes on without it: interleaved text is better
 * than a deadlock. Returns whether the caller must release it.
 */
static int console_lock(void)
{
	int me = (int)this_cpu()->index;
	int expected;

	if (__atomic_load_n(&lock_owner, __ATOMIC_ACQUIRE) == me)
		return 0;
	for (;;) {
		expected = NO_OWNER;
		if (__atomic_compare_exchange_n(&lock_owner, &expected, me, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 1;
		cpu_relax();
	}
}

static void console_unlock(int taken)
{
	if (taken)
		__atomic_store_n(&lock_owner, NO_OWNER, __ATOMIC_RELEASE);
}

void console_abort_unlock(void)
{
	int me = (int)this_cpu()->index;

	__atomic_compare_exchange_n(&lock_owner, &me, NO_OWNER, 0,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

void console_register(struct console *c)
{
	struct console **p = &consoles;

	while (*p)
		p = &(*p)->next;
	c->next = NULL;
	*p = c;
}

void console_names(char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (struct console *c = consoles; c; c = c->next) {
		int n = lib_snprintf(buf + used, len - used, "%s%s",
				     used ? "," : "", c->name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	if (!consoles)
		lib_snprintf(buf, len, "none");
}

static void write_all(const char *s, size_t n)
{
	for (struct console *c = consoles; c; c = c->next)
		c->write(s, n);
}

struct outbuf {
	char buf[160];
	size_t n;
};

static void put(void *ctx, char ch)
{
	struct outbuf *o = ctx;

	o->buf[o->n++] = ch;
	if (o->n == sizeof(o->buf)) {
		write_all(o->buf, o->n);
		o->n = 0;
	}
}

void kvprintf(const char *fmt, va_list ap)
{
	struct outbuf o;
	int taken = console_lock();

	o.n = 0;
	lib_vcbprintf(put, &o, fmt, ap);
	if (o.n)
		write_all(o.buf, o.n);
	console_unlock(taken);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

void kputs(const char *s)
{
	int taken = console_lock();

	write_all(s, strlen(s));
	console_unlock(taken);
}
