/*
 * Glob matching with '*' and '?' (see lib/glob.h).
 *
 * Only the most recent '*' needs to be remembered: when a later literal
 * fails, that star absorbs one more character of the name and matching
 * resumes after it. Earlier stars never need to be revisited, because the
 * last star can already absorb anything they could have.
 */
#include <stddef.h>

#include "lib/glob.h"

bool glob_match(const char *pattern, const char *name)
{
	const char *p = pattern, *n = name;
	const char *star = NULL;   /* pattern just after the last '*' */
	const char *resume = NULL; /* where that star's match ends in name */

	while (*n) {
		if (*p == '*') {
			star = ++p;
			resume = n;
		} else if (*p && (*p == '?' || *p == *n)) {
			p++;
			n++;
		} else if (star) {
			p = star;
			n = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}
