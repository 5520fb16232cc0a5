"""paged_decode: one decode step of attention over a paged KV cache, with grouped-query heads.

    paged_decode(q[B, Hq, D], k_cache[P, S, Hkv, D], v_cache[P, S, Hkv, D],
                 block_table[B, max_pages] int32, seq_lens[B] int32, scale=None) -> out[B, Hq, D]

Sequence b's token t lives in page block_table[b, t // S] at slot t % S; query head h reads kv
head h // (Hq // Hkv); scale defaults to 1/sqrt(D). Slots past seq_lens[b] are garbage, and so are
the pages no table names. The cache is what vLLM-class servers keep: fixed-size pages handed out
from a free list, so a sequence's tokens are scattered over the pool (grading/kv_cache.py).

Memory-bound: every (token, kv head) K and V row is read once, 2·D·elem bytes, against 4·D FLOPs
per query head that reads it (q·k and p·v). With 32 query / 8 kv heads that is 4 query heads per
row: 4·4·D FLOPs per 4·D bytes (bf16), 4 FLOP/byte, far left of any GPU's ridge point. Llama-3
8B: Hq = 32, Hkv = 8, D = 128; 70B: 64 / 8.

The contract the reference kernels accept (every rung checks it with `check_paged_decode_inputs`):
- q: [B, Hq, D], fp32, fp16 or bf16, last dimension contiguous (a per-head view of a fused qkv
  projection, with a larger row stride, is fine).
- k_cache, v_cache: [P, S, Hkv, D], q's dtype and device, last dimension contiguous. The page and
  slot strides are free: k and v may be the two halves of one [P, 2, S, Hkv, D] tensor.
- block_table: [B, max_pages] int32, last dimension contiguous; entries past a sequence's last
  page are never read. seq_lens: [B] int32, each in [1, max_pages · S].
- D in {64, 128}; Hq a multiple of Hkv; scale None or a number.
The values of block_table and seq_lens are not checked: that would need a device-to-host copy,
a synchronization, in every call of a kernel whose whole budget is a few microseconds.
- Output: a new contiguous [B, Hq, D] tensor in q's dtype.

Tolerances are the defaults of grading.spec per output dtype: fp32 rel L2 1e-5, fp16 5e-3,
bf16 1e-2. A correct kernel keeps the scores, the softmax and the accumulation in fp32; rounding
the probabilities to the input dtype before the p·v product (what tensor cores take) costs one
rounding per weight, well inside them.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from grading.spec import Case, KernelSpec, expect_same, expect_tensor, memory_bound_tiers
from grading.spec import randn as spec_randn

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
HEAD_DIMS = (64, 128)
PAGE_SIZES = (16, 64)
# Garbage in unused slots and pages: large enough that a kernel which attends to it, even with a
# tiny weight, is off by orders of magnitude. Random signs, so that for any query half the garbage
# keys win the softmax. fp16 gets 1e3: a garbage logit q·k·scale (std ~1e3) then still fits in
# fp16 (65504) inside SDPA backends that keep scores in the input dtype before masking them,
# where inf + (-inf) would be NaN.
GARBAGE = {torch.float32: 1e4, torch.bfloat16: 1e4, torch.float16: 1e3}
# Queries scaled so that logits have a standard deviation of 40: their maximum over a few hundred
# tokens passes 88.7, where exp overflows fp32. A softmax without the max subtraction gives inf/inf.
LARGE_LOGITS_Q = 40.0
# ...and their absolute tolerance in fp32 is this many times the default 1e-5. A logit near its
# maximum (~140) carries fp32 rounding of ~1e-5, and the dot product that makes it, 128 terms of
# ~±10, adds ~2e-5 more; a softmax weight moves by that much relatively, and the output with it.
# Correct fp32 kernels that sum in different orders land 1-2e-5 apart: an H200 run had one at
# 1.8e-5. A kernel that mishandles the maximum is off by O(1), or NaN.
LARGE_LOGITS_FP32_ATOL = 8.0


# --- the input contract ---------------------------------------------------------------------------

def check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale) -> None:
    """Raise a TypeError/ValueError naming the argument unless the call is one the kernels accept."""
    expect_tensor(q, "q", dtypes=DTYPES, ndim=3, last_dim_contiguous=True)
    expect_tensor(k_cache, "k_cache", dtypes=DTYPES, ndim=4, last_dim_contiguous=True)
    expect_tensor(v_cache, "v_cache", dtypes=DTYPES, ndim=4, last_dim_contiguous=True)
    expect_same(q, k_cache, "q", "k_cache", shape=False)
    expect_same(k_cache, v_cache, "k_cache", "v_cache")
    b, hq, d = q.shape
    _, s, hkv, dk = k_cache.shape
    if d not in HEAD_DIMS:
        raise ValueError(f"q: head dimension D = {d} is not supported; expected one of {HEAD_DIMS}")
    if dk != d:
        raise ValueError(f"k_cache: expected head dimension {d} (the last dimension of q), got shape "
                         f"{tuple(k_cache.shape)}")
    if hkv == 0 or hq % hkv:
        raise ValueError(f"q: {hq} query heads is not a multiple of the {hkv} kv heads of k_cache "
                         f"{tuple(k_cache.shape)}")
    if s == 0:
        raise ValueError(f"k_cache: the page size (dimension 1) must be at least 1, got shape {tuple(k_cache.shape)}")
    expect_tensor(block_table, "block_table", dtypes=(torch.int32,), ndim=2, last_dim_contiguous=True)
    expect_tensor(seq_lens, "seq_lens", dtypes=(torch.int32,), ndim=1)
    for name, t in (("block_table", block_table), ("seq_lens", seq_lens)):
        if t.device != q.device:
            raise ValueError(f"{name}: expected the device of q ({q.device}), got {t.device}")
    if block_table.shape[0] != b:
        raise ValueError(f"block_table: expected {b} rows (the batch of q {tuple(q.shape)}), got shape "
                         f"{tuple(block_table.shape)}")
    if seq_lens.shape[0] != b:
        raise ValueError(f"seq_lens: expected shape ({b},) (the batch of q {tuple(q.shape)}), got "
                         f"{tuple(seq_lens.shape)}")
    if b and block_table.shape[1] == 0:
        raise ValueError("block_table: expected at least one column (one page per sequence)")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        raise TypeError(f"scale: expected a float or None, got {type(scale).__name__}")


def default_scale(d: int, scale: float | None) -> float:
    return 1.0 / math.sqrt(d) if scale is None else float(scale)


# --- reference (float64) --------------------------------------------------------------------------

def paged_decode_ref(q, k_cache, v_cache, block_table, seq_lens, scale=None) -> torch.Tensor:
    """Plain float64 attention, one sequence at a time, the pages looked up one by one."""
    b, hq, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    group = hq // hkv
    scale = default_scale(d, scale)
    out = torch.empty(b, hq, d, dtype=torch.float64, device=q.device)
    lens = seq_lens.tolist()
    for i in range(b):
        n = lens[i]
        pages = block_table[i, : -(-n // s)].long()
        k = k_cache[pages].reshape(-1, hkv, d)[:n].double()  # [n, Hkv, D]
        v = v_cache[pages].reshape(-1, hkv, d)[:n].double()
        k = k.repeat_interleave(group, dim=1)  # [n, Hq, D]: query head h reads kv head h // group
        v = v.repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,nhd->hn", q[i].double(), k) * scale  # [Hq, n]
        out[i] = torch.einsum("hn,nhd->hd", torch.softmax(scores, dim=-1), v)
    return out


# --- baselines (timed beside the rungs by `python -m grading bench`) --------------------------------

def unpaged_inputs(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The same attention as one contiguous cache per sequence, [B, Hkv, L, D]: what a server without
    paging would keep (and must reserve for the longest sequence). Built once, outside the timed
    region; ragged lengths get a padding mask."""
    q, k_cache, v_cache, block_table, seq_lens = args
    scale = kwargs.get("scale")
    b, hq, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    lens = seq_lens.tolist()
    longest = max(lens)
    pages = block_table[:, : -(-longest // s)].long()
    k = k_cache[pages].reshape(b, -1, hkv, d)[:, :longest].transpose(1, 2).contiguous()  # [B, Hkv, L, D]
    v = v_cache[pages].reshape(b, -1, hkv, d)[:, :longest].transpose(1, 2).contiguous()
    mask = None
    if min(lens) != longest:
        mask = (torch.arange(longest, device=q.device) < seq_lens[:, None])[:, None, None, :]  # [B, 1, 1, L]
    return (q[:, :, None, :], k, v, mask), {"scale": default_scale(d, scale)}


def paged_decode_sdpa_unpaged(q4, k, v, mask, scale):
    """SDPA on the contiguous cache of `unpaged_inputs`: q4 [B, Hq, 1, D], k and v [B, Hkv, L, D]."""
    return F.scaled_dot_product_attention(q4, k, v, attn_mask=mask, scale=scale, enable_gqa=True)[:, :, 0]


# --- inputs and cases -----------------------------------------------------------------------------

def seq_lengths(params: dict) -> list[int]:
    return list(params["lens"]) if "lens" in params else [params["context"]] * params["batch"]


def make_inputs(params: dict, dtype: torch.dtype, gen: torch.Generator, device) -> tuple[tuple, dict]:
    lens = seq_lengths(params)
    b = len(lens)
    hq, hkv = params["heads"]
    d, s = params["head_dim"], params["page"]
    device = torch.device(device)
    pages_of = [-(-n // s) for n in lens]
    # shared_prefix: the first pages of sequence 0 are also the first pages of every other sequence
    # (one system prompt, cached once); they are full pages, and every sequence is longer.
    shared = params.get("shared_prefix", 0)
    own = [n - (shared if i else 0) for i, n in enumerate(pages_of)]
    used = sum(own)
    pool = used + 2 + used // 64  # a few pages no table names: garbage a kernel must not read
    width = max(pages_of) + params.get("spare_columns", 0)

    # The allocator's order: pages handed out in a shuffled order, as after a server has run a while.
    order = torch.randperm(pool, generator=gen)
    unused = order[used:]
    table = torch.empty(b, width, dtype=torch.int64)
    table[:] = unused[0]  # columns past a sequence's pages name a garbage page
    nxt = 0
    for i in range(b):
        start = shared if i else 0
        if start:
            table[i, :start] = table[0, :start]
        table[i, start:pages_of[i]] = order[nxt:nxt + own[i]]
        nxt += own[i]

    def randn(*shape):  # from the CPU generator below HOST_RNG_MAX values (grading/spec.py)
        return spec_randn(shape, gen, device, dtype)

    if params.get("layout") == "kv_fused":
        # One [P, 2, S, Hkv, D] tensor, k and v its two halves (FlashInfer's layout): the page
        # stride is twice a page.
        kv = randn(pool, 2, s, hkv, d)
        k_cache, v_cache = kv[:, 0], kv[:, 1]
    else:
        k_cache, v_cache = randn(pool, s, hkv, d), randn(pool, s, hkv, d)
    # Garbage: every page no sequence owns, and each sequence's last page past its length.
    garbage_pages = unused.to(device)
    for cache in (k_cache, v_cache):
        g = torch.randn(len(unused), s, hkv, d, generator=gen) * GARBAGE[dtype]
        cache[garbage_pages] = g.to(device=device, dtype=dtype)
        for i, n in enumerate(lens):
            if n % s:
                tail = torch.randn(s - n % s, hkv, d, generator=gen) * GARBAGE[dtype]
                cache[int(table[i, pages_of[i] - 1]), n % s:] = tail.to(device=device, dtype=dtype)

    qscale = LARGE_LOGITS_Q if params.get("values") == "large_logits" else 1.0
    if params.get("layout") == "q_strided":
        # q as the per-head view of a fused qkv projection's output, [B, Hq + 2 Hkv, D]: row
        # stride (Hq + 2 Hkv) · D.
        q = (torch.randn(b, hq + 2 * hkv, d, generator=gen) * qscale).to(device=device, dtype=dtype)[:, :hq]
    else:
        q = (torch.randn(b, hq, d, generator=gen) * qscale).to(device=device, dtype=dtype)
    block_table = table.to(device=device, dtype=torch.int32)
    seq_lens = torch.tensor(lens, dtype=torch.int32, device=device)
    kwargs = {"scale": params["scale"]} if "scale" in params else {}
    return (q, k_cache, v_cache, block_table, seq_lens), kwargs


def _case(name: str, dtype: torch.dtype, lens: list[int], heads=(4, 1), head_dim: int = 64, page: int = 16,
          **extra) -> Case:
    scale = LARGE_LOGITS_FP32_ATOL if extra.get("values") == "large_logits" and dtype == torch.float32 else 1.0
    return Case(name, {"lens": lens, "heads": list(heads), "head_dim": head_dim, "page": page, **extra}, dtype,
                scale=scale)


def cases(quick: bool) -> list[Case]:
    out = []
    # CPU mode: fp32 and fp16 only. Triton's interpreter gets tl.dot wrong on bf16 (DESIGN.md,
    # "CPU mode"), so bf16 is checked on a GPU. Tiny shapes keep the interpreter quick; long
    # enough sequences that the Triton rung splits them (it sees 4 SMs in CPU mode).
    for dtype in ((torch.float32, torch.float16) if quick else DTYPES):
        # Ragged: a single token, exactly one and exactly two full pages, a partly filled last page.
        out.append(_case("ragged", dtype, [1, 16, 37, 32, 5], heads=(4, 1)))
        out.append(_case("ragged", dtype, [70, 3, 64], heads=(4, 4), page=16))
        out.append(_case("ragged", dtype, [129, 1, 64], heads=(8, 2), head_dim=128, page=64))
        out.append(_case("large logits", dtype, [200, 57], heads=(4, 2), values="large_logits"))
        out.append(_case("kv halves of one tensor", dtype, [40, 17], heads=(4, 2), layout="kv_fused"))
        out.append(_case("q from a fused qkv", dtype, [23, 48], heads=(8, 2), head_dim=128, layout="q_strided"))
        out.append(_case("shared prefix, spare columns", dtype, [50, 40, 33], heads=(4, 1),
                         shared_prefix=2, spare_columns=2))
        out.append(_case("explicit scale", dtype, [30, 12], heads=(4, 2), scale=0.3))
        if not quick:
            # Every grouping and page size of the bench at real head sizes, ragged, long enough to
            # split; Hq / Hkv = 3 and 16 for launchers that pad the group.
            for heads in ((32, 8), (32, 32), (64, 8)):
                for d in HEAD_DIMS:
                    for page in PAGE_SIZES:
                        out.append(_case("llama heads", dtype, [1, 777, 2048, 64, 4099], heads=heads,
                                         head_dim=d, page=page))
            out.append(_case("odd group", dtype, [300, 1000], heads=(12, 4), head_dim=128))
            out.append(_case("group of 16", dtype, [513, 90], heads=(32, 2), head_dim=128))
            out.append(_case("long", dtype, [32768], heads=(32, 8), head_dim=128))
            out.append(_case("large logits", dtype, [1, 4096, 333], heads=(32, 8), head_dim=128,
                             values="large_logits"))
            out.append(_case("wide batch", dtype, [17 + 61 * i for i in range(37)], heads=(32, 8), head_dim=128,
                             layout="kv_fused"))
    return out


def _bench(batch: int, context: int, heads=(32, 8), head_dim: int = 128, page: int = 16) -> Case:
    return Case("decode", {"batch": batch, "context": context, "heads": list(heads), "head_dim": head_dim,
                           "page": page}, torch.bfloat16)


def bench_cases() -> list[Case]:
    # Llama-3 8B attention (32 query / 8 kv heads, D = 128), pages of 16 tokens: one long
    # sequence, a few, and serving batches; then one knob at a time at 64 × 4096: no GQA (32/32),
    # 70B's grouping (64/8), D = 64, pages of 64.
    out = [_bench(b, n) for b, n in ((1, 4096), (1, 32768), (16, 4096), (64, 4096), (64, 16384), (256, 2048))]
    out += [_bench(64, 4096, heads=(32, 32)), _bench(64, 4096, heads=(64, 8)), _bench(64, 4096, head_dim=64),
            _bench(64, 4096, page=64)]
    return out


def speed_cases() -> list[Case]:
    # The serving shapes: 1.1, 4.3 and 1.1 GB of KV, 250-1000 µs at the H200's SOL.
    return [_bench(64, 4096), _bench(64, 16384), _bench(256, 2048)]


def kv_bytes(case: Case) -> float:
    hkv, d = case.params["heads"][1], case.params["head_dim"]
    return 2.0 * sum(seq_lengths(case.params)) * hkv * d * case.dtype.itemsize


def _flops(case: Case) -> float:
    hq, d = case.params["heads"][0], case.params["head_dim"]
    return 4.0 * hq * d * sum(seq_lengths(case.params))


def _bytes(case: Case) -> float:
    # K and V rows read once, q read and out written once (the int32 tables are noise).
    b, hq, d = len(seq_lengths(case.params)), case.params["heads"][0], case.params["head_dim"]
    return kv_bytes(case) + 2.0 * b * hq * d * case.dtype.itemsize


SPEC = KernelSpec(
    name="paged_decode",
    signature=("paged_decode(q[B, Hq, D], k_cache[P, S, Hkv, D], v_cache[P, S, Hkv, D], "
               "block_table[B, max_pages] int32, seq_lens[B] int32, scale=None) -> out[B, Hq, D]"),
    module="paged_decode",
    chapter="03_paged_decode",
    reference=paged_decode_ref,
    make_inputs=make_inputs,
    cases=cases,
    bench_cases=bench_cases,
    speed_cases=speed_cases,
    flops=_flops,
    bytes_moved=_bytes,
    math_dtype=lambda c: "bf16",
    speed_tiers=memory_bound_tiers(),
    baselines={"SDPA, unpaged cache": "grading/specs/paged_decode.py:paged_decode_sdpa_unpaged"},
    baseline_inputs={"SDPA, unpaged cache": unpaged_inputs},
    description="One decode step of attention over a paged KV cache, grouped-query heads; memory-bound.",
)
