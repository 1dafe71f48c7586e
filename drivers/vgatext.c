/*
 * VGA text memory as a screen backend (see drivers/vgatext.h): one 16-bit
 * cell per character, the character in the low byte and the attribute in
 * the high byte, as the screen grid keeps them. The hardware cursor is
 * switched off; it would blink somewhere meaningless.
 *
 * Under a BIOS with no framebuffer from the loader, the BIOS left 80x25
 * text mode at 0xB8000. A machine without a VGA has nothing there (reads
 * return all ones): a cell that does not keep what was written means no
 * screen. Under UEFI there is no text mode to fall back to.
 */
#include "drivers/vgatext.h"

#include "drivers/screen.h"
#include "kernel/arch.h"
#include "kernel/boot_info.h"
#include "lib/format.h"

#define VGA_TEXT_ADDR 0xB8000
#define VGA_COLS      80
#define VGA_ROWS      25
#define FB_TYPE_EGA   2

#define CRTC_INDEX	0x3D4
#define CRTC_DATA	0x3D5
#define CRTC_CURSOR_TOP 0x0A
#define CURSOR_OFF	0x20

static volatile uint16_t *vram;
static unsigned vga_cols;

static void vga_draw(unsigned row, unsigned col, uint8_t ch, uint8_t attr)
{
	if (ch < 0x20 || ch > 0x7E)
		ch = '?';
	vram[row * vga_cols + col] = (uint16_t)(ch | attr << 8);
}

static struct screen_backend vga_backend;

static void vga_describe(char *buf, unsigned len)
{
	lib_snprintf(buf, len, "text %ux%u at 0x%lx", vga_backend.cols,
		     vga_backend.rows, (uint64_t)vram);
}

static struct screen_backend vga_backend = {
	.name = "screen-vga",
	.draw = vga_draw,
	.describe = vga_describe,
};

const struct screen_backend *vgatext_probe(const struct boot_info *bi)
{
	uint16_t old;

	if (bi->fb.present && bi->fb.type == FB_TYPE_EGA && bi->fb.addr &&
	    bi->fb.addr + bi->fb.width * bi->fb.height * 2 <= 0x100000) {
		vram = (volatile uint16_t *)bi->fb.addr;
		vga_backend.cols = bi->fb.width;
		vga_backend.rows = bi->fb.height;
	} else if (!bi->fb.present && bi->firmware == FIRMWARE_BIOS) {
		vram = (volatile uint16_t *)VGA_TEXT_ADDR;
		vga_backend.cols = VGA_COLS;
		vga_backend.rows = VGA_ROWS;
	} else {
		return NULL;
	}
	old = vram[0];
	vram[0] = 0x1E5A;
	if (vram[0] != 0x1E5A)
		return NULL;
	vram[0] = old;
	vga_cols = vga_backend.cols;
	outb(CRTC_INDEX, CRTC_CURSOR_TOP);
	outb(CRTC_DATA, CURSOR_OFF);
	return &vga_backend;
}
