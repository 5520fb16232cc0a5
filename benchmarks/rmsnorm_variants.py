"""rmsnorm launch plans, timed side by side in one run against torch.compile (the compiled rung, the
bench's baseline, and static shapes).

    python benchmarks/rmsnorm_variants.py [--json PATH] [--fused] [--small] [--cuda-from DIR[,DIR...]]
                                          [--inductor-code PATH] [--only PREFIXES] [--two-pass] [--static-n] [--regs]

At N = 8192 the static-shape torch.compile baseline (Inductor's looped reduction, autotuned per
shape: two reads of the row, the first evict-last) ran 4% ahead of the reference Triton plan
(BLOCK_M = 1, 16 warps) in the H200 bench (benchmarks/rmsnorm_bench.md; --two-pass times that
structure); with --small, the decode and small-batch shapes (M <= 256), where
fused_add_rmsnorm's Triton rung ran 4.0 µs against the compiled rung's 3.7 at 256 x 4096, timed
as the bench times them (CUDA-graph replays over rotated inputs larger than L2). This sweeps the Triton launcher's rows per program and warps at the
shapes where the gap is, with the reference rungs and the baselines in the same run. Each variant
is checked against the float64 reference before it is timed. --cuda-from DIR times another CUDA
build beside the reference one (several: DIR,DIR,...): DIR holds another rmsnorm.cu and
rmsnorm_launch.cuh (a candidate, or an earlier revision: `git show REV:csrc/rmsnorm.cu > DIR/rmsnorm.cu`, the same for the launcher).
--inductor-code PATH writes the Triton source Inductor generates for the static-shape baseline at
each shape, to compare plans; with --small --fused, that kernel's structure (h stored, then read
back) is also timed under several launch plans.
"""
import argparse
import json
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401  (first: without a GPU it switches Triton to its interpreter)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from grading import env  # noqa: E402
from grading.check import compare  # noqa: E402
from grading.spec import DEFAULT_TOLERANCES  # noqa: E402
from grading.specs import rmsnorm as spec_module  # noqa: E402
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import rmsnorm as sol  # noqa: E402

SHAPES = [(4096, 4096), (16384, 4096), (4096, 8192), (16384, 8192), (32768, 8192)]
PLANS = [(1, 4), (1, 8), (1, 16), (1, 32), (2, 8), (2, 16), (4, 16)]  # (rows per program, warps)
SMALL_SHAPES = [(1, 4096), (16, 4096), (64, 4096), (256, 4096), (1, 8192), (64, 8192), (256, 8192)]
SMALL_PLANS = [(1, 4), (1, 8), (1, 16), (2, 8), (2, 16)]


# Two passes over the row in chunks, as Inductor's looped reduction does at M <= 256: (chunk, warps).
SMALL_TWO_PASS = [(1024, 4), (1024, 8), (2048, 8), (2048, 16), (4096, 16)]
# Cache hints on the Triton rung's loads of x and the residual, its own plan otherwise (with or
# without --small): (load modifier, eviction policy). Triton has no load without L1 allocation
# (the CUDA rung's, 0.15-0.25 µs faster at 64-256 rows: h200_session13, call 4); ".cg" (L2
# only, LDG.E.128.STRONG.GPU) and "evict_first" (LDG.E.EF.128 on sm_90, the plan's at few rows
# since h200_session14, call 2) are its nearest. Triton 3.6 refuses ".cs" on a load, and ptxas
# the two together. "evict_last": Inductor's policy for the first of its two reads at N = 8192
# (on sm_90 L1::evict_last with an L2 evict-last policy). ("", ""): plain.
SMALL_ROW_HINTS = [("", ""), (".cg", ""), ("", "evict_first"), ("", "evict_last")]
# Inductor's own structure for fused_add_rmsnorm (h_store_kernel below): (rows, chunk, warps).
SMALL_H_STORE = [(1, 1024, 4), (1, 2048, 8), (1, 2048, 16), (1, 4096, 16), (2, 1024, 8), (2, 2048, 8), (4, 512, 4), (4, 1024, 8)]


