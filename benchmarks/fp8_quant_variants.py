"""fp8_quantize builds timed side by side in one run: the reference CUDA quantizer, other builds of
it (a candidate, or an earlier revision), the Triton and compiled rungs.

    python benchmarks/fp8_quant_variants.py [--json PATH] [--cuda-from DIR[,DIR...]] [--only PREFIXES]
                                           [--shapes MxK,...]

DIR holds another fp8_quant.cu and fp8_quant_launch.cuh (`git show REV:csrc/fp8_quant.cu >
DIR/fp8_quant.cu`, the same for the launcher). Every build must give the reference CUDA
quantizer's bytes and scales exactly (the same arithmetic in another order or plan), and the
reference's within the spec's tolerance of the float64 reference; then each is timed as the
bench times it: per token, bf16, the bench's Llama shapes, inputs rotated past L2, CUDA-graph
replays where a call takes under 30 µs, single launches after an L2 flush past that. "triton PDL"
and "triton without PDL" are the Triton rung with programmatic dependent launch (_QUANT_PDL) on
and off; the CUDA rung without it is a --cuda-from folder with kDependentLaunch = false.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401  (first: without a GPU it switches Triton to its interpreter)
from grading.specs import fp8_gemm as spec  # noqa: E402
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import fp8_gemm as sol  # noqa: E402

SHAPES = [(1, 4096), (16, 4096), (128, 4096), (1024, 4096), (4096, 4096), (16384, 4096),
          (128, 8192), (1024, 8192), (4096, 8192), (16384, 8192)]


def cuda_build(folder: str):
    """fp8_quantize from the fp8_quant.cu and fp8_quant_launch.cuh in `folder`."""
    ops = sol.load_quant_ops(Path(folder) / "fp8_quant.cu")
    return lambda x, per_token: tuple(ops.fp8_quantize(x, per_token))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--cuda-from", help="folders (comma-separated), each with another fp8_quant.cu + "
                                        "fp8_quant_launch.cuh to time beside the reference")
    ap.add_argument("--only", help="comma-separated name prefixes of the implementations to time")
    ap.add_argument("--shapes", help="comma-separated MxK to time instead of the list's (e.g. 1x4096,4096x4096)")
    args = ap.parse_args()
    shapes = [tuple(int(d) for d in s.split("x")) for s in args.shapes.split(",")] if args.shapes else SHAPES

    def triton_pdl(on):
        def quantize(x, per_token):
            saved, sol._QUANT_PDL = sol._QUANT_PDL, on
            try:
                return sol.fp8_quantize_triton(x, per_token)
            finally:
                sol._QUANT_PDL = saved
        return quantize

    impls = {"ref cuda": sol.fp8_quantize_cuda, "ref triton": sol.fp8_quantize_triton,
             "ref compiled": sol.fp8_quantize_compiled, "triton PDL": triton_pdl(True),
             "triton without PDL": triton_pdl(False)}
    for folder in args.cuda_from.split(",") if args.cuda_from else ():
        impls[f"cuda from {folder}"] = cuda_build(folder)
    if args.only:
        impls = {k: f for k, f in impls.items() if k.startswith(tuple(args.only.split(",")))}
    rows = []
    for m, k in shapes:
        nbytes = m * k * 3 + m * 4  # x read (bf16), q written (e4m3), the scales
        sets = [((torch.randn(m, k, device="cuda", dtype=torch.bfloat16) * 3, True), {})
                for _ in range(rotation_count(nbytes, torch.device("cuda")))]
        x = sets[0][0][0]
        q_ref, s_ref = sol.fp8_quantize_cuda(x, True)
        q64, s64 = spec.fp8_quantize_ref(x, True)
        # The reference rung against the float64 reference: scales to fp32 rounding, q within one
        # e4m3 step (what the spec allows), so the exact comparisons below mean something.
        torch.testing.assert_close(s_ref, s64.to(s_ref.dtype), rtol=1e-6, atol=0)
        step = (q_ref.float() - q64.float()).abs() / (q64.float().abs() * 2 ** -3).clamp_min(2 ** -9)
        assert step.max().item() <= 1.0, f"ref cuda: q off by more than one e4m3 step at {m} x {k}"
        for name, fn in impls.items():
            q, s = fn(x, True)
            if name.startswith("triton "):  # the same kernel, launched otherwise: the Triton rung's bytes
                qt, st = sol.fp8_quantize_triton(x, True)
                assert torch.equal(q.view(torch.uint8), qt.view(torch.uint8)) and torch.equal(s, st), \
                    f"{name}: q or the scales differ from the Triton rung at {m} x {k}"
            if name.startswith("cuda from"):
                assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8)) and torch.equal(s, s_ref), \
                    f"{name}: q or the scales differ from the reference CUDA quantizer at {m} x {k}"
            t, _, _ = time_fn(fn, sets)
            rows.append({"impl": name, "shape": [m, k], "us": t.best_s * 1e6, "spread": t.spread,
                         "gbps": nbytes / t.best_s / 1e9, "graph": t.graph_median_s is not None})
            print(f"{name:28s} {m:6d}x{k:<5d} {t.best_s * 1e6:8.2f} µs  {nbytes / t.best_s / 1e9:6.0f} GB/s  "
                  f"±{t.spread * 100:.0f}%{' graph' if t.graph_median_s is not None else ''}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
