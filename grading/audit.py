"""Checks on the checker: graded code runs in the same process as the worker's checks and timer,
so the parent does not take the worker's word for it.

Two defences, each against code that patches the grader from inside a submission:
- `GraderSnapshot` (in the worker): the grader's modules, classes, spec and the few torch and time
  functions timing relies on are recorded before the submission is imported, and compared after
  every call of it. A replaced `grading.check.compare`, a relabelled `check.FAIL`, a patched
  `torch.cuda.Event.elapsed_time` or spec reference voids the run with a diagnosis.
- The re-check (in the parent): the worker saves the outputs of a few cases, picked by the parent,
  to a file; the parent, which never imports graded code, regenerates those inputs from their
  seed, computes the float64 reference and compares with its own `compare`. A failing case that
  the worker reported as passing is a contradiction, whatever was patched to produce it.

What neither can stop: graded code can do anything its process can (it could compute the right
answer with PyTorch and turn the op recorder off around it). These checks catch mistakes and the
easy cheats; the code of a surprising result still deserves a read.
"""
from __future__ import annotations

import random
import sys
import types
from pathlib import Path
from typing import Any

import torch

from grading import check
from grading.spec import Case, KernelSpec

# Functions outside the grader that its protocol trusts, by dotted path.
TRUSTED_FUNCTIONS = (
    "time.perf_counter", "time.monotonic",
    "torch.cuda.synchronize", "torch.cuda._sleep", "torch.cuda.Event", "torch.cuda.Event.record",
    "torch.cuda.Event.elapsed_time", "torch.cuda.CUDAGraph.replay",
    "torch.save", "torch.equal", "torch.isfinite", "torch.Tensor.clone", "torch.Tensor.copy_",
    "torch.utils._python_dispatch.TorchDispatchMode.__enter__",
    "torch.utils._python_dispatch.TorchDispatchMode.__exit__",
)
# Cases re-checked by the parent: one per dtype, among those moving at most this many bytes.
AUDIT_MAX_BYTES = 16 * 2**20


def _resolve(path: str) -> Any:
    head, *rest = path.split(".")
    obj = sys.modules.get(head) or __import__(head)
    for part in rest:
        obj = getattr(obj, part)
    return obj


def _copy(v: Any) -> Any:
    """A shallow copy of a mutable container, compared by value later; None for anything else."""
    return dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else set(v) if isinstance(v, set) else None


class GraderSnapshot:
    """The grader's own namespaces as they were before graded code ran."""

    def __init__(self, modules: list[types.ModuleType], spec: KernelSpec):
        self._spaces: dict[str, tuple[Any, bool]] = {}  # label -> (namespace object, skip dunders)
        for mod in modules:
            self._spaces[mod.__name__] = (mod, True)
            for v in list(vars(mod).values()):
                if isinstance(v, type) and v.__module__ == mod.__name__:
                    self._spaces[f"{mod.__name__}.{v.__name__}"] = (v, False)
        self._spaces[f"spec {spec.name}"] = (spec, False)
        self._saved = {label: self._state(ns, skip) for label, (ns, skip) in self._spaces.items()}
        self._functions = {}
        for path in TRUSTED_FUNCTIONS:
            try:
                self._functions[path] = _resolve(path)
            except (AttributeError, ImportError):
                pass

    @staticmethod
    def _state(ns: Any, skip_dunders: bool) -> dict[str, tuple[Any, Any]]:
        return {k: (v, _copy(v)) for k, v in list(vars(ns).items())
                if not (skip_dunders and k.startswith("__") and k.endswith("__"))}

    def changes(self) -> list[str]:
        """What differs from the snapshot, e.g. ["grading.check.compare replaced"]."""
        out = []
        for label, (ns, skip) in self._spaces.items():
            saved, now = self._saved[label], self._state(ns, skip)
            for k, (v, c) in saved.items():
                if k not in now:
                    out.append(f"{label}.{k} deleted")
                elif now[k][0] is not v or (c is not None and now[k][1] != c):
                    out.append(f"{label}.{k} replaced")
            out += [f"{label}.{k} added" for k in now.keys() - saved.keys()]
        for path, fn in self._functions.items():
            try:
                same = _resolve(path) is fn
            except (AttributeError, ImportError):
                same = False
            if not same:
                out.append(f"{path} replaced")
        return out


