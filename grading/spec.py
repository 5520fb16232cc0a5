"""What a kernel is, for the graders: signature, reference, cases, tolerances, FLOP and byte model.

One `KernelSpec` per kernel lives in `grading/specs/<kernel>.py`, next to its plain float64
reference. Everything else (correctness protocol, timing protocol, roofline, CLI) reads only
the spec, so adding a kernel means writing one spec file and its solutions.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Sequence

import torch

RUNGS = ("eager", "compiled", "triton", "cuda")

# Above this many random values a spec's inputs are drawn on the device: a CPU generator takes
# seconds for a bench tensor (a 32768 × 8192 activation, a 28672 × 8192 weight), and a `bench`
# draws one per rung and case. Below it they come from the CPU generator, so that every device
# (and the parent's re-check, grading/audit.py, which regenerates correctness cases on the CPU)
# sees the same values for a seed. Correctness cases all stay below it.
HOST_RNG_MAX = 1 << 24


def randn(shape: Sequence[int], gen: torch.Generator, device, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Standard normal values of `shape` on `device`, reproducible from `gen` (see HOST_RNG_MAX)."""
    if math.prod(shape) <= HOST_RNG_MAX or torch.device(device).type == "cpu":
        return torch.randn(*shape, generator=gen).to(device=device, dtype=dtype)
    seed = int(torch.randint(0, 2**62, (1,), generator=gen))
    dev_gen = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(*shape, generator=dev_gen, device=device, dtype=dtype)


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """A case passes when rel_l2 <= rel_l2 and every element satisfies
    |out - ref| <= atol + rtol * |ref| (atol scaled by the case's `scale`, see Case)."""

    rel_l2: float
    atol: float
    rtol: float


# Per output dtype. bf16 keeps 8 significant bits (rounding alone is up to 2^-8 relative), fp16 11.
DEFAULT_TOLERANCES: dict[torch.dtype, Tolerance] = {
    torch.float64: Tolerance(rel_l2=1e-10, atol=1e-10, rtol=1e-10),
    torch.float32: Tolerance(rel_l2=1e-5, atol=1e-5, rtol=1e-5),
    torch.float16: Tolerance(rel_l2=5e-3, atol=1e-3, rtol=5e-3),
    torch.bfloat16: Tolerance(rel_l2=1e-2, atol=8e-3, rtol=1.6e-2),
}


@dataclasses.dataclass
class Case:
    """One correctness or timing case: a name, the parameters that build its inputs, a dtype.

    `params` is what `KernelSpec.make_inputs` needs (shapes, flags); it is JSON-able so a case can
    be sent to a worker process and named in a report. `scale` multiplies the absolute tolerance
    for cases with huge or tiny magnitudes.
    """

    name: str
    params: dict[str, Any]
    dtype: torch.dtype
    scale: float = 1.0

    def describe(self) -> str:
        shape = "".join(f"{k}={v}, " for k, v in self.params.items())
        return f"{self.name} [{shape}{str(self.dtype).replace('torch.', '')}]"


@dataclasses.dataclass
class SpeedTiers:
    """Speed grading in percent of speed of light (SOL) on the GPU in use, so it ports across GPUs.

    A rung's score is the tier reached by its median % of SOL over `KernelSpec.speed_cases`.
    """

    tiers: Sequence[tuple[str, float]] = (("gold", 80.0), ("silver", 60.0), ("bronze", 30.0))
    passing: str = "bronze"

    def tier(self, pct_sol: float) -> str:
        for name, threshold in self.tiers:
            if pct_sol >= threshold:
                return name
        return "below"

    def describe(self) -> str:
        return ", ".join(f"{name} >= {t:g}% of SOL" for name, t in self.tiers)


def memory_bound_tiers() -> dict[str, SpeedTiers]:
    """Speed tiers for memory-bound kernels, per rung. The Triton and CUDA rungs are graded: a
    kernel that moves each byte once has no excuse to stay far from the HBM roof. The other rungs
    are reported, not graded: what the framework gives you."""
    graded = SpeedTiers((("gold", 85.0), ("silver", 70.0), ("bronze", 40.0)))
    return {"triton": graded, "cuda": graded,
            "default": SpeedTiers((("gold", 80.0), ("silver", 50.0), ("bronze", 5.0)))}


