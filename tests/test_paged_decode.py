"""paged_decode: the grader rejects each broken variant with the right diagnosis, the reference rungs
pass, the Triton split and merge paths agree at every split count, the kernels reject bad input
naming the argument, and the paged KV-cache manager keeps its pages straight."""
import functools
from pathlib import Path

import pytest
import torch

from grading import check, env
from grading.grade import grade_impl
from grading.impls import ImplRef, import_file
from grading.kv_cache import OutOfPages, PagedKVCache
from grading.specs import get_spec
from grading.specs.paged_decode import make_inputs, paged_decode_ref

REPO = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).parent / "broken" / "paged_decode_broken.py"
SPEC = get_spec("paged_decode")
DEV = torch.device(env.DEVICE)  # CPU mode: the CPU, Triton in its interpreter


def _ref_close(out, ref, dtype=torch.float32):
    check.compare(out, ref, SPEC.tolerance(dtype))


# --- the grader on broken implementations ---------------------------------------------------------
# In-process (check.check_impl, what the worker runs): the defects are in the math, and the worker
# plumbing is covered by one isolated run below and by tests/test_grader_catches.py.

@functools.cache
def _check(func: str):
    fn = getattr(import_file(BROKEN), func)
    return check.check_impl(fn, SPEC, SPEC.cases(True), 1234, DEV)


def test_correct_one_passes():
    results = _check("correct")
    assert all(r.passed for r in results), [r.message for r in results if not r.passed]


# (broken function, the case that shows the defect, what its diagnosis must say)
DEFECTS = [
    ("ignores_block_table", "ragged", "out of tolerance"),
    ("wrong_head_mapping", "ragged [lens=[129, 1, 64], heads=[8, 2]", "out of tolerance"),
    ("attends_past_length", "ragged [lens=[1, 16, 37, 32, 5]", "out of tolerance"),
    ("off_by_one_length", "ragged [lens=[1, 16, 37, 32, 5]", "out of tolerance"),
    ("missing_scale", "ragged", "out of tolerance"),
    ("ignores_scale_argument", "explicit scale", "out of tolerance"),
    ("unstable_softmax", "large logits", "NaN/inf"),
    ("cleans_the_cache", "ragged", "argument 1 was modified by the call"),
    ("caches_by_shape", "ragged", "must not be cached"),
    ("returns_fp32", "ragged", "expected dtype float16, got float32"),
]


@pytest.mark.parametrize("func, case, expected", DEFECTS, ids=[d[0] for d in DEFECTS])
def test_defect_is_rejected_with_diagnosis(func, case, expected):
    bad = [r for r in _check(func) if not r.passed and r.case.startswith(case)]
    assert bad, f"{func}: no failing case starting with {case!r}"
    assert expected in bad[0].message, bad[0].message
    assert "seed" in bad[0].message


def test_broken_kernel_is_rejected_through_the_worker():
    rep = grade_impl(SPEC, ImplRef(str(BROKEN), "ignores_block_table", None, "ignores_block_table"), seed=7)
    assert rep.failure is None, rep.failure
    assert rep.status == check.FAIL
    assert rep.n_passed == 0


# --- the reference rungs ------------------------------------------------------------------------

def _sol():
    from solutions import paged_decode as sol
    return sol


@pytest.mark.parametrize("rung", ["eager", "triton"])
def test_solution_passes_every_cpu_case(rung):
    results = check.check_impl(getattr(_sol(), f"paged_decode_{rung}"), SPEC, SPEC.cases(True), 99, DEV, rung=rung)
    assert all(r.passed for r in results), [f"{r.case}: {r.message}" for r in results if not r.passed]


def test_compiled_solution_passes():
    # A few cases only: every new shape or dtype is a torch.compile on the CPU.
    cases = [c for c in SPEC.cases(True) if c.dtype == torch.float32][:3]
    results = check.check_impl(_sol().paged_decode_compiled, SPEC, cases, 5, DEV)
    assert all(r.passed for r in results), [r.message for r in results if not r.passed]


def _inputs(lens, heads=(8, 2), d=64, page=16, dtype=torch.float32, seed=0, **extra):
    params = {"lens": lens, "heads": list(heads), "head_dim": d, "page": page, **extra}
    return make_inputs(params, dtype, torch.Generator().manual_seed(seed), DEV)


@pytest.mark.parametrize("splits", [1, 2, 3, 7, 40])
def test_triton_split_counts_agree(splits):
    # 40 splits of a 200-token sequence leave most splits of the short ones empty (lse = -inf).
    sol = _sol()
    (q, k, v, bt, lens), kw = _inputs([200, 1, 33, 64])
    out = sol._triton_launch(q, k, v, bt, lens, 0.125, num_splits=splits)
    _ref_close(out, paged_decode_ref(q, k, v, bt, lens, scale=0.125))


