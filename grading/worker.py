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
from grading import audit, check, env, impls, spec as spec_module, timing, torch_ops
from grading.audit import GraderSnapshot, Tampered
from grading.spec import Case
from grading.specs import get_spec

# Bound now, before any graded code is imported: a submission that patches these module
# attributes does not change what this process calls (and GraderSnapshot reports the patch).
_time_fn = timing.time_fn
_changes = GraderSnapshot.changes
_Mismatch = check.Mismatch


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


def baseline_prepare(spec, ref: impls.ImplRef):
    """The input preparation of a baseline (KernelSpec.baseline_inputs), or None. Only the function
    the spec names for that label gets it: no other implementation has work done outside its timing."""
    prepare, target = spec.baseline_inputs.get(ref.label), spec.baselines.get(ref.label)
    if prepare is None or target is None or ref.rung is not None:
        return None
    path, func = target.rsplit(":", 1)
    same = Path(ref.path).resolve() == (impls.REPO / path).resolve() and ref.func == func
    return prepare if same else None


def time_cases(fn, spec, cases: list[Case], seed: int, device, events: Events,
               snapshot: GraderSnapshot | None = None, prepare=None) -> None:
    for i, case in enumerate(cases):
        events.emit("case_start", case=case.describe(), phase="timing")
        s = check.case_seed(seed, 10_000 + i)
        try:
            sets = _rotated_inputs(spec, case, s, device)
            timed = [prepare(*a) for a in sets] if prepare else sets
            measured, out, idx = _time_fn(fn, timed, device=device)
            if snapshot is not None and _changes(snapshot):
                raise Tampered(_changes(snapshot))
            # The answer produced while timed must still be right (no skipping work on repeats);
            # time_fn ended with a device-wide synchronize, so every stream's work is done.
            args, kwargs = sets[idx]
            ref = spec.reference(*args, **kwargs)
            status, msg = check.PASS, ""
            try:
                check.check_structure(out, ref, spec, case, check._tensors(args, kwargs), device)
                settled = spec.settled(out, ref, args, kwargs)
                for o, r, tol in zip(check._flat(out), check._flat(settled), spec.tolerances_for(case)):
                    check.compare(o, r, tol, case.scale, what="output of a timed call")
            except check.Mismatch as e:
                status, msg = check.FAIL, str(e)
            events.emit("timing", case=case_json(case), timing=measured.to_json(), status=status, message=msg)
            del sets, timed
        except _Mismatch as e:  # forbidden PyTorch ops in a guarded rung, seen while timing
            events.emit("timing", case=case_json(case), timing=None, status=check.FAIL, message=str(e))
        except NotImplementedError as e:
            events.emit("timing", case=case_json(case), timing=None, status=check.NOT_IMPLEMENTED, message=str(e))
            return
        except Exception as e:  # noqa: BLE001
            events.emit("timing", case=case_json(case), timing=None, status=check.ERROR,
                        message=check.summarize_exception(e))
            if check.is_fatal_cuda_error(e):
                return


def guarded(fn, rung: str | None, device, snapshot: GraderSnapshot):
    """`fn` under the op recorder of its rung (grading/torch_ops.py), and the grader compared with
    its snapshot after every call: a patch is caught before the checker runs again."""
    watched = torch_ops.watch(fn, rung, device, _Mismatch)

    def call(*args, **kwargs):
        try:
            return watched(*args, **kwargs)
        finally:
            changed = _changes(snapshot)
            if changed:
                raise Tampered(changed)
    return call


def _why_not_audited(results: list[check.CaseResult], device) -> str | None:
    """None where the parent's re-check can run: a case passed (there is a pass to contradict) and
    the CUDA context still works. A check that stopped early is re-checked too, so that a kernel
    cannot keep unaudited passes by raising a dead context's error without having killed it."""
    if not any(r.passed for r in results):
        return "no case passed"
    if device.type == "cuda":
        import torch
        try:
            torch.ones(1, device=device).add_(1).item()
            torch.cuda.synchronize(device)
        except Exception:  # noqa: BLE001 - the context is gone: nothing more can run on it
            return "the CUDA context is unusable"
    return None


