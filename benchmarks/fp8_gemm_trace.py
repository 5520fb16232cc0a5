"""What the GPU runs for one fp8_gemm call (decode sizes by default), and for how long: every kernel, memset
and copy each implementation puts on the stream, with its duration from torch.profiler (CUPTI),
inputs rotated past L2 as the bench does.

    python benchmarks/fp8_gemm_trace.py [--shapes 1x4096x4096,...] [--cutlass-configs 12,13,14]
                                        [--impls torch._scaled_mm,triton,cuda]

The bench's time for a call is the whole of it (a CUDA graph's replay). Where an implementation
is slower than its kernel's napkin math, this says whether the kernel itself takes the time or
something around it (a workspace memset, a second kernel, the gap between them).
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grading  # noqa: E402,F401  (first: CPU mode before any @triton.jit)
import torch  # noqa: E402

from grading import env  # noqa: E402

DEFAULT_SHAPES = "1x4096x4096,64x4096x4096,1x28672x8192,128x8192x8192"


def trace(fn, sets, calls: int = 30) -> tuple[list[tuple[str, int, float]], float]:
    """[(activity name, times per call, mean µs)] in first-seen order, and the mean µs per call
    from the first activity's start to the last one's end."""
    from torch.profiler import ProfilerActivity, profile
    for args in sets[:3]:
        fn(*args)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(calls):
            fn(*sets[i % len(sets)])
            torch.cuda.synchronize()  # one call at a time: its span is its own
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    per_name: dict[str, list[float]] = collections.defaultdict(list)
    for e in events:
        per_name[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
    rows = [(name, round(len(ts) / calls), sum(ts) / len(ts)) for name, ts in per_name.items()]
    # Spans: the events in time order, cut into calls by count.
    events.sort(key=lambda e: e.time_range.start)
    per_call = max(1, len(events) // calls)
    spans = [events[i + per_call - 1].time_range.end - events[i].time_range.start
             for i in range(0, per_call * calls, per_call)]
    return rows, sum(spans) / len(spans)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default=DEFAULT_SHAPES, help="comma-separated MxNxK")
    p.add_argument("--cutlass-configs", default="", help="CUTLASS configurations to trace beside the pick")
    p.add_argument("--impls", default="torch._scaled_mm,triton,cuda",
                   help="comma-separated implementations to trace (default: %(default)s)")
    args = p.parse_args()
    if env.CPU_MODE or torch.cuda.get_device_capability() < (8, 9):
        print("needs an fp8 GPU (sm_89 or newer)")
        return 0
    from grading.lesson_fp8 import gemm_args
    from grading.timing import rotation_count
    from solutions import fp8_gemm as sol
    dev = torch.device("cuda")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    configs = [int(c) for c in args.cutlass_configs.split(",") if c]
    if configs:  # the libraries that hold them (the shipped one, sweep builds)
        from benchmarks.fp8_gemm_cutlass_check import BUILDS, build
        _, config_ops = build(True, tuple(n for n, held in BUILDS.items() if n == 0 or set(held) & set(configs)))
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        sets = [gemm_args(m, n, k) for _ in range(rotation_count(m * k + n * k + 2 * m * n, dev))]
        fns = {"torch._scaled_mm": sol.fp8_gemm_scaled_mm, "triton": sol.fp8_gemm_triton,
               "cuda": sol.fp8_gemm_cuda}
        fns = {name: fn for name, fn in fns.items() if name in args.impls.split(",")}
        for c in configs:
            fns[f"cuda config {c}"] = (lambda c: lambda a, b, sa, sb: config_ops[c].fp8_gemm_config(a, b, sa, sb, c))(c)
        print(f"\n{m} x {n} x {k}: weight {n * k / 1e6:.1f} MB")
        for name, fn in fns.items():
            try:
                rows, span = trace(fn, sets)
            except Exception as e:  # noqa: BLE001 - one implementation's failure is a line, not the end
                print(f"  {name}: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
                continue
            print(f"  {name}: {span:.1f} µs from the first activity's start to the last one's end")
            for act, times, us in rows:
                print(f"      {us:8.2f} µs  x{times}  {act[:150]}")
        del sets
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
