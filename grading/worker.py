"""The worker process: imports one implementation, checks it, times it, reports events as JSON lines.

Run as `python -m grading.worker JOB.json`. Each event is one line appended to the job's events
file and flushed at once, so when the process dies (an illegal address, a segfault, the time limit)
the parent still knows every result so far and which case was running.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from pathlib import Path

import grading  # noqa: F401  (first: CPU mode before any @triton.jit)
from grading import check, env, impls
from grading.spec import Case
from grading.specs import get_spec


class Events:
    def __init__(self, path: str):
        self._f = open(path, "a", buffering=1)

    def emit(self, event: str, **data) -> None:
        self._f.write(json.dumps({"event": event, **data}, default=str) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())


def case_json(case: Case) -> dict:
    return {"name": case.name, "params": case.params, "dtype": str(case.dtype).replace("torch.", ""),
            "scale": case.scale, "describe": case.describe()}


def _rotated_inputs(spec, case: Case, seed: int, device):
    """Input sets for timing: enough distinct sets that the rotation spans more than 2× L2."""
    from grading.timing import rotation_count
    import torch
    first = spec.make_inputs(case.params, case.dtype, torch.Generator().manual_seed(seed), device)
    k = rotation_count(spec.bytes_moved(case), device)
    sets = [first] + [spec.make_inputs(case.params, case.dtype, torch.Generator().manual_seed(seed + j), device)
                      for j in range(1, k)]
    return sets


def time_cases(fn, spec, cases: list[Case], seed: int, device, events: Events, label: str) -> None:
    from grading.timing import time_fn
    for i, case in enumerate(cases):
        events.emit("case_start", case=case.describe(), phase="timing")
        s = check.case_seed(seed, 10_000 + i)
        try:
            sets = _rotated_inputs(spec, case, s, device)
            timing, out, idx = time_fn(fn, sets, device=device)
            # The answer produced while timed must still be right (no skipping work on repeats).
            args, kwargs = sets[idx]
            ref = spec.reference(*args, **kwargs)
            status, msg = check.PASS, ""
            try:
                check.check_structure(out, ref, spec, case, check._tensors(args, kwargs), device)
                for o, r in zip(check._flat(out), check._flat(ref)):
                    check.compare(o, r, spec.tolerance(case.dtype), case.scale, what="output of a timed call")
            except check.Mismatch as e:
                status, msg = check.FAIL, str(e)
            events.emit("timing", case=case_json(case), timing=timing.to_json(), status=status, message=msg)
            del sets
        except NotImplementedError as e:
            events.emit("timing", case=case_json(case), timing=None, status=check.NOT_IMPLEMENTED, message=str(e))
            return
        except Exception as e:  # noqa: BLE001
            events.emit("timing", case=case_json(case), timing=None, status=check.ERROR,
                        message=check.summarize_exception(e))
            if check.is_fatal_cuda_error(e):
                return


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    events = Events(job["events_path"])
    spec = get_spec(job["kernel"])
    ref = impls.ImplRef(**job["impl"])
    device = __import__("torch").device(env.DEVICE)
    events.emit("start", device=env.device_summary(), pid=os.getpid())

    # Student output goes to the log, never into the events channel.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            fn = impls.load(ref)
        except Exception as e:  # noqa: BLE001
            events.emit("load_error", message=check.summarize_exception(e, ref.path))
            events.emit("done")
            return 0
        results = []
        if job.get("check", True):
            cases = spec.cases(env.CPU_MODE or job.get("quick", False))
            results = check.check_impl(fn, spec, cases, job["seed"], device, ref.path,
                             on_result=lambda r: events.emit("result", **dataclasses.asdict(r)),
                             on_start=lambda c: events.emit("case_start", case=c.describe(), phase="check"),
                             rung=ref.rung)
        if job.get("time") and not all(r.passed for r in results):
            events.emit("timing_skipped", message="not timed: correctness must pass first")
        elif job.get("time") and not env.CPU_MODE:
            cases = spec.speed_cases() if job["time"] == "speed" else spec.bench_cases()
            only = job.get("shapes")
            if only:
                cases = [c for c in cases if c.describe() in only]
            time_cases(fn, spec, cases, job["seed"], device, events, ref.label)
    events.emit("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
