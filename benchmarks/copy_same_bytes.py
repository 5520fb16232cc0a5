"""How close a plain copy gets to the copy roof when it moves only as many bytes as a bench case.

    python benchmarks/copy_same_bytes.py [--json PATH]

The bench's "% of SOL" divides by the copy bandwidth of a 1 GiB copy (`python -m grading ceilings`).
A kernel that moves 64 MB takes ~15 µs, and a fixed ~2-3 µs of launch, ramp-up and tail is then a
sixth of it: no kernel moving those bytes, a copy included, reaches the 1 GiB figure. This times
`src.clone()` (reads and writes the same bytes, allocates its output as the kernels do) at the
sizes of the chapter 01 and 02 memory-bound cases, with the bench's own protocol: input sets rotated
past 2x L2, CUDA-graph replays under 30 µs, the L2 read flush above. The percent is of the 1 GiB
copy measured in the same run, as the bench reports it.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
from grading.timing import rotation_count, time_fn  # noqa: E402

# Bytes read (= bytes written) by a copy with the traffic of: rmsnorm 4096 x 4096 bf16 (32 MB in,
# 32 MB out); rmsnorm 4096 x 8192 and fused_add_rmsnorm 4096 x 4096 (64 MB); the fused 4096 x 8192
# and rmsnorm 16384 x 4096 (128 MB); then larger, to see the curve flatten.
MB = 2**20
SIZES = [8 * MB, 16 * MB, 32 * MB, 48 * MB, 64 * MB, 96 * MB, 128 * MB, 256 * MB, 1024 * MB]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    args = ap.parse_args()
    dev = torch.device("cuda")
    rows = []
    for nbytes in SIZES:
        n = nbytes // 2
        sets = [((torch.randn(n, device=dev, dtype=torch.bfloat16),), {})
                for _ in range(rotation_count(2 * nbytes, dev))]
        t, _, _ = time_fn(torch.clone, sets, device=dev)
        gbps = 2 * nbytes / t.median_s / 1e9
        rows.append({"bytes_read": nbytes, "us": t.median_s * 1e6, "spread": t.spread, "gbps": gbps,
                     "mode": t.mode})
        del sets
        torch.cuda.empty_cache()
    roof = rows[-1]["gbps"]
    print(f"copy of N bytes (N read + N written), {torch.cuda.get_device_name()}; % of the 1 GiB copy in this run")
    for r in rows:
        r["pct_of_1gib"] = 100 * r["gbps"] / roof
        print(f"  {r['bytes_read'] / MB:6.0f} MB  {r['us']:8.1f} µs  {r['gbps']:6.0f} GB/s  {r['pct_of_1gib']:4.0f}%  "
              f"±{r['spread'] * 100:.0f}%  {r['mode']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
