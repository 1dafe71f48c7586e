/*
 * Memory and string functions (see lib/string.h for the two build modes).
 *
 * Copies and fills use "rep movsb" / "rep stosb": on CPUs with ERMSB (Ivy
 * Bridge and later) the microcode moves whole cache lines, as fast as any
 * vector loop, and it needs no SSE state in the kernel. The direction flag
 * is never set here: an NMI arriving in the middle must find it clear.
 */
#include <stdint.h>

#include "lib/string.h"

void *LIB_STRING_NAME(memcpy)(void *restrict dst, const void *restrict src,
			      size_t n)
{
	void *ret = dst;

	__asm__ volatile("rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(n)
			 :
			 : "memory");
	return ret;
}

void *LIB_STRING_NAME(memmove)(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* A forward copy is safe unless dst starts inside [src, src + n). */
	if ((uintptr_t)d - (uintptr_t)s >= n) {
		__asm__ volatile("rep movsb"
				 : "+D"(d), "+S"(s), "+c"(n)
				 :
				 : "memory");
		return dst;
	}
	/* Overlapping with dst above src: copy backwards, a word at a time. */
	while (n >= sizeof(uint64_t)) {
		uint64_t w;

		n -= sizeof(w);
		__builtin_memcpy(&w, s + n, sizeof(w));
		__builtin_memcpy(d + n, &w, sizeof(w));
	}
	while (n--)
		d[n] = s[n];
	return dst;
}

void *LIB_STRING_NAME(memset)(void *dst, int c, size_t n)
{
	void *ret = dst;

	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
	return ret;
}

int LIB_STRING_NAME(memcmp)(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
	}
	return 0;
}

size_t LIB_STRING_NAME(strlen)(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

size_t LIB_STRING_NAME(strnlen)(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int LIB_STRING_NAME(strcmp)(const char *a, const char *b)
{
	return LIB_STRING_NAME(strncmp)(a, b, SIZE_MAX);
}

int LIB_STRING_NAME(strncmp)(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; n; n--, x++, y++) {
		if (*x != *y || !*x)
			return *x - *y;
	}
	return 0;
}

char *LIB_STRING_NAME(strchr)(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *LIB_STRING_NAME(strrchr)(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}
