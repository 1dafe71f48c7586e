"""Plots for tools/report (matplotlib, imported only when drawing).

Two kinds of figure, chosen from the fields the metrics have (docs/report.md
is the contract with the kernel side):

- distributions: for each name prefix and unit, one row per metric that has
  min/median/p99/max: a whisker from min to max, a box from median to p99
  and a bar at the median. The log carries no samples, so nothing finer is
  drawn than these four numbers.
- sweeps: a metric family whose instances differ in one numeric parameter
  (x) becomes lines of y (median, else value) against x, one line per
  combination of the other parameters: char.drain_cost against records
  (log-log), char.duty_cycle against rate with the livelock points marked,
  and any other metric with distributions at 3 or more distinct
  records/buffer/size/rate values.

The selection functions (sweeps(), livelock_points()) need no matplotlib and
are used by the report's tables and the tests.
"""

import math
import os
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import btslab_report as R

MAX_ROWS = 25            # rows per distribution figure
REFERENCE = ("memcpy",)  # series drawn as the reference line
PROGRESS_LIMIT = 1.0     # % of forward progress below which the work is livelocked


@dataclass
class Sweep:
    family: str          # metric name; NAME.* belong to it too
    x_fields: tuple      # the first field present is x
    title: str
    x_base: int = 10     # log-scale base of x, 0 for linear
    y_log: bool = True
    livelock: bool = False
    y_label: str = ""    # what y is, before "median (unit)"


SWEEPS = (
    Sweep("char.drain_cost", ("records", "buffer", "size"), "Drain cost vs buffer size",
          x_base=2, y_log=True, y_label="drain cost"),
    Sweep("char.duty_cycle", ("rate",), "Duty cycle vs branch rate",
          x_base=10, y_log=False, livelock=True, y_label="CPU time in overflow handling"),
)
GENERIC_X = ("records", "buffer", "size", "rate")
LIVELOCK_NAMES = ("char.livelock",)  # besides FAMILY.livelock


@dataclass
class Plot:
    stem: str      # plots/STEM.png and plots/STEM.svg
    caption: str
    section: str   # "sweep" or "distribution"


def available():
    """(True, "") when matplotlib can draw here, else (False, why)."""
    if os.environ.get("BTSLAB_REPORT_NO_MATPLOTLIB"):
        return False, "matplotlib is disabled (BTSLAB_REPORT_NO_MATPLOTLIB is set)"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except Exception as e:  # ImportError, or a broken installation
        return False, (f"matplotlib is not available to {sys.executable} "
                       f"({e.__class__.__name__}: {e}); install python3-matplotlib "
                       f"('make deps' does) and run tools/report with /usr/bin/python3")
    return True, ""


# --- selection (no matplotlib) ----------------------------------------------

def in_family(name, family):
    return name == family or name.startswith(family + ".")


def is_livelock_metric(e):
    return e.name in LIVELOCK_NAMES or e.name.endswith(".livelock")


def x_of(e, fields):
    for f in fields:
        if f in e.data:
            return f, R.num(e.data[f])
    return None, None


def sweeps(ents):
    """[(Sweep, unit, [entries])]: the known families, then any other metric
    name with distributions (min/median/p99/max) at 3 or more distinct values
    of a GENERIC_X field."""
    out = []
    for spec in SWEEPS:
        members = [e for e in ents if in_family(e.name, spec.family)
                   and not is_livelock_metric(e) and x_of(e, spec.x_fields)[1] is not None
                   and e.y() is not None]
        for unit in dict.fromkeys(e.unit for e in members):
            out.append((spec, unit, [e for e in members if e.unit == unit]))
    by_name = {}  # other families: distributions only (counts are no sweep)
    for e in ents:
        if e.kind == "stats" and not any(in_family(e.name, s.family) for s in SWEEPS):
            by_name.setdefault((e.name, e.unit), []).append(e)
    for (name, unit), items in by_name.items():
        for f in GENERIC_X:
            xs = {R.num(e.data.get(f)) for e in items if e.y() is not None} - {None}
            if len(xs) >= 3:
                members = [e for e in items if R.num(e.data.get(f)) is not None
                           and e.y() is not None]
                spread = max(xs) / min(xs) if min(xs) > 0 else 0
                out.append((Sweep(name, (f,), f"{name} vs {f}",
                                  x_base=(2 if f != "rate" else 10) if spread > 20 else 0,
                                  y_log=False), unit, members))
                break
    return out


