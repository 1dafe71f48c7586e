/*
 * The kernel's own symbol table, generated after a first link
 * (tools/gen-ksyms) and linked into .ksyms, so exception reports can name
 * the function a RIP is in.
 */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* Name of the function containing addr and the offset into it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);
/* "name+0xoff", or "?" when addr is in no known function. */
void ksym_format(uint64_t addr, char *buf, size_t len);
/* Number of symbols in the table. */
size_t ksym_count(void);
/* Address of a symbol by exact name, or 0. */
uint64_t ksym_address(const char *name);

#endif