@pytest.mark.parametrize("block_n", [16, 32, 64])
def test_triton_tiles_across_and_within_pages(block_n):
    sol = _sol()
    (q, k, v, bt, lens), _ = _inputs([100, 37], page=32, dtype=torch.float16)
    out = sol._triton_launch(q, k, v, bt, lens, 0.125, block_n=block_n, num_splits=2)
    check.compare(out, paged_decode_ref(q, k, v, bt, lens, scale=0.125), SPEC.tolerance(torch.float16))


@pytest.mark.parametrize("pack", [1, 2])
def test_triton_kv_pack_agrees(pack):
    # D = 64: two adjacent kv heads per program by default; one per program gives the same answer.
    sol = _sol()
    (q, k, v, bt, lens), _ = _inputs([100, 37, 5], heads=(8, 4), d=64, dtype=torch.float16)
    out = sol._triton_launch(q, k, v, bt, lens, 0.125, kv_pack=pack, num_splits=2)
    check.compare(out, paged_decode_ref(q, k, v, bt, lens, scale=0.125), SPEC.tolerance(torch.float16))


def test_kv_pack_needs_adjacent_pairs_of_heads():
    sol = _sol()
    k = torch.randn(4, 16, 4, 64)
    assert sol._kv_pack(k, k) == 2
    assert sol._kv_pack(k[:, :, :3], k[:, :, :3]) == 1        # an odd count of kv heads
    assert sol._kv_pack(k[:, :, ::2], k[:, :, ::2]) == 1      # heads not adjacent
    assert sol._kv_pack(torch.randn(4, 16, 4, 128), torch.randn(4, 16, 4, 128)) == 1


def test_split_heuristic_on_an_h200():
    # Triton: 4 programs resident per SM, 528 slots; tiles of 64 tokens.
    n = functools.partial(_sol().num_splits_for, sms=132, block_n=64, min_tokens=128)
    assert n(1, 8, 32768) == 64          # one long sequence: 512 programs of 8 tiles, one round
    assert n(1, 8, 4096) == 32           # never a split under 128 tokens
    assert n(16, 8, 4096) == 4           # 512 programs in one round, not 640 in two
    assert n(64, 8, 4096) == 1           # 512 programs already
    assert n(256, 8, 2048) == 1          # 2048 programs
    assert n(0, 8, 4096) >= 1
    # The CUDA rung: 3 blocks per SM (396 slots), tiles of 32 tokens.
    c = functools.partial(_sol().num_splits_for, sms=132, block_n=32, min_tokens=128, per_sm=3)
    assert c(1, 8, 32768) == 49          # 392 blocks: one round
    assert c(64, 8, 4096) == 3           # 1536 blocks, 3.9 rounds (2 splits: 2.6, the last 59% idle)
    assert c(256, 8, 2048) == 1          # 5.2 rounds: past lockstep, the tail is small


def test_cuda_plan():
    plan = _sol()._cuda_plan
    assert plan(32, 8, 128, 2) == (8, 64, 2)   # G = 4 in 16 bits: tensor cores, 96 KB of rings
    assert plan(32, 32, 128, 2) == (32, 32, 3)  # G = 1: CUDA cores, 16 KB tiles, 3 blocks per SM
    assert plan(64, 8, 128, 2) == (8, 64, 2)   # G = 8 in 16 bits: tensor cores, 96 KB of rings
    assert plan(32, 2, 128, 2) == (4, 64, 2)   # a group of 16: two blocks of 8 per kv head
    assert plan(32, 8, 64, 2) == (8, 64, 4)    # D = 64 in 16 bits: tensor cores, 48 KB of rings
    assert plan(32, 8, 64, 4) == (8, 32, 3)    # fp32: CUDA cores, 16 KB tiles of 32 tokens at D = 64
    assert plan(64, 8, 128, 4) == (8, 16, 3)   # fp32 at G = 8: CUDA cores


def test_empty_batch():
    sol = _sol()
    q, k = torch.randn(0, 8, 64), torch.randn(4, 16, 2, 64)
    bt, lens = torch.zeros(0, 1, dtype=torch.int32), torch.zeros(0, dtype=torch.int32)
    assert sol.paged_decode_triton(q, k, k, bt, lens).shape == (0, 8, 64)


# --- bad input is rejected, naming the argument ---------------------------------------------------

def _rungs():
    sol = _sol()
    return [sol.paged_decode_eager, sol.paged_decode_compiled, sol.paged_decode_triton, sol.paged_decode_cuda,
            sol.paged_decode_flex]


