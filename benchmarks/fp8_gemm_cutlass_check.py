"""The CUTLASS fp8_gemm (csrc/fp8_gemm_cutlass.cu) on a Hopper GPU: every configuration checked
against a float64 reference, then timed next to torch._scaled_mm at Llama-3 8B/70B shapes.

    python benchmarks/fp8_gemm_cutlass_check.py [--json PATH] [--no-sweep | --shipped-build | --builds 0,4]
        [--configs 36,53] [--ms 1,16,...]

Twenty libraries are built side by side, each by its own process (nvcc compiles one file on one
core, ~260 s for the largest on an H200 host's cores): the file as shipped (build 0: the
configurations the dispatch picks from, SHIPPED_PICKS below, and the run-time variants of their
kernels) and the sweep builds, the same file with KL_FP8_GEMM_SWEEP = 1 to 19. Their candidates
are in csrc/fp8_gemm_cutlass_sweep.cuh, each with what it tests and why; BUILDS below says which
build holds which configuration. Every configuration is checked against float64 before anything
is timed. Columns: TFLOP/s; "w%" = the weight's bytes (N x K) per second as a share of this run's
device-to-device copy bandwidth, the roof for small M; "x" = ours / torch._scaled_mm with the
same kind of scales. Expected duration on an H200: ~4.5 min of builds, ~3 min of checks and
timings.
"""
import argparse
import faulthandler
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading.check import Mismatch, compare
from grading.cuda import cache_root, load_kernel
from grading.spec import DEFAULT_TOLERANCES
from grading.timing import rotation_count, time_fn

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "csrc" / "fp8_gemm_cutlass.cu"
FP8 = torch.float8_e4m3fn
DEVICE = "cuda"
# (N, K) of Llama-3 8B (qkv/o 4096x4096, gate/up 14336x4096, down 4096x14336) and 70B (8192x8192,
# 28672x8192, 8192x28672); M is the number of tokens in the batch.
SHAPES = [(4096, 4096), (14336, 4096), (4096, 14336), (8192, 8192), (28672, 8192), (8192, 28672)]
MS = [1, 16, 64, 128, 512, 4096, 8192]
CHECK_MS = [1, 16, 37, 128, 4096]
CHECK_N, CHECK_K = 4104, 4096 + 48  # N not a multiple of any tile; K ends in a partial k-block
# The split-K configurations cut K into batches of whole 128-deep k-tiles or not at all, so at
# CHECK_K they run unsplit; they are checked again at 36 k-tiles (2 and 4 batches).
SPLIT_CONFIGS = (86, 87, 88, 89, 90, 91)
SPLIT_CHECK_K = 36 * 128
# The configurations each build holds: 0 = the file as shipped, n = built with KL_FP8_GEMM_SWEEP=n.
BUILDS = {0: [3, 4, 10, 11, 15, 17, 18, 19, 20, 29, 30, 36, 41, 42, 43, 44, 48, 51, 52, 53, 58, 59, 64, 65,
              66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 81, 82, 92, 96, 100, 101, 102, 109, 110, 111, 112,
              116, 119, 120],
          1: [5, 6],
          2: [7, 8, 16], 3: [9], 4: [1, 12, 13, 14], 5: [31, 32, 34, 35],
          6: [37, 38, 39], 7: [40], 8: [45], 9: [2, 21, 22, 23, 24, 25, 26, 27, 28, 33],
          10: [46, 47], 11: [49, 50], 12: [57], 13: [60, 61, 62], 14: [63], 15: [77, 78, 79, 80],
          16: [86, 87, 88, 89, 90, 91], 17: [97, 98], 18: [99, 103, 104, 105, 106, 107, 108],
          19: [113, 114, 115, 117, 118, 121]}
# What the dispatch picks from (build 0's twenty-five kernels; tests/test_fp8_gemm_pick.py checks this
# list against csrc/fp8_gemm_cutlass_pick.h).
SHIPPED_PICKS = (29, 36, 41, 42, 43, 44, 48, 53, 59, 64, 65, 81, 82, 92, 96, 100, 101, 102, 109, 110, 111, 112,
                 116, 119, 120)
