"""A few minutes on a GPU: does every reference rung run and agree with the reference there?

    python benchmarks/gpu_smoke.py [--budget SECONDS] [--json PATH] KERNEL...

For each kernel and each of its Triton and CUDA reference rungs: a sample of the spec's GPU
correctness cases through the full per-case protocol (grading.check.run_case), then one speed
case timed beside the spec's first baseline. The CUDA extensions are built in background processes
while the Triton rungs are checked. Work stops starting once the budget is spent. This is the
first look at new kernels on a new machine, not a grade: `python -m grading check` is that.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import torch  # noqa: E402

from grading import check, impls  # noqa: E402
from grading.specs import get_spec  # noqa: E402
from grading.timing import time_fn  # noqa: E402
from grading.worker import baseline_prepare  # noqa: E402

SAMPLE = 8  # correctness cases per rung, spread over the spec's list


def build_in_background(kernels: list[str]) -> dict[str, subprocess.Popen]:
    """Start one process per CUDA rung that only calls it once on the first case (which builds it)."""
    procs = {}
    for k in kernels:
        code = (f"import sys; sys.path.insert(0, {str(REPO)!r}); import torch; from grading.specs import get_spec; "
                f"from grading import impls; s = get_spec({k!r}); r = impls.rung_refs(s, ['cuda'], solutions=True)[0]; "
                f"c = s.cases(False)[0]; a, kw = s.make_inputs(c.params, c.dtype, torch.Generator().manual_seed(0), "
                f"torch.device('cuda')); impls.load(r)(*a, **kw); torch.cuda.synchronize()")
        procs[k] = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return procs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--budget", type=float, default=240.0)
    ap.add_argument("--json")
    ap.add_argument("--rungs", default="triton,cuda")
    args = ap.parse_args()
    deadline = time.monotonic() + args.budget
    device = torch.device("cuda")
    rungs = args.rungs.split(",")
    builders = build_in_background(args.kernels) if "cuda" in rungs else {}
    rows = []
    for rung in rungs:
        for k in args.kernels:
            if rung == "cuda":  # each kernel as soon as its own build is done
                builder = builders[k]
                try:
                    builder.wait(timeout=max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    builder.kill()
                    print(f"{k} cuda: still building when the budget was spent, not run", flush=True)
                    continue
                if builder.returncode:
                    print(f"{k} cuda: the first call failed:\n{builder.stderr.read().decode()[-1500:]}", flush=True)
                    continue
            if time.monotonic() > deadline:
                print(f"{k} {rung}: budget spent, not run", flush=True)
                continue
            spec = get_spec(k)
            ref = impls.rung_refs(spec, [rung], solutions=True)[0]
            fn = impls.load(ref)
            cases = spec.cases(False)
            sample = cases[:: max(1, len(cases) // SAMPLE)]
            passed, failures = 0, []
            for i, case in enumerate(sample):
                try:
                    check.run_case(fn, spec, case, check.case_seed(2026, i), device)
                    passed += 1
                except Exception as e:  # noqa: BLE001 - a smoke test reports every failure kind
                    failures.append(f"{case.describe()}: {type(e).__name__}: {str(e)[:300]}")
            row = {"kernel": k, "rung": rung, "passed": passed, "cases": len(sample), "failures": failures}
            print(f"{k} {rung}: {passed}/{len(sample)} cases pass", flush=True)
            for f in failures[:3]:
                print("   ", f, flush=True)
            if not spec.baselines:
                rows.append(row)
                continue
            speed = spec.speed_cases()[0]
            a, kw = spec.make_inputs(speed.params, speed.dtype, torch.Generator().manual_seed(1), device)
            label, target = next(iter(spec.baselines.items()))
            base_ref = impls.ImplRef(str(REPO / target.rsplit(":", 1)[0]), target.rsplit(":", 1)[1], None, label)
            prep = baseline_prepare(spec, base_ref)
            ba, bkw = prep(a, kw) if prep else (a, kw)
            try:
                t, _, _ = time_fn(fn, [(a, kw)])
                tb, _, _ = time_fn(impls.load(base_ref), [(ba, bkw)])
                gbps = spec.bytes_moved(speed) / t.median_s / 1e9
                row.update(speed_case=speed.describe(), us=t.median_s * 1e6, baseline=label,
                           baseline_us=tb.median_s * 1e6, gbps=gbps,
                           tflops=spec.flops(speed) / t.median_s / 1e12)
                print(f"    {speed.describe()}: {t.median_s * 1e6:.1f} µs ({gbps:,.0f} GB/s, "
                      f"{row['tflops']:,.0f} TFLOP/s); {label} {tb.median_s * 1e6:.1f} µs: "
                      f"{tb.median_s / t.median_s:.2f}×", flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"    timing failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
            rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
