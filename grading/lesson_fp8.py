"""Helpers for chapter 02's notebook (FP8 GEMM): the e4m3 format, quantization error with outlier
channels, accumulation precision, napkin math, side-by-side GEMM timings and the SASS of the
CUTLASS rung. The notebook holds no logic of its own; tests can import everything here.
"""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Sequence

import torch

from grading import env
from grading.lessons import _fmt_rate, _fmt_time, _skip
from grading.specs.fp8_gemm import E4M3

# --- the format ------------------------------------------------------------------------------------


def e4m3_facts() -> str:
    """float8_e4m3fn in numbers, read from torch itself: range, steps, how many values."""
    fi = torch.finfo(E4M3)
    codes = torch.arange(256, dtype=torch.uint8).view(E4M3).float()
    finite = codes[torch.isfinite(codes)]
    positive = finite[finite > 0].unique()
    return "\n".join([
        f"largest finite: {fi.max:g} (no inf; 0x7F/0xFF are NaN, so a value past 448 must be clamped)",
        f"smallest normal: {fi.smallest_normal:g} = 2^-6; smallest subnormal: {positive.min().item():g} = 2^-9",
        "relative step: 2^-3 = 12.5% between 1 and 2 (3 mantissa bits), so rounding costs up to 6.25%",
        f"distinct positive values: {positive.numel()} across {fi.max / positive.min().item():.0f}x of range "
        f"(bf16: 7 mantissa bits, rounding up to 2^-8 relative)",
        "the grid between 1 and 2: " + ", ".join(f"{v:g}" for v in positive[(positive >= 1) & (positive <= 2)].tolist()),
    ])


