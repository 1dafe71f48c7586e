/*
 * Memory and string functions for the freestanding kernel.
 *
 * In the kernel these are the only implementations (gcc also emits calls to
 * memcpy, memset and memmove on its own). On the host (BTSLAB_HOST) this
 * header is just libc's <string.h>, and lib/string.c builds the same code
 * under the names lib_memcpy, lib_strlen, ... so that unit tests and fuzzers
 * can check it against libc without replacing libc.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>

#ifdef BTSLAB_HOST
#include <string.h>
#define LIB_STRING_NAME(f) lib_##f
#else
#define LIB_STRING_NAME(f) f
#endif

void *LIB_STRING_NAME(memcpy)(void *restrict dst, const void *restrict src,
			      size_t n);
void *LIB_STRING_NAME(memmove)(void *dst, const void *src, size_t n);
void *LIB_STRING_NAME(memset)(void *dst, int c, size_t n);
int LIB_STRING_NAME(memcmp)(const void *a, const void *b, size_t n);
size_t LIB_STRING_NAME(strlen)(const char *s);
size_t LIB_STRING_NAME(strnlen)(const char *s, size_t max);
int LIB_STRING_NAME(strcmp)(const char *a, const char *b);
int LIB_STRING_NAME(strncmp)(const char *a, const char *b, size_t n);
char *LIB_STRING_NAME(strchr)(const char *s, int c);
char *LIB_STRING_NAME(strrchr)(const char *s, int c);

#endif
