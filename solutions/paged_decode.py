"""paged_decode four ways: eager, torch.compile (and FlexAttention), Triton, CUDA C++.

Napkin math (Llama-3 8B decode, 32 query / 8 kv heads, D = 128, bf16, 64 sequences of 4096
tokens): K and V rows, 64 · 4096 · 8 · 128 · 2 B · 2 = 1.07 GB, read once; q and out are 1 MB.
At the H200's measured 4.27 TB/s copy roof that is 252 µs. The 4.3 GFLOP (q·k and p·v for 32
query heads) would take 6 µs on the tensor cores: 4 FLOP/byte, memory-bound by 40×. Everything
here is about reading each K/V byte once, at full speed:
- eager gathers the pages into a contiguous copy first: the KV bytes cross HBM three times (read,
  written, read again) and every sequence is padded to the longest;
- a grouped-query kernel that gave every query head its own program would read each kv head 4×
  (Hq / Hkv); the Triton and CUDA rungs give all query heads of a group to the program that loads
  their kv head;
- one program per (sequence, kv head) is 8 programs for one sequence, on a GPU with 132 SMs:
  flash-decoding splits the sequence across programs and merges their partial softmaxes.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from grading import env
from grading.compiling import compile_on_first_call
from grading.specs.paged_decode import check_paged_decode_inputs, default_scale

REPO = Path(__file__).resolve().parent.parent


# --- rung 1: eager ------------------------------------------------------------------------------
def _gather_attend(q, k_cache, v_cache, block_table, seq_lens, scale: float):
    # What a server without a paged kernel does: copy each sequence's pages into one contiguous
    # cache, then call the library attention. The copy reads every page the tables name and writes
    # it again ([B, max_pages · S] per kv head: padded to the table width, since the longest
    # sequence is unknown without a device-to-host sync), and SDPA reads the copy: 3× the bytes.
    b, _, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    width = block_table.shape[1]
    pages = block_table.long()
    k = k_cache[pages].view(b, width * s, hkv, d).transpose(1, 2)  # [B, Hkv, L_pad, D]
    v = v_cache[pages].view(b, width * s, hkv, d).transpose(1, 2)
    # Ragged lengths: the slots past each sequence's length hold garbage; mask them out.
    valid = torch.arange(width * s, device=q.device) < seq_lens[:, None]  # [B, L_pad]
    out = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=valid[:, None, None, :],
                                         scale=scale, enable_gqa=True)  # [B, Hq, 1, D]
    return out[:, :, 0]


def paged_decode_eager(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale)
    return _gather_attend(q, k_cache, v_cache, block_table, seq_lens, default_scale(q.shape[-1], scale))


# --- rung 2: torch.compile, and FlexAttention ---------------------------------------------------
# The gather path compiled: Inductor turns the two index copies and the mask into generated
# kernels and calls an SDPA kernel for the attention; the bytes are still moved three times.
# The batch and the table width change at every decode step, and the pool's page count is the
# server's choice: marked dynamic, one graph serves them. Everything else is a model constant
# (head counts, head size, page size) and stays static (`dynamic=False`): under the default,
# automatic dynamic shapes made each of them symbolic at the first call where it changed (the
# bench's last four cases change one each), and the gather's index math then divided by sizes
# known only at run time. On an H200 (benchmarks/paged_decode_bench.md of 2026-12-01) that
# rung took 994 µs at head size 64 and 2445 µs at pages of 64, where eager took 445 and 853.
# Compiled at the first call (grading/compiling.py): `@torch.compile` would import the compiler
# (~5 s) in every process that imports this file, also those that run only the other rungs.
_gather_attend_graph = compile_on_first_call(_gather_attend, dynamic=False)


def paged_decode_compiled(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale)
    for t in (q, block_table, seq_lens, k_cache, v_cache):
        torch._dynamo.maybe_mark_dynamic(t, 0)
    torch._dynamo.maybe_mark_dynamic(block_table, 1)
    return _gather_attend_graph(q, k_cache, v_cache, block_table, seq_lens, default_scale(q.shape[-1], scale))


def _flex_attend(q, k_cache, v_cache, block_table, seq_lens, scale: float):
    # FlexAttention reads the cache in place: the whole pool is one "sequence" of P · S tokens,
    # [1, Hkv, P · S, D], shared by every query (batch 1 broadcasts), and the page table becomes
    # a block mask with one block per page. Sequence b visits the blocks block_table[b, :n_b]:
    # all but the last are full (no mask evaluated), the last is partial and its mask_mod keeps
    # the slots below the sequence's length.
    from torch.nn.attention.flex_attention import BlockMask, flex_attention
    b, hq, d = q.shape
    p, s, hkv = k_cache.shape[0], k_cache.shape[1], k_cache.shape[2]
    k = k_cache.reshape(1, p * s, hkv, d).transpose(1, 2)  # [1, Hkv, P·S, D]
    v = v_cache.reshape(1, p * s, hkv, d).transpose(1, 2)
    n_pages = (seq_lens + (s - 1)) // s  # [B]
    last_page = block_table.gather(1, (n_pages - 1).long()[:, None]).view(b, 1, 1, 1)  # [B, 1, 1, 1]
    last_len = seq_lens - (n_pages - 1) * s  # tokens in each sequence's last page

    def in_last_page(batch, head, q_idx, kv_idx):
        return kv_idx % s < last_len[batch]

    # The mask's index lists span the pool (P blocks), as the KV length does: [B, 1, 1, P].
    full_blocks = F.pad(block_table, (0, p - block_table.shape[1])).view(b, 1, 1, p)
    last_block = F.pad(last_page.view(b, 1), (0, p - 1)).view(b, 1, 1, p).to(torch.int32)
    mask = BlockMask.from_kv_blocks(
        torch.ones(b, 1, 1, dtype=torch.int32, device=q.device), last_block,
        (n_pages - 1).view(b, 1, 1).to(torch.int32), full_blocks,
        BLOCK_SIZE=(128, s), mask_mod=in_last_page, seq_lengths=(1, p * s), compute_q_blocks=False)
    # The kernel's KV tile must divide a page (its default, 64 or 128 tokens, does not divide 16),
    # and its query tile the mask's 128 rows; one query row is real, so the smallest tile wastes least.
    options = {"BLOCK_M": 16, "BLOCK_N": math.gcd(s, 64)}
    out = flex_attention(q[:, :, None, :], k, v, block_mask=mask, scale=scale, enable_gqa=True,
                         kernel_options=options)
    return out[:, :, 0]  # [B, Hq, D]


# Static shapes, a graph per batch size and table width: Inductor uses its decode kernel (the query
# heads of a group in one program, the KV split across programs) only for a static batch. With the
# batch dynamic it falls back to its general kernel, which on an H200 gave wrong results here.
_flex_attend_graph = compile_on_first_call(_flex_attend, dynamic=False)


def paged_decode_flex(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    """FlexAttention driven by the page table: where the compiler's own attention kernel stands."""
    check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale)
    if k_cache.shape[1] % 16:
        raise ValueError(f"k_cache: FlexAttention needs a page size (dimension 1) that is a multiple of 16, "
                         f"got shape {tuple(k_cache.shape)}")
    if q.shape[0] == 0:
        return torch.empty(q.shape, dtype=q.dtype, device=q.device)
    # detach(): new tensor objects, without the dynamic-dimension hints another rung (the compiled
    # one marks q, block_table and seq_lens) may have left on these.
    return _flex_attend_graph(q.detach(), k_cache.detach(), v_cache.detach(), block_table.detach(),
                              seq_lens.detach(), default_scale(q.shape[-1], scale))