# No fp32 promotion, K past 4096 in the check: the error is reported (marked *), not judged. 81 and
# 82, picks at K <= 4096, are judged like the rest.
FAST_ACCUM = {6}
TARGET_S = 0.1  # seconds per timing (--target-s): ~520 timings, about two and a half minutes


def sweep_configs(m):
    """The forced configurations worth timing at M: the decode picks and their predecessors
    (build 9) and neighbours where the weight's bytes decide (M <= 128: swap-AB, stream-K and split-K
    variants, the cluster candidates 31-32 and 46-47, the two-temporaries candidates 40, 42 and 45,
    build 13's stream-K ones 60-62, 63-65 at M <= 64, the batched split-K kernels 86-91, 92, the
    256-row tiles 96-98 and the 40- and 48-token tiles 103-104, 109-110 and 118 at M <= 64, the
    128x64 tiles 99-100, the 56-, 80-, 96- and 112-token tiles 108, 105-106, 101-102 and 107 and
    their wide-instruction twins 111-115, the 128x112 tiles 116-117, 115 and 41 in a 1x2 cluster
    (119-120) and the 72-token tiles 121 at M <= 128); the promotion, stream-K, swizzle and
    ping-pong variants of the big tiles where the FLOPs do (51-53: 30 promoting every 512, 1024,
    2048 of K; 58 stream-K forced), beside the picks 29, 36, 53 and 59, sweep build 6's 37-39, 11's
    49-50 and 12's 57, and 53 and 36 with their tiles walked in other orders (66-75: swizzle 2, 4,
    8; down M; along N), 53 promoting every 4096 of K (76), 53's epilogue in other pieces (77-80)
    and the ping-pong kernels with fast accumulation (81-82)."""
    if m <= 64:
        return [1, 7, 12, 13, 14, 2, 3, 21, 22, 24, 25, 26, 28, 31, 32, 33, 42, 47, 60, 61, 63, 64, 65, 41, 43,
                86, 87, 90, 91, 92, 96, 97, 98, 103, 104, 109, 110, 118]
    if m <= 128:
        return [2, 3, 15, 4, 10, 5, 8, 23, 22, 27, 26, 28, 29, 31, 33, 40, 45, 46, 47, 61, 62, 48, 41, 44,
                86, 87, 88, 89, 92, 99, 100, 101, 102, 105, 106, 107, 108, 111, 112, 113, 114, 115, 116, 117,
                119, 120, 121]
    return [3, 15, 19, 20, 4, 10, 17, 18, 11, 5, 8, 16, 9, 6, 29, 30, 51, 52, 53, 34, 35, 36, 37, 38, 39, 49, 50,
            57, 58, 59, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82]


def _fake(a, b, scale_a, scale_b, config=0):
    return a.new_empty((a.shape[0], b.shape[0]), dtype=torch.bfloat16)


def _load(source):
    return load_kernel("fp8_gemm_cutlass", source, cutlass=True,
                       fake={"fp8_gemm": _fake, "fp8_gemm_config": _fake})


def sweep_source(n):
    """Sweep build n's source: a two-line file in the build cache defining KL_FP8_GEMM_SWEEP and
    including the shipped file, written where it is not there yet (the same path every run, so a
    build made earlier is found again)."""
    folder = cache_root() / "fp8_gemm_cutlass_sweeps"
    folder.mkdir(parents=True, exist_ok=True)
    wrapper = folder / f"fp8_gemm_cutlass_sweep{n}.cu"
    text = f'#define KL_FP8_GEMM_SWEEP {n}\n#include "{SOURCE}"\n'
    if not wrapper.is_file() or wrapper.read_text() != text:
        wrapper.write_text(text)
    return wrapper


