"""Chapter 03's lessons (paged-attention decode): what the page table looks like, what the gather
path moves and pads, how flash-decoding splits the work. The notebook
chapters/03_paged_decode imports these; tests/test_paged_decode.py and the notebook run check them.
Generic helpers (op traffic, side-by-side timing, the scoreboard) stay in grading/lessons.py.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import torch

from grading.kv_cache import PagedKVCache
from grading.spec import Case
from grading.specs.paged_decode import SPEC, make_inputs


def page_map(cache: PagedKVCache, width: int = 64) -> str:
    """One character per page of the pool: the owning sequence's id (0-9, then a-z), '.' if free."""
    owner = ["."] * cache.num_pages
    for seq in cache.sequences:
        for p in cache.pages(seq):
            owner[p] = "0123456789abcdefghijklmnopqrstuvwxyz"[seq % 36]
    rows = ["".join(owner[i:i + width]) for i in range(0, cache.num_pages, width)]
    return "\n".join(f"pages {i * width:>5}: {r}" for i, r in enumerate(rows))


@dataclasses.dataclass
class GatherCost:
    """What the gather path (eager rung) moves for one call, against a kernel that reads K/V once."""

    kv_needed: float    # bytes of K and V the sequences hold
    kv_gathered: float  # bytes the gather copies: every sequence padded to the table width
    moved: float        # gather read + write, then the attention reads the copy

    @property
    def padding(self) -> float:
        return 1.0 - self.kv_needed / self.kv_gathered

    def __str__(self) -> str:
        return (f"K/V the sequences hold: {self.kv_needed / 1e6:,.1f} MB; gathered (padded to the table "
                f"width): {self.kv_gathered / 1e6:,.1f} MB, {100 * self.padding:.0f}% padding; moved by "
                f"gather + SDPA: {self.moved / 1e6:,.1f} MB = {self.moved / self.kv_needed:.1f}× what a paged "
                f"kernel reads")


def gather_cost(lens: Sequence[int], kv_heads: int, head_dim: int, page: int, itemsize: int = 2,
                width: int | None = None) -> GatherCost:
    pages = [-(-n // page) for n in lens]
    width = max(pages) if width is None else width
    per_token = 2 * kv_heads * head_dim * itemsize  # a K row and a V row
    needed = sum(lens) * per_token
    gathered = len(lens) * width * page * per_token
    return GatherCost(needed, gathered, 3 * gathered)


def split_plan(shapes: Sequence[tuple[int, int]], kv_heads: int = 8, sms: int = 132, block_n: int = 64,
               min_tokens: int = 256) -> str:
    """A Markdown table: for each batch × context, the programs one per (sequence, kv head) gives,
    the split count the reference launcher picks, and the programs and tokens per program then."""
    from solutions.paged_decode import num_splits_for
    lines = ["| B × L | programs, no split | per SM | splits | programs | per SM | tokens per program |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for b, n in shapes:
        base = b * kv_heads
        s = num_splits_for(b, kv_heads, n, sms, block_n, min_tokens)
        lines.append(f"| {b}×{n} | {base:,} | {base / sms:.2f} | {s} | {base * s:,} | {base * s / sms:.1f} | "
                     f"{-(-n // s):,} |")
    return "\n".join(lines)


def decode_case(batch: int, context: int, heads=(32, 8), head_dim: int = 128, page: int = 16,
                dtype: torch.dtype = torch.bfloat16) -> Case:
    return Case("decode", {"batch": batch, "context": context, "heads": list(heads), "head_dim": head_dim,
                           "page": page}, dtype)


def decode_args(shape: tuple[int, int], heads=(32, 8), head_dim: int = 128, page: int = 16,
                dtype: torch.dtype = torch.bfloat16, device="cuda", seed: int = 0) -> tuple:
    """(q, k_cache, v_cache, block_table, seq_lens) for B × L = shape: shuffled pages, garbage in
    the unused ones, as the grader builds them."""
    args, _ = make_inputs(decode_case(*shape, heads, head_dim, page, dtype).params, dtype,
                          torch.Generator().manual_seed(seed), device)
    return args


def kv_bytes(shape: tuple[int, int], heads=(32, 8), head_dim: int = 128, page: int = 16,
             dtype: torch.dtype = torch.bfloat16) -> float:
    """The spec's minimum traffic for B × L: K/V read once, q read, out written."""
    return SPEC.bytes_moved(decode_case(*shape, heads, head_dim, page, dtype))


def unpaged_sdpa():
    """SDPA on an unpaged, contiguous copy of the cache (the spec's baseline), for side-by-side
    timing with the paged rungs: the copy is made at the first call with each input set and reused,
    so the calls that are timed measure the attention alone, as `python -m grading bench` does."""
    from grading.specs.paged_decode import paged_decode_sdpa_unpaged, unpaged_inputs
    memo: dict[tuple, tuple] = {}

    def sdpa_unpaged(q, k_cache, v_cache, block_table, seq_lens):
        key = (q.data_ptr(), k_cache.data_ptr(), v_cache.data_ptr(), block_table.data_ptr(), tuple(q.shape))
        if key not in memo:
            memo[key] = unpaged_inputs((q, k_cache, v_cache, block_table, seq_lens), {})
        args, kwargs = memo[key]
        return paged_decode_sdpa_unpaged(*args, **kwargs)

    return sdpa_unpaged