@triton.jit
def h_store_kernel(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, n_rows, n_cols, eps,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The kernel Inductor generates for the static-shape baseline (h200_session7/
    # inductor_fused_256x4096.txt), restated: loop 1 stores h = x + r and sums h^2; loop 2 reads
    # h back (the same thread wrote each element: same layout in both loops) with the weight.
    # The sum is of h before rounding, as Inductor computes it; y is the norm of the stored h.
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    row_ok = rows < n_rows
    cols = tl.arange(0, BLOCK_N)[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        c = start + cols
        m = row_ok & (c < n_cols)
        x = tl.load(x_ptr + rows * n_cols + c, m, eviction_policy="evict_first", other=0.0).to(tl.float32)
        r = tl.load(r_ptr + rows * n_cols + c, m, eviction_policy="evict_first", other=0.0).to(tl.float32)
        h = x + r
        acc += h * h
        tl.store(h_ptr + rows * n_cols + c, h.to(h_ptr.dtype.element_ty), m)
    rstd = tl.rsqrt(tl.sum(acc, axis=1)[:, None] / n_cols + eps)
    for start in range(0, n_cols, BLOCK_N):
        c = start + cols
        m = row_ok & (c < n_cols)
        h = tl.load(h_ptr + rows * n_cols + c, m, eviction_policy="evict_first", other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, c < n_cols, eviction_policy="evict_last", other=0.0).to(tl.float32)
        tl.store(y_ptr + rows * n_cols + c, (h * rstd * w).to(y_ptr.dtype.element_ty), m)


# Two passes at many rows (--two-pass), as Inductor's static-shape kernel does at N = 8192 (its
# looped reduction: the row read for the sum of squares with evict_last, then again for y), which
# ran 2-4% ahead of both one-pass rungs at 4096-32768 x 8192 (benchmarks/rmsnorm_bench.md):
# (chunk, warps), each with the eviction policies of TWO_PASS_HINTS.
TWO_PASS = [(1024, 4), (2048, 4), (2048, 8), (4096, 8), (4096, 16)]
# (first pass, second pass): "" = none.
TWO_PASS_HINTS = [("", ""), ("evict_last", ""), ("evict_last", "evict_first")]
# --static-n: two passes with the row length a compile-time constant, as Inductor's kernel has it
# (the Triton rung's runtime loop ran 4-5% behind that kernel at 4096 x 8192 in every bench):
# (chunk, warps, first pass's policy, second's).
# A chunk as long as the row (4096 at N = 4096) is one pass, the row kept in registers.
STATIC_N = [(4096, 16, "evict_last", ""), (4096, 16, "evict_last", "evict_first"), (4096, 8, "evict_last", ""),
            (2048, 8, "evict_last", ""), (2048, 16, "evict_last", ""), (1024, 8, "evict_last", "")]


@triton.jit
def two_pass_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, CHUNK: tl.constexpr, EVICT1: tl.constexpr,
                    EVICT2: tl.constexpr, PDL: tl.constexpr = False, N_STATIC: tl.constexpr = 0,
                    TWO_CHUNKS: tl.constexpr = False):
    # A row per program, the reference kernel's two-pass path (rmsnorm only) with eviction
    # policies on its two reads of x. N_STATIC (--static-n): the row length compiled in, as in
    # Inductor's static-shape kernel: loops of a known trip count unrolled (every chunk's load of
    # a pass issued before the first is used), no masks; N_STATIC must be a multiple of CHUNK.
    # TWO_CHUNKS (--static-n): the row length at run time, CHUNK < N <= 2 * CHUNK (the rung's chunk,
    # half the row padded to a power of two): the same two loads back to back, the second masked.
    if PDL:
        tl.extra.cuda.gdc_wait()
        tl.extra.cuda.gdc_launch_dependents()
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, CHUNK)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    acc = tl.zeros([CHUNK], dtype=tl.float32)
    if N_STATIC == CHUNK:  # the row in one chunk: one read, kept in registers for y
        v = tl.load(x_row + cols, eviction_policy=EVICT1).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(v * v, axis=0) / N_STATIC + eps)
        w = tl.load(w_ptr + cols, eviction_policy="evict_last").to(tl.float32)
        tl.store(y_row + cols, (v * rstd * w).to(y_ptr.dtype.element_ty))
    elif TWO_CHUNKS:
        c2 = CHUNK + cols
        a = tl.load(x_row + cols, eviction_policy=EVICT1).to(tl.float32)
        b = tl.load(x_row + c2, mask=c2 < n_cols, other=0.0, eviction_policy=EVICT1).to(tl.float32)
        rstd = tl.rsqrt(tl.sum(a * a + b * b, axis=0) / n_cols + eps)
        for start in tl.static_range(0, 2 * CHUNK, CHUNK):
            c = start + cols
            v = tl.load(x_row + c, mask=c < n_cols, other=0.0, eviction_policy=EVICT2).to(tl.float32)
            w = tl.load(w_ptr + c, mask=c < n_cols, other=0.0, eviction_policy="evict_last").to(tl.float32)
            tl.store(y_row + c, (v * rstd * w).to(y_ptr.dtype.element_ty), mask=c < n_cols)
    elif N_STATIC:
        for start in tl.static_range(0, N_STATIC, CHUNK):
            v = tl.load(x_row + start + cols, eviction_policy=EVICT1).to(tl.float32)
            acc += v * v
        rstd = tl.rsqrt(tl.sum(acc, axis=0) / N_STATIC + eps)
        for start in tl.static_range(0, N_STATIC, CHUNK):
            v = tl.load(x_row + start + cols, eviction_policy=EVICT2).to(tl.float32)
            w = tl.load(w_ptr + start + cols, eviction_policy="evict_last").to(tl.float32)
            tl.store(y_row + start + cols, (v * rstd * w).to(y_ptr.dtype.element_ty))
    else:
        for start in range(0, n_cols, CHUNK):
            c = start + cols
            v = tl.load(x_row + c, mask=c < n_cols, other=0.0, eviction_policy=EVICT1).to(tl.float32)
            acc += v * v
        rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
        for start in range(0, n_cols, CHUNK):
            c = start + cols
            v = tl.load(x_row + c, mask=c < n_cols, other=0.0, eviction_policy=EVICT2).to(tl.float32)
            w = tl.load(w_ptr + c, mask=c < n_cols, other=0.0, eviction_policy="evict_last").to(tl.float32)
            tl.store(y_row + c, (v * rstd * w).to(y_ptr.dtype.element_ty), mask=c < n_cols)


