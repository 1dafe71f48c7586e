"""Unit tests of the checks in tests/qemu/matrix, on hand-written logs."""

import contextlib
import importlib.machinery
import importlib.util
import io
import subprocess
import tempfile
import unittest
from unittest import mock
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "tests" / "qemu" / "matrix"
_loader = importlib.machinery.SourceFileLoader("matrix", str(MATRIX))
matrix = importlib.util.module_from_spec(importlib.util.spec_from_loader("matrix", _loader))
_loader.exec_module(matrix)
run = matrix.run

HEADER = "TAP version 13\n# btslab 0.1.0 (git abc1234) boot=multiboot1 firmware=bios\n"


def fault_block(vector, symbol):
    return (f"  ---\n  message: \"unexpected exception (vector {vector})\"\n  vector: {vector}\n"
            f"  rip: \"0x0000000000109e6a {symbol}+0xa\"\n  ...\n")


SELFTEST_BODY = [
    ("ok", "selftest.pass", ""),
    ("ok", "selftest.skip # SKIP skipping on purpose", ""),
    ("not ok", "selftest.fail", "  ---\n  message: x\n  expected: \"42\"\n  got: \"41\"\n  ...\n"),
    ("ok", "selftest.metric", ""),
    ("not ok", "selftest.fault.gp", fault_block(13, "selftest_fault_gp")),
    ("not ok", "selftest.fault.pf", fault_block(14, "selftest_fault_pf")),
    ("not ok", "selftest.fault.ud", fault_block(6, "selftest_fault_ud")),
    ("not ok", "selftest.fault.de", fault_block(0, "selftest_fault_de")),
    ("not ok", "selftest.hang # TIMEOUT after 300 ms", "  ---\n  message: x\n  ...\n"),
    ("ok", "selftest.hang_cli # SKIP no NMI watchdog yet", ""),
]


def selftest_log(body=SELFTEST_BODY):
    out = HEADER + f"1..{len(body)}\n"
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for n, (word, rest, block) in enumerate(body, 1):
        if rest.startswith("selftest.metric"):
            out += '# metric {"name":"selftest.metric","unit":"cycles","value":1}\n'
        out += f"{word} {n} - {rest}\n{block}"
        key = "skipped" if "# SKIP" in rest else "passed" if word == "ok" else "failed"
        counts[key] += 1
    return out + "# btslab done: {passed} passed, {failed} failed, {skipped} skipped\n".format(**counts)


def boot(text, status, verdict=None):
    log = run.btslab_log.parse(text)
    b = matrix.Boot([], 1)
    b.result = run.Result(verdict or run.judge(status, log)[0], log=log, status=status)
    return b


class Selftest(unittest.TestCase):
    def check(self, body, status=35):
        return matrix.check_selftest([boot(selftest_log(body), status)])

    def replace(self, name, new):
        return [new if rest.split(" ")[0] == name else (w, rest, b)
                for w, rest, b in SELFTEST_BODY]

    def test_as_specified(self):
        problems, detail = self.check(SELFTEST_BODY)
        self.assertEqual(problems, [])
        self.assertIn("10 selftests as specified", detail)

    def test_hang_cli_may_time_out(self):
        body = self.replace("selftest.hang_cli", ("not ok", "selftest.hang_cli # TIMEOUT after 300 ms",
                                                  "  ---\n  message: x\n  ...\n"))
        self.assertEqual(self.check(body)[0], [])

    def test_wrong_vector_and_symbol(self):
        body = self.replace("selftest.fault.pf", ("not ok", "selftest.fault.pf",
                                                  fault_block(13, "selftest_fault_gp")))
        problems = self.check(body)[0]
        self.assertTrue(any("selftest.fault.pf: vector: '13', expected 14" in p for p in problems))
        self.assertTrue(any("does not name selftest_fault_pf" in p for p in problems))

    def test_missing_and_extra(self):
        body = [x for x in SELFTEST_BODY if x[1] != "selftest.pass"] + [("ok", "apic.x", "")]
        problems = self.check(body)[0]
        self.assertIn("selftest.pass reported 0 times, expected once", problems)
        self.assertIn("tests=selftest.* also ran apic.x", problems)

    def test_hang_not_timeout(self):
        problems = self.check(self.replace("selftest.hang", ("ok", "selftest.hang", "")), 35)[0]
        self.assertIn("selftest.hang: status ok, expected timeout", problems)

    def test_exit_status(self):
        problems = matrix.check_selftest([boot(selftest_log(), 33)])[0]
        self.assertTrue(any("verdict bad-log, expected fail" in p for p in problems))


class CmdlineBad(unittest.TestCase):
    def log(self, message):
        return HEADER + f"1..1\nnot ok 1 - cmdline.parse\n  ---\n  message: \"{message}\"\n  ...\n" \
                        "# btslab done: 0 passed, 1 failed, 0 skipped\n"

    def test_each_names_its_option(self):
        boots = [boot(self.log(f"{opt}: bad"), 35) for _, opt in matrix.BAD_CMDLINES]
        self.assertEqual(matrix.check_cmdline_bad(boots)[0], [])

    def test_message_without_option_and_wrong_status(self):
        boots = [boot(self.log(f"{opt}: bad"), 35) for _, opt in matrix.BAD_CMDLINES]
        boots[1] = boot(self.log("something is wrong"), 35)
        boots[2] = boot(self.log("tests: bad"), 33)
        problems = matrix.check_cmdline_bad(boots)[0]
        self.assertIn("'bogus': message 'something is wrong' does not name 'bogus'", problems)
        self.assertIn("'tests=nomatch*': exit status 33, expected 35", problems)