def build(sweep, builds=tuple(BUILDS)):
    """The libraries `builds` names (0: the file as shipped), compiled in parallel child processes,
    then loaded here from the cache. Returns the shipped library and {config: library holding it}.
    A sweep build's source is sweep_source(n)'s (--build-only builds them ahead)."""
    sources = {0: SOURCE}
    if sweep:
        sources.update({n: sweep_source(n) for n in builds if n})
    t0 = time.perf_counter()
    print(f"compiling {', '.join(s.name for s in sources.values())} in parallel (minutes, unless cached)",
          flush=True)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from benchmarks.fp8_gemm_cutlass_check import _load; "
            "from pathlib import Path; _load(Path(sys.argv[2]))")
    procs = {n: subprocess.Popen([sys.executable, "-c", code, str(REPO), str(s)], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True) for n, s in sources.items()}
    for n, p in procs.items():
        out, _ = p.communicate()
        if p.returncode:
            print(f"building {sources[n].name} failed:\n{out[-4000:]}", flush=True)
    libs = {n: _load(s) for n, s in sources.items()}  # raises CudaCompileError with the first errors
    print(f"built {len(sources)} libraries in {time.perf_counter() - t0:.0f} s", flush=True)
    ops = {c: libs[n] for n, configs in BUILDS.items() if n in libs for c in configs}
    if not sweep:
        ops = {c: libs[0] for c in SHIPPED_PICKS}
    return libs[0], ops


def fp8_rand(rows, cols, gen):
    """e4m3 values of unit-ish size: randn, cast (round to nearest)."""
    return torch.randn(rows, cols, generator=gen, device=DEVICE).to(FP8)


def scales(m, n, per_row, gen):
    if not per_row:
        return (torch.rand(1, generator=gen, device=DEVICE) + 0.5) / 64, \
               (torch.rand(1, generator=gen, device=DEVICE) + 0.5) / 64
    return (torch.rand(m, 1, generator=gen, device=DEVICE) + 0.5) / 64, \
           (torch.rand(n, 1, generator=gen, device=DEVICE) + 0.5) / 64


def check(main, ops, seed, k=CHECK_K):
    """Each configuration against float64 at K = k, both kinds of scales."""
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    tol = DEFAULT_TOLERANCES[torch.bfloat16]
    failures, rows, wrong = [], [], set()
    configs = [0, *ops]
    print(f"\ncorrectness vs float64, N={CHECK_N} K={k}, seed {seed}: relative L2 error per config "
          f"(bf16 rounding of the exact result alone: 'bf16'; * = fast accumulation, not judged)", flush=True)
    print(f"{'M':>5} {'scales':7} {'bf16':>8} {'_scaled_mm':>10} " + " ".join(f"{c:>8}" for c in configs))
    for m in CHECK_MS:
        a, b = fp8_rand(m, k, gen), fp8_rand(CHECK_N, k, gen)
        exact = a.double() @ b.double().T  # [M, N]
        for per_row in (False, True):
            sa, sb = scales(m, CHECK_N, per_row, gen)
            ref = exact * sa.double() * sb.double().view(1, -1)
            floor = (ref.to(torch.bfloat16).double() - ref).norm().item() / ref.norm().item()
            try:
                cublas = torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb.view(1, -1), out_dtype=torch.bfloat16)
                cublas_err = (cublas.double() - ref).norm().item() / ref.norm().item()
            except RuntimeError:  # a scale layout this torch's _scaled_mm does not take
                cublas_err = float("nan")
            errs = []
            for c in configs:
                lib = main if c == 0 else ops[c]
                try:
                    y = lib.fp8_gemm(a, b, sa, sb) if c == 0 else lib.fp8_gemm_config(a, b, sa, sb, c)
                    assert y.shape == (m, CHECK_N) and y.dtype == torch.bfloat16, f"got {y.shape} {y.dtype}"
                    if c in FAST_ACCUM:
                        rel = ((y.double() - ref).norm() / ref.norm()).item()
                        errs.append(f"{rel:7.1e}*")
                        rows.append({"m": m, "k": k, "per_row": per_row, "config": c, "rel_l2": rel,
                                     "judged": False})
                        continue
                    rel, _ = compare(y, ref, tol, scale=ref.abs().max().item(),
                                     what=f"config {c}, M={m}, {'row' if per_row else 'tensor'} scales")
                    errs.append(f"{rel:8.1e}")
                    rows.append({"m": m, "k": k, "per_row": per_row, "config": c, "rel_l2": rel})
                except (Mismatch, AssertionError, RuntimeError, ValueError) as e:
                    errs.append(f"{'FAIL':>8}")
                    wrong.add(c)
                    failures.append(f"config {c} M={m} K={k} per_row={per_row} seed={seed}: {e}")
                    if len(failures) == 1 or not failures[-2].startswith(f"config {c} "):
                        print(f"    config {c} fails: {str(e).splitlines()[0][:300]}", flush=True)
            print(f"{m:5d} {'row' if per_row else 'tensor':7} {floor:8.1e} {cublas_err:10.1e} " + " ".join(errs),
                  flush=True)
    return failures, rows, wrong


