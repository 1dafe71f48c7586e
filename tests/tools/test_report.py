"""Tests of tools/report (tools/btslab_report.py, tools/btslab_plots.py).

The logs in data/report/ are real serial logs (KVM and TCG runs, one cut
off) and a synthetic log with char.* metrics in the form docs/report.md
asks for. The property test at the end mutates the real logs (truncation at
every line, random bytes, shuffled/dropped/doubled lines) and checks that
report, junit and compare never raise and stay well-formed.

Plots are drawn by /usr/bin/python3 (Debian's matplotlib) in a subprocess,
since the Python running the tests may lack matplotlib; those tests are
skipped where no Python here has it.
"""

import html.parser
import os
import random
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "report"
sys.path.insert(0, str(ROOT / "tools"))
import btslab_compare  # noqa: E402
import btslab_junit  # noqa: E402
import btslab_plots  # noqa: E402
import btslab_report as R  # noqa: E402

KVM = DATA / "kvm.log"            # complete KVM run, with failures
TCG = DATA / "tcg.log"            # complete TCG run
CUT = DATA / "kvm-cut.log"        # KVM run cut off by the host timeout
CHAR = DATA / "char-synthetic.log"
SYSTEM_PYTHON = "/usr/bin/python3"


def system_matplotlib():
    """True when /usr/bin/python3 can import matplotlib."""
    if not os.path.exists(SYSTEM_PYTHON):
        return False
    r = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True)
    return r.returncode == 0


HAVE_MPL = system_matplotlib()

MINI = """\
TAP version 13
# btslab 0.1.0 (git abc1234) boot=multiboot1 firmware=bios
# cpu vendor=GenuineIntel family=6 model=0x9e stepping=10 "Intel(R) Core(TM) i7-8700"
# cpu ds=1 bts=1 x2apic=1 tsc_hz=3000000000 tsc_source=cpuid15
1..3
# metric {"name":"ipi.self","mode":"xapic","unit":"cycles","min":10,"median":20,"p99":30,"max":40,"n":5}
ok 1 - apic.self_ipi.xapic
ok 2 - apic.self_ipi.x2apic # SKIP CPU has no x2APIC (CPUID.1:ECX[21]=0)
not ok 3 - bts.threshold.hw
  ---
  message: "PMI taken at index 2561"
  at: "tests/kernel/bts.c:1"
  ...
# btslab done: 1 passed, 1 failed, 1 skipped
"""


def parse_html(text):
    """Raise unless text is well-formed (XML) and HTML-parsable."""
    root = ET.fromstring(text.split("\n", 1)[1])  # after <!DOCTYPE html>
    assert root.tag == "html", root.tag
    p = html.parser.HTMLParser()
    p.feed(text)
    p.close()
    return root


