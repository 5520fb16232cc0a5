"""Broken paged_decode implementations, each with one defect the grader must reject.

Plain PyTorch, so they run anywhere; each defect is one a real decode kernel can have.
"""
import math

import torch


def _attend(q, k_cache, v_cache, block_table, seq_lens, scale=None, *, pages_in_order=False,
            head_of=lambda h, group, hkv: h // group, length=lambda n, s: n, stable=True, default_scale=None):
    b, hq, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    group = hq // hkv
    scale = (default_scale or 1.0 / math.sqrt(d)) if scale is None else scale
    out = torch.empty(b, hq, d, dtype=torch.float32, device=q.device)
    lens = seq_lens.tolist()
    first = 0
    for i in range(b):
        n = length(lens[i], s)
        n_pages = -(-lens[i] // s)
        if pages_in_order:  # as if sequence i's pages followed sequence i - 1's in the pool
            pages = torch.arange(first, first + n_pages, device=q.device) % k_cache.shape[0]
        else:
            pages = block_table[i, :n_pages].long()
        first += n_pages
        k = k_cache[pages].reshape(-1, hkv, d)[:n].float()  # [n, Hkv, D]
        v = v_cache[pages].reshape(-1, hkv, d)[:n].float()
        kv_head = torch.tensor([head_of(h, group, hkv) for h in range(hq)], device=q.device)
        scores = torch.einsum("hd,nhd->hn", q[i].float(), k[:, kv_head]) * scale  # [Hq, n]
        if stable:
            p = torch.softmax(scores, dim=-1)
        else:
            e = scores.exp()  # no max subtraction: exp(89) is inf in fp32
            p = e / e.sum(-1, keepdim=True)
        out[i] = torch.einsum("hn,nhd->hd", p, v[:, kv_head])
    return out.to(q.dtype)


def correct(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale)


def ignores_block_table(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale, pages_in_order=True)


def wrong_head_mapping(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    # query head h reads kv head h % Hkv (interleaved groups) instead of h // (Hq / Hkv)
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale, head_of=lambda h, group, hkv: h % hkv)


def attends_past_length(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    # the whole last page, garbage slots included
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale, length=lambda n, s: -(-n // s) * s)


def off_by_one_length(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    # drops the newest token (a `<` where `<=` was meant); a sequence of one token attends to nothing
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale, length=lambda n, s: n - 1)


def missing_scale(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale, default_scale=1.0)


def ignores_scale_argument(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    return _attend(q, k_cache, v_cache, block_table, seq_lens)


def unstable_softmax(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale, stable=False)


def cleans_the_cache(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    # zeroes the garbage past each sequence's length first: right answer, but it writes its input
    s = k_cache.shape[1]
    for i, n in enumerate(seq_lens.tolist()):
        if n % s:
            page = int(block_table[i, (n - 1) // s])
            k_cache[page, n % s:] = 0
            v_cache[page, n % s:] = 0
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale)


_last = {}


def caches_by_shape(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    # reuses the answer of an earlier call with the same shapes (a stale decode step)
    key = (tuple(q.shape), tuple(k_cache.shape), q.dtype)
    if key not in _last:
        _last[key] = _attend(q, k_cache, v_cache, block_table, seq_lens, scale)
    return _last[key].clone()


def returns_fp32(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    return _attend(q, k_cache, v_cache, block_table, seq_lens, scale).float()