# --- rung 3: Triton, flash-decoding -------------------------------------------------------------
# One program per (sequence, kv head, split). It loads the query heads of its group once, then
# walks its share of the sequence BLOCK_N tokens at a time: look the pages up in the block table,
# load the K tile [BLOCK_N, D] (each token's row for this kv head is D contiguous elements,
# 256 B at D = 128 bf16), scores for the whole group with one tl.dot, online softmax in fp32,
# then the V tile and a second tl.dot. Every K/V byte is read by exactly one program.
# At D = 64 a program takes two adjacent kv heads (KV_PACK = 2): a token's rows for both are one
# 256-byte run instead of two 128-byte pieces 1 KB apart, the granularity at which D = 128 streams
# at the copy roof. The query of a head is zero in the other head's D columns, so one tl.dot over
# the packed row gives each head its own scores; p·v gives each head all 2·D columns, and only its
# own D are stored (the tensor cores do twice the FLOPs, at 4 FLOP/byte still nowhere near a limit).
@triton.jit
def _paged_decode_split_kernel(
    q_ptr,                      # [B, Hq, D], last dim contiguous
    k_ptr, v_ptr,               # [P, S, Hkv, D] pages, last dim contiguous (last two when KV_PACK > 1)
    bt_ptr, lens_ptr,           # block_table [B, max_pages] int32, seq_lens [B] int32
    out_ptr,                    # [B, Hq, D] contiguous: the answer when there is one split
    part_o_ptr, part_lse_ptr,   # [B, Hq, num_splits, D] fp32 and [B, Hq, num_splits] fp32: per split
    qk_scale,                   # scale · log2(e): scores in base 2, so exp2 is one instruction
    stride_qb, stride_qh,
    stride_kp, stride_ks, stride_kh,
    stride_vp, stride_vs, stride_vh,
    stride_bt,                  # block_table's row stride
    num_splits,                 # programs per (sequence, kv head pack)
    GROUP: tl.constexpr,        # query heads per kv head, Hq / Hkv
    GROUP_PAD: tl.constexpr,    # KV_PACK · GROUP padded to >= 16 rows: the smallest tl.dot tile
    HEAD_DIM: tl.constexpr,     # D
    KV_PACK: tl.constexpr,      # adjacent kv heads per program: their rows are one KV_PACK · D run
    PAGE: tl.constexpr,         # S, tokens per page
    BLOCK_N: tl.constexpr,      # tokens per iteration: a multiple of PAGE or a divisor of it
    ONE_SPLIT: tl.constexpr,    # num_splits == 1: normalize and store the answer directly
    DOT_PRECISION: tl.constexpr,  # "ieee" for fp32 inputs (no tf32 rounding), else "tf32" (unused)
):
    split = tl.program_id(0)
    kvp = tl.program_id(1)  # kv heads kvp · KV_PACK + [0, KV_PACK)
    b = tl.program_id(2).to(tl.int64)  # 64-bit: b · stride reaches past 2^31 at large batches
    q_heads = tl.num_programs(1) * KV_PACK * GROUP
    seq_len = tl.load(lens_ptr + b)
    # This split's share: whole tiles, so only the sequence's last tile is partial.
    tiles_per_split = tl.cdiv(tl.cdiv(seq_len, BLOCK_N), num_splits)
    start = split * tiles_per_split * BLOCK_N
    end = tl.minimum(start + tiles_per_split * BLOCK_N, seq_len)

    # The pack's query heads are consecutive: head kvp · KV_PACK · GROUP + row reads kv head
    # kvp · KV_PACK + row // GROUP, whose D elements are columns [row // GROUP · D, +D) of the row.
    rows = tl.arange(0, GROUP_PAD)  # [GROUP_PAD]
    heads = kvp * (KV_PACK * GROUP) + rows
    row_ok = rows < KV_PACK * GROUP
    cols = tl.arange(0, KV_PACK * HEAD_DIM)  # [KV_PACK · D]
    dims = cols % HEAD_DIM
    own = (cols[None, :] // HEAD_DIM == rows[:, None] // GROUP) & row_ok[:, None]  # [GROUP_PAD, KV_PACK · D]
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + dims[None, :],
                mask=own, other=0.0)  # [GROUP_PAD, KV_PACK · D], 0 outside each row's own head

    m_i = tl.full([GROUP_PAD], float("-inf"), tl.float32)  # running max (base-2 scores)
    l_i = tl.zeros([GROUP_PAD], tl.float32)                # running sum of 2^(score - max)
    acc = tl.zeros([GROUP_PAD, KV_PACK * HEAD_DIM], tl.float32)  # running sum of weights · v
    offs = tl.arange(0, BLOCK_N)
    for tile in range(start, end, BLOCK_N):
        t = tile + offs  # [BLOCK_N] token positions
        t_ok = t < end
        page = tl.load(bt_ptr + b * stride_bt + t // PAGE, mask=t_ok, other=0).to(tl.int64)
        slot = t % PAGE
        k_rows = page * stride_kp + slot * stride_ks + kvp * KV_PACK * stride_kh  # [BLOCK_N]
        k = tl.load(k_ptr + k_rows[:, None] + cols[None, :], mask=t_ok[:, None], other=0.0)  # [BLOCK_N, KV_PACK · D]
        scores = tl.dot(q, tl.trans(k), input_precision=DOT_PRECISION) * qk_scale  # [GROUP_PAD, BLOCK_N] fp32
        scores = tl.where(t_ok[None, :], scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, 1))
        alpha = tl.exp2(m_i - m_new)  # rescales what was accumulated under the old max (0 at first)
        p = tl.exp2(scores - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v_rows = page * stride_vp + slot * stride_vs + kvp * KV_PACK * stride_vh
        v = tl.load(v_ptr + v_rows[:, None] + cols[None, :], mask=t_ok[:, None], other=0.0)  # [BLOCK_N, KV_PACK · D]
        # p in v's dtype for the tensor cores: one rounding per weight (up to 2^-8 relative in bf16).
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=DOT_PRECISION)
        m_i = m_new

    if ONE_SPLIT:
        o = acc / l_i[:, None]
        tl.store(out_ptr + (b * q_heads + heads[:, None]) * HEAD_DIM + dims[None, :],
                 o.to(out_ptr.dtype.element_ty), mask=own)
    else:
        # A split with no tokens (a short sequence in a batch sized for a long one) stores weight 0:
        # lse = -inf, o = 0.
        o = acc / tl.where(l_i > 0, l_i, 1.0)[:, None]
        lse = m_i + tl.log2(tl.where(l_i > 0, l_i, 1.0))
        part = (b * q_heads + heads) * num_splits + split  # [GROUP_PAD]
        tl.store(part_lse_ptr + part, lse, mask=row_ok)
        tl.store(part_o_ptr + part[:, None] * HEAD_DIM + dims[None, :], o, mask=own)