@dataclasses.dataclass
class KernelSpec:
    name: str
    signature: str
    # The module holding `<name>_<rung>` functions: solutions/<module>.py; the student's file is
    # chapters/<chapter>/exercises.py.
    module: str
    chapter: str
    # reference(*args, **kwargs) on float64 copies of the inputs -> output(s) in float64.
    reference: Callable[..., Any]
    # make_inputs(params, dtype, generator, device) -> (args, kwargs); fresh random tensors.
    make_inputs: Callable[..., tuple[tuple, dict]]
    # cases(quick) -> list[Case]: correctness cases; quick=True for CPU mode (interpreter speed).
    cases: Callable[[bool], list[Case]]
    # bench_cases(gpu_name) -> list[Case]: timing shapes (real model sizes).
    bench_cases: Callable[[], list[Case]]
    # flops(case), bytes_moved(case): the roofline model, minimum traffic (each input read once,
    # each output written once).
    flops: Callable[[Case], float]
    bytes_moved: Callable[[Case], float]
    # Which peak rate bounds the arithmetic: "fp32", "tf32", "bf16", "fp8" (see grading.hardware).
    math_dtype: Callable[[Case], str]
    # Speed grading: the cases (subset of bench_cases) and tiers, per rung.
    speed_cases: Callable[[], list[Case]]
    # The output dtypes for a case, in order (default: one output in the case's dtype).
    out_dtypes: Callable[[Case], tuple] = lambda c: (c.dtype,)
    speed_tiers: dict[str, SpeedTiers] = dataclasses.field(default_factory=dict)
    # What a user would call instead, timed beside the rungs by `bench`:
    # label -> "path/from/repo/root.py:function".
    baselines: dict[str, str] = dataclasses.field(default_factory=dict)
    # Baselines that take other inputs than the kernel: label -> prepare(args, kwargs) -> (args,
    # kwargs), applied to every input set before timing, outside the timed region (SDPA on an
    # unpaged cache times the attention, not the copy that builds the cache). The timed output is
    # still checked against the reference of the original inputs.
    baseline_inputs: dict[str, Callable[[tuple, dict], tuple[tuple, dict]]] = dataclasses.field(default_factory=dict)
    tolerances: dict[torch.dtype, Tolerance] = dataclasses.field(
        default_factory=lambda: dict(DEFAULT_TOLERANCES))
    description: str = ""
    # Checks beyond the cases, per rung: rung -> check(fn, device), run after the cases; it raises
    # grading.check.Mismatch with a diagnosis on failure (e.g. the compiled rung must not
    # recompile for every new token count).
    extra_checks: dict[str, Callable[[Callable, torch.device], None]] = dataclasses.field(default_factory=dict)
    # One tolerance per output, for kernels whose outputs are judged differently (fp8_quantize:
    # the e4m3 codes to one e4m3 step, the scales to fp32 rounding). None: every output gets the
    # tolerance of the case's dtype.
    output_tolerances: Callable[[Case], Sequence[Tolerance]] | None = None
    # Where some elements have two right answers (fp8_quantize: x / scale on a rounding tie),
    # settle(outputs, references, args, kwargs) returns the references with the output's value
    # wherever the output holds the other right answer. None: one right answer per element.
    settle: Callable[[tuple, tuple, tuple, dict], tuple] | None = None

    def settled(self, out, ref, args: tuple, kwargs: dict):
        """The reference to compare `out` with: `ref`, or what settle makes of it."""
        if self.settle is None:
            return ref
        outs = out if isinstance(out, (tuple, list)) else (out,)
        refs = ref if isinstance(ref, tuple) else (ref,)
        if len(outs) != len(refs):  # check_structure reports that
            return ref
        settled = tuple(self.settle(tuple(outs), refs, args, kwargs))
        return settled if isinstance(ref, tuple) else settled[0]

    def tolerance(self, dtype: torch.dtype) -> Tolerance:
        return self.tolerances[dtype]

    def tolerances_for(self, case: Case) -> list[Tolerance]:
        """The tolerance of each output of `case`, in order."""
        if self.output_tolerances is not None:
            return list(self.output_tolerances(case))
        return [self.tolerance(case.dtype)] * len(self.out_dtypes(case))

    def tiers_for(self, rung: str | None) -> SpeedTiers:
        return self.speed_tiers.get(rung or "", self.speed_tiers.get("default", SpeedTiers()))


# --- input checks shared by the reference kernels' launchers -------------------------------------

def expect_tensor(t: Any, name: str, *, dtypes: Sequence[torch.dtype] | None = None,
                  ndim_min: int | None = None, ndim: int | None = None,
                  device: torch.device | str | None = None, last_dim_contiguous: bool = False,
                  contiguous: bool = False) -> torch.Tensor:
    """Raise a clear TypeError/ValueError naming `name` when `t` is not what a kernel expects."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if dtypes is not None and t.dtype not in dtypes:
        allowed = ", ".join(str(d).replace("torch.", "") for d in dtypes)
        raise TypeError(f"{name}: expected dtype {allowed}; got {str(t.dtype).replace('torch.', '')}")
    if ndim is not None and t.dim() != ndim:
        raise ValueError(f"{name}: expected {ndim} dimensions, got shape {tuple(t.shape)}")
    if ndim_min is not None and t.dim() < ndim_min:
        raise ValueError(f"{name}: expected at least {ndim_min} dimension(s), got shape {tuple(t.shape)}")
    if device is not None and t.device.type != torch.device(device).type:
        raise ValueError(f"{name}: expected a tensor on {torch.device(device).type}, got one on {t.device}")
    if contiguous and not t.is_contiguous():
        raise ValueError(f"{name}: expected a contiguous tensor (strides {t.stride()} for shape "
                         f"{tuple(t.shape)}); call .contiguous() first")
    if last_dim_contiguous and t.dim() > 0 and t.shape[-1] > 1 and t.stride(-1) != 1:
        raise ValueError(f"{name}: the last dimension must be contiguous (stride 1), got strides "
                         f"{t.stride()}")
    return t


def expect_same(a: torch.Tensor, b: torch.Tensor, name_a: str, name_b: str, *,
                shape: bool = True, dtype: bool = True, device: bool = True) -> None:
    if shape and a.shape != b.shape:
        raise ValueError(f"{name_b}: expected the shape of {name_a} {tuple(a.shape)}, got {tuple(b.shape)}")
    if dtype and a.dtype != b.dtype:
        raise TypeError(f"{name_b}: expected the dtype of {name_a} ({a.dtype}), got {b.dtype}")
    if device and a.device != b.device:
        raise ValueError(f"{name_b}: expected the device of {name_a} ({a.device}), got {b.device}")
