"""The CUDA rung's loader: build a kernel into a torch op, or compile-check it where no GPU is.

A CUDA kernel is two files (DESIGN.md, "CUDA and CUTLASS"):
- a .cu file with the kernels and a launcher in plain CUDA C++ (raw pointers, sizes, a
  cudaStream_t; no torch headers), so nvcc alone compiles it, also on CI machines without a GPU.
  Where a chapter has an exercise of the kernel, the launcher is ``csrc/<kernel>_launch.cuh``,
  which the reference and the exercise both include after their kernels (`source_files` follows
  the include, so the header is part of the build's hash);
- ``csrc/bindings/<kernel>.cpp``, which checks the tensors, calls the launcher on torch's current
  stream and registers the op through TORCH_LIBRARY (so it also works inside torch.compile).

`load_kernel` builds both with torch.utils.cpp_extension (ninja) for this GPU's architecture,
caches the build by content hash and returns the op namespace. A file that defines KL_BUILD_PARTS
(the CUTLASS GEMM's twenty-five kernels) is compiled as that many translation units side by side
(`parallel_units`). Without a GPU it compiles the .cu file with nvcc (`compile_only`), so a
student still learns whether the kernel compiles and what ptxas made of it, then raises
`CudaUnavailable` with a one-line reason.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Mapping, NoReturn, Sequence

import torch

from grading import env

REPO_ROOT = Path(__file__).resolve().parent.parent
CSRC = REPO_ROOT / "csrc"
BINDINGS = CSRC / "bindings"

# The architecture kernels are compile-checked for when there is no GPU to ask: Hopper, the
# course's reference GPU (H100/H200).
DEFAULT_CHECK_ARCH = "sm_90a"

# nvcc flags of every build and compile check.
# -O3:        host code (ptxas optimizes device code fully by default).
# -lineinfo:  source lines in Nsight Compute's source view; the generated code is unchanged.
# -std=c++17: what CUTLASS 3.x needs; the .cu files include no torch headers, so they do not
#             follow torch's own standard (the bindings are compiled with torch's default).
# No --use_fast_math: it turns expf/sinf/division/sqrtf into approximations whose error grows
# with the argument (__expf: 2 + 1.17|x| ulp) and flushes fp32 denormals to zero, for every line
# of the file. Kernels that want an approximation call it by name (__expf, __fdividef) where its
# error has been argued against the tolerance; the memory-bound kernels here gain nothing from it.
# -fvisibility=hidden: the launcher's symbol stays private to its library, so two builds of one
# kernel (a student's and the reference) loaded into one process cannot bind to each other's.
NVCC_FLAGS: tuple[str, ...] = ("-O3", "-lineinfo", "-std=c++17", "-Xcompiler=-fvisibility=hidden")

# The C preprocessor line that marks an unwritten exercise (chapters/*/*.cu).
_STUB_MARK = re.compile(r"^[ \t]*#[ \t]*define[ \t]+KL_STUB_NOT_IMPLEMENTED\b", re.MULTILINE)
_LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE)
_CUTLASS_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<(cutlass|cute)/", re.MULTILINE)
# A kernel file compiled as several translation units side by side (parallel_units).
_BUILD_PARTS = re.compile(r"^[ \t]*#[ \t]*define[ \t]+KL_BUILD_PARTS[ \t]+(\d+)\b", re.MULTILINE)

_INSTALL_CUTLASS = "pip install --no-deps nvidia-cutlass (its wheel carries the headers)"


class CudaUnavailable(RuntimeError):
    """The CUDA rung cannot run here (no GPU, a CPU build of torch, no nvcc). One-line message."""


class CutlassNotFound(CudaUnavailable):
    """A CUTLASS kernel was asked for and no CUTLASS headers were found."""


class CudaCompileError(RuntimeError):
    """nvcc, the host compiler or the linker rejected a kernel; the message holds the first errors.
    Also raised where the source to build is missing: the build fails the same way for every
    call, so the checker stops at the first (grading.check.check_impl)."""


# --- toolchain ------------------------------------------------------------------------------------

def nvcc_path() -> Path | None:
    """nvcc from $CUDA_HOME (or $CUDA_PATH), then $PATH, then /usr/local/cuda; None if absent."""
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home and (Path(home) / "bin" / "nvcc").is_file():
            return Path(home) / "bin" / "nvcc"
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    default = Path("/usr/local/cuda/bin/nvcc")
    return default if default.is_file() else None


def nvcc_available() -> bool:
    return nvcc_path() is not None


@functools.lru_cache(maxsize=None)
def _nvcc_version_of(nvcc: str) -> str | None:
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release [\d.]+, V([\d.]+)", out)
    return m.group(1) if m else None


def nvcc_version() -> str | None:
    """nvcc's version, e.g. "13.0.88"; None when nvcc is missing."""
    nvcc = nvcc_path()
    return _nvcc_version_of(str(nvcc)) if nvcc else None