# The splits of one query head, merged: out = Σ_s 2^(lse_s - M) · o_s / Σ_s 2^(lse_s - M), M the
# largest lse. The partial results are [B, Hq, num_splits, D] fp32: at 1 × 32768 tokens with 64
# splits, 1 MB written and read against 134 MB of KV.
@triton.jit
def _paged_decode_merge_kernel(
    part_o_ptr, part_lse_ptr,  # [B · Hq, num_splits, D] and [B · Hq, num_splits], fp32
    out_ptr,                   # [B · Hq, D] contiguous
    num_splits,
    HEAD_DIM: tl.constexpr,
    BLOCK_S: tl.constexpr,     # num_splits padded to a power of two
):
    row = tl.program_id(0).to(tl.int64)
    sp = tl.arange(0, BLOCK_S)
    ok = sp < num_splits
    dims = tl.arange(0, HEAD_DIM)
    lse = tl.load(part_lse_ptr + row * num_splits + sp, mask=ok, other=float("-inf"))
    w = tl.exp2(lse - tl.max(lse, 0))  # [BLOCK_S]; empty splits weigh 0
    o = tl.load(part_o_ptr + (row * num_splits + sp[:, None]) * HEAD_DIM + dims[None, :], mask=ok[:, None], other=0.0)
    out = tl.sum(w[:, None] * o, 0) / tl.sum(w, 0)
    tl.store(out_ptr + row * HEAD_DIM + dims, out.to(out_ptr.dtype.element_ty))


