"""Unit tests of tools/btslab-run: options, QEMU command, verdicts.

The end-to-end cases use a fake QEMU (a small script written per test) that
writes a log to the serial file and exits with a chosen status, so they run
without QEMU or a kernel.
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tools" / "btslab-run"
_loader = importlib.machinery.SourceFileLoader("btslab_run", str(RUNNER))
run = importlib.util.module_from_spec(importlib.util.spec_from_loader("btslab_run", _loader))
_loader.exec_module(run)
btslab_log = run.btslab_log

PASS_LOG = """TAP version 13
# btslab 0.1.0 (git abc1234) boot=multiboot1 firmware=bios
1..2
ok 1 - a.one
ok 2 - a.two # SKIP no such thing (CPUID.1:ECX[2]=0)
# btslab done: 1 passed, 0 failed, 1 skipped
"""
FAIL_LOG = PASS_LOG.replace("ok 1 - a.one", "not ok 1 - a.one\n  ---\n  message: x\n  ...") \
                   .replace("1 passed, 0 failed", "0 passed, 1 failed")

FAKE_QEMU = textwrap.dedent("""\
    #!{python}
    # Fake QEMU: copies $FAKE_LOG to the serial file, then exits $FAKE_STATUS
    # (or sleeps with FAKE_HANG) after writing $FAKE_STDERR to stderr;
    # records its arguments in $FAKE_ARGS.
    import os, sys, time
    args = sys.argv[1:]
    with open(os.environ["FAKE_ARGS"], "w") as f:
        f.write("\\n".join(args))
    spec = args[args.index("-chardev") + 1]
    path = spec.split("path=", 1)[1]
    with open(path, "wb") as out, open(os.environ["FAKE_LOG"], "rb") as log:
        out.write(log.read())
    if os.environ.get("FAKE_STDERR"):
        sys.stderr.write(os.environ["FAKE_STDERR"])
        sys.stderr.flush()
    if os.environ.get("FAKE_HANG"):
        time.sleep(60)
    sys.exit(int(os.environ.get("FAKE_STATUS", "33")))
    """)


def opts(*argv):
    return run.parse_args(list(argv))


def parse_error(*argv):
    """The error message argparse prints for argv (which must be bad)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), unittest.TestCase().assertRaises(SystemExit) as cm:
        run.parse_args(list(argv))
    assert cm.exception.code == 2
    return err.getvalue()


class Options(unittest.TestCase):
    def test_defaults(self):
        o = opts()
        self.assertEqual((o.boot, o.accel, o.firmware, o.machine, o.smp, o.mem),
                         ("kernel", "auto", "bios", "pc", 1, 256))
        self.assertIsNone(o.append)
        self.assertEqual(run.image_path(o), ROOT / "build" / "btslab32.elf")
        self.assertEqual(run.image_path(opts("--boot", "usb")), ROOT / "build" / "btslab.iso")

    def test_bad_options(self):
        for argv, message in [
                (["--boot", "floppy"], "invalid choice: 'floppy'"),
                (["--accel", "hvf"], "invalid choice: 'hvf'"),
                (["--smp", "0"], "must be at least 1"),
                (["--mem", "lots"], "not a number: 'lots'"),
                (["--timeout", "-1"], "must be more than 0"),
                (["--timeout", "nan"], "must be more than 0"),
                (["--boot", "cdrom", "--append", "list"], "--append needs --boot kernel"),
                (["--iso", "x.iso"], "--iso needs --boot cdrom or --boot usb"),
                (["--boot", "usb", "--kernel", "k.elf"], "--kernel needs --boot kernel"),
                (["--firmware", "uefi"], "UEFI boots need --boot cdrom, usb or efi"),
                (["--efi", "a.efi"], "--efi needs --boot efi"),
                (["--screendump", "s.ppm", "--no-serial"], "--screendump needs the serial"),
                (["--bogus"], "unrecognized arguments: --bogus")]:
            with self.subTest(argv=argv):
                self.assertIn(message, parse_error(*argv))

    def test_qemu_args(self):
        o = opts("--qemu-arg=-d", "--qemu-arg", "int", "--", "-s", "-S")
        self.assertEqual(o.qemu_arg, ["-d", "int", "-s", "-S"])
        self.assertEqual(run.qemu_command(o, "tcg", "s.log")[-4:], ["-d", "int", "-s", "-S"])

    def test_accel(self):
        yes, no = (lambda: (True, "")), (lambda: (False, "/dev/kvm: No such file"))
        self.assertEqual(run.choose_accel(opts("--accel", "tcg"), no), ("tcg", ""))
        self.assertEqual(run.choose_accel(opts("--accel", "kvm"), yes), ("kvm", ""))
        self.assertEqual(run.choose_accel(opts(), yes), ("kvm", ""))
        accel, note = run.choose_accel(opts(), no)
        self.assertEqual(accel, "tcg")
        self.assertIn("No such file", note)
        accel, note = run.choose_accel(opts("--boot", "cdrom", "--firmware", "uefi"), yes)
        self.assertEqual(accel, "tcg")
        self.assertIn("OVMF", note)
        with self.assertRaisesRegex(run.Error, "KVM is not usable"):
            run.choose_accel(opts("--accel", "kvm"), no)

    def test_kvm_probe_answers(self):
        ok, why = run.kvm_usable()
        self.assertIsInstance(ok, bool)
        self.assertEqual(ok, why == "")


