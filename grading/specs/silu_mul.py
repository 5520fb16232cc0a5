"""silu_mul(gate[..., N], up[..., N]) -> silu(gate) * up: the SwiGLU activation of Llama-class MLPs.

Memory-bound: 2 reads + 1 write per element and ~5 FLOPs (exp, add, divide, two multiplies), an
arithmetic intensity of 5 / 6 ≈ 0.8 FLOP/byte in bf16, far left of any GPU's ridge point.
Llama-3 8B: gate and up are [tokens, 14336]; 70B: [tokens, 28672].
"""
from __future__ import annotations

import torch

from grading.baselines import compile_static
from grading.spec import Case, KernelSpec, expect_same, expect_tensor, memory_bound_tiers, randn

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# "huge" and "tiny" magnitudes per dtype, kept so that the product stays a normal number.
_HUGE = {torch.float32: 1e4, torch.bfloat16: 1e4, torch.float16: 60.0}
_TINY = {torch.float32: 1e-4, torch.bfloat16: 1e-4, torch.float16: 3e-2}


def check_silu_mul_inputs(gate, up) -> None:
    """The contract the reference kernels enforce, with errors that name the argument."""
    expect_tensor(gate, "gate", dtypes=DTYPES, ndim_min=1, last_dim_contiguous=True)
    expect_tensor(up, "up", dtypes=DTYPES, ndim_min=1, last_dim_contiguous=True)
    expect_same(gate, up, "gate", "up")


def silu_mul_ref(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """Plain float64 reference: silu(g) * u = g * sigmoid(g) * u."""
    g, u = gate.double(), up.double()
    return g * torch.sigmoid(g) * u


# Baseline: the same fusion compiled for each shape (no dynamic dimension).
silu_mul_compile_static = compile_static(lambda gate, up: torch.nn.functional.silu(gate.float()).to(gate.dtype) * up)


def make_inputs(params: dict, dtype: torch.dtype, gen: torch.Generator, device) -> tuple[tuple, dict]:
    *lead, n = params["shape"]
    layout = params.get("layout", "contiguous")
    mag = {"normal": 1.0, "huge": _HUGE[dtype], "tiny": _TINY[dtype]}[params.get("magnitude", "normal")]
    rows = 1
    for d in lead:
        rows *= d

    def rand(*shape):
        # fp32, from the CPU generator below HOST_RNG_MAX values (grading/spec.py).
        return (randn(shape, gen, device) * mag).to(dtype=dtype)

    if layout == "contiguous":
        gate, up = rand(*lead, n), rand(*lead, n)
    elif layout == "chunked":
        # gate and up as the two halves of one fused gate_up projection: row stride 2N.
        gate, up = rand(*lead, 2 * n).chunk(2, dim=-1)
    elif layout == "offset":
        # One element past the allocation's start: breaks 16-byte alignment of vector loads.
        gate = rand(rows * n + 1)[1:].view(*lead, n)
        up = rand(rows * n + 1)[1:].view(*lead, n)
    else:
        raise ValueError(f"unknown layout {layout!r}")
    return (gate, up), {}


def cases(quick: bool) -> list[Case]:
    out = []
    shapes = [[1, 8], [3, 37], [37, 1000], [2, 5, 96], [16, 4097], [1, 1]]
    if not quick:
        shapes += [[123, 14336], [1, 28672], [4096, 1032], [7, 3, 11008]]
    for dtype in DTYPES:
        for shape in shapes:
            out.append(Case("random", {"shape": shape}, dtype))
        out.append(Case("chunked", {"shape": [37, 520], "layout": "chunked"}, dtype))
        out.append(Case("unaligned", {"shape": [5, 263], "layout": "offset"}, dtype))
        out.append(Case("huge", {"shape": [17, 300], "magnitude": "huge"}, dtype,
                        scale=_HUGE[dtype] ** 2))
        out.append(Case("tiny", {"shape": [17, 300], "magnitude": "tiny"}, dtype,
                        scale=_TINY[dtype] ** 2))
    return out


def bench_cases() -> list[Case]:
    # Llama-3 8B MLP width 14336; M = tokens in flight (1 = decode of one sequence).
    return [Case("llama8b", {"shape": [m, 14336]}, torch.bfloat16) for m in (1, 64, 512, 2048, 4096, 8192)]


def speed_cases() -> list[Case]:
    # >= 16M elements: large enough that launch overhead is < 2% of the SOL time.
    return [Case("llama8b", {"shape": [m, 14336]}, torch.bfloat16) for m in (2048, 8192)]


def _numel(case: Case) -> int:
    n = 1
    for d in case.params["shape"]:
        n *= d
    return n


SPEC = KernelSpec(
    name="silu_mul",
    signature="silu_mul(gate[..., N], up[..., N]) -> silu(gate) * up  (same shape and dtype)",
    module="silu_mul",
    chapter="00_speed_of_light",
    reference=silu_mul_ref,
    make_inputs=make_inputs,
    cases=cases,
    bench_cases=bench_cases,
    speed_cases=speed_cases,
    flops=lambda c: 5.0 * _numel(c),
    bytes_moved=lambda c: 3.0 * _numel(c) * c.dtype.itemsize,
    math_dtype=lambda c: "fp32",
    speed_tiers=memory_bound_tiers(),
    baselines={"torch.compile, static shapes": "grading/specs/silu_mul.py:silu_mul_compile_static"},
    description="SwiGLU activation, elementwise, memory-bound.",
)