# --- the launch plan: tiles, pipeline stages, splits ------------------------------------------------
# Splits (flash-decoding): at small batch B · Hkv programs cannot fill 132 SMs, so each sequence is
# cut into runs of whole tiles, merged afterwards by their log-sum-exp. The count comes from a cost
# model in tokens (napkin math, not a sweep; benchmarks/paged_decode_variants.py times it against
# half and twice its count):
#     time ∝ rounds × (tokens per split + _START_TOKENS),  rounds = programs / (programs per SM · SMs)
# Up to _LOCKSTEP_ROUNDS rounds, programs of equal length start and end together, so a partly filled
# last round costs a whole one: H200, the CUDA rung's 1024 programs on 396 slots (2.6 rounds) ran at
# 89% of copy, the 2.6 / 3 this predicts. Past that they drift apart and the time follows the work:
# 2048 programs (5.2 rounds) ran at 99%.
_LOCKSTEP_ROUNDS = 4
# What each round pays before its first tile lands (the length, the table, the queries, then a DRAM
# round trip: 2-3 µs), in tokens a program streams meanwhile at its share of 4.25 TB/s (~8 GB/s
# with 528 programs: 512 B a token at D = 128 bf16, ~40 tokens). Napkin, rounded up.
_START_TOKENS = 64
# Of the counts within 3% of the cheapest, the smallest: fewer partial results and merge reads.
_COST_SLACK = 0.03
# A split reads at least this many tokens: at 1 × 4096 the H200 ran 32 splits of 128 tokens in
# 12.5 µs against 14.1 for 16 splits of 256 (Triton, one run); shorter splits were not measured.
_MIN_SPLIT_TOKENS = 128
# Programs resident per SM (Triton 3.6, sm_90, ptxas report): BLOCK_N = 64 (D = 128, or D = 64
# packed), 4 warps, 3 stages: 113 registers, 39 KB of shared memory; the registers allow 4.
_TRITON_PER_SM = 4
# Triton's pipeline stages: with 3, the block-table loads are prefetched a tile ahead of the K/V
# copies (cp.async), so no tile waits for its page numbers. H200, BLOCK_N = 64, 4 warps, one run:
# 493 against 539 µs at 256 × 2048; within ±0.6% of 2 stages at 1 × 4096, 1 × 32768 and 64 × 4096.
_TRITON_STAGES = 3
_TRITON_WARPS = 4
# CPU mode: the interpreter runs programs one at a time, and the correctness cases are tiny.
# Pretend 4 SMs and short splits, so the cases exercise the split and merge path.
_CPU_SMS = 4
_CPU_MIN_SPLIT_TOKENS = 16


