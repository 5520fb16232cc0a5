"""Broken rmsnorm and fused_add_rmsnorm implementations, each with one defect the grader must reject.

Plain PyTorch, so they run anywhere; each defect is one a real kernel can have.
"""
import torch


def _norm(x, weight, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)


def correct(x, weight, eps=1e-6):
    return _norm(x, weight, eps)


# --- rmsnorm --------------------------------------------------------------------------------------

def mean_over_rows(x, weight, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(0, keepdim=True) + eps) * weight.float()).to(x.dtype)


def missing_eps(x, weight, eps=1e-6):
    # rows whose mean square is far below eps come out at unit scale instead of ~0
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True)) * weight.float()).to(x.dtype)


def eps_outside_sqrt(x, weight, eps=1e-6):
    xf = x.float()
    return (xf / (xf.pow(2).mean(-1, keepdim=True).sqrt() + eps) * weight.float()).to(x.dtype)


def ignores_eps(x, weight, eps=1e-6):
    return _norm(x, weight, 1e-6)  # the default hard-coded


def stats_in_bfloat16(x, weight, eps=1e-6):
    # the mean square rounded to bf16 (8 bits): fine for bf16 outputs, 100x the fp32 tolerance
    var = x.bfloat16().pow(2).mean(-1, keepdim=True).float()
    return (x.float() * torch.rsqrt(var + eps) * weight.float()).to(x.dtype)


def stats_in_input_dtype(x, weight, eps=1e-6):
    # x² in fp16 overflows past 256; the huge rows become 0
    var = x.pow(2).mean(-1, keepdim=True).float()
    return (x.float() * torch.rsqrt(var + eps) * weight.float()).to(x.dtype)


def weight_ignored(x, weight, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def subtracts_mean(x, weight, eps=1e-6):
    # LayerNorm's centering where RMSNorm has none: shows on rows whose mean is far from 0
    xf = x.float()
    xc = xf - xf.mean(-1, keepdim=True)
    return (xc * torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)


def last_column_unnormalized(x, weight, eps=1e-6):
    y = _norm(x, weight, eps)
    y[..., -1] = x[..., -1]  # a vector loop that forgot the tail
    return y


def nan_on_zero_rows(x, weight, eps=1e-6):
    # scales each row by its largest |x| first (a guard against x² overflowing) and so divides
    # 0 by 0 on an all-zero row; right everywhere else
    xd = x.double()
    m = xd.abs().amax(-1, keepdim=True)
    xs = xd / m
    y = xs * torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps / m**2)
    return (y * weight.double()).to(x.dtype)


def returns_x_buffer(x, weight, eps=1e-6):
    return x.copy_(_norm(x, weight, eps))  # normalizes in place and hands back the caller's x


_compiled_static = torch.compile(_norm, dynamic=False)


def compiled_recompiles(x, weight, eps=1e-6):
    # dynamic=False: a new graph for every token count
    return _compiled_static(x, weight, eps)


def not_compiled(x, weight, eps=1e-6):
    return _norm(x, weight, eps)  # claims the compiled rung, compiles nothing


# --- fused_add_rmsnorm ----------------------------------------------------------------------------

def fused_correct(x, residual, weight, eps=1e-6):
    h = x + residual
    return _norm(h, weight, eps), h


def fused_h_not_added(x, residual, weight, eps=1e-6):
    return _norm(x + residual, weight, eps), x.clone()


def fused_norm_of_x(x, residual, weight, eps=1e-6):
    return _norm(x, weight, eps), x + residual  # normalizes the layer output, not the sum


def fused_h_not_returned(x, residual, weight, eps=1e-6):
    return _norm(x + residual, weight, eps)


def fused_h_in_fp32(x, residual, weight, eps=1e-6):
    h = x.float() + residual.float()
    return _norm(h, weight, eps).to(x.dtype), h


def fused_writes_residual(x, residual, weight, eps=1e-6):
    h = residual.add_(x)  # the vLLM-style in-place update, which this contract forbids
    return _norm(h, weight, eps), h


_fused_static = torch.compile(fused_correct, dynamic=False)


def fused_compiled_recompiles(x, residual, weight, eps=1e-6):
    return _fused_static(x, residual, weight, eps)
