"""The timing protocol (DESIGN.md): CUDA events, warm-up, many repetitions, median and spread,
the L2 cache flushed between repetitions, and CUDA graphs where launch overhead would dominate.

Why each piece (chapter 00 shows every trap measured):
- events, not host clocks: a launch returns before the kernel runs;
- warm-up: the first call pays for compilation, module load and allocator growth;
- L2 flush: H100/H200 have 50-60 MB of L2; a repeated call on inputs that fit there measures the
  cache, not HBM. The flush reads (flush_l2): a flush that writes leaves dirty lines whose
  write-back the next call pays for;
- median and the 20-80% spread: one slow repetition (a clock change, another process) must not
  move the result, and the spread says how far two numbers must differ to mean anything;
- launch overhead hidden: a Python launch costs 5-100 µs of host time (Triton's launcher, dynamo's
  guards); if the GPU waits for it, events measure the host. A GPU-side sleep ahead of each batch
  lets the host enqueue in advance; the host's cost per call is reported on its own (host_s);
- CUDA graphs: the same question for a whole sequence of launches, as a real decode step runs them;
- a cross-check against the wall clock: events on the current stream do not see work left on a
  side stream, so calls are also run back to back and followed by a device-wide synchronize
  (every stream); per call, that wall-clock time must agree with the events (`inconsistency`).
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any, Callable

import torch

ArgSet = tuple[tuple, dict]

# Repetitions enqueued behind one GPU sleep; the sleep is sized to the host's enqueue time.
BATCH = 50
# torch.cuda._sleep spins for a number of GPU clock cycles; 2e9 per second is a top boost clock,
# so the sleep is at least as long as asked on slower clocks.
SLEEP_CYCLES_PER_S = 2e9
# Below this per-call time (events), launch overhead is a large share: also time in a CUDA graph.
GRAPH_BELOW_S = 30e-6
# Back-to-back calls for the wall-clock cross-check: about this long in all.
SYNCED_TARGET_S = 0.05
# The synchronized wall-clock time per call may exceed max(event median, host time per call) by
# this factor plus this slack (launch jitter, allocator calls, a gap between kernels), not more.
# A side-stream cheat on a 165 µs kernel measures ~2 µs of events and 165 µs of wall clock.
CONSISTENCY_FACTOR = 1.5
CONSISTENCY_SLACK_S = 20e-6


@dataclasses.dataclass
class Timing:
    median_s: float
    p20_s: float
    p80_s: float
    reps: int
    mode: str
    wall_s: float                   # host wall-clock time of the timed loop, synchronised
    device_total_s: float           # the sum of the event times in that loop
    host_s: float = 0.0             # host time to enqueue one call (the launch path), not in median_s
    synced_s: float | None = None   # wall clock per call, back to back, then a device-wide sync
    graph_median_s: float | None = None
    graph_mode: str | None = None

    @property
    def best_s(self) -> float:
        """The per-call time to report: the graph replay where one was measured."""
        return self.graph_median_s if self.graph_median_s is not None else self.median_s

    @property
    def spread(self) -> float:
        """(p80 - p20) / median: the relative noise of this measurement."""
        return (self.p80_s - self.p20_s) / self.median_s if self.median_s > 0 else 0.0

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def l2_flush_buffer(device: torch.device) -> torch.Tensor:
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 * 2**20) or 64 * 2**20
    return torch.ones(2 * l2 // 4, dtype=torch.int32, device=device)


def flush_l2(buf: torch.Tensor) -> None:
    """Evict L2 by reading `buf` (2× its size): afterwards it holds only clean lines of `buf`.

    A read, not a write: a write flush (`zero_()`, as triton.testing.do_bench clears its cache)
    leaves L2 full of dirty lines, and the timed call's first misses must write them back to HBM
    while the events run. H200, same run (benchmarks/h200_session8/l2_flush.txt): 8-10 µs more
    for a kernel reading 67-268 MB (paged decode, SDPA), 3.5 µs for a 256 MB copy; work the harness
    made, not the kernel. The read moves those write-backs before the start event."""
    torch.amax(buf)


def time_fn(fn: Callable, arg_sets: list[ArgSet], *, device: torch.device | str = "cuda",
            warmup: int = 3, target_s: float = 0.25, min_reps: int = 10, max_reps: int = 2000,
            graph: bool | None = None) -> tuple[Timing, Any, int]:
    """Time fn over rotating input sets. Returns (timing, output of the last timed call, index
    of the input set that call used) so the caller can check what was produced while timed."""
    device = torch.device(device)
    if device.type != "cuda":
        raise RuntimeError("timing needs a CUDA GPU (CPU mode checks correctness only)")
    for i in range(warmup):
        args, kwargs = arg_sets[i % len(arg_sets)]
        fn(*args, **kwargs)
    torch.cuda.synchronize(device)

    flush = l2_flush_buffer(device)
    # Estimate one call (device time) and the host's cost to enqueue one repetition.
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    h0 = time.perf_counter()
    start.record()
    for i in range(3):
        args, kwargs = arg_sets[i % len(arg_sets)]
        flush_l2(flush)
        fn(*args, **kwargs)
    end.record()
    host_per_rep = (time.perf_counter() - h0) / 3
    torch.cuda.synchronize(device)
    est = max(start.elapsed_time(end) / 3e3, 1e-7)
    reps = int(min(max(target_s / est, min_reps), max_reps))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    out, idx = None, 0
    t0 = time.perf_counter()
    for b0 in range(0, reps, BATCH):
        # Keep the GPU busy while the host enqueues a batch, so each event pair brackets the
        # kernel's device time and not the host's launch path (timed separately: host_s).
        torch.cuda._sleep(int(min(BATCH * host_per_rep * 1.5, 0.2) * SLEEP_CYCLES_PER_S))
        for r in range(b0, min(b0 + BATCH, reps)):
            idx = r % len(arg_sets)
            args, kwargs = arg_sets[idx]
            flush_l2(flush)  # a 2×L2 read evicts whatever the last repetition left in L2
            starts[r].record()
            out = fn(*args, **kwargs)
            ends[r].record()
    torch.cuda.synchronize(device)
    wall = time.perf_counter() - t0
    times = [s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends)]
    timing = Timing(median_s=statistics.median(times), p20_s=_quantile(times, 0.2), p80_s=_quantile(times, 0.8),
                    reps=reps, mode="CUDA events, L2 flushed (2×L2 read) before each call, launch overhead hidden",
                    wall_s=wall, device_total_s=sum(times), host_s=host_per_rep)
    del flush
    timing.synced_s = time_synced(fn, arg_sets, device, max(timing.median_s, host_per_rep))

    if graph or (graph is None and timing.median_s < GRAPH_BELOW_S):
        g = time_graph(fn, arg_sets, device=device)
        if g is not None:
            timing.graph_median_s, timing.graph_mode = g
    return timing, out, idx


def time_synced(fn: Callable, arg_sets: list[ArgSet], device: torch.device, per_call_s: float) -> float:
    """Wall-clock seconds per call of back-to-back calls, ended by a device-wide synchronize, which
    waits for every stream: work a call leaves on a side stream is counted here, not by events."""
    n = int(min(max(SYNCED_TARGET_S / max(per_call_s, 1e-6), 5), 1000))
    torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    for i in range(n):
        args, kwargs = arg_sets[i % len(arg_sets)]
        fn(*args, **kwargs)
    torch.cuda.synchronize(device)
    return (time.perf_counter() - t0) / n


def inconsistency(t: dict) -> str | None:
    """Why a timing (Timing.to_json()) cannot be right, or None. Judged by the parent process from
    the numbers alone, so a patched timer in the worker does not get to judge itself."""
    median, wall, device_total = t.get("median_s"), t.get("wall_s"), t.get("device_total_s")
    if median is None or wall is None or device_total is None:
        return None
    if device_total > wall * 1.01 + 1e-5:
        return (f"inconsistent timing: the events add up to {device_total * 1e3:.3f} ms of device time in "
                f"{wall * 1e3:.3f} ms of wall-clock time; timing tampered with?")
    synced, host = t.get("synced_s"), t.get("host_s") or 0.0
    allowed = CONSISTENCY_FACTOR * max(median, host) + CONSISTENCY_SLACK_S
    if synced is not None and synced > allowed:
        return (f"inconsistent timing: {median * 1e6:.1f} µs per call on the timed stream (events) but "
                f"{synced * 1e6:.1f} µs per call by the wall clock with every stream synchronized "
                f"(host launch cost {host * 1e6:.1f} µs). Work outside the timed stream? A kernel must "
                f"run on torch.cuda.current_stream(), or make that stream wait for any other it uses")
    if median <= 0:
        return ("inconsistent timing: the events measured no time at all; the work is not on the timed "
                "stream, or the timer was tampered with")
    return None


def time_graph(fn: Callable, arg_sets: list[ArgSet], *, device: torch.device,
               replays: int = 20) -> tuple[float, str] | None:
    """Median per-call time of `fn` captured in a CUDA graph: one call per input set, replayed.

    Input sets should add up to more than L2 (the caller's job) so replays read from HBM.
    Returns None when the function cannot be captured (it synchronises, or allocates on the host).
    """
    stream = torch.cuda.Stream(device)
    stream.wait_stream(torch.cuda.current_stream(device))
    try:
        with torch.cuda.stream(stream):
            for args, kwargs in arg_sets[:2]:
                fn(*args, **kwargs)
        torch.cuda.current_stream(device).wait_stream(stream)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for args, kwargs in arg_sets:
                fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - not capturable: report events only
        torch.cuda.synchronize(device)
        return None
    g.replay()
    torch.cuda.synchronize(device)
    # Replays go back to back behind a GPU sleep, as a serving loop keeps the GPU fed: an event
    # pair around one replay on an idle GPU would time the host's graph launch (~5-10 µs), not
    # the graph. Per call = a batch's time / (replays x calls per graph); median of 5 batches.
    h0 = time.perf_counter()
    g.replay()
    host_per_replay = time.perf_counter() - h0
    torch.cuda.synchronize(device)
    times = []
    for _ in range(5):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(int(min(replays * host_per_replay * 1.5, 0.2) * SLEEP_CYCLES_PER_S))
        s.record()
        for _ in range(replays):
            g.replay()
        e.record()
        torch.cuda.synchronize(device)
        times.append(s.elapsed_time(e) / 1e3 / (replays * len(arg_sets)))
    nbytes = sum(t.numel() * t.element_size() for args, kwargs in arg_sets
                 for t in list(args) + list(kwargs.values()) if isinstance(t, torch.Tensor))
    del g
    return statistics.median(times), f"CUDA graph of {len(arg_sets)} calls on {nbytes / 2**20:.0f} MiB of rotated inputs"


def rotation_count(bytes_per_set: float, device: torch.device, cap: int = 64) -> int:
    """How many distinct input sets make the rotation larger than 2× L2 (so no call hits L2)."""
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 64 * 2**20) or 64 * 2**20
    need = int(2 * l2 // max(bytes_per_set, 1)) + 1
    return max(1, min(cap, need))
