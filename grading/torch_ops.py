"""Which PyTorch ops the Triton and CUDA rungs may call: memory, never math.

A "triton" or "cuda" rung that quietly computes with PyTorch (`F.silu(g) * u` around an empty
kernel, cuBLAS behind `a @ b`, a torch.compile'd helper) would pass the correctness cases and
be graded on someone else's kernel. So every call of such a rung runs under `OpRecorder`, a
TorchDispatchMode: it sees each aten op the call executes, also ops on tensors created inside the
call and ops run from C++ (a custom op's own implementation is re-dispatched under the recorder).
torch.compile'd code runs eagerly while a dispatch mode is active, so its ops are seen too.
Triton kernel launches do not go through aten at all and need no exception.

The allowed ops make, view, copy or describe memory (`ALLOWED` below, one reason per group).
Anything else fails the case with a list of the ops and their counts.
"""
from __future__ import annotations

import collections
import sys
from typing import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

# The rungs whose math must run in the student's own kernel.
GUARDED_RUNGS = ("triton", "cuda")

# aten op names (the overload packet: "empty" covers empty.memory_format, empty.out, ...) that a
# kernel launcher may call, grouped by why.
ALLOWED: dict[str, frozenset[str]] = {
    # Outputs, workspaces and accumulators. zeros and fill are allowed because kernels that
    # accumulate with atomics (split-K, a global amax) need a zeroed or constant buffer first;
    # a constant holds nothing computed from the inputs.
    "allocation": frozenset({
        "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
        "zeros", "zeros_like", "new_zeros", "zero_", "ones", "ones_like", "new_ones",
        "full", "full_like", "new_full", "scalar_tensor", "lift_fresh", "lift_fresh_copy",
    }),
    # Views: a new shape or stride over the same bytes (the launcher's [rows, N] view).
    "views": frozenset({
        "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "expand", "expand_as",
        "permute", "transpose", "t", "squeeze", "unsqueeze", "slice", "select", "narrow", "split",
        "split_with_sizes", "unsafe_split", "chunk", "unbind", "flatten", "unflatten", "movedim",
        "unfold", "diagonal", "detach", "alias", "view_as", "view_as_real", "view_as_complex",
    }),
    # Copies: the values of the input in a new layout or dtype (a .contiguous() before a
    # kernel that wants one). Device-to-host copies are refused separately (see _host_copy).
    "copies": frozenset({"clone", "copy_", "contiguous", "_to_copy", "to", "_copy_from",
                         "_copy_from_and_resize", "type_as"}),
    # Questions about a tensor, and reading one scalar (a length, a flag) to the host.
    "metadata": frozenset({
        "sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "size", "stride", "numel",
        "dim", "storage_offset", "is_contiguous", "is_same_size", "is_non_overlapping_and_dense",
        "is_strides_like_format", "_local_scalar_dense", "record_stream",
    }),
}
# fill_ with a Python number is a constant; fill_.Tensor would broadcast a computed value.
ALLOWED_OVERLOADS = frozenset({"aten.fill_.Scalar", "prim.device.default", "prim.layout.default"})
# Higher-order ops that launch a user's Triton kernel (torch.library.wrap_triton).
ALLOWED_HIGHER_ORDER = frozenset({"triton_kernel_wrapper_mutation", "triton_kernel_wrapper_functional"})
_ALLOWED_NAMES = frozenset().union(*ALLOWED.values())


def _exempt_code() -> frozenset:
    """Code whose own torch ops are not the rung's: Triton's interpreter copies arguments to the
    host and back around every launch (CPU mode), and its autotuner summarizes timings with torch."""
    codes = set()
    try:
        from triton.runtime.autotuner import Autotuner
        codes.add(Autotuner._bench.__code__)
    except (ImportError, AttributeError):
        pass
    try:
        from triton.runtime.interpreter import GridExecutor
        codes.add(GridExecutor.__call__.__code__)
    except (ImportError, AttributeError):
        pass
    return frozenset(codes)


