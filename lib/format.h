/*
 * printf-style formatting without floating point, for the kernel's console
 * and serial output and for building log lines in buffers.
 *
 * Conversions: d i u x X o c s p %. Flags: - 0 + space #. Width and
 * precision, also as '*'. Length modifiers: hh h l ll z j t. As in C, except:
 * %p is always "0x" and 16 hex digits; %s of NULL is "(null)" (cut by the
 * precision like any string); %n and anything unknown is printed literally.
 */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Format into put(ctx, c), one character at a time. Returns the number of
 * characters emitted, or -1 if that number does not fit in an int.
 */
int lib_vcbprintf(void (*put)(void *ctx, char c), void *ctx, const char *fmt,
		  va_list ap) __attribute__((format(printf, 3, 0)));

/*
 * C99 snprintf: write at most n - 1 characters and a NUL to buf (nothing when
 * n is 0; buf may then be NULL). Returns the length the whole output would
 * have, so a return value >= n means it was cut.
 */
int lib_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int lib_snprintf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