class Command(unittest.TestCase):
    def cmd(self, accel, *argv, vars_copy=None):
        return run.qemu_command(opts(*argv), accel, "/tmp/s.log", vars_copy)

    def test_common(self):
        c = self.cmd("tcg")
        joined = " ".join(c)
        for part in ["-display none", "-monitor none", "-no-reboot", "-accel tcg", "-cpu max",
                     "-device isa-debug-exit,iobase=0xf4,iosize=0x04",
                     "-chardev file,id=serial0,path=/tmp/s.log", "-serial chardev:serial0",
                     f"-kernel {ROOT}/build/btslab32.elf"]:
            self.assertIn(part, joined)
        self.assertNotIn("-append", c)
        self.assertNotIn("stdio", joined)

    def test_kvm_cpu(self):
        c = self.cmd("kvm", "--smp", "4", "--machine", "q35", "--mem", "512")
        self.assertEqual(c[c.index("-cpu") + 1], "host,-arch-capabilities")
        self.assertEqual(c[c.index("-smp") + 1], "4")
        self.assertEqual(c[c.index("-m") + 1], "512")
        self.assertEqual(c[c.index("-machine") + 1], "q35")

    def test_append(self):
        c = self.cmd("tcg", "--append", "tests=selftest.* watchdog_ms=1000")
        self.assertEqual(c[c.index("-append") + 1], "tests=selftest.* watchdog_ms=1000")

    def test_cdrom(self):
        c = " ".join(self.cmd("tcg", "--boot", "cdrom", "--iso", "/x/b.iso"))
        self.assertIn("media=cdrom,readonly=on,file=/x/b.iso", c)
        self.assertIn("ide-cd,drive=cd0,bootindex=0", c)
        self.assertNotIn("-kernel", c)

    def test_usb_uefi(self):
        c = " ".join(self.cmd("tcg", "--boot", "usb", "--firmware", "uefi",
                              vars_copy="/tmp/private/VARS.fd"))
        self.assertIn("-device qemu-xhci,id=xhci", c)
        self.assertIn("usb-storage,bus=xhci.0,drive=stick,bootindex=0", c)
        self.assertIn(f"unit=0,readonly=on,file={run.OVMF_CODE}", c)
        self.assertIn("unit=1,file=/tmp/private/VARS.fd", c)


