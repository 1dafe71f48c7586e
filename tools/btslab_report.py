"""The model behind tools/report, tools/compare and tools/junit.

A btslab serial log (parsed by btslab_log, never raising) becomes:

- load(path): the Log, or InputError with a one-line reason for a file that
  is missing, empty, binary or not a btslab log;
- entries(log): one Entry per `# metric` line, with its numbers checked
  (NaN, strings and nested objects never reach arithmetic), its parameters
  (mode, backend, strategy, ring, format, records, buffer, rate, ...) and
  the test it belongs to;
- machine(log), features(log), hypervisor(log): facts from the header;
- integrity(log): what was wrong with the log (cut off, garbled lines,
  bad metric lines, consistency problems), in words;
- Doc: a small document model (headings, paragraphs, notes, tables, code,
  figures) rendered as well-formed HTML and as Markdown; Table also renders
  as aligned plain text.

write_report(log, out_dir) puts index.html, report.md and plots/ (see
btslab_plots and docs/report.md) in out_dir. main() is tools/report.
"""

import datetime
import functools
import html
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import btslab_log  # noqa: E402

STATS = ("min", "median", "p99", "max", "n", "mean")
# Fields that say which variant of a measurement a metric is, in column
# order; any other string-valued field is a parameter too.
PARAM_KEYS = ("mode", "backend", "strategy", "ring", "format", "source",
              "records", "buffer", "size", "rate", "cpu", "cpus")
# String fields that describe rather than select: details, not parameters
# (and any KEY_unit, the unit of the field KEY).
PROSE_KEYS = ("note", "reason", "message")
# Shown elsewhere (machine section, notes), not in a metric's details.
QUIET_KEYS = ("tsc_hz", "hypervisor")
HYPERVISORS = {"KVMKVMKVM": "KVM", "TCGTCGTCGTCG": "QEMU TCG (emulation)",
               "Microsoft Hv": "Hyper-V", "VMwareVMware": "VMware",
               "XenVMMXenVMM": "Xen", "VBoxVBoxVBox": "VirtualBox",
               "bhyve bhyve ": "bhyve", " lrpepyh  vr": "Parallels"}
MAX_LISTED = 20  # garbled lines, bad metric lines ... listed by example
MAX_BYTES = 256 << 20  # a bigger file is no serial log


class InputError(Exception):
    """The input cannot be read as a btslab log; the message says why."""


# --- loading ----------------------------------------------------------------

def load(path):
    """Parse the log at path; InputError if it is not a btslab log."""
    path = str(path)
    try:
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a log file")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{path}: more than {MAX_BYTES >> 20} MiB, not a serial log")
    return load_bytes(data, path)


def load_bytes(data, path="<log>"):
    """Like load() for the contents of a file."""
    if not data.strip(b" \t\r\n\x00"):
        raise InputError(f"{path}: empty file, not a btslab log")
    if data.startswith(b"\x7fELF"):
        raise InputError(f"{path}: not a btslab log: an ELF file (the kernel image? "
                         "give the serial log)")
    if binary(data):
        raise InputError(f"{path}: not a btslab log: binary data")
    log = btslab_log.parse(data)
    if not log.found_tap:
        raise InputError(f"{path}: not a btslab log: {describe_foreign(data)}")
    if not is_btslab(log):
        raise InputError(f"{path}: not a btslab log: TAP output without a "
                         "'# btslab VERSION (git ID)' header, metric or closing line")
    return log


def binary(data):
    """True when over 30 % of the characters (NULs aside, as an idle serial
    line sends them) are neither text nor escape sequences: an image, an
    archive, a core file. Serial noise in a log is far less."""
    sample = data[:1 << 20].replace(b"\x00", b"")
    if not sample:
        return False
    text = sample.decode("utf-8", "replace")
    odd = sum(1 for c in text if c == "\ufffd" or c == "\x7f" or
              (c < " " and c not in "\t\n\r\x1b"))
    return odd > 0.3 * len(text)


def describe_foreign(data):
    """A few words on what a file without a 'TAP version 13' line is."""
    sample = data[:4096]
    if sample.startswith(b"\x7fELF"):
        return "an ELF file (the kernel image? give the serial log)"
    text = sample.decode("utf-8", "replace")
    odd = sum(1 for c in text if c == "\ufffd" or c == "\x7f" or
              (c < " " and c not in "\t\n\r\x1b"))
    if odd > 0.1 * len(text):
        return "binary data, no 'TAP version 13' line"
    first = next((s for s in btslab_log.split_lines(sample) if s.strip()), "")
    return f"no 'TAP version 13' line (first line: {first[:60]!r})"


