"""Chapter 00's lessons, measured: each timing trap as a function that runs it and returns numbers.
Chapter 01's (RMSNorm) follow at the end: what an op sequence moves, how often torch.compile
compiles, Triton launch plans, side-by-side GPU timings, and the fused RMSNorm + FP8 kernel.

The notebooks chapters/00_speed_of_light and chapters/01_rmsnorm call these; tests/test_lessons.py
checks them. Every function works on a GPU. In CPU mode a function measures the CPU-side
counterpart of its trap where there is one (first-call compilation, per-call overhead, caches,
noise) and otherwise prints one line saying why and returns None. GPU timing goes through
grading.timing (time_fn, which flushes L2 with l2_flush_buffer; time_graph; rotation_count);
nothing here re-implements it.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import io
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

import torch
import triton
import triton.language as tl

from grading import env
from grading.hardware import GPUSpec, Roofs
from grading.roofline import Point, _fmt_time
from grading.timing import rotation_count, time_fn, time_graph

REPO = Path(__file__).resolve().parent.parent


# --- what a lesson returns -------------------------------------------------------------------------

@dataclasses.dataclass
class Measurement:
    """What one lesson measured: seconds per call under named conditions, in reading order."""

    title: str
    times_s: dict[str, float]
    note: str = ""

    def ratio(self, a: str, b: str) -> float:
        return self.times_s[a] / self.times_s[b]

    def __str__(self) -> str:
        width = max((len(k) for k in self.times_s), default=0)
        lines = [self.title]
        lines += [f"  {k:<{width}}  {_fmt_time(v):>9}" for k, v in self.times_s.items()]
        if self.note:
            lines.append(f"  {self.note}")
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle) -> None:  # IPython shows the table, not the dataclass
        p.text(str(self))


def _skip(why: str) -> None:
    print(f"CPU mode: {why}")


def _device() -> torch.device:
    return torch.device(env.DEVICE)


def _sync() -> None:
    if not env.CPU_MODE:
        torch.cuda.synchronize()


@contextlib.contextmanager
def _one_cpu_thread() -> Iterator[None]:
    """CPU-side timings on one thread. With two or more, one thread descheduled by another process
    stalls the op at its barrier for a whole time slice: medians of a 0.4 ms multiply jumped to
    8 ms on a busy 2-core machine, and were repeatable on one thread."""
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def _host_times(fn: Callable, args: tuple, reps: int, warmup: int = 1) -> list[float]:
    """Host clock around each of `reps` calls, each followed by a device sync: what a stopwatch
    around a synchronised call sees (on the CPU, calls are synchronous anyway)."""
    for _ in range(warmup):
        fn(*args)
    _sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(*args)
        _sync()
        times.append(time.perf_counter() - t0)
    return times


def _host_loop_s(fn: Callable, args: tuple, calls: int) -> float:
    """Host time per call of `calls` back-to-back calls and one sync at the end: the rate a plain
    Python loop of launches sustains."""
    fn(*args)
    _sync()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    _sync()
    return (time.perf_counter() - t0) / calls


# --- trap 1: the host does not wait for the GPU ------------------------------------------------------

def no_sync_trap(fn: Callable | None = None, args: tuple | None = None) -> Measurement | None:
    """One call timed three ways: host clock with no sync, host clock then synchronize, CUDA events.

    Default: a bf16 matmul 8192×8192×8192 (1.1 TFLOP: 1.4 ms at the 808 TFLOP/s measured on an
    H200, benchmarks/ceilings/H200.json), long enough that the launch (microseconds) and the work
    (milliseconds) cannot be confused.
    """
    if env.CPU_MODE:
        _skip("a CPU op returns when its work is done, so there is no queue for the host clock to outrun")
        return None
    title = "one call, timed three ways"
    if fn is None:
        n = 8192
        a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        fn, args = torch.mm, (a, b)
        title = f"bf16 matmul {n}×{n}×{n} ({2 * n**3 / 1e12:.1f} TFLOP), timed three ways"
    args = args or ()
    fn(*args)  # warm: cuBLAS handle, kernel selection
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn(*args)
    no_sync = time.perf_counter() - t0  # the launch returned; the GPU is still working
    torch.cuda.synchronize()
    with_sync = time.perf_counter() - t0
    timing, _, _ = time_fn(fn, [(args, {})], graph=False, target_s=0.1)
    return Measurement(title, {
        "host clock, no synchronize": no_sync,
        "host clock, then synchronize": with_sync,
        "CUDA events (time_fn, median)": timing.median_s,
    })


# --- trap 2: the first call pays for compilation and loading ----------------------------------------

def cold_vs_warm(fn: Callable, *args, warm_reps: int = 5, title: str = "first call vs warm calls") -> Measurement:
    """Host clock (and a sync) around the first call of `fn`, then the median of `warm_reps` more.
    The first call of a torch.compile'd function traces and compiles it; a Triton kernel's first
    launch compiles it (or loads it from the on-disk cache); an eager op's first launch loads its
    CUDA module. Works in both modes (on the CPU torch.compile generates and compiles C++)."""
    t0 = time.perf_counter()
    fn(*args)
    _sync()
    first = time.perf_counter() - t0
    warm = statistics.median(_host_times(fn, args, warm_reps, warmup=0))
    return Measurement(title, {"first call": first, f"warm call (median of {warm_reps})": warm},
                       note=f"the first call costs {first / warm:,.0f} warm calls")


# --- trap 3: launch overhead on tiny kernels ---------------------------------------------------------

def launch_overhead(fn: Callable | None = None, args: tuple | None = None, calls: int = 1000) -> Measurement:
    """What a tiny kernel costs: a Python loop's wall time per call against the device time.

    Default: torch.mul on 1024 fp32 elements (8 KB of traffic, nanoseconds of HBM time).
    GPU: the loop's time per call, the host's enqueue time per call and the device time per call
    (time_fn: events with the launch path hidden behind a GPU sleep).
    CPU mode: there is no device; the same loop shows the framework's fixed cost per op, against an
    op with 1000× the elements (the default op only).
    """
    default = fn is None
    if default:
        x = torch.randn(1024, device=_device())
        y = torch.empty_like(x)
        fn, args = (lambda x, y: torch.mul(x, 2.0, out=y)), (x, y)
    args = args or ()
    if env.CPU_MODE:
        with _one_cpu_thread():
            times = {"Python loop, per call": _host_loop_s(fn, args, calls)}
            if default:
                big = torch.randn(1024 * 1000)
                times["same op on 1000× the elements, per call"] = _host_loop_s(
                    fn, (big, torch.empty_like(big)), max(calls // 100, 5))
        note = ("1000× the work costs far less than 1000× the time: most of a tiny op is fixed "
                "per-call cost (Python, dispatch, allocation)") if default else ""
        return Measurement("per-call cost of a tiny op on the CPU", times, note=note)
    loop = _host_loop_s(fn, args, calls)
    timing, _, _ = time_fn(fn, [(args, {})], graph=False)
    return Measurement("per-call cost of a tiny kernel", {
        "Python loop, wall time per call": loop,
        "host time to enqueue one call": timing.host_s,
        "device time per call (events, launch hidden)": timing.median_s,
    }, note="the loop runs at the host's pace whenever enqueueing takes longer than the kernel")


# --- trap 4: the L2 cache serves repeated runs ------------------------------------------------------

def l2_warm_vs_flushed(nbytes: float = 16e6) -> Measurement:
    """One memory-bound op on `nbytes` of traffic (a·b: two reads, one write), timed on the same
    inputs every call (they stay in cache) and rotating through input sets larger than the cache.

    GPU: both as CUDA-graph replays (time_graph), so the only difference is where the bytes come
    from, plus time_fn (events, L2 flushed before each call) for reference. 16 MB fits in any
    datacenter GPU's L2 (50 MB on H100, 60 MB reported by an H200).
    CPU mode: the same experiment on the CPU's caches (one thread, fp32): the last-level cache is
    tens of MB on a server CPU, so 16 MB repeated is served from it, a 256 MB rotation from DRAM.
    """
    dev = _device()
    dtype = torch.float32 if env.CPU_MODE else torch.bfloat16
    n = int(nbytes // (3 * dtype.itemsize))

    def make():
        return (torch.randn(n, device=dev, dtype=dtype), torch.randn(n, device=dev, dtype=dtype),
                torch.empty(n, device=dev, dtype=dtype)), {}

    def fn(a, b, out):
        return torch.mul(a, b, out=out)

    title = f"a·b on {nbytes / 1e6:.0f} MB of traffic per call ({str(dtype).replace('torch.', '')})"
    if env.CPU_MODE:
        k = int(256e6 // nbytes) + 1
        with _one_cpu_thread():
            sets = [make() for _ in range(k)]
            for args, _ in sets:  # first touch of every page (out was never written) before timing
                fn(*args)
            warm = statistics.median(_host_times(fn, sets[0][0], reps=40))
            cold = []
            for r in range(max(3 * k, 40)):
                cold += _host_times(fn, sets[r % k][0], reps=1, warmup=0)
        return Measurement(title + ", CPU", {
            "same inputs every call (CPU caches)": warm,
            f"rotating {k} input sets, {k * nbytes / 1e6:.0f} MB (DRAM)": statistics.median(cold),
        }, note="the same effect as a GPU's L2: a repeated small benchmark measures the cache")
    same = make()
    k = rotation_count(nbytes, dev)
    rotated = [same] + [make() for _ in range(k - 1)]
    warm = time_graph(fn, [same] * 20, device=dev)
    cold = time_graph(fn, rotated, device=dev)
    flushed, _, _ = time_fn(fn, [same], graph=False)
    times = {}
    if warm is not None:
        times["same inputs every call (L2), graph replay"] = warm[0]
    if cold is not None:
        times[f"rotating {k} input sets, {k * nbytes / 1e6:.0f} MB (HBM), graph replay"] = cold[0]
    times["CUDA events, L2 flushed before each call (time_fn)"] = flushed.median_s
    return Measurement(title, times)


# --- trap 5: noise -------------------------------------------------------------------------------

@dataclasses.dataclass
class Noise:
    """Medians and 20th/80th percentiles of each function over several runs of the same benchmark."""

    names: list[str]
    medians: dict[str, list[float]]
    p20: dict[str, list[float]]
    p80: dict[str, list[float]]
    how: str

    def ratios(self, a: str, b: str) -> list[float]:
        return [x / y for x, y in zip(self.medians[a], self.medians[b])]

    @staticmethod
    def drift(xs: Sequence[float]) -> float:
        """max / min - 1: how far the same number moved between runs."""
        return max(xs) / min(xs) - 1.0

    def __str__(self) -> str:
        a, b = self.names[0], self.names[-1]
        header = f"{'run':>4}" + "".join(f"  {n + ' median (p20-p80)':>32}" for n in self.names)
        header += f"  {a + ' / ' + b:>16}" if len(self.names) > 1 else ""
        lines = [f"{len(self.medians[a])} runs, {self.how}", header]
        for r in range(len(self.medians[a])):
            cells = [f"{_fmt_time(self.medians[n][r])} ({_fmt_time(self.p20[n][r])}-{_fmt_time(self.p80[n][r])})"
                     for n in self.names]
            line = f"{r + 1:>4}" + "".join(f"  {c:>32}" for c in cells)
            if len(self.names) > 1:
                line += f"  {self.ratios(a, b)[r]:>16.3f}"
            lines.append(line)
        drifts = ", ".join(f"{n} {100 * self.drift(self.medians[n]):.1f}%" for n in self.names)
        lines.append(f"median drift between runs (max/min - 1): {drifts}")
        if len(self.names) > 1:
            lines.append(f"drift of the ratio {a} / {b}: {100 * self.drift(self.ratios(a, b)):.1f}%")
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))


def noise(fns: dict[str, Callable], args: tuple, runs: int = 5, reps: int = 30) -> Noise:
    """Time every function in `fns` on the same inputs, `runs` times over, back to back in each run.

    GPU: time_fn (events, L2 flushed, about 0.1 s of repetitions each). CPU mode: the host clock
    around `reps` calls of each, interleaved, on one thread. Either way the point is the same: a median moves between
    runs (clocks, temperature, other processes), and two functions timed in the same run move
    together, so their ratio moves much less.
    """
    names = list(fns)
    med: dict[str, list[float]] = {n: [] for n in names}
    p20: dict[str, list[float]] = {n: [] for n in names}
    p80: dict[str, list[float]] = {n: [] for n in names}
    ctx = _one_cpu_thread() if env.CPU_MODE else contextlib.nullcontext()
    with ctx:
        for _ in range(runs):
            if env.CPU_MODE:
                # Interleaved call by call: a burst of load from another process hits every
                # function alike instead of whichever happened to be running.
                times: dict[str, list[float]] = {n: [] for n in names}
                for name, fn in fns.items():
                    _host_times(fn, args, reps=0)  # warm-up call only
                for _ in range(reps):
                    for name, fn in fns.items():
                        times[name] += _host_times(fn, args, reps=1, warmup=0)
                for name in names:
                    q = statistics.quantiles(times[name], n=5)
                    med[name].append(statistics.median(times[name]))
                    p20[name].append(q[0])
                    p80[name].append(q[3])
                continue
            for name, fn in fns.items():
                t, _, _ = time_fn(fn, [(args, {})], graph=False, target_s=0.1)
                med[name].append(t.median_s)
                p20[name].append(t.p20_s)
                p80[name].append(t.p80_s)
    how = ("CPU host clock, one thread" if env.CPU_MODE
           else "CUDA events, L2 flushed, launch overhead hidden (time_fn)")
    return Noise(names, med, p20, p80, how)


# --- trap 6: launch gaps between many small kernels, and CUDA graphs ---------------------------------

def graph_vs_eager(n_kernels: int = 20, numel: int = 4096, calls: int = 200) -> Measurement | None:
    """A chain of `n_kernels` tiny dependent kernels (an in-place multiply ping-pong on `numel`
    fp32 elements), the shape of a decode step's many small ops: eager in a Python loop, then
    captured once in a CUDA graph and replayed (one launch for the whole chain)."""
    if env.CPU_MODE:
        _skip("CUDA graphs record GPU launches; in CPU mode there are none to record")
        return None
    x = torch.randn(numel, device="cuda")
    y = torch.empty_like(x)

    def chain(x, y):
        a, b = x, y
        for _ in range(n_kernels):
            torch.mul(a, 1.0, out=b)
            a, b = b, a

    loop = _host_loop_s(chain, (x, y), calls)
    timing, _, _ = time_fn(chain, [((x, y), {})], graph=True)
    times = {
        "eager, Python loop (wall time)": loop,
        "eager, host time to enqueue": timing.host_s,
        "eager, device time (events, launch hidden)": timing.median_s,
    }
    if timing.graph_median_s is not None:
        times["CUDA graph replay"] = timing.graph_median_s
    return Measurement(f"a chain of {n_kernels} tiny kernels ({numel} fp32 elements each), per chain", times)


# --- the roofline --------------------------------------------------------------------------------

def linear_cost(m: int, k: int, n: int, itemsize: int = 2) -> tuple[float, float]:
    """(FLOPs, minimum bytes) of y[m, n] = x[m, k] @ w[n, k]ᵀ: 2mkn FLOPs (a multiply and an add per
    term); x and w read once, y written once."""
    return 2.0 * m * k * n, float(itemsize * (m * k + n * k + m * n))


def roofline_examples(hidden: int = 4096, ffn: int = 14336, prefill_tokens: int = 4096) -> list[Point]:
    """Three kernels to place on a roofline: a copy-like scale y = 2·x (1 FLOP per element, 4 bytes
    per bf16 element), and Llama-3 8B's MLP up projection (hidden 4096 -> 14336, bf16) at M = 1
    token (decode) and M = 4096 tokens (prefill).

    GPU: each measured with time_fn (weights rotated past L2, so the M=1 case reads HBM like real
    decode). CPU mode: time_s is None, so plot_roofline draws them hollow at their SOL position.
    """
    scale_n = 128 * 2**20  # 256 MB of bf16: 512 MB of traffic, far past any L2
    cases = [("scale y = 2·x (copy-like)", float(scale_n), 4.0 * scale_n, "fp32", "elementwise", None),
             ("linear, decode (M=1)", *linear_cost(1, hidden, ffn), "bf16", "Llama-3 8B up-proj", 1),
             (f"linear, prefill (M={prefill_tokens})", *linear_cost(prefill_tokens, hidden, ffn), "bf16",
              "Llama-3 8B up-proj", prefill_tokens)]
    points = []
    for label, flops, nbytes, dt, group, m in cases:
        t = None
        if not env.CPU_MODE:
            dev = torch.device("cuda")
            if m is None:
                x = torch.randn(scale_n, device=dev, dtype=torch.bfloat16)
                sets = [((x, torch.empty_like(x)), {})]
                fn = lambda x, y: torch.mul(x, 2.0, out=y)  # noqa: E731
            else:
                x = torch.randn(m, hidden, device=dev, dtype=torch.bfloat16)
                sets = [((x, torch.randn(ffn, hidden, device=dev, dtype=torch.bfloat16) / hidden**0.5), {})
                        for _ in range(rotation_count(nbytes, dev))]
                fn = torch.nn.functional.linear
            timing, _, _ = time_fn(fn, sets)
            t = timing.best_s
            del sets
        points.append(Point(label, flops, nbytes, t, dt, group))
    return points


# --- what the compiler and the profiler say -----------------------------------------------------------

def launched_kernels(fn: Callable, *args) -> list[str]:
    """Names of what one (warm) call of `fn` runs: the GPU kernels it launches (torch.profiler), or
    in CPU mode the top-level ATen ops it calls (each a separate pass over memory)."""
    from torch.profiler import ProfilerActivity, profile
    fn(*args)  # warm: compilation and loading are not part of the answer
    _sync()
    acts = [ProfilerActivity.CPU] + ([] if env.CPU_MODE else [ProfilerActivity.CUDA])
    with profile(activities=acts) as prof:
        fn(*args)
        _sync()
    if env.CPU_MODE:
        return [e.name for e in prof.events() if e.cpu_parent is None and e.name.startswith("aten::")]
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def short_kernel_name(name: str, width: int = 90) -> str:
    """A GPU kernel name without its template arguments' noise: `void at::native::vectorized_...`."""
    name = re.sub(r"^void ", "", name)
    return name if len(name) <= width else name[: width - 1] + "…"