def cutlass_include_dirs() -> list[Path]:
    """CUTLASS/CuTe include folders: from $CUTLASS_PATH (a checkout), else the nvidia-cutlass wheel.

    The wheel's `cutlass_library` package is located, not imported: importing it loads its
    kernel generator modules, which finding two folders does not need.
    """
    root = os.environ.get("CUTLASS_PATH")
    if root:
        dirs = [Path(root) / "include", Path(root) / "tools" / "util" / "include"]
        if not (dirs[0] / "cutlass").is_dir():
            raise CutlassNotFound(f"CUTLASS_PATH={root} holds no include/cutlass: point it at a "
                                  f"CUTLASS checkout, or unset it and {_INSTALL_CUTLASS}")
        return dirs
    source = _cutlass_wheel_source()
    if source is not None:
        dirs = [source / "include", source / "tools" / "util" / "include"]
        if (dirs[0] / "cutlass").is_dir():
            return dirs
    raise CutlassNotFound(f"CUTLASS headers not found: {_INSTALL_CUTLASS}, or set CUTLASS_PATH "
                          f"to a CUTLASS checkout")


def _cutlass_wheel_source() -> Path | None:
    """The nvidia-cutlass wheel's `cutlass_library/source` folder, found without importing it."""
    spec = importlib.util.find_spec("cutlass_library")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "source"


def needs_cutlass(source: Path) -> bool:
    """Whether a kernel file includes CUTLASS or CuTe headers."""
    return bool(_CUTLASS_INCLUDE.search(Path(source).read_text()))


# --- architectures --------------------------------------------------------------------------------

def arch_for_capability(capability: tuple[int, int]) -> str:
    """The nvcc target for a GPU: sm_90a on 9.0 and sm_100a on 10.0, else sm_<major><minor>.

    The "a" targets unlock instructions that exist on that chip only: wgmma and setmaxnreg on
    Hopper, tcgen05 (UMMA, tensor memory) on Blackwell. Their code runs on no other capability,
    which is fine for a build made for the GPU in this machine.
    """
    major, minor = capability
    arch = f"sm_{major}{minor}"
    return arch + "a" if (major, minor) in ((9, 0), (10, 0)) else arch


def gencode_flag(arch: str) -> str:
    """"sm_80" -> "-gencode=arch=compute_80,code=sm_80"; "sm_90a" -> compute_90a/sm_90a (SASS only)."""
    m = re.fullmatch(r"sm_(\d+[af]?)", arch)
    if not m:
        raise ValueError(f"arch must look like sm_80 or sm_90a, got {arch!r}")
    return f"-gencode=arch=compute_{m.group(1)},code=sm_{m.group(1)}"


def gencode_flags(capability: tuple[int, int]) -> list[str]:
    """The -gencode flags `load_kernel` passes for a GPU of this compute capability."""
    return [gencode_flag(arch_for_capability(capability))]


def _torch_nvcc_flags() -> list[str]:
    # The defines torch adds to every extension's nvcc line (no implicit half/bfloat16
    # conversions, ...). Compile checks use them too, so that what compiles in CI compiles in a
    # real build.
    from torch.utils.cpp_extension import COMMON_NVCC_FLAGS
    return [*COMMON_NVCC_FLAGS, "-Xcompiler", "-fPIC"]