def test_bad_input_is_rejected_naming_the_argument():
    (q, k, v, bt, lens), _ = _inputs([20, 5])
    for fn in _rungs():
        with pytest.raises(TypeError, match="block_table: expected dtype int32; got int64"):
            fn(q, k, v, bt.long(), lens)
        with pytest.raises(TypeError, match="seq_lens: expected dtype int32; got int64"):
            fn(q, k, v, bt, lens.long())
        with pytest.raises(ValueError, match="q: 8 query heads is not a multiple of the 3 kv heads"):
            fn(q, torch.randn(4, 16, 3, 64), torch.randn(4, 16, 3, 64), bt, lens)
        with pytest.raises(ValueError, match=r"q: head dimension D = 80 is not supported; expected one of \(64, 128\)"):
            fn(torch.randn(2, 8, 80), torch.randn(4, 16, 2, 80), torch.randn(4, 16, 2, 80), bt, lens)
        with pytest.raises(ValueError, match="k_cache: expected head dimension 64"):
            fn(q, torch.randn(4, 16, 2, 128), torch.randn(4, 16, 2, 128), bt, lens)
        with pytest.raises(ValueError, match="q: expected 3 dimensions"):
            fn(q[:, None], k, v, bt, lens)
        with pytest.raises(TypeError, match="k_cache: expected the dtype of q"):
            fn(q, k.half(), v.half(), bt, lens)
        with pytest.raises(ValueError, match="v_cache: expected the shape of k_cache"):
            fn(q, k, v[:, :8], bt, lens)
        with pytest.raises(ValueError, match=r"seq_lens: expected shape \(2,\)"):
            fn(q, k, v, bt, lens[:1])
        with pytest.raises(ValueError, match="block_table: expected 2 rows"):
            fn(q, k, v, bt[:1], lens)
        with pytest.raises(ValueError, match="block_table: expected the device of q"):
            fn(q, k, v, bt.to("meta"), lens)
        with pytest.raises(ValueError, match="k_cache: the last dimension must be contiguous"):
            fn(q, k.transpose(2, 3), v.transpose(2, 3), bt, lens)
        with pytest.raises(TypeError, match="scale: expected a float or None"):
            fn(q, k, v, bt, lens, "0.1")


# --- the exercises --------------------------------------------------------------------------------

def test_exercise_stubs_say_not_implemented():
    ex = import_file(REPO / "chapters" / "03_paged_decode" / "exercises.py")
    (q, k, v, bt, lens), _ = _inputs([20, 5])
    with pytest.raises(NotImplementedError, match="paged_decode_triton"):
        ex.paged_decode_triton(q, k, v, bt, lens)
    with pytest.raises(NotImplementedError, match="KL_STUB_NOT_IMPLEMENTED"):
        ex.paged_decode_cuda(q, k, v, bt, lens)
    _ref_close(ex.paged_decode_eager(q, k, v, bt, lens), paged_decode_ref(q, k, v, bt, lens))


# --- the paged KV-cache manager -------------------------------------------------------------------

def _tokens(n, hkv=2, d=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, hkv, d, generator=g), torch.randn(n, hkv, d, generator=g)


def test_cache_appends_across_pages_and_gathers_back():
    cache = PagedKVCache(num_pages=8, page_size=16, num_kv_heads=2, head_dim=64, dtype=torch.float32)
    a = cache.add_sequence()
    k1, v1 = _tokens(10)
    k2, v2 = _tokens(30, seed=1)
    cache.append(a, k1, v1)
    assert cache.pages(a) == [0] and cache.seq_len(a) == 10
    cache.append(a, k2, v2)  # fills page 0, then page 1, then part of page 2
    assert cache.pages(a) == [0, 1, 2] and cache.seq_len(a) == 40 and cache.num_free_pages == 5
    k, v = cache.gather(a)
    assert torch.equal(k, torch.cat([k1, k2])) and torch.equal(v, torch.cat([v1, v2]))
    one_k, one_v = _tokens(1, seed=2)
    cache.append(a, one_k[0], one_v[0])  # a single [Hkv, D] token
    assert cache.seq_len(a) == 41


