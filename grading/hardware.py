"""What the GPU can do: datasheet peaks for common GPUs, and ceilings measured on the GPU in use.

Three sources of roofs, in order of preference:
  1. measured on this machine (`python -m grading ceilings`, cached per device name),
  2. committed measurements from a real GPU of the same kind (benchmarks/ceilings/<KEY>.json),
  3. the vendor's datasheet (the `GPUS` table below).
Datasheet figures are upper bounds that real code does not reach: on one H200 a device-to-device
copy reached 4.27 TB/s against the datasheet's 4.8, and a bf16 matmul 686-790 TFLOP/s against 989
(torch 2.11.0+cu130, 2026-11-29). So % of SOL uses measured roofs whenever there are any, and the
plot shows both.

Tensor-core rates in the table are DENSE. NVIDIA's datasheets for Ampere and later quote the
tf32/bf16/fp16/fp8 tensor rates "with sparsity" (2:4 structured sparsity, which no kernel here
uses), some next to the dense figure, some alone; sparse-only figures are halved here. "fp32" is
the plain (non-tensor-core) FP32 rate.
"""
from __future__ import annotations

import dataclasses
import datetime
import json
import os
import re
import statistics
from pathlib import Path
from typing import Callable

import torch

from grading import env

MATH_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")

_SPARSE_HALVED = "tensor rates: the datasheet's figures with sparsity, halved"


@dataclasses.dataclass(frozen=True)
class GPUSpec:
    """One GPU model: datasheet memory bandwidth and dense peak rates.

    `match` holds lowercase substrings of `torch.cuda.get_device_properties(0).name`; a device
    name matches a spec when one of them appears as whole words (hyphens count as spaces), and
    the longest matching pattern over the whole table wins, so "NVIDIA H200 NVL" goes to H200-NVL
    and not to H200. `hbm_gbps` is the DRAM bandwidth (HBM or GDDR) in GB/s (1e9 bytes/s).
    `peak_tflops` maps each of MATH_DTYPES to TFLOP/s, None where the GPU has no such unit.
    """

    key: str
    name: str
    match: tuple[str, ...]
    capability: tuple[int, int]
    hbm_gbps: float | None
    peak_tflops: dict[str, float | None]
    l2_bytes: int | None
    source: str
    note: str = ""


def _peaks(fp32, tf32, bf16, fp16, fp8) -> dict[str, float | None]:
    return {"fp32": fp32, "tf32": tf32, "bf16": bf16, "fp16": fp16, "fp8": fp8}


_MiB = 2**20