# --- the ptxas report -----------------------------------------------------------------------------

_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_PTXAS_PROPS = re.compile(r"Function properties for (\S+)")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers")
_PTXAS_SMEM = re.compile(r"(\d+) bytes smem")
_ERROR_LINE = re.compile(r"\berror\b|undefined reference|undefined symbol", re.IGNORECASE)


def parse_ptxas_report(log: str, *, demangle: bool = True) -> dict[str, dict[str, int]]:
    """Per kernel (entry function) of a `-Xptxas -v` log: {"registers", "stack_frame",
    "spill_stores", "spill_loads", "smem"}, sizes in bytes. Names are demangled when c++filt
    exists (template arguments kept, parameter list dropped) and `demangle` is set."""
    kernels: dict[str, dict[str, int]] = {}
    entry = props_of = None
    for line in log.splitlines():
        if m := _PTXAS_ENTRY.search(line):
            entry = m.group(1)
            kernels[entry] = {"registers": 0, "stack_frame": 0, "spill_stores": 0,
                              "spill_loads": 0, "smem": 0}
        elif m := _PTXAS_PROPS.search(line):
            props_of = m.group(1)
        elif m := _PTXAS_FRAME.search(line):
            # Also printed for device functions that were not inlined; only kernels are kept.
            if props_of in kernels:
                k = kernels[props_of]
                k["stack_frame"], k["spill_stores"], k["spill_loads"] = map(int, m.groups())
        elif (m := _PTXAS_USED.search(line)) and entry in kernels:
            kernels[entry]["registers"] = int(m.group(1))
            if s := _PTXAS_SMEM.search(line):
                kernels[entry]["smem"] = int(s.group(1))
    if demangle and kernels:
        names = _demangle(list(kernels))
        kernels = {names[k]: v for k, v in kernels.items()}
    return kernels


_PTX_ENTRY = re.compile(r"^(?:\.(?:visible|weak)\s+)?\.entry\s+([\w$.]+)\(", re.MULTILINE)
_WGMMA = re.compile(r"\bwgmma\.mma_async(?:\.sp)?\.sync\.aligned\.(m\d+n\d+k\d+)\b")


def parse_wgmma(ptx: str, *, demangle: bool = True) -> dict[str, dict[str, int]]:
    """Per kernel (entry function) of PTX text that issues wgmma: its instruction shapes and how
    often each is written, e.g. {"m64n56k32": 8}. Names as parse_ptxas_report gives them.

    The shape says how CuTe cut a tile into instructions: a 64x56 tile built from seven m64n8k32
    runs correctly and slowly (csrc/fp8_gemm_cutlass.cu, CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED)."""
    starts = list(_PTX_ENTRY.finditer(ptx))
    kernels: dict[str, dict[str, int]] = {}
    for i, entry in enumerate(starts):
        body = ptx[entry.end():starts[i + 1].start() if i + 1 < len(starts) else len(ptx)]
        shapes: dict[str, int] = {}
        for m in _WGMMA.finditer(body):
            shapes[m.group(1)] = shapes.get(m.group(1), 0) + 1
        if shapes:
            kernels[entry.group(1)] = shapes
    if demangle and kernels:
        names = _demangle(list(kernels))
        kernels = {names[k]: v for k, v in kernels.items()}
    return kernels


def _demangle(mangled: list[str]) -> dict[str, str]:
    """Readable kernel names: `_silu_mul_kernel<float, 4>`; raw names when c++filt is absent."""
    cxxfilt = shutil.which("c++filt")
    if cxxfilt is None:
        return {m: m for m in mangled}
    try:
        out = subprocess.run([cxxfilt], input="\n".join(mangled) + "\n", capture_output=True,
                             text=True, timeout=60).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return {m: m for m in mangled}
    if len(out) != len(mangled):
        return {m: m for m in mangled}
    short = {m: _short_name(d) for m, d in zip(mangled, out)}
    if len(set(short.values())) < len(short):  # overloads: only the parameter lists tell them apart
        return dict(zip(mangled, out))
    return short