def two_pass_plan(chunk, warps, evict1, evict2, static_n=False, two_chunks=False):
    def fn(x, w):
        y = torch.empty_like(x)
        m, n = x.shape
        if static_n and n % chunk:
            raise ValueError(f"--static-n plan of chunk {chunk}: the row length {n} is not a multiple of it")
        if two_chunks and not chunk < n <= 2 * chunk:
            raise ValueError(f"two-chunk plan of chunk {chunk}: the row length {n} is not in ({chunk}, {2 * chunk}]")
        fn.compiled[n] = two_pass_kernel[(m,)](x, w, y, n, 1e-6, CHUNK=chunk, EVICT1=evict1, EVICT2=evict2,
                                               num_warps=warps, N_STATIC=n if static_n else 0, TWO_CHUNKS=two_chunks,
                                               **env.pdl_launch(x.device))
        return y
    fn.compiled = {}  # row length -> the compiled kernel (for --regs)
    return fn


def print_registers(impls):
    """--regs: registers and spills a thread of each two-pass plan's kernel and of Inductor's kernels
    (with 16 warps, 4 programs fit on an SM's 64K registers only at 32 registers a thread or fewer)."""
    for name, fn in impls.items():
        for n, k in getattr(fn, "compiled", {}).items():
            print(f"regs {name} N={n}: {k.n_regs} registers, {k.n_spills} spilled, {k.metadata.num_warps} warps")
    from torch._inductor.codecache import PyCodeCache
    modules = list(PyCodeCache.modules) + list(getattr(PyCodeCache, "modules_no_attr", {}).values())
    for mod in modules:
        for attr, obj in vars(mod).items():
            for launcher in getattr(obj, "launchers", None) or []:
                print(f"regs inductor {attr} {getattr(launcher, 'config', '')}: "
                      f"{getattr(launcher, 'n_regs', '?')} registers, {getattr(launcher, 'n_spills', '?')} spilled")


def h_store_plan(block_m, chunk, warps):
    def fn(x, r, w):
        y, h = torch.empty_like(x), torch.empty_like(x)
        m, n = x.shape
        h_store_kernel[(triton.cdiv(m, block_m),)](x, r, w, y, h, m, n, 1e-6, BLOCK_M=block_m, BLOCK_N=chunk,
                                                   num_warps=warps)
        return y, h
    return fn


def triton_plan(block_m, warps, fused, chunk=None, row_hints=None, exact=None, w_early=None, pdl=True):
    plan = dict(block_m=block_m, num_warps=warps, chunk=chunk, row_hints=row_hints, exact=exact, w_early=w_early,
                pdl=pdl)

    def plain(x, w):
        y = torch.empty_like(x)
        sol._launch(x, None, w, 1e-6, y, None, **plan)
        return y

    def with_residual(x, r, w):
        y, h = torch.empty_like(x), torch.empty_like(x)
        sol._launch(x, r, w, 1e-6, y, h, **plan)
        return y, h
    return with_residual if fused else plain


