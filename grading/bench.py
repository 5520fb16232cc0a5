"""`python -m grading bench`: every rung and baseline timed on real model shapes in one run."""
from __future__ import annotations

import dataclasses
import datetime
import json
import platform
import sys
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grading import check, env, impls
from grading.grade import ImplReport, current_roofs, grade_impl
from grading.impls import ImplRef
from grading.spec import KernelSpec


def _refs(spec: KernelSpec, rungs: list[str] | None, exercises: bool) -> list[impls.ImplRef]:
    refs = impls.rung_refs(spec, rungs, solutions=True)
    refs = [impls.ImplRef(r.path, r.func, r.rung, r.rung) for r in refs]
    for label, target in spec.baselines.items():
        path, func = target.rsplit(":", 1)
        refs.append(impls.ImplRef(str(impls.REPO / path), func, None, label))
    if exercises:
        refs += [impls.ImplRef(r.path, r.func, r.rung, f"yours:{r.rung}")
                 for r in impls.rung_refs(spec, rungs, solutions=False)]
    return refs


def time_rounds(refs: list[ImplRef], rounds: int, time_one) -> dict[str, list[ImplReport]]:
    """Each implementation timed `rounds` times, the order reversed every other round (A B C, then
    C B A, ...): a GPU whose speed drifts over a run (clocks, temperature, power) then slows or
    speeds every implementation alike, instead of whichever one comes last. `time_one(ref, round)`
    returns the ImplReport of one timing, or None to leave that implementation out. Returns each
    label's reports in round order, the labels in the order of `refs`."""
    out: dict[str, list[ImplReport]] = {ref.label: [] for ref in refs}
    for r in range(rounds):
        for ref in (refs if r % 2 == 0 else refs[::-1]):
            rep = time_one(ref, r)
            if rep is not None:
                out[ref.label].append(rep)
    return {label: reps for label, reps in out.items() if reps}