def _short_name(demangled: str) -> str:
    name = demangled.replace("(anonymous namespace)::", "")
    if name.endswith(")"):  # drop the parameter list: from the ")" back to its "("
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    return name[5:] if name.startswith("void ") else name


def first_error_lines(log: str, limit: int = 15) -> str:
    """The first `limit` lines of a compiler log from its first error on: a diagnosis, not a wall.

    Build-tool chatter (ninja's progress and command lines) is dropped; a log with no recognisable
    error line gives its last `limit` lines.
    """
    def chatter(line: str) -> bool:
        return (line.startswith(("[", "FAILED:", "ninja: ", "Error building extension"))
                or (" -c " in line and " -o " in line))

    lines = [ln.rstrip() for ln in log.splitlines() if ln.strip() and not chatter(ln.strip())]
    for i, line in enumerate(lines):
        if _ERROR_LINE.search(line):
            return "\n".join(lines[i:i + limit])
    return "\n".join(lines[-limit:])


@dataclasses.dataclass
class CompileReport:
    """What nvcc and ptxas said about one .cu file for one architecture."""

    ok: bool
    arch: str
    log: str
    kernels: dict[str, dict[str, int]]
    # Per kernel that issues wgmma (Hopper), its instruction shapes and counts (parse_wgmma).
    wgmma: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)

    def errors(self, limit: int = 15) -> str:
        return first_error_lines(self.log, limit)

    def summary(self) -> str:
        """One line, e.g. "sm_90a: 2 kernels, max 32 registers, no spills"."""
        if not self.ok:
            first = self.errors(1) or "no output"
            return f"{self.arch}: does not compile ({first})"
        if not self.kernels:
            return f"{self.arch}: no kernels"
        n = len(self.kernels)
        regs = max(k["registers"] for k in self.kernels.values())
        spilling = [k for k in self.kernels.values() if k["spill_stores"] or k["spill_loads"]]
        parts = [f"{n} kernel{'s' if n > 1 else ''}", f"max {regs} registers"]
        if spilling:
            stores = max(k["spill_stores"] for k in spilling)
            loads = max(k["spill_loads"] for k in spilling)
            parts.append(f"spills in {len(spilling)} kernel{'s' if len(spilling) > 1 else ''} "
                         f"(up to {stores} B stored, {loads} B loaded)")
        else:
            parts.append("no spills")
        smem = max(k["smem"] for k in self.kernels.values())
        if smem:
            parts.append(f"max {smem} bytes static shared memory")
        return f"{self.arch}: " + ", ".join(parts)

    def format(self) -> str:
        """The summary, then one line per kernel (with its wgmma instructions, where it has any)."""
        lines = [self.summary()]
        for name, k in self.kernels.items():
            mma = "".join(f", {shape} x{count}" for shape, count in sorted(self.wgmma.get(name, {}).items()))
            lines.append(f"  {name}: {k['registers']} registers, {k['stack_frame']} B stack, "
                         f"{k['spill_stores']} B spill stores, {k['spill_loads']} B spill loads, "
                         f"{k['smem']} B smem{mma}")
        return "\n".join(lines)


# compile_only compiles a KL_BUILD_PARTS file in its parts only on a machine with this many CPUs
# or more: each part parses the headers again (about 30 s of one core for the CUTLASS file), so on
# two cores its seven parts took 327 s against 283 s for the file as one unit (nvcc 13.0).
PARTS_MIN_CPUS = 4


# Told when nvcc starts and ends on a file: `listener(what, started)`. The grader's worker passes
# it on to its parent, whose no-progress limit would otherwise take a build of minutes (the
# CUTLASS file on a few cores) for a hang.
compile_listeners: list[Callable[[str, bool], None]] = []


@contextlib.contextmanager
def _compiling(what: str):
    for listener in compile_listeners:
        listener(what, True)
    try:
        yield
    finally:
        for listener in compile_listeners:
            listener(what, False)


