"""Parse a btslab serial log (TAP version 13, see shared/docs/OUTPUT.md).

Logs come from QEMU and from real serial lines, so the parser never raises on
bad input: noise before ``TAP version 13`` (firmware, GRUB) is skipped, CR/LF,
ANSI escapes and NULs are removed, lines it cannot read are counted as
garbled, and a log without the closing line is reported as cut off.

    import btslab_log
    log = btslab_log.parse_file("build/logs/run.log")   # or parse(bytes|str)
    log.complete          # closing line seen
    log.tests[0].status   # "ok" | "fail" | "skip" | "timeout"
    log.counts()          # {"passed": .., "failed": .., "skipped": ..}
    log.problems          # consistency problems, human-readable; [] = clean

Nothing is judged from the QEMU exit status here: that is the runner's job.
Run as a script (``python3 tools/btslab_log.py [--json] LOG``) it prints a
summary (or the whole result as JSON) and exits 0 only for a clean, complete
log.
"""

import dataclasses
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

# Line forms, matched after clean_line().
TAP_VERSION = "TAP version 13"
RE_PLAN = re.compile(r"^1\.\.(\d+)(?:\s*#\s*(.*))?$")
RE_TEST = re.compile(r"^(not ok|ok)\b\s*(\d*)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$")
RE_SKIP = re.compile(r"^SKIP\b\s*(.*)$", re.I)
RE_TIMEOUT = re.compile(r"^TIMEOUT\b\s*(?:after\s+(\d+)\s*ms)?.*$")
RE_HEADER = re.compile(r"^# btslab (\S+) \(git (\S+)\)\s*(.*)$")
RE_CLOSING = re.compile(r"^# btslab done: (\d+) passed, (\d+) failed, (\d+) skipped$")
RE_METRIC = re.compile(r"^# metric\s+(.*)$")
RE_BAIL = re.compile(r"^Bail out!\s*(.*)$")
RE_NAME = re.compile(r"^[a-z0-9_]+(?:\.[a-z0-9_]+)*$")
# key=value, key="quoted value", a bare "quoted string" or a bare word.
RE_FIELD = re.compile(r'([A-Za-z_][\w.-]*)=("[^"]*"|\S*)|"([^"]*)"|(\S+)')
# CSI, OSC, charset selection and two-character escape sequences.
RE_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?"
                     r"|[()*+][0-9A-Za-z]|[@-Z\\-_=>78])")
RE_UNPRINTABLE = re.compile(r"[^\t\x20-\x7e]")

METRIC_STATS = ("min", "median", "p99", "max", "n")


@dataclass
class Test:
    """One ``ok``/``not ok`` line and the YAML block that follows it."""
    number: int
    name: str
    status: str                    # "ok", "fail", "skip" or "timeout"
    reason: str = ""               # SKIP reason or the TIMEOUT text
    timeout_ms: Optional[int] = None
    yaml: Optional[str] = None     # block text without markers and indent
    line: int = 0                  # line number in the cleaned log
    metrics: list = field(default_factory=list)  # Metric lines just before

    @property
    def fields(self):
        """Top-level ``key: value`` pairs of the YAML block (flat, strings)."""
        out = {}
        for text in (self.yaml or "").splitlines():
            m = re.match(r"^([A-Za-z_][\w.-]*):\s*(.*)$", text)
            if m:
                value = m.group(2).strip()
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                    value = value[1:-1]
                out[m.group(1)] = value
        return out


@dataclass
class Metric:
    """A ``# metric {json}`` line; ``test`` is the number of the test line
    that follows it (metrics come before the verdict of their test)."""
    data: dict
    line: int
    test: Optional[int] = None


@dataclass
class Log:
    """Everything read from one log. Line numbers count the cleaned lines
    (a lone CR counts as a line break). ``header`` holds the fields of the
    first header line: version, git, boot, firmware and any other key=value;
    info() gives the fields of the other header lines."""
    found_tap: bool = False        # a "TAP version 13" line was seen
    noise_lines: int = 0           # lines before it (firmware, GRUB)
    header: dict = field(default_factory=dict)  # see parse_header()
    header_lines: list = field(default_factory=list)
    plan: Optional[int] = None
    tests: list = field(default_factory=list)
    metrics: list = field(default_factory=list)
    bad_metrics: list = field(default_factory=list)  # (line, why)
    comments: list = field(default_factory=list)     # (line, text) other '#'
    garbled: list = field(default_factory=list)      # (line, text)
    closing: Optional[dict] = None  # {"passed": P, "failed": F, "skipped": S}
    bailout: Optional[str] = None
    restarts: int = 0              # further "TAP version 13" lines (reboots)
    trailing_lines: int = 0        # non-TAP lines after the closing line
    cut_line: Optional[str] = None  # unterminated last line, not parsed
    problems: list = field(default_factory=list)

    @property
    def complete(self):
        return self.closing is not None

    def counts(self):
        """Counts from the test lines; timeouts count as failed."""
        c = {"passed": 0, "failed": 0, "skipped": 0}
        for t in self.tests:
            c[{"ok": "passed", "skip": "skipped"}.get(t.status, "failed")] += 1
        return c

    def test(self, name):
        """The first test called name, or None."""
        return next((t for t in self.tests if t.name == name), None)

    def info(self, kind):
        """Fields of the header lines ``# KIND ...`` merged, e.g. info("cpu")."""
        out = {}
        for text in self.header_lines:
            if text.startswith(f"# {kind} "):
                out.update(parse_fields(text[len(kind) + 3:]))
        return out

    def summary(self):
        if not self.found_tap:
            return "not a btslab log (no 'TAP version 13' line)"
        c = self.counts()
        plan = "?" if self.plan is None else self.plan
        state = "complete" if self.complete else "CUT OFF (no closing line)"
        return (f"{len(self.tests)}/{plan} tests: {c['passed']} passed, "
                f"{c['failed']} failed, {c['skipped']} skipped; {state}; "
                f"{len(self.metrics)} metrics; {len(self.problems)} problems")

    def to_dict(self):
        return dataclasses.asdict(self) | {"complete": self.complete,
                                           "counts": self.counts()}


