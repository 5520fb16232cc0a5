"""Is the Triton rung's gap at M = 128 (0.94-0.97x torch._scaled_mm at N = 8192) the token tile's
reads from L2? Its pick there (128 tokens x 64 weight rows a program, 128 programs) reads the
whole token tile once for every weight tile: 2 bytes of tokens from L2 for each weight byte, 3 in
all through L2 per weight byte, where the 64-token pick reads 1 and 2. No tiling of 128 programs
does much better (a program's rows r and tokens t with r * t = N * M / 128 read (r + t) * K, least
at r = t: 2.8 per weight byte at M = 128), so only a K split or a multicast (the CUTLASS rung's
token tiles) would cut it.

The probe: the M = 128 pick's kernel as it is (the same tile, the same MMA work a K step) run with
64 tokens, whose masked rows load nothing: half the token bytes, nothing else changed. If L2 reads
decide, it runs near the 64-token pick's time; if the MMAs or the instruction stream do, near the
M = 128 time. Each run is checked against the float64 reference first.

    python benchmarks/h200_session40/l2_probe.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import grading  # noqa: E402,F401  (first: CPU mode before any @triton.jit)
import torch  # noqa: E402

from grading.check import compare  # noqa: E402
from grading.lesson_fp8 import gemm_args  # noqa: E402
from grading.specs.fp8_gemm import E4M3, GEMM_TOLERANCES, fp8_gemm_ref  # noqa: E402
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import fp8_gemm as sol  # noqa: E402


SHAPES = ((8192, 8192), (8192, 28672), (28672, 8192))  # (N, K)


def main() -> int:
    dev = torch.device("cuda")
    print(f"{'shape':>16} {'implementation':<60} {'us':>7} {'weight GB/s':>11} {'rel. error':>10}")
    for n, k in SHAPES:
        big = sol.pick_config(128, n, k)
        for m in (128, 64):
            sets = [(gemm_args(m, n, k), {}) for _ in range(rotation_count(m * k + n * k + 2 * m * n, dev))]
            ref = fp8_gemm_ref(*sets[0][0])
            fns = {"torch._scaled_mm": sol.fp8_gemm_scaled_mm,
                   f"pick: {sol.pick_config(m, n, k).describe()}": sol.fp8_gemm_triton}
            if m != 128:
                fns[f"M = 128's pick: {big.describe()}"] = (
                    lambda a, b, sa, sb, cfg=big: sol._variant(a, b, sa, sb, torch.bfloat16, cfg, None))
            for name, fn in fns.items():
                err = compare(fn(*sets[0][0]), ref, GEMM_TOLERANCES[E4M3])[0]
                t, _, _ = time_fn(fn, sets, target_s=0.2)
                gbps = n * k / t.best_s / 1e9
                print(f"{m:>4}x{n}x{k} {name[:60]:<60} {t.best_s * 1e6:7.2f} {gbps:11.0f} {err:10.2e}", flush=True)
            del sets
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
