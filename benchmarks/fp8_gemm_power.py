"""Clocks and power while each fp8 GEMM runs at large-M shapes: is the H200 at its power limit
there, and does torch._scaled_mm hold a higher SM clock than our kernels?

    python benchmarks/fp8_gemm_power.py [--json PATH] [--configs 36,53] [--seconds 2]
        [--ms 4096,8192 | --shapes 8192x14336x4096,...] [--no-triton] [--no-pick] [--no-cutlass]
        [--fast-accum] [--build N]   (--configs 76,15:77 takes 77 from sweep build 15, 76 from
        --build's library)

Each implementation runs back to back for --seconds at one shape while nvidia-smi samples the SM
clock, the board power and the reasons the clock is held down, every 50 ms. Two rounds, the second
in reverse order, so a GPU warming through the run shows as a difference between rounds. Columns:
µs per call (CUDA events over the whole loop), TFLOP/s, the median SM clock and power over the
loop (its first 0.4 s left out), and TFLOP/s per GHz of SM clock: the work each clock cycle does,
which a lower clock does not change. Each output is first compared with torch._scaled_mm's
(relative L2 difference; over 1e-2, the grader's tolerance for bf16, stops the run). Last, the
table chapter 02 shows (grading.lesson_fp8.power_table): per shape, torch._scaled_mm's time over
each one's, the mean of the two rounds, the same ratio the bench reports, here in the steady
state. Needs a Hopper GPU and the CUTLASS headers (the shipped library is built, or found in the
build cache).
"""
import argparse
import functools
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from benchmarks.fp8_gemm_cutlass_check import SOURCE, _load, fp8_rand, sweep_source
from grading.lesson_fp8 import power_table
from grading.specs.fp8_gemm import fp8_gemm_scaled_mm
from solutions.fp8_gemm import fp8_gemm_triton

FIELDS = ["clocks.sm", "power.draw", "temperature.gpu"]
REASONS = ["clocks_event_reasons.active", "clocks_throttle_reasons.active"]  # newer name first
SHAPES = [(8192, 14336, 4096), (4096, 4096, 4096), (8192, 8192, 28672)]  # M, N, K
LLAMA = [(4096, 4096), (14336, 4096), (4096, 14336), (8192, 8192), (28672, 8192), (8192, 28672)]  # N, K


def smi(query, *extra):
    return subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", *extra],
                          capture_output=True, text=True, timeout=20)