GPUS: dict[str, GPUSpec] = {g.key: g for g in (
    # Ampere, sm_80. A100 datasheet: TF32 156, BF16/FP16 312 dense (624 with sparsity), FP32 19.5.
    GPUSpec("A100-40GB", "NVIDIA A100 40GB", ("a100 sxm4 40gb", "a100 sxm 40gb", "a100 pcie 40gb",
                                              "a100 40gb"),
            (8, 0), 1555.0, _peaks(19.5, 156.0, 312.0, 312.0, None), 40 * _MiB,
            "NVIDIA A100 Tensor Core GPU datasheet (2021) and Ampere GA100 whitepaper (2020)",
            "SXM4 40GB; the 40GB PCIe card lists the same 1555 GB/s and rates and maps here too"),
    GPUSpec("A100-80GB", "NVIDIA A100 80GB SXM", ("a100 sxm4 80gb", "a100 sxm 80gb"),
            (8, 0), 2039.0, _peaks(19.5, 156.0, 312.0, 312.0, None), 40 * _MiB,
            "NVIDIA A100 Tensor Core GPU datasheet (2021)"),
    GPUSpec("A100-80GB-PCIe", "NVIDIA A100 80GB PCIe", ("a100 80gb pcie", "a100 pcie 80gb"),
            (8, 0), 1935.0, _peaks(19.5, 156.0, 312.0, 312.0, None), 40 * _MiB,
            "NVIDIA A100 Tensor Core GPU datasheet (2021)",
            "same rates as the SXM part at a lower power limit; sustained clocks may be lower"),
    # Ampere, sm_86. NVIDIA publishes no A10G datasheet; the A10 datasheet gives 125 TFLOP/s dense
    # bf16 at 72 SMs, and the AWS part (80 SMs) is reported with a tensor rate of about 70.
    GPUSpec("A10G", "NVIDIA A10G (AWS G5)", ("a10g",),
            (8, 6), 600.0, _peaks(35.0, 35.0, 70.0, 70.0, None), 6 * _MiB,
            "Baseten, \"NVIDIA A10 vs A10G for ML model inference\" (fp32 35, fp16 tensor 70); "
            "memory as in the NVIDIA A10 datasheet (2021)",
            "least certain entry: no NVIDIA datasheet for the A10G. bf16 taken equal to the fp16 "
            "tensor rate, tf32 as half of it (the A10's ratio); the A10's own datasheet says "
            "125 bf16 / 62.5 tf32 dense. Prefer measured ceilings on this GPU"),
    # Turing, sm_75: no bf16, no tf32, no fp8. FP16 tensor with FP32 accumulate: 65.
    GPUSpec("T4", "NVIDIA T4", ("t4",),
            (7, 5), 320.0, _peaks(8.1, None, None, 65.0, None), 4 * _MiB,
            "NVIDIA T4 Tensor Core GPU datasheet (2019)",
            "fp16 is the mixed-precision (FP16 inputs, FP32 accumulate) tensor rate; Turing has no "
            "bf16 or tf32 tensor cores"),
    # Hopper, sm_90. H100 datasheet: TF32 989, BF16/FP16 1979, FP8 3958 with sparsity.
    GPUSpec("H100-SXM", "NVIDIA H100 SXM5 80GB", ("h100 80gb hbm3", "h100 sxm5 80gb", "h100 sxm5",
                                                  "h100 sxm"),
            (9, 0), 3350.0, _peaks(67.0, 494.5, 989.5, 989.5, 1979.0), 50 * _MiB,
            "NVIDIA H100 Tensor Core GPU datasheet (2023)", _SPARSE_HALVED),
    GPUSpec("H100-PCIe", "NVIDIA H100 PCIe 80GB", ("h100 pcie",),
            (9, 0), 2000.0, _peaks(51.0, 378.0, 756.5, 756.5, 1513.0), 50 * _MiB,
            "NVIDIA H100 Tensor Core GPU datasheet (2023)", _SPARSE_HALVED),
    GPUSpec("H100-NVL", "NVIDIA H100 NVL 94GB", ("h100 nvl",),
            (9, 0), 3900.0, _peaks(60.0, 417.5, 835.5, 835.5, 1670.5), 50 * _MiB,
            "NVIDIA H100 Tensor Core GPU datasheet (2023), per-GPU column",
            _SPARSE_HALVED + "; early material quoted the NVL pair, twice these figures"),
    # H200: the H100 SXM's compute with 141 GB of HBM3e at 4.8 TB/s.
    GPUSpec("H200", "NVIDIA H200 SXM 141GB", ("h200", "h200 sxm", "h200 141gb hbm3e"),
            (9, 0), 4800.0, _peaks(67.0, 494.5, 989.5, 989.5, 1979.0), 50 * _MiB,
            "NVIDIA H200 Tensor Core GPU product brief / datasheet (2024)", _SPARSE_HALVED),
    GPUSpec("H200-NVL", "NVIDIA H200 NVL 141GB", ("h200 nvl",),
            (9, 0), 4800.0, _peaks(60.0, 417.5, 835.5, 835.5, 1670.5), 50 * _MiB,
            "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 NVL column", _SPARSE_HALVED),
    # Ada, sm_89: fp8 tensor cores.
    GPUSpec("L4", "NVIDIA L4", ("l4",),
            (8, 9), 300.0, _peaks(30.3, 60.0, 121.0, 121.0, 242.5), 48 * _MiB,
            "NVIDIA L4 Tensor Core GPU datasheet (2023)",
            _SPARSE_HALVED + " (the L4 datasheet lists only sparse tensor rates)"),
    GPUSpec("L40", "NVIDIA L40", ("l40",),
            (8, 9), 864.0, _peaks(90.5, 90.5, 181.05, 181.05, 362.0), 96 * _MiB,
            "NVIDIA L40 GPU datasheet (2022)", "dense figures as listed next to the sparse ones"),
    GPUSpec("L40S", "NVIDIA L40S", ("l40s",),
            (8, 9), 864.0, _peaks(91.6, 183.0, 362.05, 362.05, 733.0), 96 * _MiB,
            "NVIDIA L40S GPU datasheet (2023)", "dense figures as listed next to the sparse ones"),
    # GeForce Ada: the fp32-accumulate tensor rates are half the fp16-accumulate ones. Kernels here
    # accumulate in fp32, so those are the roofs.
    GPUSpec("RTX-4090", "NVIDIA GeForce RTX 4090", ("rtx 4090", "geforce rtx 4090"),
            (8, 9), 1008.0, _peaks(82.6, 82.6, 165.2, 165.2, 330.3), 72 * _MiB,
            "NVIDIA Ada Lovelace GPU architecture whitepaper (2022), appendix table for RTX 4090",
            "dense rates with FP32 accumulate (FP16 accumulate doubles fp16/fp8: 330.3 / 660.6)"),
    # Blackwell, sm_100. HGX B200 per-GPU figures: FP8 9 PFLOPS, BF16 4.5, TF32 2.2 with sparsity.
    GPUSpec("B200", "NVIDIA B200 (HGX)", ("b200",),
            (10, 0), 7700.0, _peaks(75.0, 1100.0, 2250.0, 2250.0, 4500.0), None,
            "NVIDIA HGX B200 datasheet / HGX platform page (2025), per-GPU column",
            _SPARSE_HALVED + "; launch material said 8 TB/s per GPU, the later HGX page 7.7 "
            "(62 TB/s for eight); L2 size not in the datasheet, read it from the device"),
)}


