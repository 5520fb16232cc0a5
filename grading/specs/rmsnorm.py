"""rmsnorm and fused_add_rmsnorm: the normalization before every attention and MLP block of
Llama-class models.

    rmsnorm(x[..., N], weight[N], eps=1e-6) -> y = x / sqrt(mean(x², -1) + eps) * weight
    fused_add_rmsnorm(x, residual, weight, eps=1e-6) -> (y, h): h = x + residual (rounded to x's
        dtype, like any tensor of that dtype), y = rmsnorm(h)

Statistics (the mean of squares) are taken in fp32 whatever the dtype. Memory-bound: per element
one read and one write (two and two with the residual add) against ~4 FLOPs, 1 FLOP/byte in bf16.
Llama-3 8B: N = 4096; 70B: N = 8192; M = tokens in flight.

The contract the reference kernels accept (every rung checks it with `check_*_inputs`):
- x, residual: fp32, fp16 or bf16, at least 1-D. The last dimension must be contiguous (stride 1);
  the leading dimensions must collapse into rows with a single row stride, so a slice
  x[..., :N] of a wider tensor is fine (row stride != N), and so is a start that is not 16-byte
  aligned. A transposed view is rejected with an error naming the argument: call .contiguous().
- residual: the shape, dtype and device of x.
- weight: 1-D, [N], stride 1, the dtype and device of x (an fp32 weight with a bf16 x is
  rejected, not converted: one dtype per call keeps the kernels to three instantiations).
- eps: a number >= 0.
- Outputs: new contiguous tensors of x's shape and dtype; the inputs are not modified.

Tolerances are the defaults of grading.spec per output dtype: fp32 rel L2 1e-5 (elementwise
atol 1e-5 + rtol 1e-5), fp16 5e-3 (1e-3 + 5e-3), bf16 1e-2 (8e-3 + 1.6e-2). The eager rung
rounds twice (normalized x to the dtype, then times weight), 2 half-ulps, well inside them.
h is compared the same way; a correct kernel gets it bit-exact (one rounding of an exact sum).
"""
from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from grading.baselines import compile_static
from grading.spec import Case, KernelSpec, expect_same, expect_tensor, memory_bound_tiers, randn

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# Magnitudes of the "huge" and "tiny" cases. fp16 stays where x + residual cannot overflow 65504
# (2 x 5e3 at 5 sigma), yet x² (2.5e7) would overflow statistics kept in fp16. At 1e-20 (fp32,
# bf16) x² is below fp32's normal range and eps decides the answer.
_HUGE = {torch.float32: 1e4, torch.bfloat16: 1e4, torch.float16: 5e3}
_TINY = {torch.float32: 1e-20, torch.bfloat16: 1e-20, torch.float16: 1e-4}
DEFAULT_EPS = 1e-6


# --- the input contract ---------------------------------------------------------------------------

def check_rmsnorm_inputs(x, weight, eps) -> None:
    """Raise a TypeError/ValueError naming the argument unless the call is one the kernels accept."""
    expect_tensor(x, "x", dtypes=DTYPES, ndim_min=1, last_dim_contiguous=True)
    expect_tensor(weight, "weight", dtypes=DTYPES, ndim=1, last_dim_contiguous=True)
    expect_same(x, weight, "x", "weight", shape=False)
    if weight.shape[0] != x.shape[-1]:
        raise ValueError(f"weight: expected shape ({x.shape[-1]},), the last dimension of x "
                         f"{tuple(x.shape)}; got {tuple(weight.shape)}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"eps: expected a float, got {type(eps).__name__}")
    if not eps >= 0:
        raise ValueError(f"eps: expected a number >= 0, got {eps}")


def check_fused_add_rmsnorm_inputs(x, residual, weight, eps) -> None:
    check_rmsnorm_inputs(x, weight, eps)
    expect_tensor(residual, "residual", dtypes=DTYPES, ndim_min=1, last_dim_contiguous=True)
    expect_same(x, residual, "x", "residual")


def rows_view(t: torch.Tensor, name: str) -> torch.Tensor:
    """`t` as [rows, N] without a copy (the row stride is .stride(0)), or a ValueError naming it."""
    n = t.shape[-1]
    try:
        return t.view(-1, n)
    except RuntimeError:
        raise ValueError(f"{name}: the leading dimensions must collapse into rows with one row "
                         f"stride, got shape {tuple(t.shape)} and strides {t.stride()}; call "
                         f".contiguous() first") from None


# --- references (float64) -------------------------------------------------------------------------

def rmsnorm_ref(x: torch.Tensor, weight: torch.Tensor, eps: float = DEFAULT_EPS) -> torch.Tensor:
    x64 = x.double()
    return x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps) * weight.double()