@functools.cache
def _num_sms(device_index: int | None) -> int:
    if env.CPU_MODE:
        return _CPU_SMS
    return torch.cuda.get_device_properties(device_index).multi_processor_count


@functools.lru_cache(maxsize=4096)  # called at every decode step with the same few shapes
def num_splits_for(batch: int, kv_heads: int, max_tokens: int, sms: int, block_n: int,
                   min_tokens: int | None = None, per_sm: int = _TRITON_PER_SM) -> int:
    """Programs per (sequence, kv head): the count the cost model above finds cheapest for
    batch · kv_heads programs of `max_tokens` tokens in tiles of `block_n`, `per_sm` programs
    resident per SM; no split shorter than `min_tokens` (_MIN_SPLIT_TOKENS).
    H200 (132 SMs), 8 kv heads, Triton: 1 × 4096 → 32 splits, 1 × 32768 → 64, 16 × 4096 → 4,
    64 × 4096 → 1, 256 × 2048 → 1."""
    if min_tokens is None:
        min_tokens = _CPU_MIN_SPLIT_TOKENS if env.CPU_MODE else _MIN_SPLIT_TOKENS
    programs = max(1, batch * kv_heads)
    slots = per_sm * sms
    tiles = triton.cdiv(max(1, max_tokens), block_n)
    most = max(1, triton.cdiv(max_tokens, max(min_tokens, block_n)))
    costs = {}
    for s in range(1, most + 1):
        per_split = triton.cdiv(tiles, s)  # tiles per split
        n = triton.cdiv(tiles, per_split)  # splits that get tokens: the count to launch
        rounds = programs * n / slots
        if programs * n <= _LOCKSTEP_ROUNDS * slots:
            rounds = triton.cdiv(programs * n, slots)
        costs[n] = rounds * (per_split * block_n + _START_TOKENS)
    cheapest = min(costs.values())
    return min(n for n, c in costs.items() if c <= cheapest * (1 + _COST_SLACK))


def _kv_pack(k_cache, v_cache) -> int:
    """Adjacent kv heads per Triton program: 2 at D = 64 (256-byte runs), when their rows are
    adjacent in memory (the head stride is D) and pair up."""
    d, hkv = k_cache.shape[3], k_cache.shape[2]
    if d == 64 and hkv % 2 == 0 and k_cache.stride(2) == d and v_cache.stride(2) == d:
        return 2
    return 1


def _block_n(page: int, row: int) -> int:
    # 32 KB of K and V per iteration for a row of 128 elements (D = 128, or two heads of 64) in
    # bf16: 64 tokens, several pages of 16 or one of 64; twice the tokens for a row of 64.
    # CPU mode: 16, fewer wasted lanes in the interpreter.
    if env.CPU_MODE:
        return 16
    return 64 * 128 // row


