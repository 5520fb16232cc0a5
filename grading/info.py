"""`python -m grading info`: what this machine can run."""
from __future__ import annotations

import platform
import shutil
import subprocess

import torch
from rich.console import Console
from rich.table import Table

from grading import env


def _nvcc_version() -> str:
    from grading.cuda import nvcc_path
    path = nvcc_path()
    if not path:
        return "not found (the CUDA rung cannot be compiled)"
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True).stdout
    release = next((ln.split("release")[-1].strip() for ln in out.splitlines() if "release" in ln), "?")
    return f"{path} (release {release})"


def _cutlass() -> str:
    from grading.cuda import cutlass_include_dirs
    try:
        return str(cutlass_include_dirs()[0])
    except Exception as e:  # noqa: BLE001 - report, don't fail
        return f"not found: {str(e).splitlines()[0]}"


def rung_support(cap: tuple[int, int] | None) -> list[tuple[str, str]]:
    """Which dtypes and rungs this GPU runs (capability thresholds from CUDA's programming guide)."""
    if cap is None:
        return [("all chapters", "CPU mode: correctness only; Triton in its interpreter (bf16 tl.dot is "
                 "checked on a GPU only), CUDA sources compile-checked")]
    ok = lambda b: "yes" if b else "no"  # noqa: E731
    return [("fp16 / fp32 kernels", "yes"),
            ("bf16 kernels (sm_80+)", ok(cap >= (8, 0))),
            ("fp8 e4m3 kernels, chapter 02 (sm_89+)", ok(cap >= (8, 9))),
            ("CUTLASS 3.x TMA + WGMMA rung (sm_90)", ok(cap[0] == 9))]


def run(console: Console, gpus: bool = False) -> int:
    t = Table(title="this machine", show_header=False)
    t.add_column("what")
    t.add_column("value")
    t.add_row("mode", env.device_summary())
    if not env.CPU_MODE:
        p = torch.cuda.get_device_properties(0)
        t.add_row("GPU", f"{p.name}, sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, "
                         f"L2 {getattr(p, 'L2_cache_size', 0) / 2**20:.0f} MiB")
        from grading import hardware
        gpu = hardware.current()
        t.add_row("datasheet entry", f"{gpu.key} ({gpu.source})" if gpu and gpu.key != "unknown" else "none (unknown GPU)")
        c = hardware.load_ceilings()
        t.add_row("measured ceilings", ", ".join(f"{k} {v:,.0f}" for k, v in c.items() if k.endswith(("gbps", "tflops"))
                                                 and isinstance(v, (int, float))) if c else
                  "not yet: run `python -m grading ceilings`")
    t.add_row("python", platform.python_version())
    t.add_row("torch", f"{torch.__version__} (CUDA {torch.version.cuda or 'none: CPU build'})")
    try:
        import triton
        t.add_row("triton", triton.__version__)
    except ImportError:
        t.add_row("triton", "not installed (the Triton rungs cannot run)")
    t.add_row("nvcc", _nvcc_version())
    t.add_row("ninja", shutil.which("ninja") or "not found")
    t.add_row("CUTLASS headers", _cutlass())
    for what, yes in rung_support(env.capability()):
        t.add_row(what, yes)
    console.print(t)
    if gpus:
        from grading import hardware
        g = Table(title="datasheet peaks (dense)")
        for col in ("key", "GPU", "HBM GB/s", "fp32", "tf32", "bf16", "fp8", "source"):
            g.add_column(col)
        for s in hardware.GPUS.values():
            f = lambda k: "-" if s.peak_tflops.get(k) is None else f"{s.peak_tflops[k]:g}"  # noqa: E731
            g.add_row(s.key, s.name, f"{s.hbm_gbps:,.0f}", f("fp32"), f("tf32"), f("bf16"), f("fp8"), s.source)
        console.print(g)
    return 0
