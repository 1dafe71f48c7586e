"""Unit tests of tools/bts-decode, the BTS record symbolizer."""

import importlib.machinery
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "bts-decode"
_loader = importlib.machinery.SourceFileLoader("bts_decode", str(TOOL))
bd = importlib.util.module_from_spec(importlib.util.spec_from_loader("bts_decode", _loader))
_loader.exec_module(bd)

LOG = """\
TAP version 13
# btslab 0.1.0 (git abc1234) boot=multiboot1 firmware=bios
# bts hw=unavailable reason="CPUID.1:EDX[21]=0 (no Debug Store)"
# seed=1 symbols=2
1..1
# bts 0x0000000000401000 0x0000000000401010 0x0
# bts 0x0000000000401010 0x0000000000401000 0x1
ok 1 - bts.records.model
# btslab done: 1 passed, 0 failed, 0 skipped
"""


def run_tool(*args, stdin=None, env=None):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], input=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


class Parse(unittest.TestCase):
    def records(self, text):
        return bd.parse_log(text).records

    def test_good_lines(self):
        recs = bd.parse_log(LOG)
        self.assertEqual(recs.records, [(0x401000, 0x401010, 0), (0x401010, 0x401000, 1)])
        self.assertEqual(recs.malformed, [])     # the '# bts hw=' header is no record
        self.assertEqual(recs.log_symbols, 2)

    def test_crlf_lone_cr_nul_and_ansi(self):
        text = ("# bts 0x1 0x2 0x0\r\n\x00# bts 0x3 0x4 0x0\r# bts 0x5 0x6 0x0\n"
                "\x1b[0m# bts 0x7 0x8 0x0   \n")
        self.assertEqual(self.records(text), [(1, 2, 0), (3, 4, 0), (5, 6, 0), (7, 8, 0)])
        self.assertEqual(self.records(text.encode()), self.records(text))

    def test_uppercase_hex(self):
        self.assertEqual(self.records("# bts 0X00000000001ABCDE 0xffffFFFF00000000 0X1F\n"),
                         [(0x1ABCDE, 0xFFFFFFFF00000000, 0x1F)])

    def test_noise_before_the_record_on_its_line(self):
        # A record cut short, then the next one on the same line.
        text = "ok 1 - x\n# bts 0x0000000000401# bts 0x10 0x20 0x0\nGRUB junk # bts 0x30 0x40 0x0\n"
        recs = bd.parse_log(text)
        self.assertEqual(recs.records, [(0x10, 0x20, 0), (0x30, 0x40, 0)])
        self.assertEqual(recs.malformed, [])

    def test_garbled_and_short_lines_are_skipped(self):
        text = ("# bts 0x0000000000401000 0x000000000040\ufffd010 0x0\n"   # garbled
                "# bts 0x0000000000401000 0x0000000000401010\n"           # no flags
                "# bts 0x0000000000401000\n"
                "# bts 0x0000000000401000 0x0000000000401010 0x0 extra\n"
                "# bts 0x10000000000000000 0x1 0x0\n"                      # > 64 bits
                "# bts 0x 0x1 0x0\n"
                "# bts 0x1 0x2 0x3\n")
        recs = bd.parse_log(text)
        self.assertEqual(recs.records, [(1, 2, 3)])
        self.assertEqual([n for n, _ in recs.malformed], [1, 2, 3, 4, 5, 6])

    def test_cut_last_line_is_not_read(self):
        # "0x1" could be the start of "0x10": an unterminated line is not trusted.
        recs = bd.parse_log("# bts 0x1 0x2 0x0\n# bts 0x3 0x4 0x1")
        self.assertEqual(recs.records, [(1, 2, 0)])
        self.assertEqual(recs.cut_line, "# bts 0x3 0x4 0x1")
        self.assertEqual(len(recs.malformed), 1)

    def test_nothing(self):
        for text in ("", b"\x00\xff\xfe", "# bts hw=available\n", "bts 0x1 0x2 0x0\n"):
            self.assertEqual(self.records(text), [], text)


NM = """\
0000000000000008 a CHAIN
0000000000400000 R __kernel_start
0000000000401000 T __text_start
0000000000401000 0000000000000010 T alpha
0000000000401010 0000000000000020 t beta
0000000000401030 T stub
0000000000401030 t stub.j0
0000000000401034 t stub.j1
0000000000401038 t .Lhidden
0000000000401040 t lonely
0000000000401050 T __text_end
0000000000402000 0000000000000008 r table
0000000000402100 0000000000000040 T outer
0000000000402110 t outer.label
0000000000403000 d data
"""


