"""tools/junit: JUnit XML of a btslab log's verdicts, for CI systems.

    tools/junit LOG [-o FILE] [--name NAME]

One <testsuite> (name btslab, or NAME) in a <testsuites> root. Each test line
is a <testcase name="area.case.variant" classname="btslab.area">:

- not ok: <failure type="failure|timeout|exception" message="YAML message">
  with the YAML block as text (failed, timed-out and faulting tests all
  count as failed, as in the log's closing line);
- SKIP: <skipped message="reason"/>;
- its `# metric` lines (the JSON as printed) in <system-out>.

The suite's <properties> carry the header facts (btslab version and git ID,
boot, firmware, CPU, TSC frequency, hypervisor) and the state of the log.
A log that is cut off, garbled or inconsistent gets one more testcase,
btslab.log, with an <error> saying so, so the CI page shows a crashed run.
Exit status: 0 written, 2 the input is not a btslab log or the output cannot
be written.
"""

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import btslab_report as R

FAILURE_TYPES = {"fail": "failure", "timeout": "timeout"}


def properties(log, log_name):
    props = []
    h = log.header
    for k in ("version", "git", "boot", "firmware"):
        if k in h:
            props.append((f"btslab.{k}", h[k]))
    cpu = log.info("cpu")
    if cpu.get("_"):
        props.append(("cpu", " ".join(cpu["_"])))
    for k in ("vendor", "family", "model", "stepping", "tsc_hz", "tsc_source"):
        if k in cpu:
            props.append((f"cpu.{k}", cpu[k]))
    hv = R.hypervisor(log)
    props.append(("hypervisor", hv[0] if hv else "none"))
    loader = log.info("loader")
    if "cmdline" in loader:
        props.append(("cmdline", loader["cmdline"]))
    props += [("log.file", log_name), ("log.complete", "true" if log.complete else "false"),
              ("log.garbled_lines", str(len(log.garbled))),
              ("log.bad_metric_lines", str(len(log.bad_metrics))),
              ("log.metrics", str(len(log.metrics)))]
    if log.plan is not None:
        props.append(("log.plan", str(log.plan)))
    return props


def testcase_of(t):
    case = ET.Element("testcase", name=R.clean(t.name),
                      classname="btslab." + R.clean(t.name.split(".", 1)[0]))
    if t.status in FAILURE_TYPES:
        f = t.fields
        kind = "exception" if "exception" in f or "vector" in f else FAILURE_TYPES[t.status]
        message = f.get("message") or f.get("exception") or t.reason or "not ok"
        if t.status == "timeout" and t.reason and t.reason not in message:
            message = f"{t.reason}: {message}"
        el = ET.SubElement(case, "failure", message=R.clean(message), type=kind)
        el.text = R.clean(t.yaml or t.reason or "not ok (no YAML block)")
    elif t.status == "skip":
        ET.SubElement(case, "skipped", message=R.clean(t.reason or "skipped"))
    if t.metrics:
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join("# metric " + R.clean(json.dumps(m.data, separators=(",", ":")))
                             for m in t.metrics) + "\n"
    return case


def junit_tree(log, log_name="log", suite_name="btslab"):
    """The <testsuites> element."""
    cases = [testcase_of(t) for t in log.tests]
    c = log.counts()
    errors = 0
    problems = [text for _sev, text in R.integrity(log)]
    if problems:
        errors = 1
        case = ET.Element("testcase", name="btslab.log", classname="btslab.log")
        first = next((p for p in problems if p.startswith("CUT OFF")), problems[0])
        el = ET.SubElement(case, "error", message=R.clean(first[:300]),
                           type="cut-off" if not log.complete else "bad-log")
        el.text = R.clean("\n".join(problems)) + "\n"
        cases.append(case)
    counts = {"tests": str(len(cases)), "failures": str(c["failed"]), "errors": str(errors),
              "skipped": str(c["skipped"])}
    root = ET.Element("testsuites", name=R.clean(suite_name), **counts)
    suite = ET.SubElement(root, "testsuite", name=R.clean(suite_name), **counts)
    props = ET.SubElement(suite, "properties")
    for k, v in properties(log, log_name):
        ET.SubElement(props, "property", name=R.clean(k), value=R.clean(v))
    suite.extend(cases)
    owned = {id(m) for t in log.tests for m in t.metrics}
    loose = [m for m in log.metrics if id(m) not in owned]
    if loose:
        out = ET.SubElement(suite, "system-out")
        out.text = "\n".join("# metric " + R.clean(json.dumps(m.data, separators=(",", ":")))
                             for m in loose) + "\n"
    return root


def junit_xml(log, log_name="log", suite_name="btslab"):
    """The document as text (UTF-8 declaration, indented)."""
    root = junit_tree(log, log_name, suite_name)
    if hasattr(ET, "indent"):
        ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def main(argv):
    p = argparse.ArgumentParser(
        prog="junit", description="JUnit XML of a btslab serial log's verdicts.",
        epilog="Exit status: 0 written, 2 the input is not a btslab log or the output "
               "cannot be written.")
    p.add_argument("log", metavar="LOG")
    p.add_argument("-o", "--out", metavar="FILE", help="write here instead of standard output")
    p.add_argument("--name", default="btslab", help="test suite name (default btslab)")
    args = p.parse_args(argv)
    try:
        log = R.load(args.log)
    except R.InputError as e:
        print(f"junit: {e}", file=sys.stderr)
        return 2
    text = junit_xml(log, Path(args.log).name, args.name)
    if args.out:
        try:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            with open(args.out, "w", encoding="utf-8", errors="backslashreplace") as f:
                f.write(text)
        except OSError as e:
            print(f"junit: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2
    else:
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.flush()
    return 0