def _normalize(name: str) -> str:
    return " ".join(re.sub(r"[-_/]", " ", name.lower()).split())


def _match_device(device_name: str) -> GPUSpec | None:
    """The spec whose longest `match` pattern occurs in `device_name` as whole words."""
    name = _normalize(device_name)
    best: tuple[int, GPUSpec] | None = None
    for spec in GPUS.values():
        for pattern in spec.match:
            p = _normalize(pattern)
            if re.search(rf"(?<![a-z0-9]){re.escape(p)}(?![a-z0-9])", name):
                if best is None or len(p) > best[0]:
                    best = (len(p), spec)
    return None if best is None else best[1]


def lookup(name: str) -> GPUSpec:
    """A GPU by table key ("H100-SXM", any case) or by device name ("NVIDIA H100 80GB HBM3")."""
    for key, spec in GPUS.items():
        if key.lower() == name.strip().lower():
            return spec
    spec = _match_device(name)
    if spec is None:
        raise KeyError(f"unknown GPU {name!r}; valid keys: {', '.join(GPUS)} "
                       "(or a device name that contains one of those GPUs)")
    return spec


def current() -> GPUSpec | None:
    """The GPU in use: its table entry, or a spec with key "unknown" and no datasheet numbers
    (so measured ceilings can still be used); None in CPU mode."""
    if env.CPU_MODE:
        return None
    props = torch.cuda.get_device_properties(0)
    spec = _match_device(props.name)
    if spec is not None:
        return spec
    return GPUSpec(
        key="unknown", name=props.name, match=(), capability=(props.major, props.minor),
        hbm_gbps=None, peak_tflops={k: None for k in MATH_DTYPES},
        l2_bytes=getattr(props, "L2_cache_size", None) or None,
        source="device properties only (not in grading.hardware.GPUS)",
        note="no datasheet figures: run `python -m grading ceilings` to measure the roofs")