def check_api(main, seed):
    """torch.compile through the op, and bad arguments refused with the argument's name."""
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    failures = []
    # torch.compile: the fake implementation lets dynamo trace through the op.
    a, b = fp8_rand(37, 512, gen), fp8_rand(1024, 512, gen)
    sa, sb = scales(37, 1024, True, gen)
    compiled = torch.compile(lambda a, b, sa, sb: main.fp8_gemm(a, b, sa, sb).float() * 2, fullgraph=True)
    try:
        torch.testing.assert_close(compiled(a, b, sa, sb), 2 * main.fp8_gemm(a, b, sa, sb).float())
    except Exception as e:  # noqa: BLE001 - reported with the rest
        failures.append(f"torch.compile: {type(e).__name__}: {e}")

    # Bad arguments are refused with the argument's name.
    bad = {
        "K multiple of 16": (lambda: main.fp8_gemm(fp8_rand(4, 40, gen), fp8_rand(16, 40, gen), sa[:1], sb[:1]),
                             "multiple of 16"),
        "N multiple of 8": (lambda: main.fp8_gemm(fp8_rand(4, 64, gen), fp8_rand(12, 64, gen), sa[:1], sb[:1]),
                            "multiple of 8"),
        "dtype": (lambda: main.fp8_gemm(a.to(torch.bfloat16), b, sa, sb), "a: expected dtype"),
        "scale shape": (lambda: main.fp8_gemm(a, b, sa[:5], sb), "scale_a: expected shape"),
        "K mismatch": (lambda: main.fp8_gemm(a, b[:, :256], sa, sb), "b: expected [N, K]"),
    }
    for name, (fn, text) in bad.items():
        try:
            fn()
            failures.append(f"bad arguments ({name}): no error raised")
        except (RuntimeError, ValueError, TypeError) as e:
            if text not in str(e):
                failures.append(f"bad arguments ({name}): error does not say {text!r}: {e}")
    return failures


def copy_bandwidth():
    """This run's device-to-device copy bandwidth (bytes read + written per second), 1 GiB."""
    src = torch.empty(2**30, dtype=torch.uint8, device=DEVICE)
    dst = torch.empty_like(src)
    t, _, _ = time_fn(lambda: dst.copy_(src), [((), {})], target_s=0.2, graph=False)
    return 2 * 2**30 / t.median_s


