"""Unit tests of tools/tap-check and tools/test-summary, run as programs."""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOOD = """\
TAP version 13
# btslab 0.1.0 (git abc1234) boot=multiboot1 firmware=bios
1..3
ok 1 - a.one
not ok 2 - a.two
  ---
  message: timer did not fire
  expected: 1
  got: 0
  ...
not ok 3 - a.three # TIMEOUT after 1000 ms
# btslab done: 1 passed, 2 failed, 0 skipped
"""


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="test-checkers-"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def file(self, name, data):
        path = self.tmp / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path)

    def tool(self, name, *argv):
        return subprocess.run([str(ROOT / "tools" / name), *argv], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=30)


@unittest.skipUnless(shutil.which("perl"), "perl not installed")
class TapCheck(Base):
    def check(self, data):
        return self.tool("tap-check", self.file("x.log", data))

    def test_valid_with_failures_and_firmware_noise(self):
        p = self.check("\x1b[2JSeaBIOS\r\nBooting...\r\n" + GOOD.replace("\n", "\r\n"))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("tap-check: ok", p.stdout)
        self.assertIn("plan 1..3, 3 run, 1 passed, 2 failed, 0 skipped", p.stdout)

    def test_plan_mismatch(self):
        p = self.check(GOOD.replace("1..3", "1..4"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("You planned 4 tests but ran 3", p.stdout)

    def test_cut_off(self):
        self.assertEqual(self.check(GOOD[:GOOD.index("not ok 3")]).returncode, 1)

    def test_garbled_line(self):
        p = self.check(GOOD.replace("ok 1 - a.one", "o\x7fk 1 - a.one"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("non-TAP line", p.stdout)

    def test_bad_yaml(self):
        p = self.check(GOOD.replace("  got: 0\n", "  got: 0\n  \"oops\n"))
        self.assertEqual(p.returncode, 1)

    def test_foreign_and_binary(self):
        self.assertIn("no 'TAP version 13' line", self.check("hello\n").stdout)
        self.assertEqual(self.check(bytes(range(256)) * 8).returncode, 1)

    def test_usage(self):
        self.assertEqual(self.tool("tap-check").returncode, 2)
        p = self.tool("tap-check", str(self.tmp / "missing.log"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot read", p.stdout)


class TestSummary(Base):
    def summary(self, **files):
        for name, text in files.items():
            self.file(f"{name}.txt", text)
        return self.tool("test-summary", str(self.tmp))

    def test_totals(self):
        p = self.summary(host="passed=10 failed=0 skipped=1\n", qemu="passed=9 failed=0 skipped=1\n")
        self.assertEqual(p.returncode, 0)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[-1], "19 passed, 0 failed, 2 skipped")
        self.assertEqual(len(lines), 3)

    def test_failure(self):
        p = self.summary(host="passed=10 failed=2 skipped=0\n")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.splitlines()[-1], "10 passed, 2 failed, 0 skipped")

    def test_no_results(self):
        p = self.summary()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.splitlines()[-1], "0 passed, 0 failed, 0 skipped")

    def test_unreadable_counts_as_failed(self):
        p = self.summary(host="passed=3 failed=0 skipped=0\n", junk="3 tests ok\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("unreadable", p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], "3 passed, 1 failed, 0 skipped")


if __name__ == "__main__":
    unittest.main()