def generated_kernels(fn: Callable, *args) -> list[str]:
    """Reset torch._dynamo, call `fn` once and return the kernels it generated (as
    `kernels_compiled_by`). After the reset `fn` compiles afresh, and every other compiled
    function recompiles on its next call."""
    torch._dynamo.reset()
    return kernels_compiled_by(fn, *args)


def kernels_compiled_by(fn: Callable, *args) -> list[str]:
    """Call `fn` once and return the kernels Inductor generated during that call (`kernel_source`
    of each output-code module, as Inductor's run_and_get_code captures them; a module's whole
    text where no kernel could be picked out of it). Dynamo is not reset: what the call reuses
    stays reused (an empty list), and a recompilation shows what the graphs compiled before it led
    dynamo to generate (a size that automatic dynamic shapes made symbolic, say)."""
    from unittest import mock

    from torch._inductor.graph import GraphLowering
    modules: list[str] = []
    with mock.patch.object(GraphLowering, "save_output_code", modules.append):
        fn(*args)
    return [k for m in dict.fromkeys(modules) for k in (kernel_source(m) or [m])]


def head(text: str, lines: int = 40) -> str:
    """The first `lines` lines of `text`, and how many were left out."""
    all_lines = text.splitlines()
    rest = len(all_lines) - lines
    return "\n".join(all_lines[:lines]) + (f"\n... ({rest} more lines)" if rest > 0 else "")


