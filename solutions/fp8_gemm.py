"""fp8_quantize and fp8_gemm four ways: eager, torch.compile, Triton, CUDA C++ / CUTLASS.

Napkin math, H200 (measured roofs: 4.25 TB/s copy, 1,458 TFLOP/s fp8 with torch._scaled_mm).
- Prefill, Llama-3 70B MLP up-projection, M = 8192 tokens, N = 28672, K = 8192: 2MNK = 3.85 TFLOP,
  2.6 ms at the fp8 roof; the bytes (a 67 MB, b 235 MB, y 470 MB bf16) take 0.18 ms.
  Compute-bound by 15×: the game is keeping the tensor cores fed (tiles, pipelining, L2 reuse).
- Decode, M = 16, same layer: 7.5 GFLOP (5 µs at the roof), but the 235 MB weight takes 55 µs to
  stream. Weight-bound by 11×: the game is streaming b at the copy roof from every SM.
- The ridge point is 1458 / 4.25 = 343 FLOP/byte; an fp8 GEMM has ≈ 2M FLOP per weight byte, so
  M ≈ 170 tokens divides the two regimes.
Dequantizing to bf16 first (the eager rung) halves both: bf16 tensor cores run at half the fp8 rate
(795 vs 1,458 TFLOP/s measured), and the bf16 copy of the weight is twice the bytes, written and
read once more on every call.

fp8_quantize (per token, x bf16 [M, K]): x read (2 B), q written (1 B), 3 bytes per element:
M = 4096, K = 8192 moves 101 MB, 24 µs at the copy roof. Per tensor needs the global amax before
the first element can be cast: x is read twice (5 bytes per element), unless it stays in L2.
"""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.runtime.errors import OutOfResources

from grading import env
from grading.compiling import compile_on_first_call
# fp8_gemm_scaled_mm: the library call a user makes instead (cuBLASLt's fp8 GEMM through
# torch._scaled_mm, sm_89 or newer on a GPU), defined next to the spec, which times it as the
# baseline; re-exported here beside the rungs.
from grading.specs.fp8_gemm import (AMAX_MIN, E4M3, E4M3_MAX, check_fp8_gemm_inputs, check_fp8_quantize_inputs,
                                    fp8_gemm_scaled_mm)

REPO = Path(__file__).resolve().parent.parent

__all__ = ["fp8_quantize_eager", "fp8_quantize_compiled", "fp8_quantize_triton", "fp8_quantize_cuda",
           "fp8_gemm_eager", "fp8_gemm_compiled", "fp8_gemm_triton", "fp8_gemm_cuda", "fp8_gemm_scaled_mm",
           "fp8_gemm_triton_v1", "fp8_gemm_triton_v2", "fp8_gemm_triton_v3", "fp8_gemm_triton_v4",
           "fp8_gemm_triton_v5"]


# --- rung 1: eager ------------------------------------------------------------------------------
def _quantize_math(x: torch.Tensor, per_token: bool) -> tuple[torch.Tensor, torch.Tensor]:
    # Four kernels and an fp32 copy of x: convert (1), |x| and its max (2, 3), the divide, clamp
    # and cast (4-6). 2 + 4 + 4 + 4 + 1 bytes per element where one kernel needs 3.
    xf = x.float()
    amax = xf.abs().amax(-1, keepdim=True) if per_token else xf.abs().amax().reshape(1)  # [M, 1] or [1]
    scale = amax.clamp_min(AMAX_MIN) / E4M3_MAX
    # e4m3 has no inf: a value past 448 would become NaN, so clamp before the cast.
    q = (xf / scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)
    return q, scale


def _dequant_matmul(a, b, scale_a, scale_b, out_dtype):
    # What a port to a GPU without fp8 kernels does: dequantize both operands to bf16, then a bf16
    # matmul. The weight's bf16 copy (2 bytes per element, written then read again) is made on
    # every call, and the matmul runs at the bf16 tensor-core rate, half of fp8's.
    a16 = (a.to(torch.float32) * scale_a).to(out_dtype)  # [M, K]
    b16 = (b.to(torch.float32) * scale_b).to(out_dtype)  # [N, K]
    return a16 @ b16.T  # [M, N]


def fp8_quantize_eager(x: torch.Tensor, per_token: bool) -> tuple[torch.Tensor, torch.Tensor]:
    check_fp8_quantize_inputs(x, per_token)
    return _quantize_math(x, per_token)


