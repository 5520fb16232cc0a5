"""How the L2 flush between timed calls changes what the timer measures.

    python benchmarks/l2_flush_check.py [--json PATH]

A flush that writes a buffer of twice L2's size (`zero_()`, as triton.testing.do_bench does)
leaves L2 full of dirty lines: the next kernel's misses evict them, and each eviction writes a line
back to HBM while the kernel runs. On an H200 (60 MB of L2) that is up to 60 MB of writes charged
to the timed kernel, ~15 µs at 4 TB/s. A flush that reads leaves clean lines, which evict for free:
the timing protocol's flush (grading/timing.py, flush_l2) reads a 2×L2 buffer. Three flushes here:
write (do_bench's), read (the protocol's), write then read.

The prediction: kernels timed with events (>= 30 µs) that read more than L2 get faster by about
L2 / bandwidth under the read flush, the same absolute amount for every implementation, so ratios
of a kernel to a much slower one (gather + SDPA) grow. Each call is timed under the three
flushes in the same run, at paged_decode shapes and on two plain streams.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import grading  # noqa: E402,F401
from grading import lesson_decode, timing  # noqa: E402
from solutions import paged_decode as sol  # noqa: E402


def _write(buf):
    buf.zero_()  # what triton.testing.do_bench does between calls


def _write_read(buf):
    buf.zero_()
    torch.amax(buf[: buf.numel() // 2])  # ... then a read of one L2 size


FLUSHES = {"write": _write, "read": timing.flush_l2, "write+read": _write_read}


def cases(dev):
    for shape in [(1, 32768), (16, 4096), (64, 4096)]:
        kv = lesson_decode.kv_bytes(shape, (32, 8), 128)
        sets = [(lesson_decode.decode_args(shape, (32, 8), 128, seed=i), {})
                for i in range(timing.rotation_count(kv, dev))]
        label = f"paged_decode {shape[0]}x{shape[1]} 32/8 D128"
        yield label, "triton", sol.paged_decode_triton, sets, kv
        yield label, "SDPA, unpaged cache", lesson_decode.unpaged_sdpa(), sets, kv
        yield label, "eager (gather + SDPA)", sol.paged_decode_eager, sets, kv
    n = 256 * 2**20 // 2  # 256 MB of bf16
    x = torch.randn(n, device=dev, dtype=torch.bfloat16)
    y = torch.empty_like(x)
    yield "stream 256 MB", "read (amax)", lambda: torch.amax(x), [((), {})], 2 * n
    yield "stream 256 MB", "copy", lambda: y.copy_(x), [((), {})], 4 * n
    n = 32 * 2**20 // 2  # 32 MB: fits in L2 once the flush has gone
    x2 = torch.randn(n, device=dev, dtype=torch.bfloat16)
    yield "stream 32 MB", "read (amax)", lambda: torch.amax(x2), [((), {})], 2 * n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    dev = torch.device("cuda")
    print(f"{torch.cuda.get_device_name(0)}, L2 {torch.cuda.get_device_properties(dev).L2_cache_size / 2**20:.0f} MiB")
    rows = []
    for label, impl, fn, sets, nbytes in cases(dev):
        row = {"case": label, "impl": impl}
        for name, flush in FLUSHES.items():
            timing.flush_l2 = flush
            t, _, _ = timing.time_fn(fn, sets, target_s=0.1, graph=False)
            row[name] = t.median_s * 1e6
            row[name + " spread"] = t.spread
        rows.append(row)
        print(f"{label:34s} {impl:24s} " + "  ".join(
            f"{name} {row[name]:7.1f} µs ({nbytes / row[name] / 1e3:5.0f} GB/s)" for name in FLUSHES)
            + f"  write - read {row['write'] - row['read']:5.1f} µs", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
