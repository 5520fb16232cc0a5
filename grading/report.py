"""Printing results (rich tables) and writing them (Gradescope results.json)."""
from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from grading import check
from grading.grade import ImplReport, speed_verdict
from grading.spec import KernelSpec

STATUS_STYLE = {check.PASS: "green", check.FAIL: "red", check.ERROR: "red",
                check.NOT_IMPLEMENTED: "yellow", check.SKIPPED: "cyan"}
# Points per rung in results.json: correctness is partial credit over the cases; speed by tier.
CORRECTNESS_POINTS = 10.0
SPEED_POINTS = {"gold": 5.0, "silver": 4.0, "bronze": 3.0, "below": 0.0}
MAX_FAILURES_SHOWN = 5


def _styled(status: str) -> str:
    return f"[{STATUS_STYLE.get(status, 'white')}]{status}[/]"


def print_impl(console: Console, spec: KernelSpec, rep: ImplReport) -> None:
    """The diagnosis for one implementation: failures in full, passes counted."""
    head = f"[bold]{spec.name} · {rep.ref.label}[/] ({rep.ref.func} in {rep.ref.path})"
    console.print(head)
    if rep.failure:
        console.print(f"  [red]{rep.failure}[/]", highlight=False)
    last = rep.results[-1] if rep.results else None
    stopped = last if last and (rep.status == check.NOT_IMPLEMENTED or rep.n_graded == 0) else None
    if stopped:  # one line says it all: every case would be the same
        console.print(f"  {_styled(stopped.status)}: {stopped.message}", highlight=False)
    skipped = [r for r in rep.results if r.status == check.SKIPPED and r is not stopped]
    if skipped:
        console.print(f"  {_styled(check.SKIPPED)} {len(skipped)} case(s): {skipped[0].message}", highlight=False)
    bad = [r for r in rep.results if r.status not in (check.PASS, check.SKIPPED) and r is not stopped]
    not_run = [r for r in bad if r.not_run]
    bad = [r for r in bad if not r.not_run]
    for r in bad[:MAX_FAILURES_SHOWN]:
        console.print(f"  {_styled(r.status)} {r.case}", highlight=False)
        for line in r.message.splitlines():
            console.print(f"      {line}", highlight=False, markup=False)
    if len(bad) > MAX_FAILURES_SHOWN:
        console.print(f"  ... and {len(bad) - MAX_FAILURES_SHOWN} more case(s) not passing")
    if not_run:  # one stop, one line
        console.print(f"  {_styled(not_run[0].status)} {len(not_run)} more case(s) {not_run[0].message}",
                      highlight=False)
    if rep.results and not stopped:
        console.print(f"  correctness: {rep.n_passed}/{rep.n_graded} cases pass")
    for s in rep.speeds:
        if s.status != check.PASS:
            console.print(f"  {_styled(s.status)} timing {s.case}: {s.message}", highlight=False)
    if rep.note:
        console.print(f"  {rep.note}")


def summary_table(spec: KernelSpec, reports: list[ImplReport]) -> Table:
    t = Table(title=f"{spec.name}: results", title_justify="left")
    t.add_column("implementation")
    t.add_column("correctness", justify="right")
    t.add_column("time (speed cases)", justify="right")
    t.add_column("% of SOL", justify="right")
    t.add_column("speed tier")
    t.add_column("verdict")
    for rep in reports:
        n = len(rep.results)
        corr = f"{rep.n_passed}/{rep.n_graded}" if n and rep.status not in (check.SKIPPED, check.NOT_IMPLEMENTED) else "-"
        times = ", ".join(f"{s.time_s * 1e6:.1f} µs" for s in rep.speeds if s.time_s) or "-"
        pct = rep.median_pct_sol()
        tier, speed_ok = speed_verdict(spec, rep)
        verdict = rep.status if (rep.status != check.PASS or speed_ok) else check.FAIL
        t.add_row(rep.ref.label, corr, times, f"{pct:.0f}%" if pct is not None else "-",
                  tier or "-", _styled(verdict))
    return t


def verdict_ok(spec: KernelSpec, rep: ImplReport) -> bool:
    return rep.status in (check.PASS, check.SKIPPED) and speed_verdict(spec, rep)[1]


def _impl_output(rep: ImplReport) -> str:
    lines = []
    if rep.failure:
        lines.append(rep.failure)
    not_run = [r for r in rep.results if r.not_run]
    for r in rep.results:
        if r.status != check.PASS and not r.not_run:
            lines.append(f"[{r.status}] {r.case}: {r.message}")
    if not_run:
        lines.append(f"[{not_run[0].status}] {len(not_run)} more case(s) {not_run[0].message}")
    lines.append(f"{rep.n_passed}/{rep.n_graded} cases pass (graded file: {rep.ref.path})")
    return "\n".join(lines)


def gradescope_json(spec: KernelSpec, reports: list[ImplReport], seed: int, header: str) -> dict:
    """Gradescope's autograder results.json: one correctness test and (on a GPU) one speed test per
    implementation."""
    tests = []
    for rep in reports:
        n = len(rep.results)
        passed = rep.n_passed if not rep.failure else 0
        graded_cases = n - sum(r.status == check.SKIPPED for r in rep.results)
        frac = passed / graded_cases if graded_cases else 0.0
        ok = rep.status in (check.PASS, check.SKIPPED) and not rep.failure
        tests.append({
            "name": f"{spec.name} {rep.ref.label}: correctness",
            "score": round(CORRECTNESS_POINTS * frac, 2) if graded_cases else 0.0,
            "max_score": CORRECTNESS_POINTS,
            "status": "passed" if ok else "failed",
            "output": _impl_output(rep),
        })
        if rep.ref.rung in spec.speed_tiers and rep.speeds:
            tier, ok_speed = speed_verdict(spec, rep)
            pct = rep.median_pct_sol()
            tiers = spec.tiers_for(rep.ref.rung)
            tests.append({
                "name": f"{spec.name} {rep.ref.label}: speed",
                "score": SPEED_POINTS.get(tier or "below", 0.0),
                "max_score": max(SPEED_POINTS.values()),
                "status": "passed" if ok_speed else "failed",
                "output": (f"median {pct:.1f}% of SOL over the speed cases → tier {tier}. "
                           f"Tiers: {tiers.describe()}. " if pct is not None else "not timed. ")
                          + "; ".join(f"{s.case}: {s.time_s * 1e6:.1f} µs, {s.pct_sol:.0f}% of SOL"
                                      for s in rep.speeds if s.time_s and s.pct_sol is not None),
            })
    return {
        "score": round(sum(t["score"] for t in tests), 2),
        "output": f"{header}\nseed {seed} (rerun with --seed {seed})",
        "visibility": "visible",
        "stdout_visibility": "visible",
        "tests": tests,
    }


def write_json(path: str | Path, data: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=2))