_KERNEL_BLOCK = re.compile(r"async_compile\.(triton|cpp_pybinding|cpp)\((.*?)'''(.*?)'''", re.DOTALL)


def kernel_source(code: str) -> list[str]:
    """The kernels in an Inductor output-code module (as captured by run_and_get_code): for a
    Triton kernel, its argument signature and 'configs' hints (the arguments Inductor promised are
    multiples of 16, by position) as comments, then its body from @triton.jit on; for a CPU
    kernel, its C++ from `extern "C"` on."""
    out = []
    for kind, _head, body in _KERNEL_BLOCK.findall(code):
        if kind == "triton":
            start = body.find("@triton.jit")
            text = body[start:] if start >= 0 else body
            meta = [f"# {key}: {value}" for key in ("signature", "configs")
                    if (value := _balanced(body, f"'{key}':")) is not None]
            out.append("\n".join(meta + [text.strip("\n")]))
        else:
            start = body.find('extern "C"')
            out.append((body[start:] if start >= 0 else body).strip("\n"))
    return out


def _balanced(text: str, key: str) -> str | None:
    """The bracketed or braced value after `key` in `text` ("'configs': [...]"), balanced."""
    i = text.find(key)
    if i < 0:
        return None
    j = i + len(key)
    while j < len(text) and text[j] == " ":
        j += 1
    if j >= len(text) or text[j] not in "[{":
        return None
    depth = 0
    for pos in range(j, len(text)):
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(text[pos], 0)
        if depth == 0:
            return text[j:pos + 1]
    return None