def compile_only(source: Path, arch: str = DEFAULT_CHECK_ARCH, *, cutlass: bool = False,
                 extra_flags: Sequence[str] = (), parts: bool | None = None) -> CompileReport:
    """Compile one .cu file with nvcc for one architecture, keep the ptxas report and the wgmma
    shapes of its PTX. Needs nvcc, not a GPU. Raises CudaUnavailable when nvcc is missing and
    CutlassNotFound when `cutlass` is set and no CUTLASS headers are found.

    parts: a file with KL_BUILD_PARTS is compiled as the units `parallel_units` gives, side by
    side, and linked (True), or as one unit (False); None: in parts on PARTS_MIN_CPUS CPUs or more.
    Either way the same kernels come out."""
    if parts is None:
        parts = (os.cpu_count() or 1) >= PARTS_MIN_CPUS
    source = Path(source).resolve()
    nvcc = nvcc_path()
    if nvcc is None:
        raise CudaUnavailable("nvcc not found: the CUDA rung was not compiled")
    includes = [CSRC, *(cutlass_include_dirs() if cutlass else [])]
    # -keep leaves the PTX beside the object, at no extra compile time: parse_wgmma reads it.
    flags = [*NVCC_FLAGS, *_torch_nvcc_flags(), gencode_flag(arch), "-Xptxas", "-v", "-keep",
             *(f"-I{d}" for d in includes), *extra_flags]
    # The report is kept on disk, keyed by everything that decides it (the source and every
    # local header it includes, the flags, nvcc's version): the same file is compile-checked by
    # the tests, by `check` workers and by the notebooks, and the CUTLASS one takes minutes.
    key = [*flags, *([_cutlass_version()] if cutlass else [])]
    if parts and build_parts(source) > 1:
        key.append("parts")  # the same kernels, but a log of several units and a link
    cached = _report_cache_path(source, includes, key, str(nvcc))
    if cached.is_file():
        saved = json.loads(cached.read_text())
        ok, log, wgmma = saved["ok"], saved["log"], saved.get("wgmma", {})
    else:
        with tempfile.TemporaryDirectory(prefix="kl_nvcc_") as tmp, _compiling(_display(source)):
            units = parallel_units(source, Path(tmp)) if parts else [source]
            ok, log, ptx = _compile_units(str(nvcc), units, flags, Path(tmp))
        wgmma = parse_wgmma(ptx) if ok else {}
        cached.parent.mkdir(parents=True, exist_ok=True)
        part = cached.with_name(f"{cached.name}.{os.getpid()}.{threading.get_ident()}")
        part.write_text(json.dumps({"ok": ok, "log": log, "wgmma": wgmma}))
        part.replace(cached)  # atomic: a reader sees a whole report or none
    return CompileReport(ok=ok, arch=arch, log=log, kernels=parse_ptxas_report(log) if ok else {},
                         wgmma=wgmma)


def build_parts(source: Path) -> int:
    """How many translation units a kernel file asks to be compiled as: its KL_BUILD_PARTS (the
    CUTLASS file's parallel build; see there), or 1."""
    m = _BUILD_PARTS.search(Path(source).read_text())
    return max(1, int(m.group(1))) if m else 1


def parallel_units(source: Path, folder: Path) -> list[Path]:
    """The translation units to compile `source` as: itself, or for a file with KL_BUILD_PARTS = n,
    n two-line files in `folder`, each defining KL_BUILD_PART (0 to n - 1) and including it. nvcc
    spends minutes of one core on a file of many CUTLASS kernels; its parts compile side by side."""
    source = Path(source).resolve()
    parts = build_parts(source)
    if parts == 1:
        return [source]
    if '"' in str(source):
        raise ValueError(f"{source}: a path with a double quote cannot be #included")
    units = []
    for i in range(parts):
        unit = Path(folder) / f"{source.stem}_part{i}.cu"
        text = f'#define KL_BUILD_PART {i}\n#include "{source}"\n'
        if not unit.is_file() or unit.read_text() != text:  # unchanged: ninja need not rebuild it
            unit.write_text(text)
        units.append(unit)
    return units