def fused_add_rmsnorm_ref(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                          eps: float = DEFAULT_EPS) -> tuple[torch.Tensor, torch.Tensor]:
    # h is an output in x's dtype, and y is the norm of that rounded h (what the next layer's
    # residual stream holds). The exact sum rounded once is what an fp32 add then a cast gives.
    h = (x.double() + residual.double()).to(x.dtype).double()
    return rmsnorm_ref(h, weight, eps), h


# --- baselines (timed beside the rungs by `python -m grading bench`) --------------------------------

def rmsnorm_torch(x: torch.Tensor, weight: torch.Tensor, eps: float = DEFAULT_EPS) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


def fused_add_rmsnorm_torch(x, residual, weight, eps: float = DEFAULT_EPS):
    h = x + residual
    return F.rms_norm(h, (h.shape[-1],), weight, eps), h


def _rmsnorm_math(x, weight, eps=DEFAULT_EPS):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * weight


def _fused_add_rmsnorm_math(x, residual, weight, eps=DEFAULT_EPS):
    h = x + residual
    return _rmsnorm_math(h, weight, eps), h


rmsnorm_compile_static = compile_static(_rmsnorm_math)
fused_add_rmsnorm_compile_static = compile_static(_fused_add_rmsnorm_math)


# --- inputs and cases -----------------------------------------------------------------------------

def _make_inputs(params: dict, dtype: torch.dtype, gen: torch.Generator, device, fused: bool):
    *lead, n = params["shape"]
    layout = params.get("layout", "contiguous")
    values = params.get("values", "normal")
    rows = 1
    for d in lead:
        rows *= d

    def rand(*shape):
        # fp32, from the CPU generator below HOST_RNG_MAX values (grading/spec.py).
        t = randn(shape, gen, device)
        if values == "huge":
            t = t * _HUGE[dtype]
        elif values == "tiny":
            t = t * _TINY[dtype]
        elif values == "shifted":  # mean 5, std 0.1: the rms is ~5, far from the std
            t = 5.0 + 0.1 * t
        return t

    def activation():
        if layout == "contiguous":
            t = rand(*lead, n)
        elif layout == "strided":
            # Columns 8..8+N of a [..., N + 16] tensor: row stride N + 16, start still aligned.
            t = rand(*lead, n + 16)[..., 8:8 + n]
        elif layout == "offset":
            # One element past the allocation's start: no 16-byte alignment for vector loads.
            t = rand(rows * n + 1)[1:].view(*lead, n)
        else:
            raise ValueError(f"unknown layout {layout!r}")
        if values == "zero_rows":
            t[..., ::3, :] = 0.0  # every third row all zeros: y must be 0 there, not NaN
        return t.to(device=device, dtype=dtype)

    x = activation()
    residual = activation() if fused else None
    skip = 1 if layout == "offset" else 0  # the offset layout misaligns weight too
    weight = (1.0 + 0.25 * torch.randn(n + skip, generator=gen))[skip:].to(device=device, dtype=dtype)
    kwargs = {"eps": params["eps"]} if "eps" in params else {}
    return ((x, residual, weight) if fused else (x, weight)), kwargs


def make_rmsnorm_inputs(params, dtype, gen, device):
    return _make_inputs(params, dtype, gen, device, fused=False)


def make_fused_add_rmsnorm_inputs(params, dtype, gen, device):
    return _make_inputs(params, dtype, gen, device, fused=True)


