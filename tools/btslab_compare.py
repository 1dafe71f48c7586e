"""tools/compare: two btslab logs side by side (two machines, two versions).

    tools/compare A.log B.log [--format text|markdown|html] [-o FILE]

Three parts: how the machines differ (header facts and features), which
tests changed status (matched by name and, for repeated tests, by
occurrence), and every metric present in both logs (matched by name, unit
and parameters such as mode, strategy, records) with A's and B's median and
p99, or value, and the ratio B/A. Metrics in one log only are listed by
name. Exit status: 0 written, 2 an input is not a btslab log or the output
cannot be written.
"""

import argparse
import sys
from pathlib import Path

import btslab_report as R
from btslab_report import Cell, Doc, Table


def ratio_cell(a, b):
    r = R.ratio(a, b)
    if r is None:
        return ""
    return Cell(R.fmt_ratio(r), "warn" if r > 1.25 or r < 0.8 else "")


def keyed_tests(log):
    """{(name, occurrence): Test}."""
    out, seen = {}, {}
    for t in log.tests:
        n = seen.get(t.name, 0)
        seen[t.name] = n + 1
        out[(t.name, n)] = t
    return out


def keyed_entries(log):
    return {(e.key, e.occurrence): e for e in R.entries(log)}


def machine_table(a, b):
    rows_a = {k: v for k, v in R.machine(a)}
    rows_b = {k: v for k, v in R.machine(b)}
    for k, v, _ in R.features(a):
        rows_a[f"feature {k}"] = v
    for k, v, _ in R.features(b):
        rows_b[f"feature {k}"] = v
    t = Table(["", "A", "B", ""])
    same = 0
    for k in dict.fromkeys(list(rows_a) + list(rows_b)):
        va, vb = rows_a.get(k, "(absent)"), rows_b.get(k, "(absent)")
        if va == vb:
            same += 1
        t.rows.append([k, va, vb, Cell("differs", "warn") if va != vb else "same"])
    return t, same


def compare_doc(a, b, name_a, name_b):
    doc = Doc(f"btslab compare: A = {name_a}, B = {name_b}")
    for tag, log, name in (("A", a, name_a), ("B", b, name_b)):
        doc.para(f"{tag} ({name}): {R.verdict_line(log)}.")
        for sev, text in R.integrity(log):
            doc.note(sev, f"{tag}: {text}")
        hv = R.hypervisor(log)
        if hv:
            doc.note("info", f"{tag} ran under {hv[1]}: its latency figures are the "
                             f"hypervisor's, not the hardware's.")

    doc.heading(1, "Machines", "machines")
    t, same = machine_table(a, b)
    diff = len(t.rows) - same
    doc.para(f"{diff} of {len(t.rows)} facts differ.")
    doc.table(t)

    doc.heading(1, "Verdict differences", "verdicts")
    ta, tb = keyed_tests(a), keyed_tests(b)
    t = Table(["test", "A", "B", "B's reason / message"])
    unchanged = 0
    for key in dict.fromkeys(list(ta) + list(tb)):
        x, y = ta.get(key), tb.get(key)
        sx, sy = (x.status if x else None), (y.status if y else None)
        if sx == sy:
            unchanged += 1
            continue
        name = key[0] + (f" (run {key[1] + 1})" if key[1] else "")
        why = (y.reason or y.fields.get("message", "")) if y else \
            ("not in B" + ("" if b.complete else ": B was cut off"))
        bad = {"fail", "timeout"}
        cls = "bad" if sy in bad else ("good" if sx in bad and sy == "ok" else "warn")
        t.rows.append([name, R.STATUS_WORD.get(sx, sx), Cell(R.STATUS_WORD.get(sy, sy), cls), why])
    doc.para(f"{len(t.rows)} test(s) changed status, {unchanged} did not.")
    if t.rows:
        doc.table(t)

    doc.heading(1, "Metrics in both", "metrics")
    ea, eb = keyed_entries(a), keyed_entries(b)
    both = [k for k in ea if k in eb]
    hz_a, hz_b = R.tsc_hz(a), R.tsc_hz(b)
    if hz_a and hz_b and abs(hz_a / hz_b - 1) > 0.01:
        doc.note("info", f"The TSC frequencies differ (A {hz_a / 1e9:.3f} GHz, B "
                         f"{hz_b / 1e9:.3f} GHz): ratios of cycle counts are not ratios of "
                         f"times.")
    if not both:
        doc.para("No metric is present in both logs.")
    groups = {}
    for k in both:
        groups.setdefault(ea[k].group, []).append(k)
    for prefix, keys in groups.items():
        stats = [k for k in keys if ea[k].kind == "stats" and eb[k].kind == "stats"]
        values = [k for k in keys if k not in stats]
        if stats:
            t = Table(["metric", "parameters", "unit", "A median", "B median", "B/A",
                       "A p99", "B p99", "B/A p99"],
                      numeric={"A median", "B median", "B/A", "A p99", "B p99", "B/A p99"})
            for k in stats:
                x, y = ea[k], eb[k]
                t.rows.append([x.name + (f" #{k[1] + 1}" if k[1] else ""), x.param_text(),
                               x.unit, R.fmt(x.stats.get("median")), R.fmt(y.stats.get("median")),
                               ratio_cell(x.stats.get("median"), y.stats.get("median")),
                               R.fmt(x.stats.get("p99")), R.fmt(y.stats.get("p99")),
                               ratio_cell(x.stats.get("p99"), y.stats.get("p99"))])
            doc.heading(2, f"{prefix}.* (distributions)")
            doc.table(t.drop_empty())
        if values:
            t = Table(["metric", "parameters", "unit", "A", "B", "B/A"],
                      numeric={"A", "B", "B/A"})
            for k in values:
                x, y = ea[k], eb[k]
                t.rows.append([x.name + (f" #{k[1] + 1}" if k[1] else ""), x.param_text(),
                               x.unit, R.fmt(x.y()), R.fmt(y.y()), ratio_cell(x.y(), y.y())])
            doc.heading(2, f"{prefix}.* (values)")
            doc.table(t.drop_empty())
    only_a = [ea[k].label() for k in ea if k not in eb]
    only_b = [eb[k].label() for k in eb if k not in ea]
    for tag, items in (("A", only_a), ("B", only_b)):
        if items:
            doc.heading(2, f"Metrics only in {tag} ({len(items)})")
            doc.bullets(list(dict.fromkeys(items)))
    return doc


def main(argv):
    p = argparse.ArgumentParser(
        prog="compare", description="Compare two btslab serial logs: machines, verdicts, "
        "metrics (median and p99 with ratios B/A).",
        epilog="Exit status: 0 written, 2 an input is not a btslab log or the output "
               "cannot be written.")
    p.add_argument("a", metavar="A.log")
    p.add_argument("b", metavar="B.log")
    p.add_argument("--format", choices=("text", "markdown", "html"), default="text")
    p.add_argument("-o", "--out", metavar="FILE", help="write here instead of standard output")
    args = p.parse_args(argv)
    try:
        a, b = R.load(args.a), R.load(args.b)
    except R.InputError as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    doc = compare_doc(a, b, Path(args.a).name, Path(args.b).name)
    text = {"text": doc.text, "markdown": doc.markdown, "html": doc.html}[args.format]()
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8", errors="backslashreplace") as f:
                f.write(text)
        except OSError as e:
            print(f"compare: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2
    else:
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.flush()
    return 0
