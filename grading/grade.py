"""Grading: each implementation in its own worker process; results gathered, speed put on the roofline."""
from __future__ import annotations

import dataclasses
import statistics
import tempfile
from pathlib import Path
from typing import Callable

import torch

from grading import audit, check, env, timing
from grading.impls import ImplRef
from grading.isolate import DEFAULT_TIMEOUT_S, run_worker
from grading.spec import Case, KernelSpec

# A time this far under the speed of light (SOL time / 1.25, i.e. > 125% of SOL) is not a fast
# kernel: SOL uses the measured ceilings where cached, which real kernels top by a few percent.
MAX_PCT_SOL = 125.0


@dataclasses.dataclass
class Speed:
    case: str
    params: dict
    time_s: float | None
    timing: dict | None
    sol_s: float | None
    pct_sol: float | None
    status: str
    message: str = ""


@dataclasses.dataclass
class ImplReport:
    ref: ImplRef
    results: list[check.CaseResult]
    speeds: list[Speed]
    failure: str | None = None
    note: str | None = None  # e.g. why it was not timed

    @property
    def status(self) -> str:
        statuses = {r.status for r in self.results}
        if self.failure:
            return check.ERROR
        if statuses - {check.SKIPPED} == {check.NOT_IMPLEMENTED}:
            return check.NOT_IMPLEMENTED  # the stub; written for some cases only is a fail, below
        if (statuses & {check.FAIL, check.ERROR, check.NOT_IMPLEMENTED}
                or any(s.status != check.PASS for s in self.speeds)):
            return check.FAIL
        if statuses == {check.SKIPPED}:
            return check.SKIPPED
        return check.PASS

    @property
    def n_passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def n_graded(self) -> int:
        """Cases that ran: all but those skipped (a dtype this GPU lacks, a rung it cannot build)."""
        return sum(r.status != check.SKIPPED for r in self.results)

    def median_pct_sol(self) -> float | None:
        vals = [s.pct_sol for s in self.speeds if s.pct_sol is not None]
        return statistics.median(vals) if vals else None


def case_from_json(c: dict) -> Case:
    return Case(c["name"], c["params"], getattr(torch, c["dtype"]), c.get("scale", 1.0))


def sol_time(spec: KernelSpec, case: Case, roofs) -> float | None:
    if roofs is None:
        return None
    from grading.roofline import sol_time_s
    return sol_time_s(spec.flops(case), spec.bytes_moved(case), roofs, spec.math_dtype(case))


def current_roofs():
    """Roofs of the GPU in use: measured ceilings where cached, else the datasheet; None on CPU."""
    if env.CPU_MODE:
        return None
    from grading import hardware
    gpu = hardware.current()
    return hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key)) if gpu else None


def timing_problem(t: dict, pct: float | None) -> str | None:
    """The parent's own judgement of a worker's timing: consistent with the wall clock, and not
    faster than the hardware allows."""
    why = timing.inconsistency(t)
    if why is None and pct is not None and pct > MAX_PCT_SOL:
        why = (f"faster than the hardware allows: {pct:.0f}% of the speed of light (limit "
               f"{MAX_PCT_SOL:.0f}%). Timing tampered with, or the output not computed in the timed call")
    return why


def grade_impl(spec: KernelSpec, ref: ImplRef, *, seed: int, check_correctness: bool = True,
               time: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S, roofs=None,
               on_event: Callable[[dict], None] | None = None) -> ImplReport:
    cases = spec.cases(env.CPU_MODE)
    with tempfile.TemporaryDirectory(prefix="kl-audit-") as tmp:
        plan = {"path": str(Path(tmp) / "outputs.pt"), "indices": audit.pick_audit_cases(spec, cases, seed)}
        job = {"kernel": spec.name, "impl": ref.to_json(), "seed": seed, "check": check_correctness,
               "time": time, "audit": plan if check_correctness else None}
        run = run_worker(job, timeout_s=timeout_s, on_event=on_event)
        report = ImplReport(ref, [], [], failure=run.failure)
        audited = False
        for e in run.events:
            kind = e["event"]
            if kind == "result":
                report.results.append(check.CaseResult(**{k: v for k, v in e.items() if k != "event"}))
            elif kind == "load_error":
                report.failure = f"could not load {ref.func} from {ref.path}: {e['message']}"
            elif kind == "tampered":
                report.failure = audit.tamper_message(e["changes"])
            elif kind == "audit":
                audited = True
                if e.get("saved"):
                    problems = _verify(spec, cases, plan["path"], report.results)
                    if problems and not report.failure:
                        report.failure = audit.audit_message(problems)
            elif kind == "timing_skipped":
                report.note = e["message"]
            elif kind == "timing":
                case = case_from_json(e["case"])
                t = e["timing"]
                time_s = None if t is None else (t["graph_median_s"] or t["median_s"])
                sol = sol_time(spec, case, roofs)
                pct = 100.0 * sol / time_s if (sol and time_s) else None
                status, message = e["status"], e["message"]
                why = timing_problem(t, pct) if t is not None else None
                if why and status == check.PASS:
                    status, message = check.FAIL, why
                report.speeds.append(Speed(case.describe(), case.params, time_s, t, sol, pct, status, message))
        finished = any(e["event"] == "done" for e in run.events)
        if check_correctness and finished and not audited and not report.failure and report.results:
            report.failure = "the worker finished without the outputs the grader re-checks; its run is not trusted"
    return report


def _verify(spec: KernelSpec, cases: list[Case], path: str, results: list[check.CaseResult]) -> list[str]:
    try:
        return audit.verify_outputs(spec, cases, path, results)
    except Exception as e:  # noqa: BLE001 - a missing or forged file is a contradiction too
        return [f"the saved outputs could not be read ({type(e).__name__}: {e})"]


def speed_verdict(spec: KernelSpec, report: ImplReport) -> tuple[str | None, bool]:
    """(tier, passed) for a graded rung: the tier of the median % of SOL over the speed cases."""
    pct = report.median_pct_sol()
    if pct is None:
        return None, True
    tiers = spec.tiers_for(report.ref.rung)
    tier = tiers.tier(pct)
    graded = report.ref.rung in spec.speed_tiers
    order = [name for name, _ in tiers.tiers]
    passed = not graded or (tier in order and order.index(tier) <= order.index(tiers.passing))
    return tier, passed