class NewBoots(unittest.TestCase):
    """--boot efi, --screendump and --no-serial."""

    def test_efi_esp(self):
        with tempfile.TemporaryDirectory() as tmp:
            app = Path(tmp) / "app.efi"
            app.write_bytes(b"MZ")
            o = opts("--boot", "efi", "--efi", str(app))
            self.assertEqual(o.firmware, "uefi")
            esp = run.make_esp(o, Path(tmp) / "plain")
            self.assertEqual((esp / "EFI" / "BOOT" / "BOOTX64.EFI").read_bytes(), b"MZ")
            o = opts("--boot", "efi", "--efi", str(app), "--append", "tests=kernel.*")
            esp = run.make_esp(o, Path(tmp) / "shell")
            self.assertFalse((esp / "EFI").exists())
            self.assertIn("\\btslab.efi tests=kernel.*", (esp / "startup.nsh").read_text())
            c = " ".join(run.qemu_command(o, "tcg", "/tmp/s.log", "/tmp/V.fd", esp=esp))
            self.assertIn(f"readonly=on,file=fat:{esp}", c)

    def test_screendump_has_monitor_no_exit_device(self):
        c = run.qemu_command(opts("--screendump", "/tmp/x.ppm"), "tcg", "/tmp/s.log",
                             monitor="/tmp/m.sock")
        self.assertEqual(c[c.index("-monitor") + 1], "unix:/tmp/m.sock,server=on,wait=off")
        self.assertNotIn(run.DEBUG_EXIT, c)

    def test_no_serial(self):
        c = run.qemu_command(opts("--no-serial"), "tcg", "/tmp/s.log")
        self.assertEqual(c[c.index("-serial") + 1], "none")
        self.assertNotIn("-chardev", c)
        self.assertEqual(run.judge_status(run.STATUS_PASSED)[0], "pass")
        self.assertEqual(run.judge_status(run.STATUS_FAILED)[0], "fail")
        self.assertEqual(run.judge_status(run.STATUS_PANIC)[0], "panic")
        self.assertEqual(run.judge_status(0)[0], "crash")
        self.assertEqual(run.judge_status(None, "timeout")[0], "timeout")


def log_of(text):
    return btslab_log.parse(text)


class Judge(unittest.TestCase):
    def verdict(self, status, text, stopped=None):
        return run.judge(status, log_of(text), stopped, 5)

    def test_table(self):
        cut = PASS_LOG[:PASS_LOG.index("ok 2")]
        for status, text, stopped, want in [
                (33, PASS_LOG, None, "pass"),
                (35, FAIL_LOG, None, "fail"),
                (33, FAIL_LOG, None, "bad-log"),    # status and log disagree
                (35, PASS_LOG, None, "bad-log"),
                (33, cut, None, "bad-log"),         # no closing line
                (37, cut, None, "panic"),
                (0, cut, None, "crash"),            # triple fault under -no-reboot
                (1, cut, None, "crash"),            # exit device written with 0
                (1, "", None, "error"),             # QEMU did not start
                (-9, cut, None, "crash"),
                (-15, cut, "timeout", "timeout"),
                (-15, cut, "KVM internal error", "crash"),
                (33, "garbage", None, "bad-log")]:
            with self.subTest(status=status, want=want):
                self.assertEqual(self.verdict(status, text, stopped)[0], want)

    def test_reasons(self):
        _, why = self.verdict(0, PASS_LOG[:PASS_LOG.index("ok 2")])
        self.assertIn("triple fault", why[0])
        self.assertIn("after test 1 (a.one)", why[0])
        _, why = self.verdict(None, PASS_LOG, "timeout")
        self.assertIn("closing line was printed", why[0])
        _, why = self.verdict(35, FAIL_LOG)
        self.assertEqual(why, ["failed: 1 a.one"])