def split_lines(data):
    """Decode bytes or str into cleaned lines (blank lines kept as "")."""
    if isinstance(data, (bytes, bytearray)):
        data = bytes(data).decode("utf-8", errors="replace")
    data = data.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    return [clean_line(s) for s in data.split("\n")]


def clean_line(text):
    """Drop ANSI escape sequences, NULs and trailing white space."""
    return RE_ANSI.sub("", text).replace("\x00", "").rstrip()


def parse_header(text):
    """``# btslab 0.3.0 (git abc) boot=x firmware=y`` -> dict, else None."""
    m = RE_HEADER.match(text)
    if not m:
        return None
    return {"version": m.group(1), "git": m.group(2)} | parse_fields(m.group(3))


def parse_fields(text):
    """``a=1 b="x y" "quoted" word`` -> {"a": "1", "b": "x y", "_": [...]}."""
    out, bare = {}, []
    for key, value, quoted, word in RE_FIELD.findall(text):
        if key:
            out[key] = value[1:-1] if value.startswith('"') else value
        else:
            bare.append(quoted or word)
    if bare:
        out["_"] = bare
    return out


def parse_file(path):
    with open(path, "rb") as f:
        return parse(f.read())


def parse(data):
    """Parse a whole log (bytes or str) into a Log. Never raises."""
    log = Log()
    lines = split_lines(data)
    start = next((i for i, s in enumerate(lines) if s.endswith(TAP_VERSION)), None)
    if start is None:
        log.noise_lines = sum(1 for s in lines if s)
        log.problems.append("no 'TAP version 13' line: not a btslab log")
        return log
    log.found_tap = True
    log.noise_lines = sum(1 for s in lines[:start] if s)
    if lines[-1] and not RE_CLOSING.match(lines[-1]):
        # No newline at the end: the last line was cut in the middle.
        log.cut_line = lines.pop()
    _Parser(log).run(lines, start)
    _check(log)
    return log


