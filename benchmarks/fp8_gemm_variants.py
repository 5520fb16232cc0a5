"""The numbered Triton fp8_gemm versions and the candidate configurations of `pick_config`, timed on
one GPU in one run (the grader's protocol: L2 flushed, inputs rotated past L2, CUDA graphs under
30 µs), beside torch._scaled_mm. Each is checked against the float64 reference first.

    python benchmarks/fp8_gemm_variants.py [--json OUT.json] [--quick]
    python benchmarks/fp8_gemm_variants.py --small [--json OUT.json]   # the decode goal, ~3 minutes
    python benchmarks/fp8_gemm_variants.py --large [--json OUT.json]   # the prefill goal (M >= 4096)
    python benchmarks/fp8_gemm_variants.py --stream-k [--json OUT.json]   # v6 beside the decode pick
    python benchmarks/fp8_gemm_variants.py --token-tiles [--json OUT.json]   # half-height token tiles at M = 64, 128
    python benchmarks/fp8_gemm_variants.py --pdl [--json OUT.json]   # the decode pick with and without dependent launch
    python benchmarks/fp8_gemm_variants.py --token-reads [--json OUT.json]   # M = 128's pick run with 64 tokens
    python benchmarks/fp8_gemm_variants.py --coop [--json OUT.json]   # the decode tile split over two warpgroups at M = 64, 128
    python benchmarks/fp8_gemm_variants.py --summary OUT_DIR   # the chapter's targets, from bench JSONs
    ... [--shapes 64x4096x4096,...] [--baseline OTHER/fp8_gemm.py]   # other shapes; another revision's pick beside

The table says, per shape, the fastest candidate and how far the configuration fp8_gemm_triton
picks is from it: rerun it on a new GPU before trusting pick_config there. `--small` times the
decode goal (M <= 128: the Triton rung >= 1.0x torch._scaled_mm at every shape, >= 70% of the copy
roof in weight bytes per second for weights of 50 MB and more) on the six Llama weights at
M = 1, 16, 64, 128, per tensor, and four of them with row-wise scales: the pick (v5 from napkin
math, solutions/fp8_gemm.py `_streaming_config`, or v4 where v5 measured slower), the v4 split-K
kernel v5 replaces, and v5 configurations around the v5 plan. `--large` times the prefill goal
(the Triton rung >= 0.9x torch._scaled_mm at M >= 4096) on six shapes: the persistent TMA kernel
(v3) as picked, and around it (large_candidates) promotion every 2048 or 4096 of K instead of
1024, one stage more or fewer, other tile groupings.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grading  # noqa: E402,F401  (first: CPU mode before any @triton.jit)
import torch  # noqa: E402

from grading import env  # noqa: E402

# (M, N, K): the weight-bound decode shapes and the compute-bound prefill ones.
SMALL = [(1, 8192, 8192), (16, 28672, 8192), (64, 4096, 14336), (128, 8192, 8192)]
LARGE = [(512, 8192, 8192), (4096, 8192, 8192), (8192, 28672, 8192)]
# The decode goal's shapes (--small): every Llama weight at every decode M, per tensor; row-wise
# scales (per token × per channel) on four of them.
GOAL_NK = ((4096, 4096), (14336, 4096), (4096, 14336), (8192, 8192), (28672, 8192), (8192, 28672))
GOAL = [(m, n, k) for n, k in GOAL_NK for m in (1, 16, 64, 128)]
GOAL_ROW = [(1, 8192, 8192), (16, 28672, 8192), (64, 4096, 4096), (128, 14336, 4096)]
# The prefill goal's shapes (--large).
PREFILL = [(4096, 4096, 4096), (4096, 14336, 4096), (4096, 4096, 14336), (4096, 8192, 8192),
           (8192, 8192, 8192), (4096, 28672, 8192)]


def candidates(m: int):
    from solutions.fp8_gemm import GemmConfig as C
    if m <= 128:
        bm = 16 if m <= 16 else 32 if m <= 32 else 64
        return [C(4, bm, bn, bk, w, s) for bn, bk, w, s in
                ((64, 256, 4, 4), (64, 128, 4, 6), (128, 128, 4, 4), (128, 256, 8, 3), (32, 256, 4, 6))] + \
               [C(4, bm, 64, 256, 4, 4, split_k=1), C(1, 64, 128, 128, 4, 4), C(3, 64, 128, 128, 4, 4)]
    return [C(1, 128, 128, 128, 8, 4), C(2, 128, 128, 128, 8, 4), C(3, 128, 128, 128, 8, 4),
            C(3, 128, 128, 128, 8, 4, flatten=True), C(3, 128, 128, 128, 8, 5), C(3, 128, 128, 128, 4, 4),
            C(3, 128, 256, 64, 8, 4), C(3, 128, 256, 128, 8, 3, promote=False),
            C(3, 128, 128, 128, 8, 4, promote=False)]


def large_candidates() -> list:
    """Around the v3 pick (128 x 128 x 128, 8 warps, 5 stages, the fp32 promotion every 8 K steps):
    promotion every 16 or 32 steps (2048 or 4096 of K: fewer drains of the tensor cores' pipe,
    longer truncated sums in between), 4 or 6 stages, a coarser or finer grouping of the tiles
    for L2 (group_m 4, 16). (The tenth session's list, around the 4-stage pick promoting every
    step, chose the pick: benchmarks/h200_session10, calls 1-3.)"""
    from solutions.fp8_gemm import GemmConfig as C
    return [C(3, 128, 128, 128, 8, 5, promote_every=16), C(3, 128, 128, 128, 8, 4, promote_every=16),
            C(3, 128, 128, 128, 8, 5, promote_every=32), C(3, 128, 128, 128, 8, 4, promote_every=8),
            C(3, 128, 128, 128, 8, 6, promote_every=8), C(3, 128, 128, 128, 8, 5, group_m=16, promote_every=8),
            C(3, 128, 128, 128, 8, 5, group_m=4, promote_every=8)]


def _sms() -> int:
    """The SM count the plan uses here (the interpreter's stand-in in CPU mode)."""
    from solutions.fp8_gemm import _num_sms
    return _num_sms(None if env.CPU_MODE else torch.cuda.current_device())


def small_candidates(m: int, n: int, k: int) -> list:
    """Around the v5 pick (pick_config, with its measured corrections: the promotion interval, TMA,
    dependent launch), one change each, to test the napkin math's choices: the copy engine (TMA)
    or per-thread loads; BLOCK_N halved or doubled (more programs and more reads of a from L2, or
    fewer and fewer reads), doubled again with twice the K slices (as many programs as the pick,
    each reading a from L2 half as often per weight byte: at M = 128, N = 4096 the pick's 64-wide
    tiles read twice as many bytes of a as of the weight); twice the K slices; BLOCK_K halved with
    twice the stages, or doubled with half (the same bytes in flight in smaller or larger steps).
    First v4, the kernel v5 replaces. The v5 candidates launch with dependent launch, as the pick
    does. About 80 kernels to compile in all, most of the ~3 minutes of `--small`; with `--quick`,
    the first four."""
    from solutions.fp8_gemm import _streaming_config, _v4_config, _warps_for, _with_launch_rule, pick_config
    pick = pick_config(m, n, k)
    if pick.variant != 5:  # v4 where the plan was measured slower: the plan's tile
        pick = _streaming_config(m, n, k, _sms())

    def r(cfg, **changes):
        return _with_launch_rule(dataclasses.replace(cfg, **changes))
    out = [_v4_config(m), r(pick, tma=not pick.tma)]
    if pick.block_n > (16 if pick.block_m <= 32 else 32):
        out.append(r(pick, block_n=pick.block_n // 2))
    if pick.block_n < 128:
        wide = r(pick, block_n=2 * pick.block_n, num_stages=max(2, pick.num_stages - 2),
                 num_warps=_warps_for(2 * pick.block_n, pick.block_m))
        out += [wide, r(wide, split_k=2 * max(1, pick.split_k))]
    out.append(r(pick, split_k=2 * max(1, pick.split_k)))
    every = pick.promote_every * pick.block_k  # K elements between promotions, kept
    if pick.block_k >= 128:
        bk = pick.block_k // 2
        out.append(r(pick, block_k=bk, num_stages=min(8, 2 * pick.num_stages), promote_every=max(1, every // bk)))
    else:
        bk = 2 * pick.block_k
        out.append(r(pick, block_k=bk, num_stages=max(2, pick.num_stages // 2), promote_every=max(1, every // bk)))
    return list(dict.fromkeys(c for c in out if c != pick))


def stream_k_candidates(m: int, n: int, k: int) -> list:
    """v6 (stream-K, one program per SM) beside the pick: the pick's tile dealt out stream-K as
    it is, then with the stages one program per SM has room for (the v5 plan counts the shared
    memory of every program resident at once), with TMA, with a 128-deep K step, and 128 wide."""
    from solutions.fp8_gemm import _stages_that_fit, _streaming_config, _warps_for, pick_config
    pick = pick_config(m, n, k)
    if pick.variant != 5:  # v4 where the plan was measured slower: the plan's tile
        pick = _streaming_config(m, n, k, _sms())
    r = dataclasses.replace
    v6 = r(pick, variant=6, split_k=0)

    def roomy(cfg, bk):
        every = max(1, cfg.promote_every * cfg.block_k // bk) if cfg.promote_every > 1 else 1
        return r(cfg, block_k=bk, num_stages=_stages_that_fit(cfg.block_n, cfg.block_m, bk), promote_every=every)
    out = [v6, roomy(v6, v6.block_k), r(roomy(v6, v6.block_k), tma=True), roomy(v6, 128)]
    if v6.block_n < 128:  # wider tiles: a read from L2 half as often, now that tiles need not fill the SMs
        out.append(r(roomy(r(v6, block_n=128, num_warps=_warps_for(128, v6.block_m)), 128), tma=True))
    return list(dict.fromkeys(out))


def token_tile_candidates(m: int, n: int, k: int) -> list:
    """The v5 pick (64- or 128-token tiles) beside half-height token tiles, K not split: two or
    more programs per weight tile, each streaming all of K, the weight tile read from L2 by the
    second (CUTLASS's 41 at M = 128, N = 4096: 64-token tiles without a split ran 1.05x
    torch._scaled_mm where one 128-token tile split in two ran 0.89x; h200_session20, call 1).
    64 or 128 weight rows, 128- or 256-deep K, with and without TMA, each made by the pick's own
    rule (solutions/fp8_gemm.py _half_token_tiles)."""
    from solutions.fp8_gemm import _half_token_tiles, _with_launch_rule, pick_config
    pick = pick_config(m, n, k)
    if pick.variant != 5 or pick.block_m < 64:
        return []
    sms = _sms()
    out = []
    for bn, bk in ((64, 128), (64, 256), (128, 128)):
        cfg = _half_token_tiles(dataclasses.replace(pick, block_n=bn, num_warps=4), m, n, sms, block_k=bk)
        out += [_with_launch_rule(cfg), _with_launch_rule(dataclasses.replace(cfg, tma=True))]
    return list(dict.fromkeys(out))


def fair_stages(programs: int, block_n: int, block_m: int, block_k: int, num_warps: int, sms: int) -> tuple[int, int]:
    """(programs one SM holds at once, the stages each of them has room for) for a v5 grid of
    `programs`: as many as the grid gives an SM, at most as many as its registers hold. A
    neighbour timed with the pick's stages instead can leave its programs two rounds where they
    fit in one (the wide neighbour in h200_session20, call 2: 2 stages, 43 µs against 19.5)."""
    import triton
    from solutions.fp8_gemm import _programs_by_registers, _stages_that_fit
    resident = min(triton.cdiv(programs, sms), _programs_by_registers(block_n, block_m, num_warps, block_k))
    return resident, _stages_that_fit(block_n, block_m, block_k, resident)


def wide_candidates(m: int, n: int, k: int) -> list:
    """The pick's tile twice as tall in weight rows (128 where the pick has 64), with the stages
    that the programs an SM then holds have room for (small_candidates' wide neighbour keeps the
    pick's stages less two: 2 at M = 128, N = 14336, where it ran 43 µs against the pick's 23 in
    h200_session20, call 2), K whole or split in 2 or 4, 128- or 64-deep K steps. Half as many
    reads of the token tile from L2: at M = 128 the pick's 64-row tiles read it twice per weight
    byte."""
    import triton
    from solutions.fp8_gemm import _warps_for, _with_launch_rule, pick_config
    pick = pick_config(m, n, k)
    if pick.variant != 5 or pick.block_n >= 128:
        return []
    sms = _sms()
    bn = 2 * pick.block_n
    warps = _warps_for(bn, pick.block_m)
    every = pick.promote_every * pick.block_k  # K elements between promotions, kept
    out = []
    for split in (1, 2, 4):
        programs = triton.cdiv(n, bn) * triton.cdiv(m, pick.block_m) * split
        for bk in (128, 64):
            if k // split < 4 * bk:
                continue
            _, stages = fair_stages(programs, bn, pick.block_m, bk, warps, sms)
            out.append(_with_launch_rule(dataclasses.replace(
                pick, block_n=bn, block_k=bk, num_warps=warps, split_k=split, num_stages=max(2, stages),
                promote_every=max(1, every // bk))))
    return out


def coop_candidates(m: int, n: int, k: int) -> list:
    """The tile's weight rows split over two warpgroups (num_warps 8), as CUTLASS's cooperative
    kernels split theirs. At M = 128, N = 8192 CUTLASS's 128x64 cooperative tile (configuration
    100) ran 0.99x torch._scaled_mm, where its 64x128 ping-pong tile, one warpgroup a tile, ran
    0.92-0.98x (h200_session35, call 1): near M = 128 the FLOPs take about as long as the
    weight's bytes, and one warpgroup issues the wgmma of a whole tile. 128 weight rows by half
    the pick's token tile, K whole, with 8 warps and with 4 (the control), each with and without
    TMA (solutions/fp8_gemm.py _half_token_tiles); and the pick itself with 8 warps where it has
    4. Measured at 96, 112 and 128 tokens (h200_session35, call 5): behind the pick at all 18
    shapes (128 x 8192 x 8192: 28.0 µs with 8 warps, 31.8 with 4, the pick 22.0)."""
    from solutions.fp8_gemm import _half_token_tiles, _with_launch_rule, pick_config
    pick = pick_config(m, n, k)
    if pick.variant != 5 or pick.block_m < 64:
        return []
    sms = _sms()
    out = []
    for warps in (8, 4):
        cfg = _half_token_tiles(dataclasses.replace(pick, block_n=128, num_warps=warps), m, n, sms)
        out += [_with_launch_rule(cfg), _with_launch_rule(dataclasses.replace(cfg, tma=True))]
    if pick.num_warps == 4:
        out.append(dataclasses.replace(pick, num_warps=8))
    return [c for c in dict.fromkeys(out) if c != pick]


def balance_candidates(m: int, n: int, k: int) -> list:
    """v5 configurations whose work units (weight tiles x K slices) come out nearly even across
    the SMs: the pick's 224 programs at 28672 x 8192 (M <= 16) are 1.7 a SM, so some SMs stream
    twice the weight of others while the rest wait. Weight tiles of 32 (M <= 32), 64 or 128 rows,
    K whole or split in 2 or 4, 128- or 256-deep K steps, each with the stages that the programs
    an SM then holds have room for (small_candidates' split neighbour kept the pick's stages, so
    fewer programs fit at once); only those whose units fill their last round of SMs to 94% or
    more and keep 32 KB of weight in flight per SM, at most six, the fullest first."""
    import triton
    from solutions.fp8_gemm import _warps_for, _with_launch_rule, pick_config
    pick = pick_config(m, n, k)
    if pick.variant != 5:
        return []
    sms = _sms()
    scored = []
    for bn in ((32, 64, 128) if pick.block_m <= 32 else (64, 128)):
        warps = _warps_for(bn, pick.block_m)
        for split in (1, 2, 4):
            units = triton.cdiv(n, bn) * triton.cdiv(m, pick.block_m) * split
            fill = units / (sms * triton.cdiv(units, sms))
            for bk in (128, 256):
                if fill < 0.94 or k // split < 4 * bk:
                    continue
                resident, stages = fair_stages(units, bn, pick.block_m, bk, warps, sms)
                if stages < 2 or resident * (stages - 1) * bn * bk < 32 << 10:  # Little's law: ~32 KB a SM
                    continue
                cfg = _with_launch_rule(dataclasses.replace(
                    pick, block_n=bn, block_k=bk, num_warps=warps, split_k=split, num_stages=stages,
                    promote_every=max(1, pick.promote_every * pick.block_k // bk)))
                if cfg != pick:
                    scored.append((-fill, split, cfg.describe(), cfg))
    return [c for *_, c in sorted(scored, key=lambda t: t[:3])][:6]


def load_baseline(path: str):
    """Another revision of solutions/fp8_gemm.py (a copy with a change undone, say), imported under
    its own name: its fp8_gemm_triton is timed beside this revision's pick, in the same run."""
    spec = importlib.util.spec_from_file_location("fp8_gemm_baseline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


def token_read_candidates(m: int, n: int, k: int, picked) -> list:
    """Whether the Triton rung's gap at M = 128 (0.94-0.97x torch._scaled_mm at N = 8192) is the
    token tile's reads from L2. Its pick there (128 tokens x 64 weight rows a program, 128
    programs) reads the whole token tile once for every weight tile: 2 bytes of tokens from L2 for
    each weight byte, 3 in all through L2 per weight byte, where the 64-token pick reads 1 and 2.
    No tiling of 128 programs does much better (a program's rows r and tokens t with r * t =
    N * M / 128 read (r + t) * K, least at r = t: 2.8 per weight byte at M = 128), so only a K split
    or a multicast (the CUTLASS rung's token tiles) would cut it. At fewer than 128 tokens: M = 128's
    pick as it is (the same tile, the same MMA work a K step), whose masked rows load nothing. At 64
    tokens that is half the token bytes, nothing else changed: if L2 reads decide, it runs near the
    64-token pick's time; if the MMAs or the instruction stream do, near the M = 128 time."""
    from solutions.fp8_gemm import pick_config
    full = pick_config(128, n, k)
    return [full] if m < 128 and full != picked else []


def mode_candidates(mode: str, m: int, n: int, k: int, picked, quick: bool) -> list:
    """The configurations a sweep mode times beside the pick at one shape (MODES)."""
    from solutions import fp8_gemm as sol
    if mode == "per_row":
        return [sol._v4_config(m)] if m <= sol.SMALL_M else []
    if mode == "large":
        return large_candidates()[: 4 if quick else None]
    if mode == "stream_k":
        return stream_k_candidates(m, n, k)[: 2 if quick else None]
    if mode == "token_tiles":
        return token_tile_candidates(m, n, k)[: 2 if quick else None]
    if mode == "pdl":  # the pick launched the other way: with programmatic dependent launch or without (v5 only)
        return [dataclasses.replace(picked, pdl=not picked.pdl)] if picked.variant == 5 else []
    if mode == "promote":
        r = dataclasses.replace
        return list(dict.fromkeys([r(picked, promote_every=max(1, e // picked.block_k)) for e in (128, 512, 2048)]))
    if mode == "wide":
        return wide_candidates(m, n, k)
    if mode == "balance":
        return balance_candidates(m, n, k)
    if mode == "coop":
        return coop_candidates(m, n, k)
    if mode == "token_reads":
        return token_read_candidates(m, n, k, picked)
    if mode == "small":
        # M = 16 runs M = 1's kernels (the same 16-token tile): its pick and v4 suffice.
        return small_candidates(m, n, k)[: 1 if m == 16 else 4 if quick else None]
    return candidates(m)[: 4 if quick else None]


# What each sweep mode times beside the pick (mode_candidates); "per_row" also gives the inputs
# per-row and per-channel scales.
MODES = ("all", "small", "per_row", "large", "promote", "stream_k", "pdl", "token_tiles", "wide", "balance", "coop",
         "token_reads")
# The shapes each mode sweeps unless --shapes says otherwise.
_DECODE_64_128 = [s for s in GOAL if s[0] in (64, 128)]
MODE_SHAPES = {"all": SMALL + LARGE, "small": GOAL, "per_row": GOAL_ROW, "large": PREFILL, "promote": _DECODE_64_128,
               "stream_k": GOAL, "pdl": GOAL, "token_tiles": _DECODE_64_128, "wide": _DECODE_64_128, "balance": GOAL,
               "coop": _DECODE_64_128,
               "token_reads": [(m, n, k) for n, k in ((8192, 8192), (8192, 28672), (28672, 8192)) for m in (128, 64)]}


def sweep(shapes, quick: bool, mode: str = "all", baseline=None) -> list[dict]:
    from grading.check import compare
    from grading.lesson_fp8 import gemm_args
    from grading.specs.fp8_gemm import E4M3, GEMM_TOLERANCES, fp8_gemm_ref
    from grading.timing import rotation_count, time_fn
    from solutions import fp8_gemm as sol
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    per_row = mode == "per_row"
    dev = torch.device("cuda")
    rows = []
    for m, n, k in shapes:
        sets = [(gemm_args(m, n, k, per_row=per_row), {})
                for _ in range(rotation_count(m * k + n * k + 2 * m * n, dev))]
        ref = fp8_gemm_ref(*sets[0][0])
        picked = sol.pick_config(m, n, k)
        fns = {"torch._scaled_mm": sol.fp8_gemm_scaled_mm, f"picked: {picked.describe()}": sol.fp8_gemm_triton}
        if baseline is not None:
            fns[f"baseline: {baseline.pick_config(m, n, k).describe()}"] = baseline.fp8_gemm_triton
        cands = mode_candidates(mode, m, n, k, picked, quick)
        for cfg in cands:
            fns[cfg.describe()] = (lambda c: lambda a, b, sa, sb: sol._variant(a, b, sa, sb, torch.bfloat16, c, None))(cfg)
        for name, fn in fns.items():
            row = {"shape": [m, n, k], "scales": "row" if per_row else "tensor", "impl": name}
            try:
                err = compare(fn(*sets[0][0]), ref, GEMM_TOLERANCES[E4M3])[0]
                t, _, _ = time_fn(fn, sets, target_s=0.1)
                row.update(time_us=t.best_s * 1e6, tflops=2.0 * m * n * k / t.best_s / 1e12,
                           weight_gbps=n * k / t.best_s / 1e9, rel_l2=err)
            except Exception as e:  # noqa: BLE001 - a configuration that does not compile or fit
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            rows.append(row)
            print(json.dumps(row), flush=True)
        del sets
        torch.cuda.empty_cache()
    return rows


def table(rows: list[dict], copy_gbps: float) -> str:
    lines = ["| M × N × K | torch._scaled_mm | picked | best candidate | picked / best | scaled_mm / picked |",
             "|---|---:|---:|---|---:|---:|"]
    for key in dict.fromkeys((tuple(r["shape"]), r.get("scales", "tensor")) for r in rows):
        shape, scales = key
        rs = [r for r in rows if (tuple(r["shape"]), r.get("scales", "tensor")) == key and "time_us" in r]
        lib = next((r for r in rs if r["impl"] == "torch._scaled_mm"), None)
        pick = next((r for r in rs if r["impl"].startswith("picked")), None)
        best = min((r for r in rs if r["impl"] != "torch._scaled_mm" and not r["impl"].startswith("picked")),
                   key=lambda r: r["time_us"], default=None)

        def cell(r):
            if r is None:
                return "-"
            return f"{r['time_us']:,.1f} µs · {r['tflops']:,.0f} TF · w {100 * r['weight_gbps'] / copy_gbps:.0f}%"
        ratio = f"{best['time_us'] / pick['time_us']:.2f}" if best and pick else "-"
        goal = f"{lib['time_us'] / pick['time_us']:.2f}" if lib and pick else "-"
        row_wise = ", row-wise" if scales == "row" else ""
        lines.append(f"| {' × '.join(map(str, shape))}{row_wise} | {cell(lib)} | {cell(pick)} | "
                     f"{best['impl'] if best else '-'}: {cell(best)} | {ratio} | {goal} |")
    lines.append(f"\nTF = TFLOP/s; w = weight bytes per second as % of the copy roof ({copy_gbps:,.0f} GB/s). "
                 "Decode goal (M <= 128): scaled_mm / picked >= 1.00 everywhere, w >= 70% for weights >= 50 MB.")
    return "\n".join(lines)


def summary(out_dir: Path) -> str:
    """The chapter's speed targets, read from `bench` results of one run: the Triton and CUTLASS
    rungs against torch._scaled_mm (same case, same run), weight bytes/s at M <= 128, and the
    quantizer's % of the copy roof at M >= 4096."""
    lines = []
    gemm = out_dir / "fp8_gemm_bench.json"
    if gemm.is_file():
        data = json.loads(gemm.read_text())
        bw = data["roofs"]["bandwidth_gbps"]
        lines += ["| case | scaled_mm µs | triton × | cuda × | triton weight % | cuda weight % |",
                  "|---|---:|---:|---:|---:|---:|"]
        for c in data["cases"]:
            p = c["params"]
            lib = c["impls"].get("torch._scaled_mm", {}).get("time_us")

            def ratio(rung):
                t = c["impls"].get(rung, {}).get("time_us")
                return f"{lib / t:.2f}" if t and lib else "-"

            def weight(rung):
                t = c["impls"].get(rung, {}).get("time_us")
                return f"{100 * p['n'] * p['k'] / (t * 1e-6) / 1e9 / bw:.0f}%" if t else "-"
            lines.append(f"| {p['m']}×{p['n']}×{p['k']} {p.get('scales', 'tensor')} | {lib or 0:,.1f} | "
                         f"{ratio('triton')} | {ratio('cuda')} | {weight('triton')} | {weight('cuda')} |")
        lines.append("targets: cuda >= 1.0× and triton >= 0.9× at M >= 4096; both >= 1.0× at M <= 128 and "
                     ">= 70% weight bandwidth for weights >= 50 MB")
    quant = out_dir / "fp8_quantize_bench.json"
    if quant.is_file():
        data = json.loads(quant.read_text())
        lines.append("")
        lines.append("fp8_quantize, % of SOL (copy roof) at M >= 4096: " + "; ".join(
            f"{'×'.join(map(str, c['params']['shape']))} {'per token' if c['params']['per_token'] else 'per tensor'}: " +
            ", ".join(f"{k} {v['pct_sol']:.0f}%" for k, v in c["impls"].items() if v.get("pct_sol"))
            for c in data["cases"] if c["params"]["shape"][0] >= 4096))
    return "\n".join(lines) or f"no bench results in {out_dir}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", help="write the rows here")
    p.add_argument("--quick", action="store_true", help="4 candidates per shape")
    p.add_argument("--small", action="store_true",
                   help="the decode goal only: 24 shapes at M <= 128 (+4 row-wise), the v5 pick and its neighbours")
    p.add_argument("--large", action="store_true",
                   help="the prefill goal only: 6 shapes at M >= 4096, the v3 pick and its neighbours")
    p.add_argument("--promote", action="store_true",
                   help="the decode goal's shapes at M = 64 and 128: the pick beside the same "
                        "configuration promoting every K step, every 512 and every 2048 of K")
    p.add_argument("--token-tiles", action="store_true",
                   help="the decode goal's shapes at M = 64 and 128: the pick beside half-height token tiles, K not split")
    p.add_argument("--wide", action="store_true",
                   help="the decode goal's shapes at M = 64 and 128: the pick beside its tile twice as tall in "
                        "weight rows, with the stages that fit")
    p.add_argument("--balance", action="store_true",
                   help="the decode goal's shapes: the pick beside configurations whose work units come out "
                        "nearly even across the SMs, with the stages that fit")
    p.add_argument("--coop", action="store_true",
                   help="the decode goal's shapes at M = 64 and 128: the pick beside 128 weight rows by half its "
                        "token tile split over two warpgroups (num_warps 8), and with one")
    p.add_argument("--stream-k", action="store_true",
                   help="the decode goal's 24 shapes: the pick beside v6 (stream-K) configurations")
    p.add_argument("--pdl", action="store_true",
                   help="the decode shapes: the pick beside itself launched the other way (with or without "
                        "programmatic dependent launch)")
    p.add_argument("--token-reads", action="store_true",
                   help="M = 64 and 128 at N x K = 8192 x 8192, 8192 x 28672, 28672 x 8192: the pick beside M = 128's "
                        "pick (the same MMA work, the token tile's reads from L2 halved at M = 64)")
    p.add_argument("--shapes", help="comma-separated MxNxK to time instead of the mode's shapes")
    p.add_argument("--baseline", metavar="PATH",
                   help="another revision of solutions/fp8_gemm.py: its pick timed beside this one's")
    p.add_argument("--summary", metavar="DIR", help="print the targets table from DIR/*_bench.json and exit")
    args = p.parse_args()
    if args.summary:
        print(summary(Path(args.summary)))
        return 0
    if env.CPU_MODE or torch.cuda.get_device_capability() < (8, 9):
        print("needs an fp8 GPU (sm_89 or newer)")
        return 1
    from grading import hardware
    gpu = hardware.current()
    roofs = hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key))
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")] if args.shapes else None
    base = load_baseline(args.baseline) if args.baseline else None
    # The first mode flag given, in this order; none: "all".
    mode = next((m for m in ("large", "promote", "wide", "balance", "coop", "token_tiles", "stream_k", "pdl", "small",
                             "token_reads") if getattr(args, m)), "all")
    rows = sweep(shapes or MODE_SHAPES[mode], args.quick, mode, base)
    if mode == "small" and not shapes:
        rows += sweep(GOAL_ROW, args.quick, "per_row")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                                               "triton": __import__("triton").__version__, "rows": rows}, indent=1))
    print(table(rows, roofs.bandwidth_gbps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