class ListAndPass(unittest.TestCase):
    def test_list(self):
        text = HEADER + "".join(f"# test {n} (explicit)\n" for n in matrix.SELFTESTS) + \
            "# test kernel.tick\n1..0 # SKIP listing the tests only\n" \
            "# btslab done: 0 passed, 0 failed, 0 skipped\n"
        problems, detail = matrix.check_list([boot(text, 33)])
        self.assertEqual(problems, [])
        self.assertEqual(detail, "11 tests listed")

    def test_list_without_names(self):
        text = HEADER + "1..0\n# btslab done: 0 passed, 0 failed, 0 skipped\n"
        self.assertIn("no '# test NAME' lines", matrix.check_list([boot(text, 33)])[0])

    def test_header_must_match(self):
        text = HEADER + "1..1\nok 1 - a.b\n# btslab done: 1 passed, 0 failed, 0 skipped\n"
        self.assertEqual(matrix.expect_pass("multiboot1", "bios")([boot(text, 33)])[0], [])
        problems = matrix.expect_pass("multiboot2", "uefi")([boot(text, 33)])[0]
        self.assertEqual(problems, ["header says boot=multiboot1, expected multiboot2",
                                    "header says firmware=bios, expected uefi"])


class X2apicHandover(unittest.TestCase):
    GRUB = "\x1b[H\x1b[Jbtslab-x2apic: IA32_APIC_BASE before=0xfee00900 after={after}\n"

    def check(self, firmware_mode, after="0xfee00d00", failed=()):
        tests = ["apic.self_ipi.dest.x2apic", "smp.boot"] + list(failed)
        text = self.GRUB.format(after=after) + \
            "TAP version 13\n# btslab 0.1.0 (git abc1234) boot=multiboot2 firmware=bios\n" \
            f"# apic mode={firmware_mode} id=0 base=0xfee00000 moved=0 " \
            f"firmware_mode={firmware_mode} x2apic=1\n" \
            "# smp online=2 listed=2 failed=0 capped=0 max=16\n" \
            f"1..{len(tests)}\n" + \
            "".join(f"not ok {n} - {t}\n  ---\n  message: x\n  ...\n" if t in failed
                    else f"ok {n} - {t}\n" for n, t in enumerate(tests, 1)) + \
            f"# btslab done: {len(tests) - len(failed)} passed, {len(failed)} failed, 0 skipped\n"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "x2apic-handover.log")
            path.write_text(text)
            b = boot(text, 35 if failed else 33)
            b.result.log_path = str(path)
            return matrix.check_x2apic_handover([b])

    def test_x2apic_at_entry(self):
        problems, detail = self.check("x2apic", failed=["apic.isr.x2apic"])
        self.assertEqual(problems, [])
        self.assertIn("GRUB: IA32_APIC_BASE 0xfee00900 -> 0xfee00d00", detail)
        self.assertIn("firmware_mode=x2apic", detail)

    def test_grub_wrmsr_did_not_take(self):
        problems = self.check("xapic", after="0xfee00900")[0]
        self.assertIn("header says firmware_mode=xapic, expected x2apic "
                      "(GRUB: IA32_APIC_BASE 0xfee00900 -> 0xfee00900)", problems)

    def test_other_failure(self):
        problems = self.check("x2apic", failed=["smp.call"])[0]
        self.assertTrue(any("verdict fail, expected pass" in p for p in problems))


class KvmSkip(unittest.TestCase):
    def test_skip_with_reason_when_kvm_is_unusable(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(run, "kvm_usable", lambda: (False, "/dev/kvm: denied")), \
                mock.patch.object(matrix, "RESULTS", Path(tmp, "qemu.txt")), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(matrix.main(["--only", "kernel-kvm"]), 0)
            self.assertEqual(Path(tmp, "qemu.txt").read_text(), "passed=0 failed=0 skipped=1\n")
        self.assertIn("SKIP kernel-kvm (0.0 s): KVM not usable: /dev/kvm: denied", out.getvalue())

    def test_skip_names_what_kvm_was_needed_for(self):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(run, "kvm_usable", lambda: (False, "/dev/kvm: denied")), \
                mock.patch.object(matrix, "RESULTS", Path(tmp, "qemu.txt")), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(matrix.main(["--only", "x2apic-handover"]), 0)
        self.assertIn("SKIP x2apic-handover (0.0 s): KVM not usable: /dev/kvm: denied; "
                      "needed for x2APIC: QEMU 7.2's TCG has none", out.getvalue())


class Cli(unittest.TestCase):
    def matrix(self, *argv):
        return subprocess.run([str(MATRIX), *argv], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=30)

    def test_list(self):
        p = self.matrix("--list", "--only", "iso-*")
        self.assertEqual(p.returncode, 0)
        self.assertEqual([ln.split()[0] for ln in p.stdout.splitlines()],
                         ["iso-ovmf-cdrom", "iso-ovmf-usb", "iso-seabios-cdrom", "iso-seabios-usb"])

    def test_bad_options(self):
        for argv, message in [(["--only", "nothing"], "no scenario matches"),
                              (["--jobs", "0"], "must be at least 1")]:
            p = self.matrix(*argv)
            self.assertEqual(p.returncode, 2)
            self.assertIn(message, p.stderr)
            self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    unittest.main()
