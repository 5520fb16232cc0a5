"""Chapter 03 exercises: paged_decode, one decode step of attention over a paged KV cache.

    paged_decode(q[B, Hq, D], k_cache[P, S, Hkv, D], v_cache[P, S, Hkv, D],
                 block_table[B, max_pages] int32, seq_lens[B] int32, scale=None) -> out[B, Hq, D]

Sequence b's token t lives in page block_table[b, t // S] at slot t % S; query head h reads kv
head h // (Hq // Hkv); scale defaults to 1/sqrt(D); slots past seq_lens[b] are garbage. The eager
and compiled rungs are written for you (the notebook takes them apart); the Triton and CUDA rungs
are yours. Grade them with

    python -m grading check paged_decode                 # every rung
    python -m grading check paged_decode --rung triton   # one rung

The grader imports this file and calls the functions by name: keep the names and signatures.
"""
import grading  # noqa: F401  (first: in CPU mode, Triton must run in its interpreter)

import functools
import math
from pathlib import Path

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent


def _gather_attend(q, k_cache, v_cache, block_table, seq_lens, scale):
    # Copy each sequence's pages into one contiguous cache, padded to the table width, then SDPA
    # with a padding mask: the KV bytes cross HBM three times.
    b, _, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    width = block_table.shape[1]
    pages = block_table.long()
    k = k_cache[pages].view(b, width * s, hkv, d).transpose(1, 2)  # [B, Hkv, L_pad, D]
    v = v_cache[pages].view(b, width * s, hkv, d).transpose(1, 2)
    valid = torch.arange(width * s, device=q.device) < seq_lens[:, None]  # [B, L_pad]
    out = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=valid[:, None, None, :],
                                         scale=scale, enable_gqa=True)  # [B, Hq, 1, D]
    return out[:, :, 0]


def paged_decode_eager(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    return _gather_attend(q, k_cache, v_cache, block_table, seq_lens, scale)


# torch.compile of the same gather path. The batch, the table width and the pool's page count
# change: marked dynamic, so one graph serves them all. The model's constants (head counts, head
# size, page size) stay static (dynamic=False), or a second head size would become a symbol.
_gather_attend_graph = torch.compile(_gather_attend, dynamic=False)


def paged_decode_compiled(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    for t in (q, block_table, seq_lens, k_cache, v_cache):
        torch._dynamo.maybe_mark_dynamic(t, 0)
    torch._dynamo.maybe_mark_dynamic(block_table, 1)
    return _gather_attend_graph(q, k_cache, v_cache, block_table, seq_lens, scale)


@triton.jit
def _paged_decode_split_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, out_ptr, part_o_ptr, part_lse_ptr,
                               qk_scale, stride_qb, stride_qh, stride_kp, stride_ks, stride_kh,
                               stride_vp, stride_vs, stride_vh, stride_bt, num_splits,
                               GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, HEAD_DIM: tl.constexpr,
                               PAGE: tl.constexpr, BLOCK_N: tl.constexpr, ONE_SPLIT: tl.constexpr):
    # TODO(you): one program per (split, kv head, sequence) = program_id 0, 1, 2.
    #   Its tokens: [start, end) of sequence b, a whole number of BLOCK_N tiles per split
    #   (tiles_per_split = cdiv(cdiv(seq_len, BLOCK_N), num_splits)).
    #   Load the GROUP query heads of kv head kvh (heads kvh * GROUP + rows), padded to GROUP_PAD
    #   rows (>= 16, the smallest tl.dot) with zeros.
    #   For each tile of BLOCK_N tokens t: page = block_table[b, t // PAGE] (tl.load through
    #   bt_ptr), slot = t % PAGE; load K [BLOCK_N, HEAD_DIM] at page * stride_kp + slot * stride_ks
    #   + kvh * stride_kh (mask t < end, other=0); scores = tl.dot(q, tl.trans(k)) * qk_scale
    #   (qk_scale = scale · log2(e): use tl.exp2); -inf past the end; online softmax in fp32
    #   (running max m, sum l, accumulator acc rescaled by exp2(m_old - m_new)); acc += tl.dot(p
    #   in v's dtype, V tile).
    #   ONE_SPLIT: store acc / l to out ([B, Hq, D] contiguous). Otherwise store acc / l and the
    #   log-sum-exp m + log2(l) of each head to part_o [B, Hq, num_splits, D] and part_lse
    #   [B, Hq, num_splits] (fp32; an empty split stores o = 0 and lse = -inf).
    pass


@triton.jit
def _paged_decode_merge_kernel(part_o_ptr, part_lse_ptr, out_ptr, num_splits, HEAD_DIM: tl.constexpr,
                               BLOCK_S: tl.constexpr):
    # TODO(you): one program per (sequence, query head) row: out = Σ_s 2^(lse_s - max) · o_s /
    # Σ_s 2^(lse_s - max), over the num_splits splits (BLOCK_S = next power of two).
    pass


def paged_decode_triton(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    # TODO(you): allocate out [B, Hq, D] (torch.empty, q's dtype); pick BLOCK_N (e.g. 64 tokens at
    # D = 128) and the split count from the batch, the kv heads, the table width × page size (the
    # longest possible sequence: never read seq_lens on the host) and the SM count, so that
    # B · Hkv · splits programs fill the GPU; allocate the fp32 part_o / part_lse workspaces when
    # splitting; launch the split kernel on (splits, Hkv, B) programs, then the merge kernel on
    # B · Hq programs. Pass scale · log2(e) as qk_scale.
    raise NotImplementedError("paged_decode_triton: write the Triton kernels and their launcher")


@functools.cache
def _cuda_ops():
    # Builds paged_decode.cu next to this file (the kernels are yours; the binding is provided),
    # once per process.
    from grading.cuda import load_kernel
    return load_kernel("paged_decode", HERE / "paged_decode.cu", fake={
        "paged_decode": lambda q, k_cache, v_cache, block_table, seq_lens, scale, num_splits: q.new_empty(q.shape),
    })


def paged_decode_cuda(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    # Splits per (sequence, kv head): enough blocks to fill the GPU, at least 256 tokens each.
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 4
    programs = max(1, q.shape[0] * k_cache.shape[2])
    max_tokens = block_table.shape[1] * k_cache.shape[1]
    splits = max(1, min(triton.cdiv(4 * sms, programs), triton.cdiv(max_tokens, 256)))
    return _cuda_ops().paged_decode(q, k_cache, v_cache, block_table, seq_lens, float(scale), splits)