def is_btslab(log):
    """True unless the TAP part has content and none of it is btslab's.

    A log cut off right after 'TAP version 13' is a btslab run that died
    early; TAP from another producer has tests but no btslab header,
    metric or closing line."""
    if not log.found_tap:
        return False
    marks = (log.header or log.closing or log.metrics or log.bad_metrics
             or any(s.startswith(("# btslab", "# cpu ", "# loader ", "# apic "))
                    for s in log.header_lines))
    content = log.tests or log.plan is not None or log.comments or log.header_lines
    return bool(marks or not content)


# --- numbers and text -------------------------------------------------------

def num(x):
    """x as a finite float, or None (bools, strings, NaN, inf are not numbers)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


_BAD_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text):
    """Text that is safe in XML and in a UTF-8 file: control characters and
    lone surrogates become \\xNN / \\uNNNN."""
    text = str(text)

    def esc(m):
        c = ord(m.group(0))
        return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    return _BAD_XML.sub(esc, text)


def fmt(x, digits=3):
    """A number for a table: ints grouped, others to `digits` significant."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if not isinstance(x, (int, float)):
        return clean(x)
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def fmt_ratio(r):
    if r is None:
        return ""
    return f"{r:.3g}x" if r < 1000 else f"{r:,.0f}x"


def ratio(a, b):
    """b / a, or None when it has no meaning."""
    a, b = num(a), num(b)
    if a is None or b is None or a == 0:
        return None
    return b / a


def fmt_time(cycles, hz):
    """Cycles at hz as a time ("3.2 us"), or ""."""
    cycles, hz = num(cycles), num(hz)
    if cycles is None or not hz or hz <= 0:
        return ""
    s = cycles / hz
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(s) >= scale or unit == "ns":
            return f"{s / scale:.3g} {unit}"
    return ""