def cuda_build(folder: str, fused: bool):
    """rmsnorm (or fused_add_rmsnorm) from the rmsnorm.cu and rmsnorm_launch.cuh in `folder`,
    built beside the reference one, called as the rung is (eps = 1e-6)."""
    ops = sol.load_cuda_ops(Path(folder) / "rmsnorm.cu")
    if fused:
        return lambda x, r, w: ops.fused_add_rmsnorm(x, r, w, 1e-6)
    return lambda x, w: ops.rmsnorm(x, w, 1e-6)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--fused", action="store_true", help="fused_add_rmsnorm instead of rmsnorm")
    ap.add_argument("--small", action="store_true", help="M <= 256, timed in CUDA graphs")
    ap.add_argument("--cuda-from", help="folders (comma-separated), each with another rmsnorm.cu + "
                                        "rmsnorm_launch.cuh to time beside the reference")
    ap.add_argument("--cuda-bounds", help="folders like --cuda-from whose kernels are not an rmsnorm (the same "
                                          "loads and stores with a step left out): timed as bounds, unchecked")
    ap.add_argument("--copy-bound", action="store_true",
                    help="also time torch's copy of x (x.clone(): the bytes of the rmsnorm, no arithmetic)")
    ap.add_argument("--two-pass", action="store_true",
                    help="also time two-pass Triton plans with eviction policies (rmsnorm, many rows)")
    ap.add_argument("--static-n", action="store_true",
                    help="also time STATIC_N's two-pass plans with the row length compiled in (rmsnorm, many rows)")
    ap.add_argument("--regs", action="store_true",
                    help="print the registers a thread of each two-pass plan's kernel and of Inductor's kernels")
    ap.add_argument("--inductor-code", help="write the static-shape baseline's generated Triton code here")
    ap.add_argument("--only", help="comma-separated name prefixes of the implementations to time "
                                   "(e.g. \"ref cuda,cuda from,compile static\"); default: all")
    ap.add_argument("--shapes", help="comma-separated MxN to time instead of the list's (e.g. 1x4096,64x4096)")
    args = ap.parse_args()
    shapes, plans = (SMALL_SHAPES, SMALL_PLANS) if args.small else (SHAPES, PLANS)
    if args.shapes:
        shapes = [tuple(int(d) for d in s.split("x")) for s in args.shapes.split(",")]
    if args.fused:
        impls = {"ref triton": sol.fused_add_rmsnorm_triton, "ref cuda": sol.fused_add_rmsnorm_cuda,
                 "ref compiled": sol.fused_add_rmsnorm_compiled,
                 "compile static": spec_module.fused_add_rmsnorm_compile_static}
        ref_fn = spec_module.fused_add_rmsnorm_ref
    else:
        impls = {"ref triton": sol.rmsnorm_triton, "ref cuda": sol.rmsnorm_cuda,
                 "ref compiled": sol.rmsnorm_compiled,  # the bench's baseline (dims marked dynamic)
                 "compile static": spec_module.rmsnorm_compile_static,
                 "F.rms_norm": lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-6)}
        ref_fn = spec_module.rmsnorm_ref
    for folder in args.cuda_from.split(",") if args.cuda_from else ():
        impls[f"cuda from {folder}"] = cuda_build(folder, args.fused)
    # Bounds: timed beside the rungs, their outputs not compared (they compute something else).
    bounds = {f"bound from {folder}": cuda_build(folder, args.fused)
              for folder in (args.cuda_bounds.split(",") if args.cuda_bounds else ())}
    if args.copy_bound:
        bounds["bound: torch copy"] = ((lambda x, r, w: (x.clone(), r.clone())) if args.fused
                                       else (lambda x, w: x.clone()))
    impls.update(bounds)
    impls.update({f"triton BLOCK_M={m} warps={w}": triton_plan(m, w, args.fused) for m, w in plans})
    # The plan with other cache hints on its loads of x and the residual (at few rows the plan's
    # are evict-first; at many rows none).
    impls.update({f"triton hints {c or '-'} {e or '-'}": triton_plan(None, None, args.fused, row_hints=(c, e))
                  for c, e in SMALL_ROW_HINTS})
    if args.small:
        impls.update({f"triton 2 passes chunk={c} warps={w}": triton_plan(1, w, args.fused, c)
                      for c, w in SMALL_TWO_PASS})
        # The kernel's EXACT (no masks where the tile covers the rows) and W_EARLY (the weight
        # loaded before the reduction), both on in the plan at few rows, each switched off.
        # Names that are no prefix of one another, for --only one at a time.
        impls.update({"triton EXACT only": triton_plan(None, None, args.fused, w_early=False),
                      "triton W_EARLY only": triton_plan(None, None, args.fused, exact=False),
                      "triton neither switch": triton_plan(None, None, args.fused, exact=False, w_early=False)})
        if args.fused:
            impls.update({f"h stored, read back: BLOCK_M={m} chunk={c} warps={w}": h_store_plan(m, c, w)
                          for m, c, w in SMALL_H_STORE})
    else:
        # The few-row plan's loads (evict-first, the weight early, no masks) at every M, the
        # plan otherwise (up to 5% slower on an H200: benchmarks/h200_session15, call 4).
        impls["triton few-row switches"] = triton_plan(None, None, args.fused, row_hints=("", "evict_first"),
                                                       exact=True, w_early=True)
    if args.two_pass and not args.fused:
        impls.update({f"triton 2 passes chunk={c} warps={w} {e1 or '-'} {e2 or '-'}": two_pass_plan(c, w, e1, e2)
                      for c, w in TWO_PASS for e1, e2 in TWO_PASS_HINTS})
    if args.static_n and not args.fused:
        impls.update({f"triton static N chunk={c} warps={w} {e1 or '-'} {e2 or '-'}": two_pass_plan(c, w, e1, e2, True)
                      for c, w, e1, e2 in STATIC_N})
        # The rung's plan at N = 8192 (chunk 4096, 16 warps, evict-last first read) as two loads
        # back to back with N at run time: what the rung could adopt without a compilation per N.
        impls["triton two chunks chunk=4096 warps=16 evict_last -"] = two_pass_plan(4096, 16, "evict_last", "",
                                                                                   two_chunks=True)
        impls["triton 2 passes chunk=4096 warps=16 evict_last -"] = two_pass_plan(4096, 16, "evict_last", "")
    # The plan without programmatic dependent launch (on in the plan on sm_90+ since
    # h200_session16, call 1, which timed it as "triton PDL" beside the plan without it).
    impls["triton without PDL"] = triton_plan(None, None, args.fused, pdl=False)
    if args.only:
        impls = {k: f for k, f in impls.items() if k.startswith(tuple(args.only.split(",")))}
    code_log = []
    tol = DEFAULT_TOLERANCES[torch.bfloat16]
    rows = []
    for m, n in shapes:
        nbytes = (4 if args.fused else 2) * m * n * 2 + n * 2  # x (+ residual) in, y (+ h) out
        # Enough input sets that no call finds its inputs in L2, as the bench rotates them: a graph
        # replaying one call per set reads from HBM (with one set, a 4096 x 4096 call's 64 MB half
        # fit in the previous call's L2 and ran ~3% faster than in the bench).
        sets = []
        for _ in range(rotation_count(nbytes, torch.device("cuda"))):
            x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
            sets.append(((x, torch.randn_like(x), w) if args.fused else (x, w), {}))
        inputs = sets[0][0]
        ref = ref_fn(*inputs)
        if args.inductor_code:
            from torch._inductor.utils import run_and_get_code
            static = (spec_module.fused_add_rmsnorm_compile_static if args.fused
                      else spec_module.rmsnorm_compile_static)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, code = run_and_get_code(static, *inputs)
            code_log.append(f"# ===== {m} x {n} =====\n" + "\n".join(code))
        for name, fn in impls.items():
            out = fn(*inputs)
            for o, r in zip(out if isinstance(out, tuple) else (out,), ref if isinstance(ref, tuple) else (ref,)):
                if name not in bounds:
                    compare(o, r, tol)
            t, _, _ = time_fn(fn, sets, graph=args.small)
            rows.append({"impl": name, "shape": [m, n], "us": t.best_s * 1e6, "spread": t.spread,
                         "gbps": nbytes / t.best_s / 1e9, "graph": t.graph_median_s is not None})
            print(f"{name:28s} {m:6d}x{n:<5d} {t.best_s * 1e6:8.2f} µs  {nbytes / t.best_s / 1e9:6.0f} GB/s  "
                  f"±{t.spread * 100:.0f}%{' graph' if t.graph_median_s is not None else ''}", flush=True)
    if args.regs:
        print_registers(impls)
    if args.inductor_code:
        Path(args.inductor_code).write_text("\n".join(code_log))
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "fused": args.fused,
                                               "small": args.small, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
