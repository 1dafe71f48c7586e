"""Tests of tools/junit (tools/btslab_junit.py): the XML is well-formed,
its counts agree with the log, failures carry the YAML message, skips the
reason, and a cut-off or garbled log shows up as an error."""

import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "report"
sys.path.insert(0, str(ROOT / "tools"))
import btslab_junit as J  # noqa: E402
import btslab_report as R  # noqa: E402

KVM, TCG, CUT = DATA / "kvm.log", DATA / "tcg.log", DATA / "kvm-cut.log"

LOG = """\
TAP version 13
# btslab 0.1.0 (git abc1234) boot=multiboot1 firmware=bios
# cpu vendor=GenuineIntel family=6 model=0x9e stepping=10 "Intel(R) Core(TM) i7-8700"
# cpu ds=1 bts=1 tsc_hz=3000000000 tsc_source=cpuid15
1..4
# metric {"name":"ipi.self","mode":"xapic","unit":"cycles","min":1,"median":2,"p99":3,"max":4,"n":5}
ok 1 - apic.self_ipi.xapic
ok 2 - apic.self_ipi.x2apic # SKIP CPU has no x2APIC (CPUID.1:ECX[21]=0)
not ok 3 - bts.threshold.hw
  ---
  message: "PMI taken at index 2561 <&>"
  expected: "2560"
  ...
not ok 4 - selftest.hang # TIMEOUT after 1000 ms
  ---
  message: "watchdog expired after 1000 ms"
  rip: "0x1000 spin+0x0"
  ...
# btslab done: 1 passed, 2 failed, 1 skipped
"""


def parse(text):
    return ET.fromstring(text.encode("utf-8"))


class JUnit(unittest.TestCase):
    def setUp(self):
        self.root = parse(J.junit_xml(R.load_bytes(LOG.encode(), "x"), "x.log"))
        self.suite = self.root.find("testsuite")
        self.cases = {c.get("name"): c for c in self.suite.findall("testcase")}

    def test_counts(self):
        for el in (self.root, self.suite):
            self.assertEqual((el.get("tests"), el.get("failures"), el.get("errors"),
                              el.get("skipped")), ("4", "2", "0", "1"))

    def test_failure_and_skip(self):
        f = self.cases["bts.threshold.hw"].find("failure")
        self.assertEqual(f.get("message"), "PMI taken at index 2561 <&>")
        self.assertEqual(f.get("type"), "failure")
        self.assertIn('expected: "2560"', f.text)
        t = self.cases["selftest.hang"].find("failure")
        self.assertEqual(t.get("type"), "timeout")
        self.assertIn("TIMEOUT after 1000 ms", t.get("message"))
        s = self.cases["apic.self_ipi.x2apic"].find("skipped")
        self.assertEqual(s.get("message"), "CPU has no x2APIC (CPUID.1:ECX[21]=0)")
        self.assertEqual(self.cases["apic.self_ipi.xapic"].get("classname"), "btslab.apic")

    def test_metrics_in_system_out(self):
        out = self.cases["apic.self_ipi.xapic"].find("system-out").text
        self.assertIn('# metric {"name":"ipi.self","mode":"xapic"', out)

    def test_properties(self):
        props = {p.get("name"): p.get("value") for p in self.suite.find("properties")}
        self.assertEqual(props["btslab.git"], "abc1234")
        self.assertEqual(props["cpu"], "Intel(R) Core(TM) i7-8700")
        self.assertEqual(props["hypervisor"], "none")
        self.assertEqual(props["log.complete"], "true")

    def test_cut_off_is_an_error(self):
        root = parse(J.junit_xml(R.load(CUT), "cut.log"))
        suite = root.find("testsuite")
        err = [c for c in suite.findall("testcase") if c.get("name") == "btslab.log"]
        self.assertEqual(len(err), 1)
        e = err[0].find("error")
        self.assertEqual(e.get("type"), "cut-off")
        self.assertIn("CUT OFF", e.get("message"))
        self.assertEqual(suite.get("errors"), "1")
        props = {p.get("name"): p.get("value") for p in suite.find("properties")}
        self.assertEqual(props["log.complete"], "false")
        self.assertEqual(props["hypervisor"], "KVMKVMKVM")

    def test_garbled_is_an_error(self):
        text = LOG.replace("ok 1 - apic", "\x02ok 1 - apic")
        root = parse(J.junit_xml(R.load_bytes(text.encode(), "x")))
        e = root.find("testsuite/testcase[@name='btslab.log']/error")
        self.assertEqual(e.get("type"), "bad-log")
        self.assertIn("could not be parsed", e.get("message"))

    def test_control_characters_escaped(self):
        text = LOG.replace("index 2561 <&>", "index 2561 <&> \x01\x1b")
        root = parse(J.junit_xml(R.load_bytes(text.encode(), "x")))
        f = root.find("testsuite/testcase[@name='bts.threshold.hw']/failure")
        self.assertEqual(f.get("message"), "PMI taken at index 2561 <&> \\x01\\x1b")

    def test_real_logs(self):
        for path in (KVM, TCG):
            log = R.load(path)
            suite = parse(J.junit_xml(log, path.name)).find("testsuite")
            c = log.counts()
            self.assertEqual(int(suite.get("failures")), c["failed"])
            self.assertEqual(int(suite.get("skipped")), c["skipped"])
            self.assertEqual(len(suite.findall("testcase")), len(log.tests))
            n = sum(len(x.text.splitlines()) for x in suite.iter("system-out"))
            self.assertEqual(n, len(log.metrics))


class CommandLine(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run([str(ROOT / "tools" / "junit"), *map(str, args)],
                              capture_output=True, text=True, timeout=120)

    def test_stdout_and_file(self):
        r = self.run_tool(KVM)
        self.assertEqual(r.returncode, 0, r.stderr)
        parse(r.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "sub" / "junit.xml"
            r = self.run_tool(TCG, "-o", out, "--name", "btslab-tcg")
            self.assertEqual(r.returncode, 0, r.stderr)
            root = ET.parse(out).getroot()
            self.assertEqual(root.find("testsuite").get("name"), "btslab-tcg")

    def test_not_a_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "bad.log"
            bad.write_bytes(b"\x00\xff" * 1000)
            for path in (bad, Path(tmp) / "missing.log", ROOT / "README.md"):
                r = self.run_tool(path)
                self.assertEqual(r.returncode, 2, path)
                self.assertRegex(r.stderr, r"^junit: ")
                self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
