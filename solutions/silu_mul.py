"""silu_mul four ways: eager, torch.compile, Triton, CUDA C++.

Napkin math (Llama-3 8B MLP, 8192 tokens × 14336, bf16): 117.4M elements, 3 × 2 bytes each
(read gate, read up, write out) = 705 MB. At the H200's measured 4.27 TB/s copy roof that is
165 µs; the ~5 FLOPs per element (587 MFLOP) would take under 10 µs even on plain fp32 units, so
the kernel is memory-bound by 20× and speed is all about bytes.
"""
from __future__ import annotations

import functools
from pathlib import Path

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from grading.compiling import compile_on_first_call
from grading.specs.silu_mul import check_silu_mul_inputs

REPO = Path(__file__).resolve().parent.parent


# --- rung 1: eager ------------------------------------------------------------------------------
def silu_mul_eager(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # Two kernels: silu writes an intermediate the size of the output, multiply reads it back.
    # 5 passes over N elements instead of 3: at best 60% of the roof.
    check_silu_mul_inputs(gate, up)
    return F.silu(gate) * up


# --- rung 2: torch.compile ----------------------------------------------------------------------
# Compiled at the first call (grading/compiling.py): `@torch.compile` would import the compiler
# (~5 s) in every process that imports this file, also those that run only the other rungs.
@compile_on_first_call(dynamic=False)  # every size static but the marked token dimension (below)
def _silu_mul_fused(gate, up):
    return F.silu(gate.float()).to(gate.dtype) * up


def silu_mul_compiled(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # Inductor fuses both ops into one pointwise Triton kernel: 3 passes, the intermediate stays
    # in registers. Only the token dimension is marked dynamic: one kernel for every token count
    # without recompiling, and the column count stays a constant the kernel is specialised for
    # (dynamic=False above keeps it so at a second column count, where automatic dynamic shapes
    # would make it symbolic: chapter 01, section 5).
    # compile(dynamic=True) makes every size symbolic: 233 µs instead of 166 µs at 8192 × 14336
    # bf16 on an H200 (benchmarks/silu_mul_variants.json).
    check_silu_mul_inputs(gate, up)
    if gate.dim() > 1:
        torch._dynamo.mark_dynamic(gate, 0)
        torch._dynamo.mark_dynamic(up, 0)
    return _silu_mul_fused(gate, up)


# --- rung 3: Triton -----------------------------------------------------------------------------
@triton.jit
def _silu_mul_flat_kernel(
    gate_ptr, up_ptr, out_ptr,  # contiguous: the tensors are flat arrays of n elements
    n,                          # total elements
    BLOCK: tl.constexpr,        # elements per program
    INT64: tl.constexpr,        # 64-bit offsets, only when n >= 2^31
):
    pid = tl.program_id(0)
    if INT64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(gate_ptr + offs, mask=mask).to(tl.float32)
    u = tl.load(up_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (g * tl.sigmoid(g) * u).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _silu_mul_kernel(
    gate_ptr, up_ptr, out_ptr,      # row-major views; out is contiguous
    n_cols,                          # N, the row length
    gate_row_stride, up_row_stride,  # elements between rows (2N when gate/up are chunks of one tensor)
    BLOCK: tl.constexpr,             # columns per program
):
    row = tl.program_id(0).to(tl.int64)  # 64-bit: 8192 × 28672 rows × cols would overflow int32 offsets
    col = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = col < n_cols
    g = tl.load(gate_ptr + row * gate_row_stride + col, mask=mask, eviction_policy="evict_first").to(tl.float32)
    u = tl.load(up_ptr + row * up_row_stride + col, mask=mask, eviction_policy="evict_first").to(tl.float32)
    # silu(g) = g * sigmoid(g), in fp32: bf16 exp would lose 3 significant bits.
    y = g * tl.sigmoid(g) * u
    tl.store(out_ptr + row * n_cols + col, y.to(out_ptr.dtype.element_ty), mask=mask)


def silu_mul_triton(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    check_silu_mul_inputs(gate, up)
    n = gate.shape[-1]
    g2, u2 = gate.view(-1, n), up.view(-1, n)  # [rows, N]; raises if leading dims don't collapse
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    rows = g2.shape[0]
    if rows == 0 or n == 0:
        return out
    if g2.stride(0) == n and u2.stride(0) == n:
        # Contiguous: one flat pass, like Inductor's pointwise kernels. 32-bit offsets where they
        # fit: 181 µs -> 166 µs at 8192 × 14336 bf16 on an H200 against the 2-D, 64-bit kernel
        # below (benchmarks/silu_mul_variants.json). BLOCK=1024 with 4 warps: 8 elements, one
        # 16-byte load per operand per thread, and 115K programs to spread over 132 SMs.
        numel = rows * n
        _silu_mul_flat_kernel[(triton.cdiv(numel, 1024),)](g2, u2, out, numel, BLOCK=1024,
                                                            INT64=numel >= 2**31, num_warps=4)
        return out
    # Rows with a stride (gate and up as halves of one [M, 2N] projection):
    # BLOCK=2048 bf16 columns = 4 KB per operand per program; 4 warps → 16 elements (32 B) per
    # thread per operand, enough loads in flight to cover HBM latency. A 2-D grid (rows × column
    # blocks) keeps the index math free of divisions.
    block = min(2048, triton.next_power_of_2(n))
    grid = (rows, triton.cdiv(n, block))
    _silu_mul_kernel[grid](g2, u2, out, n, g2.stride(0), u2.stride(0), BLOCK=block, num_warps=4)
    return out


# --- rung 4: CUDA C++ ---------------------------------------------------------------------------
@functools.cache
def _cuda_ops():
    from grading.cuda import load_kernel
    return load_kernel("silu_mul", REPO / "csrc" / "silu_mul.cu", fake=lambda gate, up: gate.new_empty(gate.shape))


def silu_mul_cuda(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    check_silu_mul_inputs(gate, up)
    return _cuda_ops().silu_mul(gate, up)