class Tampered(BaseException):
    """Graded code changed the grader. A BaseException, so no `except Exception` on the way
    (the checker's, or the submission's own) turns it into an ordinary failed case."""

    def __init__(self, changes: list[str]):
        super().__init__(", ".join(changes))
        self.changes = changes


def tamper_message(changes: list[str]) -> str:
    shown = ", ".join(changes[:6]) + (f" and {len(changes) - 6} more" if len(changes) > 6 else "")
    return (f"the submission modified the grader while it ran ({shown}). Graded code must not patch "
            f"the grader, its spec or the timer; nothing this run reported is trusted")


# --- the parent's re-check ------------------------------------------------------------------------

def pick_audit_cases(spec: KernelSpec, cases: list[Case], seed: int) -> list[int]:
    """Indices of the cases the parent re-checks: one small case per dtype, drawn with the seed."""
    rng = random.Random(seed * 7919 + 17)
    by_dtype: dict[torch.dtype, list[int]] = {}
    for i, c in enumerate(cases):
        try:
            small = spec.bytes_moved(c) <= AUDIT_MAX_BYTES
        except Exception:  # noqa: BLE001 - a byte model that does not cover a test-only case
            small = True
        if small:
            by_dtype.setdefault(c.dtype, []).append(i)
    return sorted(rng.choice(ix) for ix in by_dtype.values())


def save_outputs(fn, spec: KernelSpec, cases: list[Case], indices: list[int], seed: int,
                 device: torch.device, path: str) -> int:
    """Worker side: call `fn` on the audit cases (the check's own inputs, by seed) and save what it
    returned. Returns how many cases were saved."""
    entries = []
    for i in indices:
        case = cases[i]
        s = check.case_seed(seed, i)
        args, kwargs = spec.make_inputs(case.params, case.dtype, torch.Generator().manual_seed(s), device)
        entry: dict[str, Any] = {"index": i, "seed": s}
        try:
            out = fn(*args, **kwargs)
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            outs = check._flat(out)
            if not all(type(o) is torch.Tensor for o in outs):
                entry["error"] = f"returned {type(out).__name__}, not plain tensors"
            else:
                entry["outputs"] = [o.detach().cpu().clone() for o in outs]
        except check.Mismatch as e:
            entry["error"] = str(e)
        except Exception as e:  # noqa: BLE001
            entry["error"] = check.summarize_exception(e)
        entries.append(entry)
    torch.save(entries, path)
    return len(entries)


def verify_outputs(spec: KernelSpec, cases: list[Case], path: str | Path,
                   results: list[check.CaseResult]) -> list[str]:
    """Parent side: re-check the saved outputs. Returns the contradictions: cases whose saved
    output fails the parent's own check though the worker reported them passing."""
    entries = torch.load(path, weights_only=True)  # plain tensors and lists only: no code runs
    cpu = torch.device("cpu")
    problems = []
    for e in entries:
        i = int(e["index"])
        if not 0 <= i < len(cases):
            return [f"re-check file names case {i}, which does not exist"]
        case = cases[i]
        reported = results[i] if i < len(results) and results[i].case == case.describe() else None
        if reported is None or not reported.passed:
            continue  # the worker did not claim a pass: nothing to contradict
        gen = torch.Generator().manual_seed(int(e["seed"]))
        args, kwargs = spec.make_inputs(case.params, case.dtype, gen, cpu)
        ref = spec.reference(*args, **kwargs)
        try:
            if "error" in e:
                raise check.Mismatch(e["error"])
            out = e["outputs"]
            out = out[0] if not isinstance(ref, tuple) and len(out) == 1 else tuple(out)
            check.check_structure(out, ref, spec, case, [], cpu)
            settled = spec.settled(out, ref, args, kwargs)
            for o, r, tol in zip(check._flat(out), check._flat(settled), spec.tolerances_for(case)):
                check.compare(o, r, tol, case.scale)
        except check.Mismatch as err:
            problems.append(f"{case.describe()} [seed {e['seed']}]: {err}")
    return problems


def audit_message(problems: list[str]) -> str:
    return ("the grader's own re-check, outside the graded process, fails where the worker reported a "
            f"pass: {problems[0]}" + (f" (and {len(problems) - 1} more case(s))" if len(problems) > 1 else "")
            + ". Either the checker was tampered with, or the kernel gives different answers for the "
            "same inputs (a race)")
