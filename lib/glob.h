/*
 * Shell-style name matching for selecting tests on the command line, e.g.
 * tests=apic.*,drain.cost.switch.*: '*' matches any run of characters (dots
 * included), '?' exactly one character, everything else itself. Case
 * matters. Time is O(len(pattern) * len(name)) at worst, stack is constant.
 */
#ifndef LIB_GLOB_H
#define LIB_GLOB_H

#include <stdbool.h>

/* Both strings are NUL-terminated and not NULL. */
bool glob_match(const char *pattern, const char *name);

#endif
