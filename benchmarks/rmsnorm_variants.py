"""rmsnorm launch plans, timed side by side in one run against static torch.compile.

    python benchmarks/rmsnorm_variants.py [--json PATH] [--fused] [--small]

At N = 8192 the static-shape torch.compile baseline (Inductor autotunes its persistent reduction
per shape) ran 4% ahead of the reference Triton plan (BLOCK_M = 1, 16 warps) in the H200 bench
(benchmarks/rmsnorm_bench.md); with --small, the decode and small-batch shapes (M <= 256), where
fused_add_rmsnorm's Triton rung ran 4.0 µs against the compiled rung's 3.7 at 256 x 4096, timed
as the bench times them (CUDA-graph replays over rotated inputs larger than L2). This sweeps the Triton launcher's rows per program and warps at the
shapes where the gap is, with the reference rungs and the baselines in the same run. Each variant
is checked against the float64 reference before it is timed.
"""
import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading.check import compare  # noqa: E402
from grading.spec import DEFAULT_TOLERANCES  # noqa: E402
from grading.specs import rmsnorm as spec_module  # noqa: E402
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import rmsnorm as sol  # noqa: E402

SHAPES = [(4096, 4096), (4096, 8192), (16384, 8192), (32768, 8192)]
PLANS = [(1, 4), (1, 8), (1, 16), (1, 32), (2, 8), (2, 16), (4, 16)]  # (rows per program, warps)
SMALL_SHAPES = [(1, 4096), (16, 4096), (64, 4096), (256, 4096), (1, 8192), (256, 8192)]
SMALL_PLANS = [(1, 2), (1, 4), (1, 8), (1, 16), (2, 4), (2, 8), (4, 8)]


def triton_plan(block_m, warps, fused):
    def plain(x, w):
        y = torch.empty_like(x)
        sol._launch(x, None, w, 1e-6, y, None, block_m=block_m, num_warps=warps)
        return y

    def with_residual(x, r, w):
        y, h = torch.empty_like(x), torch.empty_like(x)
        sol._launch(x, r, w, 1e-6, y, h, block_m=block_m, num_warps=warps)
        return y, h
    return with_residual if fused else plain


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--fused", action="store_true", help="fused_add_rmsnorm instead of rmsnorm")
    ap.add_argument("--small", action="store_true", help="M <= 256, timed in CUDA graphs")
    args = ap.parse_args()
    shapes, plans = (SMALL_SHAPES, SMALL_PLANS) if args.small else (SHAPES, PLANS)
    if args.fused:
        impls = {"ref triton": sol.fused_add_rmsnorm_triton, "ref cuda": sol.fused_add_rmsnorm_cuda,
                 "compile static": spec_module.fused_add_rmsnorm_compile_static}
        ref_fn = spec_module.fused_add_rmsnorm_ref
    else:
        impls = {"ref triton": sol.rmsnorm_triton, "ref cuda": sol.rmsnorm_cuda,
                 "compile static": spec_module.rmsnorm_compile_static,
                 "F.rms_norm": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-6)}
        ref_fn = spec_module.rmsnorm_ref
    impls.update({f"triton BLOCK_M={m} warps={w}": triton_plan(m, w, args.fused) for m, w in plans})
    tol = DEFAULT_TOLERANCES[torch.bfloat16]
    rows = []
    for m, n in shapes:
        nbytes = (4 if args.fused else 2) * m * n * 2 + n * 2  # x (+ residual) in, y (+ h) out
        # Small shapes: enough input sets that a graph replaying one call per set reads from HBM.
        sets = []
        for _ in range(rotation_count(nbytes, torch.device("cuda")) if args.small else 1):
            x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
            sets.append(((x, torch.randn_like(x), w) if args.fused else (x, w), {}))
        inputs = sets[0][0]
        ref = ref_fn(*inputs)
        for name, fn in impls.items():
            out = fn(*inputs)
            for o, r in zip(out if isinstance(out, tuple) else (out,), ref if isinstance(ref, tuple) else (ref,)):
                compare(o, r, tol)
            t, _, _ = time_fn(fn, sets, graph=args.small)
            rows.append({"impl": name, "shape": [m, n], "us": t.best_s * 1e6, "spread": t.spread,
                         "gbps": nbytes / t.best_s / 1e9, "graph": t.graph_median_s is not None})
            print(f"{name:28s} {m:6d}x{n:<5d} {t.best_s * 1e6:8.2f} µs  {nbytes / t.best_s / 1e9:6.0f} GB/s  "
                  f"±{t.spread * 100:.0f}%{' graph' if t.graph_median_s is not None else ''}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "fused": args.fused,
                                               "small": args.small, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