def _inside(codes: frozenset) -> bool:
    f = sys._getframe(1)
    while f is not None:
        if f.f_code in codes:
            return True
        f = f.f_back
    return False


def _name(func) -> str:
    """aten.mul.Tensor -> "aten.mul.Tensor"; the default overload reads as the bare op."""
    s = str(func)
    return s[: -len(".default")] if s.endswith(".default") else s


class OpRecorder(TorchDispatchMode):
    """Counts the forbidden ops executed while active: `forbidden` maps an op's name to a count."""

    def __init__(self, device: torch.device | None = None):
        super().__init__()
        self.device = device
        self.forbidden: collections.Counter[str] = collections.Counter()
        self._exempt = _exempt_code()

    def _allowed(self, func) -> bool:
        ns = func.namespace
        if ns == "aten":
            return func._opname in _ALLOWED_NAMES or str(func) in ALLOWED_OVERLOADS
        if ns == "higher_order":
            return func.name() in ALLOWED_HIGHER_ORDER
        return str(func) in ALLOWED_OVERLOADS

    def _host_copy(self, args, out) -> bool:
        """A copy from the GPU into host memory: the math could then happen anywhere (numpy)."""
        if self.device is None or self.device.type == "cpu":
            return False
        srcs = [t for t in tree_leaves(args) if isinstance(t, torch.Tensor)]
        return (isinstance(out, torch.Tensor) and out.device.type == "cpu"
                and any(t.device.type != "cpu" for t in srcs))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func.namespace not in ("aten", "prim", "higher_order"):
            # A custom op: our CUDA bindings (kl_<kernel>_<hash>, grading/cuda.py) or one the
            # submission registered itself. Allowed as a wrapper, but what its implementation runs
            # is recorded too, so a torch.library op around F.silu hides nothing.
            return self._run_inside(func, args, kwargs)
        out = func(*args, **kwargs)
        if not self._allowed(func):
            if not _inside(self._exempt):
                self.forbidden[_name(func)] += 1
        elif func._opname in ("_to_copy", "copy_") and self._host_copy(args[1:] if func._opname == "copy_" else args[:1], out):
            self.forbidden[f"{_name(func)} (to the host)"] += 1
        return out

    def _run_inside(self, func, args, kwargs):
        tensors = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        key = {"cuda": torch._C.DispatchKey.CUDA, "cpu": torch._C.DispatchKey.CPU}.get(
            tensors[0].device.type if tensors else "cpu")
        if key is None:
            return func(*args, **kwargs)
        # Below the Python key, with this mode pushed again: the op's kernel runs and every aten
        # op it calls comes back through __torch_dispatch__.
        with self:
            return func.redispatch(torch._C.DispatchKeySet(key), *args, **kwargs)


def diagnosis(rung: str, forbidden: collections.Counter) -> str:
    ops = ", ".join(f"{name} ×{n}" for name, n in forbidden.most_common())
    return (f"the {rung} rung called PyTorch compute ops: {ops}. The rung's math must run in your own "
            f"kernel; PyTorch may only allocate, view and copy tensors here (grading/torch_ops.py "
            f"lists what is allowed)")


def watch(fn: Callable, rung: str | None, device: torch.device | None,
          on_forbidden: Callable[[str], BaseException]) -> Callable:
    """`fn` itself for the eager and compiled rungs; for the guarded rungs, `fn` run under an
    OpRecorder that raises on_forbidden(diagnosis) after a call that used forbidden ops."""
    if rung not in GUARDED_RUNGS:
        return fn

    def watched(*args, **kwargs):
        rec = OpRecorder(device)
        with rec:
            out = fn(*args, **kwargs)
        if rec.forbidden:
            raise on_forbidden(diagnosis(rung, rec.forbidden))
        return out

    watched.__wrapped__ = fn
    return watched
