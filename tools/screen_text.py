#!/usr/bin/env python3
"""screen_text: read the text back from a screenshot of btslab's screen.

    tools/screen_text.py SHOT.ppm      print the text rows

The screen console draws the built-in font (tools/gen-font) in 8x16 cells
from the top left corner, scaled by a whole factor on large screens. Every
cell's pixels that differ from its top left pixel (glyph rows 0 and 1 are
always blank, so that one is the background) form a bit pattern that is
looked up among the glyphs: the pixels must match exactly, so a text read
back is the text drawn. A cell that matches no glyph reads as '\\x00'.
QEMU's `screendump` writes binary PPM (P6).
"""

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CELL_W, CELL_H = 8, 16


def _font():
    loader = importlib.machinery.SourceFileLoader("gen_font", str(ROOT / "tools" / "gen-font"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("gen_font", loader))
    loader.exec_module(module)
    return {tuple(rows): ch for ch, rows in module.glyphs().items()}


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM."""
    data = Path(path).read_bytes()
    fields, i = [], 0
    while len(fields) < 4:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            i = data.index(b"\n", i)
            continue
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        fields.append(data[i:j])
        i = j
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"{path}: not a binary PPM with 8-bit channels")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[i + 1:i + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError(f"{path}: short pixel data")
    return width, height, pixels


def screen_rows(path, scale=None):
    """The text rows of a screenshot; scale None tries 1 to 4 and keeps the
    one that reads the most glyphs."""
    width, height, px = read_ppm(path)
    glyphs = _font()
    best = None
    for s in ([scale] if scale else [1, 2, 3, 4]):
        rows = _read(width, height, px, glyphs, s)
        known = sum(ch not in "\0 " for row in rows for ch in row)
        if best is None or known > best[0]:
            best = (known, rows)
    return best[1]


def _read(width, height, px, glyphs, s):
    cw, ch = CELL_W * s, CELL_H * s
    rows = []
    for r in range(height // ch):
        text = []
        for c in range(width // cw):
            x0, y0 = c * cw, r * ch
            bg = px[(y0 * width + x0) * 3:(y0 * width + x0) * 3 + 3]
            bits = []
            for gy in range(CELL_H):
                y = y0 + gy * s
                line = 0
                for gx in range(CELL_W):
                    o = (y * width + x0 + gx * s) * 3
                    if px[o:o + 3] != bg:
                        line |= 0x80 >> gx
                bits.append(line)
            text.append(glyphs.get(tuple(bits), "\0"))
        rows.append("".join(text).rstrip())
    return rows


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    for row in screen_rows(argv[0]):
        print(row.replace("\0", "?"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