class EndToEnd(unittest.TestCase):
    """The whole tool, run as a program against a fake QEMU."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="test-btslab-run-"))
        self.qemu = self.tmp / "fake-qemu"
        self.qemu.write_text(FAKE_QEMU.format(python=sys.executable))
        self.qemu.chmod(0o755)
        self.kernel = self.tmp / "k.elf"
        self.kernel.write_bytes(b"\x7fELF")
        self.iso = self.tmp / "b.iso"
        self.iso.write_bytes(b"")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def tool(self, log_text, *argv, status=33, hang=False, stderr=""):
        (self.tmp / "serial-src").write_text(log_text)
        env = dict(os.environ, FAKE_LOG=str(self.tmp / "serial-src"), FAKE_STATUS=str(status),
                   FAKE_ARGS=str(self.tmp / "args"))
        if hang:
            env["FAKE_HANG"] = "1"
        env["FAKE_STDERR"] = stderr
        if "--iso" not in argv and "--kernel" not in argv and "--boot" not in argv:
            argv = ("--kernel", str(self.kernel)) + argv
        p = subprocess.run([str(RUNNER), "--qemu", str(self.qemu), "--accel", "tcg",
                            "--log", str(self.tmp / "out.log"), *argv],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           env=env, timeout=30)
        self.assertNotIn("Traceback", p.stderr + p.stdout)
        return p

    def test_pass_echoes_log(self):
        p = self.tool(PASS_LOG)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("ok 1 - a.one\n", p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1],
                         f"btslab-run: pass (1 passed, 0 failed, 1 skipped) accel=tcg "
                         f"firmware=bios boot=kernel log={self.tmp / 'out.log'}")
        self.assertEqual((self.tmp / "out.log").read_text(), PASS_LOG)

    def test_quiet(self):
        p = self.tool(PASS_LOG, "--quiet")
        self.assertEqual(p.stdout.splitlines(), [p.stdout.splitlines()[-1]])

    def test_fail(self):
        p = self.tool(FAIL_LOG, "--quiet", status=35)
        self.assertEqual(p.returncode, 1)
        self.assertIn("btslab-run: fail (0 passed, 1 failed, 1 skipped)", p.stdout)

    def test_crash(self):
        p = self.tool(PASS_LOG[:60], "--quiet", status=0)
        self.assertEqual(p.returncode, 2)
        self.assertIn("btslab-run: crash (", p.stdout)

    def test_timeout(self):
        start = time.monotonic()
        p = self.tool(PASS_LOG[:60], "--quiet", "--timeout", "1", hang=True)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(p.returncode, 2)
        self.assertIn("did not exit within 1 s", p.stdout)
        self.assertIn("btslab-run: timeout (", p.stdout)

    def test_kvm_internal_error_stops_at_once(self):
        start = time.monotonic()
        p = self.tool(PASS_LOG[:60], "--quiet", "--timeout", "20", hang=True,
                      stderr="KVM internal error. Suberror: 1\nemulation failure\n")
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(p.returncode, 2)
        self.assertIn("KVM internal error: QEMU paused the guest", p.stdout)
        self.assertIn("qemu stderr: emulation failure", p.stdout)
        self.assertIn("btslab-run: crash (", p.stdout)

    def test_append_reaches_qemu(self):
        self.tool(PASS_LOG, "--quiet", "--append", "tests=a.* seed=3")
        args = (self.tmp / "args").read_text().split("\n")
        self.assertEqual(args[args.index("-append") + 1], "tests=a.* seed=3")

    def test_uefi_private_vars(self):
        if not run.OVMF_VARS.is_file():
            self.skipTest(f"{run.OVMF_VARS} not installed")
        p = self.tool(PASS_LOG.replace("multiboot1", "multiboot2"), "--quiet",
                      "--boot", "usb", "--firmware", "uefi", "--iso", str(self.iso))
        self.assertEqual(p.returncode, 0, p.stdout)
        args = (self.tmp / "args").read_text().split("\n")
        store = next(a for a in args if "unit=1" in a).split("file=")[1]
        self.assertNotEqual(Path(store), run.OVMF_VARS)
        self.assertFalse(Path(store).exists(), "private copy not removed")

    def test_missing_image(self):
        p = self.tool(PASS_LOG, "--quiet", "--boot", "cdrom", "--iso", str(self.tmp / "none.iso"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("image not found", p.stdout)
        self.assertIn("btslab-run: error (0 passed, 0 failed, 0 skipped)", p.stdout)

    def test_missing_qemu(self):
        p = subprocess.run([str(RUNNER), "--qemu", str(self.tmp / "no-qemu"), "--accel", "tcg",
                            "--kernel", str(self.kernel)], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("QEMU not found", p.stdout)

    def test_bad_option_no_traceback(self):
        p = self.tool(PASS_LOG, "--smp", "many")
        self.assertEqual(p.returncode, 2)
        self.assertIn("btslab-run: error: argument --smp: not a number: 'many'", p.stderr)


if __name__ == "__main__":
    unittest.main()
