/*
 * The screen console: a grid of character cells that shows the same log
 * as the serial port, on a linear framebuffer (drivers/fbcon.c) or in VGA
 * text memory (drivers/vgatext.c), whichever the boot left. The grid keeps
 * a copy of what it shows, so scrolling redraws only the cells that
 * change, and the summary screen (kernel/summary.c) can write anywhere.
 */
#ifndef DRIVERS_SCREEN_H
#define DRIVERS_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/logsum.h"

struct boot_info;

/* The 16 colours of the VGA text palette. */
enum screen_color {
	SC_BLACK,
	SC_BLUE,
	SC_GREEN,
	SC_CYAN,
	SC_RED,
	SC_MAGENTA,
	SC_BROWN,
	SC_GREY,
	SC_DARK_GREY,
	SC_LIGHT_BLUE,
	SC_LIGHT_GREEN,
	SC_LIGHT_CYAN,
	SC_LIGHT_RED,
	SC_LIGHT_MAGENTA,
	SC_YELLOW,
	SC_WHITE,
};

/* A cell attribute as in VGA text memory: background high, foreground low. */
#define SCREEN_ATTR(fg, bg) ((uint8_t)((bg) << 4 | (fg)))

/* What a display offers the grid. */
struct screen_backend {
	const char *name; /* the console's name in the log header */
	unsigned cols, rows;
	/* Draw one cell; ch is printable ASCII (others are drawn as '?'). */
	void (*draw)(unsigned row, unsigned col, uint8_t ch, uint8_t attr);
	/* Describe the display for the log ("1024x768x32 scale=1 ..."). */
	void (*describe)(char *buf, unsigned len);
};

/*
 * Find a display from the boot information (framebuffer first, then VGA
 * text under BIOS), clear it and register the console. False: no screen.
 */
bool screen_init(const struct boot_info *bi);
bool screen_present(void);
unsigned screen_cols(void);
unsigned screen_rows(void);
void screen_describe(char *buf, unsigned len);

/* Blank the grid in attr; the log stops drawing until screen_resume(). */
void screen_take(uint8_t attr);
void screen_resume(void);
/* Text at a cell, clipped at the right edge; no scrolling. */
void screen_text(unsigned row, unsigned col, uint8_t attr, const char *s);
/* The character shown in a cell (0 outside the grid). */
char screen_char_at(unsigned row, unsigned col);

/* What the log said so far (header facts, failures, metrics). */
const struct logsum *screen_log_facts(void);

#endif