def excerpt(path: Path | str, first: str, last: str) -> str:
    """Numbered lines of a source file from the first line containing `first` to the next line
    containing `last` (both kept). The whole file's first 60 lines when a marker is missing."""
    lines = Path(path).read_text().splitlines()
    start = next((i for i, ln in enumerate(lines) if first in ln), None)
    end = next((i for i in range(start or 0, len(lines)) if last in lines[i]), None) if start is not None else None
    if start is None or end is None:
        start, end = 0, min(len(lines), 60) - 1
    return "\n".join(f"{i + 1:4d}  {lines[i]}" for i in range(start, end + 1))


# --- the scoreboard ------------------------------------------------------------------------------

def run_bench(kernel: str = "silu_mul", rungs: Sequence[str] | None = None) -> dict | None:
    """Time the reference rungs on the spec's bench cases exactly as `python -m grading bench`
    does (each rung in its own worker process, same run, same roofs) and return the result JSON as
    a dict. CPU mode: None, with the reason.

    With KL_BENCH_DIR set, the run also leaves `<kernel>_bench.json`, `.md` and a roofline plot
    there: the committed benchmarks of a chapter come from the same run as its notebook outputs.
    With KL_BENCH_FROM set, a `<kernel>_bench.json` already in that folder, measured on this same
    GPU model by `python -m grading bench`, is shown instead of timing again (a chapter's full
    sweep can take longer than the rest of its notebook); the cell says so and where it came from."""
    if env.CPU_MODE:
        _skip("nothing to time without a GPU; the committed results and the SOL analysis follow")
        return None
    reuse = os.environ.get("KL_BENCH_FROM")
    if reuse and (Path(reuse) / f"{kernel}_bench.json").is_file():
        result = json.loads((Path(reuse) / f"{kernel}_bench.json").read_text())
        if result.get("device") == torch.cuda.get_device_name(0):
            return show_reused_bench(kernel, result)
    from rich.console import Console

    from grading import bench
    from grading.isolate import DEFAULT_TIMEOUT_S
    from grading.specs import get_spec
    with tempfile.TemporaryDirectory(prefix="kl_bench_") as tmp:
        keep = os.environ.get("KL_BENCH_DIR")
        folder = Path(keep) if keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{kernel}_bench.json"
        bench.run(get_spec(kernel), rungs=list(rungs) if rungs else None, json_path=str(path),
                  plot_path=str(folder / f"{kernel}_roofline.png") if keep else None,
                  timeout_s=DEFAULT_TIMEOUT_S, console=Console(file=io.StringIO()),
                  command=f"lessons.run_bench({kernel!r}) in a chapter notebook")
        return json.loads(path.read_text())


