"""paged_decode variants, timed side by side in one run: the knobs behind the reference rungs.

    python benchmarks/paged_decode_variants.py [--json PATH] [--bench BENCH.json]

Triton: tokens per tile (BLOCK_N), warps, pipeline stages, and the split count (the heuristic,
none, twice the heuristic). Around them: the reference Triton and CUDA rungs, gather + SDPA with
and without the padding mask (the mask-free form is only right for equal lengths: ANCHORS.md's
baseline), SDPA on an unpaged cache, FlexAttention on the page table. Each variant is checked
against the float64 reference before it is timed. With --bench (the JSON of `python -m grading
bench paged_decode`), the goal table of that run is printed last: % of copy bandwidth on KV bytes
and the ratios to SDPA on the unpaged cache and to gather + SDPA.
"""
import argparse
import itertools
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading import hardware, lesson_decode  # noqa: E402
from grading.check import compare  # noqa: E402
from grading.spec import DEFAULT_TOLERANCES  # noqa: E402
from grading.specs.paged_decode import paged_decode_ref  # noqa: E402
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import paged_decode as sol  # noqa: E402

SHAPES = [(1, 4096), (1, 32768), (64, 4096), (256, 2048)]


def triton_variant(block_n=None, warps=4, stages=2, split_factor=None):
    def fn(q, k, v, bt, lens):
        splits = None
        if split_factor is not None:
            b, s, hkv = q.shape[0], k.shape[1], k.shape[2]
            n = sol.num_splits_for(b, hkv, bt.shape[1] * s, sol._num_sms(q.device.index), block_n or 64)
            splits = max(1, int(n * split_factor))
        return sol._triton_launch(q, k, v, bt, lens, q.shape[-1] ** -0.5, block_n=block_n, num_splits=splits,
                                  num_warps=warps, num_stages=stages)
    return fn


def gather_sdpa_unmasked(q, k_cache, v_cache, block_table, seq_lens):
    # Right only when every sequence fills the table (equal lengths, full pages): no mask, so SDPA
    # may take its flash path.
    b, _, d = q.shape
    s, hkv = k_cache.shape[1], k_cache.shape[2]
    w = block_table.shape[1]
    k = k_cache[block_table.long()].view(b, w * s, hkv, d).transpose(1, 2)
    v = v_cache[block_table.long()].view(b, w * s, hkv, d).transpose(1, 2)
    return F.scaled_dot_product_attention(q[:, :, None], k, v, enable_gqa=True)[:, :, 0]


def variants() -> dict:
    out = {"eager (gather + masked SDPA)": sol.paged_decode_eager,
           "gather + SDPA, no mask": gather_sdpa_unmasked,
           "SDPA, unpaged cache": lesson_decode.unpaged_sdpa(),
           "FlexAttention": sol.paged_decode_flex,
           "ref triton": sol.paged_decode_triton,
           "ref cuda": sol.paged_decode_cuda}
    for block_n, warps, stages in itertools.product((32, 64, 128), (4, 8), (1, 2, 3)):
        out[f"triton BLOCK_N={block_n} w{warps} s{stages}"] = triton_variant(block_n, warps, stages)
    out["triton splits x0 (one per sequence)"] = triton_variant(split_factor=0)
    out["triton splits x2"] = triton_variant(split_factor=2)
    return out


def goal_table(bench: dict, copy_gbps: float) -> str:
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
    ap.add_argument("--bench", help="a `grading bench paged_decode` JSON: print its goal table last")
    args = ap.parse_args()
    gpu = hardware.current()
    copy = hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key)).bandwidth_gbps
    impls = variants()
    rows = []
    dev = torch.device("cuda")
    for shape in SHAPES:
        kv = lesson_decode.kv_bytes(shape)
        sets = [(lesson_decode.decode_args(shape, seed=i), {}) for i in range(rotation_count(kv, dev))]
        ref = paged_decode_ref(*sets[0][0])
        for name, fn in impls.items():
            try:
                compare(fn(*sets[0][0]), ref, DEFAULT_TOLERANCES[torch.bfloat16])
                t, _, _ = time_fn(fn, sets, target_s=0.1)
            except Exception as e:  # noqa: BLE001 - one variant failing must not stop the sweep
                print(f"{name:40s} {shape[0]:4d}x{shape[1]:<6d} failed: {type(e).__name__}: {str(e)[:120]}", flush=True)
                rows.append({"impl": name, "shape": list(shape), "error": f"{type(e).__name__}: {e}"[:500]})
                continue
            gbps = kv / t.best_s / 1e9
            rows.append({"impl": name, "shape": list(shape), "us": t.best_s * 1e6, "spread": t.spread,
                         "gbps": gbps, "pct_copy": 100 * gbps / copy})
            print(f"{name:40s} {shape[0]:4d}x{shape[1]:<6d} {t.best_s * 1e6:9.1f} µs {gbps:7.0f} GB/s "
                  f"{100 * gbps / copy:4.0f}% of copy ±{t.spread * 100:.0f}%", flush=True)
        del sets
        torch.cuda.empty_cache()
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "copy_gbps": copy,
                                               "rows": rows}, indent=2))
    best = {}
    for r in rows:
        if r.get("us") and r["impl"].startswith("triton BLOCK_N"):
            key = tuple(r["shape"])
            if key not in best or r["us"] < best[key]["us"]:
                best[key] = r
    print("\nfastest Triton variant per shape:")
    for key, r in best.items():
        print(f"  {key[0]}x{key[1]}: {r['impl']} {r['us']:.1f} µs, {r['pct_copy']:.0f}% of copy")
    if args.bench:
        print("\ngoal table (bench run, % of copy bandwidth on KV bytes):")
        print(goal_table(json.loads(Path(args.bench).read_text()), copy))


if __name__ == "__main__":
    main()
