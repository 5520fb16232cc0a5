"""Broken silu_mul implementations, each with one defect the grader must reject."""
import os
import time

import torch
import torch.nn.functional as F

_cache = {}
_built = []
_died = []


def correct(gate, up):
    return F.silu(gate) * up


def wrong_math(gate, up):
    return torch.sigmoid(gate) * up  # forgot the factor gate


def low_precision(gate, up):
    # silu computed in float16 and rounded twice: fine for fp16 inputs, too coarse for fp32.
    return (F.silu(gate.half()) * up.half()).to(gate.dtype)


def nan_output(gate, up):
    out = F.silu(gate) * up
    out.view(-1)[out.numel() // 2] = float("nan")
    return out


def unwritten_tail(gate, up):
    out = torch.empty_like(gate, memory_format=torch.contiguous_format)
    n = gate.shape[-1]
    k = max(n - 1, 0)
    out[..., :k] = (F.silu(gate) * up)[..., :k]  # forgets the last column: N-1 vs N
    return out


def mutates_input(gate, up):
    gate.mul_(torch.sigmoid(gate))  # in place on the caller's tensor
    return gate * up


def aliases_input(gate, up):
    return up.mul_(F.silu(gate))  # writes into up and returns it


def caches(gate, up):
    key = (gate.data_ptr(), up.data_ptr(), tuple(gate.shape))
    if key not in _cache:
        _cache[key] = F.silu(gate) * up
    return _cache[key].clone()


def wrong_dtype(gate, up):
    return F.silu(gate.float()) * up.float()


def wrong_shape(gate, up):
    return (F.silu(gate) * up).reshape(-1)


def wrong_device(gate, up):
    return torch.empty(gate.shape, dtype=gate.dtype, device="meta")


def raises(gate, up):
    return F.silu(gate) * up[..., :-1]  # an off-by-one slice: RuntimeError in this very line


def not_implemented(gate, up):
    raise NotImplementedError("silu_mul: TODO")


def no_float16(gate, up):
    if gate.dtype == torch.float16:
        raise NotImplementedError("float16: TODO")
    return F.silu(gate) * up


def dies_at_float16(gate, up):
    # A dead CUDA context's message, on the CPU too: the grader stops at the first float16 case.
    if gate.dtype == torch.float16:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    return F.silu(gate) * up


def dies_then_lies(gate, up):
    # Raises a dead context's error at the first float16 case without having killed anything, and
    # answers wrongly from then on: a kernel that passed the in-process checks by other means and
    # hides from the parent's re-check would stop the same way.
    if gate.dtype == torch.float16 and not _died:
        _died.append(True)
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    return F.silu(gate) * up + (1 if _died else 0)


def wrong_at_float16(gate, up):
    out = F.silu(gate) * up
    return out + 1 if gate.dtype == torch.float16 else out


def compiles_slowly(gate, up):
    # Not broken: a first call that spends longer in "nvcc" than the grader's no-progress limit,
    # as the CUTLASS file does on a few cores; the grader must wait for it.
    from grading import cuda
    if not _built:
        with cuda._compiling("slow.cu"):
            time.sleep(4)
        _built.append(True)
    return F.silu(gate) * up


def hangs(gate, up):
    while True:
        time.sleep(0.1)


def crashes(gate, up):
    os.abort()  # stands in for a segfault or a dead CUDA context: the process dies


def unwritten(gate, up):
    return torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)  # never written


def illegal_address(gate, up):
    # A Triton kernel that stores far outside any allocation: on a GPU the CUDA context dies.
    import triton
    import triton.language as tl

    @triton.jit
    def _bad_store(out_ptr):
        tl.store(out_ptr + (1 << 40), 1.0)

    out = torch.empty(gate.shape, dtype=torch.float32, device=gate.device)
    _bad_store[(1,)](out)
    torch.cuda.synchronize()
    return out.to(gate.dtype)


def gpu_hangs(gate, up):
    # A Triton kernel waiting for a flag nobody sets: the GPU spins until the process is killed.
    import triton
    import triton.language as tl

    @triton.jit
    def _spin(flag_ptr):
        while tl.load(flag_ptr, volatile=True) == 0:
            pass

    flag = torch.zeros(1, dtype=torch.int32, device=gate.device)
    _spin[(1,)](flag)
    torch.cuda.synchronize()
    return F.silu(gate) * up