class Symbolize(unittest.TestCase):
    def setUp(self):
        self.syms = bd.Symbols(NM, sections=[(0x401000, 0x401060), (0x402000, 0x402200)])

    def test_sized_functions(self):
        s = self.syms
        self.assertEqual(s.lookup(0x401000), ("alpha", 0))
        self.assertEqual(s.lookup(0x40100F), ("alpha", 0xF))
        self.assertEqual(s.lookup(0x401010), ("beta", 0))
        self.assertEqual(s.lookup(0x40102F), ("beta", 0x1F))

    def test_sizeless_ends_at_the_next_symbol(self):
        s = self.syms
        self.assertEqual(s.lookup(0x401030), ("stub", 0))      # global beats label
        self.assertEqual(s.lookup(0x401033), ("stub", 3))
        self.assertEqual(s.lookup(0x401034), ("stub.j1", 0))
        # .Lhidden is no function but ends stub.j1; lonely ends at __text_end.
        self.assertIsNone(s.lookup(0x401038))
        self.assertEqual(s.lookup(0x40104F), ("lonely", 0xF))
        self.assertIsNone(s.lookup(0x401050))                  # __text_end: a marker

    def test_label_inside_a_sized_function(self):
        self.assertEqual(self.syms.lookup(0x402110), ("outer.label", 0))
        self.assertEqual(self.syms.lookup(0x40213F), ("outer.label", 0x2F))
        self.assertIsNone(self.syms.lookup(0x402140))

    def test_outside(self):
        for addr in (0, 0x8, 0x400000, 0x402000, 0x403000, 2**64 - 1):
            self.assertIsNone(self.syms.lookup(addr), hex(addr))

    def test_count_like_the_kernel_table(self):
        # alpha beta stub stub.j0 stub.j1 lonely outer outer.label
        self.assertEqual(self.syms.count, 8)

    def test_last_sizeless_symbol_without_sections(self):
        s = bd.Symbols("0000000000001000 T only\n")
        self.assertEqual(s.lookup(0x1000), ("only", 0))
        self.assertIsNone(s.lookup(0x1001))

    def test_decode_output(self):
        recs = bd.parse_log("# bts 0x401004 0x40101a 0x0\n# bts 0x401030 0x400000 0x2\n")
        out = io.StringIO()
        self.assertEqual(bd.decode(recs, self.syms, out), 1)
        self.assertEqual(out.getvalue().splitlines(), [
            "0x0000000000401004 alpha+0x4 -> 0x000000000040101a beta+0xa flags=0x0",
            "0x0000000000401030 stub+0x0 -> 0x0000000000400000 ? flags=0x2",
            "# records=2 symbolized=1 outside=1 interrupts=0 malformed=0",
            "# outside 0x400000",
        ])

    def test_pseudo_records_and_lost_markers(self):
        enter = 1 << 62 | 3 << 16 | 1 << 8     # entered kernel, syscall
        enter_irq = 1 << 62 | 3 << 16 | 3 << 8
        exit_ = 1 << 62 | 4 << 16
        lost = 1 << 63 | 1 << 8                # ring_full
        recs = bd.parse_log(f"# bts 0x401004 0x0 0x{enter:x}\n"
                            f"# bts 0x0 0x401010 0x{enter_irq:x}\n"
                            f"# bts 0x0 0x40101a 0x{exit_:x}\n"
                            f"# bts 0x401030 0x0 0x{exit_:x}\n"
                            f"# bts 0x0 0xc 0x{lost:x}\n"
                            f"# bts 0x400000 0x0 0x{exit_:x}\n")
        out = io.StringIO()
        self.assertEqual(bd.decode(recs, self.syms, out), 1)
        self.assertEqual(out.getvalue().splitlines(), [
            f"0x0000000000401004 alpha+0x4 -> (kernel) flags=0x{enter:x} entered kernel (syscall)",
            f"(user) -> 0x0000000000401010 beta+0x0 flags=0x{enter_irq:x} "
            "entered kernel (interrupt)",
            f"(kernel) -> 0x000000000040101a beta+0xa flags=0x{exit_:x} returned to user",
            f"0x0000000000401030 stub+0x0 -> (user) flags=0x{exit_:x} returned to user",
            f"lost 12 records (ring_full) flags=0x{lost:x}",
            f"0x0000000000400000 ? -> (user) flags=0x{exit_:x} returned to user",
            "# records=6 symbolized=4 outside=1 interrupts=0 malformed=0 "
            "entries=2 exits=3 lost_markers=1",
            "# outside 0x400000",
        ])

    def test_markers(self):
        m = bd.marker
        self.assertEqual(m(1, 2, 0x10), ("branch",))
        self.assertEqual(m(1, 0, 1 << 62 | 3 << 16 | 2 << 8), ("enter", "exception"))
        self.assertEqual(m(1, 0, 1 << 62 | 3 << 16), ("enter", "unknown"))
        self.assertEqual(m(0, 1, 1 << 62 | 4 << 16), ("exit",))
        self.assertEqual(m(0, 5, 1 << 63 | 3 << 8), ("lost", "stopped"))
        self.assertEqual(m(0, 5, 1 << 63), ("lost", "no_spare"))
        for bad in (1 << 62 | 5 << 16,                 # no such type
                    1 << 62 | 2 << 16,                 # a lost type, not a mode
                    1 << 62 | 3 << 16 | 4 << 8,        # no such kind
                    1 << 62 | 3 << 16 | 0x10,          # predicted bit
                    1 << 62 | 3 << 16 | 1 << 40,       # stray bit
                    1 << 63 | 4 << 8,                  # no such cause
                    1 << 63 | 1 << 62 | 3 << 16):      # both
            self.assertEqual(m(0, 1, bad), ("bad",), hex(bad))
        self.assertEqual(m(1, 5, 1 << 63), ("bad",))    # a lost marker has from = 0

    def test_unknown_marker_is_shown_as_a_branch(self):
        recs = bd.parse_log(f"# bts 0x401004 0x401010 0x{1 << 62 | 9 << 16:x}\n")
        out = io.StringIO()
        self.assertEqual(bd.decode(recs, self.syms, out), 0)
        self.assertEqual(out.getvalue().splitlines()[0],
                         "0x0000000000401004 alpha+0x4 -> 0x0000000000401010 beta+0x0 "
                         f"flags=0x{1 << 62 | 9 << 16:x} (unknown btslab marker)")