def timings(main, ops, ms, sweep, copy_bps, target_s=TARGET_S):
    rows = []
    hdr = (f"{'N x K':>12} {'M':>5} | {'cuBLAS/t':>8} {'ours/t':>7} {'x':>5} {'w%':>4} | "
           f"{'cuBLAS/r':>8} {'ours/r':>7} {'x':>5} | pick | vs cuBLAS | sweep config:TFLOP/s")
    print(f"\ntiming: TFLOP/s, /t per-tensor scales, /r row-wise; copy roof {copy_bps / 1e12:.2f} TB/s; "
          f"'vs cuBLAS' = relative L2 difference of the outputs\n{hdr}",
          flush=True)
    gen = torch.Generator(device=DEVICE).manual_seed(0)
    for n, k in SHAPES:
        for m in ms:
            sets = rotation_count(n * k + m * k + 2 * m * n, torch.device(DEVICE))
            inputs = []
            for _ in range(sets):
                a, b = fp8_rand(m, k, gen), fp8_rand(n, k, gen)
                inputs.append((a, b, *scales(m, n, False, gen), *scales(m, n, True, gen)))
            flop, wbytes = 2 * m * n * k, n * k

            def args_for(scale):
                return [((x[0], x[1], *(x[2:4] if scale == "tensor" else x[4:6])), {}) for x in inputs]

            def run(name, fn, config=None, scale="tensor"):
                try:
                    t, _, _ = time_fn(fn, args_for(scale), target_s=target_s)
                except (RuntimeError, ValueError) as e:
                    rows.append({"n": n, "k": k, "m": m, "provider": name, "config": config, "scales": scale,
                                 "error": str(e).splitlines()[0]})
                    return None
                s = t.best_s
                rows.append({"n": n, "k": k, "m": m, "provider": name, "config": config, "scales": scale,
                             "us": s * 1e6, "spread": t.spread, "tflops": flop / s / 1e12,
                             "weight_pct_of_copy": 100 * wbytes / s / copy_bps, "mode": t.graph_mode or t.mode})
                return flop / s / 1e12

            def cublas(a, b, sa, sb):
                return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb.view(1, -1), out_dtype=torch.bfloat16)

            def ours(a, b, sa, sb):
                return main.fp8_gemm(a, b, sa, sb)

            line, diffs = [], []
            for scale in ("tensor", "row"):
                tc = run("scaled_mm", cublas, scale=scale)
                to = run("cutlass", ours, config=0, scale=scale)
                ratio = f"{to / tc:5.2f}" if tc and to else "  n/a"
                if tc and to:  # agreement at K up to 28672 (fast accumulation) on the first input set
                    (a, b, sa, sb), _ = args_for(scale)[0]
                    yc, yo = cublas(a, b, sa, sb).double(), ours(a, b, sa, sb).double()
                    diffs.append(((yo - yc).norm() / yc.norm()).item())
                    rows[-1]["rel_l2_vs_scaled_mm"] = diffs[-1]
                col = f"{tc or 0:8.0f} {to or 0:7.0f} {ratio}"
                if scale == "tensor":
                    col += f" {100 * wbytes * (to or 0) * 1e12 / flop / copy_bps:4.0f}"
                line.append(col)
            picked = int(main.fp8_gemm_pick(m, n, k))
            sw = []
            if sweep:
                for c in sweep_configs(m):
                    if c in ops:
                        tf = run("cutlass", lambda a, b, sa, sb, c=c: ops[c].fp8_gemm_config(a, b, sa, sb, c),
                                    config=c)
                        sw.append(f"{c}:{tf or 0:.0f}")
            diff = f"{max(diffs):9.1e}" if diffs else "      n/a"
            print(f"{n:>6}x{k:<5} {m:5d} | {line[0]} | {line[1]} | {picked:4d} | {diff} | {' '.join(sw)}", flush=True)
    return rows


