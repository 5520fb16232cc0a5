"""Chapter 01 exercises: rmsnorm and fused_add_rmsnorm, four ways.

    rmsnorm(x[..., N], weight[N], eps=1e-6) -> y = x / sqrt(mean(x², -1) + eps) * weight
    fused_add_rmsnorm(x, residual, weight, eps=1e-6) -> (y, h): h = x + residual, y = rmsnorm(h)

Statistics in fp32 whatever the dtype; outputs in x's dtype; inputs are never modified. The eager
and compiled rungs are written for you (the notebook takes them apart); the Triton and CUDA rungs
are yours. Grade them with

    python -m grading check rmsnorm                          # every rung
    python -m grading check fused_add_rmsnorm --rung triton  # one rung of the fused kernel

The grader imports this file and calls the functions by name: keep the names and signatures.
"""
import grading  # noqa: F401  (first: in CPU mode, Triton must run in its interpreter)

import functools
from pathlib import Path

import torch
import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent


def _rmsnorm_math(x, weight, eps):
    # One kernel per op, each writing a full-size temporary: ~8 launches and ~10x the bytes.
    xf = x.float()
    var = xf.pow(2).mean(-1, keepdim=True)  # [..., 1]
    return (xf * torch.rsqrt(var + eps)).to(x.dtype) * weight


def rmsnorm_eager(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return _rmsnorm_math(x, weight, eps)


def fused_add_rmsnorm_eager(x, residual, weight, eps: float = 1e-6):
    h = x + residual
    return _rmsnorm_math(h, weight, eps), h


# torch.compile fuses the ops into one kernel. The token count M changes from call to call; the
# row length N is a model constant. Marking the token dimension dynamic keeps dynamo from
# compiling a new graph for every M it meets (the notebook shows those recompilations);
# dynamic=False keeps every other size static, N included (the notebook shows why that matters).
@torch.compile(dynamic=False)
def _rmsnorm_graph(x2, weight, eps):
    return _rmsnorm_math(x2, weight, eps)


@torch.compile(dynamic=False)
def _fused_add_rmsnorm_graph(x2, r2, weight, eps):
    h = x2 + r2
    return _rmsnorm_math(h, weight, eps), h


def rmsnorm_compiled(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    x2 = x.reshape(-1, x.shape[-1])  # [M, N]
    torch._dynamo.maybe_mark_dynamic(x2, 0)
    return _rmsnorm_graph(x2, weight, eps).view(x.shape)


def fused_add_rmsnorm_compiled(x, residual, weight, eps: float = 1e-6):
    x2 = x.reshape(-1, x.shape[-1])  # [M, N]
    r2 = residual.reshape(-1, x.shape[-1])  # [M, N]
    torch._dynamo.maybe_mark_dynamic(x2, 0)
    torch._dynamo.maybe_mark_dynamic(r2, 0)
    y, h = _fused_add_rmsnorm_graph(x2, r2, weight, eps)
    return y.view(x.shape), h.view(x.shape)


@triton.jit
def _rmsnorm_kernel(x_ptr, res_ptr, w_ptr, y_ptr, h_ptr, n_rows, n_cols, x_row_stride,
                    res_row_stride, eps, HAS_RESIDUAL: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr):
    # TODO(you): one program normalizes BLOCK_M rows; BLOCK_N >= n_cols holds a whole row.
    #   rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)   (64-bit offsets)
    #   cols = tl.arange(0, BLOCK_N); mask the rows past n_rows and the columns past n_cols.
    #   Load the [BLOCK_M, BLOCK_N] tile of x (row r at x_ptr + r * x_row_stride), in float32.
    #   HAS_RESIDUAL: add the residual tile, round the sum to h's dtype
    #   (h_ptr.dtype.element_ty), store it (h is contiguous: row r at r * n_cols), and normalize
    #   that rounded h.
    #   rstd = 1 / sqrt(sum of squares along axis 1 / n_cols + eps)   (tl.rsqrt)
    #   y = x * rstd[:, None] * weight[None, :], stored to y (contiguous) in y's dtype.
    # Later: rows longer than fit in registers (N > 16K bf16) need a loop over column chunks.
    pass


def rmsnorm_triton(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    # TODO(you): allocate y (torch.empty(x.shape, ...)), view x as [rows, N] with x.view(-1, N)
    # (x may be a slice of a wider tensor: pass x2.stride(0) as the row stride), pick BLOCK_M,
    # BLOCK_N and num_warps from N, launch _rmsnorm_kernel on cdiv(rows, BLOCK_M) programs.
    # For rmsnorm pass x and y for the unused residual and h pointers.
    raise NotImplementedError("rmsnorm_triton: write the Triton kernel and its launcher")


def fused_add_rmsnorm_triton(x, residual, weight, eps: float = 1e-6):
    # TODO(you): the same launcher with HAS_RESIDUAL=True, returning (y, h).
    raise NotImplementedError("fused_add_rmsnorm_triton: write the Triton kernel and its launcher")


@functools.cache
def _cuda_ops():
    # Builds rmsnorm.cu next to this file (the kernels are yours; the binding is provided), once
    # per process.
    from grading.cuda import load_kernel
    return load_kernel("rmsnorm", HERE / "rmsnorm.cu", fake={
        "rmsnorm": lambda x, weight, eps: x.new_empty(x.shape),
        "fused_add_rmsnorm": lambda x, residual, weight, eps: (x.new_empty(x.shape), x.new_empty(x.shape)),
    })


def rmsnorm_cuda(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return _cuda_ops().rmsnorm(x, weight, float(eps))


def fused_add_rmsnorm_cuda(x, residual, weight, eps: float = 1e-6):
    return _cuda_ops().fused_add_rmsnorm(x, residual, weight, float(eps))
