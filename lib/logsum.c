/*
 * Collecting the summary's facts from log lines (see lib/logsum.h). Every
 * copy is bounded: a garbled or overlong line loses text, never memory.
 */
#include "lib/logsum.h"

#include "lib/format.h"
#include "lib/string.h"

void logsum_init(struct logsum *s)
{
	memset(s, 0, sizeof(*s));
}

static bool starts(const char *line, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(line, prefix, k);
}

/* Copy [p, end) into out (cap bytes with the NUL), cut if too long. */
static void copy(char *out, size_t cap, const char *p, const char *end)
{
	size_t k = (size_t)(end - p);

	if (k >= cap)
		k = cap - 1;
	memcpy(out, p, k);
	out[k] = 0;
}

/* Where key (e.g. "tsc_hz=") starts a word in the line, or NULL. */
static const char *find(const char *line, size_t n, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k <= n; i++)
		if ((i == 0 || line[i - 1] == ' ' || line[i - 1] == ',' ||
		     line[i - 1] == '{') &&
		    !memcmp(line + i, key, k))
			return line + i + k;
	return NULL;
}

/*
 * The value after key: up to a space, or the text between double quotes.
 * For JSON keys ("\"median\":") the value ends at ',' or '}' too.
 */
static bool value(const char *line, size_t n, const char *key, char *out,
		  size_t cap)
{
	const char *end = line + n, *p = find(line, n, key), *q;

	if (!p)
		return false;
	if (p < end && *p == '"') {
		for (q = ++p; q < end && *q != '"'; q++)
			;
	} else {
		for (q = p; q < end && *q != ' ' && *q != ',' && *q != '}'; q++)
			;
	}
	copy(out, cap, p, q);
	return true;
}

/* "ok N - name..." / "not ok N - name...": the name, up to " #". */
static void test_name(const char *line, size_t n, char *out, size_t cap)
{
	const char *end = line + n, *p = line, *q;

	while (p + 2 < end && !(p[0] == '-' && p[1] == ' '))
		p++;
	p = p + 2 < end ? p + 2 : end;
	for (q = p; q < end && *q != ' '; q++)
		;
	copy(out, cap, p, q);
}

static void metric(struct logsum *s, const char *json, size_t n)
{
	struct logsum_metric *m;

	if (s->nmetrics++ >= LOGSUM_METRICS)
		return;
	m = &s->metrics[s->nmetrics - 1];
	value(json, n, "\"name\":", m->name, sizeof(m->name));
	value(json, n, "\"unit\":", m->unit, sizeof(m->unit));
	if (!value(json, n, "\"median\":", m->value, sizeof(m->value)))
		value(json, n, "\"value\":", m->value, sizeof(m->value));
}

static void header(struct logsum *s, const char *line, size_t n)
{
	const char *end = line + n;

	if (starts(line, n, "# btslab ") && !starts(line, n, "# btslab done")) {
		copy(s->title, sizeof(s->title), line + 2, end);
	} else if (starts(line, n, "# cpu vendor=")) {
		/* The brand string is the one quoted value. */
		const char *p = line, *q;

		while (p < end && *p != '"')
			p++;
		for (q = p < end ? ++p : end; q < end && *q != '"'; q++)
			;
		copy(s->cpu, sizeof(s->cpu), p, q);
	} else if (starts(line, n, "# cpu ")) {
		value(line, n, "tsc_hz=", s->tsc_hz, sizeof(s->tsc_hz));
	} else if (starts(line, n, "# bts hw=")) {
		char hw[16], why[LOGSUM_TEXT];

		value(line, n, "hw=", hw, sizeof(hw));
		if (value(line, n, "reason=", why, sizeof(why)) &&
		    strcmp(hw, "available"))
			lib_snprintf(s->bts, sizeof(s->bts), "%s: %s", hw, why);
		else
			copy(s->bts, sizeof(s->bts), hw, hw + strlen(hw));
	} else if (starts(line, n, "# apic mode=")) {
		value(line, n, "mode=", s->apic, sizeof(s->apic));
	} else if (starts(line, n, "# smp ")) {
		value(line, n, "online=", s->cpus, sizeof(s->cpus));
	} else if (starts(line, n, "# hypervisor ")) {
		value(line, n, "vendor=", s->hypervisor, sizeof(s->hypervisor));
	} else if (starts(line, n, "# metric ")) {
		metric(s, line + 9, n - 9);
	}
}

void logsum_line(struct logsum *s, const char *line, size_t n)
{
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n'))
		n--;
	if (starts(line, n, "not ok ")) {
		if (s->nfailed < LOGSUM_FAILED)
			test_name(line, n, s->failed[s->nfailed], LOGSUM_NAME);
		s->nfailed++;
	} else if (starts(line, n, "ok ")) {
		const char *skip = NULL;

		for (size_t i = 0; i + 7 <= n && !skip; i++)
			if (!memcmp(line + i, " # SKIP", 7))
				skip = line + i;
		if (skip)
			s->skipped++;
		else
			s->ok++;
	} else if (starts(line, n, "1..")) {
		unsigned v = 0;

		for (size_t i = 3; i < n && line[i] >= '0' && line[i] <= '9';
		     i++)
			v = v * 10 + (unsigned)(line[i] - '0');
		s->plan = v;
	} else if (starts(line, n, "Bail out!")) {
		copy(s->bail_out, sizeof(s->bail_out), line, line + n);
	} else if (starts(line, n, "# ")) {
		header(s, line, n);
	}
}