def series_key(e, spec):
    """The parameters other than x (and the name's suffix in the family)."""
    xf = x_of(e, spec.x_fields)[0]
    key = [(k, R.fmt(v) if not isinstance(v, str) else R.clean(v))
           for k, v in e.params.items() if k != xf]
    if e.name != spec.family:
        key.insert(0, ("metric", e.name[len(spec.family) + 1:]))
    return tuple(key)


def series(spec, members):
    """{key: [(x, y, lo, hi, progress)]} sorted by x; repeats of one x are
    merged: median of the ys, lowest min, highest p99."""
    raw = {}
    for e in members:
        x = x_of(e, spec.x_fields)[1]
        lo = e.stats.get("min") if e.kind == "stats" else None
        hi = e.stats.get("p99") if e.kind == "stats" else None
        prog = R.num(e.data.get("progress"))
        raw.setdefault(series_key(e, spec), {}).setdefault(x, []).append(
            (e.y(), lo, hi, prog))
    out = {}
    for key, by_x in raw.items():
        pts = []
        for x in sorted(by_x):
            vals = by_x[x]
            ys = sorted(v[0] for v in vals)
            los = [v[1] for v in vals if v[1] is not None]
            his = [v[2] for v in vals if v[2] is not None]
            progs = sorted(v[3] for v in vals if v[3] is not None)
            pts.append((x, ys[len(ys) // 2], min(los) if los else None,
                        max(his) if his else None, progs[len(progs) // 2] if progs else None))
        out[key] = pts
    return out


def label(key, constant=()):
    parts = [f"{k}={v}" for k, v in key if (k, v) not in constant]
    return " ".join(parts) or "all"


def constant_parts(keys):
    """(k, v) pairs shared by every series key: said once in the caption."""
    keys = list(keys)
    if len(keys) < 2:
        return ()
    common = set(keys[0])
    for k in keys[1:]:
        common &= set(k)
    return tuple(p for p in keys[0] if p in common)


def livelock_points(ents):
    """[{family, key, series, rate, unit, source}] for the families with livelock
    points: an explicit FAMILY.livelock / char.livelock metric (value or
    field rate; null or 0 = not reached), else a field livelock_rate, else
    a point flagged livelock=true, else the first rate whose progress field
    is below 1 %."""
    out = []
    for spec in SWEEPS:
        if not spec.livelock:
            continue
        members = [e for e in ents if in_family(e.name, spec.family) and not is_livelock_metric(e)
                   and x_of(e, spec.x_fields)[1] is not None]
        explicit = [e for e in ents if is_livelock_metric(e)
                    and (in_family(e.name, spec.family) or e.name in LIVELOCK_NAMES)]
        found, units = {}, {}
        rate_unit = next((R.clean(e.data["rate_unit"]) for e in members
                          if isinstance(e.data.get("rate_unit"), str)), "")
        for e in explicit:
            key = tuple((k, R.fmt(v) if not isinstance(v, str) else R.clean(v))
                        for k, v in e.params.items() if k not in spec.x_fields)
            rate = e.value if e.value is not None else R.num(e.data.get("rate"))
            found.setdefault(key, (rate or None, f"metric {e.name}"))
            units.setdefault(key, e.unit)
        for key, pts in series(spec, [e for e in members if e.y() is not None]).items():
            plain = tuple(p for p in key if p[0] != "metric")
            if plain in found or key in found:
                continue
            mine = [e for e in members if series_key(e, spec) == key]
            rate = next((R.num(e.data.get("livelock_rate")) for e in mine
                         if "livelock_rate" in e.data), "absent")
            if rate != "absent":
                found[key] = (rate or None, "field livelock_rate")
                continue
            flagged = sorted(x_of(e, spec.x_fields)[1] for e in mine
                             if e.data.get("livelock") is True)
            if flagged:
                found[key] = (flagged[0], "point flagged livelock=true")
                continue
            prog = [(x, p) for x, _y, _lo, _hi, p in pts if p is not None]
            if prog:
                below = [x for x, p in prog if p < PROGRESS_LIMIT]
                limit = f"{PROGRESS_LIMIT:g} %"
                found[key] = (below[0], f"derived: first rate with progress < {limit}") \
                    if below else (None, f"derived: progress >= {limit} up to rate "
                                         f"{R.fmt(prog[-1][0])}")
        for key, (rate, source) in found.items():
            out.append({"family": spec.family, "key": key, "series": label(key),
                        "rate": rate, "unit": units.get(key, rate_unit), "source": source})
    return out


# --- drawing ----------------------------------------------------------------

def make_plots(ents, out_dir, log=None):
    """Draw every figure into out_dir; ([Plot], [error text])."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    hv = R.hypervisor(log) if log is not None else None
    hz = R.tsc_hz(log) if log is not None else None
    plots, errors, stems = [], [], set()

    def stem_for(text):
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_.")[:80] or "plot"
        s, i = base, 2
        while s in stems:
            s, i = f"{base}-{i}", i + 1
        stems.add(s)
        return s

    jobs, in_sweeps = [], set()
    for spec, unit, members in sweeps(ents):
        in_sweeps |= {id(e) for e in members}
        jobs.append(("sweep", stem_for(f"sweep-{spec.family}-{unit.replace('%', 'pct')}"),
                     lambda st, a=(spec, unit, members): draw_sweep(plt, *a, ents, hv, st)))
    for prefix, items in R.groups(ents).items():
        for unit in dict.fromkeys(e.unit for e in items):
            rows = [e for e in items if e.unit == unit and e.box() is not None
                    and id(e) not in in_sweeps]
            for i in range(0, len(rows), MAX_ROWS):
                part = rows[i:i + MAX_ROWS]
                n = f"-{i // MAX_ROWS + 1}" if len(rows) > MAX_ROWS else ""
                jobs.append(("distribution",
                             stem_for(f"dist-{prefix}-{unit.replace('%', 'pct')}{n}"),
                             lambda st, a=(prefix, unit, part): draw_distribution(
                                 plt, *a, hv, hz, st)))
    for section, stem, draw in jobs:
        try:
            with warnings.catch_warnings():  # numpy on extreme values: the figure says enough
                warnings.simplefilter("ignore")
                fig, caption = draw(stem)
                fig.savefig(out_dir / f"{stem}.png", dpi=110)
                fig.savefig(out_dir / f"{stem}.svg")
            plots.append(Plot(stem, caption, section))
        except Exception as e:  # one bad figure must not stop the report
            errors.append(f"{stem}: {e.__class__.__name__}: {R.clean(e)[:200]}")
        finally:
            plt.close("all")
    return plots, errors


def tex(text, limit=70):
    """Label text safe from matplotlib's mathtext ($) and not too long."""
    text = R.clean(text)
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return text.replace("$", r"\$")


def hv_suffix(hv):
    return f" [under {hv[1]}: the hypervisor's cost]" if hv else ""


def layout(keys, line_field="strategy", max_panels=6):
    """How to spread series over panels: (line fields, panel fields).

    The parameters that vary between series keys are split: the line field
    (strategy when it varies, else the first varying one) tells lines apart
    within a panel, the others make one panel per combination (small
    multiples). With more than max_panels combinations everything goes in
    one panel. Reference series (memcpy) and series without a panel field
    are drawn in every panel."""
    keys = [k for k in keys if not is_reference(k)]
    varying = []
    for k in keys:
        for f, v in k:
            if f not in varying and any(dict(o).get(f) != v for o in keys):
                varying.append(f)
    if not varying:
        return [], []
    line = [line_field] if line_field in varying else varying[:1]
    panel = [f for f in varying if f not in line]
    combos = {tuple(dict(k).get(f) for f in panel) for k in keys}
    if len(combos) > max_panels:
        return line + panel, []
    return line, panel


def panel_of(key, panel_fields):
    d = dict(key)
    if is_reference(key) or any(f not in d for f in panel_fields):
        return None  # every panel
    return tuple((f, d[f]) for f in panel_fields)


def draw_sweep(plt, spec, unit, members, ents, hv, stem):
    data = series(spec, members)
    const = constant_parts(data.keys())
    line_fields, panel_fields = layout(data.keys())
    panels = sorted({panel_of(k, panel_fields) for k in data} - {None},
                    key=lambda p: [(f, _sortable(v)) for f, v in p]) or [()]
    ncols = 1 if len(panels) == 1 else (2 if len(panels) in (2, 4) else 3)
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols + 3.2, 3.6 * nrows + 0.9),
                             sharex=True, sharey=True, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    line_names = []
    for k in data:
        if not is_reference(k):
            name = label(tuple(p for p in k if p[0] in line_fields)) if line_fields \
                else label(k, const)
            if name not in line_names:
                line_names.append(name)
    styles = {}
    handles = {}
    xs_all, ys_all = [], []
    has_progress = False
    points = [p for p in livelock_points(ents) if p["family"] == spec.family] \
        if spec.livelock else []
    drawn_livelock = False
    for pi, panel in enumerate(panels):
        ax = axes[pi // ncols][pi % ncols]
        if panel:
            ax.set_title(tex(label(panel), 60), fontsize=9)
        for key, pts in sorted(data.items(), key=lambda kv: is_reference(kv[0])):
            where = panel_of(key, panel_fields)
            if where is not None and where != panel:
                continue
            ref = is_reference(key)
            name = "reference: " + label(key, const) if ref else (
                label(tuple(p for p in key if p[0] in line_fields)) if line_fields
                else label(key, const))
            color = "black" if ref else colors[line_names.index(name) % len(colors)]
            fmt = "--" if ref else "-o"
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            lo, hi = [p[2] for p in pts], [p[3] for p in pts]
            if all(v is not None for v in lo + hi):
                err = [[max(0.0, y - v) for y, v in zip(ys, lo)],
                       [max(0.0, v - y) for y, v in zip(ys, hi)]]
                h = ax.errorbar(xs, ys, yerr=err, fmt=fmt, ms=3, capsize=2, color=color,
                                lw=1.4, elinewidth=0.7)
            else:
                h = ax.plot(xs, ys, fmt, ms=3, color=color, lw=1.4)[0]
            handles.setdefault(name, h)
            prog = [(p[0], p[4]) for p in pts if p[4] is not None]
            if spec.livelock and prog:
                has_progress = True
                ax.plot([p[0] for p in prog], [p[1] for p in prog], ":", color=color, lw=1.2)
            for p in points:
                if p["rate"] is None or not _same_series(p["key"], key):
                    continue
                y = _interpolate(xs, ys, p["rate"])
                ax.axvline(p["rate"], color=color, ls="--", lw=0.9)
                ax.plot([p["rate"]], [y if y is not None else max(ys)], marker="X", ms=11,
                        color=color, mec="black", zorder=5)
                drawn_livelock = True
            xs_all += xs
            ys_all += ys
            styles[name] = color
        if spec.livelock:
            ax.axhline(PROGRESS_LIMIT, color="grey", lw=0.8, ls="-.")
        ax.grid(True, which="major", alpha=0.3)
    for pi in range(len(panels), nrows * ncols):
        axes[pi // ncols][pi % ncols].set_visible(False)
    ax0 = axes[0][0]
    if spec.x_base and xs_all and min(xs_all) > 0:
        ax0.set_xscale("log", base=spec.x_base)
        ticks = sorted(set(xs_all))
        if spec.x_base == 2 and len(ticks) <= 12:  # the sizes measured, as numbers
            from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
            ax0.xaxis.set_major_locator(FixedLocator(ticks))
            ax0.xaxis.set_minor_locator(NullLocator())
            ax0.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: R.fmt(v)))
    if spec.y_log and ys_all and min(ys_all) > 0 and max(ys_all) / min(ys_all) > 5:
        ax0.set_yscale("log")
    xf = x_of(members[0], spec.x_fields)[0]
    xunit = members[0].data.get(f"{xf}_unit")
    xlabel = tex(f"{xf}" + (f" ({xunit})" if isinstance(xunit, str) else "")
                 + (" (log scale)" if spec.x_base else ""))
    y_what = "median" if any(e.kind == "stats" for e in members) else "value"
    ylabel = tex((spec.y_label + ", " if spec.y_label else "") + f"{y_what} ({unit})"
                 + (" (log scale)" if ax0.get_yscale() == "log" else ""))
    for r in range(nrows):
        axes[r][0].set_ylabel(ylabel, fontsize=8)
    for c in range(ncols):
        axes[nrows - 1][c].set_xlabel(xlabel, fontsize=8)
    legend = [(h, tex(n, 45)) for n, h in handles.items()]
    from matplotlib.lines import Line2D
    notes = []
    if has_progress:
        legend.append((Line2D([], [], ls=":", color="0.3"), "dotted: forward progress (%)"))
        notes.append("dotted: forward progress (field progress)")
    if spec.livelock:
        legend.append((Line2D([], [], ls="-.", color="grey"), f"progress {PROGRESS_LIMIT:g} %"))
    if drawn_livelock:
        legend.append((Line2D([], [], ls="--", marker="X", color="0.3", mec="black", ms=9),
                       "livelock point"))
        notes.append("X on a dashed vertical line: the livelock point")
    fig.legend([h for h, _ in legend], [t for _, t in legend], loc="upper left",
               bbox_to_anchor=(1 - 3.0 / fig.get_figwidth(), 0.93), fontsize=7, frameon=False,
               title=tex(" ".join(line_fields) or "series", 30), title_fontsize=8)
    fig.suptitle(tex(f"{spec.title}: {spec.family} ({unit})" + hv_suffix(hv), 120), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1 - 3.1 / fig.get_figwidth(), 0.97))
    caption = (f"{spec.title}: {spec.family} ({unit}); x is the field {xf}, y the {y_what}"
               + (" with error bars from min to p99" if y_what == "median" else "")
               + (f"; one line per {'/'.join(line_fields)}" if line_fields else "")
               + (f", one panel per {'/'.join(panel_fields)}" if panel_fields else "")
               + (f"; all series have {label(const)}" if const else "")
               + ("; " + "; ".join(notes) if notes else "") + hv_suffix(hv) + ".")
    return fig, caption


def _sortable(v):
    n = R.num(_float(v.replace(",", "")) if isinstance(v, str) else v)
    return (0, n, "") if n is not None else (1, 0, str(v))


def _float(text):
    try:
        return float(text)
    except ValueError:
        return None


def _same_series(livelock_key, key):
    plain = tuple(p for p in key if p[0] != "metric")
    return livelock_key in (key, plain)


def is_reference(key):
    return any(v in REFERENCE for _k, v in key)


def _interpolate(xs, ys, x):
    pts = sorted(zip(xs, ys))
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            if x1 == x0:
                return y0
            if x0 > 0 and x > 0:  # linear in log x
                t = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
            else:
                t = (x - x0) / (x1 - x0)
            return y0 + t * (y1 - y0)
    return pts[-1][1] if pts and x >= pts[-1][0] else (pts[0][1] if pts else None)


def draw_distribution(plt, prefix, unit, rows, hv, hz, stem):
    n = len(rows)
    fig, ax = plt.subplots(figsize=(9.5, max(2.4, 1.4 + 0.34 * n)))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    names = list(dict.fromkeys(e.name for e in rows))
    repeated = {e.key for e in rows if e.occurrence > 0}
    labels = []
    lows, highs = [], []
    for i, e in enumerate(rows):
        lo, med, p99, hi = e.box()
        color = colors[names.index(e.name) % len(colors)]
        ax.hlines(i, lo, hi, color="0.35", lw=1)
        ax.vlines([lo, hi], i - 0.18, i + 0.18, color="0.35", lw=1)
        ax.barh(i, max(p99 - med, 0), left=med, height=0.5, color=color, alpha=0.55,
                edgecolor=color)
        ax.vlines(med, i - 0.3, i + 0.3, color="black", lw=2)
        text = e.label()
        if e.key in repeated:
            text += f" #{e.occurrence + 1}"
        labels.append(tex(text, 60))
        lows.append(lo)
        highs.append(hi)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_ylim(n - 0.5, -0.5)
    positive = [v for v in lows + highs if v > 0]
    if positive and min(lows) > 0 and max(highs) / min(lows) > 50:
        ax.set_xscale("log")
    elif positive and max(highs) / min(positive) > 50:
        ax.set_xscale("symlog", linthresh=min(positive))
    ax.use_sticky_edges = False  # bars would pin the axis to the lowest median
    ax.margins(x=0.04)
    scale = " (log scale)" if ax.get_xscale() != "linear" else ""
    ax.set_xlabel(tex(f"{unit}{scale}: whisker min..max, box median..p99, black bar median",
                      110), fontsize=9)
    hz_used = next((e.tsc_hz for e in rows if e.tsc_hz), None) or hz
    if unit == "cycles" and hz_used and ax.get_xscale() != "symlog":
        sec = ax.secondary_xaxis("top", functions=(lambda c: c / hz_used * 1e6,
                                                   lambda us: us * hz_used / 1e6))
        sec.set_xlabel("microseconds (at the TSC frequency)", fontsize=8)
        sec.tick_params(labelsize=7)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.set_title(tex(f"{prefix}.*: distributions ({unit}){hv_suffix(hv)}", 110), fontsize=10)
    fig.tight_layout()
    caption = (f"{prefix}.* ({unit}): one row per metric; whisker min..max, box median..p99, "
               f"black bar at the median (fields min, median, p99, max; no samples are in "
               f"the log){hv_suffix(hv)}.")
    return fig, caption