def _cases(quick: bool) -> list[Case]:
    out = []
    random_shapes = [[1, 4096], [3, 37], [37, 1000], [2, 3, 5120], [1, 4097], [5, 8192]]
    # N = 1..8 (below one 16-byte vector), and single rows with a tail past the last vector.
    small_shapes = [[3, n] for n in range(1, 9)] + [[37, 7], [1, 7]]
    # Rows past what the reference kernels keep in registers (Triton 16K bf16 / 8K fp32, CUDA
    # 32K / 16K): their two-pass paths, one of them with a tail past the last 16-byte vector.
    long_shapes = [[2, 33000], [1, 33001]]
    if not quick:
        random_shapes += [[123, 8192], [4096, 4096], [16384, 128], [1, 32768], [33, 16384],
                          [7, 3, 11008], [1000, 12288]]
        long_shapes += [[3, 65536], [2, 100003]]
    for dtype in DTYPES:
        for shape in random_shapes + small_shapes + long_shapes:
            out.append(Case("random", {"shape": shape}, dtype))
        out.append(Case("strided", {"shape": [37, 1000], "layout": "strided"}, dtype))
        out.append(Case("strided", {"shape": [2, 5, 96], "layout": "strided"}, dtype))
        out.append(Case("unaligned", {"shape": [5, 263], "layout": "offset"}, dtype))
        out.append(Case("unaligned", {"shape": [1, 1024], "layout": "offset"}, dtype))
        out.append(Case("zero rows", {"shape": [37, 1000], "values": "zero_rows"}, dtype))
        out.append(Case("huge", {"shape": [8, 5120], "values": "huge"}, dtype))
        # y ~ x / sqrt(eps): scale the absolute tolerance down with it, or zeros would pass.
        out.append(Case("tiny", {"shape": [8, 5120], "values": "tiny"}, dtype,
                        scale=min(1.0, _TINY[dtype] / DEFAULT_EPS ** 0.5)))
        out.append(Case("mean 5, std 0.1", {"shape": [13, 4096], "values": "shifted"}, dtype))
        out.append(Case("eps", {"shape": [9, 768], "eps": 1e-5}, dtype))
        out.append(Case("eps", {"shape": [9, 768], "eps": 0.1}, dtype))
    return out


def bench_cases() -> list[Case]:
    # Llama-3 8B (N = 4096) and 70B (N = 8192); M = tokens: 1 is one decode step, 16K-32K a
    # long prefill.
    return [Case("llama", {"shape": [m, n]}, torch.bfloat16)
            for n in (4096, 8192) for m in (1, 16, 64, 256, 4096, 16384, 32768)]


def speed_cases() -> list[Case]:
    # 134 and 537 MB moved (twice that fused): 31 and 126 µs at the H200's SOL, long enough
    # for the percentage to measure the kernel rather than its launch.
    return [Case("llama", {"shape": [m, 8192]}, torch.bfloat16) for m in (4096, 16384)]


def _rows_n(case: Case) -> tuple[int, int]:
    *lead, n = case.params["shape"]
    rows = 1
    for d in lead:
        rows *= d
    return rows, n


# --- the compiled rung must not recompile per token count -----------------------------------------

# Warm-up token counts: dynamo always specializes a size of 1, and without a hint the first new
# size is where it marks the dimension dynamic (automatic dynamic shapes). After those two calls a
# correct compile serves every other token count with the graphs it has.
WARMUP_TOKENS = (1, 2)
SWEEP_TOKENS = (3, 17, 64, 129, 1000)
SWEEP_N = 256