class Sampler:
    """nvidia-smi in loop mode (-lms 50) in a child process; a thread keeps (time, fields) pairs."""

    def __init__(self):
        self.samples, self.fields = [], None
        for reason in REASONS + [None]:
            fields = FIELDS + ([reason] if reason else [])
            if smi(",".join(fields)).returncode == 0:
                self.fields = fields
                break
        if self.fields is None:
            sys.exit("nvidia-smi did not answer a query of the SM clock and power")
        self.proc = subprocess.Popen(["nvidia-smi", f"--query-gpu={','.join(self.fields)}",
                                      "--format=csv,noheader,nounits", "-lms", "50"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.samples.append((time.monotonic(), [x.strip() for x in line.split(",")]))

    def between(self, t0, t1):
        return [f for t, f in self.samples if t0 <= t <= t1]

    def stop(self):
        self.proc.terminate()


def cutlass_impls(configs, default_build=0, pick=True, load=None):
    """{name: fn} for the CUTLASS rung's pick ("cutlass", from the file as shipped) and each of
    `configs` ("36,53" from default_build's library, "15:77" from sweep build 15), each library
    loaded once (load(build) -> library; default: built or found in the build cache)."""
    load = load or (lambda build: _load(sweep_source(build) if build else SOURCE))
    libs, impls = {}, {}

    def library(build):
        if build not in libs:
            libs[build] = load(build)
        return libs[build]

    if pick:
        impls["cutlass"] = lambda a, b, sa, sb, lib=library(0): lib.fp8_gemm(a, b, sa, sb)
    for token in (x.strip() for x in configs.split(",") if x.strip()):
        build, _, config = token.rpartition(":")
        try:
            lib, c = library(int(build) if build else default_build), int(config)
        except ValueError:
            sys.exit(f"--configs: {token!r} is neither N nor B:N (build B, configuration N)")
        impls[f"cutlass {token}"] = lambda a, b, sa, sb, lib=lib, c=c: lib.fp8_gemm_config(a, b, sa, sb, c)
    return impls


def run_for(fn, args, seconds):
    """fn(*args) back to back for about `seconds`; returns (µs a call, host start, host end)."""
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    t = time.perf_counter()
    fn(*args)
    torch.cuda.synchronize()
    one = max(time.perf_counter() - t, 1e-6)
    n = max(10, int(seconds / one))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    h0 = time.monotonic()
    start.record()
    for _ in range(n):
        fn(*args)
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / n, h0, time.monotonic()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    ap.add_argument("--configs", default="36,53",
                    help="CUTLASS configurations to run beside the pick: N from --build's library, or B:N from "
                         "build B (0 the file as shipped, n sweep build n), e.g. 76,15:77")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--no-cutlass", action="store_true", help="torch._scaled_mm and the Triton rung only")
    ap.add_argument("--no-triton", action="store_true", help="leave the Triton rung out")
    ap.add_argument("--no-pick", action="store_true", help="leave the CUTLASS rung's own pick out (--configs only)")
    ap.add_argument("--fast-accum", action="store_true",
                    help="torch._scaled_mm with use_fast_accum=True too (no promotion), beside the default call")
    ap.add_argument("--build", type=int, default=0,
                    help="the library plain --configs numbers come from: 0 the file as shipped, n sweep build n")
    ap.add_argument("--ms", help="the six Llama weights at each of these M (instead of --shapes)")
    ap.add_argument("--shapes", default=",".join(f"{m}x{n}x{k}" for m, n, k in SHAPES), help="MxNxK,...")
    args = ap.parse_args()
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        sys.exit("needs a Hopper GPU (compute capability 9.0)")
    limits = smi("power.limit,enforced.power.limit,clocks.max.sm").stdout.strip()
    impls = {"scaled_mm": fp8_gemm_scaled_mm, "triton": fp8_gemm_triton}
    if args.fast_accum:
        impls["scaled_mm fast"] = functools.partial(fp8_gemm_scaled_mm, use_fast_accum=True)
    if args.no_triton:
        del impls["triton"]
    if not args.no_cutlass:
        impls.update(cutlass_impls(args.configs, args.build, not args.no_pick))
    sampler = Sampler()
    print(f"{torch.cuda.get_device_name(0)}; power limit, enforced limit (W), max SM clock (MHz): {limits}; "
          f"sampled: {', '.join(sampler.fields)}", flush=True)
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    hdr = (f"{'M x N x K':>20} {'round':>5} {'impl':>14} | {'us':>9} {'TFLOP/s':>8} {'MHz':>6} {'W':>6} "
           f"{'C':>4} {'TF/GHz':>7} | reasons")
    print(hdr, flush=True)
    shapes = [(m, n, k) for m in map(int, args.ms.split(",")) for n, k in LLAMA] if args.ms else \
        [tuple(map(int, s.split("x"))) for s in args.shapes.split(",")]
    for m, n, k in shapes:
        a, b = fp8_rand(m, k, gen), fp8_rand(n, k, gen)
        sa = torch.full((1,), 0.02, device="cuda")
        sb = torch.full((1,), 0.03, device="cuda")
        names = list(impls)
        # Each output against torch._scaled_mm's first (the same product, promoted at other points).
        ref = impls["scaled_mm"](a, b, sa, sb).double()
        for name in names[1:]:
            diff = ((impls[name](a, b, sa, sb).double() - ref).norm() / ref.norm()).item()
            print(f"{f'{m}x{n}x{k}':>20} {name}: relative L2 difference from _scaled_mm {diff:.1e}", flush=True)
            if not diff < 1e-2:  # the grader's tolerance for a bf16 output; NaN fails too
                sys.exit(f"{name} at {m}x{n}x{k} differs from torch._scaled_mm by {diff:.1e}: not timed")
        del ref
        for rnd, order in enumerate((names, names[::-1])):
            for name in order:
                us, h0, h1 = run_for(impls[name], (a, b, sa, sb), args.seconds)
                time.sleep(0.15)  # the sampler's last lines
                got = sampler.between(h0 + 0.4, h1)
                clock = statistics.median(float(f[0]) for f in got) if got else float("nan")
                power = statistics.median(float(f[1]) for f in got) if got else float("nan")
                temp = max((float(f[2]) for f in got), default=float("nan"))
                reasons = sorted({f[3] for f in got}) if got and len(sampler.fields) > 3 else []
                tflops = 2 * m * n * k / us / 1e6
                rows.append({"m": m, "n": n, "k": k, "round": rnd, "impl": name, "us": us, "tflops": tflops,
                             "sm_mhz": clock, "power_w": power, "temp_c": temp, "reasons": reasons,
                             "samples": len(got)})
                print(f"{f'{m}x{n}x{k}':>20} {rnd:5d} {name:>14} | {us:9.1f} {tflops:8.0f} {clock:6.0f} "
                      f"{power:6.0f} {temp:4.0f} {tflops / clock * 1e3:7.0f} | {' '.join(reasons)}", flush=True)
    sampler.stop()
    result = {"device": torch.cuda.get_device_name(0), "limits": limits, "fields": sampler.fields, "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    print("\nsteady state: torch._scaled_mm's time over each one's (mean of both rounds; > 1: faster than it)",
          flush=True)
    print(power_table(result), flush=True)


if __name__ == "__main__":
    main()