def show_reused_bench(kernel: str, result: dict) -> dict:
    """Say which committed sweep a scoreboard cell shows instead of timing it again; return it."""
    print(f"{kernel}: the sweep of `{result.get('command')}` on this GPU model ({result.get('device')}, "
          f"{result.get('date')}), not timed again in this run")
    return result


def load_json(path: Path | str) -> dict | None:
    """A committed result file, or None (with the reason) when it is not there."""
    path = Path(path)
    if not path.is_file():
        print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: not present in this checkout")
        return None
    return json.loads(path.read_text())


def _case_label(case: dict) -> str:
    shape = case.get("params", {}).get("shape")
    return "×".join(map(str, shape)) if shape else case["case"]


def _fmt_rate(gbps: float) -> str:
    return f"{gbps / 1e3:.2f} TB/s" if gbps >= 1000 else f"{gbps:.0f} GB/s"


def bench_markdown(result: dict) -> str:
    """A bench result as a Markdown table: per case its SOL time, and per implementation the median
    µs, the bandwidth reached (minimum bytes / time) and the % of SOL."""
    labels = list(dict.fromkeys(label for c in result["cases"] for label in c["impls"]))
    lines = ["| case | SOL | " + " | ".join(labels) + " |", "|---|---:|" + "---:|" * len(labels)]
    for c in result["cases"]:
        cells = []
        for label in labels:
            v = c["impls"].get(label, {})
            if v.get("time_us") is None:
                cells.append(v.get("status", "-"))
                continue
            gbps = c["bytes"] / (v["time_us"] * 1e-6) / 1e9
            cells.append(f"{v['time_us']:,.1f} µs · {_fmt_rate(gbps)} · {v['pct_sol']:.0f}%")
        lines.append(f"| {_case_label(c)} | {c['sol_us']:,.2f} µs | " + " | ".join(cells) + " |")
    bw = result["roofs"]["bandwidth_gbps"]
    lines.append("")
    versions = result["versions"]
    lines.append(f"{result['device']}, torch {versions['torch']}, triton {versions['triton']}, {result['date'][:10]}. "
                 f"SOL = minimum bytes / {_fmt_rate(bw)} ({result['roofs']['bandwidth_source']}).")
    return "\n".join(lines)


def bench_points(result: dict, rows: Sequence[int] | None = None, math_dtype: str = "fp32") -> list[Point]:
    """One roofline point per implementation and case of a bench result (group = the case), for
    the cases whose first dimension is in `rows` (default: all)."""
    cases = [c for c in result["cases"] if rows is None or c.get("params", {}).get("shape", [None])[0] in rows]
    return [Point(label, c["flops"], c["bytes"], v["time_us"] * 1e-6, math_dtype, _case_label(c))
            for c in cases for label, v in c["impls"].items() if v.get("time_us")]


def bench_roofs(result: dict) -> tuple[GPUSpec, Roofs]:
    """The GPU a bench result came from and the roofs it was scored against: its recorded
    bandwidth, with compute roofs from measured ceilings of that GPU kind where there are any."""
    from grading import hardware
    try:
        gpu = hardware.lookup(result["device"])
    except KeyError:  # a live result from a GPU missing from the datasheet table
        gpu = hardware.current()
        if gpu is None or gpu.name != result["device"]:
            raise
    measured = dict(hardware.ceilings_for(gpu) or {})
    if result["roofs"]["bandwidth_source"].startswith("measured"):
        measured["copy_gbps"] = result["roofs"]["bandwidth_gbps"]
    return gpu, hardware.roofs(gpu, measured or None)


def variants_markdown(data: dict, prefix: str, copy_gbps: float | None = None) -> str:
    """Rows of benchmarks/silu_mul_variants.json whose name starts with `prefix`, one column per
    (shape, layout): median µs and GB/s (and % of `copy_gbps` when given)."""
    rows = [r for r in data["rows"] if r["impl"].startswith(prefix)]
    cols = list(dict.fromkeys((tuple(r["shape"]), r["layout"]) for r in rows))
    by_key = {(r["impl"], tuple(r["shape"]), r["layout"]): r for r in rows}
    lines = ["| variant | " + " | ".join(f"{m}×{n} {layout}" for (m, n), layout in cols) + " |",
             "|---|" + "---:|" * len(cols)]
    for name in dict.fromkeys(r["impl"] for r in rows):
        cells = []
        for shape, layout in cols:
            r = by_key.get((name, shape, layout))
            if r is None:
                cells.append("-")
                continue
            pct = f" · {100 * r['gbps'] / copy_gbps:.0f}%" if copy_gbps else ""
            cells.append(f"{r['us']:,.1f} µs · {_fmt_rate(r['gbps'])}{pct}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- chapter 01: what a sequence of eager ops moves ---------------------------------------------

@dataclasses.dataclass
class OpTraffic:
    """One ATen op of a call and the bytes of its tensor inputs and outputs: what the op must move
    at the least, each input read once and each output written once."""

    op: str
    read_bytes: int
    write_bytes: int


def _tensor_bytes(tree) -> int:
    from torch.utils._pytree import tree_leaves
    return sum(t.numel() * t.element_size() for t in tree_leaves(tree) if isinstance(t, torch.Tensor))


def op_traffic(fn: Callable, *args) -> list[OpTraffic]:
    """The ATen ops one call of `fn` runs, in order, each with its minimum traffic. Views (which
    move nothing) are left out. It watches the dispatcher, so it works the same on any device; a
    broadcast operand (a [N] weight, a [M, 1] statistic) counts once, as it would from cache."""
    from torch.utils._python_dispatch import TorchDispatchMode

    ops: list[OpTraffic] = []

    class _Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if not func.is_view:
                ops.append(OpTraffic(f"aten.{func.overloadpacket.__name__}", _tensor_bytes((args, kwargs)),
                                     _tensor_bytes(out)))
            return out

    with _Watch():
        fn(*args)
    return ops


def _fmt_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"


def traffic_table(ops: Sequence[OpTraffic], elements: int, min_bytes: float) -> str:
    """`ops` as a table (bytes per element of the input in the last column), then the total against
    `min_bytes`, what one fused kernel moves, and the % of SOL that ratio allows at best."""
    lines = [f"{'op':<20} {'read':>9} {'written':>9} {'B/element':>10}"]
    for o in ops:
        lines.append(f"{o.op:<20} {_fmt_bytes(o.read_bytes):>9} {_fmt_bytes(o.write_bytes):>9} "
                     f"{(o.read_bytes + o.write_bytes) / elements:>10.2f}")
    total = sum(o.read_bytes + o.write_bytes for o in ops)
    lines.append(f"{len(ops)} ops: {_fmt_bytes(total)}, {total / elements:.2f} B/element; one fused kernel: "
                 f"{_fmt_bytes(min_bytes)}, {min_bytes / elements:.2f} B/element")
    lines.append(f"even with every op at full bandwidth: at most {100 * min_bytes / total:.0f}% of SOL")
    return "\n".join(lines)


# --- chapter 01: how often torch.compile compiles -----------------------------------------------

@dataclasses.dataclass
class CompileSweep:
    """One compiled function called at a sequence of token counts, and what each call compiled."""

    label: str
    tokens: list[int]
    new_graphs: list[int]  # graphs dynamo compiled during each call
    call_s: list[float]    # wall time of each call, compilation included
    reasons: list[str]     # for a call that recompiled, the guard that failed; "" otherwise

    @property
    def graphs(self) -> int:
        return sum(self.new_graphs)

    def __str__(self) -> str:
        lines = [f"{self.label}: {self.graphs} graph{'s' if self.graphs != 1 else ''} for "
                 f"{len(self.tokens)} token counts"]
        for i, (m, n, t, why) in enumerate(zip(self.tokens, self.new_graphs, self.call_s, self.reasons)):
            what = "reused a graph" if not n else "compiled" if i == 0 else "recompiled"
            lines.append(f"  M={m:<5d} {what:<15s} {_fmt_time(t):>9}" + (f"   {why}" if why else ""))
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))


