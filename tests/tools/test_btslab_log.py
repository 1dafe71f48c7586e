"""Unit tests of tools/btslab_log.py, the serial log parser."""

import json
import random
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import btslab_log  # noqa: E402

GOOD = """\
TAP version 13
# btslab 0.3.0 (git 1a2b3c4) boot=multiboot2 firmware=bios
# cpu vendor=GenuineIntel family=6 model=0x9e "Intel(R) Core(TM) i7-8700"
1..5
ok 1 - apic.self_ipi.xapic
ok 2 - apic.self_ipi.x2apic # SKIP CPU has no x2APIC (CPUID.1:ECX[21]=0)
not ok 3 - bts.threshold.hw
  ---
  message: PMI taken at index 2561, threshold 2560
  expected: 2560
  got: 2561
  ...
# metric {"name":"drain.cost","unit":"cycles/record","min":1.9,"median":2.1,"p99":2.6,"max":4.0,"n":200}
ok 4 - drain.cost.switch.noloss.raw
not ok 5 - selftest.hang # TIMEOUT after 1000 ms
# btslab done: 2 passed, 2 failed, 1 skipped
"""

FIRMWARE_NOISE = "\x1b[2J\x1b[HSeaBIOS (version 1.16.2)\r\nBooting from DVD/CD...\r\n" \
                 "\x1b[0m\x1b[30m\x1b[47mGNU GRUB  version 2.06\r\n\x00\x00"


def parse(text):
    return btslab_log.parse(text)


def edit(old, new, text=GOOD):
    assert old in text, old
    return text.replace(old, new)


class GoodLog(unittest.TestCase):
    def setUp(self):
        self.log = parse(FIRMWARE_NOISE + GOOD)

    def test_clean_and_complete(self):
        self.assertEqual(self.log.problems, [])
        self.assertTrue(self.log.complete)
        self.assertEqual(self.log.noise_lines, 3)

    def test_header(self):
        h = self.log.header
        self.assertEqual((h["version"], h["git"], h["boot"], h["firmware"]),
                         ("0.3.0", "1a2b3c4", "multiboot2", "bios"))
        self.assertEqual(len(self.log.header_lines), 2)
        cpu = self.log.info("cpu")
        self.assertEqual(cpu["model"], "0x9e")
        self.assertEqual(cpu["_"], ["Intel(R) Core(TM) i7-8700"])
        self.assertEqual(self.log.info("apic"), {})

    def test_tests(self):
        got = [(t.number, t.name, t.status) for t in self.log.tests]
        self.assertEqual(got, [(1, "apic.self_ipi.xapic", "ok"),
                               (2, "apic.self_ipi.x2apic", "skip"),
                               (3, "bts.threshold.hw", "fail"),
                               (4, "drain.cost.switch.noloss.raw", "ok"),
                               (5, "selftest.hang", "timeout")])
        self.assertEqual(self.log.tests[1].reason, "CPU has no x2APIC (CPUID.1:ECX[21]=0)")
        self.assertEqual(self.log.tests[4].timeout_ms, 1000)
        self.assertEqual(self.log.plan, 5)

    def test_yaml(self):
        t = self.log.test("bts.threshold.hw")
        self.assertEqual(t.fields, {"message": "PMI taken at index 2561, threshold 2560",
                                    "expected": "2560", "got": "2561"})
        self.assertIsNone(self.log.tests[0].yaml)

    def test_metric_belongs_to_next_test(self):
        (m,) = self.log.metrics
        self.assertEqual(m.data["median"], 2.1)
        self.assertEqual(m.test, 4)
        self.assertEqual(self.log.tests[3].metrics, [m])

    def test_counts_match_closing(self):
        self.assertEqual(self.log.counts(), {"passed": 2, "failed": 2, "skipped": 1})
        self.assertEqual(self.log.closing, self.log.counts())

    def test_bytes_and_str_agree(self):
        self.assertEqual(btslab_log.parse(GOOD.encode()), parse(GOOD))

    def test_to_dict_is_json(self):
        d = json.loads(json.dumps(self.log.to_dict()))
        self.assertEqual(d["counts"]["failed"], 2)
        self.assertTrue(d["complete"])

    def test_summary(self):
        self.assertIn("5/5 tests: 2 passed, 2 failed, 1 skipped; complete", self.log.summary())