class _Parser:
    """Line-by-line state machine over the TAP part of the log."""

    def __init__(self, log):
        self.log = log
        self.yaml = None        # lines of the open YAML block
        self.after_test = False  # the last non-blank line was a test line
        self.pending = []       # metrics waiting for their test

    def run(self, lines, start):
        for i in range(start + 1, len(lines)):
            text = lines[i]
            if self.yaml is not None:
                if self.yaml_line(i + 1, text):
                    continue
            if text:
                self.line(i + 1, text)
                self.after_test = bool(self.log.tests) and self.log.tests[-1].line == i + 1
        if self.yaml is not None:
            self.log.problems.append(
                f"test {self.log.tests[-1].number}: YAML block not closed")
            self.close_yaml()

    def yaml_line(self, n, text):
        """Consume a line of an open YAML block; False when it ends it."""
        if text == "  ...":
            self.close_yaml()
            return True
        if not text:  # an extra line break from the serial line
            return True
        if text.startswith("  "):
            if RE_UNPRINTABLE.search(text):
                self.log.garbled.append((n, text))
            self.yaml.append(text[2:])
            return True
        self.log.problems.append(
            f"line {n}: YAML block of test {self.log.tests[-1].number} not closed")
        self.close_yaml()
        return False

    def close_yaml(self):
        self.log.tests[-1].yaml = "\n".join(self.yaml)
        self.yaml = None

    def line(self, n, text):
        log = self.log
        if log.complete:
            self.after_closing(n, text)
        elif RE_UNPRINTABLE.search(text):
            log.garbled.append((n, text))
        elif text.endswith(TAP_VERSION):
            log.restarts += 1
        elif text.startswith("#"):
            self.comment(n, text)
        elif RE_PLAN.match(text):
            self.plan(n, int(RE_PLAN.match(text).group(1)))
        elif RE_TEST.match(text) and self.test(n, RE_TEST.match(text)):
            pass
        elif text == "  ---" and self.after_test:
            self.yaml = []
        elif RE_BAIL.match(text):
            log.bailout = RE_BAIL.match(text).group(1)
        else:
            log.garbled.append((n, text))

    def after_closing(self, n, text):
        if RE_TEST.match(text) or RE_PLAN.match(text) or text.startswith("# "):
            self.log.problems.append(f"line {n}: TAP output after the closing line")
        else:
            self.log.trailing_lines += 1

    def comment(self, n, text):
        log = self.log
        m = RE_METRIC.match(text)
        if m:
            self.metric(n, m.group(1))
        elif RE_CLOSING.match(text):
            p, f, s = map(int, RE_CLOSING.match(text).groups())
            log.closing = {"passed": p, "failed": f, "skipped": s}
        elif text.startswith("# btslab done"):
            log.garbled.append((n, text))
        elif log.plan is None and not log.tests:
            if not log.header_lines:
                log.header = parse_header(text) or {}
                if not log.header:
                    log.problems.append(f"line {n}: first header line is not "
                                        "'# btslab VERSION (git HASH) ...'")
            log.header_lines.append(text)
        else:
            log.comments.append((n, text))

    def metric(self, n, text):
        try:
            data = json.loads(text)
        except ValueError as e:
            self.log.bad_metrics.append((n, f"bad JSON: {e}"))
            return
        why = metric_error(data)
        if why:
            self.log.bad_metrics.append((n, why))
            return
        m = Metric(data, n)
        self.log.metrics.append(m)
        self.pending.append(m)

    def plan(self, n, count):
        if self.log.plan is not None:
            self.log.problems.append(f"line {n}: second plan line")
            return
        if self.log.tests:
            self.log.problems.append(f"line {n}: plan comes after the first test")
        self.log.plan = count

    def test(self, n, m):
        """Record a test line; False if it is too broken to be one."""
        word, number, name, directive = m.groups()
        if not number or not name or " " in name:
            return False
        t = Test(int(number), name, "ok" if word == "ok" else "fail", line=n)
        if directive is not None:
            skip, timeout = RE_SKIP.match(directive), RE_TIMEOUT.match(directive)
            if skip and t.status == "ok":
                t.status, t.reason = "skip", skip.group(1)
                if not t.reason:
                    self.log.problems.append(f"test {t.number} ({name}): SKIP without a reason")
            elif timeout and t.status == "fail":
                t.status, t.reason = "timeout", directive
                t.timeout_ms = int(timeout.group(1)) if timeout.group(1) else None
            else:
                t.reason = directive
                self.log.problems.append(
                    f"test {t.number} ({name}): unexpected directive '# {directive}'")
        if not RE_NAME.match(name):
            self.log.problems.append(f"test {t.number}: name '{name}' is not dotted lower case")
        for metric in self.pending:
            metric.test = t.number
        t.metrics, self.pending = self.pending, []
        self.log.tests.append(t)
        return True


def metric_error(data):
    """Why a decoded metric breaks OUTPUT.md's rules, or "" if it does not."""
    if not isinstance(data, dict):
        return "metric is not a JSON object"
    missing = [k for k in ("name", "unit") if k not in data]
    if "value" not in data:
        missing += [k for k in METRIC_STATS if k not in data]
    return f"metric lacks {', '.join(missing)}" if missing else ""


def _check(log):
    """Consistency problems of a parsed log (appended to log.problems)."""
    p = log.problems
    if not log.header_lines:
        p.append("no header lines before the plan")
    if log.plan is None:
        p.append("no plan line '1..N'")
    elif log.plan != len(log.tests):
        p.append(f"plan says {log.plan} tests, log has {len(log.tests)}")
    expect = 1
    for t in log.tests:
        if t.number != expect:
            p.append(f"line {t.line}: test {t.number} where {expect} was expected")
            break
        expect += 1
    for t in log.tests:
        if t.status == "fail" and t.yaml is None:
            p.append(f"test {t.number} ({t.name}): not ok without a YAML block")
    if log.bailout is not None:
        p.append(f"Bail out! {log.bailout}")
    if log.restarts:
        p.append(f"the log restarts {log.restarts} time(s): the machine rebooted")
    if log.garbled:
        n, text = log.garbled[0]
        p.append(f"{len(log.garbled)} garbled line(s), first at line {n}: {text[:60]!r}")
    for n, why in log.bad_metrics:
        p.append(f"line {n}: {why}")
    if log.closing is None:
        p.append("no closing line '# btslab done: ...': the run crashed or the log is cut off")
    elif log.closing != log.counts():
        c = log.counts()
        p.append("closing line says {passed} passed, {failed} failed, {skipped} skipped"
                 .format(**log.closing) +
                 ", counted {passed}, {failed}, {skipped}".format(**c))


def main(argv):
    args = [a for a in argv if a != "--json"]
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: btslab_log.py [--json] LOG", file=sys.stderr)
        return 2
    try:
        log = parse_file(args[0])
    except OSError as e:
        print(f"btslab_log: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    if "--json" in argv:
        print(json.dumps(log.to_dict(), indent=1))
    else:
        print(log.summary())
        for problem in log.problems:
            print("  problem:", problem)
    return 0 if log.complete and not log.problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