def _guard_reason(failure: str) -> str:
    """'0/1: tensor 'x' size mismatch at index 0. expected 3, actual 17' without the '0/1: '."""
    return re.sub(r"^\s*\d+/\d+:\s*", "", str(failure)).strip()


def compile_sweep(fn: Callable, make_args: Callable[[int], tuple], tokens: Sequence[int],
                  label: str = "") -> CompileSweep:
    """Call fn(*make_args(m)) for each token count m in `tokens`, starting from empty dynamo caches
    (torch._dynamo.reset()), and record the graphs dynamo compiled at each call
    (counters['stats']['unique_graphs'], as the grader counts them) and, for each recompilation,
    the guard that failed (what TORCH_LOGS=recompiles prints)."""
    from torch._dynamo import utils as dynamo_utils

    torch._dynamo.reset()
    counters = dynamo_utils.counters
    failures = getattr(dynamo_utils, "guard_failures", {})
    new, secs, reasons = [], [], []
    for m in tokens:
        args = make_args(m)
        seen = {code: len(v) for code, v in failures.items()}
        before = counters["stats"]["unique_graphs"]
        t0 = time.perf_counter()
        fn(*args)
        _sync()
        secs.append(time.perf_counter() - t0)
        new.append(counters["stats"]["unique_graphs"] - before)
        # The newest cache entry's guard is reported first.
        fresh = [f for code, v in failures.items() for f in v[seen.get(code, 0):]]
        reasons.append(_guard_reason(fresh[0]) if fresh and new[-1] and len(new) > 1 else "")
    return CompileSweep(label or getattr(fn, "__name__", "fn"), list(tokens), new, secs, reasons)


def sweep_table(sweeps: Sequence[CompileSweep]) -> str:
    """Several sweeps over the same token counts: graphs compiled per call, one row per sweep."""
    tokens = sweeps[0].tokens
    width = max(len(s.label) for s in sweeps)
    head = f"{'graphs compiled at':<{width}}" + "".join(f"{'M=' + str(m):>8}" for m in tokens) + f"{'total':>8}"
    rows = [head]
    for s in sweeps:
        rows.append(f"{s.label:<{width}}" + "".join(f"{n if n else '.':>8}" for n in s.new_graphs)
                    + f"{s.graphs:>8}")
    return "\n".join(rows)


# --- chapter 01: what a Triton launcher decides -------------------------------------------------

@dataclasses.dataclass
class Launch:
    """One kernel launch as a launcher made it: the grid, the arguments, the meta-parameters."""

    grid: tuple
    args: tuple
    kwargs: dict


def triton_launches(module, kernel: str, call: Callable, *args, patch: dict | None = None) -> list[Launch]:
    """What call(*args) launches, without running anything: module.<kernel> is replaced by a
    recorder for the duration of the call (and each module attribute named in `patch` by its
    value, e.g. a launcher's SM count, to see what it would pick on another GPU). Tensors may
    live on the meta device, so full-size shapes cost no memory."""
    launches: list[Launch] = []

    class _Recorder:
        def __getitem__(self, grid):
            def launch(*a, **kw):
                launches.append(Launch(tuple(grid(kw) if callable(grid) else grid), a, kw))
            return launch

    replaced = {kernel: _Recorder(), **(patch or {})}
    saved = {name: getattr(module, name) for name in replaced}
    try:
        for name, value in replaced.items():
            setattr(module, name, value)
        call(*args)
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
    return launches


_PTX_GLOBAL = re.compile(r"\b(ld|st)\.global((?:\.[A-Za-z0-9_:]+)*)")


def ptx_global_accesses(ptx: str) -> dict[str, int]:
    """Global-memory loads and stores in PTX text, counted by access width: {'load 16 B': 2, ...}.
    Width = vector length (.v2, .v4) × element size (.b16, .b32, .f32, ...); cache hints
    (.L1::evict_last, .nc) are ignored."""
    counts: collections.Counter[str] = collections.Counter()
    for kind, suffix in _PTX_GLOBAL.findall(ptx):
        parts = suffix.split(".")[1:]
        vec = next((int(p[1:]) for p in parts if re.fullmatch(r"v\d+", p)), 1)
        bits = next((int(p[1:]) for p in parts if re.fullmatch(r"[bfsu]\d+", p)), None)
        if bits is not None:
            counts[f"{'load' if kind == 'ld' else 'store'} {vec * bits // 8} B"] += 1
    return dict(sorted(counts.items()))


