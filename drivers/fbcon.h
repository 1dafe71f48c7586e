/*
 * A linear RGB framebuffer as a screen backend (drivers/screen.h): from
 * the multiboot2 framebuffer tag under GRUB or the GOP under EFI.
 */
#ifndef DRIVERS_FBCON_H
#define DRIVERS_FBCON_H

struct boot_info;
struct screen_backend;

/* The backend for the boot framebuffer, or NULL if there is none usable. */
const struct screen_backend *fbcon_probe(const struct boot_info *bi);

#endif