# --- measured ceilings ---------------------------------------------------------------------------

def _median_s(fn: Callable[[], object], reps: int, warmup: int) -> tuple[float, float, float]:
    """(median, 10th percentile, 90th percentile) seconds of fn(), timed with CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    ms = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return statistics.median(ms) / 1e3, ms[len(ms) // 10] / 1e3, ms[(9 * len(ms)) // 10] / 1e3


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def measure_ceilings(progress: Callable[[str], None] | None = None) -> dict:
    """Measure this GPU's copy and read bandwidth and its matmul rates; return a JSON-able dict.

    Keys: copy_gbps, read_gbps, bf16_tflops, fp8_tflops, fp32_tflops (medians; None with the
    reason in notes[key] where a measurement cannot run), spread (10th-90th percentile per key),
    and gpu_name, gpu_key, capability, sm_count, l2_bytes, torch_version, date, sizes.
    Data are fresh random values, never zeros: since Ampere the memory system can compress
    zero-filled data (A100 whitepaper, "compute data compression"), which would inflate GB/s. Raises
    RuntimeError in CPU mode.
    """
    if env.CPU_MODE:
        raise RuntimeError("measure_ceilings needs a CUDA GPU and none is visible (CPU mode)")
    say = progress or (lambda _msg: None)
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    cap = (props.major, props.minor)
    spec = current()
    out: dict = {
        "gpu_name": props.name, "gpu_key": spec.key if spec else "unknown",
        "capability": list(cap), "sm_count": props.multi_processor_count,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "total_memory_bytes": props.total_memory, "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "notes": {}, "spread": {}, "sizes": {},
    }

    # Sizes: 1 GiB copied (2 GiB of traffic) and 2 GiB read are far past any L2 (126 MiB at most),
    # so every rep streams from DRAM. Smaller GPUs get a slice of free memory instead.
    free, _total = torch.cuda.mem_get_info()
    copy_bytes = min(2**30, free // 8)
    read_bytes = min(2**31, free // 4)

    say(f"copy bandwidth: {copy_bytes / 2**30:.2f} GiB bf16 device-to-device")
    src = torch.randn(copy_bytes // 2, device=dev, dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    t, lo, hi = _median_s(lambda: dst.copy_(src), reps=50, warmup=5)
    traffic = 2 * copy_bytes  # read once + written once
    out["copy_gbps"] = traffic / t / 1e9
    out["spread"]["copy_gbps"] = [traffic / hi / 1e9, traffic / lo / 1e9]
    out["sizes"]["copy_bytes"] = copy_bytes
    del src, dst

    # A read-only stream can beat the copy figure: on one H200, SDPA decode read its KV cache at
    # 104% of the copy rate. So the read roof is measured on its own.
    say(f"read bandwidth: sum over {read_bytes / 2**30:.2f} GiB fp32")
    x = torch.randn(read_bytes // 4, device=dev, dtype=torch.float32)
    t, lo, hi = _median_s(lambda: x.sum(), reps=50, warmup=5)
    out["read_gbps"] = read_bytes / t / 1e9
    out["spread"]["read_gbps"] = [read_bytes / hi / 1e9, read_bytes / lo / 1e9]
    out["sizes"]["read_bytes"] = read_bytes
    del x

    n = 8192
    flops = 2.0 * n**3  # 1.1 TFLOP per call
    out["sizes"]["matmul_mnk"] = [n, n, n]

    def matmul_rate(key: str, dtype: torch.dtype, reps: int) -> None:
        a = torch.randn(n, n, device=dev, dtype=dtype)
        b = torch.randn(n, n, device=dev, dtype=dtype)
        c = torch.empty(n, n, device=dev, dtype=dtype)
        t, lo, hi = _median_s(lambda: torch.mm(a, b, out=c), reps=reps, warmup=5)
        out[key] = flops / t / 1e12
        out["spread"][key] = [flops / hi / 1e12, flops / lo / 1e12]

    if cap >= (8, 0):
        say(f"bf16 matmul {n}x{n}x{n}")
        matmul_rate("bf16_tflops", torch.bfloat16, reps=30)
    else:
        out["bf16_tflops"] = None
        out["notes"]["bf16_tflops"] = f"sm_{cap[0]}{cap[1]} has no bf16 tensor cores; fp16 measured"
        say(f"fp16 matmul {n}x{n}x{n}")
        matmul_rate("fp16_tflops", torch.float16, reps=30)

    out["fp8_tflops"] = None
    if cap < (8, 9):
        out["notes"]["fp8_tflops"] = f"sm_{cap[0]}{cap[1]} has no fp8 tensor cores (sm_89 and later)"
    else:
        say(f"fp8 torch._scaled_mm {n}x{n}x{n}, e4m3, per-tensor scales, bf16 out")
        try:
            a = torch.randn(n, n, device=dev, dtype=torch.bfloat16).to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device=dev, dtype=torch.bfloat16).to(torch.float8_e4m3fn)  # [N, K]
            sa = torch.rand((), device=dev, dtype=torch.float32) + 0.5
            sb = torch.rand((), device=dev, dtype=torch.float32) + 0.5
            t, lo, hi = _median_s(
                lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16),
                reps=30, warmup=5)
            out["fp8_tflops"] = flops / t / 1e12
            out["spread"]["fp8_tflops"] = [flops / hi / 1e12, flops / lo / 1e12]
        except Exception as exc:  # an old cuBLAS or torch build without fp8 GEMM
            out["notes"]["fp8_tflops"] = f"torch._scaled_mm failed: {_first_line(exc)}"

    # Plain FP32 (TF32 off): SGEMM on the CUDA cores, the "fp32" column of the table.
    say(f"fp32 matmul {n}x{n}x{n} without TF32")
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        saved = matmul.fp32_precision
        matmul.fp32_precision = "ieee"
        try:
            matmul_rate("fp32_tflops", torch.float32, reps=10)
        finally:
            matmul.fp32_precision = saved
    else:
        saved = matmul.allow_tf32
        matmul.allow_tf32 = False
        try:
            matmul_rate("fp32_tflops", torch.float32, reps=10)
        finally:
            matmul.allow_tf32 = saved
    torch.cuda.empty_cache()
    return out


def _cache_file() -> Path:
    root = os.environ.get("KL_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "kernel-ladder"
    return base / "ceilings.json"


def _read_cache() -> dict:
    path = _cache_file()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def save_ceilings(d: dict) -> Path:
    """Store measured ceilings in the cache file, keyed by device name; return the file's path."""
    if "gpu_name" not in d:
        raise ValueError("ceilings need a 'gpu_name' (the device name they were measured on)")
    path = _cache_file()
    data = _read_cache()
    data[d["gpu_name"]] = {k: v for k, v in d.items() if k != "origin"}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