C_SOURCE = """\
int counter;

__attribute__((noinline)) int alpha(int x)
{
	counter += x;
	return counter * 3;
}

__attribute__((noinline)) int beta(int x)
{
	return alpha(x + 1) + alpha(x - 1);
}
"""


class Elf(unittest.TestCase):
    """bts-decode against a small ELF built here."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.elf = cls.dir / "two.elf"
        cls.build_error = None
        gcc = shutil.which("gcc")
        if not gcc:
            cls.build_error = "gcc not found"
            return
        (cls.dir / "two.c").write_text(C_SOURCE)
        cc = subprocess.run([gcc, "-O1", "-ffreestanding", "-nostdlib", "-static", "-no-pie",
                             "-fno-asynchronous-unwind-tables", "-Wl,-e,beta",
                             "-o", str(cls.elf), str(cls.dir / "two.c")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if cc.returncode:
            raise AssertionError(f"gcc failed: {cc.stdout}")
        cls.addr = {}
        nm = subprocess.run(["nm", "-S", "--defined-only", str(cls.elf)],
                            stdout=subprocess.PIPE, text=True, check=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 4:
                cls.addr[parts[3]] = (int(parts[0], 16), int(parts[1], 16))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        if self.build_error:
            self.skipTest(self.build_error)

    def log(self, *records, name="run.log", symbols=None):
        text = "TAP version 13\n# btslab 0.1.0 (git abc) boot=multiboot1 firmware=bios\n"
        if symbols is not None:
            text += f"# seed=1 symbols={symbols}\n"
        text += "1..1\n" + "".join(f"# bts 0x{a:016x} 0x{b:016x} 0x{f:x}\n"
                                   for a, b, f in records)
        path = self.dir / name
        path.write_bytes(text.replace("\n", "\r\n").encode())
        return path

    def test_symbolizes_from_and_to(self):
        a, a_size = self.addr["alpha"]
        b, b_size = self.addr["beta"]
        log = self.log((b + 4, a, 0), (a + a_size - 1, b + 9, 0x10), symbols=2)
        r = run_tool("--strict", "--elf", self.elf, log)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(r.stdout.splitlines(), [
            f"0x{b + 4:016x} beta+0x4 -> 0x{a:016x} alpha+0x0 flags=0x0",
            f"0x{a + a_size - 1:016x} alpha+0x{a_size - 1:x} -> 0x{b + 9:016x} beta+0x9 "
            "flags=0x10",
            "# records=2 symbolized=2 outside=0 interrupts=0 malformed=0",
        ])

    def test_agrees_with_addr2line(self):
        a, a_size = self.addr["alpha"]
        b, b_size = self.addr["beta"]
        addrs = [a, a + a_size - 1, b, b + b_size - 1]
        syms = bd.load_symbols(self.elf)
        a2l = subprocess.run(["addr2line", "-f", "-e", str(self.elf)] + [hex(x) for x in addrs],
                             stdout=subprocess.PIPE, text=True, check=True).stdout.split("\n")
        self.assertEqual([syms.lookup(x)[0] for x in addrs], a2l[0:8:2])

    def test_strict_fails_on_an_address_outside(self):
        a, _ = self.addr["alpha"]
        log = self.log((a, 0x10, 0), (0x20, a, 0))
        r = run_tool("--elf", self.elf, log)
        self.assertEqual(r.returncode, 0)
        self.assertIn(f"0x{a:016x} alpha+0x0 -> 0x0000000000000010 ? flags=0x0", r.stdout)
        self.assertIn("# records=2 symbolized=0 outside=2", r.stdout)
        self.assertIn("# outside 0x10 0x20", r.stdout)
        r = run_tool("--strict", "--elf", self.elf, log)
        self.assertEqual(r.returncode, 1)

    def test_stdin(self):
        a, _ = self.addr["alpha"]
        text = self.log((a, a + 1, 0)).read_text()
        for args in (["-"], []):
            r = run_tool("--elf", self.elf, *args, stdin=text)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("alpha+0x1", r.stdout)

    def test_warns_when_the_log_is_from_another_build(self):
        a, _ = self.addr["alpha"]
        r = run_tool("--elf", self.elf, self.log((a, a, 0), symbols=3))
        self.assertEqual(r.returncode, 0)
        self.assertIn("symbols=3", r.stderr)
        self.assertIn("another build", r.stderr)

    def assertError(self, r, *words):
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("bts-decode: "), r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)
        self.assertEqual(r.stdout, "")

    def test_errors(self):
        a, _ = self.addr["alpha"]
        good = self.log((a, a, 0))
        empty = self.dir / "empty.log"
        empty.write_text(LOG.replace("# bts 0x", "# note 0x"))
        garbage = self.dir / "garbage"
        garbage.write_bytes(bytes(range(256)) * 4)
        truncated = self.dir / "truncated.elf"
        truncated.write_bytes(self.elf.read_bytes()[:40])
        self.assertError(run_tool("--elf", self.elf, self.dir / "missing.log"),
                         "missing.log", "No such file")
        self.assertError(run_tool("--elf", self.elf, self.dir), "Is a directory")
        self.assertError(run_tool("--elf", self.elf, empty), "no '# bts")
        self.assertError(run_tool("--elf", self.elf, garbage), "no '# bts")
        self.assertError(run_tool("--elf", self.dir / "missing.elf", good), "missing.elf")
        self.assertError(run_tool("--elf", good, good), "not an ELF")
        self.assertError(run_tool("--elf", truncated, good), "truncated")

    def test_nm_missing(self):
        a, _ = self.addr["alpha"]
        empty_path = self.dir / "no-tools"
        empty_path.mkdir(exist_ok=True)
        r = run_tool("--elf", self.elf, self.log((a, a, 0)),
                     env=dict(os.environ, PATH=str(empty_path)))
        self.assertError(r, "nm")

    def test_stripped_elf(self):
        strip = shutil.which("strip")
        if not strip:
            self.skipTest("strip not found")
        stripped = self.dir / "stripped.elf"
        subprocess.run([strip, "-o", str(stripped), str(self.elf)], check=True)
        a, _ = self.addr["alpha"]
        self.assertError(run_tool("--elf", stripped, self.log((a, a, 0))), "no function symbols")


if __name__ == "__main__":
    unittest.main()