class SerialLineNoise(unittest.TestCase):
    """What a serial line adds must not change the result."""

    def assertSame(self, text):
        a, b = parse(GOOD), parse(text)
        self.assertEqual(a.problems, b.problems)
        for t in a.tests + b.tests:
            t.line = 0  # extra line breaks move the lines
            for m in t.metrics:
                m.line = 0
        self.assertEqual(a.tests, b.tests)
        self.assertEqual(a.header, b.header)
        self.assertEqual(a.closing, b.closing)

    def test_crlf(self):
        self.assertSame(GOOD.replace("\n", "\r\n"))

    def test_lf_cr_and_lone_cr(self):
        self.assertSame(GOOD.replace("\n", "\n\r"))
        self.assertSame(GOOD.replace("\n", "\r"))

    def test_nuls(self):
        self.assertSame("\x00".join(GOOD))

    def test_ansi_escapes(self):
        text = GOOD.replace("ok 1", "\x1b[32mok\x1b[0m 1").replace("TAP", "\x1b[?25l\x1b]0;x\x07TAP")
        self.assertSame(text)

    def test_noise_on_the_tap_version_line(self):
        self.assertSame("Booting `btslab'TAP version 13" + GOOD[len("TAP version 13"):])

    def test_blank_lines(self):
        self.assertSame(GOOD.replace("1..5\n", "1..5\n\n\n"))

    def test_trailing_noise_after_closing(self):
        log = parse(GOOD + "\x1b[2JSeaBIOS (version 1.16.2)\n\xff\xfe\n")
        self.assertEqual(log.problems, [])
        self.assertEqual(log.trailing_lines, 2)


class BrokenLogs(unittest.TestCase):
    def assertProblem(self, log, fragment):
        self.assertTrue(any(fragment in p for p in log.problems),
                        f"no problem with {fragment!r} in {log.problems}")

    def test_every_truncation(self):
        data = (FIRMWARE_NOISE + GOOD).encode()
        for n in range(len(data) - 1):  # the last: all but the final newline
            log = btslab_log.parse(data[:n])
            self.assertFalse(log.complete, n)
            self.assertTrue(log.problems, n)
            self.assertLessEqual(len(log.tests), 5)

    def test_cut_off_log(self):
        text = GOOD[:GOOD.index("not ok 5")]
        log = parse(text)
        self.assertFalse(log.complete)
        self.assertProblem(log, "no closing line")
        self.assertProblem(log, "plan says 5 tests, log has 4")

    def test_cut_in_a_line(self):
        text = GOOD[:GOOD.index("not ok 5") + 12]
        log = parse(text)
        self.assertEqual(log.cut_line, "not ok 5 - s")
        self.assertEqual(len(log.tests), 4)

    def test_closing_line_without_newline(self):
        log = parse(GOOD.rstrip("\n"))
        self.assertTrue(log.complete)
        self.assertEqual(log.problems, [])

    def test_garbled_line(self):
        log = parse(edit("ok 4 - drain", "ok 4 - dr\x7f\xe2in"))
        self.assertEqual(len(log.garbled), 1)
        self.assertProblem(log, "1 garbled line(s)")
        self.assertProblem(log, "plan says 5 tests, log has 4")

    def test_unknown_line(self):
        log = parse(edit("ok 4", "xx ok 4"))
        self.assertEqual(log.garbled[0][1], "xx ok 4 - drain.cost.switch.noloss.raw")

    def test_broken_closing_line(self):
        log = parse(edit("2 failed", "2 fa#led"))
        self.assertFalse(log.complete)
        self.assertEqual(len(log.garbled), 1)

    def test_closing_counts_disagree(self):
        log = parse(edit("2 passed", "3 passed"))
        self.assertProblem(log, "closing line says 3 passed, 2 failed, 1 skipped, counted 2, 2, 1")

    def test_numbering(self):
        self.assertProblem(parse(edit("ok 4 -", "ok 7 -")), "test 7 where 4 was expected")

    def test_no_plan(self):
        self.assertProblem(parse(edit("1..5\n", "")), "no plan line")

    def test_plan_after_tests(self):
        log = parse(edit("1..5\n", "").replace("# btslab done", "1..5\n# btslab done"))
        self.assertProblem(log, "plan comes after the first test")
        self.assertEqual(log.plan, 5)

    def test_bad_metrics(self):
        log = parse(edit('# metric {"name"', '# metric {"name" oops').replace(
            "ok 1 -", '# metric {"name":"x","unit":"ns","min":1}\n# metric [1]\nok 1 -'))
        self.assertEqual(len(log.metrics), 0)
        self.assertEqual(len(log.bad_metrics), 3)
        self.assertProblem(log, "bad JSON")
        self.assertProblem(log, "metric lacks median, p99, max, n")
        self.assertProblem(log, "metric is not a JSON object")

    def test_metric_with_value(self):
        log = parse(edit("ok 1 -", '# metric {"name":"tsc.hz","unit":"Hz","value":3e9}\nok 1 -'))
        self.assertEqual(log.problems, [])
        self.assertEqual(log.tests[0].metrics[0].data["value"], 3e9)

    def test_skip_without_reason(self):
        self.assertProblem(parse(edit("# SKIP CPU has no x2APIC (CPUID.1:ECX[21]=0)", "# SKIP")),
                           "SKIP without a reason")

    def test_unknown_directive(self):
        log = parse(edit("ok 1 - apic.self_ipi.xapic", "ok 1 - apic.self_ipi.xapic # TODO later"))
        self.assertProblem(log, "unexpected directive")

    def test_not_ok_without_yaml(self):
        log = parse(edit("  ---\n  message: PMI taken at index 2561, threshold 2560\n"
                         "  expected: 2560\n  got: 2561\n  ...\n", ""))
        self.assertProblem(log, "not ok without a YAML block")

    def test_unterminated_yaml(self):
        log = parse(edit("  got: 2561\n  ...\n", "  got: 2561\n"))
        self.assertProblem(log, "YAML block of test 3 not closed")
        self.assertEqual(log.tests[2].fields["got"], "2561")
        self.assertEqual(len(log.tests), 5)

    def test_bad_name(self):
        self.assertProblem(parse(edit("apic.self_ipi.xapic", "APIC-Self")), "not dotted lower case")

    def test_restart(self):
        log = parse(GOOD[:GOOD.index("ok 4")] + GOOD)
        self.assertProblem(log, "restarts 1 time")

    def test_bail_out(self):
        log = parse(edit("ok 4 -", "Bail out! no memory map\nok 4 -"))
        self.assertEqual(log.bailout, "no memory map")

    def test_output_after_closing(self):
        self.assertProblem(parse(GOOD + "ok 6 - late.test\n"), "TAP output after the closing line")

    def test_header_missing(self):
        self.assertProblem(parse(edit("# btslab 0.3.0 (git 1a2b3c4)", "# something")),
                           "first header line is not")
        log = parse("TAP version 13\n1..0\n# btslab done: 0 passed, 0 failed, 0 skipped\n")
        self.assertProblem(log, "no header lines")


