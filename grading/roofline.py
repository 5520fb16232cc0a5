"""Speed of light (SOL) arithmetic and the roofline picture.

SOL time = max(bytes / bandwidth, FLOPs / peak rate of the math dtype): the time a kernel would
take if it only moved its minimum bytes at the memory roof, or only did its FLOPs at the compute
roof, whichever is longer. A result is reported as % of SOL = 100 * SOL time / measured time.

The plot is a plain matplotlib Figure drawn through the Agg canvas, so it saves on a headless
machine and displays in a notebook without touching the global backend.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Sequence

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from grading.hardware import GPUSpec, Roofs


def _bandwidth(roofs: Roofs) -> float:
    if not roofs.bandwidth_gbps:
        raise ValueError(f"no memory bandwidth known for GPU {roofs.gpu_key!r}: measure it with "
                         "`python -m grading ceilings`")
    return roofs.bandwidth_gbps


def sol_time_s(flops: float, bytes_: float, roofs: Roofs, math_dtype: str) -> float:
    """max(bytes / bandwidth, flops / peak); the compute term is dropped when the GPU has no peak
    for `math_dtype` (e.g. fp8 on an A100)."""
    memory_s = bytes_ / (_bandwidth(roofs) * 1e9)
    peak = roofs.peak_tflops(math_dtype)
    compute_s = flops / (peak * 1e12) if peak else 0.0
    return max(memory_s, compute_s)


def pct_of_sol(time_s: float, sol_s: float) -> float:
    """100 * SOL time / measured time: 100% means the kernel runs at the roof."""
    if time_s <= 0:
        raise ValueError(f"time must be positive, got {time_s}")
    return 100.0 * sol_s / time_s


def achieved(flops: float, bytes_: float, time_s: float) -> tuple[float, float]:
    """(TFLOP/s, GB/s) reached in `time_s`."""
    if time_s <= 0:
        raise ValueError(f"time must be positive, got {time_s}")
    return flops / time_s / 1e12, bytes_ / time_s / 1e9


def intensity(flops: float, bytes_: float) -> float:
    """Arithmetic intensity in FLOP per byte of minimum DRAM traffic."""
    if bytes_ <= 0:
        raise ValueError(f"bytes moved must be positive, got {bytes_}")
    return flops / bytes_


def ridge_point(roofs: Roofs, math_dtype: str) -> float | None:
    """The intensity (FLOP/byte) where the memory roof meets the compute roof; None without a
    compute roof for `math_dtype`. Below it a kernel is memory-bound."""
    peak = roofs.peak_tflops(math_dtype)
    return None if not peak else peak * 1e12 / (_bandwidth(roofs) * 1e9)


@dataclasses.dataclass
class Point:
    """One kernel run (or one prediction, with time_s None) on the roofline."""

    label: str           # the rung or provider: "eager", "triton", "torch._scaled_mm"...
    flops: float
    bytes: float         # minimum bytes moved
    time_s: float | None
    math_dtype: str
    group: str = ""      # the case, e.g. "4096x4096": one marker shape per group


def _fmt_time(s: float) -> str:
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def _fmt_bw(gbps: float) -> str:
    return f"{gbps / 1e3:.2f} TB/s" if gbps >= 1000 else f"{gbps:.0f} GB/s"


def _fmt_ai(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2g}"


def describe(point: Point, roofs: Roofs) -> str:
    """One line: time, the rate that matters against its roof, intensity, and which roof binds.

    e.g. "12.3 µs, 3.10 TB/s (73% of the measured copy roof), 0.8 FLOP/B: memory-bound"
    """
    ai = intensity(point.flops, point.bytes)
    ridge = ridge_point(roofs, point.math_dtype)
    memory_bound = ridge is None or ai < ridge
    bound = "memory-bound" if memory_bound else "compute-bound"
    sol = sol_time_s(point.flops, point.bytes, roofs, point.math_dtype)
    if point.time_s is None:
        return f"predicted {_fmt_time(sol)} at SOL, {_fmt_ai(ai)} FLOP/B: {bound}"
    tflops, gbps = achieved(point.flops, point.bytes, point.time_s)
    if memory_bound:
        roof = _bandwidth(roofs)
        rate = f"{_fmt_bw(gbps)} ({100 * gbps / roof:.0f}% of the {roofs.bandwidth_source} roof)"
    else:
        peak = roofs.peak_tflops(point.math_dtype)
        rate = (f"{tflops:.1f} TFLOP/s ({100 * tflops / peak:.0f}% of the "
                f"{roofs.peak_source(point.math_dtype)} {point.math_dtype} roof)")
    return f"{_fmt_time(point.time_s)}, {rate}, {_fmt_ai(ai)} FLOP/B: {bound}"


_MARKERS = "osD^v<>ph*"
_MAX_CASES_IN_LEGEND = len(_MARKERS)  # beyond this, markers would repeat


def plot_roofline(points: Sequence[Point], gpu: GPUSpec, roofs: Roofs, path: str | Path | None = None,
                  title: str | None = None, ax: Axes | None = None) -> Figure:
    """Log-log roofline: arithmetic intensity (FLOP/B) against achieved TFLOP/s.

    Roofs: the memory diagonal and one compute ceiling per math dtype among `points`, dashed for
    the datasheet and solid for measured values, with the ridge points marked. Points: colour per
    label (rung), marker shape per group (case); a point with time_s None is drawn hollow at its
    SOL position ("predicted"), so a named GPU can be analysed without one. Points with zero FLOPs
    or bytes have no place on log axes and are left out. Saved to `path` when given.
    """
    if ax is None:
        fig = Figure(figsize=(8.0, 5.5), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    pts = [p for p in points if p.flops > 0 and p.bytes > 0]
    dtypes = list(dict.fromkeys(p.math_dtype for p in pts))

    # Roof values: (label, bandwidth GB/s, style) and per dtype (label, TFLOP/s, style).
    mem_roofs = []
    if roofs.datasheet_gbps:
        mem_roofs.append(("datasheet", roofs.datasheet_gbps, "--"))
    if roofs.measured_copy_gbps:
        mem_roofs.append(("measured copy", roofs.measured_copy_gbps, "-"))
    compute_roofs: list[tuple[str, str, float, str]] = []
    for dt in dtypes:
        if roofs.datasheet_tflops.get(dt):
            compute_roofs.append((dt, "datasheet", roofs.datasheet_tflops[dt], "--"))
        if roofs.measured_tflops.get(dt):
            compute_roofs.append((dt, "measured", roofs.measured_tflops[dt], "-"))

    # x range: every point and every ridge, with a factor of 4 of margin on each side.
    xs = [intensity(p.flops, p.bytes) for p in pts]
    xs += [peak * 1e3 / bw for _, _, peak, _ in compute_roofs for _, bw, _ in mem_roofs]
    xmin = min(xs, default=0.1) / 4
    xmax = max(xs, default=1000.0) * 4
    top = max([c[2] for c in compute_roofs], default=None)

    roof_color = "0.25"
    for name, bw, style in mem_roofs:
        # The diagonal, TFLOP/s = GB/s * FLOP/B / 1e3, up to the highest compute roof.
        x_end = xmax if top is None else min(xmax, top * 1e3 / bw)
        ax.plot([xmin, x_end], [bw * xmin / 1e3, bw * x_end / 1e3], style, color=roof_color, lw=1.4,
                label=f"memory, {name}: {_fmt_bw(bw)}")
    for dt, name, peak, style in compute_roofs:
        # Each compute roof starts where it meets its own memory roof: datasheet with datasheet.
        bw_ref = roofs.datasheet_gbps if name == "datasheet" else roofs.bandwidth_gbps
        ridge = peak * 1e3 / bw_ref if bw_ref else xmin
        ax.plot([max(ridge, xmin), xmax], [peak, peak], style, color=roof_color, lw=1.4)
        # Datasheet labels above their line, measured ones below: the two are often close.
        above = name == "datasheet"
        ax.annotate(f"{dt} {name}: {peak:.0f} TFLOP/s", (xmax, peak), xytext=(-4, 3 if above else -3),
                    textcoords="offset points", ha="right", va="bottom" if above else "top",
                    fontsize=8)
        if bw_ref:
            ax.plot([ridge], [peak], "o", color=roof_color, ms=4)
            ax.annotate(f"ridge {ridge:.0f}", (ridge, peak), xytext=(0, -12),
                        textcoords="offset points", ha="center", va="top", fontsize=7,
                        color=roof_color)

    colors: dict[str, str] = {}
    markers: dict[str, str] = {}
    any_predicted = False
    # A marker per case while the legend can list them; past that, one marker for all (a sweep of
    # 40 shapes would repeat markers and push the axes aside with its legend).
    groups = list(dict.fromkeys(p.group for p in pts))
    per_case = len(groups) <= _MAX_CASES_IN_LEGEND
    for p in pts:
        color = colors.setdefault(p.label, f"C{len(colors) % 10}")
        marker = markers.setdefault(p.group, _MARKERS[len(markers) % len(_MARKERS)] if per_case else "o")
        ai = intensity(p.flops, p.bytes)
        if p.time_s is None:
            any_predicted = True
            y = p.flops / sol_time_s(p.flops, p.bytes, roofs, p.math_dtype) / 1e12
            ax.plot([ai], [y], marker, ms=8, mfc="none", mec=color, mew=1.5)
        else:
            y = achieved(p.flops, p.bytes, p.time_s)[0]
            ax.plot([ai], [y], marker, ms=7, color=color, mec="black", mew=0.5)

    handles = ax.get_legend_handles_labels()[0]
    handles += [Line2D([], [], ls="", marker="s", color=c, label=lab) for lab, c in colors.items()]
    if not per_case:
        handles.append(Line2D([], [], ls="", marker="o", color="0.5", label=f"one point per case ({len(groups)} cases)"))
    elif len(markers) > 1 or any(g for g in markers):
        handles += [Line2D([], [], ls="", marker=m, color="0.5", label=g or "(no group)")
                    for g, m in markers.items()]
    if any_predicted:
        handles.append(Line2D([], [], ls="", marker="o", mfc="none", mec="0.3",
                              label="predicted (SOL, not measured)"))
    # Outside the axes: memory-bound points crowd the upper left, where a legend inside would sit.
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xmin, xmax)
    ys = [y for line in ax.get_lines() for y in line.get_ydata() if y > 0]
    if ys:
        ax.set_ylim(min(ys) / 3, max(ys) * 3)
    ax.set_xlabel("arithmetic intensity (FLOP / byte of minimum traffic)")
    ax.set_ylabel("achieved TFLOP/s")
    ax.set_title(title or f"Roofline: {gpu.name}")
    ax.grid(True, which="major", alpha=0.3)
    if path is not None:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    return fig