def test_freed_pages_are_reused_and_tables_are_padded():
    cache = PagedKVCache(num_pages=6, page_size=4, num_kv_heads=2, head_dim=64, dtype=torch.float32)
    a, b = cache.add_sequence(), cache.add_sequence()
    cache.append(a, *_tokens(9))   # pages 0, 1, 2
    cache.append(b, *_tokens(3))   # page 3
    cache.free_sequence(a)
    assert cache.num_free_pages == 5 and cache.sequences == [b]
    c = cache.add_sequence()
    cache.append(c, *_tokens(6))   # the freed pages come back, the last freed first
    assert sorted(cache.pages(c)) == [0, 1] or set(cache.pages(c)) <= {0, 1, 2}
    table, lens = cache.block_table([b, c], pad=5)
    assert table.dtype == lens.dtype == torch.int32
    assert table.shape == (2, 2) and table[0, 1] == 5 and lens.tolist() == [3, 6]
    assert cache.block_table([b], width=4)[0].shape == (1, 4)
    with pytest.raises(ValueError, match="width: 1 columns cannot hold a sequence of 2 pages"):
        cache.block_table([c], width=1)
    with pytest.raises(KeyError, match="no sequence 0"):
        cache.append(a, *_tokens(1))


def test_cache_out_of_pages_and_bad_shapes():
    cache = PagedKVCache(num_pages=2, page_size=4, num_kv_heads=2, head_dim=64, dtype=torch.float32)
    a = cache.add_sequence()
    with pytest.raises(OutOfPages, match="needs 3 more page"):
        cache.append(a, *_tokens(9))
    assert cache.seq_len(a) == 0 and cache.num_free_pages == 2  # nothing taken
    with pytest.raises(ValueError, match=r"k: expected shape \[T, 2, 64\]"):
        cache.append(a, torch.randn(3, 4, 64), torch.randn(3, 4, 64))
    with pytest.raises(ValueError, match="num_pages: expected a positive integer"):
        PagedKVCache(num_pages=0, page_size=4, num_kv_heads=2, head_dim=64)


def test_decode_through_the_cache_matches_the_reference():
    sol = _sol()
    cache = PagedKVCache(num_pages=20, page_size=16, num_kv_heads=2, head_dim=64, dtype=torch.float16,
                         device=DEV, generator=torch.Generator().manual_seed(3))
    seqs = [cache.add_sequence() for _ in range(3)]
    for i, (s, n) in enumerate(zip(seqs, (37, 1, 64))):
        cache.append(s, *_tokens(n, seed=i))
    cache.free_sequence(seqs[1])  # its page returns to the pool, holding stale tokens
    d = cache.add_sequence()
    cache.append(d, *_tokens(20, seed=9))
    table, lens = cache.block_table([seqs[0], seqs[2], d])
    q = torch.randn(3, 8, 64).half().to(DEV)
    ref = paged_decode_ref(q, cache.k, cache.v, table, lens)
    for fn in (sol.paged_decode_eager, sol.paged_decode_triton):
        check.compare(fn(q, cache.k, cache.v, table, lens), ref, SPEC.tolerance(torch.float16))


@pytest.mark.skipif(not env.CPU_MODE, reason="the CPU-mode split count is what this checks")
def test_cpu_cases_exercise_the_split_path():
    sol = _sol()
    for case in SPEC.cases(True):
        lens = case.params["lens"]
        pages = -(-max(lens) // case.params["page"]) + case.params.get("spare_columns", 0)
        n = sol.num_splits_for(len(lens), case.params["heads"][1], pages * case.params["page"],
                               sol._num_sms(None), sol._block_n(case.params["page"], case.params["head_dim"]))
        if n > 1:
            return
    pytest.fail("no CPU case splits its sequences: the merge kernel would go untested")


def test_flex_rejects_a_page_size_its_tiles_cannot_divide():
    (q, k, v, bt, lens), _ = _inputs([20, 5], page=8)
    with pytest.raises(ValueError, match="k_cache: FlexAttention needs a page size .* multiple of 16"):
        _sol().paged_decode_flex(q, k, v, bt, lens)


@pytest.mark.skipif(env.CPU_MODE, reason="FlexAttention's CPU backend has no kernel for this block mask")
@pytest.mark.parametrize("page", [16, 64])
def test_flex_matches_the_reference(page):
    # Ragged lengths (one token, a full page, a partial last page), two batch sizes, and the inputs
    # first given to the compiled rung, which marks their batch dimension dynamic (as in chapter 03).
    sol = _sol()
    for i, lens in enumerate(([1, page, 3 * page + 5], [7, 2 * page, 75, 200])):
        (q, k, v, bt, sl), _ = _inputs(lens, heads=(8, 2), d=64 + 64 * i, page=page, dtype=torch.bfloat16, seed=i)
        ref = paged_decode_ref(q, k, v, bt, sl)
        _ref_close(sol.paged_decode_compiled(q, k, v, bt, sl), ref, torch.bfloat16)
        _ref_close(sol.paged_decode_flex(q, k, v, bt, sl), ref, torch.bfloat16)