def _triton_launch(q, k_cache, v_cache, block_table, seq_lens, scale, *, block_n=None, num_splits=None,
                   num_warps=_TRITON_WARPS, num_stages=_TRITON_STAGES, kv_pack=None):
    b, hq, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    group = hq // hkv
    out = torch.empty((b, hq, d), dtype=q.dtype, device=q.device)
    if b == 0:
        return out
    pack = kv_pack or _kv_pack(k_cache, v_cache)
    block_n = block_n or _block_n(s, pack * d)
    splits = num_splits or num_splits_for(b, hkv // pack, block_table.shape[1] * s, _num_sms(q.device.index),
                                          block_n)
    one = splits == 1
    part_o = out if one else torch.empty((b, hq, splits, d), dtype=torch.float32, device=q.device)
    part_lse = out if one else torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    _paged_decode_split_kernel[(splits, hkv // pack, b)](
        q, k_cache, v_cache, block_table, seq_lens, out, part_o, part_lse,
        scale * math.log2(math.e),
        q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        block_table.stride(0), splits,
        GROUP=group, GROUP_PAD=max(16, triton.next_power_of_2(pack * group)), HEAD_DIM=d, KV_PACK=pack,
        PAGE=s, BLOCK_N=block_n, ONE_SPLIT=one, DOT_PRECISION="ieee" if q.dtype == torch.float32 else "tf32",
        num_warps=num_warps, num_stages=num_stages)
    if not one:
        _paged_decode_merge_kernel[(b * hq,)](part_o, part_lse, out, splits, HEAD_DIM=d,
                                              BLOCK_S=triton.next_power_of_2(splits), num_warps=4)
    return out


def paged_decode_triton(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale)
    return _triton_launch(q, k_cache, v_cache, block_table, seq_lens, default_scale(q.shape[-1], scale))


# --- rung 4: CUDA C++ ---------------------------------------------------------------------------
@functools.cache
def _cuda_ops():
    from grading.cuda import load_kernel
    return load_kernel("paged_decode", REPO / "csrc" / "paged_decode.cu", fake={
        "paged_decode": lambda q, k_cache, v_cache, block_table, seq_lens, scale, num_splits: q.new_empty(q.shape),
    })


def _cuda_plan(q_heads: int, kv_heads: int, head_dim: int, itemsize: int) -> tuple[int, int, int]:
    """The CUDA kernel's grid per (sequence, split) and its occupancy: (blocks per sequence and
    split, tokens per round of a block, blocks resident per SM). A block takes G = 1, 2, 4 or 8
    query heads of one kv head (larger groups take several blocks). In 16 bits with G >= 4 or
    D = 64 the tensor-core kernel runs (csrc/paged_decode.cu, kUseMma): 4 warps of 16-token tiles."""
    group = q_heads // kv_heads
    g = 1 if group <= 1 else 2 if group <= 2 else 4 if group <= 4 else 8
    blocks = kv_heads * triton.cdiv(group, g)
    if itemsize == 2 and (g >= 4 or head_dim == 64):
        # ptxas, sm_90a: 167 registers at D = 128, 120 at D = 64; rings of 96 and 48 KB.
        return blocks, 64, 2 if head_dim == 128 else 4
    tile = 16384 // (2 * head_dim * itemsize)  # 32 tokens at D = 128 bf16
    # ptxas, sm_90a: 64 KB of ring a block, so 3 fit in 228 KB; the CUDA-core kernel takes at most
    # 146 registers a thread where it runs.
    return blocks, tile, 3


def _cuda_launch(q, k_cache, v_cache, block_table, seq_lens, scale, *, num_splits=None):
    b, hq, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    # The Triton rung's split model with the CUDA kernel's grid: its splits are whole tiles too.
    blocks, tile, per_sm = _cuda_plan(hq, hkv, d, q.element_size())
    splits = num_splits or num_splits_for(b, blocks, block_table.shape[1] * s, _num_sms(q.device.index), tile,
                                          per_sm=per_sm)
    return _cuda_ops().paged_decode(q, k_cache, v_cache, block_table, seq_lens, scale, splits)


def paged_decode_cuda(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale)
    return _cuda_launch(q, k_cache, v_cache, block_table, seq_lens, default_scale(q.shape[-1], scale))