def load_ceilings(gpu_name: str | None = None) -> dict | None:
    """Ceilings measured on this machine for a device name (default: the GPU in use) or a table
    key; None when nothing was measured. For a key, the most recent entry of that kind is used."""
    if gpu_name is None:
        if env.CPU_MODE:
            return None
        gpu_name = torch.cuda.get_device_properties(0).name
    data = _read_cache()
    entry = data.get(gpu_name)
    if entry is None:
        try:
            key = lookup(gpu_name).key
        except KeyError:
            return None
        same_kind = [e for e in data.values() if isinstance(e, dict) and e.get("gpu_key") == key]
        if not same_kind:
            return None
        entry = max(same_kind, key=lambda e: str(e.get("date", "")))
    return {**entry, "origin": f"measured ({_cache_file()})"}


def _repo_root() -> Path:
    import grading
    return Path(grading.__file__).resolve().parent.parent


def committed_ceilings(gpu_key: str) -> dict | None:
    """Ceilings measured on a real GPU of this kind and committed to the repository
    (benchmarks/ceilings/<KEY>.json), for users who have not measured their own yet.

    Preference order for roofs: measured here > committed > datasheet.
    """
    path = _repo_root() / "benchmarks" / "ceilings" / f"{gpu_key}.json"
    if not path.exists():
        return None
    return {**json.loads(path.read_text()), "origin": f"committed ({path.name})"}


