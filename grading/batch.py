"""`python -m grading batch DIR --kernel K`: a class's worth of submissions, each graded in isolation.

DIR holds one folder per student (`DIR/<student>/exercises.py`, with any .cu files the exercises
load next to it) or one file per student (`DIR/<student>.py`). Every (student, rung) runs in its
own worker process with the usual time limit, so a syntax error, a crash or a hang costs that
student a row with the diagnosis and the batch goes on. All students get the same seed, so the
same inputs. Written to OUTDIR:

    leaderboard.csv         one row per student and rung: cases passed, status, % of SOL, tier, score
    leaderboard.md          the same, one row per student, best first
    cases.csv               one row per student, rung and correctness case
    <student>/results.json  Gradescope's format (grading.report.gradescope_json)
    <student>/report.txt    the diagnosis `check` would have printed
"""
from __future__ import annotations

import concurrent.futures
import csv
import dataclasses
import datetime
import io
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from grading import check, env, report
from grading.grade import ImplReport, grade_impl, speed_verdict
from grading.impls import ImplRef
from grading.spec import KernelSpec

DIAGNOSIS_CHARS = 300


@dataclasses.dataclass
class Submission:
    student: str
    path: Path
    problem: str | None = None  # why it cannot be graded at all (no exercises.py in the folder)


@dataclasses.dataclass
class StudentResult:
    submission: Submission
    reports: list[ImplReport]
    gradescope: dict

    @property
    def score(self) -> float:
        return self.gradescope["score"]

    @property
    def max_score(self) -> float:
        return sum(t["max_score"] for t in self.gradescope["tests"])

    def best_pct_sol(self) -> float:
        vals = [r.median_pct_sol() for r in self.reports]
        return max((v for v in vals if v is not None), default=-1.0)


def find_submissions(root: Path) -> list[Submission]:
    """One submission per folder (its exercises.py) or per .py file directly under `root`."""
    subs: list[Submission] = []
    names: set[str] = set()
    for entry in sorted(root.iterdir()):
        if entry.name.startswith((".", "_")):
            continue  # .git, __pycache__, __MACOSX
        if entry.is_dir():
            path = entry / "exercises.py"
            problem = None if path.is_file() else f"no exercises.py in {entry}"
            name = entry.name
        elif entry.suffix == ".py":
            path, problem, name = entry, None, entry.stem
        else:
            continue
        if name in names:
            name = entry.name  # alice/ and alice.py: the file keeps its suffix
        names.add(name)
        subs.append(Submission(name, path, problem))
    return subs


def _grade_student(spec: KernelSpec, sub: Submission, rungs: list[str], *, seed: int, timing: str | None,
                   timeout_s: float, roofs, on_rung) -> StudentResult:
    reports = []
    for rung in rungs:
        ref = ImplRef(str(sub.path.resolve()), f"{spec.name}_{rung}", rung, f"{sub.student}:{rung}")
        on_rung(sub, rung)
        if sub.problem:
            reports.append(ImplReport(ref, [], [], failure=sub.problem))
            continue
        try:
            reports.append(grade_impl(spec, ref, seed=seed, time=timing, timeout_s=timeout_s, roofs=roofs))
        except Exception as e:  # noqa: BLE001 - one submission never stops the batch
            reports.append(ImplReport(ref, [], [], failure=f"the grader failed on this submission: "
                                                            f"{type(e).__name__}: {e}"))
    header = f"{spec.name}: graded {sub.path} · seed {seed}"
    return StudentResult(sub, reports, report.gradescope_json(spec, reports, seed, header))


def _diagnosis(rep: ImplReport) -> str:
    bad = next((r for r in rep.results if r.status != check.PASS), None)
    slow = next((s for s in rep.speeds if s.status != check.PASS), None)
    text = (rep.failure or (f"{bad.case}: {bad.message}" if bad else None)
            or (f"timing {slow.case}: {slow.message}" if slow else None) or rep.note or "")
    text = " ".join(text.split())
    return text if len(text) <= DIAGNOSIS_CHARS else text[: DIAGNOSIS_CHARS - 1] + "…"


def _rung_score(spec: KernelSpec, rep: ImplReport, seed: int) -> tuple[float, float]:
    tests = report.gradescope_json(spec, [rep], seed, "")["tests"]
    return sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)


