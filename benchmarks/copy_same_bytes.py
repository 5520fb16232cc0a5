"""How close a plain copy gets to the copy roof when it moves only as many bytes as a bench case.

    python benchmarks/copy_same_bytes.py [--json PATH] [--rmsnorm [--cuda-from DIR]]

The bench's "% of SOL" divides by the copy bandwidth of a 1 GiB copy (`python -m grading ceilings`).
A kernel that moves 64 MB takes ~15 µs, and a fixed ~2-3 µs of launch, ramp-up and tail is then a
sixth of it: no kernel moving those bytes, a copy included, reaches the 1 GiB figure. This times
`src.clone()` (reads and writes the same bytes, allocates its output as the kernels do) at the
sizes of the chapter 01 and 02 memory-bound cases, with the bench's own protocol: input sets rotated
past 2x L2, CUDA-graph replays under 30 µs, the L2 read flush above. The percent is of the 1 GiB
copy measured in the same run, as the bench reports it. --rmsnorm also times chapter 01's
reference compiled, Triton and CUDA rungs at 4096 x 4096 (rmsnorm: the traffic of a 32 MB copy;
fused_add_rmsnorm: 64 MB) and 4096 x 8192 (64 and 128 MB) in the same run, each beside its copy;
--cuda-from DIR adds the CUDA rungs of another rmsnorm.cu + rmsnorm_launch.cuh (DIR holds both).
"""
import argparse
import itertools
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
from grading.timing import rotation_count, time_fn  # noqa: E402

# Bytes read (= bytes written) by a copy with the traffic of: rmsnorm 4096 x 4096 bf16 (32 MB in,
# 32 MB out); rmsnorm 4096 x 8192 and fused_add_rmsnorm 4096 x 4096 (64 MB); the fused 4096 x 8192
# and rmsnorm 16384 x 4096 (128 MB); then larger, to see the curve flatten.
MB = 2**20
SIZES = [8 * MB, 16 * MB, 32 * MB, 48 * MB, 64 * MB, 96 * MB, 128 * MB, 256 * MB, 1024 * MB]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    ap.add_argument("--rmsnorm", action="store_true", help="also time chapter 01's reference rungs at 4096 rows")
    ap.add_argument("--cuda-from", help="with --rmsnorm: a folder with another rmsnorm.cu + rmsnorm_launch.cuh")
    args = ap.parse_args()
    dev = torch.device("cuda")
    rows = []
    for nbytes in SIZES:
        n = nbytes // 2
        sets = [((torch.randn(n, device=dev, dtype=torch.bfloat16),), {})
                for _ in range(rotation_count(2 * nbytes, dev))]
        t, _, _ = time_fn(torch.clone, sets, device=dev)
        gbps = 2 * nbytes / t.best_s / 1e9
        rows.append({"bytes_read": nbytes, "us": t.best_s * 1e6, "event_us": t.median_s * 1e6,
                     "spread": t.spread, "gbps": gbps, "mode": t.graph_mode or t.mode})
        del sets
        torch.cuda.empty_cache()
    roof = rows[-1]["gbps"]
    print(f"copy of N bytes (N read + N written), {torch.cuda.get_device_name()}; % of the 1 GiB copy in this run")
    for r in rows:
        r["pct_of_1gib"] = 100 * r["gbps"] / roof
        print(f"  {r['bytes_read'] / MB:6.0f} MB  {r['us']:8.1f} µs  {r['gbps']:6.0f} GB/s  {r['pct_of_1gib']:4.0f}%  "
              f"±{r['spread'] * 100:.0f}%  {r['mode']}")
    kernels = rmsnorm_rungs(dev, args.cuda_from) if args.rmsnorm else []
    for k in kernels:
        copy = next(r for r in rows if r["bytes_read"] == k["bytes_moved"] // 2)
        compiled = next(c for c in kernels if c["shape"] == k["shape"]
                        and c["impl"] == k["impl"].split()[0] + " compiled")
        print(f"  {k['impl']:40s} {k['shape'][0]}x{k['shape'][1]} {k['us']:8.1f} µs  {k['gbps']:6.0f} GB/s  "
              f"{100 * k['gbps'] / roof:4.0f}%  {copy['us'] / k['us']:.2f}x the copy of its bytes, "
              f"{compiled['us'] / k['us']:.2f}x compiled")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows,
                                               "kernels": kernels}, indent=1))


def rmsnorm_rungs(dev, cuda_from: str | None) -> list[dict]:
    """Chapter 01's compiled, Triton and CUDA reference rungs at 4096 x 4096 and 4096 x 8192 bf16,
    by the same protocol (and another build's CUDA rungs, from cuda_from)."""
    from grading.check import compare
    from grading.spec import DEFAULT_TOLERANCES
    from grading.specs import rmsnorm as spec
    from solutions import rmsnorm as sol
    impls = [("rmsnorm compiled", sol.rmsnorm_compiled, 1), ("rmsnorm triton", sol.rmsnorm_triton, 1),
             ("rmsnorm cuda", sol.rmsnorm_cuda, 1),
             ("fused_add_rmsnorm compiled", sol.fused_add_rmsnorm_compiled, 2),
             ("fused_add_rmsnorm triton", sol.fused_add_rmsnorm_triton, 2),
             ("fused_add_rmsnorm cuda", sol.fused_add_rmsnorm_cuda, 2)]
    if cuda_from:
        other = sol.load_cuda_ops(Path(cuda_from) / "rmsnorm.cu")
        impls += [(f"rmsnorm cuda from {cuda_from}", lambda x, w: other.rmsnorm(x, w, 1e-6), 1),
                  (f"fused_add_rmsnorm cuda from {cuda_from}", lambda x, r, w: other.fused_add_rmsnorm(x, r, w, 1e-6), 2)]
    out = []
    for (m, n), (name, fn, n_in) in itertools.product([(4096, 4096), (4096, 8192)], impls):
        moved = 2 * n_in * m * n * 2  # bf16: n_in tensors read, as many written (the weight aside)
        w = torch.randn(n, device=dev, dtype=torch.bfloat16)
        sets = [(tuple(torch.randn(m, n, device=dev, dtype=torch.bfloat16) for _ in range(n_in)) + (w,), {})
                for _ in range(rotation_count(moved, dev))]
        args = sets[0][0]
        ref = (spec.fused_add_rmsnorm_ref if n_in == 2 else spec.rmsnorm_ref)(*args)
        got = fn(*args)
        for o, r in zip(got if n_in == 2 else (got,), ref if n_in == 2 else (ref,)):
            compare(o, r, DEFAULT_TOLERANCES[torch.bfloat16])  # raises on a wrong answer
        t, _, _ = time_fn(fn, sets, device=dev)
        out.append({"impl": name, "shape": [m, n], "bytes_moved": moved, "us": t.best_s * 1e6,
                    "gbps": moved / t.best_s / 1e9, "mode": t.graph_mode or t.mode})
        del sets
    return out

if __name__ == "__main__":
    main()
