"""Which kernel the compiled rung gets at decode sizes, and whether that depends on its first call.

    python benchmarks/compiled_autotune_probe.py [--fused] [--first M[,M...]] [--json PATH]

Inductor tunes a Triton kernel that has several candidate configurations on its first launch,
with that launch's arguments (CachingAutotuner in torch/_inductor/runtime/triton_heuristics.py).
The compiled rung marks the token dimension dynamic, so one kernel serves every M > 1 (dynamo
specializes M = 1 on its own), tuned at whichever M > 1 came first: 16 in the bench and in
rmsnorm_variants.py, where the candidates may differ by less than the timing noise. This runs
the compiled rung in this process with an empty Inductor cache (nothing tuned earlier is
reused), first at the --first row counts in order (default 1,16: the bench's); prints each tuned
kernel's candidates, their timings and the one kept (Inductor's own debug log); then times the
decode sizes as the bench does (CUDA graphs over rotated inputs) beside the Triton rung. Run it
in fresh processes, a few times with --first 1,16 and with --first 1,64, and compare the kept
configurations.
"""
import argparse
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

# Before torch is imported: an empty cache, so the first call below tunes from scratch.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="kl_inductor_probe_")

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading.timing import rotation_count, time_fn  # noqa: E402
from solutions import rmsnorm as sol  # noqa: E402

SHAPES = [(1, 4096), (16, 4096), (64, 4096), (256, 4096), (1, 8192), (64, 8192), (256, 8192)]


def tuned_kernels() -> list[dict]:
    """Every Inductor kernel loaded so far, with the configuration it kept."""
    from torch._inductor.codecache import PyCodeCache
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner
    modules = list(getattr(PyCodeCache, "modules", [])) + list(getattr(PyCodeCache, "modules_no_attr", {}).values())
    found = []
    for module in modules:
        for name, obj in vars(module).items():
            if isinstance(obj, CachingAutotuner):
                # After tuning, Inductor drops its candidate list (configs = None); the debug log
                # above has printed them, with their timings.
                found.append({"kernel": name, "candidates": [str(c) for c in obj.configs or []],
                              "kept": [str(launcher.config) for launcher in obj.launchers]})
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fused", action="store_true", help="fused_add_rmsnorm instead of rmsnorm")
    ap.add_argument("--first", default="1,16", help="rows of the first calls, in order (Inductor tunes at the first M > 1)")
    ap.add_argument("--n", type=int, default=4096, help="row length of the first call")
    ap.add_argument("--json")
    args = ap.parse_args()
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("inductor: %(message)s"))
    tuner_log = logging.getLogger("torch._inductor.runtime.triton_heuristics")
    tuner_log.setLevel(logging.DEBUG)
    tuner_log.addHandler(handler)

    compiled = sol.fused_add_rmsnorm_compiled if args.fused else sol.rmsnorm_compiled
    triton_rung = sol.fused_add_rmsnorm_triton if args.fused else sol.rmsnorm_triton

    def make(m, n):
        x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        return (x, torch.randn_like(x), w) if args.fused else (x, w)

    first = [int(m) for m in args.first.split(",")]
    for m in first:
        print(f"first calls: {m} x {args.n}")
        compiled(*make(m, args.n))
        torch.cuda.synchronize()
    tuner_log.removeHandler(handler)
    kernels = tuned_kernels()
    for k in kernels:
        print(f"{k['kernel']}: kept {k['kept']}")

    rows = []
    for m, n in SHAPES:
        nbytes = (4 if args.fused else 2) * m * n * 2 + n * 2
        sets = [(make(m, n), {}) for _ in range(rotation_count(nbytes, torch.device("cuda")))]
        for name, fn in (("compiled", compiled), ("triton", triton_rung)):
            t, _, _ = time_fn(fn, sets, graph=True)
            rows.append({"impl": name, "shape": [m, n], "us": t.best_s * 1e6, "spread": t.spread})
            print(f"{name:9s} {m:5d}x{n:<5d} {t.best_s * 1e6:7.2f} µs  ±{t.spread * 100:.0f}%", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "fused": args.fused,
                                               "first": first, "kernels": kernels, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
