"""Unit tests of the screen and EFI-variable tools: tools/gen-font (the
font is complete, every glyph distinct, drivers/font8x16.c up to date),
tools/screen_text.py (reads back what a renderer draws with that font) and
tools/efivars (reassembles pieces from efivarfs files and from a variable
store, and says when one is missing)."""

import importlib.machinery
import importlib.util
import struct
import subprocess
import sys
import tempfile
import unittest
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import screen_text  # noqa: E402


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


gen_font = load("gen_font", ROOT / "tools" / "gen-font")
efivars = load("efivars", ROOT / "tools" / "efivars")


def render(rows, cols, scale=1, fg=(255, 255, 255), bg=(0, 0, 0)):
    """A PPM of text rows drawn as the kernel's fbcon draws them."""
    g = gen_font.glyphs()
    w, h = cols * 8 * scale, len(rows) * 16 * scale
    px = bytearray(bytes(bg) * (w * h))
    for r, text in enumerate(rows):
        for c, ch in enumerate(text):
            for y in range(16 * scale):
                bits = g[ch][y // scale]
                for x in range(8 * scale):
                    if bits & (0x80 >> (x // scale)):
                        o = ((r * 16 * scale + y) * w + c * 8 * scale + x) * 3
                        px[o:o + 3] = bytes(fg)
    return b"P6\n%d %d\n255\n" % (w, h) + bytes(px)


class Font(unittest.TestCase):
    def test_complete_and_distinct(self):
        g = gen_font.glyphs()
        self.assertEqual(len(g), 95)
        shapes = {}
        for ch, rows in g.items():
            self.assertEqual(len(rows), 16)
            self.assertEqual([r & 1 for r in rows], [0] * 16, f"{ch!r} uses column 7")
            self.assertEqual(rows[:2] + rows[14:], [0] * 4, f"{ch!r} uses the margins")
            self.assertNotIn(tuple(rows), shapes, f"{ch!r} looks like {shapes.get(tuple(rows))!r}")
            shapes[tuple(rows)] = ch

    def test_c_table_up_to_date(self):
        p = subprocess.run([str(ROOT / "tools" / "gen-font"), "--check",
                            str(ROOT / "drivers" / "font8x16.c")], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)


class ScreenText(unittest.TestCase):
    def test_reads_back(self):
        rows = ["  PASS   5 passed, 0 failed, 0 skipped", "",
                "".join(chr(c) for c in range(0x20, 0x7F))]
        for scale in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                shot = Path(tmp) / "s.ppm"
                shot.write_bytes(render(rows, 100, scale, fg=(85, 255, 85), bg=(0, 0, 170)))
                self.assertEqual(screen_text.screen_rows(shot), [r.rstrip() for r in rows])

    def test_not_a_ppm(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "x.ppm"
            bad.write_bytes(b"P3\n1 1\n255\n0 0 0\n")
            with self.assertRaises(ValueError):
                screen_text.screen_rows(bad)


def store_var(name, data, state=0x3F):
    """One variable as the firmware's variable store holds it."""
    wide = (name + "\0").encode("utf-16-le")
    head = efivars.AUTH_HEADER.pack(0x55AA, state, 0, 7, 0, bytes(16), 0, len(wide), len(data),
                                    efivars.GUID.bytes_le)
    raw = head + wide + data
    return raw + bytes(-len(raw) % 4)


class EfiVars(unittest.TestCase):
    LOG = b"".join(b"ok %d - test.%d\n" % (i, i) for i in range(400))

    def pieces(self, log, chunk=1000):
        out, k = {}, 0
        while k * chunk < len(log):
            end = len(log) - k * chunk
            out[f"BtslabLog{k:02}"] = log[max(0, end - chunk):end]
            k += 1
        out["BtslabLogInfo"] = b"btslab-log 1 chunks=%d bytes=%d\n" % (k, len(log))
        return out

    def test_store(self):
        blob = b"\xff" * 100
        for name, data in self.pieces(self.LOG).items():
            blob += store_var(name, data)
        blob += store_var("BtslabLog00", b"stale, deleted", state=0x3C)
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "VARS.fd"
            f.write_bytes(blob + b"\xff" * 100)
            variables = efivars.from_store(f)
        log, notes, complete = efivars.reassemble(variables)
        self.assertEqual(log, self.LOG)
        self.assertTrue(complete, notes)

    def test_efivarfs_and_missing_piece(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in self.pieces(self.LOG).items():
                (Path(tmp) / f"{name}-{efivars.GUID}").write_bytes(struct.pack("<I", 7) + data)
            (Path(tmp) / f"BtslabLog00-{uuid.uuid4()}").write_bytes(b"\0\0\0\0other vendor")
            variables = efivars.from_efivarfs(tmp)
            log, _, complete = efivars.reassemble(variables)
            self.assertEqual((log, complete), (self.LOG, True))
            (Path(tmp) / f"BtslabLog01-{efivars.GUID}").unlink()
            log, notes, complete = efivars.reassemble(efivars.from_efivarfs(tmp))
            self.assertFalse(complete)
            self.assertTrue(self.LOG.endswith(log))
            self.assertTrue(any("expected" in n for n in notes), notes)


if __name__ == "__main__":
    unittest.main()