def fp8_gemm_eager(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                   out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    check_fp8_gemm_inputs(a, b, scale_a, scale_b, out_dtype)
    return _dequant_matmul(a, b, scale_a, scale_b, out_dtype)



# --- rung 2: torch.compile ----------------------------------------------------------------------
# The quantizer compiles to one fused reduction kernel per row (per token) or a reduction then a
# pointwise kernel (per tensor). The GEMM does not: Inductor fuses the two dequantizations into
# one pointwise kernel each and then calls the bf16 matmul in cuBLAS (the "extern" mm); with
# mode="max-autotune" it also tries its Triton mm templates, in bf16. Nothing in it feeds fp8 to
# the tensor cores. M is marked dynamic, as in chapter 01: one graph for every token count, and
# dynamic=False keeps K and N static (each weight shape a graph of its own) where automatic dynamic
# shapes would make them symbolic at the second weight shape a process meets.
# Compiled at the first call (grading/compiling.py): `@torch.compile` would import the compiler
# (~5 s) in every process that imports this file, also those that run only the other rungs.
@compile_on_first_call(dynamic=False)
def _quantize_graph(x, per_token: bool):
    return _quantize_math(x, per_token)


@compile_on_first_call(dynamic=False)
def _dequant_matmul_graph(a, b, scale_a, scale_b, out_dtype):
    return _dequant_matmul(a, b, scale_a, scale_b, out_dtype)


def fp8_quantize_compiled(x: torch.Tensor, per_token: bool) -> tuple[torch.Tensor, torch.Tensor]:
    check_fp8_quantize_inputs(x, per_token)
    torch._dynamo.maybe_mark_dynamic(x, 0)
    return _quantize_graph(x, per_token)


def fp8_gemm_compiled(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                      out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    check_fp8_gemm_inputs(a, b, scale_a, scale_b, out_dtype)
    torch._dynamo.maybe_mark_dynamic(a, 0)
    if scale_a.shape[0] > 1:
        torch._dynamo.maybe_mark_dynamic(scale_a, 0)
    return _dequant_matmul_graph(a, b, scale_a, scale_b, out_dtype)


# --- rung 3: Triton, the quantizer --------------------------------------------------------------
@triton.jit
def _amax_kernel(
    x_ptr,                 # x: [M, K] view, last dim contiguous
    amax_ptr,              # [1] fp32, zeroed by the launcher: the global max |x|
    n_rows, n_cols,        # M, K
    x_row_stride,          # elements between rows
    BLOCK_M: tl.constexpr,  # rows per program
    BLOCK_N: tl.constexpr,  # columns per step
    PDL: tl.constexpr = False,  # programmatic dependent launch, as _quantize_kernel
):
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)  # [BLOCK_M]
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        c = start + cols
        mask = (rows[:, None] < n_rows) & (c[None, :] < n_cols)
        v = tl.load(x_ptr + rows[:, None] * x_row_stride + c[None, :], mask=mask, other=0.0)
        acc = tl.maximum(acc, tl.abs(v.to(tl.float32)))
    # One atomic per program; |x| >= 0, so a float max orders like the integers of its bits.
    tl.atomic_max(amax_ptr, tl.max(tl.max(acc, axis=1), axis=0), sem="relaxed")


@triton.jit
def _quantize_kernel(
    x_ptr,                  # x: [M, K] view, last dim contiguous (row stride x_row_stride)
    q_ptr,                  # q: [M, K] contiguous, e4m3 (fp32 where the host casts, CPU mode)
    scale_ptr,              # per token: [M] fp32 written here; per tensor: [1], written by program 0
    amax_ptr,               # per tensor: [1] fp32 from _amax_kernel; unused per token
    n_rows, n_cols,         # M, K
    x_row_stride,
    PER_TOKEN: tl.constexpr,
    BLOCK_M: tl.constexpr,  # rows per program
    BLOCK_N: tl.constexpr,  # the whole (padded) row when ONE_PASS, else a chunk of it
    ONE_PASS: tl.constexpr,  # the row fits in registers: x is read from HBM once
    # Programmatic dependent launch (sm_90+, with launch_pdl=True): the programs may be scheduled
    # while the previous kernel drains; they wait for its writes before their first load.
    PDL: tl.constexpr = False,
):
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)  # [BLOCK_M], 64-bit offsets
    row_mask = rows[:, None] < n_rows
    cols = tl.arange(0, BLOCK_N)
    x_rows = x_ptr + rows[:, None] * x_row_stride
    q_rows = q_ptr + rows[:, None] * n_cols
    if ONE_PASS:
        mask = row_mask & (cols[None, :] < n_cols)
        v = tl.load(x_rows + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        if PER_TOKEN:
            amax = tl.max(tl.abs(v), axis=1)  # [BLOCK_M]
        else:
            amax = tl.load(amax_ptr) + tl.zeros([BLOCK_M], dtype=tl.float32)
        scale = tl.maximum(amax, 1e-12) / 448.0  # AMAX_MIN, E4M3_MAX
        # Divide, not multiply by a reciprocal: one rounding before the e4m3 one. The clamp keeps
        # a quotient that rounds past 448 from becoming NaN (e4m3 has no inf).
        q = tl.clamp(v / scale[:, None], -448.0, 448.0)
        tl.store(q_rows + cols[None, :], q.to(q_ptr.dtype.element_ty), mask=mask)
    else:
        if PER_TOKEN:
            acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
            for start in range(0, n_cols, BLOCK_N):
                c = start + cols
                mask = row_mask & (c[None, :] < n_cols)
                acc = tl.maximum(acc, tl.abs(tl.load(x_rows + c[None, :], mask=mask, other=0.0).to(tl.float32)))
            amax = tl.max(acc, axis=1)
        else:
            amax = tl.load(amax_ptr) + tl.zeros([BLOCK_M], dtype=tl.float32)
        scale = tl.maximum(amax, 1e-12) / 448.0
        # Second pass over the row: mostly L2 hits while the rows in flight fit there.
        for start in range(0, n_cols, BLOCK_N):
            c = start + cols
            mask = row_mask & (c[None, :] < n_cols)
            v = tl.load(x_rows + c[None, :], mask=mask, other=0.0).to(tl.float32)
            q = tl.clamp(v / scale[:, None], -448.0, 448.0)
            tl.store(q_rows + c[None, :], q.to(q_ptr.dtype.element_ty), mask=mask)
    if PER_TOKEN:
        tl.store(scale_ptr + rows, scale, mask=rows < n_rows)
    elif pid == 0:
        tl.store(scale_ptr, tl.max(scale, axis=0))  # every entry of `scale` is the tensor's


@functools.cache
def _host_cast() -> bool:
    """CPU mode only: whether Triton's interpreter rounds fp32 to e4m3 wrongly (Triton 3.9 drops
    the carry when rounding overflows the mantissa, 126.24 -> 64). Then the quantizer writes the
    clamped quotient in fp32 and torch rounds it: a copy to a dtype, no arithmetic of torch's.
    The probe is chapter 01's (grading.lessons.fp8_cast_mismatches)."""
    if not env.CPU_MODE:
        return False
    from grading.lessons import fp8_cast_mismatches
    return bool(fp8_cast_mismatches())


# Longest row quantized in one pass: 16K elements (32 KB of bf16), as chapter 01's norm.
_ONE_PASS_COLS = 16384
# Elements per program: 8 KB of bf16 in flight per tile with 8 warps (32 B per thread).
_TILE = 4096
# Programmatic dependent launch for both quantizer kernels (their PDL switch) on sm_90+, as the
# rmsnorm rungs use it. On an H200, per token, CUDA graphs of back-to-back calls, beside the plain
# launch in one run: 1 / 128 / 4096 x 4096 1.01 / 1.70 / 12.99 µs against 1.47 / 2.32 / 13.62,
# 4096 x 8192 25.83 against 26.13; 16384 x 4096 (timed alone) level (benchmarks/h200_session17,
# call 1).
_QUANT_PDL = True


def fp8_quantize_triton(x: torch.Tensor, per_token: bool) -> tuple[torch.Tensor, torch.Tensor]:
    check_fp8_quantize_inputs(x, per_token)
    m, k = x.shape
    host_cast = _host_cast()
    q = torch.empty((m, k), dtype=torch.float32 if host_cast else E4M3, device=x.device)
    scale = torch.empty((m, 1) if per_token else (1,), dtype=torch.float32, device=x.device)
    if x.numel() == 0:
        if not per_token:
            scale.fill_(AMAX_MIN / E4M3_MAX)
        return q.to(E4M3), scale
    one_pass = k <= _ONE_PASS_COLS
    block_n = triton.next_power_of_2(k) if one_pass else 4096
    block_m = max(1, min(_TILE // block_n, 16)) if one_pass else 1
    # One warp per KB of tile, 1 to 16 (K = 8192 bf16: 16 warps, 16 B of x per thread per load).
    num_warps = min(16, max(1, triton.next_power_of_2(block_m * block_n * x.element_size() // 1024)))
    amax = x  # unused per token
    pdl = env.pdl_launch(x.device) if _QUANT_PDL else {}
    if not per_token:
        amax = torch.zeros(1, dtype=torch.float32, device=x.device)
        bm = max(1, min(_TILE // min(block_n, 4096), triton.next_power_of_2(m)))
        _amax_kernel[(triton.cdiv(m, bm),)](x, amax, m, k, x.stride(0), BLOCK_M=bm,
                                            BLOCK_N=min(block_n, 4096), num_warps=num_warps, **pdl)
    _quantize_kernel[(triton.cdiv(m, block_m),)](
        x, q, scale, amax, m, k, x.stride(0), PER_TOKEN=per_token, BLOCK_M=block_m, BLOCK_N=block_n,
        ONE_PASS=one_pass, num_warps=num_warps, **pdl)
    return (q.to(E4M3) if host_cast else q), scale


# --- rung 3: Triton, the GEMM -------------------------------------------------------------------
# Five numbered versions, each a step of the notebook, all kept importable for it and for
# benchmarks/fp8_gemm_variants.py:
#   v1  tiled tl.dot on e4m3, fp32 accumulation, scales in the epilogue, masked K tail
#   v2  + grouped rasterization (GROUP_M): programs that run together share rows of a and b in L2
#   v3  + persistent programs (one per SM, looping over tiles) and TMA tensor descriptors
#   v4  split-K for small M: the weight is streamed by enough programs to fill the GPU
#   v5  weight streaming for small M: swap-AB, one kernel, each program owns a slice of b's rows
#   v6  v5's tiles dealt out stream-K: one program per SM, equal ranges of K steps (a candidate)
# fp8_gemm_triton picks v5 for M <= 128 and v3 above (v2 where the Triton or GPU lacks TMA).
#
# Accumulation. Hopper's fp8 tensor cores add into an accumulator that keeps 13 mantissa bits and
# truncates (so does Ada's): `acc = tl.dot(a, b, acc)` over K = 28672 drifts by percents. Every
# version here promotes instead (PROMOTE): each BLOCK_K step's product starts from zero and is
# added to the fp32 accumulator in the CUDA cores, as cuBLASLt does by default (CUTLASS and
# DeepGEMM promote every 128 of K too). v3 and v5 can also let the tensor cores carry the sum for
# PROMOTE_EVERY steps between promotions: the error then stays that of a PROMOTE_EVERY-step sum
# however long K is, and the pipe drains once per PROMOTE_EVERY steps (pick_config: every 1024 of
# K from 64-token tiles on, every 2048 at M > 128). The fast variant is kept for the notebook's
# measurement.

@triton.jit
def _tile_acc(a_ptr, b_ptr, offs_m, offs_n, M, N, K, k_start, k_end,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              PROMOTE: tl.constexpr):
    """sum over k in [k_start, k_end) of a[offs_m, k] · b[offs_n, k], fp32, [BLOCK_M, BLOCK_N]."""
    offs_k = tl.arange(0, BLOCK_K)
    # 64-bit row offsets: 8192 × 28672 e4m3 elements pass 2^31 bytes.
    a_rows = a_ptr + offs_m.to(tl.int64)[:, None] * K  # [BLOCK_M, 1]
    b_cols = b_ptr + offs_n.to(tl.int64)[None, :] * K  # [1, BLOCK_N]: b read as [BLOCK_K, BLOCK_N], K-major
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        k = k0 + offs_k
        # The K tail (K not a multiple of BLOCK_K) reads zeros, which add nothing.
        a = tl.load(a_rows + k[None, :], mask=(offs_m[:, None] < M) & (k[None, :] < k_end), other=0.0)
        b = tl.load(b_cols + k[:, None], mask=(offs_n[None, :] < N) & (k[:, None] < k_end), other=0.0)
        if PROMOTE:
            acc += tl.dot(a, b)  # a fresh product each step, added in fp32
        else:
            acc = tl.dot(a, b, acc)  # the tensor cores' own accumulator throughout
    return acc


@triton.jit
def _mma_step(acc, part, x, y, step, PROMOTE: tl.constexpr, PROMOTE_EVERY: tl.constexpr):
    """One K step, acc (+)= x · yᵀ: the tensor cores' own accumulator throughout (not PROMOTE), a
    fresh product added in fp32 (PROMOTE_EVERY == 1), or the tensor cores carrying `part` for
    PROMOTE_EVERY steps (step = this step's index) before it joins acc. Returns (acc, part)."""
    if not PROMOTE:
        acc = tl.dot(x, y.T, acc)
    elif PROMOTE_EVERY == 1:
        acc += tl.dot(x, y.T)
    else:
        part = tl.dot(x, y.T, part)
        if step % PROMOTE_EVERY == PROMOTE_EVERY - 1:
            acc += part
            part = tl.zeros_like(part)
    return acc, part


@triton.jit
def _apply_scales(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A: tl.constexpr, ROW_B: tl.constexpr):
    """The epilogue: acc[i, j] · scale_a[i or 0] · scale_b[j or 0], in fp32."""
    if ROW_A:
        sa = tl.load(sa_ptr + offs_m, mask=offs_m < M, other=0.0)[:, None]  # [BLOCK_M, 1]
    else:
        sa = tl.load(sa_ptr)
    if ROW_B:
        sb = tl.load(sb_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]  # [1, BLOCK_N]
    else:
        sb = tl.load(sb_ptr)
    return acc * sa * sb


@triton.jit
def _apply_scales_t(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A: tl.constexpr, ROW_B: tl.constexpr):
    """The same epilogue on a tile of yᵀ (v5): acc[j, i] · scale_b[j or 0] · scale_a[i or 0]."""
    if ROW_A:
        sa = tl.load(sa_ptr + offs_m, mask=offs_m < M, other=0.0)[None, :]  # [1, BLOCK_M]
    else:
        sa = tl.load(sa_ptr)
    if ROW_B:
        sb = tl.load(sb_ptr + offs_n, mask=offs_n < N, other=0.0)[:, None]  # [BLOCK_N, 1]
    else:
        sb = tl.load(sb_ptr)
    return acc * sa * sb


@triton.jit
def _grouped_tile(tile, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    """Tile index -> (pid_m, pid_n), GROUP_M rows of tiles at a time, column by column inside a
    group: GROUP_M × num_pid_n consecutive tiles reuse GROUP_M row-blocks of a and each column
    block of b GROUP_M times while it is in L2."""
    group = GROUP_M * num_pid_n
    first_m = (tile // group) * GROUP_M
    rows = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % group) % rows
    pid_n = (tile % group) // rows
    return pid_m, pid_n


@triton.jit
def _store_tile(y_ptr, acc, offs_m, offs_n, M, N):
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(y_ptr + offs_m.to(tl.int64)[:, None] * N + offs_n[None, :], acc.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _fp8_gemm_v1_kernel(
    a_ptr, b_ptr, y_ptr,    # a [M, K], b [N, K] e4m3 contiguous; y [M, N] contiguous
    sa_ptr, sb_ptr,         # fp32 scales: [M] or [1], [N] or [1]
    M, N, K,
    ROW_A: tl.constexpr, ROW_B: tl.constexpr,  # per-row scales (else one per tensor)
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    PROMOTE: tl.constexpr,
):
    # A 2-D grid in launch order: program (i, j) computes tile (i, j), i fastest. Programs running
    # together cover a column of tiles: each reads its own block of b, so b crosses HBM about
    # once per row of tiles... unless L2 holds it.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = _tile_acc(a_ptr, b_ptr, offs_m, offs_n, M, N, K, 0, K, BLOCK_M, BLOCK_N, BLOCK_K, PROMOTE)
    acc = _apply_scales(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
    _store_tile(y_ptr, acc, offs_m, offs_n, M, N)


@triton.jit
def _fp8_gemm_v2_kernel(
    a_ptr, b_ptr, y_ptr, sa_ptr, sb_ptr, M, N, K,
    ROW_A: tl.constexpr, ROW_B: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,  # rows of tiles per group (8: 8 blocks of a in L2 at once)
    PROMOTE: tl.constexpr,
):
    # A 1-D grid: the tile order is ours to choose.
    pid_m, pid_n = _grouped_tile(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = _tile_acc(a_ptr, b_ptr, offs_m, offs_n, M, N, K, 0, K, BLOCK_M, BLOCK_N, BLOCK_K, PROMOTE)
    acc = _apply_scales(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
    _store_tile(y_ptr, acc, offs_m, offs_n, M, N)


@triton.jit
def _fp8_gemm_v3_kernel(
    a_ptr, b_ptr, y_ptr, sa_ptr, sb_ptr, M, N, K,
    ROW_A: tl.constexpr, ROW_B: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_PROGRAMS: tl.constexpr,  # the grid: one program per SM, each looping over tiles
    PROMOTE: tl.constexpr,
    FLATTEN: tl.constexpr,  # let the compiler merge the tile and K loops (overlaps epilogue and loads)
    PROMOTE_EVERY: tl.constexpr = 1,  # K steps the tensor cores accumulate between fp32 promotions
):
    # TMA: the copy engine moves whole [BLOCK, BLOCK_K] boxes from global to shared memory,
    # computing addresses and zero-filling past the tensor's edge (M rows, the K tail) itself;
    # no per-thread address math or masks. Device-side descriptors need a scratch allocator
    # (triton.set_allocator, set by the launcher).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    # Persistent: launch and prologue costs are paid once per SM, not once per tile, and the next
    # tile's loads can start while this one's epilogue runs.
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_PROGRAMS, flatten=FLATTEN):
        pid_m, pid_n = _grouped_tile(tile, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)  # PROMOTE_EVERY > 1 only
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])  # [BLOCK_M, BLOCK_K]
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])  # [BLOCK_N, BLOCK_K]
            acc, part = _mma_step(acc, part, a, b, ki, PROMOTE, PROMOTE_EVERY)
        if PROMOTE and PROMOTE_EVERY > 1:
            acc += part  # the last k_tiles % PROMOTE_EVERY steps (zeros otherwise)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = _apply_scales(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
        y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(y_ptr.dtype.element_ty))  # rows past M are clipped


@triton.jit
def _fp8_gemm_v4_kernel(
    a_ptr, b_ptr, y_ptr,    # y: [M, N] output (SPLIT_K == 1) or fp32 workspace, zeroed (SPLIT_K > 1)
    sa_ptr, sb_ptr, M, N, K,
    k_per_split,            # a multiple of BLOCK_K; program z takes K range [z·k_per_split, +k_per_split)
    ROW_A: tl.constexpr, ROW_B: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
    PROMOTE: tl.constexpr,
):
    # Grid (N tiles, M tiles, SPLIT_K), N fastest: the programs running at once read different
    # slices of the weight, each once. The tile of a (M <= 128 rows) is small and stays in L2.
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(k_start + k_per_split, K)
    acc = _tile_acc(a_ptr, b_ptr, offs_m, offs_n, M, N, K, k_start, k_end, BLOCK_M, BLOCK_N, BLOCK_K, PROMOTE)
    # Scaling is linear: each partial sum can be scaled before it is added.
    acc = _apply_scales(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
    if SPLIT_K == 1:
        _store_tile(y_ptr, acc, offs_m, offs_n, M, N)
    else:
        mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        tl.atomic_add(y_ptr + offs_m.to(tl.int64)[:, None] * N + offs_n[None, :], acc, mask=mask, sem="relaxed")


@triton.jit
def _convert_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    # Split-K's last step: the fp32 sums to the output dtype (M·N·6 bytes: noise next to b).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask).to(dst_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _swapped_tile_acc(a_ptr, b_ptr, pid_m, pid_n, M, N, K, k_start, k_end,
                      BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                      PROMOTE: tl.constexpr, TMA: tl.constexpr, PROMOTE_EVERY: tl.constexpr):
    """v5's and v6's tile of yᵀ = b · aᵀ, [BLOCK_N, BLOCK_M] in fp32, summed over K range
    [k_start, k_end) (k_start a multiple of BLOCK_K), loaded by TMA or by the threads."""
    acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
    part = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)  # PROMOTE_EVERY > 1 only
    if TMA:
        # Boxes past N, M or K are zero-filled by the copy engine; ranges are whole BLOCK_Ks, so
        # only the last one reaches past its end (K itself).
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
        for k0 in range(k_start, k_end, BLOCK_K):
            b = b_desc.load([pid_n * BLOCK_N, k0])  # [BLOCK_N, BLOCK_K]
            a = a_desc.load([pid_m * BLOCK_M, k0])  # [BLOCK_M, BLOCK_K]
            acc, part = _mma_step(acc, part, b, a, (k0 - k_start) // BLOCK_K, PROMOTE, PROMOTE_EVERY)
    else:
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        b_rows = b_ptr + offs_n.to(tl.int64)[:, None] * K  # [BLOCK_N, 1], 64-bit: b passes 2^31 bytes
        a_rows = a_ptr + offs_m.to(tl.int64)[:, None] * K  # [BLOCK_M, 1]
        for k0 in range(k_start, k_end, BLOCK_K):
            k = k0 + offs_k
            b = tl.load(b_rows + k[None, :], mask=(offs_n[:, None] < N) & (k[None, :] < k_end), other=0.0)
            a = tl.load(a_rows + k[None, :], mask=(offs_m[:, None] < M) & (k[None, :] < k_end), other=0.0)
            acc, part = _mma_step(acc, part, b, a, (k0 - k_start) // BLOCK_K, PROMOTE, PROMOTE_EVERY)
    if PROMOTE and PROMOTE_EVERY > 1:
        acc += part  # the steps after the last promotion (zeros otherwise)
    return acc


@triton.jit
def _store_tile_t(y_ptr, acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A: tl.constexpr, ROW_B: tl.constexpr):
    """A finished tile of yᵀ (acc [BLOCK_N, BLOCK_M], fp32), scaled and stored into y [M, N]."""
    mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
    yt_offs = offs_m.to(tl.int64)[None, :] * N + offs_n[:, None]  # [BLOCK_N, BLOCK_M] into [M, N]
    acc = _apply_scales_t(acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
    tl.store(y_ptr + yt_offs, acc.to(y_ptr.dtype.element_ty), mask=mask)


# v5, weight streaming. Napkin math for decode (M <= 128) on an H200:
# - The bytes are the weight's: N·K (4096 × 4096: 16.8 MB, 3.9 µs at the 4.25 TB/s copy roof;
#   28672 × 8192: 235 MB, 55 µs). a (M·K) and y (2·M·N) are under 1% of it at M = 16.
# - Little's law: 4.25 TB/s × ~1 µs of loaded HBM latency ≈ 4 MB in flight, ≈ 32 KB per SM on
#   132 SMs, for the whole run, ramp included.
# - What v4 pays on top: three kernels (zero the fp32 buffer, the GEMM, the bf16 convert), each
#   a launch and a ramp (~1-2 µs, against 3.9 µs of bytes at 4096 × 4096); split·M·N fp32 atomics
#   (split 8 at 128 × 4096 × 4096: 4 M of them, 16 MB of read-modify-write in L2, the size of the
#   weight); programs so short (2 K steps of 256 at 1 × 4096 × 4096) that pipeline fill and drain
#   are most of their life; more programs than fit at once (448 at 1 × 14336 × 4096, 2 per SM
#   resident), so a second, partial wave; and the tokens on the MMA's tall side: wgmma is 64
#   rows per warpgroup, so BLOCK_M = 16 is below it and Triton falls back to mma.sync.
# v5 answers each: swap-AB, yᵀ = b · aᵀ, puts b's rows on the tall side (BLOCK_N >= 64 reaches
# wgmma) and the tokens on the narrow one (BLOCK_M >= 16, tl.dot's least; no bytes wasted, only
# MMA work, which is 5-10× under the bytes' time at M <= 16); BLOCK_N is chosen so that the N
# tiles alone cover the SMs (pick_config), then each program streams BLOCK_N × K of b, all of K,
# in one wave, with one kernel, no workspace and no atomics. Where N / BLOCK_N is too few (N =
# 4096 with the tokens' tile at 64 or 128), K is split and the last program to finish a tile sums
# the slices' partials (plain stores to a workspace, a counter per tile, which it leaves at zero
# for the next call) and writes y: one kernel, nothing else launched.
@triton.jit
def _fp8_gemm_v5_kernel(
    a_ptr, b_ptr, y_ptr,    # a [M, K], b [N, K] e4m3 contiguous; y [M, N] contiguous
    sa_ptr, sb_ptr,         # fp32 scales: [M] or [1], [N] or [1]
    ws_ptr,                 # SPLIT_K > 1: fp32 [SPLIT_K, M, N], each K slice's partial sums (not zeroed)
    count_ptr,              # SPLIT_K > 1: int32 [tiles], zero on entry and left zero: K slices finished per tile
    M, N, K,
    k_per_split,            # a multiple of BLOCK_K; program z takes K range [z·k_per_split, +k_per_split)
    slice_elems,            # M·N: the stride of ws between K slices
    ROW_A: tl.constexpr, ROW_B: tl.constexpr,
    BLOCK_N: tl.constexpr,  # rows of b (columns of y) per program: the MMA's tall side
    BLOCK_M: tl.constexpr,  # tokens per program: the MMA's narrow side, >= 16
    BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
    PROMOTE: tl.constexpr,
    TMA: tl.constexpr,      # tensor-descriptor loads (the copy engine) instead of per-thread ones
    PROMOTE_EVERY: tl.constexpr = 1,  # K steps the tensor cores accumulate between fp32 promotions
    # Programmatic dependent launch (sm_90+, with launch_pdl=True; GemmConfig.pdl): the programs
    # may be scheduled while the previous kernel drains, and wait for its writes before any load.
    PDL: tl.constexpr = False,
):
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    # Grid (N tiles, M tiles, SPLIT_K), N fastest: every program in flight reads its own rows of b.
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    k_start = pid_k * k_per_split
    k_end = tl.minimum(k_start + k_per_split, K)
    acc = _swapped_tile_acc(a_ptr, b_ptr, pid_m, pid_n, M, N, K, k_start, k_end,
                            BLOCK_N, BLOCK_M, BLOCK_K, PROMOTE, TMA, PROMOTE_EVERY)
    if SPLIT_K > 1:
        mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
        yt_offs = offs_m.to(tl.int64)[None, :] * N + offs_n[:, None]  # [BLOCK_N, BLOCK_M] into [M, N]
        tl.store(ws_ptr + pid_k.to(tl.int64) * slice_elems + yt_offs, acc, mask=mask)
        # Every thread's store before the counter's release; the last of the tile's SPLIT_K
        # programs to arrive sees the count SPLIT_K - 1 and finishes the tile (no one waits).
        tl.debug_barrier()
        done = tl.atomic_add(count_ptr + pid_m * tl.num_programs(0) + pid_n, 1, sem="acq_rel")
        if done == SPLIT_K - 1:
            # Summed in slice order whoever arrives last: the same bits on every call. ".cg":
            # from L2, where the other programs' stores are, not from a stale L1 line.
            acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
            slice_ptr = ws_ptr + yt_offs
            for _ in tl.static_range(SPLIT_K):
                acc += tl.load(slice_ptr, mask=mask, other=0.0, cache_modifier=".cg")
                slice_ptr += slice_elems
            # Every slice has arrived: the counter goes back to zero for the next call, so no
            # memset runs before each launch (as v6).
            tl.store(count_ptr + pid_m * tl.num_programs(0) + pid_n, 0)
            _store_tile_t(y_ptr, acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
    else:
        _store_tile_t(y_ptr, acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)


# v6, stream-K (a candidate for M <= 128, not picked: `benchmarks/fp8_gemm_variants.py --stream-k`
# timed it 5-38% slower than the v5 pick at 23 of the 24 decode shapes on an H200,
# benchmarks/h200_session15, call 1; its one win came from deeper K steps, which the v5 plan now
# gives that shape). v5 gives each program whole output tiles (or whole K slices of them), so the
# work comes in units of a tile: 224 tiles on 132 SMs (M = 128, N = 28672, 128-wide tiles) is 1.7
# tiles per SM, and an SM that can hold only one such program (two fp32 accumulators of 128 × 128,
# for the promotion) runs two rounds where the work is 1.7. v6 launches one program per SM and deals
# out the K steps of all tiles, tile after tile, in equal contiguous ranges: program p takes steps
# [p·W/P, (p+1)·W/P) of the W = tiles × K-steps. A program's range covers whole tiles in its middle,
# written directly, and at most two partial ones at its ends: those go to a workspace slot of its
# own (0 for its first tile, 1 for its last), and the last of a tile's programs to finish (a counter
# per tile) sums the tile's partials in program order (the same bits on every call), writes y and
# resets the counter to zero for the next call.
@triton.jit
def _fp8_gemm_v6_kernel(
    a_ptr, b_ptr, y_ptr,    # a [M, K], b [N, K] e4m3 contiguous; y [M, N] contiguous
    sa_ptr, sb_ptr,         # fp32 scales: [M] or [1], [N] or [1]
    ws_ptr,                 # fp32 [programs, 2, BLOCK_N, BLOCK_M]: each program's first and last partial tiles
    count_ptr,              # int32 [tiles], zero on entry and left zero: programs done with each shared tile
    M, N, K,
    ROW_A: tl.constexpr, ROW_B: tl.constexpr,
    BLOCK_N: tl.constexpr,  # rows of b (columns of y) per tile: the MMA's tall side
    BLOCK_M: tl.constexpr,  # tokens per tile: the MMA's narrow side, >= 16
    BLOCK_K: tl.constexpr,
    PROMOTE: tl.constexpr,
    TMA: tl.constexpr,
    PROMOTE_EVERY: tl.constexpr = 1,
):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    n_tiles = tl.cdiv(N, BLOCK_N)
    iters = tl.cdiv(K, BLOCK_K)  # K steps per tile
    work = n_tiles * tl.cdiv(M, BLOCK_M) * iters
    # The launcher keeps programs <= work, so every range holds at least one step. 64-bit products.
    start = (pid.to(tl.int64) * work // programs).to(tl.int32)
    end = ((pid.to(tl.int64) + 1) * work // programs).to(tl.int32)
    first_tile = start // iters
    tile_offs = tl.arange(0, BLOCK_N)[:, None] * BLOCK_M + tl.arange(0, BLOCK_M)[None, :]
    for t in range(first_tile, (end - 1) // iters + 1):
        t_start = t * iters
        lo = tl.maximum(start, t_start) - t_start  # this program's K steps of tile t: [lo, hi)
        hi = tl.minimum(end, t_start + iters) - t_start
        pid_n = t % n_tiles  # N fastest: the programs in flight stream different rows of b
        pid_m = t // n_tiles
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        acc = _swapped_tile_acc(a_ptr, b_ptr, pid_m, pid_n, M, N, K, lo * BLOCK_K, tl.minimum(hi * BLOCK_K, K),
                                BLOCK_N, BLOCK_M, BLOCK_K, PROMOTE, TMA, PROMOTE_EVERY)
        if (lo == 0) & (hi == iters):  # the whole tile is this program's
            _store_tile_t(y_ptr, acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)
        else:
            slot = (t != first_tile).to(tl.int32)
            tl.store(ws_ptr + (pid * 2 + slot).to(tl.int64) * (BLOCK_N * BLOCK_M) + tile_offs, acc)
            # Every thread's store before the counter's release (as v5's split-K).
            tl.debug_barrier()
            # The programs sharing tile t hold its first and its last step: program q holds step
            # i when q·W/P <= i < (q+1)·W/P, i.e. q = ceil((i+1)·P / W) - 1.
            q_first = ((t_start + 1).to(tl.int64) * programs + work - 1) // work - 1
            q_last = ((t_start + iters).to(tl.int64) * programs + work - 1) // work - 1
            done = tl.atomic_add(count_ptr + t, 1, sem="acq_rel")
            if done == q_last - q_first:
                acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
                for q in range(q_first, q_last + 1):
                    # Slot 0 where tile t is q's first tile (q starts inside it or at its start).
                    q_slot = ((q * work // programs) < t_start).to(tl.int64)
                    acc += tl.load(ws_ptr + (q * 2 + q_slot) * (BLOCK_N * BLOCK_M) + tile_offs, cache_modifier=".cg")
                tl.store(count_ptr + t, 0)  # for the next call: no memset per call
                _store_tile_t(y_ptr, acc, sa_ptr, sb_ptr, offs_m, offs_n, M, N, ROW_A, ROW_B)


# K elements the tensor cores sum between fp32 promotions in the picked configurations (see
# pick_config): 32 wgmma steps of 32 at M <= 128, 64 at larger M.
_PROMOTE_K = 1024
_PROMOTE_K_LARGE = 2048


@dataclasses.dataclass(frozen=True)
class GemmConfig:
    """One launch configuration; `variant` is the kernel version (1-5)."""

    variant: int
    block_m: int
    block_n: int
    block_k: int
    num_warps: int
    num_stages: int
    group_m: int = 8
    split_k: int = 0  # v4, v5: 0 = chosen from the shape (see _split_k, _stream_split)
    promote: bool = True
    flatten: bool = False
    tma: bool = False  # v5, v6: tensor-descriptor loads
    promote_every: int = 1  # v3, v5, v6: K steps between promotions into the fp32 sum
    programs: int = 0  # v6: 0 = one per SM
    # v5: programmatic dependent launch on sm_90+ (env.pdl_launch; elsewhere a plain launch): the
    # decode picks set it (pick_config).
    pdl: bool = False

    def describe(self) -> str:
        s = f"v{self.variant} {self.block_m}x{self.block_n}x{self.block_k} w{self.num_warps} s{self.num_stages}"
        if self.variant in (2, 3):
            s += f" g{self.group_m}"
        if self.variant in (4, 5) and self.split_k:
            s += f" split{self.split_k}"
        if self.variant == 6 and self.programs:
            s += f" p{self.programs}"
        if self.flatten:
            s += " flat"
        if self.tma:
            s += " tma"
        if self.pdl:
            s += " pdl"
        if self.promote and self.promote_every > 1:
            s += f" promote/{self.promote_every * self.block_k}"
        return s + ("" if self.promote else " fast-acc")


@functools.cache
def _num_sms(device_index: int | None) -> int:
    if not torch.cuda.is_available():
        return 4  # CPU mode: the interpreter runs programs one by one; few of them
    return torch.cuda.get_device_properties(device_index).multi_processor_count


@functools.cache
def has_tma(device_index: int | None = None) -> bool:
    """Device-side TMA descriptors: the Triton API (3.4+) and a Hopper-or-newer GPU; the
    interpreter emulates them in CPU mode."""
    if not hasattr(tl, "make_tensor_descriptor") or not hasattr(triton, "set_allocator"):
        return False
    return env.CPU_MODE or torch.cuda.get_device_capability(device_index) >= (9, 0)


def _tma_scratch(size: int, alignment: int, stream) -> torch.Tensor:
    # Where device-side descriptors live (128 bytes each per program).
    return torch.empty(size, dtype=torch.int8, device=env.DEVICE)


# The configuration table, by M: a small heuristic instead of @triton.autotune, which would time
# every candidate at each new shape in the caller's process (seconds) and cannot run in the
# interpreter. benchmarks/fp8_gemm_variants.py times the candidates on a GPU; these are the
# choices it supports, rerun it on a new GPU. Tiles are 128 wide where M allows: a wgmma
# instruction covers 64 rows per warpgroup, and 128 × 128 fp32 accumulators plus the promoted
# partial sums fit two warpgroups' registers (8 warps: 64 + 64 per thread, no spills).
SMALL_M = 128  # at and below: v5 (weight-bound); above: v3
# Shared memory for the pipeline buffers of the programs resident on one SM: 200 of Hopper's
# 228 KB, the rest left to Triton's epilogue scratch and the 1 KB the hardware keeps per block.
# Counted as num_stages + 1 buffers: with asynchronous wgmma the pipeliner may keep one more
# stage alive than it loads ahead.
_SMEM_PER_SM = 200 * 1024
_MOST_STAGES = 8


def _v4_config(m: int) -> GemmConfig:
    """v4's table (fp8_gemm_triton's small-M pick before v5), kept as v4's default."""
    if m <= 16:
        return GemmConfig(4, 16, 64, 256, num_warps=4, num_stages=4)
    if m <= 32:
        return GemmConfig(4, 32, 64, 256, num_warps=4, num_stages=4)
    if m <= 64:
        return GemmConfig(4, 64, 64, 128, num_warps=4, num_stages=5)
    return GemmConfig(4, 64, 128, 128, num_warps=4, num_stages=4)


def _stream_split(tiles: int, k: int, block_k: int, sms: int) -> int:
    """v5's K slices: none when the output tiles alone cover 90% of the SMs; otherwise a power of
    two (even slices of a power-of-two K) up to one program per SM, each slice at least 4 K steps
    (a pipeline's worth)."""
    if tiles >= 0.9 * sms:
        return 1
    want = max(1, sms // tiles)
    return max(1, min(1 << (want.bit_length() - 1), k // (4 * block_k)))


def _warps_for(block_n: int, block_m: int) -> int:
    """v5/v6 warps for a tile: 8 (two warpgroups) from 128 x 128 on, 4 below."""
    return 8 if block_n * block_m >= 128 * 128 else 4


def _programs_by_registers(block_n: int, block_m: int, num_warps: int, block_k: int) -> int:
    """Programs of a v5/v6 tile that one SM's 64K registers hold. Per thread: the fp32 accumulator
    and the promoted sum (2 × BLOCK_N × BLOCK_M / threads), about 3 for each 16-byte copy a stage
    issues (its address and mask: (BLOCK_N + BLOCK_M) × BLOCK_K / 16 / threads of them) and 40
    more (the pipeline's counters, the epilogue's offsets), rounded up to the 8 the hardware
    allocates in. Against what ptxas gives the kernels for sm_90 (Triton 3.6 and 3.9 alike, the
    same within 2): 64 weight rows × 128 tokens × 128 of K at 4 warps 208 against 196-216, two
    programs; 128 × 128 × 128 at 8 warps 192 against 181-200, one; 64 × 64 × 128 at 4 warps 128
    against 114-120, four. The estimate without the copies' registers (2 accumulators + 40) said
    three programs of the first where two fit, and so planned the stages of three. On an H100 or
    H200 (114 or 132 SMs) that decided no pick at the Llama shapes, where no SM gets more than
    two programs. At 33-64 tokens where the grid gives an SM more than two 128-row weight tiles
    (N above 33792 on 132 SMs, a vocabulary's projection; N = 28672 on a 78-SM H20) it left
    128-deep K steps under 3 stages, so pick_config fell back to v4; it now gives v5 there (64
    tokens × 128 rows, 3 stages, the pick at N = 28672 on 132 SMs), not yet timed there. Tiles
    of 16 or 32 tokens keep one accumulator when they promote every step, so it counts fewer of
    them than fit (64 × 16 × 256: five against ten): their stages are then planned for fewer, each
    with more shared memory, and the SM holds as many as that shared memory allows."""
    threads = 32 * num_warps
    copies = (block_n + block_m) * block_k // (16 * threads)
    return max(1, _programs_that_fit(2 * block_n * block_m // threads + 3 * copies + 40, num_warps))


def _programs_that_fit(registers_per_thread: int, num_warps: int) -> int:
    """Programs of `num_warps` warps that one SM's 64K registers hold, each thread's registers
    rounded up to the 8 the hardware allocates in."""
    return 65536 // (32 * num_warps * (-(-registers_per_thread // 8) * 8))


def _stages_that_fit(block_n: int, block_m: int, block_k: int, resident: int = 1) -> int:
    """Pipeline stages of b and a tiles that `resident` programs per SM each have room for, up to
    _MOST_STAGES: num_stages + 1 buffers in _SMEM_PER_SM (see there)."""
    return min(_MOST_STAGES, _SMEM_PER_SM // resident // ((block_n + block_m) * block_k) - 1)


# Half the L2 of an H100 or H200 (50 MB): a weight this small stays in L2 while the programs that
# share its tiles read it (pick_config).
_L2_HALF_BYTES = 24 << 20


def _half_token_tiles(cfg: GemmConfig, m: int, n: int, sms: int, block_k: int = 128) -> GemmConfig:
    """cfg with token tiles half as tall, K not split, block_k-deep K steps and the stages the
    programs an SM holds leave room for; the promotion interval in K kept."""
    bm, bk = cfg.block_m // 2, block_k
    programs = triton.cdiv(n, cfg.block_n) * triton.cdiv(m, bm)
    resident = min(triton.cdiv(programs, sms), _programs_by_registers(cfg.block_n, bm, cfg.num_warps, bk))
    return dataclasses.replace(cfg, block_m=bm, block_k=bk, split_k=1,
                               num_stages=max(2, _stages_that_fit(cfg.block_n, bm, bk, resident)),
                               promote_every=max(1, cfg.promote_every * cfg.block_k // bk))


def _streaming_config(m: int, n: int, k: int, sms: int) -> GemmConfig:
    """v5 at M <= 128, planned from the napkin math above _fp8_gemm_v5_kernel. Measured on an H200
    (`python benchmarks/fp8_gemm_variants.py --small --quick`, benchmarks/h200_session5/
    fp8_small.txt): 1.08-2.03x v4 at 21 of the 24 per-tensor goal shapes, and 1.00-1.06x
    torch._scaled_mm at M <= 64 with N x K = 14336 x 4096, 8192 x 8192 and 8192 x 28672; slower
    than v4 at N = 28672, M <= 64 with the 64-deep K it then planned there (0.71-0.86x); behind
    _scaled_mm at N = K = 4096 (0.76-0.84x), at 4096 x 14336 (0.89-0.90x) and at every M = 128
    (0.55-0.74x). The ninth session's sweep (h200_session9/call3) changed the BLOCK_K rule and
    pick_config's corrections; see there.
    The plan:
    - the tokens' tile is M rounded up to a power of two, 16 to 128: a is read once per N tile;
    - BLOCK_N is the widest of 128, 64 (and 32 at M <= 32: mma.sync, below wgmma's 64 rows) whose
      N tiles cover 90% of the SMs: one wave, each program streaming BLOCK_N × K. Wider tiles
      read a from L2 fewer times (L2 bytes of a = M / BLOCK_N × the weight's bytes: 2× at
      M = 128, BLOCK_N = 64) and keep more bytes in flight per program;
    - K is split only where even the narrowest tile leaves SMs idle (_stream_split);
    - stages: as many as the SM's shared memory gives each resident program (those the grid
      puts on an SM, as many as its registers hold: _programs_by_registers), up to 8, with
      BLOCK_K = 256, 128 or 64, whichever keeps the most of b in flight, but 64 only where 128
      cannot have 3 stages (measured, see below). Every goal shape keeps >= 32 KB of b in flight
      per SM (Little's law above asks ~32 KB).
    Per shape on 132 SMs (tokens × BLOCK_N × BLOCK_K, warps, stages, programs; b in flight per
    SM; N = 4096 and 8192 the same at either K):
      M <= 16: N = 4096: 16×32×256 w4 s8, 128; 56 KB | 8192: 16×64×256 w4 s8, 128; 112 KB |
               14336: 16×64×128 w4 s8, 224; 112 KB | 28672: 16×128×128 w4 s4, 224; 96 KB
      M = 64:  N = 4096: 64×64×256 w4 s5, 64 × split 2; 64 KB | 8192: 64×64×256 w4 s5, 128; 64 KB |
               14336: 64×64×128 w4 s5, 224; 64 KB | 28672: 64×128×128 w4 s3, 224; 64 KB
      M = 128: N = 4096: 128×64×128 w4 s7, 64 × split 2; 48 KB | 8192: 128×64×128 w4 s7, 128; 48 KB |
               14336: 128×64×128 w4 s3, 224; 32 KB | 28672: 128×128×128 w8 s5, 224 (one a SM
               by registers: two rounds); 64 KB
    pick_config then applies what the sweep measured against this plan.
    """
    bm = min(SMALL_M, max(16, triton.next_power_of_2(m)))
    widths = (128, 64, 32) if bm <= 32 else (128, 64)
    m_tiles = triton.cdiv(m, bm)
    bn = next((w for w in widths if triton.cdiv(n, w) * m_tiles >= 0.9 * sms), widths[-1])
    tiles = triton.cdiv(n, bn) * m_tiles
    warps = _warps_for(bn, bm)
    plans = []  # (bytes of b in flight per SM, BLOCK_K, stages, split)
    for bk in (256, 128, 64):
        split = _stream_split(tiles, k, bk, sms)
        # Programs on one SM at once: those the grid gives it, as many as its registers hold (the
        # rest run in a second round, each with the shared memory of the first).
        resident = min(triton.cdiv(tiles * split, sms), _programs_by_registers(bn, bm, warps, bk))
        stages = _stages_that_fit(bn, bm, bk, resident)
        plans.append((resident * (stages - 1) * bn * bk, bk, max(2, stages), split))
    # A 64-deep K tile reads each weight row in 64-byte pieces, half a 128-byte line per load: the
    # H200 sweep (benchmarks/h200_session9/call3/fp8_gemm_variants_small.txt, same run as
    # torch._scaled_mm) found BLOCK_K = 128 with 3-4 stages ahead of 64 with 7-8, more bytes in
    # flight notwithstanding: 128 x 14336 x 4096 25.0 against 33.0 µs, 1 x 28672 x 8192 58.5
    # against 82.5 (and v4's 73.2). So 64 only where 128 cannot have 3 stages.
    deep = [p for p in plans if p[1] >= 128 and p[2] >= 3]
    _, bk, stages, split = max(deep or plans)
    return GemmConfig(5, bm, bn, bk, num_warps=warps, num_stages=stages, split_k=split)


def _with_launch_rule(cfg: GemmConfig) -> GemmConfig:
    """cfg with programmatic dependent launch. Same run as torch._scaled_mm, CUDA graphs of
    back-to-back calls under 30 µs (benchmarks/h200_session17, call 2): M = 1 and 16 at N x K =
    4096 x 4096 6.73 / 6.94 µs against 7.37 / 7.51 (1.06x / 1.05x torch._scaled_mm, from 0.97x),
    up to 4% faster at the other shapes under 30 µs, and level past 30 µs, where each call is
    timed alone. Where K is split it followed a memset of the tile counters, and ran 2-3% slower
    with it; since the counters reset themselves (no memset), the split shapes gain too
    (benchmarks/h200_session20, call 1): 64 x 4096 x 4096 8.33 µs against 9.11 without it (10.04
    with the memset), 128 x 4096 x 4096 10.91 against 11.46 (12.63), 0.6 µs at K = 14336."""
    return dataclasses.replace(cfg, pdl=True)


def pick_config(m: int, n: int, k: int, sms: int | None = None) -> GemmConfig:
    if m <= SMALL_M:
        sms = sms or _num_sms(None if env.CPU_MODE else torch.cuda.current_device())
        cfg = _streaming_config(m, n, k, sms)
        # Measured (H200, benchmarks/h200_session5/fp8_small.txt): with BLOCK_K = 64 (the plan's
        # choice at N = 28672 then) every v5 configuration tried ran 95-116 µs at M = 1, 16, 64
        # and v4's split-K kernel 73-83 (torch._scaled_mm 71-73); at M = 128 v5 was the faster
        # (113 against 122 µs). The plan now takes 128-deep K there (58.5 µs at M = 1, 63.7 at
        # M = 64: session 9), so v4 runs only where a GPU's shared memory forces 64.
        if cfg.block_k < 128 and m <= 64:
            return _v4_config(m)
        # Measured corrections to the plan, each a candidate of the sweep around it that ran
        # faster in the same run (H200, benchmarks/h200_session9/call3/fp8_gemm_variants_small.txt):
        # - the 32-wide tile (N = 4096, M <= 16) lost to the 64-wide one with two stages fewer and
        #   no K split, half the SMs idle notwithstanding: 7.4 against 8.8 µs at K = 4096, 18.2
        #   against 22.4 at K = 14336 (torch._scaled_mm 7.1 and 19.5);
        # (The ninth session's sweep also put TMA descriptors on the 128-token tiles with 5+
        # stages, faster while they promoted every K step: 25.8 against 32.2 µs at 8192 x 8192.
        # Promoting every 1024 of K, below, the same tiles ran 2-7% faster without them at all
        # five such shapes, and with them 9% slower at 14336 x 4096 (same run as
        # torch._scaled_mm, benchmarks/h200_session18/call3: 12.4 against 13.4 µs at 4096 x 4096,
        # 22.3 against 23.9 at 8192 x 8192, 71.1 against 73.0 at 28672 x 8192). Plain loads, then.)
        if cfg.block_n == 32:
            cfg = dataclasses.replace(cfg, block_n=64, num_stages=max(2, cfg.num_stages - 2), split_k=1)
        # 16-token tiles whose weight tiles leave half the SMs idle (N = 4096: 64) over a long K
        # (14336): K split in two after all, 128-deep steps, the stages one program per SM has
        # room for, a promotion every 256 of K as before. Same run as torch._scaled_mm (H200,
        # benchmarks/h200_session23, call 3): 1 x 4096 x 14336 16.9 µs against 17.6 (_scaled_mm
        # 19.0; 17.0 with 256-deep steps). Not timed at K = 4096, which keeps K whole.
        if cfg.block_m == 16 and cfg.split_k == 1 and 2 * triton.cdiv(n, cfg.block_n) <= sms and k >= 8192:
            cfg = dataclasses.replace(cfg, split_k=2, block_k=128,
                                      num_stages=max(2, _stages_that_fit(cfg.block_n, cfg.block_m, 128)),
                                      promote_every=max(1, cfg.promote_every * cfg.block_k // 128))
        # From 64-token tiles on, the tensor cores' time nears the weight's (128 x 8192 x 8192:
        # 11.8 µs of fp8 math at the roof against 15.8 of weight bytes), and a promotion every K
        # step drains their pipe each time: promote every 1024 of K (every 2048 at large M, below).
        # Same run as torch._scaled_mm (benchmarks/h200_session10/call6): M = 128 0.66-0.91x
        # against 0.60-0.87x promoting every step (128 x 4096 x 14336: 26.5 against 32.2 µs);
        # M = 64 0.72-1.12x against 0.72-1.10x.
        if cfg.block_m >= 64:
            cfg = dataclasses.replace(cfg, promote_every=max(1, _PROMOTE_K // cfg.block_k))
        # 128-token tiles whose 128-row weight tiles cover 80-90% of the SMs (N = 14336: 112 on
        # 132): those rather than the plan's 64-row ones (224, 1.7 a SM, each reading the whole
        # token tile from L2: twice the weight's bytes), 8 warps and the stages one program has
        # room for. Same run as torch._scaled_mm (H200, benchmarks/h200_session23, call 1):
        # 128 x 14336 x 4096 19.5 µs against 22.6 (_scaled_mm 19.5). Where the wide tiles cover
        # fewer SMs (N = 4096, 8192) they ran slower: by 1-31% with their best K split, 34-103%
        # without.
        wide_tiles = triton.cdiv(n, 128) * triton.cdiv(m, cfg.block_m)
        if cfg.block_m == 128 and cfg.block_n == 64 and cfg.split_k == 1 and wide_tiles >= 0.8 * sms:
            cfg = dataclasses.replace(cfg, block_n=128, num_warps=_warps_for(128, cfg.block_m),
                                      num_stages=max(2, _stages_that_fit(128, cfg.block_m, cfg.block_k)))
        # Where the plan splits K (too few weight tiles for the SMs: N = 4096 at M = 64 and 128)
        # and the weight fits in half the L2, half-height token tiles with K whole instead: as many
        # programs, two reading each weight tile (the second from L2), no partial sums to add.
        # Same run as torch._scaled_mm (benchmarks/h200_session21, call 4): 128 x 4096 x 4096
        # 9.0 µs against 10.9 (_scaled_mm 8.8), 64 x 4096 x 4096 8.2 against 8.4 (7.3); with the
        # weight past L2 (4096 x 14336) the split ran faster, 22.7 against 24.2 µs at M = 128.
        if cfg.split_k > 1 and cfg.block_m >= 64 and n * k <= _L2_HALF_BYTES:
            cfg = _half_token_tiles(cfg, m, n, sms)
        return _with_launch_rule(cfg)
    # M > 128: the tensor cores' throughput decides. Promoting every K step (128) drains their
    # pipe each time: the sum must be out of the wgmma registers before the FADDs, so the next
    # wgmma waits. Carried 8 steps (1024 of K) between promotions and with 5 stages the kernel ran
    # 0.89-0.98x torch._scaled_mm against 0.70-0.75x (H200, benchmarks/h200_session10/call3,
    # six Llama shapes at M = 4096 and 8192): 32 truncating wgmma steps per partial sum, whatever
    # K, against all of K's for fast accumulation (on the H200, relative L2 error against float64
    # 5.4e-4 at K = 1024-28672, under bf16's own rounding; fast accumulation 4.4e-3 at 28672 and
    # growing: chapter 02, section 7). A 256-deep K step promoted each time, or
    # flattening the loops, ran 0.76-0.88x; Triton's warp specialization of the tile loop gained
    # nothing (call1). Carried 16 steps (2048 of K), half the drains again: 4096 x 4096 x 4096
    # 110.9 µs against 114.0, 4096 x 8192 x 8192 402.8 against 415.1, 8192^3 800 against 877
    # (torch._scaled_mm 101.7, 375.5, 768; benchmarks/h200_session21, call 1), the error of the
    # bf16 output against float64 1.86e-3 against 1.74e-3 (_scaled_mm 1.66e-3). Every 4096 of K
    # ran no faster past 4096^3 (there 108.7 µs, 2.1e-3); 4 or 6 stages, or other tile
    # groupings, level or slower.
    return GemmConfig(3, 128, 128, 128, num_warps=8, num_stages=5, group_m=8, promote_every=_PROMOTE_K_LARGE // 128)


def _split_k(cfg: GemmConfig, m: int, n: int, k: int, sms: int) -> int:
    """Enough K slices that tiles × slices ≈ 4 programs per SM, each slice at least 2 K steps."""
    if cfg.split_k:
        return cfg.split_k
    tiles = triton.cdiv(m, cfg.block_m) * triton.cdiv(n, cfg.block_n)
    want = max(1, (4 * sms) // tiles)
    most = max(1, k // (2 * cfg.block_k))
    return min(triton.next_power_of_2(want), most)


_COUNTERS: dict = {}


def _tile_counters(tiles: int, device: torch.device) -> torch.Tensor:
    """v5's and v6's tile counters, zeroed once and left zero by every launch, one buffer per
    device and stream (calls on one stream run in order; two streams would share a buffer
    otherwise)."""
    stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0
    key = (device, stream)
    buf = _COUNTERS.get(key)
    if buf is None or buf.numel() < tiles:
        buf = _COUNTERS[key] = torch.zeros(max(tiles, 1024), dtype=torch.int32, device=device)
    return buf


def _launch(a, b, scale_a, scale_b, out_dtype, cfg: GemmConfig) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[0]
    y = torch.empty((m, n), dtype=out_dtype, device=a.device)
    if m == 0:
        return y
    # A [1, 1] scale (M = 1) is a per-tensor one as far as the kernel can tell.
    row_a, row_b = scale_a.numel() > 1, scale_b.numel() > 1
    common = dict(ROW_A=row_a, ROW_B=row_b, BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n, BLOCK_K=cfg.block_k,
                  PROMOTE=cfg.promote, num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    grid_m, grid_n = triton.cdiv(m, cfg.block_m), triton.cdiv(n, cfg.block_n)
    if cfg.variant == 1:
        _fp8_gemm_v1_kernel[(grid_m, grid_n)](a, b, y, scale_a, scale_b, m, n, k, **common)
    elif cfg.variant == 2:
        _fp8_gemm_v2_kernel[(grid_m * grid_n,)](a, b, y, scale_a, scale_b, m, n, k, GROUP_M=cfg.group_m, **common)
    elif cfg.variant == 3:
        triton.set_allocator(_tma_scratch)
        programs = min(_num_sms(a.device.index), grid_m * grid_n)
        _fp8_gemm_v3_kernel[(programs,)](a, b, y, scale_a, scale_b, m, n, k, GROUP_M=cfg.group_m,
                                         NUM_PROGRAMS=programs, FLATTEN=cfg.flatten,
                                         PROMOTE_EVERY=cfg.promote_every, **common)
    elif cfg.variant == 4:
        split = _split_k(cfg, m, n, k, _num_sms(a.device.index))
        k_per_split = triton.cdiv(triton.cdiv(k, split), cfg.block_k) * cfg.block_k
        split = triton.cdiv(k, k_per_split)
        out = y if split == 1 else torch.zeros((m, n), dtype=torch.float32, device=a.device)
        _fp8_gemm_v4_kernel[(grid_n, grid_m, split)](a, b, out, scale_a, scale_b, m, n, k, k_per_split,
                                                     SPLIT_K=split, **common)
        if split > 1:
            block = 1024
            _convert_kernel[(triton.cdiv(m * n, block),)](out, y, m * n, BLOCK=block)
    elif cfg.variant == 6:
        work = grid_m * grid_n * triton.cdiv(k, cfg.block_k)
        programs = min(cfg.programs or _num_sms(a.device.index), work)
        ws = torch.empty((programs, 2, cfg.block_n, cfg.block_m), dtype=torch.float32, device=a.device)
        if cfg.tma:
            triton.set_allocator(_tma_scratch)
        _fp8_gemm_v6_kernel[(programs,)](a, b, y, scale_a, scale_b, ws, _tile_counters(grid_m * grid_n, a.device),
                                         m, n, k, TMA=cfg.tma, PROMOTE_EVERY=cfg.promote_every, **common)
    else:
        tiles = grid_m * grid_n
        split = cfg.split_k or _stream_split(tiles, k, cfg.block_k, _num_sms(a.device.index))
        k_per_split = triton.cdiv(triton.cdiv(k, split), cfg.block_k) * cfg.block_k
        split = triton.cdiv(k, k_per_split)
        ws = count = y  # unused without split-K
        if split > 1:
            ws = torch.empty((split, m, n), dtype=torch.float32, device=a.device)  # [SPLIT_K, M, N]
            count = _tile_counters(tiles, a.device)
        if cfg.tma:
            triton.set_allocator(_tma_scratch)
        _fp8_gemm_v5_kernel[(grid_n, grid_m, split)](a, b, y, scale_a, scale_b, ws, count, m, n, k, k_per_split,
                                                     m * n, SPLIT_K=split, TMA=cfg.tma,
                                                     PROMOTE_EVERY=cfg.promote_every, **common,
                                                     **(env.pdl_launch(a.device) if cfg.pdl else {}))
    return y


def _launch_supported(a, b, scale_a, scale_b, out_dtype, cfg: GemmConfig) -> torch.Tensor:
    """_launch with cfg's TMA steps replaced where this GPU (or the interpreter) has no TMA:
    v3 -> v2, v5 with TMA -> v5 with per-thread loads. Inputs already checked."""
    if cfg.variant == 3 and not has_tma(a.device.index if a.is_cuda else None):
        cfg = dataclasses.replace(cfg, variant=2)
    if cfg.tma and not has_tma(a.device.index if a.is_cuda else None):
        cfg = dataclasses.replace(cfg, tma=False)
    return _launch(a, b, scale_a, scale_b, out_dtype, cfg)


def _variant(a, b, scale_a, scale_b, out_dtype, cfg: GemmConfig | None, default) -> torch.Tensor:
    check_fp8_gemm_inputs(a, b, scale_a, scale_b, out_dtype)
    return _launch_supported(a, b, scale_a, scale_b, out_dtype, cfg or default(a.shape[0], b.shape[0], a.shape[1]))


# Each version with its own default configuration (the same 128 × 128 × 128 tile for v1-v3, so
# that their differences are the step itself); `config` overrides it (the variants sweep).
def fp8_gemm_triton_v1(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, config: GemmConfig | None = None):
    return _variant(a, b, scale_a, scale_b, out_dtype, config, lambda m, n, k: GemmConfig(1, 128, 128, 128, 8, 4))


def fp8_gemm_triton_v2(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, config: GemmConfig | None = None):
    return _variant(a, b, scale_a, scale_b, out_dtype, config, lambda m, n, k: GemmConfig(2, 128, 128, 128, 8, 4))


def fp8_gemm_triton_v3(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, config: GemmConfig | None = None):
    return _variant(a, b, scale_a, scale_b, out_dtype, config, lambda m, n, k: GemmConfig(3, 128, 128, 128, 8, 4))


def fp8_gemm_triton_v4(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, config: GemmConfig | None = None):
    return _variant(a, b, scale_a, scale_b, out_dtype, config, lambda m, n, k: _v4_config(m))


def fp8_gemm_triton_v5(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, config: GemmConfig | None = None):
    return _variant(a, b, scale_a, scale_b, out_dtype, config, lambda m, n, k: pick_config(min(m, SMALL_M), n, k))


def fp8_gemm_triton_v6(a, b, scale_a, scale_b, out_dtype=torch.bfloat16, config: GemmConfig | None = None):
    # Default: v5's pick for the shape, its tiles dealt out stream-K (one program per SM).
    return _variant(a, b, scale_a, scale_b, out_dtype, config,
                    lambda m, n, k: dataclasses.replace(pick_config(min(m, SMALL_M), n, k), variant=6, split_k=0))


# Picks that did not fit: pick_config counts shared memory with a model of Triton's buffers
# (_SMEM_PER_SM), not Triton's own count, so a pick the compiler rejects is retried with one
# stage fewer, once per configuration (the rejection comes at load time, before any launch).
_FITTED: dict[GemmConfig, GemmConfig] = {}


def fp8_gemm_triton(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                    out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    check_fp8_gemm_inputs(a, b, scale_a, scale_b, out_dtype)
    picked = pick_config(a.shape[0], b.shape[0], a.shape[1])
    cfg = _FITTED.get(picked, picked)
    while True:
        try:
            return _launch_supported(a, b, scale_a, scale_b, out_dtype, cfg)
        except OutOfResources:
            if cfg.num_stages <= 2:
                raise
            cfg = _FITTED[picked] = dataclasses.replace(cfg, num_stages=cfg.num_stages - 1)


# --- rung 4: CUDA C++ (the quantizer) and CUTLASS (the GEMM) --------------------------------------
def load_quant_ops(source: Path):
    """The fp8_quantize op built from `source`: csrc/fp8_quant.cu, or another revision with its
    fp8_quant_launch.cuh beside it (benchmarks/fp8_quant_variants.py times such builds)."""
    from grading.cuda import load_kernel
    return load_kernel("fp8_quant", source, fake={
        "fp8_quantize": lambda x, per_token: (
            x.new_empty(x.shape, dtype=E4M3),
            x.new_empty((x.shape[0], 1) if per_token else (1,), dtype=torch.float32)),
    })


@functools.cache
def _quant_ops():
    return load_quant_ops(REPO / "csrc" / "fp8_quant.cu")


def fp8_quantize_cuda(x: torch.Tensor, per_token: bool) -> tuple[torch.Tensor, torch.Tensor]:
    check_fp8_quantize_inputs(x, per_token)
    return tuple(_quant_ops().fp8_quantize(x, per_token))


@functools.cache
def _gemm_ops():
    from grading.cuda import load_kernel
    return load_kernel("fp8_gemm_cutlass", REPO / "csrc" / "fp8_gemm_cutlass.cu", cutlass=True, fake={
        "fp8_gemm": lambda a, b, scale_a, scale_b: a.new_empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16),
    })


def fp8_gemm_cuda(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                  out_dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    check_fp8_gemm_inputs(a, b, scale_a, scale_b, out_dtype)
    if out_dtype != torch.bfloat16:
        raise TypeError(f"out_dtype: the CUTLASS rung writes bfloat16 only, got {out_dtype}")
    return _gemm_ops().fp8_gemm(a, b, scale_a, scale_b)
