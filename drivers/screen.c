/*
 * The screen console (see drivers/screen.h). Two copies of the grid:
 * text[] is what should be on the screen, shown[] what the backend has
 * drawn; flush() draws the cells where they differ. A new character is
 * drawn at once. At the bottom the grid jumps up by a quarter of its
 * height, so a full redraw happens every rows/4 lines rather than every
 * line: framebuffers are mapped uncacheable and VGA text memory is an
 * emulated device under a hypervisor, so every drawn cell counts.
 *
 * Each log line is also kept whole, to colour it by its TAP verdict and
 * to feed lib/logsum.c, whose facts the summary screen shows.
 */
#include "drivers/screen.h"

#include "drivers/fbcon.h"
#include "drivers/vgatext.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "lib/string.h"

#define MAX_COLS  256
#define MAX_ROWS  128
#define LINE_MAX  512
#define TAB	  8
#define NOT_SHOWN 0xFFFF /* never a real cell: forces a draw */

#define ATTR_LOG  SCREEN_ATTR(SC_GREY, SC_BLACK)
#define ATTR_OK	  SCREEN_ATTR(SC_LIGHT_GREEN, SC_BLACK)
#define ATTR_SKIP SCREEN_ATTR(SC_YELLOW, SC_BLACK)
#define ATTR_FAIL SCREEN_ATTR(SC_LIGHT_RED, SC_BLACK)

static const struct screen_backend *be;
static unsigned cols, rows, cur_row, cur_col;
static uint16_t text[MAX_ROWS * MAX_COLS];  /* ch | attr << 8 */
static uint16_t shown[MAX_ROWS * MAX_COLS]; /* what the backend drew */
static bool taken;			    /* the summary owns the grid */

/* The log line being written: its text, first cell and colour. */
static char line[LINE_MAX];
static size_t line_len;
static unsigned line_start; /* cell index; moves up with scrolling */
static uint8_t line_attr = ATTR_LOG;
static bool line_decided;
static struct logsum facts;

static void draw_cell(unsigned i)
{
	if (shown[i] == text[i])
		return;
	shown[i] = text[i];
	be->draw(i / cols, i % cols, (uint8_t)text[i], (uint8_t)(text[i] >> 8));
}

static void flush(void)
{
	for (unsigned i = 0; i < rows * cols; i++)
		draw_cell(i);
}

static void blank(unsigned from, unsigned to, uint8_t attr)
{
	for (unsigned i = from; i < to; i++)
		text[i] = (uint16_t)(' ' | attr << 8);
}

static void scroll(void)
{
	unsigned n = rows / 4 ? rows / 4 : 1, keep = (rows - n) * cols;

	memmove(text, text + n * cols, keep * sizeof(text[0]));
	blank(keep, rows * cols, ATTR_LOG);
	line_start = line_start >= n * cols ? line_start - n * cols : 0;
	cur_row -= n;
	flush();
}

static void new_row(void)
{
	cur_col = 0;
	if (++cur_row == rows)
		scroll();
}

/* Give the current line's cells, so far, the colour attr. */
static void recolor(uint8_t attr)
{
	unsigned end = cur_row * cols + cur_col;

	line_attr = attr;
	for (unsigned i = line_start; i < end; i++) {
		text[i] = (uint16_t)((text[i] & 0xFF) | attr << 8);
		draw_cell(i);
	}
}

static bool has_prefix(const char *prefix)
{
	size_t k = strlen(prefix);

	return line_len >= k ? !memcmp(line, prefix, k)
			     : !memcmp(line, prefix, line_len);
}

/* A line's colour is known once its first characters are. */
static void decide_color(void)
{
	static const struct {
		const char *prefix;
		uint8_t attr;
	} kinds[] = {
		{ "ok ", ATTR_OK },
		{ "not ok ", ATTR_FAIL },
		{ "Bail out!", ATTR_FAIL },
	};
	bool open = false;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (!has_prefix(kinds[k].prefix))
			continue;
		if (line_len >= strlen(kinds[k].prefix)) {
			line_decided = true;
			recolor(kinds[k].attr);
			return;
		}
		open = true;
	}
	line_decided = !open;
}

static void end_line(void)
{
	if (line_attr == ATTR_OK) {
		for (size_t i = 0; i + 7 <= line_len; i++)
			if (!memcmp(line + i, " # SKIP", 7)) {
				recolor(ATTR_SKIP);
				break;
			}
	}
	logsum_line(&facts, line, line_len);
	line_len = 0;
	line_attr = ATTR_LOG;
	line_decided = false;
	new_row();
	line_start = cur_row * cols;
}

static void put_cell(char ch)
{
	unsigned i;

	if (cur_col == cols)
		new_row();
	i = cur_row * cols + cur_col++;
	text[i] = (uint16_t)((uint8_t)ch | line_attr << 8);
	draw_cell(i);
}

static void put(char ch)
{
	if (ch == '\n') {
		end_line();
		return;
	}
	if (ch == '\r')
		return;
	if (line_len < LINE_MAX)
		line[line_len++] = ch;
	if (!line_decided)
		decide_color();
	if (ch == '\t') {
		do
			put_cell(' ');
		while (cur_col % TAB && cur_col < cols);
		return;
	}
	put_cell(ch);
}

static void screen_write(const char *s, size_t n)
{
	if (taken) {
		/* Still collected: a line printed after the summary counts. */
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '\n') {
				logsum_line(&facts, line, line_len);
				line_len = 0;
			} else if (line_len < LINE_MAX) {
				line[line_len++] = s[i];
			}
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		put(s[i]);
}

static struct console screen_console = {
	.write = screen_write,
};

bool screen_init(const struct boot_info *bi)
{
	be = fbcon_probe(bi);
	if (!be)
		be = vgatext_probe(bi);
	if (!be)
		return false;
	cols = be->cols < MAX_COLS ? be->cols : MAX_COLS;
	rows = be->rows < MAX_ROWS ? be->rows : MAX_ROWS;
	logsum_init(&facts);
	blank(0, rows * cols, ATTR_LOG);
	for (unsigned i = 0; i < rows * cols; i++)
		shown[i] = NOT_SHOWN;
	flush();
	screen_console.name = be->name;
	console_register(&screen_console);
	return true;
}

bool screen_present(void)
{
	return be != NULL;
}

unsigned screen_cols(void)
{
	return cols;
}

unsigned screen_rows(void)
{
	return rows;
}

void screen_describe(char *buf, unsigned len)
{
	if (!len)
		return;
	buf[0] = 0;
	if (be)
		be->describe(buf, len);
}

void screen_take(uint8_t attr)
{
	if (!be)
		return;
	taken = true;
	blank(0, rows * cols, attr);
	flush();
}

void screen_resume(void)
{
	if (!be || !taken)
		return;
	taken = false;
	blank(0, rows * cols, ATTR_LOG);
	cur_row = cur_col = 0;
	line_start = 0;
	flush();
}

void screen_text(unsigned row, unsigned col, uint8_t attr, const char *s)
{
	if (!be || row >= rows)
		return;
	for (; *s && col < cols; s++, col++) {
		unsigned i = row * cols + col;

		text[i] = (uint16_t)((uint8_t)*s | attr << 8);
		draw_cell(i);
	}
}

char screen_char_at(unsigned row, unsigned col)
{
	if (!be || row >= rows || col >= cols)
		return 0;
	return (char)(text[row * cols + col] & 0xFF);
}

const struct logsum *screen_log_facts(void)
{
	return &facts;
}