# --- chapter 01: GPU timings side by side ------------------------------------------------------

@dataclasses.dataclass
class SideBySide:
    """Several implementations timed on the same shapes in one run (time_fn: L2 flushed, inputs
    rotated past L2, CUDA graphs under 30 µs)."""

    title: str
    shapes: list[tuple[int, ...]]
    names: list[str]
    times_s: dict[str, list[float]]  # per implementation, one per shape
    min_bytes: list[float]           # per shape: the minimum traffic GB/s is counted on
    bandwidth_gbps: float | None
    bandwidth_source: str = ""

    def ratio(self, a: str, b: str) -> list[float]:
        """time of a / time of b, per shape."""
        return [x / y for x, y in zip(self.times_s[a], self.times_s[b])]

    def markdown(self) -> str:
        lines = ["| shape | min. bytes | " + " | ".join(self.names) + " |",
                 "|---|---:|" + "---:|" * len(self.names)]
        for i, shape in enumerate(self.shapes):
            cells = []
            for name in self.names:
                t = self.times_s[name][i]
                gbps = self.min_bytes[i] / t / 1e9
                pct = f" · {100 * gbps / self.bandwidth_gbps:.0f}%" if self.bandwidth_gbps else ""
                cells.append(f"{_fmt_time(t)} · {_fmt_rate(gbps)}{pct}")
            lines.append(f"| {'×'.join(map(str, shape))} | {_fmt_bytes(self.min_bytes[i])} | " + " | ".join(cells) + " |")
        roof = (f"; % of the {self.bandwidth_source} roof, {_fmt_rate(self.bandwidth_gbps)}"
                if self.bandwidth_gbps else "")
        lines += ["", f"{self.title}. Each cell: median time · minimum bytes / time{roof}."]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()


def time_side_by_side(fns: dict[str, Callable], make_args: Callable[[tuple], tuple],
                      shapes: Sequence[tuple[int, ...]], min_bytes: Callable[[tuple], float],
                      title: str = "") -> SideBySide | None:
    """Time every function in `fns` on each shape, back to back in one run, with time_fn; inputs
    come from make_args(shape) and are rotated past L2. CPU mode: None, with the reason."""
    if env.CPU_MODE:
        _skip("timing needs a CUDA GPU; the outputs saved with this notebook show an H200's numbers")
        return None
    from grading import hardware
    dev = torch.device("cuda")
    times: dict[str, list[float]] = {name: [] for name in fns}
    nbytes = [float(min_bytes(tuple(s))) for s in shapes]
    for shape, nb in zip(shapes, nbytes):
        sets = [(tuple(make_args(tuple(shape))), {}) for _ in range(rotation_count(nb, dev))]
        for name, fn in fns.items():
            timing, _, _ = time_fn(fn, sets)
            times[name].append(timing.best_s)
        del sets
        torch.cuda.empty_cache()
    # The roofs % of SOL is counted against: measured ceilings of this GPU where cached, else committed
    # ones for its kind, else the datasheet.
    gpu = hardware.current()
    roofs = hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key))
    return SideBySide(title, [tuple(s) for s in shapes], list(fns), times, nbytes, roofs.bandwidth_gbps,
                      roofs.bandwidth_source)


# --- chapter 01, going further: RMSNorm fused with per-token FP8 quantization ----------------------

E4M3_MAX = 448.0  # largest finite float8_e4m3fn value (4 exponent bits, 3 mantissa bits, no inf)
# Floor on a row's largest |y|: an all-zero row (padding) then gets q = 0, not 0 / 0.
FP8_MIN_AMAX = 1e-12