def _may_time(results: list[check.CaseResult]) -> bool:
    """Timed only after every case that ran passed (or with no checks at all: `bench`)."""
    ran = [r for r in results if r.status != check.SKIPPED]
    return all(r.passed for r in ran) and (bool(ran) or not results)


def fresh_compile_caches() -> None:
    """Empty dynamo's caches between the correctness cases and the timing.

    The cases run many dtypes, shapes and strides through the same function. A torch.compile'd
    one is left holding the graphs they made, generic ones once automatic dynamic shapes has seen
    sizes and strides vary, or, past dynamo's recompile limit, none: dynamo then runs the function
    uncompiled. On an H200 the compiled silu_mul rung was timed after its cases at 29% of SOL,
    against 68-75% in a fresh process (`bench`). With empty caches (torch._dynamo.reset(): "as if
    you had started a fresh process") the timed shapes get what a fresh process would give them."""
    import torch
    torch._dynamo.reset()


def run(job: dict, events: Events) -> None:
    spec = get_spec(job["kernel"])
    ref = impls.ImplRef(**job["impl"])
    device = __import__("torch").device(env.DEVICE)
    modules = [check, timing, spec_module, torch_ops, audit, sys.modules[__name__],
               sys.modules[spec.reference.__module__]]
    snapshot = GraderSnapshot(modules, spec)
    sys.dont_write_bytecode = True  # no __pycache__ left in a student's folder
    # nvcc on a CUTLASS file can run for minutes without an event: the parent is told, and waits.
    from grading import cuda
    cuda.compile_listeners.append(lambda what, started: events.emit("compile", what=what, started=started))
    try:
        fn = impls.load(ref)
    except Exception as e:  # noqa: BLE001
        events.emit("load_error", message=check.summarize_exception(e, ref.path))
        return
    if _changes(snapshot):
        raise Tampered(_changes(snapshot))
    call = guarded(fn, ref.rung, device, snapshot)
    results = []
    if job.get("check", True):
        cases = spec.cases(env.CPU_MODE or job.get("quick", False))
        results = check.check_impl(call, spec, cases, job["seed"], device, ref.path,
                                   on_result=lambda r: events.emit("result", **dataclasses.asdict(r)),
                                   on_start=lambda c: events.emit("case_start", case=c.describe(), phase="check"),
                                   rung=ref.rung)
        plan = job.get("audit")
        why_not = _why_not_audited(results, device) if plan else None
        if plan and why_not is None:
            events.emit("case_start", case="re-check outputs", phase="audit")
            n = audit.save_outputs(call, spec, cases, plan["indices"], job["seed"], device, plan["path"])
            events.emit("audit", saved=n)
        elif plan:
            events.emit("audit", saved=0, skipped=why_not)
    if job.get("time") and not _may_time(results):
        events.emit("timing_skipped", message="not timed: correctness must pass first")
    elif job.get("time") and not env.CPU_MODE:
        cases = spec.speed_cases() if job["time"] == "speed" else spec.bench_cases()
        only = job.get("shapes")
        if only:
            cases = [c for c in cases if c.describe() in only]
        unsupported = {check.unsupported_dtype(c.dtype, device) for c in cases} - {None}
        if unsupported:
            events.emit("timing_skipped", message=f"not timed: {sorted(unsupported)[0]}")
            cases = [c for c in cases if check.unsupported_dtype(c.dtype, device) is None]
        if results:
            fresh_compile_caches()
        # Timed without the per-call snapshot comparison (it would add host time to every call);
        # the snapshot is compared after each case instead.
        time_cases(torch_ops.watch(fn, ref.rung, device, _Mismatch), spec, cases, job["seed"], device,
                   events, snapshot, prepare=baseline_prepare(spec, ref))


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    events = Events(job["events_path"])
    events.emit("start", device=env.device_summary(), pid=os.getpid())
    # Student output goes to the log, never into the events channel.
    with contextlib.redirect_stdout(sys.stderr):
        try:
            run(job, events)
        except Tampered as e:
            events.emit("tampered", changes=e.changes)
    events.emit("done")
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1])
    sys.stdout.flush()
    sys.stderr.flush()
    # Straight out: no atexit handler or finalizer of graded code runs after the last event.
    os._exit(code)