def summary(rows):
    """Per M: each configuration's time against torch._scaled_mm (per-tensor scales), the geometric
    mean over the shapes both ran, and at how many shapes it was the fastest of ours: what a pick
    for that M would gain. Returned for the JSON as well."""
    us = {}
    for r in rows:
        if r.get("scales") == "tensor" and "us" in r:
            key = "scaled_mm" if r["provider"] == "scaled_mm" else f"cfg{r['config']}"
            us[(r["n"], r["k"], r["m"], key)] = r["us"]
    out = {}
    print("\nsummary, per-tensor scales: _scaled_mm time / ours, geometric mean over shapes "
          "(> 1: ours faster); wins = shapes where the configuration is our fastest", flush=True)
    for m in sorted({key[2] for key in us}):
        shapes = sorted({(n, k) for n, k, mm, key in us if mm == m and key == "scaled_mm"})
        configs = sorted({key for n, k, mm, key in us if mm == m and key != "scaled_mm"},
                         key=lambda c: int(c[3:]))
        best = {}
        for n, k in shapes:
            times = {c: us[(n, k, m, c)] for c in configs if (n, k, m, c) in us}
            if times:
                best[(n, k)] = min(times, key=times.get)
        cells = []
        for c in configs:
            ratios = [us[(n, k, m, "scaled_mm")] / us[(n, k, m, c)] for n, k in shapes if (n, k, m, c) in us]
            if not ratios:
                continue
            gmean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            wins = sum(1 for b in best.values() if b == c)
            out.setdefault(str(m), {})[c] = {"gmean_vs_scaled_mm": gmean, "min": min(ratios), "wins": wins}
            cells.append(f"{c[3:]}:{gmean:.2f}({wins})")
        print(f"  M={m:5d}  " + " ".join(cells) + "   (0 = the pick)", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the checks and timings here")
    ap.add_argument("--no-sweep", action="store_true", help="only the shipped configurations (one build)")
    ap.add_argument("--shipped-build", action="store_true",
                    help="sweep only the configurations of the shipped build (the dispatch's picks and the "
                         "run-time variants of their kernels: one build instead of twenty)")
    ap.add_argument("--builds", help="comma-separated builds to sweep (0 = the file as shipped, n = "
                                     "KL_FP8_GEMM_SWEEP=n; default: all)")
    ap.add_argument("--configs", help="comma-separated configurations to check and time, of the builds "
                                      "swept (default: every one they hold)")
    ap.add_argument("--build-only", action="store_true", help="build the libraries into the cache and stop")
    ap.add_argument("--ms", help="comma-separated M values to time (default: %(default)s)",
                    default=",".join(map(str, MS)))
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--target-s", type=float, default=TARGET_S,
                    help="seconds of repetitions per timing (default: %(default)s); longer evens out drift")
    args = ap.parse_args()
    faulthandler.enable()  # a crash inside a kernel library prints the Python stack that called it
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("needs a Hopper GPU (compute capability 9.0): the kernels are built for sm_90a")
    t0 = time.perf_counter()
    builds = (0,) if args.shipped_build else tuple(int(b) for b in args.builds.split(",")) if args.builds \
        else tuple(BUILDS)
    if args.build_only:
        build(not args.no_sweep, tuple(sorted({0, *builds})))
        return
    main_lib, ops = build(not args.no_sweep, tuple(sorted({0, *builds})))
    if args.configs:
        wanted = {int(c) for c in args.configs.split(",")}
        if missing := wanted - set(ops):
            sys.exit(f"--configs: {sorted(missing)} not in the builds swept ({sorted(ops)})")
        ops = {c: lib for c, lib in ops.items() if c in wanted}
    names = {c: ops[c].fp8_gemm_config_name(c) for c in ops}
    print("configs: " + "; ".join(names.values()), flush=True)
    failures, checks, wrong = check(main_lib, ops, args.seed)
    if split_ops := {c: lib for c, lib in ops.items() if c in SPLIT_CONFIGS}:
        more = check(main_lib, split_ops, args.seed, k=SPLIT_CHECK_K)
        failures, checks, wrong = failures + more[0], checks + more[1], wrong | more[2]
    if wrong - {0}:  # a configuration that computes the wrong thing is not timed
        print(f"not timed, wrong in the check: {sorted(wrong - {0})}", flush=True)
        ops = {c: lib for c, lib in ops.items() if c not in wrong}
    copy_bps = copy_bandwidth()
    rows = timings(main_lib, ops, [int(x) for x in args.ms.split(",")], not args.no_sweep, copy_bps,
                   args.target_s)
    best = summary(rows)
    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "configs": names,
              "copy_gbps": copy_bps / 1e9, "failures": failures, "checks": checks, "timings": rows,
              "summary": best}
    if args.json:  # written before the API checks, so a crash there keeps the timings
        Path(args.json).write_text(json.dumps(result, indent=1))
    print("\nAPI checks: torch.compile through the op, bad arguments", flush=True)
    failures += check_api(main_lib, args.seed)
    print(f"\n{len(failures)} failure(s) in {time.perf_counter() - t0:.0f} s")
    for f in failures:
        print("  " + f.replace("\n", "\n    "))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