def ceilings_for(gpu: GPUSpec) -> dict | None:
    """The best measured ceilings for `gpu`: this machine's cache, else the committed file."""
    measured = load_ceilings(gpu.name if gpu.key == "unknown" else gpu.key)
    return measured if measured is not None else committed_ceilings(gpu.key)


# --- roofs -----------------------------------------------------------------------------------------

# Which measured key bounds each math dtype; fp16 runs at the bf16 rate on every tensor-core GPU
# that has both, so it falls back to the bf16 measurement.
_MEASURED_KEYS = {"fp32": ("fp32_tflops",), "bf16": ("bf16_tflops",),
                  "fp16": ("fp16_tflops", "bf16_tflops"), "fp8": ("fp8_tflops",), "tf32": ()}


@dataclasses.dataclass(frozen=True)
class Roofs:
    """The roofs % of SOL is computed against: measured where there are measurements, else the
    datasheet. Both are kept for the plot."""

    gpu_key: str
    bandwidth_gbps: float | None
    bandwidth_source: str
    datasheet_gbps: float | None
    measured_copy_gbps: float | None
    measured_read_gbps: float | None
    datasheet_tflops: dict[str, float | None]
    measured_tflops: dict[str, float | None]
    measured_origin: str | None = None

    def peak_tflops(self, math_dtype: str) -> float | None:
        _check_dtype(math_dtype)
        m = self.measured_tflops.get(math_dtype)
        return m if m is not None else self.datasheet_tflops.get(math_dtype)

    def peak_source(self, math_dtype: str) -> str:
        _check_dtype(math_dtype)
        if self.measured_tflops.get(math_dtype) is not None:
            return "measured"
        return "datasheet" if self.datasheet_tflops.get(math_dtype) is not None else "none"


def _check_dtype(math_dtype: str) -> None:
    if math_dtype not in MATH_DTYPES:
        raise ValueError(f"unknown math dtype {math_dtype!r}; expected one of {', '.join(MATH_DTYPES)}")


def roofs(gpu: GPUSpec, measured: dict | None) -> Roofs:
    """Roofs for `gpu`, preferring `measured` (a dict from measure_ceilings / load_ceilings /
    committed_ceilings) over the datasheet, key by key."""
    measured = measured or {}
    copy = measured.get("copy_gbps")
    tflops: dict[str, float | None] = {}
    for dt in MATH_DTYPES:
        tflops[dt] = next((measured[k] for k in _MEASURED_KEYS[dt] if measured.get(k) is not None),
                          None)
    return Roofs(
        gpu_key=gpu.key,
        bandwidth_gbps=copy if copy is not None else gpu.hbm_gbps,
        bandwidth_source="measured copy" if copy is not None else "datasheet",
        datasheet_gbps=gpu.hbm_gbps,
        measured_copy_gbps=copy,
        measured_read_gbps=measured.get("read_gbps"),
        datasheet_tflops=dict(gpu.peak_tflops),
        measured_tflops=tflops,
        measured_origin=measured.get("origin") if measured else None,
    )
