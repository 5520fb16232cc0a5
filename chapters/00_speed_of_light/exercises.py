"""Chapter 00 exercises: silu_mul(gate, up) = silu(gate) * up, four ways.

The eager and compiled rungs are written for you (the notebook takes them apart); the Triton and
CUDA rungs are yours. Grade them with

    python -m grading check silu_mul                # every rung
    python -m grading check silu_mul --rung triton  # one rung

The grader imports this file and calls the functions by name: keep the names and signatures.
"""
import grading  # noqa: F401  (first: in CPU mode, Triton must run in its interpreter)

from pathlib import Path

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent


def silu_mul_eager(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # Two kernels and an intermediate: silu reads gate and writes a temporary, the multiply reads
    # the temporary and up and writes the output. 5 memory passes where 3 would do.
    return F.silu(gate) * up


@torch.compile(dynamic=False)  # every size static but the token dimension marked below
def _silu_mul_fused(gate, up):
    return F.silu(gate.float()).to(gate.dtype) * up


def silu_mul_compiled(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # torch.compile fuses both ops into one generated Triton kernel: 3 passes. Marking only the
    # token dimension dynamic compiles once for every token count; dynamic=True would make the
    # column count symbolic too, and its kernel is slower (the notebook measures both), as the
    # default would at a second column count (chapter 01 shows it): hence dynamic=False above.
    if gate.dim() > 1:
        torch._dynamo.mark_dynamic(gate, 0)
        torch._dynamo.mark_dynamic(up, 0)
    return _silu_mul_fused(gate, up)


@triton.jit
def _silu_mul_kernel(gate_ptr, up_ptr, out_ptr, n_cols, gate_row_stride, up_row_stride,
                     BLOCK: tl.constexpr):
    # TODO(you): one program handles BLOCK columns of one row.
    #   row = tl.program_id(0); columns = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    #   load gate and up (mask the columns past n_cols), compute in float32:
    #   g * sigmoid(g) * u, store to out (contiguous: row * n_cols + column), cast to out's dtype.
    pass


def silu_mul_triton(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # TODO(you): allocate the output, pick BLOCK and the grid, launch _silu_mul_kernel.
    # gate and up may be views with a row stride != N (two halves of one [M, 2N] tensor):
    # view them as [rows, N] with gate.view(-1, N) and pass .stride(0).
    raise NotImplementedError("silu_mul_triton: write the Triton kernel and its launcher")


def silu_mul_cuda(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    # Builds silu_mul.cu next to this file (the kernel is yours; the binding is provided).
    from grading.cuda import load_kernel
    ops = load_kernel("silu_mul", HERE / "silu_mul.cu", fake=lambda gate, up: gate.new_empty(gate.shape))
    return ops.silu_mul(gate, up)
