"""The rmsnorm kernels at decode sizes, once each, for Nsight Compute to profile.

    ncu --cache-control none --clock-control none -k regex:"rmsnorm|triton_(per|red)" \
        --section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats \
        python benchmarks/h200_session11/ncu_probe.py [--cuda-from DIR,...] [--fused]

The bench's graph timing says the CUDA rung's kernel takes 0.1-0.4 µs longer than the Triton
rung's at 1-256 x 4096 (bf16); the kernels' own durations and where their warps stall tell
whether that time is in the kernel (and in what) or around it. Each kernel runs 3 times on
fresh inputs after a warm-up pass; the other 63 input sets are touched in between, as the bench's
rotation does, so L2 holds what it holds in the bench.
"""
import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import grading  # noqa: E402,F401
from grading.specs import rmsnorm as spec_module  # noqa: E402
from benchmarks.rmsnorm_variants import cuda_build  # noqa: E402
from solutions import rmsnorm as sol  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-from", default="")
    ap.add_argument("--fused", action="store_true")
    ap.add_argument("--shapes", default="1x4096,256x4096")
    args = ap.parse_args()
    if args.fused:
        impls = {"ref triton": sol.fused_add_rmsnorm_triton, "ref cuda": sol.fused_add_rmsnorm_cuda,
                 "compile static": spec_module.fused_add_rmsnorm_compile_static}
    else:
        impls = {"ref triton": sol.rmsnorm_triton, "ref cuda": sol.rmsnorm_cuda,
                 "compile static": spec_module.rmsnorm_compile_static}
    for folder in filter(None, args.cuda_from.split(",")):
        impls[f"cuda from {Path(folder).name}"] = cuda_build(folder, args.fused)
    for shape in args.shapes.split(","):
        m, n = map(int, shape.split("x"))
        sets = []
        for _ in range(64):
            x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
            sets.append((x, torch.randn_like(x), w) if args.fused else (x, w))
        for name, fn in impls.items():
            fn(*sets[0])  # compile / build outside the profiled launches' order
        torch.cuda.synchronize()
        for name, fn in impls.items():
            print(f"== {name} {m}x{n}", flush=True)
            for i in range(3):
                for s in sets[1:]:  # touch the rotation, as the bench's replays do
                    s[0].add_(0)
                fn(*sets[i])
            torch.cuda.synchronize()


if __name__ == "__main__":
    main()