def flatten(value, prefix=""):
    """Nested JSON as [("a.b", "text"), ...]."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += flatten(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    if isinstance(value, list):
        text = json.dumps(value, separators=(",", ":"))
        return [(prefix, text if len(text) < 80 else text[:77] + "...")]
    if value is None:
        return [(prefix, "null")]
    return [(prefix, fmt(value) if not isinstance(value, str) else clean(value))]


# --- metrics ----------------------------------------------------------------

@dataclass
class Entry:
    """One metric line, checked. kind is "stats" (min/median/p99/max/n) or
    "value"; numbers that are not finite numbers are None and named in bad."""
    name: str
    unit: str
    kind: str
    data: dict
    line: int
    stats: dict = field(default_factory=dict)
    value: Optional[float] = None
    params: dict = field(default_factory=dict)   # key -> raw JSON value
    extra: list = field(default_factory=list)    # [(key, text)] flattened
    test: Optional[object] = None                # btslab_log.Test
    bad: list = field(default_factory=list)
    occurrence: int = 0                          # n-th entry with this key

    @property
    def group(self):
        return self.name.split(".", 1)[0]

    @property
    def hypervisor(self):
        h = self.data.get("hypervisor")
        return clean(h) if isinstance(h, str) and h else None

    @property
    def tsc_hz(self):
        return num(self.data.get("tsc_hz"))

    @functools.cached_property
    def key(self):
        """What identifies the measurement across logs: name, unit and
        parameters (not the test number)."""
        return (self.name, self.unit) + tuple(
            (k, json.dumps(v, sort_keys=True)) for k, v in self.params.items())

    def param_text(self, sep=" "):
        return sep.join(f"{k}={fmt(v) if not isinstance(v, str) else clean(v)}"
                        for k, v in self.params.items())

    def label(self):
        p = self.param_text()
        return f"{self.name} [{p}]" if p else self.name

    def y(self):
        """The central figure: the median, else the value."""
        return self.stats.get("median") if self.kind == "stats" else self.value

    def box(self):
        """(min, median, p99, max) if all are numbers in order, else None."""
        q = [self.stats.get(k) for k in ("min", "median", "p99", "max")]
        if self.kind != "stats" or None in q or not q[0] <= q[1] <= q[2] <= q[3]:
            return None
        return tuple(q)


def entries(log):
    """Entry for every good metric line of the log, in log order."""
    by_line = {}
    for t in log.tests:
        for m in t.metrics:
            by_line[m.line] = t
    out, seen = [], {}
    for m in log.metrics:
        e = make_entry(m.data, m.line)
        e.test = by_line.get(m.line)
        e.occurrence = seen.get(e.key, 0)
        seen[e.key] = e.occurrence + 1
        out.append(e)
    return out


def make_entry(data, line=0):
    name = data.get("name")
    name = clean(name) if isinstance(name, str) and name else f"(unnamed, line {line})"
    unit = data.get("unit")
    unit = clean(unit) if isinstance(unit, (str, int, float)) else json.dumps(unit)
    kind = "stats" if "median" in data or "value" not in data else "value"
    e = Entry(name, unit, kind, data, line)
    if kind == "stats":
        for k in STATS:
            if k in data:
                e.stats[k] = num(data[k])
                if e.stats[k] is None:
                    e.bad.append(f"{k} is {json.dumps(data[k])[:20]}, not a number")
        q = [e.stats.get(k) for k in ("min", "median", "p99", "max")]
        if None not in q and not q[0] <= q[1] <= q[2] <= q[3]:
            e.bad.append("min <= median <= p99 <= max does not hold")
    else:
        e.value = num(data.get("value"))
        if e.value is None and data.get("value") is not None:
            e.bad.append(f"value is {json.dumps(data['value'])[:20]}, not a number")
    for k in PARAM_KEYS:
        if k in data and isinstance(data[k], (str, int, float)) and not isinstance(data[k], bool):
            e.params[k] = data[k]
    skip = {"name", "unit", "value", *STATS, *QUIET_KEYS}
    for k, v in data.items():
        if k in skip or k in e.params:
            continue
        if isinstance(v, str) and k not in PROSE_KEYS and not k.endswith("_unit"):
            e.params[k] = v
        else:
            e.extra += flatten(v, k)
    return e


def groups(ents):
    """{prefix: [entries]} in order of first appearance."""
    out = {}
    for e in ents:
        out.setdefault(e.group, []).append(e)
    return out


def metric_tables(ents, tsc_hz=None):
    """[(title, Table)] per name prefix, distributions and values apart."""
    out = []
    for prefix, items in groups(ents).items():
        for kind in ("stats", "value"):
            rows = [e for e in items if e.kind == kind]
            if rows:
                out.append((f"{prefix}.*" + (" (distributions)" if kind == "stats"
                                              else " (values)"),
                            metric_table(rows, kind, tsc_hz)))
    return out


def metric_table(rows, kind, tsc_hz=None):
    keys = []
    for e in rows:
        keys += [k for k in e.params if k not in keys]
    cols = ["metric"] + keys + ["unit"]
    if kind == "stats":
        cols += ["min", "median", "p99", "max", "n", "median time"]
    else:
        cols += ["value"]
    cols += ["test", "details"]
    t = Table(cols, numeric={c for c in cols if c in STATS or c in (
        "value", "records", "buffer", "size", "rate", "cpu", "cpus", "median time")})
    for e in rows:
        r = [e.name] + [fmt(e.params[k]) if k in e.params else "" for k in keys] + [e.unit]
        if kind == "stats":
            r += [fmt(e.stats.get(k)) for k in ("min", "median", "p99", "max", "n")]
            r.append(fmt_time(e.stats.get("median"), e.tsc_hz or tsc_hz)
                     if e.unit == "cycles" else "")
        else:
            r.append(fmt(e.value) if e.value is not None else
                     clean(json.dumps(e.data.get("value"))))
        r.append(test_ref(e.test))
        details = ", ".join(f"{k}={v}" for k, v in e.extra)
        if e.bad:
            details = "; ".join(["BAD: " + ", ".join(e.bad)] + ([details] if details else []))
        r.append(Cell(details, "bad") if e.bad else details)
        t.rows.append(r)
    return t


def test_ref(t):
    if t is None:
        return "(no verdict line)"
    return f"{t.number} {t.name} ({STATUS_WORD.get(t.status, t.status)})"


STATUS_WORD = {"ok": "ok", "fail": "FAILED", "skip": "skipped", "timeout": "TIMEOUT",
               None: "absent"}


# --- header facts -----------------------------------------------------------

def hypervisor(log):
    """(vendor, friendly name, note) if the log says it ran in a VM, else None."""
    info = log.info("hypervisor")
    vendor = info.get("vendor")
    if vendor is None:
        vendors = {e for e in (num_safe_str(m.data.get("hypervisor")) for m in log.metrics) if e}
        if not vendors:
            return None
        vendor = sorted(vendors)[0]
    vendor = clean(vendor)
    friendly = HYPERVISORS.get(vendor, vendor.strip() or "unknown")
    return vendor, friendly, clean(info.get("note", ""))


def num_safe_str(x):
    return x if isinstance(x, str) else None


def tsc_hz(log):
    return num(_float(log.info("cpu").get("tsc_hz")))


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def machine(log):
    """[(what, text)] from the header lines, in a fixed order."""
    h, cpu = log.header, log.info("cpu")
    rows = []

    def add(what, *parts, sep=" "):
        text = sep.join(clean(p) for p in parts if p not in (None, ""))
        if text.strip():
            rows.append((what, text))
    if h:
        add("btslab", h.get("version"), f"(git {h.get('git')})" if h.get("git") else "")
        add("boot", ", ".join(f"{k}={clean(h[k])}" for k in ("boot", "firmware") if k in h))
    loader = log.info("loader")
    add("loader", loader.get("name"))
    if "cmdline" in loader:
        add("command line", repr(loader["cmdline"]) if loader["cmdline"] else "(empty)")
    add("CPU", " ".join(cpu.get("_", [])))
    ident = [f"{k}={cpu[k]}" for k in ("vendor", "family", "model", "stepping") if k in cpu]
    add("CPU identity", " ".join(ident))
    hz = tsc_hz(log)
    if hz:
        how = ", ".join(f"{k}={clean(cpu[k])}" for k in ("tsc_source", "invariant_tsc")
                        if k in cpu)
        add("TSC", f"{hz / 1e9:.4f} GHz", f"({how})" if how else "")
    smp, madt = log.info("smp"), log.info("acpi")
    if smp:
        add("CPUs online", smp.get("online"),
            f"of {smp['listed']} listed" if "listed" in smp else "",
            f"({smp['failed']} failed to start)" if smp.get("failed", "0") != "0" else "")
    elif "cpus" in madt:
        add("CPUs (ACPI)", madt.get("cpus"))
    mem = log.info("memory")
    if "usable_mib" in mem:
        add("memory", f"{mem['usable_mib']} MiB usable")
    apic = log.info("apic")
    add("APIC", ", ".join(f"{k}={clean(apic[k])}" for k in ("mode", "firmware_mode", "cpus")
                          if k in apic))
    bts = log.info("bts")
    if "hw" in bts:
        add("BTS hardware", bts["hw"], f"({bts['reason']})" if bts.get("reason") else "")
    hv = hypervisor(log)
    add("hypervisor", f"{hv[1]} (CPUID vendor {hv[0]!r})" if hv else "none reported")
    wd = log.info("watchdog")
    add("watchdog", ", ".join(f"{k}={clean(wd[k])}" for k in ("tick", "hz", "default_ms")
                              if k in wd))
    seed = next((parse_seed(s) for s in log.header_lines if s.startswith("# seed=")), None)
    add("seed", seed)
    boot = log.info("boot")
    us = num(_float(boot.get("us")))
    if us is not None:
        add("boot to first test", fmt_time(us, 1e6))
    return rows


def parse_seed(line):
    return btslab_log.parse_fields(line[2:]).get("seed")


FEATURE_NOTES = {
    "ds": "Debug Store (CPUID.1:EDX[21])", "dtes64": "64-bit DS area (CPUID.1:ECX[2])",
    "ds_cpl": "CPL-qualified DS (CPUID.1:ECX[4])", "pdcm": "perf capabilities MSR",
    "bts": "Branch Trace Store usable", "pebs": "PEBS", "x2apic": "x2APIC",
    "tsc_deadline": "TSC-deadline timer", "perfmon": "architectural perfmon version",
    "counters": "general-purpose counters", "invariant_tsc": "invariant TSC",
}


def features(log):
    """[(feature, value, note)] from '# cpu' flags and other header lines."""
    cpu = log.info("cpu")
    rows = []
    for k, v in cpu.items():
        if k in ("vendor", "family", "model", "stepping", "_", "tsc_hz", "tsc_source"):
            continue
        text = {"0": "no", "1": "yes"}.get(v, clean(v)) if k not in ("perfmon", "counters") \
            else clean(v)
        rows.append((k, text, FEATURE_NOTES.get(k, "")))
    bts = log.info("bts")
    if "hw" in bts:
        rows.append(("bts hw", clean(bts["hw"]), clean(bts.get("reason", ""))))
    hpet = log.info("hpet")
    if "usable" in hpet:
        rows.append(("hpet", {"1": "yes", "0": "no"}.get(hpet["usable"], clean(hpet["usable"])),
                     clean(hpet.get("reason", ""))))
    apic = log.info("apic")
    if "mode" in apic:
        rows.append(("apic mode", clean(apic["mode"]), "as the kernel set it up"))
    return rows


def integrity(log):
    """[(severity, text)]: how trustworthy the log itself is."""
    out = []
    if not log.complete:
        last = log.tests[-1] if log.tests else None
        where = f"after test {last.number} ({last.name})" if last else "before the first test"
        plan = f" ({log.plan - len(log.tests)} of the {log.plan} planned tests never reported)" \
            if log.plan is not None and log.plan > len(log.tests) else ""
        why = f"Bail out! {clean(log.bailout)}" if log.bailout is not None else \
            "no closing line '# btslab done: ...'"
        out.append(("error", f"CUT OFF: the log ends {where}: {why}: the run crashed, "
                             f"hung or the log was cut{plan}."))
    if log.cut_line is not None:
        out.append(("warn", f"the last line has no line end (cut in the middle), not read: "
                            f"{clean(log.cut_line[:80])!r}"))
    if log.garbled:
        out.append(("warn", f"{len(log.garbled)} line(s) could not be parsed (garbled) and "
                            f"were skipped; the first at line {log.garbled[0][0]}"))
    if log.bad_metrics:
        out.append(("warn", f"{len(log.bad_metrics)} '# metric' line(s) could not be read "
                            f"and are left out of the tables"))
    for p in log.problems:
        if p.startswith(("no closing line", f"{len(log.garbled)} garbled")) or \
                re.match(r"line \d+: (bad JSON|metric )", p) or \
                (not log.complete and p.startswith("plan says")):
            continue  # said above
        out.append(("warn", clean(p)))
    return out


def parse_stats(log):
    """[(what, number)] about the parsing itself."""
    return [("lines before 'TAP version 13' (firmware, loader)", log.noise_lines),
            ("header lines", len(log.header_lines)),
            ("test lines", len(log.tests)),
            ("plan", "none" if log.plan is None else log.plan),
            ("metric lines read", len(log.metrics)),
            ("metric lines that did not parse", len(log.bad_metrics)),
            ("lines that did not parse (garbled)", len(log.garbled)),
            ("lines after the closing line", log.trailing_lines),
            ("restarts (another 'TAP version 13')", log.restarts),
            ("closing line", "present" if log.complete else "MISSING")]


def verdict_line(log):
    c = log.counts()
    plan = "?" if log.plan is None else log.plan
    state = "complete" if log.complete else "CUT OFF"
    return (f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped "
            f"({len(log.tests)} of {plan} planned tests reported; log {state})")


# --- documents --------------------------------------------------------------

@dataclass
class Cell:
    text: str
    cls: str = ""   # "bad", "good", "warn" for HTML colouring

    def __str__(self):
        return self.text


@dataclass
class Table:
    columns: list
    rows: list = field(default_factory=list)
    numeric: set = field(default_factory=set)   # right-aligned column names

    def drop_empty(self):
        """Drop columns that are empty in every row (after the first)."""
        keep = [i for i, c in enumerate(self.columns)
                if i == 0 or any(str(r[i]) for r in self.rows)]
        self.columns = [self.columns[i] for i in keep]
        self.rows = [[r[i] for i in keep] for r in self.rows]
        return self

    def text(self, max_width=60):
        cells = [[clean(c) for c in self.columns]] + \
            [[clean(str(c)).replace("\n", " ") for c in r] for r in self.rows]
        cells = [[c if len(c) <= max_width else c[:max_width - 3] + "..." for c in r]
                 for r in cells]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        right = [c in self.numeric for c in self.columns]
        lines = []
        for j, r in enumerate(cells):
            lines.append("  ".join(c.rjust(w) if rt and j else c.ljust(w)
                                   for c, w, rt in zip(r, widths, right)).rstrip())
            if j == 0:
                lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def markdown(self):
        head = "| " + " | ".join(md_cell(c) for c in self.columns) + " |"
        rule = "|" + "|".join("---:" if c in self.numeric else "---" for c in self.columns) + "|"
        body = ["| " + " | ".join(md_cell(str(c)) for c in r) + " |" for r in self.rows]
        return "\n".join([head, rule] + body)

    def html(self):
        def td(c, col, tag="td"):
            cls = [x for x in ("num" if col in self.numeric else "",
                               getattr(c, "cls", "")) if x]
            attr = f' class="{" ".join(cls)}"' if cls else ""
            return f"<{tag}{attr}>{h(str(c))}</{tag}>"
        out = ["<table>", "<thead><tr>" + "".join(td(c, c, "th") for c in self.columns)
               + "</tr></thead>", "<tbody>"]
        for r in self.rows:
            out.append("<tr>" + "".join(td(c, col) for c, col in zip(r, self.columns)) + "</tr>")
        out.append("</tbody></table>")
        return "\n".join(out)


def h(text):
    """HTML-escaped, XML-safe text."""
    return html.escape(clean(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*|<>\[\]])")


def md_cell(text):
    return _MD_SPECIAL.sub(r"\\\1", clean(text)).replace("\n", " ")


def md_text(text):
    return _MD_SPECIAL.sub(r"\\\1", clean(text))


class Doc:
    """Blocks rendered as HTML and as Markdown."""

    def __init__(self, title):
        self.title = title
        self.blocks = []

    def heading(self, level, text, anchor=None):
        self.blocks.append(("h", level, text, anchor))

    def para(self, text):
        self.blocks.append(("p", text))

    def note(self, severity, text):
        """severity: "error", "warn" or "info"."""
        self.blocks.append(("note", severity, text))

    def bullets(self, items):
        self.blocks.append(("ul", list(items)))

    def table(self, table, caption=""):
        self.blocks.append(("table", table, caption))

    def code(self, text, summary=None):
        """Preformatted text; folded under summary in HTML when given."""
        self.blocks.append(("pre", text, summary))

    def figure(self, png, svg, caption):
        self.blocks.append(("fig", png, svg, caption))

    def html(self):
        out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
               '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
               f"<title>{h(self.title)}</title>", f"<style>{CSS}</style>", "</head>",
               "<body>", f"<h1>{h(self.title)}</h1>"]
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                anchor = f' id="{h(b[3])}"' if b[3] else ""
                out.append(f"<h{b[1] + 1}{anchor}>{h(b[2])}</h{b[1] + 1}>")
            elif kind == "p":
                out.append(f"<p>{h(b[1])}</p>")
            elif kind == "note":
                out.append(f'<div class="note {b[1]}">{h(b[2])}</div>')
            elif kind == "ul":
                out.append("<ul>" + "".join(f"<li>{h(i)}</li>" for i in b[1]) + "</ul>")
            elif kind == "table":
                cap = f"<p class=\"caption\">{h(b[2])}</p>" if b[2] else ""
                out.append(f'<div class="scroll">{b[1].html()}</div>{cap}')
            elif kind == "pre":
                pre = f"<pre>{h(b[1])}</pre>"
                out.append(f"<details><summary>{h(b[2])}</summary>{pre}</details>"
                           if b[2] else pre)
            elif kind == "fig":
                png, svg, cap = b[1], b[2], b[3]
                links = f' (<a href="{h(svg)}">SVG</a>)' if svg else ""
                out.append(f'<figure><a href="{h(png)}"><img src="{h(png)}" alt="{h(cap)}"/></a>'
                           f"<figcaption>{h(cap)}{links}</figcaption></figure>")
        out += ["</body>", "</html>", ""]
        return "\n".join(out)

    def text(self):
        """Plain text for a terminal: underlined headings, aligned tables."""
        out = [clean(self.title), "=" * len(clean(self.title)), ""]
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                t = clean(b[2])
                out += [t, ("=" if b[1] == 1 else "-") * len(t), ""]
            elif kind == "p":
                out += [clean(b[1]), ""]
            elif kind == "note":
                label = {"error": "ERROR: ", "warn": "WARNING: "}.get(b[1], "NOTE: ")
                out += [label + clean(b[2]), ""]
            elif kind == "ul":
                out += ["- " + clean(i) for i in b[1]] + [""]
            elif kind == "table":
                out += [b[1].text(), ""] + ([clean(b[2]), ""] if b[2] else [])
            elif kind == "pre":
                out += ([clean(b[2]) + ":"] if b[2] else []) + \
                    ["    " + s for s in clean(b[1]).splitlines()] + [""]
            elif kind == "fig":
                out += [f"[figure {b[1]}] {clean(b[3])}", ""]
        return "\n".join(out)

    def markdown(self):
        out = [f"# {md_text(self.title)}", ""]
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                out += ["#" * (b[1] + 1) + " " + md_text(b[2]), ""]
            elif kind == "p":
                out += [md_text(b[1]), ""]
            elif kind == "note":
                label = {"error": "**ERROR:** ", "warn": "**Warning:** "}.get(b[1], "**Note:** ")
                out += ["> " + label + md_text(b[2]).replace("\n", " "), ""]
            elif kind == "ul":
                out += ["- " + md_text(i).replace("\n", " ") for i in b[1]] + [""]
            elif kind == "table":
                out += [b[1].markdown(), ""]
                if b[2]:
                    out += [md_text(b[2]), ""]
            elif kind == "pre":
                if b[2]:
                    out += [md_text(b[2]) + ":", ""]
                text = clean(b[1]).replace("```", "'''")
                out += ["```", text, "```", ""]
            elif kind == "fig":
                png, svg, cap = b[1], b[2], b[3]
                alt = re.sub(r"[\[\]\\]", "", clean(cap))
                out += [f"![{alt}]({png})", "", md_text(cap) +
                        (f" ([SVG]({svg}))" if svg else ""), ""]
        return "\n".join(out)


CSS = ("body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:80em;padding:0 1em;"
       "color:#222}table{border-collapse:collapse;font-size:0.85em;margin:0.4em 0}"
       "th,td{border:1px solid #ccc;padding:0.2em 0.5em;text-align:left;vertical-align:top}"
       "th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums}"
       "td.bad{color:#a00;font-weight:bold}td.good{color:#070}td.warn{color:#a60}"
       ".note{border-left:0.4em solid #48c;background:#eef4fb;padding:0.5em 0.8em;margin:0.6em 0}"
       ".note.warn{border-color:#d90;background:#fff7e0}"
       ".note.error{border-color:#c00;background:#fde8e8;font-weight:bold}"
       "pre{background:#f6f6f6;padding:0.6em;overflow-x:auto;font-size:0.8em}"
       ".scroll{overflow-x:auto}figure{margin:1em 0}figure img{max-width:100%;"
       "border:1px solid #ddd}figcaption{font-size:0.85em;color:#444}"
       ".caption{font-size:0.85em;color:#555}h2{border-bottom:1px solid #ccc;margin-top:1.6em}")


# --- the report -------------------------------------------------------------

def build_report(log, name, plots=(), plot_note=None, generated=None):
    """The report as a Doc. plots: [(png, svg, caption, section)] relative
    to the report folder; plot_note: why there are no plots, if none."""
    doc = Doc(f"btslab report: {name}")
    ents = entries(log)
    hz = tsc_hz(log)
    doc.para(f"Verdict: {verdict_line(log)}. {len(ents)} metrics.")
    if generated:
        doc.para(generated)
    for sev, text in integrity(log):
        doc.note(sev, text)
    hv = hypervisor(log)
    if hv:
        vendor, friendly, note = hv
        extra = (" Under TCG every cycle count is the emulator's, not a processor's."
                 if vendor == "TCGTCGTCGTCG" else "")
        why = note.rstrip(".") + "." if note else (
            "anything that exits to the hypervisor (APIC, IPIs, MSRs, port I/O) is timed "
            "with the hypervisor's cost, not the hardware's.")
        doc.note("warn", f"Hypervisor present: {friendly} (CPUID vendor {vendor!r}). "
                         f"The latency figures in this report are the hypervisor's: {why}"
                         + extra)
    if plot_note:
        doc.note("info", plot_note)

    verdict_section(doc, log)

    doc.heading(1, "Plots", "plots")
    if plots:
        for png, svg, caption, _section in plots:
            doc.figure(png, svg, caption)
    else:
        doc.para("No plots: see the note at the top." if plot_note else
                 "No metric in this log has min/median/p99/max to plot.")

    doc.heading(1, "Machine", "machine")
    t = Table(["", "value"])
    t.rows = [[a, b] for a, b in machine(log)]
    if t.rows:
        doc.table(t)
    else:
        doc.para("The log has no header lines to describe the machine.")
    doc.heading(2, "Features")
    t = Table(["feature", "value", "what"])
    t.rows = [list(r) for r in features(log)]
    if t.rows:
        doc.table(t)
    else:
        doc.para("No feature lines in the header.")

    doc.heading(1, "Metrics", "metrics")
    if not ents:
        doc.para("The log has no readable '# metric' lines.")
    else:
        doc.para("Every '# metric' line, grouped by the first part of its name. Distributions "
                 "give min / median / p99 / max over n samples; cycles are TSC cycles and "
                 "'median time' converts them with the TSC frequency.")
        for title, table in metric_tables(ents, hz):
            doc.heading(2, title)
            doc.table(table.drop_empty())
    ll = livelock_table(ents)
    if ll is not None:
        doc.heading(2, "Livelock points")
        doc.table(ll, "the branch rate at which the traced work's forward progress falls "
                      "below 1 % (see docs/report.md)")

    all_tests(doc, log)

    doc.heading(1, "The log itself", "log")
    t = Table(["", "count"], numeric={"count"})
    t.rows = [[a, fmt(b) if not isinstance(b, str) else b] for a, b in parse_stats(log)]
    doc.table(t)
    if log.garbled:
        doc.code("\n".join(f"{n}: {clean(s)[:200]}" for n, s in log.garbled[:MAX_LISTED]) +
                 (f"\n... {len(log.garbled) - MAX_LISTED} more" if len(log.garbled) >
                  MAX_LISTED else ""),
                 f"Lines that did not parse ({len(log.garbled)})")
    if log.bad_metrics:
        doc.code("\n".join(f"{n}: {clean(w)}" for n, w in log.bad_metrics[:MAX_LISTED]),
                 f"Metric lines that did not parse ({len(log.bad_metrics)})")
    if log.comments:
        doc.code("\n".join(clean(s) for _, s in log.comments[:400]),
                 f"Other comment lines ({len(log.comments)}), e.g. the run's summary")
    if log.header_lines:
        doc.code("\n".join(clean(s) for s in log.header_lines), "Header lines")
    return doc


def verdict_section(doc, log):
    doc.heading(1, "Verdicts", "verdicts")
    c = log.counts()
    t = Table(["passed", "failed", "skipped", "reported", "planned", "closing line"],
              numeric={"passed", "failed", "skipped", "reported", "planned"})
    closing = "missing (cut off)" if not log.complete else \
        "{passed} passed, {failed} failed, {skipped} skipped".format(**log.closing)
    t.rows = [[str(c["passed"]), Cell(str(c["failed"]), "bad" if c["failed"] else "good"),
               str(c["skipped"]), str(len(log.tests)),
               "?" if log.plan is None else str(log.plan),
               Cell(closing, "" if log.complete else "bad")]]
    doc.table(t)
    failed = [x for x in log.tests if x.status in ("fail", "timeout")]
    if failed:
        doc.heading(2, f"Failed tests ({len(failed)})")
        t = Table(["#", "test", "status", "message", "at"], numeric={"#"})
        for x in failed:
            f = x.fields
            msg = f.get("message") or f.get("exception") or x.reason or "(no YAML message)"
            t.rows.append([str(x.number), x.name, Cell(STATUS_WORD[x.status], "bad"),
                           msg, f.get("at", f.get("rip", ""))])
        doc.table(t)
        doc.para("Their YAML blocks are under 'Failure details' below.")
    skipped = [x for x in log.tests if x.status == "skip"]
    if skipped:
        doc.heading(2, f"Skipped tests ({len(skipped)})")
        reasons = {}
        for x in skipped:
            reasons.setdefault(x.reason, []).append(x)
        t = Table(["reason", "tests", "count"], numeric={"count"})
        for reason, xs in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
            names = ", ".join(x.name for x in xs[:12]) + (", ..." if len(xs) > 12 else "")
            t.rows.append([reason or "(no reason given)", names, str(len(xs))])
        doc.table(t)


def all_tests(doc, log):
    if log.tests:
        t = Table(["#", "test", "status", "reason / message", "metrics"],
                  numeric={"#", "metrics"})
        for x in log.tests:
            word = STATUS_WORD.get(x.status, x.status)
            t.rows.append([str(x.number), x.name,
                           Cell(word, "bad" if x.status in ("fail", "timeout") else
                                ("warn" if x.status == "skip" else "good")),
                           x.reason or x.fields.get("message", ""), str(len(x.metrics))])
        doc.heading(1, f"All tests ({len(log.tests)})", "tests")
        doc.table(t)
    failed = [x for x in log.tests if x.status in ("fail", "timeout") and x.yaml]
    if failed:
        doc.heading(1, "Failure details", "failures")
        for x in failed:
            doc.code(x.yaml[:4000], f"YAML of test {x.number} ({x.name})")


def livelock_table(ents):
    """Livelock points found by btslab_plots' rules, or None."""
    try:
        import btslab_plots
    except ImportError:
        return None
    points = btslab_plots.livelock_points(ents)
    if not points:
        return None
    t = Table(["series", "livelock rate", "unit", "how it was found"],
              numeric={"livelock rate"})
    for p in points:
        t.rows.append([p["series"], fmt(p["rate"]) if p["rate"] is not None
                       else "not reached", p["unit"], p["source"]])
    return t


