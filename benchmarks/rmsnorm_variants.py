"""rmsnorm launch plans, timed side by side in one run against static torch.compile.

    python benchmarks/rmsnorm_variants.py [--json PATH] [--fused]

At N = 8192 the static-shape torch.compile baseline (Inductor autotunes its persistent reduction
per shape) ran 4% ahead of the reference Triton plan (BLOCK_M = 1, 16 warps) in the H200 bench
(benchmarks/rmsnorm_bench.md). This sweeps the Triton launcher's rows per program and warps at the
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
from grading.timing import time_fn  # noqa: E402
from solutions import rmsnorm as sol  # noqa: E402

SHAPES = [(4096, 4096), (4096, 8192), (16384, 8192), (32768, 8192)]
PLANS = [(1, 4), (1, 8), (1, 16), (1, 32), (2, 8), (2, 16), (4, 16)]  # (rows per program, warps)


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
    args = ap.parse_args()
    if args.fused:
        impls = {"ref triton": sol.fused_add_rmsnorm_triton, "ref cuda": sol.fused_add_rmsnorm_cuda,
                 "compile static": spec_module.fused_add_rmsnorm_compile_static}
        ref_fn = spec_module.fused_add_rmsnorm_ref
    else:
        impls = {"ref triton": sol.rmsnorm_triton, "ref cuda": sol.rmsnorm_cuda,
                 "compile static": spec_module.rmsnorm_compile_static,
                 "F.rms_norm": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-6)}
        ref_fn = spec_module.rmsnorm_ref
    impls.update({f"triton BLOCK_M={m} warps={w}": triton_plan(m, w, args.fused) for m, w in PLANS})
    tol = DEFAULT_TOLERANCES[torch.bfloat16]
    rows = []
    for m, n in SHAPES:
        x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        inputs = (x, torch.randn_like(x), w) if args.fused else (x, w)
        nbytes = (4 if args.fused else 2) * m * n * 2 + n * 2  # x (+ residual) in, y (+ h) out
        ref = ref_fn(*inputs)
        for name, fn in impls.items():
            out = fn(*inputs)
            for o, r in zip(out if isinstance(out, tuple) else (out,), ref if isinstance(ref, tuple) else (ref,)):
                compare(o, r, tol)
            t, _, _ = time_fn(fn, [(inputs, {})], graph=False)
            rows.append({"impl": name, "shape": [m, n], "us": t.median_s * 1e6, "spread": t.spread,
                         "gbps": nbytes / t.median_s / 1e9})
            print(f"{name:28s} {m:6d}x{n:<5d} {t.median_s * 1e6:8.1f} µs  {nbytes / t.median_s / 1e9:6.0f} GB/s  "
                  f"±{t.spread * 100:.0f}%", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "fused": args.fused,
                                               "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
