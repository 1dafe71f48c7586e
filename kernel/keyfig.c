/* Key figures, kept in order and printed as "# summary" lines. */
#include "kernel/keyfig.h"

#include <stdarg.h>

#include "kernel/console.h"
#include "lib/format.h"

static char lines[KEYFIG_MAX][KEYFIG_LEN];
static unsigned n, dropped;

void key_figure(const char *area, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (n == KEYFIG_MAX) {
		dropped++;
		return;
	}
	k = lib_snprintf(lines[n], KEYFIG_LEN, "%-22s ", area);
	if (k < 0 || k >= KEYFIG_LEN)
		k = 0;
	va_start(ap, fmt);
	lib_vsnprintf(lines[n] + k, KEYFIG_LEN - (size_t)k, fmt, ap);
	va_end(ap);
	n++;
}

void key_figures_print(void)
{
	if (!n)
		return;
	kputs("# summary key figures (TSC cycles; the metric lines have "
	      "the details)\n");
	for (unsigned i = 0; i < n; i++)
		kprintf("# summary   %s\n", lines[i]);
	if (dropped)
		kprintf("# summary   (%u more not kept)\n", dropped);
}