def _cell(spec: KernelSpec, rep: ImplReport) -> str:
    if rep.failure:
        return "error"
    if rep.status in (check.NOT_IMPLEMENTED, check.SKIPPED):
        return rep.status
    tier, _ = speed_verdict(spec, rep)
    pct = rep.median_pct_sol()
    parts = [f"{rep.n_passed}/{rep.n_graded} {rep.status}"]
    if pct is not None:
        parts.append(f"{pct:.0f}% SOL {tier}")
    return " · ".join(parts)


def write_outputs(spec: KernelSpec, results: list[StudentResult], rungs: list[str], out_dir: Path, seed: int,
                  timing: str | None) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "leaderboard.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "rung", "passed", "total", "status", "pct_sol", "tier", "score", "max_score",
                    "file", "diagnosis"])
        for res in results:
            for rep in res.reports:
                tier, _ = speed_verdict(spec, rep)
                pct = rep.median_pct_sol()
                score, max_score = _rung_score(spec, rep, seed)
                w.writerow([res.submission.student, rep.ref.rung, rep.n_passed, rep.n_graded, rep.status,
                            f"{pct:.1f}" if pct is not None else "", tier or "", f"{score:g}", f"{max_score:g}",
                            str(res.submission.path), _diagnosis(rep)])
    with open(out_dir / "cases.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "rung", "case", "status", "seed", "message"])
        for res in results:
            for rep in res.reports:
                for r in rep.results:
                    w.writerow([res.submission.student, rep.ref.rung, r.case, r.status,
                                r.seed if r.seed is not None else "", " ".join(r.message.split())])

    ranked = sorted(results, key=lambda r: (-r.score, -r.best_pct_sol(), r.submission.student))
    lines = [f"# {spec.name}: leaderboard", "",
             f"{len(results)} submissions · seed {seed} · {datetime.date.today().isoformat()}  ",
             f"{env.device_summary()}  "]
    if timing:
        for rung in rungs:
            if rung in spec.speed_tiers:
                t = spec.tiers_for(rung)
                lines.append(f"Speed tiers, {rung} rung: {t.describe()} (passing: {t.passing})  ")
    else:
        lines.append("Speed not graded in this run.  ")
    lines += ["", "| # | student | score | " + " | ".join(rungs) + " | first problem |",
              "|---:|---|---:|" + "---|" * len(rungs) + "---|"]
    for i, res in enumerate(ranked, 1):
        first = next((_diagnosis(r) for r in res.reports if r.status not in (check.PASS, check.SKIPPED)), "")
        cells = [_cell(spec, rep) for rep in res.reports]
        lines.append(f"| {i} | {_md(res.submission.student)} | {res.score:g}/{res.max_score:g} | "
                     + " | ".join(cells) + f" | {_md(first)} |")
    (out_dir / "leaderboard.md").write_text("\n".join(lines) + "\n")

    for res in results:
        report.write_json(out_dir / res.submission.student / "results.json", res.gradescope)
        text = Console(record=True, width=120, file=io.StringIO(), highlight=False)
        text.print(f"graded {res.submission.path} · seed {seed}")
        for rep in res.reports:
            report.print_impl(text, spec, rep)
        (out_dir / res.submission.student / "report.txt").write_text(text.export_text())


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def run(spec: KernelSpec, root: Path, *, rungs: list[str], out_dir: Path, seed: int, timing: str | None,
        timeout_s: float, jobs: int, roofs, console: Console, progress: Progress) -> list[StudentResult]:
    subs = find_submissions(root)
    results: dict[str, StudentResult] = {}
    with progress:
        task = progress.add_task("students", total=len(subs))

        def on_rung(sub: Submission, rung: str) -> None:
            if jobs == 1:
                progress.update(task, description=f"{sub.student} · {rung}")

        def one(sub: Submission) -> StudentResult:
            return _grade_student(spec, sub, rungs, seed=seed, timing=timing, timeout_s=timeout_s,
                                  roofs=roofs, on_rung=on_rung)

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(one, sub): sub for sub in subs}
            for fut in concurrent.futures.as_completed(futures):
                res = fut.result()
                results[res.submission.student] = res
                progress.advance(task)
                cells = ", ".join(f"{rep.ref.rung} {_cell(spec, rep)}" for rep in res.reports)
                progress.console.print(f"{res.submission.student}: {res.score:g}/{res.max_score:g} ({cells})",
                                       highlight=False, markup=False)
    ordered = [results[s.student] for s in subs]
    write_outputs(spec, ordered, rungs, out_dir, seed, timing)
    return ordered
