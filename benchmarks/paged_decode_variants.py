"""paged_decode launch plans, timed side by side in one run against SDPA and the gather path.

    python benchmarks/paged_decode_variants.py [--json PATH] [--only SUBSTR ...] [--bench BENCH.json]

At the goal shapes (32/8 heads, D = 128 unless named: 1 × 4096, 1 × 32768, 16 × 4096, 64 × 4096,
256 × 2048, then 64 × 4096 with 32/32 heads, with 64/8 heads and with D = 64), the reference
Triton and CUDA rungs (their launch plans: solutions/paged_decode.py, "the launch plan") beside:
- the previous plans: Triton with 2 pipeline stages, one kv head per program and the split count
  ceil(4 · SMs / (B · Hkv)) capped at 256 tokens a split; the CUDA kernel with that split count;
- one knob of the new plan at a time: Triton with 2 stages; half and twice the split count of the
  cost model (both rungs); Triton without the kv-head pairs at D = 64 and with pairs at 32/32;
- the CUDA rung with its other split kernel: where it runs the tensor-core kernel (16 bits, G >= 4
  or D = 64), the CUDA-core kernel that ran there before (with its plan); elsewhere, the
  tensor-core kernel (built from a copy of csrc/paged_decode.cu with kUseMma changed);
- SDPA on an unpaged cache (the goal's yardstick) and gather + masked SDPA (the eager rung).
Each variant is checked against the float64 reference before it is timed. The last table is the
goals of this run: % of copy bandwidth on KV bytes, and the ratios to unpaged SDPA and to eager.
With --bench (the JSON of `python -m grading bench paged_decode`), that run's goal table too.
About 3 minutes on an H200, a minute of it the CUDA build when its cache is cold.
"""
import argparse
import functools
import json
import math
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading import hardware, lesson_decode  # noqa: E402
from grading.check import compare  # noqa: E402
from grading.spec import DEFAULT_TOLERANCES  # noqa: E402
from grading.specs.paged_decode import paged_decode_ref  # noqa: E402
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import paged_decode as sol  # noqa: E402

# (batch, context, (Hq, Hkv), D)
SHAPES = [(1, 4096, (32, 8), 128), (1, 32768, (32, 8), 128), (16, 4096, (32, 8), 128), (64, 4096, (32, 8), 128),
          (256, 2048, (32, 8), 128), (64, 4096, (32, 32), 128), (64, 4096, (64, 8), 128), (64, 4096, (32, 8), 64)]


# Always timed: the goal table needs them.
KEEP = ("ref triton", "ref cuda", "SDPA, unpaged cache", "eager (gather + masked SDPA)")


def _label(shape) -> str:
    b, n, (hq, hkv), d = shape
    return f"{b}x{n} {hq}/{hkv} D{d}"


def previous_splits(batch: int, kv_heads: int, max_tokens: int, sms: int, block_n: int) -> int:
    """The split count before the cost model: enough programs for 4 per SM, rounded up, at least
    256 tokens a split."""
    want = math.ceil(4 * sms / max(1, batch * kv_heads))
    return max(1, min(want, math.ceil(max_tokens / max(256, block_n))))


def _width(k, bt) -> int:
    return bt.shape[1] * k.shape[1]  # the longest sequence the table allows


