"""Chapter 02 exercises: fp8_quantize and fp8_gemm, four ways.

    fp8_quantize(x[M, K] bf16/fp16, per_token) -> (q[M, K] float8_e4m3fn, scale)
        scale = max(amax, 1e-12) / 448 per row ([M, 1]) or for the whole tensor ([1]);
        q = x / scale rounded to the nearest e4m3 value.
    fp8_gemm(a[M, K] e4m3, b[N, K] e4m3, scale_a, scale_b, out_dtype=torch.bfloat16) -> y[M, N]
        y = (a · scale_a) @ (b · scale_b)ᵀ with fp32 accumulation; scale_a [1] or [M, 1],
        scale_b [1] or [N, 1]; N and K multiples of 16.

The eager and compiled rungs are written for you (the notebook takes them apart); the Triton and
CUDA rungs are yours. Grade them with

    python -m grading check fp8_quantize --rung triton
    python -m grading check fp8_gemm --rung triton
    python -m grading check fp8_gemm                   # every rung

The grader imports this file and calls the functions by name: keep the names and signatures.
"""
import grading  # noqa: F401  (first: in CPU mode, Triton must run in its interpreter)

import functools
from pathlib import Path

import torch
import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent
E4M3 = torch.float8_e4m3fn


def fp8_quantize_eager(x: torch.Tensor, per_token: bool):
    xf = x.float()
    amax = xf.abs().amax(-1, keepdim=True) if per_token else xf.abs().amax().reshape(1)  # [M, 1] or [1]
    scale = amax.clamp_min(1e-12) / 448.0
    # e4m3 has no inf: clamp before the cast, or a quotient just past 448 becomes NaN.
    return (xf / scale).clamp(-448.0, 448.0).to(E4M3), scale


def fp8_gemm_eager(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # What a port without fp8 kernels does: dequantize to bf16, then a bf16 matmul (half the
    # tensor-core rate of fp8, and a bf16 copy of the weight made on every call).
    a16 = (a.float() * scale_a).to(out_dtype)  # [M, K]
    b16 = (b.float() * scale_b).to(out_dtype)  # [N, K]
    return a16 @ b16.T


# torch.compile fuses each dequantization into one kernel and calls cuBLAS for the bf16 matmul;
# the quantizer becomes one reduction kernel. M (the token count) is marked dynamic: one graph
# for every M; dynamic=False keeps K and N static (chapter 01 shows why).
_quantize_graph = torch.compile(fp8_quantize_eager, dynamic=False)
_gemm_graph = torch.compile(fp8_gemm_eager, dynamic=False)


def fp8_quantize_compiled(x: torch.Tensor, per_token: bool):
    torch._dynamo.maybe_mark_dynamic(x, 0)
    return _quantize_graph(x, per_token)


def fp8_gemm_compiled(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    torch._dynamo.maybe_mark_dynamic(a, 0)
    if scale_a.shape[0] > 1:
        torch._dynamo.maybe_mark_dynamic(scale_a, 0)
    return _gemm_graph(a, b, scale_a, scale_b, out_dtype)


@triton.jit
def _fp8_quantize_kernel(x_ptr, q_ptr, scale_ptr, n_cols, x_row_stride, BLOCK_N: tl.constexpr):
    # TODO(you): per token, one program per row, the whole row in one tile (BLOCK_N >= n_cols).
    #   row = tl.program_id(0).to(tl.int64); cols = tl.arange(0, BLOCK_N); mask cols >= n_cols.
    #   Load the row (x_ptr + row * x_row_stride + cols) in float32, amax = max |x| (tl.max, tl.abs),
    #   scale = max(amax, 1e-12) / 448, q = clamp(x / scale, -448, 448) stored as
    #   q_ptr.dtype.element_ty (q is contiguous: row at row * n_cols), scale stored at scale_ptr + row.
    # Later: per tensor (a first kernel for the global amax, tl.atomic_max), rows longer than fit
    # in registers, several rows per program.
    pass


def fp8_quantize_triton(x: torch.Tensor, per_token: bool):
    # TODO(you): allocate q (torch.empty((M, K), dtype=E4M3)) and scale ([M, 1] or [1], fp32),
    # launch the kernel(s), return (q, scale). In CPU mode Triton's interpreter rounds some values
    # to e4m3 wrongly (126.24 -> 64): the notebook shows the workaround the reference uses.
    raise NotImplementedError("fp8_quantize_triton: write the Triton kernel and its launcher")


@triton.jit
def _fp8_gemm_kernel(a_ptr, b_ptr, y_ptr, sa_ptr, sb_ptr, M, N, K,
                     ROW_A: tl.constexpr, ROW_B: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # TODO(you): one program per [BLOCK_M, BLOCK_N] tile of y (grid (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N))).
    #   offs_m, offs_n, offs_k = tile rows, columns, tl.arange(0, BLOCK_K).
    #   acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    #   for k0 in range(0, K, BLOCK_K):
    #       a tile [BLOCK_M, BLOCK_K] at a_ptr + m * K + k; b tile read as [BLOCK_K, BLOCK_N] at
    #       b_ptr + n * K + k (b is [N, K]: K-major, which fp8 tensor cores want); mask rows past
    #       M, N and the K tail past K, with other=0.0.
    #       acc += tl.dot(a, b)   (a fresh product per step added in fp32: "promotion"; see the notebook)
    #   Epilogue: acc * scale_a (per row when ROW_A, else scale_a[0]) * scale_b (per column when
    #   ROW_B), stored as y_ptr.dtype.element_ty with a mask.
    # Then make it fast: grouped tile order, persistent programs, TMA, split-K for small M, and a
    # promotion every few K steps rather than every one (section 7: what it costs in accuracy).
    pass


def fp8_gemm_triton(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # TODO(you): check N and K are multiples of 16 (raise ValueError naming the argument), allocate
    # y (torch.empty((M, N), dtype=out_dtype)), launch _fp8_gemm_kernel.
    raise NotImplementedError("fp8_gemm_triton: write the Triton kernel and its launcher")


@functools.cache
def _quant_ops():
    # Builds fp8_quant.cu next to this file (the kernels are yours; the binding is provided).
    from grading.cuda import load_kernel
    return load_kernel("fp8_quant", HERE / "fp8_quant.cu", fake={
        "fp8_quantize": lambda x, per_token: (
            x.new_empty(x.shape, dtype=E4M3),
            x.new_empty((x.shape[0], 1) if per_token else (1,), dtype=torch.float32)),
    })


@functools.cache
def _gemm_ops():
    # Builds fp8_gemm.cu next to this file with the CUTLASS headers (Hopper only).
    from grading.cuda import load_kernel
    return load_kernel("fp8_gemm_cutlass", HERE / "fp8_gemm.cu", cutlass=True, fake={
        "fp8_gemm": lambda a, b, sa, sb: a.new_empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16),
    })


def fp8_quantize_cuda(x: torch.Tensor, per_token: bool):
    return tuple(_quant_ops().fp8_quantize(x, per_token))


def fp8_gemm_cuda(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    return _gemm_ops().fp8_gemm(a, b, scale_a, scale_b)