def llama_like_activations(m: int, k: int, *, outlier_channels: int = 8, outlier_scale: float = 50.0,
                           massive_tokens: int = 0, massive_scale: float = 1000.0, seed: int = 0,
                           dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    """[m, k] activations the way LLM hidden states look: channels ~N(0, 1) with per-token scales
    varying 5×, a few fixed channels `outlier_scale` times larger in every token, and optionally a
    few "massive" tokens (the first token of a sequence often is) `massive_scale` times larger."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(m, k, generator=gen) * (0.5 + torch.rand(m, 1, generator=gen) * 2)  # token scales vary
    cols = torch.randperm(k, generator=gen)[:outlier_channels]
    x[:, cols] *= outlier_scale
    x[:massive_tokens] *= massive_scale
    return x.to(dtype)


@dataclasses.dataclass
class QuantError:
    name: str
    rel_l2: float        # ||dequant(q) - x|| / ||x||
    zero_fraction: float  # elements that became 0 (underflow below the smallest subnormal)
    worst_token_rel: float  # the largest per-token relative L2 error


def quantization_error(x: torch.Tensor, quantize: Callable, name: str) -> QuantError:
    """How far dequantize(quantize(x)) is from x, in float64."""
    q, scale = quantize(x)
    deq = q.double() * scale.double()
    xd = x.double()
    err = deq - xd
    per_token = err.norm(dim=-1) / xd.norm(dim=-1).clamp_min(1e-30)
    zeros = ((q.float() == 0) & (x.float() != 0)).double().mean().item()
    return QuantError(name, (err.norm() / xd.norm()).item(), zeros, per_token.max().item())


def quantizers() -> dict[str, Callable]:
    """Per tensor and per token e4m3 quantization (the eager reference rung)."""
    from solutions.fp8_gemm import fp8_quantize_eager
    return {"per tensor": lambda x: fp8_quantize_eager(x, False), "per token": lambda x: fp8_quantize_eager(x, True)}


def quantization_table(errors: Sequence[QuantError]) -> str:
    lines = ["| scheme | relative L2 error | elements flushed to 0 | worst token |", "|---|---:|---:|---:|"]
    lines += [f"| {e.name} | {e.rel_l2:.2%} | {e.zero_fraction:.2%} | {e.worst_token_rel:.2%} |" for e in errors]
    return "\n".join(lines)


# --- accumulation precision -------------------------------------------------------------------------

def _truncate_13_bits(t: torch.Tensor) -> torch.Tensor:
    """fp32 with its 10 low mantissa bits cleared: the fp8 tensor-core accumulator of Hopper and Ada
    (13 mantissa bits, truncated), as measured in published experiments."""
    return (t.view(torch.int32) & ~0x3FF).view(torch.float32)


def emulated_gemm(a: torch.Tensor, b: torch.Tensor, mode: str, promote_every: int = 128) -> torch.Tensor:
    """a @ b.T (e4m3 in, fp32 out) with the accumulation of a given hardware path, on the CPU:
    "fp32" exact products summed in fp32; "fast" the tensor cores' 13-bit accumulator carried over
    all of K (one k32 instruction at a time); "promoted" the same, restarted from zero every
    `promote_every` of K and added to an fp32 accumulator; "bf16" an accumulator kept in bf16."""
    m, k = a.shape
    n = b.shape[0]
    pad = -k % 32  # zeros add nothing
    af = torch.nn.functional.pad(a.float(), (0, pad)).view(m, -1, 32)  # [M, steps, 32]
    bf = torch.nn.functional.pad(b.float(), (0, pad)).view(n, -1, 32)  # [N, steps, 32]
    steps = torch.einsum("msk,nsk->smn", af, bf)  # one k32 instruction's products, exact in fp32
    acc = torch.zeros(m, n)
    part = torch.zeros_like(acc)
    for i, step in enumerate(steps):
        if mode == "fp32":
            acc += step
        elif mode == "bf16":
            acc = (acc + step).bfloat16().float()
        elif mode == "fast":
            acc = _truncate_13_bits(acc + step)
        elif mode == "promoted":
            part = _truncate_13_bits(part + step)
            if (i + 1) * 32 % promote_every == 0 or i + 1 == len(steps):
                acc, part = acc + part, torch.zeros_like(part)
        else:
            raise ValueError(f"unknown mode {mode!r}")
    return acc


def accumulation_errors(ks: Sequence[int], m: int = 8, n: int = 128, seed: int = 0) -> str:
    """Relative L2 error against float64 of each accumulation mode, for growing K (CPU emulation):
    promotion every 128, 1024 and 2048 of K among them (the Triton rung's intervals)."""
    modes = {"fp32": ("fp32", 128), "promoted every 128": ("promoted", 128),
             "promoted every 1024": ("promoted", 1024), "promoted every 2048": ("promoted", 2048),
             "fast": ("fast", 128), "bf16": ("bf16", 128)}
    lines = ["| K | " + " | ".join(modes) + " |", "|---:|" + "---:|" * len(modes)]
    for k in ks:
        gen = torch.Generator().manual_seed(seed + k)
        a = torch.randn(m, k, generator=gen).to(E4M3)
        b = torch.randn(n, k, generator=gen).to(E4M3)
        ref = a.double() @ b.double().T
        cells = [f"{((emulated_gemm(a, b, mode, every).double() - ref).norm() / ref.norm()).item():.1e}"
                 for mode, every in modes.values()]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def gpu_accumulation_errors(ks: Sequence[int], m: int = 256, n: int = 1024) -> str | None:
    """The same question asked of the hardware: the Triton v3 kernel promoting every 128 of K, as
    picked for large M (every 2048), and without promotion; torch._scaled_mm with use_fast_accum
    False and True; relative L2 error against float64."""
    if env.CPU_MODE or torch.cuda.get_device_capability() < (8, 9):
        _skip("needs an fp8 GPU (sm_89 or newer); the saved outputs show an H200's")
        return None
    from solutions import fp8_gemm as sol
    fast = sol.GemmConfig(3, 128, 128, 128, 8, 4, promote=False)
    picked = sol.pick_config(m, n, ks[0])  # v3, its promotion interval
    one = torch.ones(1, device="cuda")
    lines = [f"| K | Triton, promoted every 128 | Triton, every {picked.promote_every * picked.block_k} | "
             "Triton, fast | _scaled_mm | _scaled_mm, use_fast_accum |", "|---:|---:|---:|---:|---:|---:|"]
    for k in ks:
        gen = torch.Generator().manual_seed(k)
        a = torch.randn(m, k, generator=gen).to(E4M3).cuda()
        b = torch.randn(n, k, generator=gen).to(E4M3).cuda()
        ref = a.double() @ b.double().T
        outs = [sol.fp8_gemm_triton_v3(a, b, one, one, out_dtype=torch.float32),
                sol.fp8_gemm_triton_v3(a, b, one, one, out_dtype=torch.float32, config=picked),
                sol.fp8_gemm_triton_v3(a, b, one, one, out_dtype=torch.float32, config=fast),
                torch._scaled_mm(a, b.t(), scale_a=one[0], scale_b=one[0], out_dtype=torch.float32),
                torch._scaled_mm(a, b.t(), scale_a=one[0], scale_b=one[0], out_dtype=torch.float32, use_fast_accum=True)]
        cells = [f"{((o.double() - ref).norm() / ref.norm()).item():.1e}" for o in outs]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- napkin math ------------------------------------------------------------------------------------

def gemm_napkin(shapes: Sequence[tuple[int, int, int]], roofs) -> str:
    """Per (M, N, K): FLOPs, bytes (fp8 in, bf16 out), intensity, SOL, and what bounds it; the
    same for a bf16 GEMM of the dequantized operands (half the tensor-core rate, twice the bytes)."""
    from grading.roofline import sol_time_s
    lines = ["| M × N × K | GFLOP | fp8: MB moved | FLOP/byte | fp8 SOL | bound by | bf16 SOL | bf16 / fp8 |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for m, n, k in shapes:
        flops = 2.0 * m * n * k
        fp8_bytes = m * k + n * k + 2 * m * n
        bf16_bytes = 2 * (m * k + n * k) + 2 * m * n
        t8 = sol_time_s(flops, fp8_bytes, roofs, "fp8")
        t16 = sol_time_s(flops, bf16_bytes, roofs, "bf16")
        bound = "weight bytes" if fp8_bytes / (roofs.bandwidth_gbps * 1e9) >= t8 * 0.999 else "fp8 math"
        lines.append(f"| {m} × {n} × {k} | {flops / 1e9:,.1f} | {fp8_bytes / 1e6:,.1f} | {flops / fp8_bytes:,.0f} | "
                     f"{_fmt_time(t8)} | {bound} | {_fmt_time(t16)} | {t16 / t8:.1f}× |")
    peak8, peak16 = roofs.peak_tflops("fp8"), roofs.peak_tflops("bf16")
    lines.append(f"\nRoofs: {_fmt_rate(roofs.bandwidth_gbps)} ({roofs.bandwidth_source}), fp8 {peak8:,.0f} and "
                 f"bf16 {peak16:,.0f} TFLOP/s ({roofs.peak_source('fp8')}).")
    return "\n".join(lines)


# --- timings ----------------------------------------------------------------------------------------

def gemm_args(m: int, n: int, k: int, per_row: bool = False, device: str | None = None) -> tuple:
    """(a, b, scale_a, scale_b) for an M × N × K problem, random e4m3 values and scales near 1/sqrt(K)."""
    device = device or env.DEVICE
    a = torch.randn(m, k, device=device).to(E4M3)
    b = torch.randn(n, k, device=device).to(E4M3)
    scale_a = (0.5 + torch.rand((m, 1) if per_row else (1,), device=device))
    scale_b = (0.5 + torch.rand((n, 1) if per_row else (1,), device=device)) / k ** 0.5
    return a, b, scale_a, scale_b


@dataclasses.dataclass
class GemmTimes:
    title: str
    shapes: list[tuple[int, int, int]]
    times_s: dict[str, list[float | None]]
    copy_gbps: float
    fp8_tflops: float | None

    def markdown(self) -> str:
        names = list(self.times_s)
        lines = ["| M × N × K | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for i, (m, n, k) in enumerate(self.shapes):
            cells = []
            for name in names:
                t = self.times_s[name][i]
                if t is None:
                    cells.append("-")
                    continue
                tflops = 2.0 * m * n * k / t / 1e12
                weight = n * k / t / 1e9
                cells.append(f"{_fmt_time(t)} · {tflops:,.0f} TFLOP/s · weight {100 * weight / self.copy_gbps:.0f}%")
            lines.append(f"| {m} × {n} × {k} | " + " | ".join(cells) + " |")
        peak = f", fp8 roof {self.fp8_tflops:,.0f} TFLOP/s" if self.fp8_tflops else ""
        lines += ["", f"{self.title}. Each cell: median time · TFLOP/s · weight bytes per second as % of the "
                      f"copy roof ({_fmt_rate(self.copy_gbps)}{peak})."]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()


def time_gemms(fns: dict[str, Callable], shapes: Sequence[tuple[int, int, int]], title: str = "",
               per_row: bool = False) -> GemmTimes | None:
    """Time every GEMM in `fns` on each shape back to back with the grader's protocol (L2 flushed,
    inputs rotated past L2, CUDA graphs under 30 µs). A function that raises gets "-". CPU mode or
    a GPU without fp8: None, with the reason."""
    if env.CPU_MODE:
        _skip("timing needs a CUDA GPU; the outputs saved with this notebook show an H200's numbers")
        return None
    if torch.cuda.get_device_capability() < (8, 9):
        _skip("this GPU has no fp8 tensor cores (sm_89 or newer): nothing here can run")
        return None
    from grading import hardware
    from grading.timing import rotation_count, time_fn
    dev = torch.device("cuda")
    times: dict[str, list[float | None]] = {name: [] for name in fns}
    for m, n, k in shapes:
        sets = [(gemm_args(m, n, k, per_row), {}) for _ in range(rotation_count(m * k + n * k + 2 * m * n, dev))]
        for name, fn in fns.items():
            try:
                timing, _, _ = time_fn(fn, sets)
                times[name].append(timing.best_s)
            except Exception as e:  # noqa: BLE001 - e.g. the CUTLASS rung on a GPU that is not sm_90
                print(f"{name} at {m}×{n}×{k}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
                times[name].append(None)
        del sets
        torch.cuda.empty_cache()
    gpu = hardware.current()
    roofs = hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key))
    return GemmTimes(title, [tuple(s) for s in shapes], times, roofs.bandwidth_gbps, roofs.peak_tflops("fp8"))


def power_table(result: dict) -> str:
    """A steady-state run of benchmarks/fp8_gemm_power.py as Markdown: per shape, torch._scaled_mm's
    time and, for each other implementation, _scaled_mm's time over its own (> 1: faster), each with
    the median SM clock while it ran and the work it did per clock (TFLOP/s per GHz); the means of
    the run's rounds. Then the board power and the clock's limiters over the whole run."""
    rows = result["rows"]
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    if "scaled_mm" not in impls:
        raise ValueError("power_table: the run has no torch._scaled_mm rows to compare with")
    others = [x for x in impls if x != "scaled_mm"]

    def mean(shape, impl, key):
        vals = [r[key] for r in rows if (r["m"], r["n"], r["k"], r["impl"]) == (*shape, impl)]
        return sum(vals) / len(vals) if vals else None

    names = {"scaled_mm": "`_scaled_mm`", "scaled_mm fast": "`_scaled_mm`, fast accumulation", "triton": "Triton",
             "cutlass": "CUTLASS"}
    lines = ["| M × N × K | " + " | ".join([names.get(x, x) for x in ["scaled_mm", *others]]) + " |",
             "|---|" + "---:|" * (1 + len(others))]
    for shape in dict.fromkeys((r["m"], r["n"], r["k"]) for r in rows):
        base = mean(shape, "scaled_mm", "us")

        def where(impl):
            mhz, tflops = mean(shape, impl, "sm_mhz"), mean(shape, impl, "tflops")
            return f"{mhz:.0f} MHz, {tflops / mhz * 1e3:.0f} TF/GHz"

        cells = [f"{base:,.1f} µs · {where('scaled_mm')}"]
        for x in others:
            us = mean(shape, x, "us")
            cells.append("-" if us is None else f"{base / us:.3f}× · {where(x)}")
        lines.append(f"| {' × '.join(map(str, shape))} | " + " | ".join(cells) + " |")
    watts = sorted(r["power_w"] for r in rows)
    capped = sum(1 for r in rows if any(int(x, 16) & 0x4 for x in r.get("reasons", [])))
    lines += ["", f"{result['device']}, power limit, enforced limit, top SM clock: {result['limits']} (W, W, MHz). "
                  f"Board power over the runs {watts[0]:.0f}-{watts[-1]:.0f} W (median {watts[len(watts) // 2]:.0f}); "
                  f"the software power cap held the clock in {capped} of {len(rows)} runs."]
    return "\n".join(lines)


# --- the CUTLASS rung's machine code ----------------------------------------------------------------

def built_library(kernel: str = "fp8_gemm_cutlass") -> Path | None:
    """The shared library of the reference `csrc/<kernel>.cu` that this process loaded, if it did.
    Not the newest one in the cache: a student's build or a benchmark's sweep build of the same
    kernel may be newer."""
    from grading.cuda import CSRC, loaded_library
    return loaded_library(kernel, CSRC / f"{kernel}.cu")


def sass_matches(library: Path, pattern: str = r"QGMMA", limit: int = 12) -> tuple[int, list[str]] | None:
    """How many SASS instructions of `library` match `pattern` (cuobjdump -sass) and the first few;
    None when cuobjdump is not installed."""
    tool = shutil.which("cuobjdump")
    if tool is None:
        from grading.cuda import nvcc_path
        nvcc = nvcc_path()
        candidate = nvcc.parent / "cuobjdump" if nvcc else None
        tool = str(candidate) if candidate and candidate.is_file() else None
    if tool is None:
        return None
    out = subprocess.run([tool, "-sass", str(library)], capture_output=True, text=True, timeout=600).stdout
    hits = [re.sub(r"\s+", " ", ln.split("*/", 1)[-1]).strip(" ;") for ln in out.splitlines() if re.search(pattern, ln)]
    return len(hits), hits[:limit]