def write_report(log, out_dir, name, want_plots=True):
    """Write index.html, report.md and plots/ into out_dir; returns a dict
    with the paths, the number of plots and the note on missing plots."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots, note = [], None
    plot_dir = out_dir / "plots"
    if plot_dir.is_dir():  # leftovers of an earlier report of another log
        for f in plot_dir.iterdir():
            if f.suffix in (".png", ".svg") and f.is_file():
                f.unlink()
    if want_plots:
        import btslab_plots
        ok, why = btslab_plots.available()
        if ok:
            made, errors = btslab_plots.make_plots(entries(log), plot_dir, log)
            plots = [(f"plots/{p.stem}.png", f"plots/{p.stem}.svg", p.caption, p.section)
                     for p in made]
            if errors:
                note = "Some plots could not be drawn: " + "; ".join(errors[:5])
        else:
            note = f"Plots left out: {why}."
    else:
        note = "Plots left out: --no-plots was given."
    stamp = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    doc = build_report(log, name, plots, note,
                       f"Written by tools/report on {stamp} from {name}.")
    with open(out_dir / "index.html", "w", encoding="utf-8", errors="backslashreplace") as f:
        f.write(doc.html())
    with open(out_dir / "report.md", "w", encoding="utf-8", errors="backslashreplace") as f:
        f.write(doc.markdown())
    return {"html": out_dir / "index.html", "markdown": out_dir / "report.md",
            "plots": len(plots), "note": note}


def default_out_dir(log_path):
    stem = Path(log_path).name
    if stem.endswith(".log"):
        stem = stem[:-4]
    return ROOT / "build" / "report" / (stem or "log")


def main(argv):
    import argparse
    p = argparse.ArgumentParser(
        prog="report", description="Write an HTML page and a Markdown file (with plots) "
        "about one btslab serial log.",
        epilog="Exit status: 0 report written (whatever the tests' verdict), 2 the input is "
               "not a btslab log or the report cannot be written.")
    p.add_argument("log", metavar="LOG", help="serial log")
    p.add_argument("-o", "--out", metavar="DIR",
                   help="output folder (default build/report/LOGNAME/)")
    p.add_argument("--no-plots", action="store_true", help="tables only")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    args = p.parse_args(argv)
    try:
        log = load(args.log)
    except InputError as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else default_out_dir(args.log)
    try:
        res = write_report(log, out, Path(args.log).name, not args.no_plots)
    except OSError as e:
        print(f"report: cannot write {e.filename or out}: {e.strerror or e}", file=sys.stderr)
        return 2
    if not args.quiet:
        for sev, text in integrity(log):
            if sev == "error":
                print(f"report: {args.log}: {text}", file=sys.stderr)
        if res["note"]:
            print(f"report: {res['note']}", file=sys.stderr)
        print(f"report: {verdict_line(log)}; {len(log.metrics)} metrics, {res['plots']} plots")
        print(f"report: {res['html']} (and report.md)")
    return 0
