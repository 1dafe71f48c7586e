"""Tests of tools/compare (tools/btslab_compare.py) on real logs (KVM and
TCG runs in data/report/) and small made-up ones."""

import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "report"
sys.path.insert(0, str(ROOT / "tools"))
import btslab_compare as C  # noqa: E402
import btslab_report as R  # noqa: E402

KVM, TCG, CUT = DATA / "kvm.log", DATA / "tcg.log", DATA / "kvm-cut.log"

A = """\
TAP version 13
# btslab 0.1.0 (git aaaaaaa) boot=multiboot1 firmware=bios
# cpu vendor=GenuineIntel family=6 model=0x9e stepping=10 "Intel(R) Core(TM) i7-8700"
# cpu ds=1 bts=1 x2apic=0 tsc_hz=3000000000 tsc_source=cpuid15
1..4
# metric {"name":"ipi.self","mode":"xapic","unit":"cycles","min":10,"median":100,"p99":200,"max":300,"n":5}
# metric {"name":"ipi.self","mode":"x2apic","unit":"cycles","min":10,"median":50,"p99":60,"max":70,"n":5}
ok 1 - apic.self_ipi
ok 2 - apic.x2apic # SKIP CPU has no x2APIC (CPUID.1:ECX[21]=0)
# metric {"name":"kernel.tick.period","unit":"cycles","value":1000}
ok 3 - kernel.tick
# metric {"name":"only.in_a","unit":"cycles","value":1}
ok 4 - kernel.fixup
# btslab done: 3 passed, 0 failed, 1 skipped
"""

B = """\
TAP version 13
# btslab 0.1.0 (git bbbbbbb) boot=multiboot1 firmware=bios
# cpu vendor=GenuineIntel family=6 model=0x9e stepping=10 "Intel(R) Core(TM) i7-8700"
# cpu ds=1 bts=1 x2apic=1 tsc_hz=3000000000 tsc_source=cpuid15
1..4
# metric {"name":"ipi.self","mode":"xapic","unit":"cycles","min":10,"median":150,"p99":100,"max":300,"n":5}
# metric {"name":"ipi.self","mode":"x2apic","unit":"cycles","min":10,"median":"bad","p99":60,"max":70,"n":5}
ok 1 - apic.self_ipi
not ok 2 - apic.x2apic
  ---
  message: "TPR differs"
  ...
# metric {"name":"kernel.tick.period","unit":"cycles","value":500}
ok 3 - kernel.tick
# metric {"name":"only.in_b","unit":"cycles","value":1}
ok 4 - kernel.new_test
# btslab done: 3 passed, 1 failed, 0 skipped
"""


def load(text):
    return R.load_bytes(text.encode(), "x")


def rows(doc, title_part):
    """Rows of the first table after the heading containing title_part."""
    found = False
    for b in doc.blocks:
        if b[0] == "h" and title_part in b[2]:
            found = True
        elif found and b[0] == "table":
            return [[str(c) for c in r] for r in b[1].rows]
    raise AssertionError(f"no table after {title_part!r}")


class Compare(unittest.TestCase):
    def setUp(self):
        self.doc = C.compare_doc(load(A), load(B), "a.log", "b.log")

    def test_metric_ratios(self):
        r = rows(self.doc, "ipi.* (distributions)")
        xapic = next(x for x in r if "mode=xapic" in x)
        self.assertEqual(xapic[3:], ["100", "150", "1.5x", "200", "100", "0.5x"])
        x2 = next(x for x in r if "mode=x2apic" in x)
        self.assertEqual(x2[4:6], ["", ""])  # B's median is not a number: no ratio
        r = rows(self.doc, "kernel.* (values)")
        self.assertEqual(r, [["kernel.tick.period", "cycles", "1,000", "500", "0.5x"]])

    def test_only_in_one(self):
        text = self.doc.text()
        self.assertIn("Metrics only in A (1)", text)
        self.assertIn("- only.in_a", text)
        self.assertIn("- only.in_b", text)

    def test_verdict_changes(self):
        r = rows(self.doc, "Verdict differences")
        self.assertIn(["apic.x2apic", "skipped", "FAILED", "TPR differs"], r)
        self.assertIn(["kernel.fixup", "ok", "absent", "not in B"], r)
        self.assertIn(["kernel.new_test", "absent", "ok", ""], r)
        self.assertEqual(len(r), 3)

    def test_machine_differences(self):
        r = rows(self.doc, "Machines")
        diff = {x[0]: (x[1], x[2]) for x in r if x[3] == "differs"}
        self.assertEqual(diff, {"btslab": ("0.1.0 (git aaaaaaa)", "0.1.0 (git bbbbbbb)"),
                                "feature x2apic": ("no", "yes")})

    def test_formats_well_formed(self):
        ET.fromstring(self.doc.html().split("\n", 1)[1])
        self.assertIn("| metric |", self.doc.markdown())

    def test_real_logs(self):
        doc = C.compare_doc(R.load(TCG), R.load(KVM), "tcg.log", "kvm.log")
        text = doc.text()
        self.assertIn("ran under QEMU TCG", text)
        self.assertIn("ran under KVM", text)
        r = rows(doc, "nmi.* (distributions)")
        self.assertTrue(any("nmi.self" in x[0] for x in r))
        diff = {x[0] for x in rows(doc, "Machines") if x[3] == "differs"}
        self.assertIn("CPU", diff)
        self.assertIn("hypervisor", diff)

    def test_cut_log_named(self):
        doc = C.compare_doc(R.load(KVM), R.load(CUT), "kvm.log", "cut.log")
        text = doc.text()
        self.assertIn("ERROR: B: CUT OFF", text)
        self.assertIn("not in B: B was cut off", text)

    def test_repeats_match_by_occurrence(self):
        rep = A.replace("1..4", "1..5").replace(
            "# btslab done: 3 passed", '# metric {"name":"kernel.tick.period","unit":"cycles",'
            '"value":3000}\nok 5 - kernel.tick\n# btslab done: 4 passed')
        doc = C.compare_doc(load(A), load(rep), "a", "b")
        r = rows(doc, "Verdict differences")
        self.assertEqual(r, [["kernel.tick (run 2)", "absent", "ok", ""]])
        self.assertIn("- kernel.tick.period", doc.text().split("Metrics only in B")[1])


class CommandLine(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([str(ROOT / "tools" / "compare"), *map(str, args)],
                              capture_output=True, text=True, timeout=120)

    def test_text_markdown_html(self):
        r = self.run_tool(TCG, KVM)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("B/A", r.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "c.html"
            r = self.run_tool(TCG, KVM, "--format", "html", "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            ET.fromstring(out.read_text().split("\n", 1)[1])
            r = self.run_tool(TCG, KVM, "--format", "markdown")
            self.assertIn("|---", r.stdout)

    def test_bad_inputs(self):
        with tempfile.TemporaryDirectory() as tmp:
            empty = Path(tmp) / "empty.log"
            empty.write_bytes(b"")
            for args in ((KVM, empty), (empty, KVM), (KVM, Path(tmp) / "none.log"),
                         (KVM, ROOT / "Makefile")):
                r = self.run_tool(*args)
                self.assertEqual(r.returncode, 2, args)
                self.assertTrue(r.stderr.startswith("compare: "), r.stderr)
                self.assertNotIn("Traceback", r.stderr)
                self.assertEqual(r.stdout, "")
            r = self.run_tool(KVM)
            self.assertEqual(r.returncode, 2)
            self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
