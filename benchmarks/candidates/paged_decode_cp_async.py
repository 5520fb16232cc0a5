"""A candidate for the CUDA rung of paged_decode, not yet run on a GPU: paged_decode_cp_async.cu.

The reference CUDA kernel (csrc/paged_decode.cu) is correct on an H200 but reads the KV cache at
24-62% of the copy bandwidth (benchmarks/h200_session3/paged_decode_bench.md): the bytes it keeps
in flight are bounded by registers, each iteration waits on its block-table load before its K/V
loads, and its dot products cost 4 shuffles per query head per pair of rows. The candidate keeps
the launch shape, the merge kernel and the contract, and changes the split kernel: a 4-stage
cp.async ring of 16 KB K+V tiles in shared memory (three tiles in flight per block, no registers
held), page numbers looked up a tile ahead, and a reduce-scatter butterfly across the group's
query heads (one shuffle per partial sum instead of four per head). Its header has the napkin math.

Grade it like a student's file, on a GPU:

    python -m grading check paged_decode --rung cuda --impl benchmarks/candidates/paged_decode_cp_async.py:paged_decode_cuda

To promote it once it passes and is faster in the same run: copy the .cu over csrc/paged_decode.cu
and apply paged_decode_cp_async.patch (the split count's tile in solutions/paged_decode.py and
chapter 03's notebook prose and excerpt markers).
"""
from __future__ import annotations

import functools
from pathlib import Path

from grading.specs.paged_decode import check_paged_decode_inputs, default_scale
from solutions.paged_decode import _num_sms, num_splits_for

HERE = Path(__file__).resolve().parent


@functools.cache
def _ops():
    from grading.cuda import load_kernel
    return load_kernel("paged_decode", HERE / "paged_decode_cp_async.cu", fake={
        "paged_decode": lambda q, k_cache, v_cache, block_table, seq_lens, scale, num_splits: q.new_empty(q.shape),
    })


def paged_decode_cuda(q, k_cache, v_cache, block_table, seq_lens, scale=None):
    check_paged_decode_inputs(q, k_cache, v_cache, block_table, seq_lens, scale)
    b, _, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    tile = 16384 // (2 * d * q.element_size())  # tokens per 16 KB K+V tile: splits are whole tiles
    splits = num_splits_for(b, hkv, block_table.shape[1] * s, _num_sms(q.device.index), tile)
    return _ops().paged_decode(q, k_cache, v_cache, block_table, seq_lens, default_scale(d, scale), splits)