def recompilation_check(make_args: Callable[[int, torch.device], tuple]) -> Callable:
    """The compiled rung's extra check; make_args(m, device) gives the arguments for M = m tokens."""

    def no_recompilation_across_token_counts(fn: Callable, device: torch.device) -> None:
        from torch._dynamo.utils import counters

        from grading.check import Mismatch

        # The cases before this ran many shapes and dtypes through the same compiled function
        # and may have used up dynamo's recompile limit (8), after which it runs the function
        # uncompiled and counts nothing: start from empty caches.
        torch._dynamo.reset()
        graphs = lambda: counters["stats"]["unique_graphs"]  # noqa: E731 - +1 per graph dynamo compiles
        start = graphs()
        for m in WARMUP_TOKENS:
            fn(*make_args(m, device))
        warm = graphs()
        if warm == start:
            raise Mismatch("no graph was compiled while warming up at token counts "
                           f"{list(WARMUP_TOKENS)}: the compiled rung must call a torch.compile'd function")
        for m in SWEEP_TOKENS:
            fn(*make_args(m, device))
        n = graphs() - warm
        if n:
            raise Mismatch(f"recompiled {n} times across token counts {list(SWEEP_TOKENS)} (N={SWEEP_N}, "
                           f"float32, after warm-up calls at {list(WARMUP_TOKENS)}): mark the token "
                           f"dimension dynamic (torch._dynamo.mark_dynamic(x, 0) before each call; "
                           f"with torch.compile(dynamic=False) every other size stays static) so "
                           f"one graph serves every token count")

    return no_recompilation_across_token_counts


def _sweep_args(fused: bool):
    def make(m: int, device) -> tuple:
        gen = torch.Generator().manual_seed(m)
        x = torch.randn(m, SWEEP_N, generator=gen).to(device)
        w = torch.randn(SWEEP_N, generator=gen).to(device)
        return (x, torch.randn(m, SWEEP_N, generator=gen).to(device), w) if fused else (x, w)
    return make


# --- the specs ------------------------------------------------------------------------------------

SPEC = KernelSpec(
    name="rmsnorm",
    signature="rmsnorm(x[..., N], weight[N], eps=1e-6) -> y  (x's shape and dtype)",
    module="rmsnorm",
    chapter="01_rmsnorm",
    reference=rmsnorm_ref,
    make_inputs=make_rmsnorm_inputs,
    cases=_cases,
    bench_cases=bench_cases,
    speed_cases=speed_cases,
    # x², the sum, times rstd, times weight.
    flops=lambda c: 4.0 * _rows_n(c)[0] * _rows_n(c)[1],
    # Read x, write y, read weight once.
    bytes_moved=lambda c: (2.0 * _rows_n(c)[0] + 1.0) * _rows_n(c)[1] * c.dtype.itemsize,
    math_dtype=lambda c: "fp32",
    speed_tiers=memory_bound_tiers(),
    baselines={"F.rms_norm": "grading/specs/rmsnorm.py:rmsnorm_torch",
               "torch.compile, static shapes": "grading/specs/rmsnorm.py:rmsnorm_compile_static"},
    extra_checks={"compiled": recompilation_check(_sweep_args(fused=False))},
    description="RMS normalization over the last dimension, fp32 statistics; memory-bound.",
)

FUSED_SPEC = KernelSpec(
    name="fused_add_rmsnorm",
    signature="fused_add_rmsnorm(x[..., N], residual[..., N], weight[N], eps=1e-6) -> (y, h)",
    module="rmsnorm",
    chapter="01_rmsnorm",
    reference=fused_add_rmsnorm_ref,
    make_inputs=make_fused_add_rmsnorm_inputs,
    cases=_cases,
    bench_cases=bench_cases,
    speed_cases=speed_cases,
    out_dtypes=lambda c: (c.dtype, c.dtype),
    # The add, then rmsnorm's 4.
    flops=lambda c: 5.0 * _rows_n(c)[0] * _rows_n(c)[1],
    # Read x and residual, write y and h, read weight once.
    bytes_moved=lambda c: (4.0 * _rows_n(c)[0] + 1.0) * _rows_n(c)[1] * c.dtype.itemsize,
    math_dtype=lambda c: "fp32",
    speed_tiers=memory_bound_tiers(),
    baselines={"x + residual, F.rms_norm": "grading/specs/rmsnorm.py:fused_add_rmsnorm_torch",
               "torch.compile, static shapes": "grading/specs/rmsnorm.py:fused_add_rmsnorm_compile_static"},
    extra_checks={"compiled": recompilation_check(_sweep_args(fused=True))},
    description="Residual add then RMS normalization, both outputs written; memory-bound.",
)
