/*
 * VGA text memory (80x25 at 0xB8000 under a BIOS, or the EGA text mode a
 * multiboot2 loader reports) as a screen backend (drivers/screen.h).
 */
#ifndef DRIVERS_VGATEXT_H
#define DRIVERS_VGATEXT_H

struct boot_info;
struct screen_backend;

/* The backend for VGA text memory, or NULL if nothing answers there. */
const struct screen_backend *vgatext_probe(const struct boot_info *bi);

#endif
