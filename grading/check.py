"""The correctness protocol (DESIGN.md): fresh random inputs, float64 reference, poisoned outputs,
inputs checked unchanged, a second call on new values in the same buffers, a diagnosis on failure.

These functions run inside the worker process, next to the code being graded.
"""
from __future__ import annotations

import dataclasses
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

from grading.spec import Case, KernelSpec, Tolerance

PASS, FAIL, ERROR, NOT_IMPLEMENTED, SKIPPED = "pass", "fail", "error", "not implemented", "skipped"


@dataclasses.dataclass
class CaseResult:
    case: str
    status: str
    message: str = ""
    seed: int | None = None
    rel_l2: float | None = None
    max_err: float | None = None

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def not_run(self) -> bool:
        """A case the checker did not run, after a stop at an earlier one (check_impl)."""
        return self.message.startswith(NOT_RUN)


NOT_RUN = "not run: "


class Mismatch(AssertionError):
    """An output that is not the reference; the message is the diagnosis."""


def case_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index) % 2**63


def _flat(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _dt(d: torch.dtype) -> str:
    return str(d).replace("torch.", "")


def _tensors(args, kwargs) -> list[tuple[str, torch.Tensor]]:
    named = [(f"argument {i}", a) for i, a in enumerate(args)] + list(kwargs.items())
    return [(n, t) for n, t in named if isinstance(t, torch.Tensor)]


def _as_float(t: torch.Tensor) -> torch.Tensor:
    # float8 and other narrow types don't support most math; compare in float64.
    return t.to(torch.float64)


def compare(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, scale: float = 1.0,
            what: str = "output") -> tuple[float, float]:
    """Raise Mismatch with a diagnosis unless `out` matches `ref` within `tol`. Returns
    (relative L2 error, worst |out - ref|)."""
    o = _as_float(out).cpu()
    r = ref.to(torch.float64).cpu()
    finite_ref = torch.isfinite(r)
    bad = ~torch.isfinite(o) & finite_ref
    if bad.any():
        idx = tuple(int(i) for i in bad.nonzero()[0])
        n_bad = int(bad.sum())
        raise Mismatch(f"{what} has {n_bad} NaN/inf value(s) where the reference is finite, first at "
                       f"{list(idx)} (got {o[idx].item()}, expected {r[idx].item():.6g})")
    o = torch.where(finite_ref, o, 0.0)
    r = torch.where(finite_ref, r, 0.0)
    diff = (o - r).abs()
    ref_norm = r.norm().item()
    rel_l2 = diff.norm().item() / ref_norm if ref_norm > 0 else diff.norm().item()
    allowed = tol.atol * scale + tol.rtol * r.abs()
    excess = diff / allowed
    worst = int(excess.argmax()) if excess.numel() else 0
    max_err = float(diff.max()) if diff.numel() else 0.0
    if excess.numel() and excess.view(-1)[worst] > 1 or rel_l2 > tol.rel_l2:
        idx = list(torch.unravel_index(torch.tensor(worst), o.shape)) if o.dim() else []
        idx = [int(i) for i in idx]
        n_over = int((excess > 1).sum())
        raise Mismatch(
            f"{what}: {n_over} of {o.numel()} elements out of tolerance; worst at {idx}: got "
            f"{o.view(-1)[worst].item():.6g}, expected {r.view(-1)[worst].item():.6g} "
            f"(|error| {diff.view(-1)[worst].item():.3g}, allowed {allowed.view(-1)[worst].item():.3g}); "
            f"relative L2 error {rel_l2:.3g} (limit {tol.rel_l2:g})")
    return rel_l2, max_err


def check_structure(out, ref, spec: KernelSpec, case: Case, inputs: list[tuple[str, torch.Tensor]],
                    device: torch.device) -> None:
    outs, refs = _flat(out), _flat(ref)
    if len(outs) != len(refs):
        raise Mismatch(f"expected {len(refs)} output(s), got {len(outs)} ({type(out).__name__})")
    expected_dtypes = spec.out_dtypes(case)
    for i, (o, r, dt) in enumerate(zip(outs, refs, expected_dtypes)):
        name = f"output {i}" if len(refs) > 1 else "output"
        if not isinstance(o, torch.Tensor):
            raise Mismatch(f"{name}: expected a torch.Tensor, got {type(o).__name__}")
        if type(o) is not torch.Tensor:
            # A subclass can compute on access, or answer a comparison with anything it likes.
            raise Mismatch(f"{name}: expected a plain torch.Tensor, got the subclass {type(o).__name__}; "
                           f"return the tensor your kernel wrote")
        if o.device.type != device.type:
            raise Mismatch(f"{name}: expected a tensor on {device.type}, got one on {o.device}")
        if tuple(o.shape) != tuple(r.shape):
            raise Mismatch(f"{name}: expected shape {tuple(r.shape)}, got {tuple(o.shape)}")
        if o.dtype != dt:
            raise Mismatch(f"{name}: expected dtype {_dt(dt)}, got {_dt(o.dtype)}")
        for in_name, t in inputs:
            if o.numel() and t.numel() and o.untyped_storage().data_ptr() == t.untyped_storage().data_ptr():
                raise Mismatch(f"{name} shares memory with {in_name}: return a new tensor, "
                               f"do not write into (or return a view of) an input")


def poison_allocator(ref, device: torch.device) -> None:
    """Leave NaN bit patterns (0xFF bytes) in the memory the implementation's outputs will get.

    PyTorch's CUDA caching allocator hands a freed block of the right size class to the next
    allocation, so an output that is allocated but not fully written reads as NaN and fails,
    instead of passing by luck on zeroed memory.
    """
    if device.type != "cuda":
        return
    blocks = [torch.empty(r.numel() * 8 + 512, dtype=torch.uint8, device=device).fill_(0xFF) for r in _flat(ref)]
    del blocks


def summarize_exception(exc: BaseException, impl_path: str | None = None) -> str:
    """One or two lines: the error and where in the graded file it happened (no traceback wall)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 6:
        lines = lines[:6] + [f"... ({len(lines) - 6} more lines)"]
    frames = traceback.extract_tb(exc.__traceback__)
    where = None
    if impl_path:
        own = [f for f in frames if Path(f.filename).resolve() == Path(impl_path).resolve()]
        where = own[-1] if own else None
    if where is None:
        ours = [f for f in frames if "site-packages" not in f.filename and "/grading/" not in f.filename]
        where = ours[-1] if ours else (frames[-1] if frames else None)
    if isinstance(exc, SyntaxError):
        where = None  # its message names the file and line; the frames are the import machinery's
    loc = f" (at {Path(where.filename).name}:{where.lineno} in {where.name})" if where else ""
    return "\n".join(lines) + loc


def is_fatal_cuda_error(exc: BaseException) -> bool:
    msg = str(exc)
    return any(s in msg for s in ("CUDA error", "illegal memory access", "device-side assert",
                                  "unspecified launch failure", "CUDA driver error"))


# The oldest GPU (compute capability) whose kernels handle each narrow dtype; grading.info and the
# README's GPU table say the same. Older GPUs skip those cases, with this reason.
MIN_CAPABILITY: dict[torch.dtype, tuple[int, int]] = {
    torch.bfloat16: (8, 0),
    torch.float8_e4m3fn: (8, 9),
    torch.float8_e5m2: (8, 9),
}


def unsupported_dtype(dtype: torch.dtype, device: torch.device) -> str | None:
    """Why this GPU cannot run `dtype` cases, or None (always None in CPU mode)."""
    need = MIN_CAPABILITY.get(dtype)
    if device.type != "cuda" or need is None:
        return None
    cap = torch.cuda.get_device_capability(device)
    if cap >= need:
        return None
    return (f"{_dt(dtype)} needs a GPU of compute capability {need[0]}.{need[1]} or newer; this one is "
            f"sm_{cap[0]}{cap[1]}")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def run_case(fn: Callable, spec: KernelSpec, case: Case, seed: int, device: torch.device,
             impl_path: str | None = None) -> CaseResult:
    """Check `fn` on one case. Exceptions other than a failed check propagate to the caller."""
    gen = torch.Generator().manual_seed(seed)
    args, kwargs = spec.make_inputs(case.params, case.dtype, gen, device)
    inputs = _tensors(args, kwargs)
    before = [t.clone() for _, t in inputs]
    ref = spec.reference(*args, **kwargs)
    tols = spec.tolerances_for(case)

    poison_allocator(ref, device)
    out = fn(*args, **kwargs)
    _sync(device)
    check_structure(out, ref, spec, case, inputs, device)
    errs = [compare(o, r, tol, case.scale, what=f"output {i}" if isinstance(ref, tuple) else "output")
            for i, (o, r, tol) in enumerate(zip(_flat(out), _flat(spec.settled(out, ref, args, kwargs)), tols))]
    for (name, t), t0 in zip(inputs, before):
        if not torch.equal(t, t0):
            n = int((t != t0).sum())
            raise Mismatch(f"{name} was modified by the call ({n} element(s) changed): kernels must not "
                           f"write to their inputs")

    # Same buffers, new values: a correct kernel recomputes; one that caches returns stale output.
    first = [o.clone() for o in _flat(out)]
    new_args, new_kwargs = spec.make_inputs(case.params, case.dtype, torch.Generator().manual_seed(seed + 1), device)
    for (_, t), (_, t_new) in zip(inputs, _tensors(new_args, new_kwargs)):
        t.copy_(t_new)
    ref2 = spec.reference(*args, **kwargs)
    poison_allocator(ref2, device)
    out2 = fn(*args, **kwargs)
    _sync(device)
    check_structure(out2, ref2, spec, case, inputs, device)
    for i, (o, r, o1, tol) in enumerate(zip(_flat(out2), _flat(spec.settled(out2, ref2, args, kwargs)), first, tols)):
        try:
            compare(o, r, tol, case.scale, what="second call")
        except Mismatch as e:
            if torch.equal(o, o1):
                raise Mismatch("second call with new values in the same input buffers returned the first "
                               "call's answer: results must not be cached across calls") from None
            raise Mismatch(f"{e} (second call, new values in the same buffers)") from None

    rel_l2 = max(e[0] for e in errs)
    max_err = max(e[1] for e in errs)
    return CaseResult(case.describe(), PASS, f"rel L2 {rel_l2:.2e}", seed, rel_l2, max_err)


def check_impl(fn: Callable, spec: KernelSpec, cases: list[Case], seed: int, device: torch.device,
               impl_path: str | None = None,
               on_result: Callable[[CaseResult], Any] | None = None,
               on_start: Callable[[Case], Any] | None = None,
               rung: str | None = None) -> list[CaseResult]:
    """Run every case, then the spec's extra check for `rung` if it has one. One result per case,
    in order, so that cases passed over cases graded is the share of the kernel's cases it passes.

    Stops early where every later case would end the same way: an unwritten stub (the first case
    that runs is not implemented), a CUDA build that failed, a dead CUDA context. After a failed
    build or a dead context each later case is recorded as not passing ("not run: ..."): a kernel
    that crashes halfway scores what it passed over all its cases, never more than one that fails
    the rest of them."""
    results = []

    def emit(r: CaseResult):
        results.append(r)
        if on_result:
            on_result(r)

    def stop_after(i: int, status: str, why: str):
        """Record the cases after case i as not run (or skipped where this GPU lacks their dtype)."""
        for later in cases[i + 1:]:
            lacks = unsupported_dtype(later.dtype, device)
            emit(CaseResult(later.describe(), SKIPPED, lacks) if lacks
                 else CaseResult(later.describe(), status, NOT_RUN + why))

    for i, case in enumerate(cases):
        s = case_seed(seed, i)
        if on_start:
            on_start(case)
        why = unsupported_dtype(case.dtype, device)
        if why:
            emit(CaseResult(case.describe(), SKIPPED, why, s))
            continue
        try:
            emit(run_case(fn, spec, case, s, device, impl_path))
        except Mismatch as e:
            emit(CaseResult(case.describe(), FAIL, f"{e} [seed {s}]", s))
        except NotImplementedError as e:
            ran_before = any(r.status != SKIPPED for r in results)
            emit(CaseResult(case.describe(), NOT_IMPLEMENTED, str(e) or "not implemented yet", s))
            if not ran_before:  # the stub: every case would say the same
                break
            # Written for some cases, not for this one (a dtype, say): the others still run.
        except Exception as e:  # noqa: BLE001 - a student's crash is a result, not our crash
            # Only an implementation that used grading.cuda can raise its "no GPU" signal.
            cuda_mod = sys.modules.get("grading.cuda")
            if cuda_mod and isinstance(e, cuda_mod.CudaUnavailable):
                emit(CaseResult(case.describe(), SKIPPED, str(e), s))
                break
            emit(CaseResult(case.describe(), ERROR, summarize_exception(e, impl_path) + f" [seed {s}]", s))
            if cuda_mod and isinstance(e, cuda_mod.CudaCompileError):
                stop_after(i, ERROR, "every case runs the same CUDA build, which failed")
                break
            if is_fatal_cuda_error(e):
                stop_after(i, ERROR, "the CUDA context is unusable after this error")
                break
    else:
        extra = spec.extra_checks.get(rung or "")
        if extra is not None:
            # The check function's name, read with spaces, names the result.
            name = extra.__name__.replace("_", " ")
            if on_start:
                on_start(Case(name, {}, torch.float32))
            try:
                extra(fn, device)
                emit(CaseResult(name, PASS))
            except Mismatch as e:
                emit(CaseResult(name, FAIL, str(e)))
            except Exception as e:  # noqa: BLE001
                emit(CaseResult(name, ERROR, summarize_exception(e, impl_path)))
    return results
