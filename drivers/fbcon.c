/*
 * Drawing character cells on a linear framebuffer (see drivers/fbcon.h)
 * with the built-in font (drivers/font8x16.c). Pixels of 16, 24 or 32
 * bits in any RGB layout the boot information describes; other kinds
 * (indexed colour) are refused and the screen falls back to VGA text.
 *
 * Large screens get the font scaled up by a whole factor, so the text
 * stays readable on a photo: at most MAX_COLS columns at scale 1.
 */
#include "drivers/fbcon.h"

#include "drivers/font8x16.h"
#include "drivers/screen.h"
#include "kernel/boot_info.h"
#include "kernel/paging.h"
#include "lib/format.h"

#define FB_TYPE_RGB 1
#define MAX_COLS    160
#define MAX_SCALE   4

static volatile uint8_t *fb_base;
static uint32_t fb_pitch, fb_width, fb_height;
static unsigned fb_bytes, fb_scale, fb_bpp;
static uint32_t palette[16];

/* The VGA palette, as 0xRRGGBB. */
static const uint32_t vga_rgb[16] = {
	0x000000, 0x0000AA, 0x00AA00, 0x00AAAA, 0xAA0000, 0xAA00AA,
	0xAA5500, 0xAAAAAA, 0x555555, 0x5555FF, 0x55FF55, 0x55FFFF,
	0xFF5555, 0xFF55FF, 0xFFFF55, 0xFFFFFF,
};

static uint32_t component(uint32_t v8, uint8_t pos, uint8_t size)
{
	return (v8 >> (8 - size)) << pos; /* size is at most 8 */
}

static void make_palette(const struct boot_info *bi)
{
	uint8_t rp = bi->fb.red_pos, rs = bi->fb.red_size;
	uint8_t gp = bi->fb.green_pos, gs = bi->fb.green_size;
	uint8_t bp = bi->fb.blue_pos, bs = bi->fb.blue_size;

	if (!rs || !gs || !bs) {
		/* Not described: the usual layouts. */
		if (fb_bpp == 16) {
			rp = 11, rs = 5, gp = 5, gs = 6, bp = 0, bs = 5;
		} else {
			rp = 16, rs = 8, gp = 8, gs = 8, bp = 0, bs = 8;
		}
	}
	if (rs > 8)
		rs = 8;
	if (gs > 8)
		gs = 8;
	if (bs > 8)
		bs = 8;
	for (unsigned i = 0; i < 16; i++)
		palette[i] = component(vga_rgb[i] >> 16 & 0xFF, rp, rs) |
			     component(vga_rgb[i] >> 8 & 0xFF, gp, gs) |
			     component(vga_rgb[i] & 0xFF, bp, bs);
}

static void put_px(volatile uint8_t *p, uint32_t v)
{
	switch (fb_bytes) {
	case 4:
		*(volatile uint32_t *)p = v;
		break;
	case 3:
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
		p[2] = (uint8_t)(v >> 16);
		break;
	default:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	}
}

static void fb_draw(unsigned row, unsigned col, uint8_t ch, uint8_t attr)
{
	const uint8_t *glyph;
	uint32_t fg = palette[attr & 0xF], bg = palette[attr >> 4];
	unsigned cw = FONT_WIDTH * fb_scale, chh = FONT_HEIGHT * fb_scale;
	volatile uint8_t *top =
		fb_base + (uint64_t)row * chh * fb_pitch + col * cw * fb_bytes;

	if (ch < FONT_FIRST || ch > FONT_LAST)
		ch = '?';
	glyph = font8x16[ch - FONT_FIRST];
	for (unsigned y = 0; y < chh; y++) {
		volatile uint8_t *p = top + (uint64_t)y * fb_pitch;
		uint8_t bits = glyph[y / fb_scale];

		for (unsigned x = 0; x < cw; x++, p += fb_bytes)
			put_px(p, bits & (0x80 >> (x / fb_scale)) ? fg : bg);
	}
}

static void fb_describe(char *buf, unsigned len)
{
	lib_snprintf(buf, len, "%ux%ux%u scale=%u", fb_width, fb_height, fb_bpp,
		     fb_scale);
}

static struct screen_backend fb_backend = {
	.name = "screen-fb",
	.draw = fb_draw,
	.describe = fb_describe,
};

/* Black everywhere, the margins the grid does not cover included. */
static void clear(void)
{
	for (uint32_t y = 0; y < fb_height; y++) {
		volatile uint8_t *p = fb_base + (uint64_t)y * fb_pitch;

		for (uint32_t x = 0; x < fb_width; x++, p += fb_bytes)
			put_px(p, palette[SC_BLACK]);
	}
}

const struct screen_backend *fbcon_probe(const struct boot_info *bi)
{
	uint64_t size;

	if (!bi->fb.present || bi->fb.type != FB_TYPE_RGB || !bi->fb.addr)
		return NULL;
	if (bi->fb.bpp != 16 && bi->fb.bpp != 24 && bi->fb.bpp != 32)
		return NULL;
	fb_bpp = bi->fb.bpp;
	fb_bytes = fb_bpp / 8;
	fb_pitch = bi->fb.pitch;
	fb_width = bi->fb.width;
	fb_height = bi->fb.height;
	if (fb_width < FONT_WIDTH || fb_height < FONT_HEIGHT ||
	    fb_pitch < fb_width * fb_bytes)
		return NULL;
	size = (uint64_t)fb_pitch * fb_height;
	if (!paging_map_device(bi->fb.addr, size))
		return NULL;
	fb_base = (volatile uint8_t *)bi->fb.addr;
	fb_scale = 1;
	while (fb_scale < MAX_SCALE &&
	       fb_width / (FONT_WIDTH * fb_scale) > MAX_COLS)
		fb_scale++;
	fb_backend.cols = fb_width / (FONT_WIDTH * fb_scale);
	fb_backend.rows = fb_height / (FONT_HEIGHT * fb_scale);
	make_palette(bi);
	clear();
	return &fb_backend;
}