def _compile_units(nvcc: str, units: Sequence[Path], flags: Sequence[str], folder: Path) -> tuple[bool, str, str]:
    """Compile each unit to an object in a folder of its own (-keep's files would collide), at most
    one nvcc per CPU at a time; for several, link the objects into a shared library that must
    leave no symbol undefined (a part that leaves a kernel uncompiled fails here). Returns
    (ok, nvcc's output, the PTX)."""
    def compile_one(unit: Path):
        cwd = folder / f"unit_{unit.stem}"
        cwd.mkdir()
        proc = subprocess.run([nvcc, "-c", str(unit), "-o", str(cwd / "kernel.o"), *flags],
                              capture_output=True, text=True, cwd=cwd)
        return proc, cwd

    workers = max(1, min(len(units), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        done = list(pool.map(compile_one, units))
    log = "".join(proc.stdout + proc.stderr for proc, _ in done)
    ok = all(proc.returncode == 0 for proc, _ in done)
    ptx = "\n".join(f.read_text() for _, cwd in done for f in sorted(cwd.glob("*.ptx")))
    if ok and len(units) > 1:
        link = subprocess.run([nvcc, "-shared", "-Xlinker", "--no-undefined", "-o", str(folder / "parts.so"),
                               *(str(cwd / "kernel.o") for _, cwd in done)],
                              capture_output=True, text=True, cwd=folder)
        log += link.stdout + link.stderr
        ok = link.returncode == 0
    return ok, log, ptx


def _cutlass_version() -> str:
    """What identifies the CUTLASS headers in a cache key: the wheel's version, or a checkout's
    newest header time ($CUTLASS_PATH)."""
    if os.environ.get("CUTLASS_PATH"):
        include = Path(os.environ["CUTLASS_PATH"]) / "include"
        return f"cutlass-checkout-{max((f.stat().st_mtime_ns for f in include.rglob('*.h*')), default=0)}"
    try:
        from importlib.metadata import version
        return f"nvidia-cutlass-{version('nvidia-cutlass')}"
    except Exception:  # noqa: BLE001 - no metadata: the include path in the flags still keys it
        return "nvidia-cutlass"


def _report_cache_path(source: Path, includes: Sequence[Path], flags: Sequence[str], nvcc: str) -> Path:
    h = hashlib.sha256()
    for part in (str(source), nvcc, _nvcc_version_of(nvcc) or "", *flags):
        h.update(part.encode() + b"\0")
    for f in source_files([source], includes):
        h.update(str(f).encode() + b"\0" + f.read_bytes() + b"\0")
    return cache_root() / "nvcc_checks" / f"{source.stem}_{h.hexdigest()[:20]}.json"


# --- build cache ----------------------------------------------------------------------------------

def cache_root() -> Path:
    return Path(os.environ.get("KL_CACHE_DIR") or Path.home() / ".cache" / "kernel-ladder")


def source_files(sources: Sequence[Path], include_dirs: Sequence[Path] = (CSRC,)) -> list[Path]:
    """`sources` plus every local header they include ("..." includes, followed recursively,
    looked up next to the including file, then in `include_dirs`): what a build depends on."""
    seen: dict[Path, None] = {}
    todo = [Path(s).resolve() for s in sources]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen[path] = None
        for name in _LOCAL_INCLUDE.findall(path.read_text()):
            for d in (path.parent, *include_dirs):
                if (Path(d) / name).is_file():
                    todo.append((Path(d) / name).resolve())
                    break
    return list(seen)


def build_namespace(kernel: str, files: Sequence[Path], flags: Sequence[str]) -> str:
    """The op namespace (and build name) for one build: "kl_<kernel>_<8 hex digits>", a hash of
    the files' names and contents and of the flags. Same inputs, same name; any change, a new one,
    so a student's build and the reference's can be loaded side by side."""
    h = hashlib.sha256()
    for f in files:
        f = Path(f)
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    h.update("\0".join(flags).encode())
    return f"kl_{re.sub(r'[^0-9A-Za-z_]', '_', kernel)}_{h.hexdigest()[:8]}"


def is_stub(source: Path) -> bool:
    """An exercise file whose kernel is unwritten: it still #defines KL_STUB_NOT_IMPLEMENTED."""
    return bool(_STUB_MARK.search(Path(source).read_text()))


def _display(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _gpu_capability() -> tuple[int, int] | None:
    """This GPU's compute capability; None without a GPU or with a CPU/ROCm build of torch."""
    if env.CPU_MODE or torch.version.cuda is None:
        return None
    return env.capability()


# --- loading --------------------------------------------------------------------------------------

_loaded: dict[tuple[str, str], object] = {}
_faked: set[str] = set()
_reports: dict[str, CompileReport] = {}
# (kernel, source) -> the library load_kernel built or found for it in this process.
_libraries: dict[tuple[str, Path], Path] = {}
_checked: dict[tuple[str, str, bool], CompileReport] = {}
# Builds that failed, by namespace (sources and flags): each case of a check would build again.
_failed: dict[str, CudaCompileError] = {}
_lock = threading.Lock()


def _compile_check(kernel_source: Path, cutlass: bool, verbose: bool) -> NoReturn:
    """No GPU: compile the .cu file alone, then say in one line why nothing more happens."""
    if nvcc_path() is None:
        raise CudaUnavailable("nvcc not found: the CUDA rung was not compiled")
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in source_files([kernel_source]))).hexdigest()
    key = (str(kernel_source), digest, cutlass)
    if key not in _checked:
        _checked[key] = compile_only(kernel_source, DEFAULT_CHECK_ARCH, cutlass=cutlass)
    report = _checked[key]
    if not report.ok:
        raise CudaCompileError(f"{_display(kernel_source)} does not compile for {report.arch}:\n"
                               f"{report.errors()}")
    if verbose:
        print(report.format())
    why = "no CUDA GPU" if torch.version.cuda else "no CUDA GPU (torch is a CPU build)"
    raise CudaUnavailable(f"{why}: the CUDA rung is compile-checked only ({report.summary()})")


def load_kernel(kernel: str, kernel_source: Path, *,
                fake: Callable | Mapping[str, Callable] | None = None,
                cutlass: bool = False, verbose: bool = False):
    """Build `kernel_source` with `csrc/bindings/<kernel>.cpp` and return its op namespace:
    ``load_kernel("silu_mul", path).silu_mul(gate, up)``.

    fake:    the op's fake (meta) implementation, registered so the op works under
             torch.compile; a mapping {op name: fake} for bindings that register several ops.
    cutlass: add the CUTLASS/CuTe include folders (see `cutlass_include_dirs`).
    verbose: print the ptxas report (registers, spills, stack, shared memory per kernel); also
             switched on by the environment variable KL_CUDA_VERBOSE=1.

    Raises NotImplementedError for an unwritten exercise stub, CudaUnavailable (one line) where
    the op cannot be built (after compile-checking the .cu file when nvcc exists), and
    CudaCompileError with the first compiler errors when the build fails.
    """
    kernel_source = Path(kernel_source).resolve()
    verbose = verbose or os.environ.get("KL_CUDA_VERBOSE") == "1"
    if not CSRC.is_dir():
        raise CudaCompileError(
            f"{CSRC} does not exist: the CUDA rungs build from the csrc/ folder of a clone of the "
            f"repository, which an install from a wheel lacks; install a clone with `pip install -e .`")
    if not kernel_source.is_file():
        raise CudaCompileError(
            f"{_display(kernel_source)} not found: the CUDA rung builds this file (a submission's .cu "
            f"files go beside its exercises.py)")
    if is_stub(kernel_source):
        raise NotImplementedError(
            f"{_display(kernel_source)}: the kernel is still the stub (delete "
            f"KL_STUB_NOT_IMPLEMENTED once you have written it)")
    binding = BINDINGS / f"{kernel}.cpp"
    if not binding.is_file():
        raise FileNotFoundError(f"no binding for kernel {kernel!r}: expected {_display(binding)}")

    capability = _gpu_capability()
    if capability is None:
        _compile_check(kernel_source, cutlass, verbose)
    if nvcc_path() is None:
        raise CudaUnavailable("nvcc not found: the CUDA rung was not compiled")

    arch = arch_for_capability(capability)
    include_dirs = [CSRC, *(cutlass_include_dirs() if cutlass else [])]
    cuda_flags = [*NVCC_FLAGS, *gencode_flags(capability)]
    # Everything that changes the built library: the toolchain, torch's ABI, the include folders.
    key_flags = [*cuda_flags, *map(str, include_dirs), f"torch={torch.__version__}",
                 f"cuda={torch.version.cuda}", f"nvcc={nvcc_version()}",
                 f"python={sys.version_info[0]}.{sys.version_info[1]}"]
    ns = build_namespace(kernel, source_files([kernel_source, binding], include_dirs), key_flags)

    with _lock:
        if verbose:
            if ns not in _reports:
                _reports[ns] = compile_only(kernel_source, arch, cutlass=cutlass)
            print(_reports[ns].format())
        if ns in _failed:  # the same sources and flags: the same errors, without rebuilding
            raise CudaCompileError(str(_failed[ns]))
        if (kernel, ns) not in _loaded:
            try:
                _loaded[(kernel, ns)] = _build(kernel_source, binding, ns, arch, cuda_flags, include_dirs)
            except CudaCompileError as e:
                _failed[ns] = e
                raise
        # Recorded on every load: another source of the same content (a student's copy of the
        # reference) may have built the library first under its own path.
        _libraries[(kernel, kernel_source)] = _library_path(ns)
        ops = _loaded[(kernel, ns)]
        fakes = fake if isinstance(fake, Mapping) else ({kernel: fake} if fake else {})
        for op_name, fn in fakes.items():
            if f"{ns}::{op_name}" not in _faked:
                torch.library.register_fake(f"{ns}::{op_name}", fn)
                _faked.add(f"{ns}::{op_name}")
        return ops


def loaded_library(kernel: str, source: Path) -> Path | None:
    """The shared library `load_kernel(kernel, source)` built or found in this process, if it ran.
    The cache also holds other builds of the same kernel (a student's file, a benchmark's variant),
    so the newest library there need not be this one."""
    return _libraries.get((kernel, Path(source).resolve()))


def _library_path(ns: str) -> Path:
    """Where `_build` leaves the library of build `ns`: <cache>/cuda/<ns>/<ns>.so."""
    return cache_root() / "cuda" / ns / f"{ns}.so"


def _build(kernel_source: Path, binding: Path, ns: str, arch: str, cuda_flags: list[str],
           include_dirs: list[Path]):
    """Build (or find in the cache) one library with ninja and load it: its TORCH_LIBRARY
    registers the ops in namespace `ns`."""
    library = _library_path(ns)
    build_dir = library.parent
    build_dir.mkdir(parents=True, exist_ok=True)
    # torch's build lock is a file that a killed build leaves behind, and the next load would wait
    # on it forever. No build here takes 30 minutes (CUTLASS ones take a few).
    lock = build_dir / "lock"
    if lock.exists() and time.time() - lock.stat().st_mtime > 30 * 60:
        lock.unlink(missing_ok=True)
    building = not library.exists()
    if building:
        print(f"compiling {_display(kernel_source)} for {arch} ({ns}, in {build_dir})", file=sys.stderr)
    from torch.utils.cpp_extension import load
    try:
        # A file with KL_BUILD_PARTS compiles as that many units, which ninja runs side by side.
        units = parallel_units(kernel_source, build_dir)
        with _compiling(_display(kernel_source)) if building else contextlib.nullcontext():
            load(name=ns, sources=[*map(str, units), str(binding)],
                 extra_cflags=["-O3", f"-DKL_NAMESPACE={ns}"], extra_cuda_cflags=cuda_flags,
                 extra_include_paths=[str(d) for d in include_dirs],
                 build_directory=str(build_dir), verbose=False, is_python_module=False)
    except RuntimeError as e:
        raise CudaCompileError(f"{_display(kernel_source)}: building {ns} for {arch} failed:\n"
                               f"{first_error_lines(str(e))}") from None
    except OSError as e:  # built, but dlopen refused it (an undefined symbol, usually)
        raise CudaCompileError(f"{_display(kernel_source)}: {ns} was built but does not load: "
                               f"{e.__cause__ or e}") from None
    return getattr(torch.ops, ns)