def median_round(reps: list[ImplReport]) -> ImplReport:
    """One report from several rounds of the same implementation: per case the round whose time
    is the median (of two middle ones the slower), its own spread and timing details kept,
    every round's median µs added as timing["rounds_us"] (in round order). A round that failed a
    case, or failed outright, wins: a failure is never averaged away."""
    if len(reps) == 1:
        return reps[0]
    if failed := next((r for r in reps if r.failure), None):
        return failed
    speeds = []
    for first in reps[0].speeds:
        per_round = [next((s for s in r.speeds if s.case == first.case), None) for r in reps]
        if None in per_round:
            speeds.append(dataclasses.replace(first, time_s=None, status=check.ERROR,
                                              message="missing from a later round"))
            continue
        if bad := next((s for s in per_round if s.time_s is None or s.status != check.PASS), None):
            speeds.append(bad)
            continue
        pick = sorted(per_round, key=lambda s: s.time_s)[len(per_round) // 2]
        timing = dict(pick.timing or {}, rounds_us=[s.time_s * 1e6 for s in per_round])
        speeds.append(dataclasses.replace(pick, timing=timing))
    return dataclasses.replace(reps[0], speeds=speeds)


def _rate(spec: KernelSpec, case, time_s: float) -> str:
    """GB/s for memory-bound kernels, TFLOP/s for compute-bound ones (by arithmetic intensity)."""
    from grading.roofline import achieved
    tflops, gbps = achieved(spec.flops(case), spec.bytes_moved(case), time_s)
    return f"{gbps:,.0f} GB/s" if spec.flops(case) / spec.bytes_moved(case) < 50 else f"{tflops:,.0f} TFLOP/s"


def analysis(spec: KernelSpec, gpu_name: str | None, plot_path: str | None, console: Console) -> int:
    """No GPU: the napkin math for a named GPU, no measured points."""
    from grading import hardware, roofline
    gpu = hardware.lookup(gpu_name or "H100-SXM")
    roofs = hardware.roofs(gpu, hardware.committed_ceilings(gpu.key))
    t = Table(title=f"{spec.name} on {gpu.name}: speed-of-light analysis (no GPU here, nothing measured)")
    for col in ("case", "MB moved", "GFLOP", "FLOP/byte", "SOL µs", "bound by"):
        t.add_column(col, justify="right" if col != "case" else "left")
    points = []
    for case in spec.bench_cases():
        f, b = spec.flops(case), spec.bytes_moved(case)
        sol = roofline.sol_time_s(f, b, roofs, spec.math_dtype(case))
        bound = "memory" if b / (roofs.bandwidth_gbps * 1e9) >= sol * 0.999 else spec.math_dtype(case) + " math"
        # escape: "[m=1, n=4096, ...]" would otherwise be read as rich markup and vanish
        t.add_row(escape(case.describe()), f"{b / 1e6:,.1f}", f"{f / 1e9:,.2f}", f"{f / b:,.2f}", f"{sol * 1e6:,.1f}", bound)
        points.append(roofline.Point("SOL", f, b, None, spec.math_dtype(case), case.describe()))
    console.print(t)
    console.print(f"roofs: {roofs.bandwidth_gbps:,.0f} GB/s ({roofs.bandwidth_source})")
    if plot_path:
        roofline.plot_roofline(points, gpu, roofs, path=plot_path, title=f"{spec.name}: SOL on {gpu.name}")
        console.print(f"wrote {plot_path}")
    return 0


def run(spec: KernelSpec, *, rungs=None, json_path=None, plot_path=None, gpu_name=None, exercises=False,
        timeout_s: float, console: Console, command: str | None = None, rounds: int = 1) -> int:
    console.print(env.device_summary())
    if env.CPU_MODE:
        console.print("bench: no GPU, so nothing is timed; here is the roofline analysis instead.")
        return analysis(spec, gpu_name, plot_path, console)
    from grading import hardware, roofline
    roofs = current_roofs()
    gpu = hardware.current()
    refs = _refs(spec, rungs, exercises)
    with console.status("") as status:
        def time_one(ref: ImplRef, r: int) -> ImplReport | None:
            of = f" (round {r + 1} of {rounds})" if rounds > 1 else ""
            status.update(f"timing {ref.label}{of} ...")
            t0 = time.perf_counter()
            rep = grade_impl(spec, ref, seed=0, check_correctness=False, time="bench", timeout_s=timeout_s, roofs=roofs)
            console.print(f"timed {ref.label}{of} in {time.perf_counter() - t0:.0f} s")
            if exercises and ref.label.startswith("yours:") and any(s.status == check.NOT_IMPLEMENTED for s in rep.speeds):
                return None
            return rep

        reports = [median_round(reps) for reps in time_rounds(refs, rounds, time_one).values()]
    cases = spec.bench_cases()
    t = Table(title=f"{spec.name} on {gpu.name if gpu else 'this GPU'}: median µs (% of SOL)")
    t.add_column("case")
    t.add_column("SOL µs", justify="right")
    for rep in reports:
        t.add_column(rep.ref.label, justify="right")
    base = next((r for r in reports if r.ref.rung == "compiled"), None)
    rows = []
    for case in cases:
        d = case.describe()
        sol = roofline.sol_time_s(spec.flops(case), spec.bytes_moved(case), roofs, spec.math_dtype(case))
        row = {"case": d, "params": case.params, "dtype": str(case.dtype).replace("torch.", ""),
               "flops": spec.flops(case), "bytes": spec.bytes_moved(case), "sol_us": sol * 1e6, "impls": {}}
        cells = [escape(d), f"{sol * 1e6:,.2f}"]
        base_t = next((s.time_s for s in (base.speeds if base else []) if s.case == d and s.time_s), None)
        for rep in reports:
            s = next((s for s in rep.speeds if s.case == d), None)
            if s is None or s.time_s is None:
                cells.append(f"[red]{s.status if s else 'failed'}[/]")
                row["impls"][rep.ref.label] = {"status": s.status if s else "failed",
                                               "message": s.message if s else rep.failure}
                continue
            speedup = f" {base_t / s.time_s:.2f}×" if base_t and rep is not base else ""
            bad = "" if s.status == "pass" else " [red]WRONG[/]"
            cells.append(f"{s.time_s * 1e6:,.1f} ({s.pct_sol:.0f}%){speedup}{bad}")
            row["impls"][rep.ref.label] = {"status": s.status, "message": s.message, "time_us": s.time_s * 1e6,
                                           "pct_sol": s.pct_sol, "rate": _rate(spec, case, s.time_s),
                                           "speedup_vs_compiled": base_t / s.time_s if base_t else None,
                                           "timing": s.timing}
        t.add_row(*cells)
        rows.append(row)
    failures = [r for r in reports if r.failure]
    for r in failures:
        console.print(f"[red]{escape(r.ref.label)}: {escape(r.failure)}[/]")
    console.print(t)
    console.print(f"SOL = max(bytes / {roofs.bandwidth_gbps:,.0f} GB/s ({roofs.bandwidth_source}), FLOPs / peak)"
                  + ("; speedups are against torch.compile in this same run." if base else "."))
    result = {
        "kernel": spec.name, "gpu": gpu.name if gpu else None, "device": torch.cuda.get_device_name(0),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command or " ".join(["python -m grading"] + sys.argv[1:]),
        "versions": {"torch": torch.__version__, "triton": _triton_version(), "python": platform.python_version(),
                     "cuda": torch.version.cuda},
        "roofs": {"bandwidth_gbps": roofs.bandwidth_gbps, "bandwidth_source": roofs.bandwidth_source},
        "rounds": rounds,
        "cases": rows,
    }
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(result, indent=2))
        Path(json_path).with_suffix(".md").write_text(markdown(result))
        console.print(f"wrote {json_path} and {Path(json_path).with_suffix('.md')}")
    if plot_path:
        points = [roofline.Point(label, r["flops"], r["bytes"], v["time_us"] / 1e6, spec.math_dtype(c), r["case"])
                  for r, c in zip(rows, cases) for label, v in r["impls"].items() if v.get("time_us")]
        roofline.plot_roofline(points, gpu, roofs, path=plot_path, title=f"{spec.name} on {gpu.name}")
        console.print(f"wrote {plot_path}")
    return 1 if failures else 0


