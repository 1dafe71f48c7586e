/*
 * Unit tests for lib/glob.c: the cases test selection relies on, then every
 * short pattern over {a, b, *, ?} against every short name over {a, b},
 * checked against an obviously correct recursive matcher, then patterns
 * that make naive backtracking take exponential time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "lib/glob.h"
#include "lib/string.h"

static void test_literal(void **state)
{
	(void)state;
	assert_true(glob_match("", ""));
	assert_false(glob_match("", "a"));
	assert_false(glob_match("a", ""));
	assert_true(glob_match("apic.self_ipi.xapic", "apic.self_ipi.xapic"));
	assert_false(glob_match("apic.self_ipi", "apic.self_ipi.xapic"));
	assert_false(glob_match("apic.self_ipi.xapic", "apic.self_ipi"));
	assert_false(glob_match("APIC.self_ipi", "apic.self_ipi"));
	/* '.' and other punctuation are literal, not regex. */
	assert_false(glob_match("a.c", "abc"));
	assert_true(glob_match("a[1]+", "a[1]+"));
}

static void test_star(void **state)
{
	(void)state;
	assert_true(glob_match("*", ""));
	assert_true(glob_match("*", "apic.self_ipi.xapic"));
	assert_true(glob_match("**", ""));
	assert_true(glob_match("apic.*", "apic.self_ipi.xapic"));
	assert_true(glob_match("apic.*", "apic."));
	assert_false(glob_match("apic.*", "apic"));
	assert_true(glob_match("*.xapic", "apic.self_ipi.xapic"));
	assert_false(glob_match("*.xapic", "apic.self_ipi.x2apic"));
	assert_true(glob_match("drain.*.noloss.*", "drain.cost.noloss.raw"));
	assert_true(glob_match("*switch*", "drain.cost.switch.noloss"));
	assert_false(glob_match("*Switch*", "drain.cost.switch.noloss"));
	assert_true(glob_match("a*b*c", "aXbYbZc"));
	assert_false(glob_match("a*b*c", "aXbYbZ"));
	assert_true(glob_match("*ab", "aab"));
	assert_true(glob_match("a*", "a"));
}

static void test_question(void **state)
{
	(void)state;
	assert_false(glob_match("?", ""));
	assert_true(glob_match("?", "a"));
	assert_true(glob_match("?", "."));
	assert_false(glob_match("??", "a"));
	assert_true(glob_match("bts.?.hw", "bts.x.hw"));
	assert_false(glob_match("bts.?.hw", "bts.xy.hw"));
	assert_false(glob_match("*?", ""));
	assert_true(glob_match("*?", "a"));
	assert_true(glob_match("?*?", "ab"));
	assert_false(glob_match("?*?", "a"));
}

/* Reference matcher: correct by construction, exponential, short input. */
static bool ref_match(const char *p, const char *n)
{
	if (!*p)
		return !*n;
	if (*p == '*')
		return ref_match(p + 1, n) || (*n && ref_match(p, n + 1));
	return *n && (*p == '?' || *p == *n) && ref_match(p + 1, n + 1);
}

/* The i-th string over alphabet, shortest first ("" is i == 0). */
static void nth_string(char *out, size_t i, const char *alphabet)
{
	const size_t k = strlen(alphabet);
	size_t len = 0;

	for (; i; i = (i - 1) / k)
		out[len++] = alphabet[(i - 1) % k];
	out[len] = '\0';
}

static void test_against_reference(void **state)
{
	char pat[16], name[16];

	(void)state;
	/* All patterns up to 6 of {a,b,*,?}, names up to 7 of {a,b}. */
	for (size_t i = 0; i < 5461; i++) {
		nth_string(pat, i, "ab*?");
		for (size_t j = 0; j < 255; j++) {
			nth_string(name, j, "ab");
			if (glob_match(pat, name) != ref_match(pat, name))
				fail_msg("'%s' vs '%s': expected %d", pat, name,
					 ref_match(pat, name));
		}
	}
}

/* "a*a*...*a*b" against "aaa...a": exponential for naive backtracking. */
static void test_no_blowup(void **state)
{
	char *pat = malloc(2 * 200 + 2), *name = malloc(20001);

	(void)state;
	assert_non_null(pat);
	assert_non_null(name);
	for (size_t i = 0; i < 200; i++) {
		pat[2 * i] = 'a';
		pat[2 * i + 1] = '*';
	}
	strcpy(pat + 400, "b");
	memset(name, 'a', 20000);
	name[20000] = '\0';
	assert_false(glob_match(pat, name));
	name[19999] = 'b';
	assert_true(glob_match(pat, name));
	free(pat);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literal),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_question),
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_no_blowup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