def triton_plan(*, stages=None, split_factor=None, kv_pack=None, previous=False):
    def fn(q, k, v, bt, lens):
        b, hq, d = q.shape
        hkv = k.shape[2]
        sms = sol._num_sms(q.device.index)
        if previous:
            block_n = 64 * 128 // d
            splits = previous_splits(b, hkv, _width(k, bt), sms, block_n)
            return sol._triton_launch(q, k, v, bt, lens, d ** -0.5, block_n=block_n, num_splits=splits,
                                      num_stages=2, kv_pack=1)
        pack = kv_pack or sol._kv_pack(k, v)
        splits = None
        if split_factor is not None:
            n = sol.num_splits_for(b, hkv // pack, _width(k, bt), sms, sol._block_n(k.shape[1], pack * d))
            splits = max(1, round(n * split_factor))
        return sol._triton_launch(q, k, v, bt, lens, d ** -0.5, num_splits=splits, kv_pack=pack,
                                  num_stages=stages or sol._TRITON_STAGES)
    return fn


def cuda_plan(*, split_factor=None, previous=False):
    def fn(q, k, v, bt, lens):
        b, hq, d = q.shape
        blocks, tile, per_sm = sol._cuda_plan(hq, k.shape[2], d, q.element_size())
        sms = sol._num_sms(q.device.index)
        if previous:
            splits = previous_splits(b, k.shape[2], _width(k, bt), sms, tile)
        else:
            n = sol.num_splits_for(b, blocks, _width(k, bt), sms, tile, per_sm=per_sm)
            splits = max(1, round(n * (split_factor or 1)))
        return sol._cuda_launch(q, k, v, bt, lens, d ** -0.5, num_splits=splits)
    return fn


_MMA_RULE = "constexpr bool kUseMma = sizeof(T) == 2 && (G >= 4 || D == 64);"


@functools.cache
def _cuda_variant_ops(rule: str):
    """The CUDA rung built with another choice of split kernel (csrc/paged_decode.cu's kUseMma)."""
    from grading.cuda import load_kernel
    folder = Path(tempfile.mkdtemp(prefix="kl_pd_variant_"))
    csrc = Path(sol.REPO) / "csrc"
    source = (csrc / "paged_decode.cu").read_text()
    assert _MMA_RULE in source, "kUseMma moved: update this variant"
    (folder / "paged_decode.cu").write_text(source.replace(_MMA_RULE, f"constexpr bool kUseMma = {rule};"))
    (folder / "paged_decode_launch.cuh").write_text((csrc / "paged_decode_launch.cuh").read_text())
    return load_kernel("paged_decode", folder / "paged_decode.cu", fake={
        "paged_decode": lambda q, k_cache, v_cache, block_table, seq_lens, scale, num_splits: q.new_empty(q.shape)})


def cuda_kernel_choice(rule: str, tensor_cores: bool):
    """The CUDA rung with kUseMma = rule, split by the plan of the kernel it picks for this shape."""
    def fn(q, k, v, bt, lens):
        b, hq, d = q.shape
        blocks = sol._cuda_plan(hq, k.shape[2], d, q.element_size())[0]  # the grid is the same for both
        if tensor_cores:
            tile, per_sm = 64, 2 if d == 128 else 4
        else:  # the CUDA-core kernel's plan before the tensor-core kernel: 208 registers at G = 8
            tile, per_sm = 16384 // (2 * d * q.element_size()), 2 if hq // k.shape[2] > 4 else 3
        splits = sol.num_splits_for(b, blocks, _width(k, bt), sol._num_sms(q.device.index), tile, per_sm=per_sm)
        return _cuda_variant_ops(rule).paged_decode(q, k, v, bt, lens, d ** -0.5, splits)
    return fn


def variants(shape) -> dict:
    _, _, (hq, hkv), d = shape
    out = {"eager (gather + masked SDPA)": sol.paged_decode_eager,
           "SDPA, unpaged cache": lesson_decode.unpaged_sdpa(),
           "ref triton": sol.paged_decode_triton,
           "ref cuda": sol.paged_decode_cuda,
           "triton previous plan (s2, ceil splits)": triton_plan(previous=True),
           "cuda previous splits": cuda_plan(previous=True),
           "triton 2 stages": triton_plan(stages=2),
           "triton splits x0.5": triton_plan(split_factor=0.5),
           "triton splits x2": triton_plan(split_factor=2),
           "cuda splits x0.5": cuda_plan(split_factor=0.5),
           "cuda splits x2": cuda_plan(split_factor=2)}
    if d == 64:
        out["triton one kv head per program"] = triton_plan(kv_pack=1)
    if hq == hkv:
        out["triton kv-head pairs"] = triton_plan(kv_pack=2)
    if hq // hkv >= 4 or d == 64:
        out["cuda, CUDA cores only (previous kernel)"] = cuda_kernel_choice("false", tensor_cores=False)
    else:
        out["cuda, tensor cores at every G"] = cuda_kernel_choice("sizeof(T) == 2", tensor_cores=True)
    return out


def goals(rows: list[dict]) -> str:
    """This run's goal table: both reference rungs against unpaged SDPA and eager, same run."""
    t = {(r["shape"], r["impl"]): r for r in rows if r.get("us")}
    lines = ["| shape | rung | µs | % of copy | × unpaged SDPA | × eager | goals |", "|---|---|---:|---:|---:|---:|---|"]
    for shape in dict.fromkeys(r["shape"] for r in rows):
        b, n = (int(x) for x in shape.split()[0].split("x"))
        sdpa, eager = t.get((shape, "SDPA, unpaged cache")), t.get((shape, "eager (gather + masked SDPA)"))
        for rung in ("ref triton", "ref cuda"):
            r = t.get((shape, rung))
            if not r:
                lines.append(f"| {shape} | {rung} | failed | | | | |")
                continue
            vs_sdpa = sdpa["us"] / r["us"] if sdpa else float("nan")
            vs_eager = eager["us"] / r["us"] if eager else float("nan")
            miss = []
            if vs_eager < 3:
                miss.append("< 3× eager")
            if (b * n >= 64 * 4096 or (b, n) == (1, 32768)) and vs_sdpa < 0.9:
                miss.append("< 0.9× SDPA")
            if b * n >= 64 * 4096 and r["pct_copy"] < 80:
                miss.append("< 80% of copy")
            lines.append(f"| {shape} | {rung} | {r['us']:.1f} | {r['pct_copy']:.0f}% | {vs_sdpa:.2f} | {vs_eager:.2f} | "
                         f"{', '.join(miss) or 'met'} |")
    return "\n".join(lines)


def bench_goal_table(bench: dict, copy_gbps: float) -> str:
    labels = {"triton": "triton", "cuda": "cuda", "eager": "eager", "compiled": "compiled",
              "unpaged": "SDPA, unpaged cache"}
    lines = ["| case | triton | cuda | unpaged SDPA | eager | compiled | triton/unpaged | cuda/unpaged | "
             "triton/eager | cuda/eager |", "|---|" + "---:|" * 9]
    for c in bench["cases"]:
        p = c["params"]
        # Rungs are keyed by name (older bench files: "solutions:<rung>").
        t = {k: (c["impls"].get(v) or c["impls"].get(f"solutions:{v}") or {}).get("time_us")
             for k, v in labels.items()}
        kv = c["bytes"] - 2 * p["batch"] * p["heads"][0] * p["head_dim"] * 2
        pct = {k: (f"{100 * kv / (v * 1e-6) / 1e9 / copy_gbps:.0f}%" if v else "-") for k, v in t.items()}
        ratio = lambda a, b: f"{t[b] / t[a]:.2f}×" if t[a] and t[b] else "-"  # noqa: E731
        lines.append(f"| {p['batch']}×{p['context']} {p['heads'][0]}/{p['heads'][1]} D{p['head_dim']} S{p['page']} | "
                     f"{pct['triton']} | {pct['cuda']} | {pct['unpaged']} | {pct['eager']} | {pct['compiled']} | "
                     f"{ratio('triton', 'unpaged')} | {ratio('cuda', 'unpaged')} | {ratio('triton', 'eager')} | "
                     f"{ratio('cuda', 'eager')} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--only", nargs="*", help="time only the variants whose names contain one of these")
    ap.add_argument("--bench", help="a `grading bench paged_decode` JSON: print its goal table last")
    args = ap.parse_args()
    gpu = hardware.current()
    copy = hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key)).bandwidth_gbps
    rows = []
    dev = torch.device("cuda")
    for shape in SHAPES:
        b, n, heads, d = shape
        label = _label(shape)
        impls = {k: f for k, f in variants(shape).items()
                 if not args.only or k in KEEP or any(s in k for s in args.only)}
        kv = lesson_decode.kv_bytes((b, n), heads, d)
        sets = [(lesson_decode.decode_args((b, n), heads, d, seed=i), {}) for i in range(rotation_count(kv, dev))]
        ref = paged_decode_ref(*sets[0][0])
        for name, fn in impls.items():
            try:
                compare(fn(*sets[0][0]), ref, DEFAULT_TOLERANCES[torch.bfloat16])
                t, _, _ = time_fn(fn, sets, target_s=0.1)
            except Exception as e:  # noqa: BLE001 - one variant failing must not stop the sweep
                print(f"{name:40s} {label:18s} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
                rows.append({"impl": name, "shape": label, "error": f"{type(e).__name__}: {e}"[:500]})
                continue
            gbps = kv / t.best_s / 1e9
            rows.append({"impl": name, "shape": label, "us": t.best_s * 1e6, "spread": t.spread,
                         "gbps": gbps, "pct_copy": 100 * gbps / copy})
            print(f"{name:40s} {label:18s} {t.best_s * 1e6:9.1f} µs {gbps:7.0f} GB/s "
                  f"{100 * gbps / copy:4.0f}% of copy ±{t.spread * 100:.0f}%", flush=True)
        del sets, ref
        torch.cuda.empty_cache()
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "copy_gbps": copy,
                                               "rows": rows}, indent=2))
    print("\ngoals, this run (% of copy bandwidth on KV bytes; × = speedup, same run):")
    print(goals(rows))
    if args.bench:
        print("\ngoal table (bench run, % of copy bandwidth on KV bytes):")
        print(bench_goal_table(json.loads(Path(args.bench).read_text()), copy))


if __name__ == "__main__":
    main()