def _triton_version() -> str | None:
    try:
        import triton
        return triton.__version__
    except ImportError:
        return None


def markdown(result: dict) -> str:
    """The committed table: one row per case, µs and % of SOL per implementation."""
    labels = list(dict.fromkeys(label for r in result["cases"] for label in r["impls"]))
    speedups = any(v.get("speedup_vs_compiled") for r in result["cases"] for v in r["impls"].values())
    lines = [f"# {result['kernel']} on {result['device']}", "",
             f"{result['date']}, torch {result['versions']['torch']}, triton {result['versions']['triton']}. "
             f"Command: `{result['command']}`. SOL uses {result['roofs']['bandwidth_gbps']:,.0f} GB/s "
             f"({result['roofs']['bandwidth_source']}). Cells: median µs (% of SOL)"
             + (f", the median of {result['rounds']} rounds in alternating order" if result.get("rounds", 1) > 1 else "")
             + (", × = speedup over torch.compile in the same run." if speedups else "."), "",
             "| case | SOL µs | " + " | ".join(labels) + " |",
             "|---|---:|" + "---:|" * len(labels)]
    for r in result["cases"]:
        cells = []
        for label in labels:
            v = r["impls"].get(label, {})
            if "time_us" not in v:
                cells.append(v.get("status", "-"))
                continue
            sp = v.get("speedup_vs_compiled")
            cells.append(f"{v['time_us']:,.1f} ({v['pct_sol']:.0f}%)" + (f" {sp:.2f}×" if sp and label != "compiled" else ""))
        lines.append(f"| {r['case']} | {r['sol_us']:,.2f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