def check_junit(text):
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases)
    assert int(suite.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
    assert int(suite.get("skipped")) == sum(1 for c in cases if c.find("skipped") is not None)
    assert int(suite.get("errors")) == sum(1 for c in cases if c.find("error") is not None)
    return root


class Loading(unittest.TestCase):
    def load_text(self, data):
        return R.load_bytes(data if isinstance(data, bytes) else data.encode(), "x.log")

    def test_real_logs_load(self):
        for path in (KVM, TCG, CUT, CHAR):
            log = R.load(path)
            self.assertTrue(log.tests, path)

    def test_missing_file(self):
        with self.assertRaisesRegex(R.InputError, "No such file"):
            R.load("/nonexistent/btslab.log")

    def test_directory(self):
        with self.assertRaisesRegex(R.InputError, "directory"):
            R.load(DATA)

    def test_empty(self):
        for data in (b"", b"\n\n", b"\x00\x00\r\n"):
            with self.assertRaisesRegex(R.InputError, "empty"):
                self.load_text(data)

    def test_binary(self):
        rnd = random.Random(1)
        data = bytes(rnd.randrange(256) for _ in range(5000))
        with self.assertRaisesRegex(R.InputError, "binary"):
            self.load_text(data)

    def test_elf(self):
        with self.assertRaisesRegex(R.InputError, "ELF"):
            self.load_text(b"\x7fELF\x02\x01\x01" + bytes(100))

    def test_binary_with_log_strings(self):
        """A disk image that holds the kernel holds its format strings too."""
        rnd = random.Random(2)
        blob = bytes(rnd.randrange(256) for _ in range(20000))
        data = bytes(4096) + blob[:10000] + MINI.encode() + blob[10000:]
        with self.assertRaisesRegex(R.InputError, "binary data"):
            self.load_text(data)

    def test_nuls_and_noise_are_still_a_log(self):
        """An idle serial line sends NULs; firmware sends escapes."""
        data = b"\x00" * 50000 + b"\x1b[2J\x1b[HSeaBIOS\r\n" + MINI.encode()
        self.assertTrue(self.load_text(data).complete)

    def test_foreign_text(self):
        with self.assertRaisesRegex(R.InputError, "no 'TAP version 13'.*hello"):
            self.load_text("hello world\nthis is not a log\n")

    def test_foreign_tap(self):
        with self.assertRaisesRegex(R.InputError, "TAP output without"):
            self.load_text("TAP version 13\n1..2\nok 1 - a\nok 2 - b\n")

    def test_just_started_is_a_cut_log(self):
        log = self.load_text("SeaBIOS\nTAP version 13\n")
        self.assertFalse(log.complete)
        self.assertIn("CUT OFF", R.integrity(log)[0][1])

    def test_cut_off_reported(self):
        log = R.load(CUT)
        sev, text = R.integrity(log)[0]
        self.assertEqual(sev, "error")
        self.assertRegex(text, r"CUT OFF: the log ends after test \d+ \(.*\).*never reported")

    def test_garbled_counted(self):
        text = MINI.replace("ok 1 - apic", "o\x01k 1 - apic").replace(
            "# metric {\"name\":\"ipi.self\"", "# metric {\"name\":\"ipi.self\",,")
        log = self.load_text(text)
        notes = " ".join(t for _, t in R.integrity(log))
        self.assertIn("1 line(s) could not be parsed", notes)
        self.assertIn("1 '# metric' line(s) could not be read", notes)


class Entries(unittest.TestCase):
    def test_params_and_details(self):
        e = R.make_entry({"name": "drain.accounting", "strategy": "inline", "ring": "noloss",
                          "rate": 100, "unit": "records", "value": 161,
                          "producer": {"lost": {"stopped_at_max": 3}}, "ok": True,
                          "rate_unit": "records/ms", "note": "x y"})
        self.assertEqual(e.kind, "value")
        self.assertEqual(e.params, {"strategy": "inline", "ring": "noloss", "rate": 100})
        self.assertIn(("producer.lost.stopped_at_max", "3"), e.extra)
        self.assertIn(("rate_unit", "records/ms"), e.extra)
        self.assertIn(("note", "x y"), e.extra)
        self.assertEqual(e.group, "drain")

    def test_bad_numbers(self):
        e = R.make_entry({"name": "a.b", "unit": "cycles", "min": "1", "median": float("nan"),
                          "p99": True, "max": None, "n": 3})
        self.assertEqual(e.kind, "stats")
        self.assertIsNone(e.box())
        self.assertEqual(len(e.bad), 4)
        e = R.make_entry({"name": "a.b", "unit": "cycles", "min": 5, "median": 2, "p99": 3,
                          "max": 4, "n": 3})
        self.assertIsNone(e.box())
        self.assertIn("does not hold", e.bad[0])

    def test_entries_know_their_test(self):
        log = R.load_bytes(MINI.encode())
        (e,) = R.entries(log)
        self.assertEqual(e.test.name, "apic.self_ipi.xapic")
        self.assertEqual(e.box(), (10, 20, 30, 40))

    def test_occurrence_counts_repeats(self):
        text = MINI.replace("1..3", "1..4").replace(
            "ok 1 - apic.self_ipi.xapic\n", "ok 1 - apic.self_ipi.xapic\n" + MINI.splitlines()[5]
            + "\nok 2 - apic.self_ipi.xapic\n").replace("ok 2 - apic.self_ipi.x2apic",
                                                        "ok 3 - apic.self_ipi.x2apic")
        text = text.replace("not ok 3", "not ok 4").replace("1 passed", "2 passed")
        ents = R.entries(R.load_bytes(text.encode()))
        self.assertEqual([e.occurrence for e in ents], [0, 1])

    def test_formatting(self):
        self.assertEqual(R.fmt(1234567), "1,234,567")
        self.assertEqual(R.fmt(2.345), "2.35")
        self.assertEqual(R.fmt_time(3000, 3e9), "1 us")
        self.assertEqual(R.fmt_ratio(R.ratio(2, 3)), "1.5x")
        self.assertIsNone(R.ratio(0, 3))
        self.assertEqual(R.clean("a\x01b\ud800"), "a\\x01b\\ud800")


class Header(unittest.TestCase):
    def test_machine_and_features(self):
        log = R.load(KVM)
        m = dict(R.machine(log))
        self.assertEqual(m["CPU"], "AMD EPYC")
        self.assertIn("GHz", m["TSC"])
        self.assertIn("KVM", m["hypervisor"])
        f = {k: v for k, v, _ in R.features(log)}
        self.assertEqual(f["x2apic"], "yes")
        self.assertEqual(f["bts"], "no")

    def test_hypervisor(self):
        self.assertEqual(R.hypervisor(R.load(KVM))[1], "KVM")
        self.assertEqual(R.hypervisor(R.load(TCG))[0], "TCGTCGTCGTCG")
        self.assertIsNone(R.hypervisor(R.load_bytes(MINI.encode())))


class Report(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, path, plots=False):
        return R.write_report(R.load(path), self.out, Path(path).name, want_plots=plots)

    def test_sections(self):
        res = self.write(KVM)
        page = res["html"].read_text()
        root = parse_html(page)
        ids = {el.get("id") for el in root.iter() if el.get("id")}
        self.assertTrue({"machine", "verdicts", "plots", "metrics", "log"} <= ids)
        self.assertIn("Hypervisor present: KVM", page)
        self.assertIn("latency figures in this report are the hypervisor", page)
        md = res["markdown"].read_text()
        self.assertIn("## Machine", md)
        self.assertIn("| metric |", md)
        log = R.load(KVM)
        for t in log.tests:
            if t.status in ("fail", "timeout"):
                self.assertIn(R.h(t.fields.get("message", t.reason)), page)
            if t.status == "skip":
                self.assertIn(R.h(t.reason), page)

    def test_every_metric_in_a_table(self):
        res = self.write(KVM)
        root = parse_html(res["html"].read_text())
        cells = [td.text or "" for td in root.iter("td")]
        names = {e.name for e in R.entries(R.load(KVM))}
        for name in names:
            self.assertIn(name, cells)

    def test_mode_strategy_columns(self):
        res = self.write(CHAR)
        root = parse_html(res["html"].read_text())
        heads = [[th.text for th in t.iter("th")] for t in root.iter("table")]
        char = next(h for h in heads if "strategy" in h and "ring" in h and "records" in h)
        self.assertIn("format", char)
        self.assertTrue(any("mode" in h for h in heads))

    def test_no_plots_says_why(self):
        res = self.write(TCG, plots=False)
        self.assertIn("Plots left out", res["html"].read_text())
        self.assertFalse((self.out / "plots").exists() and any((self.out / "plots").iterdir()))

    def test_without_matplotlib(self):
        os.environ["BTSLAB_REPORT_NO_MATPLOTLIB"] = "1"
        try:
            res = self.write(TCG, plots=True)
        finally:
            del os.environ["BTSLAB_REPORT_NO_MATPLOTLIB"]
        self.assertEqual(res["plots"], 0)
        self.assertIn("matplotlib is disabled", res["html"].read_text())
        self.assertIn("matplotlib is disabled", res["markdown"].read_text())

    def test_cut_log_report(self):
        res = self.write(CUT)
        page = res["html"].read_text()
        self.assertIn('class="note error"', page)
        self.assertIn("CUT OFF", page)
        self.assertIn("CUT OFF", res["markdown"].read_text())

    def test_markdown_escapes_pipes(self):
        log = R.load_bytes(MINI.replace("PMI taken at index 2561", "a | b <c>").encode())
        md = R.build_report(log, "x").markdown()
        self.assertIn(r"a \| b \<c\>", md)

    def test_livelock_table(self):
        page = self.write(CHAR)["html"].read_text()
        self.assertIn("Livelock points", page)
        self.assertIn("not reached", page)


class Selection(unittest.TestCase):
    """Which metrics become which plot (no matplotlib needed)."""

    def ents(self, *metrics):
        return [R.make_entry(m) for m in metrics]

    def test_char_sweeps(self):
        ents = R.entries(R.load(CHAR))
        found = {(s.family, unit): len(m) for s, unit, m in btslab_plots.sweeps(ents)}
        self.assertEqual(found, {("char.drain_cost", "cycles/record"): 65,
                                 ("char.duty_cycle", "%"): 28})

    def test_layout_strategy_lines_other_panels(self):
        spec = btslab_plots.SWEEPS[0]
        ents = [e for e in R.entries(R.load(CHAR)) if e.name == "char.drain_cost"]
        data = btslab_plots.series(spec, ents)
        line, panel = btslab_plots.layout(data.keys())
        self.assertEqual(line, ["strategy"])
        self.assertEqual(panel, ["ring", "format"])
        ref = [k for k in data if btslab_plots.is_reference(k)]
        self.assertEqual(len(ref), 1)
        self.assertIsNone(btslab_plots.panel_of(ref[0], panel))

    def test_repeats_merge(self):
        spec = btslab_plots.SWEEPS[0]
        base = {"name": "char.drain_cost", "strategy": "inline", "unit": "cycles/record",
                "records": 64, "n": 3}
        ents = self.ents(base | {"min": 1, "median": 2, "p99": 3, "max": 4},
                         base | {"min": 0.5, "median": 5, "p99": 9, "max": 10},
                         base | {"min": 1, "median": 3, "p99": 3, "max": 3})
        (pts,) = btslab_plots.series(spec, ents).values()
        self.assertEqual(pts, [(64, 3, 0.5, 9, None)])

    def test_generic_sweep_needs_distributions(self):
        stats = [{"name": "x.cost", "unit": "cycles", "size": s, "min": 1, "median": 2,
                  "p99": 3, "max": 4, "n": 1} for s in (1, 2, 4)]
        values = [{"name": "y.count", "unit": "records", "rate": r, "value": 1}
                  for r in (1, 10, 100)]
        found = [s.family for s, _u, _m in btslab_plots.sweeps(self.ents(*stats, *values))]
        self.assertEqual(found, ["x.cost"])

    def duty(self, **extra):
        return [{"name": "char.duty_cycle", "strategy": "inline", "buffer": 64, "rate": r,
                 "unit": "%", "value": 100 - p, "progress": p, **extra}
                for r, p in ((10, 90), (100, 20), (1000, 0.5), (10000, 0))]

    def test_livelock_derived(self):
        (p,) = btslab_plots.livelock_points(self.ents(*self.duty()))
        self.assertEqual((p["rate"], p["series"]), (1000, "strategy=inline buffer=64"))
        self.assertIn("derived", p["source"])

    def test_livelock_explicit_wins(self):
        ents = self.ents(*self.duty(), {"name": "char.duty_cycle.livelock", "strategy": "inline",
                                        "buffer": 64, "unit": "records/ms", "value": 777})
        (p,) = btslab_plots.livelock_points(ents)
        self.assertEqual((p["rate"], p["unit"]), (777, "records/ms"))

    def test_livelock_not_reached(self):
        ents = self.ents(*self.duty(), {"name": "char.duty_cycle.livelock", "strategy": "inline",
                                        "buffer": 64, "unit": "records/ms", "value": None})
        (p,) = btslab_plots.livelock_points(ents)
        self.assertIsNone(p["rate"])

    def test_livelock_field_and_flag(self):
        ms = self.duty(livelock_rate=555)
        (p,) = btslab_plots.livelock_points(self.ents(*ms))
        self.assertEqual(p["rate"], 555)
        ms = [{k: v for k, v in m.items() if k != "progress"} for m in self.duty()]
        ms[1]["livelock"] = True
        (p,) = btslab_plots.livelock_points(self.ents(*ms))
        self.assertEqual(p["rate"], 100)


class CommandLine(unittest.TestCase):
    def run_tool(self, *args, env=None):
        e = dict(os.environ, **(env or {}))
        return subprocess.run([str(ROOT / "tools" / "report"), *map(str, args)],
                              capture_output=True, text=True, env=e, timeout=300)

    def test_not_a_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "x.bin"
            bad.write_bytes(bytes(range(256)) * 4)
            for path in (bad, Path(tmp) / "missing.log", Path(tmp)):
                r = self.run_tool(path, "-o", Path(tmp) / "out")
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertRegex(r.stderr, r"^report: .*(not a btslab log|No such|directory)")
                self.assertNotIn("Traceback", r.stderr)

    def test_no_plots_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_tool(CUT, "-o", tmp, "--no-plots")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("CUT OFF", r.stderr)
            self.assertIn(f"{tmp}/index.html", r.stdout)

    def test_pyenv_style_python_without_matplotlib(self):
        """python3 tools/report from any Python: works, with or without plots."""
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, str(ROOT / "tools" / "report"), str(MINI_LOG),
                                "-o", tmp], capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            page = (Path(tmp) / "index.html").read_text()
            parse_html(page)
            self.assertTrue(list(Path(tmp, "plots").glob("*.png")) or "Plots left out" in page)

    @unittest.skipUnless(HAVE_MPL, "no matplotlib for /usr/bin/python3")
    def test_plots(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.run_tool(CHAR, "-o", tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            plots = Path(tmp) / "plots"
            names = sorted(p.name for p in plots.iterdir())
            for stem in ("sweep-char.drain_cost-cycles_record", "sweep-char.duty_cycle-pct",
                         "dist-char-cycles"):
                self.assertIn(stem + ".png", names)
                self.assertIn(stem + ".svg", names)
                png = (plots / f"{stem}.png").read_bytes()
                self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n"))
                ET.parse(plots / f"{stem}.svg")  # well-formed SVG
            page = (Path(tmp) / "index.html").read_text()
            root = parse_html(page)
            srcs = [img.get("src") for img in root.iter("img")]
            self.assertEqual(len(srcs), len(names) // 2)
            for src in srcs:
                self.assertTrue((Path(tmp) / src).is_file(), src)
            self.assertIn("![", (Path(tmp) / "report.md").read_text())

    @unittest.skipUnless(HAVE_MPL, "no matplotlib for /usr/bin/python3")
    def test_plots_real_logs(self):
        for log in (KVM,):
            with tempfile.TemporaryDirectory() as tmp:
                r = self.run_tool(log, "-o", tmp)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertNotIn("could not be drawn", (Path(tmp) / "index.html").read_text())
                self.assertTrue(list(Path(tmp, "plots").glob("dist-*.png")), log)


MINI_LOG = Path(tempfile.gettempdir()) / f"btslab-test-report-{os.getpid()}.log"


def setUpModule():
    MINI_LOG.write_text(MINI)


def tearDownModule():
    MINI_LOG.unlink(missing_ok=True)


# --- property test ----------------------------------------------------------

def mutations(data, rnd, every_line=True):
    """(what, bytes) variants of a log: truncated at every line end and at
    random bytes, with garbage, with shuffled, dropped and doubled lines,
    with bit flips, with odd JSON."""
    lines = data.split(b"\n")
    if every_line:
        for i in range(len(lines) + 1):
            yield f"first {i} lines", b"\n".join(lines[:i])
    for _ in range(15):
        cut = rnd.randrange(len(data))
        yield f"cut at byte {cut}", data[:cut]
    for k in range(25):
        b = bytearray(data)
        for _ in range(rnd.randrange(1, 20)):
            pos = rnd.randrange(len(b))
            b[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 30)))
        yield f"garbage {k}", bytes(b)
    for k in range(8):
        ls = lines[:]
        rnd.shuffle(ls)
        yield f"all lines shuffled {k}", b"\n".join(ls)
    for k in range(15):
        ls = lines[:]
        i, j = sorted(rnd.sample(range(len(ls)), 2))
        ls[i:j] = rnd.sample(ls[i:j], j - i)
        if rnd.random() < 0.5:
            del ls[rnd.randrange(len(ls))]
        if rnd.random() < 0.5:
            x = rnd.randrange(len(ls))
            ls.insert(x, ls[x])
        yield f"lines moved {k}", b"\n".join(ls)
    for k in range(15):
        b = bytearray(data)
        for _ in range(rnd.randrange(1, 50)):
            b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        yield f"bit flips {k}", bytes(b)
    yield "metric values replaced", data.replace(b'"median":', b'"median":"x",').replace(
        b'"value":', b'"value":NaN,"v0":')
    yield "JSON oddities", data.replace(
        b'"unit":"', b'"unit":{"a":[1,2]},"s":"\\ud800\\u0001","u":"')


class Property(unittest.TestCase):
    """No exception escapes, outputs stay well-formed, whatever the input."""

    def check(self, what, data, other=None):
        try:
            log = R.load_bytes(data, what)
        except R.InputError as e:
            self.assertTrue(str(e).startswith(what), (what, e))
            return
        doc = R.build_report(log, what)
        ET.fromstring(doc.html().split("\n", 1)[1])  # well-formed
        md = doc.markdown()
        md.encode("utf-8")
        self.assertTrue(md.startswith("# btslab report: "))
        check_junit(btslab_junit.junit_xml(log, what))
        if other is not None:
            cmp = btslab_compare.compare_doc(other, log, "a", what)
            ET.fromstring(cmp.html().split("\n", 1)[1])
            cmp.text().encode("utf-8")
            cmp.markdown().encode("utf-8")
        c = log.counts()
        self.assertIn(f"{c['passed']} passed, {c['failed']} failed", R.verdict_line(log))

    def test_mutations(self):
        rnd = random.Random(20240606)
        other = R.load(TCG)
        for path, every_line in ((CUT, True), (CHAR, True), (KVM, False)):
            data = path.read_bytes()
            n = 0
            for what, variant in mutations(data, rnd, every_line):
                n += 1
                with self.subTest(log=path.name, mutation=what):
                    self.check(what, variant, other if n % 4 == 0 else None)
            self.assertGreaterEqual(n, 80)

    def test_truncation_keeps_test_prefix(self):
        """A log cut anywhere reports the tests before the cut, and is cut off."""
        full = R.load(KVM)
        lines = KVM.read_bytes().split(b"\n")
        for i in range(1, len(lines) - 2):
            log = R.load_bytes(b"\n".join(lines[:i]) + b"\n", "cut")
            self.assertFalse(log.complete)
            got = [(t.number, t.name, t.status) for t in log.tests]
            want = [(t.number, t.name, t.status) for t in full.tests[:len(got)]]
            self.assertEqual(got, want)
            self.assertTrue(any("CUT OFF" in t for _, t in R.integrity(log)))

    @unittest.skipUnless(HAVE_MPL, "no matplotlib for /usr/bin/python3")
    def test_plots_on_mutations(self):
        """A few mutated logs through the real tool, plots included."""
        rnd = random.Random(7)
        variants = list(mutations(CHAR.read_bytes(), rnd))
        picks = rnd.sample(variants[:-2], 2) + variants[-2:]
        with tempfile.TemporaryDirectory() as tmp:
            for k, (what, data) in enumerate(picks):
                log = Path(tmp) / f"m{k}.log"
                log.write_bytes(data)
                r = subprocess.run([str(ROOT / "tools" / "report"), str(log), "-o",
                                    str(Path(tmp) / f"r{k}")], capture_output=True, text=True,
                                   timeout=300)
                self.assertIn(r.returncode, (0, 2), (what, r.stderr))
                self.assertNotIn("Traceback", r.stderr, what)
                if r.returncode == 0:
                    parse_html((Path(tmp) / f"r{k}" / "index.html").read_text())


if __name__ == "__main__":
    unittest.main()
