"""silu_mul variants, timed side by side in one run (the numbered steps behind the reference rungs).

    python benchmarks/silu_mul_variants.py [--json PATH] [--only PREFIXES]

CUDA: unroll (16-byte packs per thread per operand), fast math, streaming cache hints, each a
macro of csrc/silu_mul.cu. Triton: block size and warps. torch.compile: static, dynamic=True, and
the token dimension marked dynamic. "copy" (in --only) adds a device-to-device copy of the same
bytes under the same timing protocol: the copy roof at each size, next to the figure measured on 1 GiB.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading.check import compare
from grading.spec import DEFAULT_TOLERANCES
from grading.specs.silu_mul import silu_mul_ref
from grading.timing import time_fn
from solutions import silu_mul as sol

REPO = Path(__file__).resolve().parent.parent
CUDA_VARIANTS = {  # name: (unroll, fast math, streaming on the row path, flat packs per thread
    #                         (0 = no flat path), streaming on the flat path)
    "v1 unroll2": (2, 0, 0, 0, 0),
    "v2 unroll4": (4, 0, 0, 0, 0),
    "v3 unroll2 fastmath": (2, 1, 0, 0, 0),
    "v4 unroll2 streaming": (2, 0, 1, 0, 0),
    "v5 unroll4 fastmath streaming": (4, 1, 1, 0, 0),
    "v6 unroll2 fastmath streaming": (2, 1, 1, 0, 0),
    "v7 v5 + flat 32-bit, 1 pack": (4, 1, 1, 1, 1),
    "v8 v5 + flat 32-bit, 2 packs": (4, 1, 1, 2, 1),
    "v9 v7 without streaming": (4, 1, 0, 1, 0),
    "v10 v7, flat path without streaming": (4, 1, 1, 1, 0),  # the reference
}
TRITON_VARIANTS = {"block1024 w4": (1024, 4), "block2048 w4": (2048, 4), "block2048 w8": (2048, 8),
                   "block4096 w8": (4096, 8), "block8192 w16": (8192, 16)}


def cuda_variant(name, unroll, fast, stream, flat, flat_stream, tmp):
    from grading.cuda import load_kernel
    src = Path(tmp) / f"silu_mul_u{unroll}_f{fast}_s{stream}_p{flat}_fs{flat_stream}.cu"
    src.write_text(f"#define KL_SILU_UNROLL {unroll}\n#define KL_SILU_FAST_MATH {fast}\n"
                   f"#define KL_SILU_STREAMING {stream}\n#define KL_SILU_FLAT {int(flat > 0)}\n"
                   f"#define KL_SILU_FLAT_PACKS {max(flat, 1)}\n#define KL_SILU_FLAT_STREAMING {flat_stream}\n"
                   f"#include \"silu_mul.cu\"\n")
    ops = load_kernel("silu_mul", src)
    return lambda g, u: ops.silu_mul(g, u)


def triton_variant(block, warps):
    def fn(gate, up):
        n = gate.shape[-1]
        g2, u2 = gate.view(-1, n), up.view(-1, n)
        out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
        grid = (g2.shape[0], (n + block - 1) // block)
        sol._silu_mul_kernel[grid](g2, u2, out, n, g2.stride(0), u2.stride(0), BLOCK=block, num_warps=warps)
        return out
    return fn


def compiled_variants():
    f = lambda g, u: F.silu(g.float()).to(g.dtype) * u  # noqa: E731
    static = torch.compile(f)
    dyn = torch.compile(f, dynamic=True)
    marked = torch.compile(f)

    def mark(g, u):
        torch._dynamo.mark_dynamic(g, 0)
        torch._dynamo.mark_dynamic(u, 0)
        return marked(g, u)
    return {"compile static": static, "compile dynamic=True": dyn, "compile mark_dynamic(0)": mark}


def inputs(m, n, layout):
    if layout == "chunked":
        g, u = torch.randn(m, 2 * n, device="cuda", dtype=torch.bfloat16).chunk(2, dim=-1)
    else:
        g, u = (torch.randn(m, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    return g, u


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--only", help="comma-separated name prefixes, e.g. 'ref,compile static,cuda v7'")
    args = ap.parse_args()
    shapes = [(512, 14336, "contiguous"), (2048, 14336, "contiguous"), (8192, 14336, "contiguous"),
              (8192, 14336, "chunked")]
    with tempfile.TemporaryDirectory() as tmp:
        impls = {"eager": sol.silu_mul_eager, "ref triton": sol.silu_mul_triton, "ref cuda": sol.silu_mul_cuda}
        impls.update(compiled_variants())
        impls.update({f"triton {k}": triton_variant(*v) for k, v in TRITON_VARIANTS.items()})
        wanted = lambda name: not args.only or name.startswith(tuple(args.only.split(",")))  # noqa: E731
        impls = {k: f for k, f in impls.items() if wanted(k)}
        impls.update({f"cuda {k}": cuda_variant(k, *v, tmp) for k, v in CUDA_VARIANTS.items()
                      if wanted(f"cuda {k}")})
        rows = []
        for m, n, layout in shapes:
            g, u = inputs(m, n, layout)
            ref = silu_mul_ref(g, u)
            nbytes = 3 * m * n * 2
            if wanted("copy"):  # the copy roof at this size: a device-to-device copy of the same bytes
                src = torch.randn(3 * m * n // 2, device="cuda", dtype=torch.bfloat16)
                dst = torch.empty_like(src)
                t, _, _ = time_fn(lambda: dst.copy_(src), [((), {})], graph=False)
                rows.append({"impl": "copy_, same bytes", "shape": [m, n], "layout": layout,
                             "us": t.median_s * 1e6, "spread": t.spread, "gbps": nbytes / t.median_s / 1e9})
                print(f"{'copy_, same bytes':32s} {m:5d}x{n} {layout:10s} {t.median_s * 1e6:8.1f} µs  "
                      f"{nbytes / t.median_s / 1e9:6.0f} GB/s  ±{t.spread * 100:.0f}%", flush=True)
                del src, dst
            for name, fn in impls.items():
                compare(fn(g, u), ref, DEFAULT_TOLERANCES[torch.bfloat16])
                t, _, _ = time_fn(fn, [((g, u), {})], graph=False)
                rows.append({"impl": name, "shape": [m, n], "layout": layout, "us": t.median_s * 1e6,
                             "spread": t.spread, "host_us": t.host_s * 1e6, "gbps": nbytes / t.median_s / 1e9})
                print(f"{name:32s} {m:5d}x{n} {layout:10s} {t.median_s * 1e6:8.1f} µs  "
                      f"{nbytes / t.median_s / 1e9:6.0f} GB/s  ±{t.spread * 100:.0f}%  host {t.host_s * 1e6:.0f} µs",
                      flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