@triton.jit
def _rmsnorm_fp8_kernel(
    x_ptr, w_ptr,          # x: [rows, N] view, last dim contiguous (row stride x_row_stride); w: [N]
    q_ptr, scale_ptr,      # q: [rows, N] contiguous, e4m3 (fp32 where the host casts); scale: [rows] fp32
    n_cols,                # N
    x_row_stride,          # elements between rows of x
    eps,
    BLOCK_N: tl.constexpr,  # next power of two >= N: one program holds one whole row
):
    row = tl.program_id(0).to(tl.int64)  # 64-bit: row * stride passes 2^31 on large inputs
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    # The normalized row stays in fp32 registers: it is never written out in bf16 and read back.
    y = x * rstd * w
    # The second reduction of the row, its largest |y|, costs no memory traffic either.
    amax = tl.maximum(tl.max(tl.abs(y), axis=0), 1e-12)  # FP8_MIN_AMAX
    # amax maps to 448 (E4M3_MAX); the clamp keeps fp32 rounding from stepping past it.
    q = tl.clamp(y * (448.0 / amax), -448.0, 448.0)
    tl.store(q_ptr + row * n_cols + cols, q.to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(scale_ptr + row, amax / 448.0)


@triton.jit
def _cast_e4m3_kernel(x_ptr, q_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(q_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(q_ptr.dtype.element_ty), mask=mask)


# fp32 values whose rounding to e4m3 carries into the exponent (126.24 -> 128, 31.09 -> 32), lies
# just past a midpoint (136.002 -> 144, 1.0625001 -> 1.125), is subnormal (0.0048), or is plain.
FP8_PROBE = (126.24, 31.09, 136.00207, 1.0625001, -240.5, 0.0048, -3.3, 448.0)


@functools.cache
def fp8_cast_mismatches() -> tuple[tuple[float, float, float], ...]:
    """(value, Triton's e4m3, torch's e4m3) for each FP8_PROBE value on which Triton's fp32 ->
    float8_e4m3fn cast, here (on this GPU, or in the interpreter in CPU mode), differs from
    torch's round-to-nearest-even. Empty when they agree on all of them."""
    x = torch.tensor(FP8_PROBE, dtype=torch.float32, device=_device())
    q = torch.empty(len(FP8_PROBE), dtype=torch.float8_e4m3fn, device=x.device)
    _cast_e4m3_kernel[(1,)](x, q, len(FP8_PROBE), BLOCK=triton.next_power_of_2(len(FP8_PROBE)))
    ours = q.float().cpu().tolist()
    ref = x.cpu().to(torch.float8_e4m3fn).float().tolist()
    return tuple((v, a, b) for v, a, b in zip(FP8_PROBE, ours, ref) if a != b)


def rmsnorm_fp8_triton(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> tuple[torch.Tensor, torch.Tensor]:
    """rmsnorm fused with per-token FP8 quantization of its output: (q [..., N] float8_e4m3fn,
    scale [..., 1] fp32) with q * scale ≈ rmsnorm(x, weight, eps), each row's largest |y| mapped
    to 448. One pass: x read once (2 B per bf16 element), q written once (1 B).

    CPU mode: where the interpreter's own fp32 -> e4m3 cast is wrong (fp8_cast_mismatches), the
    kernel writes the scaled values in fp32 and torch rounds them to e4m3 on the host."""
    from grading.specs.rmsnorm import check_rmsnorm_inputs, rows_view
    check_rmsnorm_inputs(x, weight, eps)
    n = x.shape[-1]
    block = triton.next_power_of_2(n)
    if block * x.element_size() > 64 * 1024:
        raise ValueError(f"x: rows of {n} elements do not fit in one program's registers here "
                         "(this teaching kernel holds a row of up to 64 KB)")
    host_cast = env.CPU_MODE and bool(fp8_cast_mismatches())
    q = torch.empty(x.shape, dtype=torch.float32 if host_cast else torch.float8_e4m3fn, device=x.device)
    scale = torch.empty(*x.shape[:-1], 1, dtype=torch.float32, device=x.device)  # [..., 1]
    if x.numel():
        x2 = rows_view(x, "x")  # [M, N]
        # One warp per KB of row, 1 to 16, as in solutions/rmsnorm.py (N = 8192 bf16: 16 warps).
        num_warps = min(16, max(1, triton.next_power_of_2(block * x.element_size() // 1024)))
        _rmsnorm_fp8_kernel[(x2.shape[0],)](x2, weight, q, scale, n, x2.stride(0), eps, BLOCK_N=block,
                                             num_warps=num_warps)
    return (q.to(torch.float8_e4m3fn) if host_cast else q), scale


def per_token_fp8(y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token FP8 quantization in plain PyTorch, the step an unfused pipeline runs after the
    norm: each row's largest |y| maps to 448. (q float8_e4m3fn, scale [..., 1] fp32)."""
    yf = y.float()
    amax = yf.abs().amax(-1, keepdim=True).clamp_min(FP8_MIN_AMAX)  # [..., 1]
    q = (yf * (E4M3_MAX / amax)).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q, amax / E4M3_MAX


@dataclasses.dataclass
class Fp8Check:
    """q · scale against rmsnorm computed in float64."""

    worst: float               # largest |q - y/scale| over the rounding bound; <= 1 passes
    where: tuple[int, ...]     # the element where it is
    scale_rel_err: float       # largest |scale - amax/448| / (amax/448)
    off_grid: int              # elements whose q differs from torch's rounding of float64 y/scale
    elements: int

    @property
    def ok(self) -> bool:
        # A scale computed from y rounded to bf16 first (the unfused pipeline) is off by up to half
        # a bf16 step, 2^-8 relative; a wrong formula (amax/224, the mean instead of the max) is off
        # by far more.
        return self.worst <= 1.0 and self.scale_rel_err <= 2.0**-7

    def __str__(self) -> str:
        return (f"worst error {self.worst:.3f} × half an e4m3 step (at {list(self.where)}); scales within "
                f"{self.scale_rel_err:.1e} of amax/448; {self.off_grid:,} of {self.elements:,} elements rounded "
                f"differently from the float64 value: {'pass' if self.ok else 'FAIL'}")


def fp8_check(q: torch.Tensor, scale: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
              eps: float = 1e-6) -> Fp8Check:
    """Judge a quantized rmsnorm against the float64 reference. On the grid of a row's scale
    (v = y / scale), rounding to the nearest e4m3 value costs at most half a step: 2^-4 of |v| for
    normal values (3 mantissa bits), 2^-10 below 2^-6 (subnormal steps of 2^-9). 0.1% on top
    covers the fp32 arithmetic in front of the rounding."""
    from grading.specs.rmsnorm import rmsnorm_ref
    y = rmsnorm_ref(x, weight, eps)  # float64
    amax = y.abs().amax(-1, keepdim=True).clamp_min(FP8_MIN_AMAX)
    s = scale.double()
    scale_err = float(((s - amax / E4M3_MAX).abs() / (amax / E4M3_MAX)).max()) if s.numel() else 0.0
    v = y / s
    got = q.float().double()
    bound = torch.clamp(v.abs() * 2.0**-4, min=2.0**-10) * 1.001
    ratio = (got - v).abs() / bound
    if ratio.numel() == 0:
        return Fp8Check(0.0, (), scale_err, 0, 0)
    flat = int(ratio.argmax())
    where = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), ratio.shape))
    rounded = v.float().clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn).float()
    off = int((q.float() != rounded).sum())
    return Fp8Check(float(ratio.max()), where, scale_err, off, q.numel())


__all__ = ["Measurement", "Noise", "no_sync_trap", "cold_vs_warm", "launch_overhead", "l2_warm_vs_flushed",
           "noise", "graph_vs_eager", "linear_cost", "roofline_examples", "launched_kernels",
           "short_kernel_name", "generated_kernels", "head", "kernel_source", "excerpt", "run_bench",
           "show_reused_bench", "load_json", "bench_markdown", "bench_points", "bench_roofs",
           "variants_markdown",
           "OpTraffic", "op_traffic", "traffic_table", "CompileSweep", "compile_sweep", "sweep_table",
           "Launch", "triton_launches", "ptx_global_accesses", "SideBySide", "time_side_by_side",
           "E4M3_MAX", "FP8_MIN_AMAX", "FP8_PROBE", "fp8_cast_mismatches", "rmsnorm_fp8_triton",
           "per_token_fp8", "Fp8Check", "fp8_check"]