class ForeignInput(unittest.TestCase):
    def test_empty(self):
        log = btslab_log.parse(b"")
        self.assertFalse(log.found_tap)
        self.assertIn("not a btslab log", log.summary())

    def test_linux_boot_log(self):
        log = parse("[    0.000000] Linux version 6.1.0\n[    0.1] ok 1 - x\nlogin:")
        self.assertFalse(log.found_tap)
        self.assertEqual(log.noise_lines, 3)
        self.assertEqual(log.tests, [])

    def test_other_tap_producer(self):
        log = parse("TAP version 13\n1..2\nok 1 - First test\nok 2\n")
        self.assertTrue(log.found_tap)
        self.assertTrue(log.problems)
        self.assertFalse(log.complete)

    def test_random_binary(self):
        rnd = random.Random(1)
        for _ in range(50):
            data = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 4000)))
            for blob in (data, data + GOOD.encode() + data):
                log = btslab_log.parse(blob)
                self.assertIsInstance(log.problems, list)

    def test_elf_file(self):
        log = btslab_log.parse_file(sys.executable)
        self.assertFalse(log.complete)


class Cli(unittest.TestCase):
    def test_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            good, cut = Path(d, "good.log"), Path(d, "cut.log")
            good.write_text(GOOD)
            cut.write_text(GOOD[:100])
            out = sys.stdout
            try:
                sys.stdout = open(Path(d, "out"), "w")
                codes = [btslab_log.main([str(good)]), btslab_log.main([str(cut)]),
                         btslab_log.main(["--json", str(good)])]
                sys.stderr, err = open(Path(d, "err"), "w"), sys.stderr
                try:
                    codes += [btslab_log.main([str(Path(d, "none"))]), btslab_log.main([])]
                finally:
                    sys.stderr.close()
                    sys.stderr = err
            finally:
                sys.stdout.close()
                sys.stdout = out
            self.assertEqual(codes, [0, 1, 0, 2, 2])


if __name__ == "__main__":
    unittest.main()
