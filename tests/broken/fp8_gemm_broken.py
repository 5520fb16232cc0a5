"""Broken fp8_gemm and fp8_quantize implementations, each with one defect the grader must reject.

Plain PyTorch, so they run anywhere; each defect is one a real kernel can have.
"""
import torch

E4M3 = torch.float8_e4m3fn


def _product(a, b):
    return a.float() @ b.float().T  # [M, N], fp32 accumulation


def correct(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    return (_product(a, b) * scale_a * scale_b.view(1, -1)).to(out_dtype)


# --- fp8_gemm -------------------------------------------------------------------------------------

def ignores_scales(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    return _product(a, b).to(out_dtype)


def ignores_per_token_scale(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # Reads scale_a[0] as if it were per tensor: right only when it is.
    return (_product(a, b) * scale_a.view(-1)[0] * scale_b.view(1, -1)).to(out_dtype)


def scale_a_per_column(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # scale_a indexed by the output column instead of the row (the epilogue's axes swapped).
    n = b.shape[0]
    sa = scale_a.view(-1)
    cols = sa[torch.arange(n, device=sa.device) % sa.numel()].view(1, n)
    return (_product(a, b) * cols * scale_b.view(1, -1)).to(out_dtype)


def loses_k_tail(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # A K loop that stops at the last full 128-wide tile.
    k = a.shape[1] // 128 * 128
    return (_product(a[:, :k], b[:, :k]) * scale_a * scale_b.view(1, -1)).to(out_dtype)


def bf16_accumulator(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # The running sum kept in bf16: each of the K additions rounds to 8 mantissa bits.
    af, bf = a.float(), b.float()
    acc = torch.zeros(a.shape[0], b.shape[0], dtype=torch.bfloat16, device=a.device)
    for k in range(a.shape[1]):
        acc = (acc.float() + af[:, k:k + 1] * bf[:, k].view(1, -1)).bfloat16()
    return (acc.float() * scale_a * scale_b.view(1, -1)).to(out_dtype)


def fast_accumulation(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # Hopper's fp8 tensor cores without promotion: after every k32 step the accumulator keeps 13
    # mantissa bits (fp32's low 10 bits truncated), for the whole K loop.
    af, bf = a.float(), b.float()
    acc = torch.zeros(a.shape[0], b.shape[0], device=a.device)
    for k0 in range(0, a.shape[1], 32):
        acc = acc + af[:, k0:k0 + 32] @ bf[:, k0:k0 + 32].T
        acc = (acc.view(torch.int32) & ~0x3FF).view(torch.float32)
    return (acc * scale_a * scale_b.view(1, -1)).to(out_dtype)


def transposed_b(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # b read as if it were [K, N] (a column-major weight), same bytes.
    k, n = a.shape[1], b.shape[0]
    return (a.float() @ b.float().reshape(k, n) * scale_a * scale_b.view(1, -1)).to(out_dtype)


def fp16_output(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    return (_product(a, b) * scale_a * scale_b.view(1, -1)).half()


def last_tile_unwritten(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    # A grid that rounds M down: the rows of a partial last 128-row tile are never written.
    y = torch.zeros(a.shape[0], b.shape[0], dtype=out_dtype, device=a.device)
    m = a.shape[0] // 128 * 128 or a.shape[0]
    y[:m] = correct(a[:m], b, scale_a[:m] if scale_a.numel() > 1 else scale_a, scale_b, out_dtype)
    return y


# --- fp8_quantize ---------------------------------------------------------------------------------

def _quantize(x, per_token, amax_to=448.0, rounding="nearest"):
    xf = x.float()
    amax = xf.abs().amax(-1, keepdim=True) if per_token else xf.abs().amax().reshape(1)
    scale = amax.clamp_min(1e-12) / amax_to
    v = (xf / scale).clamp(-448.0, 448.0)
    q = v.to(E4M3)
    if rounding == "truncate":  # toward zero: one code down wherever rounding went up in magnitude
        codes = q.view(torch.uint8)
        up = q.float().abs() > v.abs()
        q = torch.where(up, codes - 1, codes).view(E4M3)
    return q, scale


def quantize_correct(x, per_token):
    return _quantize(x, per_token)


def quantize_truncates(x, per_token):
    return _quantize(x, per_token, rounding="truncate")


def quantize_amax_to_240(x, per_token):
    # The e4m3fnuz maximum (AMD's variant) in place of e4m3fn's 448: half the range unused.
    return _quantize(x, per_token, amax_to=240.0)


def quantize_per_tensor_always(x, per_token):
    q, scale = _quantize(x, False)
    return q, scale.expand(x.shape[0], 1).contiguous() if per_token else scale


def quantize_no_zero_guard(x, per_token):
    xf = x.float()
    amax = xf.abs().amax(-1, keepdim=True) if per_token else xf.abs().amax().reshape(1)
    scale = amax / 448.0
    return (xf / scale).clamp(-448.0, 448.0).to(E4M3), scale


def quantize_in_bf16(x, per_token):
    # x / scale computed in bf16: a second rounding (to 8 bits) before e4m3's (to 4), which moves
    # a few percent of the values to the wrong neighbour.
    xf = x.float()
    amax = xf.abs().amax(-1, keepdim=True) if per_token else xf.abs().amax().reshape(1)
    scale = amax.clamp_min(1e-12) / 448.0
    return (x / scale.to(x.dtype)).to(E4M3), scale
