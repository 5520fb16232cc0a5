"""The CUDA side of the toolkit: every .cu file compiles (nvcc only, no GPU needed), and the
loader's pure-Python parts (namespaces, gencode flags, ptxas report, stub and no-GPU handling)
behave. A GPU build of the silu_mul reference is checked where a GPU is present."""
from __future__ import annotations

import concurrent.futures
import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import grading.cuda as kc
from grading import env

ROOT = kc.REPO_ROOT
STUB = ROOT / "chapters" / "00_speed_of_light" / "silu_mul.cu"
REFERENCE = kc.CSRC / "silu_mul.cu"
CU_FILES = sorted(ROOT.glob("csrc/*.cu")) + sorted(ROOT.glob("chapters/*/*.cu"))


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _compile_cases():
    cases = []
    for f in CU_FILES:
        if kc.needs_cutlass(f):  # CUTLASS 3.x kernels target Hopper only
            cases.append(pytest.param(f, "sm_90a", True, id=f"{_rel(f)}-sm_90a"))
        else:
            cases += [pytest.param(f, arch, False, id=f"{_rel(f)}-{arch}") for arch in ("sm_80", "sm_90a")]
    return cases


@pytest.fixture
def nvcc():
    if kc.nvcc_path() is None:
        pytest.skip("nvcc not found: CUDA sources cannot be compile-checked here")


@pytest.fixture
def cutlass_headers():
    try:
        kc.cutlass_include_dirs()
    except kc.CutlassNotFound as e:
        pytest.skip(str(e))


# nvcc runs in background threads from the end of collection (tests/conftest.py), longest first,
# while the rest of the suite runs; these tests, moved to the end of the session, collect the
# reports. The CUTLASS file alone takes minutes of CPU time.
_POOL: concurrent.futures.ThreadPoolExecutor | None = None
_FUTURES: dict[tuple[Path, str, bool], concurrent.futures.Future] = {}


def start_background_compiles(workers: int, selected: set[tuple[Path, str]] | None = None) -> None:
    """Submit the compile-check cases to a thread pool (a no-op without nvcc): those in `selected`
    ((path, arch) pairs of the collected test_cu_file_compiles items), or every one."""
    global _POOL
    if _POOL is not None or kc.nvcc_path() is None:
        return
    _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nvcc")
    jobs = [(p.values[0], p.values[1], p.values[2]) for p in _compile_cases()]
    jobs.sort(key=lambda j: (not j[2], -j[0].stat().st_size))  # CUTLASS first, then big files
    for path, arch, cutlass in jobs:
        if selected is not None and (path, arch) not in selected:
            continue
        if cutlass:
            try:
                kc.cutlass_include_dirs()
            except kc.CutlassNotFound:
                continue
        _FUTURES[(path, arch, cutlass)] = _POOL.submit(kc.compile_only, path, arch, cutlass=cutlass)


def stop_background_compiles() -> None:
    """Drop the compiles not yet started (a session stopped early, by -x say)."""
    if _POOL is not None:
        _POOL.shutdown(wait=False, cancel_futures=True)


@functools.cache
def _compiled(path: Path, arch: str, cutlass: bool = False) -> kc.CompileReport:
    future = _FUTURES.get((path, arch, cutlass))
    return future.result() if future is not None else kc.compile_only(path, arch, cutlass=cutlass)


# --- every kernel file compiles ------------------------------------------------------------------

@pytest.mark.parametrize("path, arch, cutlass", _compile_cases())
def test_cu_file_compiles(nvcc, path, arch, cutlass):
    if cutlass:
        try:
            kc.cutlass_include_dirs()
        except kc.CutlassNotFound as e:
            pytest.skip(str(e))
    report = _compiled(path, arch, cutlass)
    assert report.ok, f"{_rel(path)} does not compile for {arch}:\n{report.errors()}"
    assert report.kernels, f"{_rel(path)}: ptxas reported no kernels for {arch}:\n{report.log}"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_silu_mul_reference_does_not_spill(nvcc, arch):
    report = _compiled(REFERENCE, arch)
    assert report.ok, report.errors()
    # fp32/fp16/bf16 x (16-byte vector path, scalar path) x (row kernel, flat 32-bit kernel)
    assert len(report.kernels) == 12, report.format()
    spilling = {k: v for k, v in report.kernels.items() if v["spill_stores"] or v["spill_loads"]}
    assert not spilling, f"silu_mul spills registers on {arch}:\n{report.format()}"
    # __launch_bounds__(256, 2) (unroll 4) holds every kernel to 65536 / 512 = 128 registers.
    assert max(v["registers"] for v in report.kernels.values()) <= 128, report.format()


FP8_CUTLASS = kc.CSRC / "fp8_gemm_cutlass.cu"
FP8_CUTLASS_SWEEP = kc.CSRC / "fp8_gemm_cutlass_sweep.cuh"


def test_fp8_gemm_cutlass_neither_spills_nor_serializes_wgmma(nvcc, cutlass_headers):
    report = _compiled(FP8_CUTLASS, "sm_90a", True)  # the build test_cu_file_compiles made
    assert report.ok, report.errors()
    # the twenty-five kernels fp8_gemm_cutlass_pick chooses from (3, 4, 36, 41-44, 48, 58, 64, 65,
    # 81, 82, 92, 96, 100-102, 109-112, 116, 119 and 120; configurations 10, 11, 15, 17-20, 29, 30,
    # 51-53, 59 and 66-76 run 3, 4, 36 and 58 with other run-time arguments: no kernel of their
    # own; sum_partials, a template, is emitted only by sweep build 16)
    assert len(report.kernels) == 25, report.format()
    spilling = {k: v for k, v in report.kernels.items() if v["spill_stores"] or v["spill_loads"]}
    assert not spilling, f"fp8_gemm_cutlass spills registers:\n{report.format()}"
    # A call among wgmma instructions (a device-side assert, say) makes ptxas wait for each wgmma
    # before the next (warning C7510): correct results at a fraction of the speed.
    serialized = [ln for ln in report.log.splitlines() if "wgmma.mma_async instructions are serialized" in ln]
    assert not serialized, "ptxas serialized wgmma:\n" + "\n".join(ln[:300] for ln in serialized)


def _config_numbers(text: str) -> set[int]:
    """A list of configurations as the CUTLASS file writes it: "29, 36, 41-44 and 116" ->
    {29, 36, 41, 42, 43, 44, 116}."""
    found: set[int] = set()
    for part in re.split(r",\s*|\s+and\s+", text.strip()):
        first, _, last = part.partition("-")
        found |= set(range(int(first), int(last or first) + 1))
    return found


def _shipped_dispatch(text: str) -> str:
    """with_config's shipped branch (its cases) in the text of fp8_gemm_cutlass.cu."""
    body = text[text.index("auto with_config(int config, F&& f) {"):]
    return body[body.index("#else"):body.index("#endif")]


def _shipped_launchers(text: str) -> set[int]:
    """The shipped kernels with_config dispatches to, by configuration number (Launcher<N>)."""
    return {int(n) for n in re.findall(r"f\(Launcher<(\d+)>\{\}", _shipped_dispatch(text))}


def _listed_under(text: str, macro: str, item: str) -> dict[int | None, list[int]]:
    """The numbers `item` (a regex, group 1) matches at the start of lines of `text`, by the
    `#if MACRO == n` or `#elif MACRO == n` block they stand in (None before the first)."""
    found: dict[int | None, list[int]] = {}
    block = None
    for line in text.splitlines():
        if m := re.match(rf"#(?:el)?if {macro} == (\d+)", line):
            block = int(m.group(1))
        elif m := re.match(item, line):
            found.setdefault(block, []).append(int(m.group(1)))
    return found


def _check_script():
    """benchmarks/fp8_gemm_cutlass_check.py, imported (BUILDS, SHIPPED_PICKS)."""
    import importlib.util
    script = kc.CSRC.parent / "benchmarks" / "fp8_gemm_cutlass_check.py"
    spec = importlib.util.spec_from_file_location("fp8_gemm_cutlass_check", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fp8_gemm_cutlass_wgmma_spans_each_tile(nvcc, cutlass_headers):
    # CuTe cuts a tile into wgmma instructions of the widest listed width that divides the tile's
    # N; without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED the list stops at 8, 16, 32, 64, 96, 128,
    # 192 and 256, and a 48-token tile runs as three m64n16 instructions, each re-reading the
    # weight's slice from shared memory: right answers, up to half the speed, and nothing else
    # shows it. Every shipped kernel must issue one instruction width, its own tile's N.
    report = _compiled(FP8_CUTLASS, "sm_90a", True)
    assert report.ok, report.errors()
    widths = {}
    for kernel, shapes in report.wgmma.items():
        ns = {int(re.match(r"m\d+n(\d+)k", s).group(1)) for s in shapes}
        assert len(ns) == 1, f"{kernel[:200]}: wgmma of several widths {sorted(shapes)}"
        widths[kernel] = ns.pop()
    text = FP8_CUTLASS.read_text()
    types = {f"Config{n}" for n in _shipped_launchers(text)}
    tile_n = {name: int(n) for name, n in re.findall(r"using (Config\d+) = \w+<Shape<_\d+, _(\d+), _\d+>", text)}
    assert types <= set(tile_n), f"no tile shape found for {sorted(types - set(tile_n))}"
    assert sorted(widths.values()) == sorted(tile_n[t] for t in types), (
        "the shipped kernels' wgmma widths (one a kernel) differ from their tiles' N:\n"
        f"  instructions: {sorted(widths.values())}\n  tiles:        {sorted(tile_n[t] for t in types)}")


def test_fp8_gemm_cutlass_parts_hold_each_kernel_once():
    # The parallel build (KL_BUILD_PARTS): part 0 dispatches, and each shipped kernel must be
    # compiled by exactly one of the other parts. One in no part is an undefined reference when
    # the parts are linked; one in two is compiled twice; a part number past KL_BUILD_PARTS is
    # never compiled. This checks the lists themselves, without nvcc.
    text = FP8_CUTLASS.read_text()
    parts = kc.build_parts(FP8_CUTLASS)
    assert parts > 1, "fp8_gemm_cutlass.cu no longer asks for a parallel build (KL_BUILD_PARTS)"
    lists = text[text.index("#if defined(KL_BUILD_PART)\n#if KL_BUILD_PART == 1"):]
    lists = lists[:lists.index("#endif")]
    held: dict[int, list[int]] = {}
    by_part = _listed_under(lists, "KL_BUILD_PART", r"template struct kl_cutlass::Launcher<(\d+)>;$")
    for part, kernels in by_part.items():
        for n in kernels:
            held.setdefault(n, []).append(part)
    shipped = _shipped_launchers(text)
    assert set(held) == shipped, (sorted(set(held) - shipped), sorted(shipped - set(held)))
    twice = {n: ps for n, ps in held.items() if len(ps) > 1}
    assert not twice, f"kernels compiled by more than one part: {twice}"
    used = {ps[0] for ps in held.values()}
    assert used == set(range(1, parts)), f"parts 1..{parts - 1} should each compile kernels, got {sorted(used)}"
    # ConfigOf maps each to its configuration.
    assert {int(n) for n in re.findall(r"^KL_SHIPPED\((\d+)\)$", text, flags=re.M)} == shipped


def test_fp8_gemm_cutlass_part0_compiles_no_kernel(nvcc, cutlass_headers, tmp_path):
    # Part 0 of the parallel build holds the dispatch and the C launchers only; every kernel is
    # another part's (a kernel here would be compiled twice). On a machine with fewer than
    # kc.PARTS_MIN_CPUS CPUs compile_only builds the file as one unit, so this is the check of the
    # one configuration that build does not see.
    part0 = kc.parallel_units(FP8_CUTLASS, tmp_path)[0]
    report = kc.compile_only(part0, "sm_90a", cutlass=True)
    assert report.ok, report.errors()
    assert not report.kernels, "part 0 of the parallel build compiled kernels:\n" + report.format()


def _cutlass_builds_in_source() -> tuple[dict[int, set[int]], dict[int, set[int]], int, int]:
    """From csrc/fp8_gemm_cutlass.cu and fp8_gemm_cutlass_sweep.cuh: the configurations each build
    dispatches (0: as shipped, with_config's cases; n: KL_FP8_GEMM_SWEEP = n, with_sweep_config's),
    the ones kBuildConfigs says each build holds, and kNumConfigs with the number of names
    kConfigNames gives."""
    text = FP8_CUTLASS.read_text()
    cases = {0: {int(c) for c in re.findall(r"^\s+case (\d+):", _shipped_dispatch(text), flags=re.M)}}
    sweep = FP8_CUTLASS_SWEEP.read_text()
    body = sweep[sweep.index("auto with_sweep_config(int config, F&& f) {"):]
    for build, listed in _listed_under(body, "KL_FP8_GEMM_SWEEP", r"\s+case (\d+):").items():
        cases.setdefault(build, set()).update(listed)
    table = text[text.index("kBuildConfigs[] = {"):]
    table = table[table.index("{") + 1:table.index("};")]
    said = {build: _config_numbers(entry) for build, entry in enumerate(re.findall(r'"([^"]*)"', table))}
    count = int(re.search(r"constexpr int kNumConfigs = (\d+);", text).group(1))
    names = text[text.index("kConfigNames[kNumConfigs] = {"):]
    names = len(re.findall(r'^\s+"', names[:names.index("};")], flags=re.M))
    return cases, said, count, names


def test_fp8_gemm_cutlass_builds_agree_with_the_sweep_script():
    # The configurations a build dispatches, the list its error message names, the sweep script's
    # BUILDS (which library to load for a configuration) and the names table must agree: a
    # configuration moved between builds in one place and not the others is timed from the wrong
    # library, or reported missing from the one that holds it.
    check_script = _check_script()
    cases, said, count, names = _cutlass_builds_in_source()
    assert cases == said, (cases, said)
    assert {b: set(c) for b, c in check_script.BUILDS.items()} == cases, (check_script.BUILDS, cases)
    assert set(check_script.SHIPPED_PICKS) <= cases[0]
    held = [c for configs in cases.values() for c in configs]
    assert len(held) == len(set(held)), "a configuration in two builds"
    assert max(held) == count - 1 and 0 not in held  # config 0 is "auto"
    assert names == count, "kConfigNames must name every configuration (a missing name is a null pointer)"


def test_compile_error_is_reported(nvcc, tmp_path):
    bad = tmp_path / "bad.cu"
    bad.write_text("__global__ void k(float* x) { x[0] = undeclared_name; }\n")
    report = kc.compile_only(bad, "sm_80")
    assert not report.ok
    assert "undeclared_name" in report.errors()
    assert report.summary().startswith("sm_80: does not compile")


def test_compile_reports_are_kept_by_content(nvcc, tmp_path, monkeypatch):
    monkeypatch.setenv("KL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    first = kc.compile_only(src, "sm_80")
    assert first.ok and len(first.kernels) == 1
    real_run = subprocess.run
    compiles = []  # nvcc compile command lines (not `nvcc --version`)
    monkeypatch.setattr(kc.subprocess, "run",
                        lambda cmd, *a, **k: (compiles.append(cmd) if "-c" in cmd else None) or real_run(cmd, *a, **k))
    again = kc.compile_only(src, "sm_80")
    assert (again.ok, again.kernels, again.log) == (first.ok, first.kernels, first.log) and not compiles
    kc.compile_only(src, "sm_90a")  # another architecture: compiled
    src.write_text("__global__ void k(float* x) { x[0] = undeclared; }\n")  # another source: compiled
    assert not kc.compile_only(src, "sm_80").ok
    assert len(compiles) == 2


# A kernel file built as two translation units: part 0 calls what part 1 defines (the CUTLASS
# file's parallel build in miniature). With `broken`, part 1 defines nothing.
_PARTS_SOURCE = """#define KL_BUILD_PARTS 2
template <int N> struct Launcher { static void run(float* x); };
#if !defined(KL_BUILD_PART) || KL_BUILD_PART != 0
__global__ void kernel(float* x) { x[0] = 1.0f; }
template <int N> void Launcher<N>::run(float* x) { kernel<<<1, 1>>>(x); }
#endif
#if defined(KL_BUILD_PART) && KL_BUILD_PART == 1 && !BROKEN
template struct Launcher<7>;
#endif
#if !defined(KL_BUILD_PART) || KL_BUILD_PART == 0
void launch(float* x) { Launcher<7>::run(x); }
#endif
"""


def test_parallel_units_include_the_file_once_per_part(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(_PARTS_SOURCE)
    assert kc.build_parts(src) == 2
    units = kc.parallel_units(src, tmp_path)
    assert [u.name for u in units] == ["k_part0.cu", "k_part1.cu"]
    assert units[1].read_text() == f'#define KL_BUILD_PART 1\n#include "{src.resolve()}"\n'
    plain = tmp_path / "plain.cu"
    plain.write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    assert kc.build_parts(plain) == 1 and kc.parallel_units(plain, tmp_path) == [plain.resolve()]


@pytest.mark.parametrize("broken", [False, True])
def test_parts_are_compiled_and_linked(nvcc, tmp_path, monkeypatch, broken):
    # compile_only compiles the parts side by side and links them: a kernel no part compiles is
    # an undefined reference there, on a machine without a GPU, not a failed load on one.
    monkeypatch.setenv("KL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text(f"#define BROKEN {int(broken)}\n" + _PARTS_SOURCE)
    report = kc.compile_only(src, "sm_80", parts=True)
    if broken:
        assert not report.ok and "undefined reference" in report.errors(), report.log
        assert "Launcher<7>::run" in report.errors()
    else:
        assert report.ok, report.errors()
        assert len(report.kernels) == 1, report.format()  # part 1's, once


# --- namespaces and the build cache key ----------------------------------------------------------

def test_namespace_is_stable_and_follows_the_sources(tmp_path):
    cu, cpp = tmp_path / "k.cu", tmp_path / "k.cpp"
    cu.write_text("__global__ void k() {}\n")
    cpp.write_text("// binding\n")
    flags = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

    first = kc.build_namespace("silu_mul", [cu, cpp], flags)
    assert first == kc.build_namespace("silu_mul", [cu, cpp], list(flags))
    assert first.startswith("kl_silu_mul_") and len(first) == len("kl_silu_mul_") + 8
    assert first.isidentifier()

    assert kc.build_namespace("silu_mul", [cu, cpp], ["-O3", "-gencode=arch=compute_80,code=sm_80"]) != first
    assert kc.build_namespace("rmsnorm", [cu, cpp], flags) != first
    cu.write_text("__global__ void k() { }\n")
    assert kc.build_namespace("silu_mul", [cu, cpp], flags) != first


def test_the_chapters_sass_comes_from_the_reference_library(tmp_path, monkeypatch):
    # Chapter 02 lists the SASS of the CUTLASS library the reference rung loaded. A sweep build or
    # a student's build of the same kernel lands in the same cache, often later: the newest
    # library there is not the one to show.
    from grading import lesson_fp8
    monkeypatch.setattr(kc, "_libraries", {})
    monkeypatch.setenv("KL_CACHE_DIR", str(tmp_path))
    newer = tmp_path / "cuda" / "kl_fp8_gemm_cutlass_0000sweep" / "kl_fp8_gemm_cutlass_0000sweep.so"
    newer.parent.mkdir(parents=True)
    newer.write_bytes(b"")
    assert lesson_fp8.built_library() is None  # nothing loaded in this process
    reference = tmp_path / "cuda" / "kl_fp8_gemm_cutlass_1111ref" / "kl_fp8_gemm_cutlass_1111ref.so"
    # keyed as load_kernel keys it: the resolved path of the source
    kc._libraries[("fp8_gemm_cutlass", (kc.CSRC / "fp8_gemm_cutlass.cu").resolve())] = reference
    kc._libraries[("fp8_gemm_cutlass", tmp_path / "student.cu")] = newer
    assert lesson_fp8.built_library() == reference


def test_source_files_follow_local_includes(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "common.cuh").write_text("#pragma once\n")
    (tmp_path / "helper.cuh").write_text('#include "common.cuh"\n')
    cu = tmp_path / "k.cu"
    cu.write_text('#include <cuda_runtime.h>\n#include "helper.cuh"\n#include "common.cuh"\n')
    files = kc.source_files([cu], [inc])
    assert [f.name for f in files] == ["k.cu", "helper.cuh", "common.cuh"]

    flags = ["-O3"]
    before = kc.build_namespace("k", files, flags)
    (inc / "common.cuh").write_text("#pragma once\n#define CHANGED 1\n")
    assert kc.build_namespace("k", kc.source_files([cu], [inc]), flags) != before


def test_reference_binding_dependencies():
    files = kc.source_files([REFERENCE, kc.BINDINGS / "silu_mul.cpp"])
    assert {f.name for f in files} >= {"silu_mul.cu", "silu_mul.cpp", "silu_mul.h", "kl_common.cuh"}


@pytest.mark.parametrize("source, header", [
    ("csrc/silu_mul.cu", "silu_mul_launch.cuh"),
    ("chapters/00_speed_of_light/silu_mul.cu", "silu_mul_launch.cuh"),
    ("csrc/rmsnorm.cu", "rmsnorm_launch.cuh"),
    ("chapters/01_rmsnorm/rmsnorm.cu", "rmsnorm_launch.cuh"),
    ("csrc/fp8_quant.cu", "fp8_quant_launch.cuh"),
    ("chapters/02_fp8_gemm/fp8_quant.cu", "fp8_quant_launch.cuh"),
    ("csrc/paged_decode.cu", "paged_decode_launch.cuh"),
    ("chapters/03_paged_decode/paged_decode.cu", "paged_decode_launch.cuh"),
])
def test_shared_launcher_is_a_build_dependency(source, header):
    # The reference and the exercise include the same launcher from csrc/: a change to it must
    # change both builds' namespaces, so neither loads a stale library.
    assert kc.CSRC / header in kc.source_files([ROOT / source])


# --- architectures --------------------------------------------------------------------------------

@pytest.mark.parametrize("capability, flag", [
    ((8, 0), "-gencode=arch=compute_80,code=sm_80"),
    ((8, 9), "-gencode=arch=compute_89,code=sm_89"),
    ((9, 0), "-gencode=arch=compute_90a,code=sm_90a"),
    ((10, 0), "-gencode=arch=compute_100a,code=sm_100a"),
])
def test_gencode_flags(capability, flag):
    assert kc.gencode_flags(capability) == [flag]


def test_gencode_flag_rejects_nonsense():
    with pytest.raises(ValueError, match="sm_80"):
        kc.gencode_flag("hopper")


# --- the ptxas report -----------------------------------------------------------------------------

# Captured from nvcc 13.0 (-Xptxas -v), plus a spilling kernel with shared memory and a device
# function that was not inlined.
PTXAS_SAMPLE = """\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for _Z6helperf
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function '_ZN44_GLOBAL__N__a304f4a6_11_silu_mul_cu_251eac5e16_silu_mul_kernelI13__nv_bfloat16Li8EEEvPKT_S4_PS2_llll' for 'sm_90a'
ptxas info    : Function properties for _ZN44_GLOBAL__N__a304f4a6_11_silu_mul_cu_251eac5e16_silu_mul_kernelI13__nv_bfloat16Li8EEEvPKT_S4_PS2_llll
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 62 registers, used 0 barriers
ptxas info    : Compile time = 75.786 ms
ptxas info    : Compiling entry function '_Z11tile_kernelPfS_i' for 'sm_90a'
ptxas info    : Function properties for _Z11tile_kernelPfS_i
    120 bytes stack frame, 60 bytes spill stores, 120 bytes spill loads
ptxas info    : Used 64 registers, used 1 barriers, 8192 bytes smem, 120 bytes cumulative stack size
ptxas info    : Compile time = 12.001 ms
"""
SILU_BF16 = "_ZN44_GLOBAL__N__a304f4a6_11_silu_mul_cu_251eac5e16_silu_mul_kernelI13__nv_bfloat16Li8EEEvPKT_S4_PS2_llll"


def test_ptxas_report_parser():
    kernels = kc.parse_ptxas_report(PTXAS_SAMPLE, demangle=False)
    assert kernels == {
        SILU_BF16: {"registers": 62, "stack_frame": 0, "spill_stores": 0, "spill_loads": 0, "smem": 0},
        "_Z11tile_kernelPfS_i": {"registers": 64, "stack_frame": 120, "spill_stores": 60,
                                 "spill_loads": 120, "smem": 8192},
    }
    report = kc.CompileReport(ok=True, arch="sm_90a", log=PTXAS_SAMPLE, kernels=kernels)
    assert report.summary() == ("sm_90a: 2 kernels, max 64 registers, spills in 1 kernel (up to 60 B stored, "
                                "120 B loaded), max 8192 bytes static shared memory")
    assert len(report.format().splitlines()) == 3


def test_ptxas_report_demangles():
    if shutil.which("c++filt") is None:
        pytest.skip("c++filt not found: kernel names stay mangled")
    assert set(kc.parse_ptxas_report(PTXAS_SAMPLE)) == {"_silu_mul_kernel<__nv_bfloat16, 8>", "tile_kernel"}


PTX_SAMPLE = """
.visible .entry _Z6tile56Pf(
	.param .u64 _Z6tile56Pf_param_0
)
{
	wgmma.mma_async.sync.aligned.m64n56k32.f32.e4m3.e4m3 {%f1, %f2}, %rd1, %rd2, p, 1, 1;
	wgmma.mma_async.sync.aligned.m64n56k32.f32.e4m3.e4m3 {%f1, %f2}, %rd3, %rd4, p, 1, 1;
}
.weak .entry _Z4copyPf(
)
{
	st.global.f32 [%rd1], %f1;
}
.entry _Z6split8Pf(
)
{
	wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1}, %rd1, %rd2, p, 1, 1;
}
"""


def test_wgmma_parser_counts_shapes_per_kernel():
    # Kernels without wgmma are left out; each kernel's shapes are its own.
    wgmma = kc.parse_wgmma(PTX_SAMPLE, demangle=False)
    assert wgmma == {"_Z6tile56Pf": {"m64n56k32": 2}, "_Z6split8Pf": {"m64n8k32": 1}}
    # The per-kernel report line names them (KL_CUDA_VERBOSE=1 prints it for a student's build).
    size = {"registers": 90, "stack_frame": 0, "spill_stores": 0, "spill_loads": 0, "smem": 0}
    report = kc.CompileReport(ok=True, arch="sm_90a", log="", kernels={"_Z6tile56Pf": size, "_Z4copyPf": size},
                              wgmma=wgmma)
    lines = report.format().splitlines()
    assert lines[1].endswith("0 B smem, m64n56k32 x2") and lines[2].endswith("0 B smem"), lines


def test_summary_without_spills():
    kernels = {"a": {"registers": 18, "stack_frame": 0, "spill_stores": 0, "spill_loads": 0, "smem": 0}}
    report = kc.CompileReport(ok=True, arch="sm_80", log="", kernels=kernels)
    assert report.summary() == "sm_80: 1 kernel, max 18 registers, no spills"


def test_first_error_lines_keeps_the_start_of_the_diagnosis():
    log = "\n".join(
        ["Error building extension 'kl_silu_mul_0123abcd': [1/3] c++ -c a.cpp -o a.o",
         "FAILED: silu_mul.cuda.o",
         "/usr/local/cuda/bin/nvcc -c silu_mul.cu -o silu_mul.cuda.o -O3",
         "silu_mul.cu(12): error: identifier \"x\" is undefined",
         "      x = 1;", "      ^"]
        + [f"silu_mul.cu({20 + i}): error: more trouble {i}" for i in range(40)]
        + ["ninja: build stopped: subcommand failed."])
    lines = kc.first_error_lines(log).splitlines()
    assert len(lines) == 15
    assert lines[0] == 'silu_mul.cu(12): error: identifier "x" is undefined'


# --- CUTLASS headers ------------------------------------------------------------------------------

def test_cutlass_from_cutlass_path(tmp_path, monkeypatch):
    (tmp_path / "include" / "cutlass").mkdir(parents=True)
    (tmp_path / "tools" / "util" / "include").mkdir(parents=True)
    monkeypatch.setenv("CUTLASS_PATH", str(tmp_path))
    assert kc.cutlass_include_dirs() == [tmp_path / "include", tmp_path / "tools" / "util" / "include"]


def test_cutlass_missing_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.delenv("CUTLASS_PATH", raising=False)
    monkeypatch.setattr(kc, "_cutlass_wheel_source", lambda: None)
    with pytest.raises(kc.CutlassNotFound, match="pip install --no-deps nvidia-cutlass"):
        kc.cutlass_include_dirs()
    monkeypatch.setenv("CUTLASS_PATH", str(tmp_path))
    with pytest.raises(kc.CutlassNotFound, match="holds no include/cutlass"):
        kc.cutlass_include_dirs()


def test_needs_cutlass(tmp_path):
    f = tmp_path / "g.cu"
    f.write_text("#include <cute/tensor.hpp>\n")
    assert kc.needs_cutlass(f)
    assert not kc.needs_cutlass(REFERENCE)


# --- stubs and machines without a GPU -------------------------------------------------------------

def test_unwritten_stub_is_not_implemented():
    assert kc.is_stub(STUB)
    assert not kc.is_stub(REFERENCE)
    with pytest.raises(NotImplementedError, match=r"chapters/00_speed_of_light/silu_mul.cu: the kernel "
                                                  r"is still the stub \(delete KL_STUB_NOT_IMPLEMENTED"):
        kc.load_kernel("silu_mul", STUB)


def test_stub_mark_must_be_defined(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("// #define KL_STUB_NOT_IMPLEMENTED 1\n__global__ void k() {}\n")
    assert not kc.is_stub(f)
    f.write_text("__global__ void k() {\n  #define KL_STUB_NOT_IMPLEMENTED 1\n}\n")
    assert kc.is_stub(f)


@pytest.fixture
def no_gpu(monkeypatch):
    """The loader's view of a machine without a GPU, whatever this one has."""
    monkeypatch.setattr(kc, "_gpu_capability", lambda: None)


def test_no_gpu_compile_checks_then_says_why(nvcc, no_gpu):
    with pytest.raises(kc.CudaUnavailable) as info:
        kc.load_kernel("silu_mul", REFERENCE)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("no CUDA GPU")
    assert "compile-checked only (sm_90a: 12 kernels, max " in message and "no spills" in message


def test_no_gpu_and_no_nvcc(no_gpu, monkeypatch):
    monkeypatch.setattr(kc, "nvcc_path", lambda: None)
    with pytest.raises(kc.CudaUnavailable, match=r"^nvcc not found: the CUDA rung was not compiled$"):
        kc.load_kernel("silu_mul", REFERENCE)


def test_no_gpu_compile_error_shows_the_first_errors(nvcc, no_gpu, tmp_path):
    bad = tmp_path / "silu_mul.cu"
    bad.write_text('#include "silu_mul.h"\n'
                   + "".join(f"int f{i}() {{ return missing_{i}; }}\n" for i in range(40)))
    with pytest.raises(kc.CudaCompileError) as info:
        kc.load_kernel("silu_mul", bad)
    lines = str(info.value).splitlines()
    assert lines[0].endswith("does not compile for sm_90a:")
    assert "missing_0" in lines[1]
    assert len(lines) <= 16


def test_unknown_kernel_names_the_missing_binding(tmp_path):
    f = tmp_path / "nope.cu"
    f.write_text("__global__ void k() {}\n")
    with pytest.raises(FileNotFoundError, match="csrc/bindings/nope.cpp"):
        kc.load_kernel("nope", f)


def test_a_missing_source_names_the_file(tmp_path):
    with pytest.raises(kc.CudaCompileError, match=r"silu_mul\.cu not found: the CUDA rung builds this file"):
        kc.load_kernel("silu_mul", tmp_path / "silu_mul.cu")


def test_an_install_without_csrc_says_to_install_a_clone(monkeypatch, tmp_path):
    monkeypatch.setattr(kc, "CSRC", tmp_path / "csrc")  # what an install from a wheel sees
    with pytest.raises(kc.CudaCompileError, match=r"csrc does not exist: .*`pip install -e \.`"):
        kc.load_kernel("silu_mul", REFERENCE)


def test_a_failed_build_fails_every_case_at_once_and_is_not_built_again(monkeypatch):
    """On a GPU, a build that fails would otherwise run nvcc again for every case."""
    from grading import check
    from grading.specs import get_spec
    monkeypatch.setattr(kc, "_gpu_capability", lambda: (9, 0))
    monkeypatch.setattr(kc, "nvcc_path", lambda: Path("/nvcc"))
    monkeypatch.setattr(kc, "nvcc_version", lambda: "13.0")
    monkeypatch.setattr(kc, "_failed", {}, raising=False)
    builds = []

    def failing_build(*args):
        builds.append(args)
        raise kc.CudaCompileError("silu_mul.cu: building kl_silu_mul for sm_90a failed:\nerror: oops")
    monkeypatch.setattr(kc, "_build", failing_build)

    def fn(gate, up):
        return kc.load_kernel("silu_mul", REFERENCE).silu_mul(gate, up)
    spec = get_spec("silu_mul")
    cases = spec.cases(True)
    results = check.check_impl(fn, spec, cases, 1, torch.device("cpu"))
    assert len(builds) == 1
    assert [r.status for r in results] == [check.ERROR] * len(cases)
    assert "error: oops" in results[0].message and not results[0].not_run
    assert all(r.not_run and "the same CUDA build" in r.message for r in results[1:])
    with pytest.raises(kc.CudaCompileError, match="error: oops"):
        fn(None, None)
    assert len(builds) == 1


def test_no_gpu_on_this_machine():
    if not env.CPU_MODE:
        pytest.skip("a CUDA GPU is present: the real build is tested below")
    assert kc._gpu_capability() is None


# --- a real build (GPU only) ----------------------------------------------------------------------

gpu = pytest.mark.skipif(env.CPU_MODE, reason="no CUDA GPU: the CUDA build is compile-checked only")
TOLERANCE = {torch.float32: (1e-5, 1e-5), torch.float16: (1e-3, 5e-3), torch.bfloat16: (8e-3, 1.6e-2)}


def _silu_mul_ref(gate, up):
    g, u = gate.double(), up.double()
    return g * torch.sigmoid(g) * u


def _layout(layout: str, shape, dtype, gen):
    *lead, n = shape
    numel = 1
    for d in shape:
        numel *= d

    def rand(*s):
        return torch.randn(*s, generator=gen).to("cuda", dtype)

    if layout == "contiguous":
        return rand(*shape), rand(*shape)
    if layout == "chunked":  # the two halves of one fused gate_up output: row stride 2n
        return rand(*lead, 2 * n).chunk(2, dim=-1)
    # one element past the allocation: no 16-byte alignment, the scalar path
    return rand(numel + 1)[1:].view(shape), rand(numel + 1)[1:].view(shape)


@gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "chunked", "offset"])
@pytest.mark.parametrize("shape", [[1, 1], [3, 37], [37, 1000], [2, 5, 96], [1, 4097], [123, 14336]],
                         ids=str)
def test_silu_mul_cuda_matches_reference(dtype, layout, shape):
    ops = kc.load_kernel("silu_mul", REFERENCE)
    seed = 1234
    gate, up = _layout(layout, shape, dtype, torch.Generator().manual_seed(seed))
    out = ops.silu_mul(gate, up)
    assert out.shape == gate.shape and out.dtype == dtype and out.is_contiguous()
    atol, rtol = TOLERANCE[dtype]
    torch.testing.assert_close(out.double(), _silu_mul_ref(gate, up), atol=atol, rtol=rtol,
                               msg=lambda m: f"{layout} {shape} {dtype} seed={seed}: {m}")


@gpu
def test_silu_mul_cuda_rejects_bad_inputs():
    ops = kc.load_kernel("silu_mul", REFERENCE)
    x = torch.randn(4, 6, 8, device="cuda")
    with pytest.raises((ValueError, RuntimeError), match="collapse"):
        ops.silu_mul(x[:, :3], x[:, 3:])
    with pytest.raises((ValueError, RuntimeError), match="up: expected the shape of gate"):
        ops.silu_mul(x, x[:, :3])
    with pytest.raises((TypeError, RuntimeError), match="gate: expected dtype"):
        ops.silu_mul(x.double(), x.double())
    assert ops.silu_mul(x[:0], x[:0]).shape == (0, 6, 8)


@gpu
def test_silu_mul_cuda_under_torch_compile():
    def fake(gate, up):
        return torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)

    ops = kc.load_kernel("silu_mul", REFERENCE, fake=fake)
    assert kc.load_kernel("silu_mul", REFERENCE) is ops  # memoized per source hash
    gate, up = torch.randn(2, 64, 2 * 512, device="cuda", dtype=torch.bfloat16).chunk(2, dim=-1)
    compiled = torch.compile(lambda g, u: ops.silu_mul(g, u) * 2, fullgraph=True)
    torch.testing.assert_close(compiled(gate, up).double(), 2 * _silu_mul_ref(gate, up),
                               atol=2e-2, rtol=2e-2)


BINDINGS = sorted((kc.CSRC / "bindings").glob("*.cpp"))


def test_bindings_check_through_kl_msg():
    # A TORCH_CHECK* whose message streams a number crashed torch 2.11.0+cu130 (on an H200) instead
    # of raising (csrc/bindings/kl_binding.h); the bindings' checks go through KL_CHECK_*.
    raw = [f"{p.name}:{i}: {ln.strip()}" for p in BINDINGS
           for i, ln in enumerate(p.read_text().splitlines(), 1) if "TORCH_CHECK" in ln]
    assert BINDINGS and not raw, "use KL_CHECK_VALUE / KL_CHECK_TYPE:\n" + "\n".join(raw)


def test_kl_msg_raises_value_and_type_errors_with_formatted_messages(nvcc, tmp_path):
    # The bindings' message builder, in a CPU extension (no GPU needed; cuda_bf16.h from the
    # toolkit, which kl_common.cuh includes).
    import re

    from torch.utils.cpp_extension import load
    (tmp_path / "empty.cu").touch()
    dry = subprocess.run([str(kc.nvcc_path()), "--dryrun", "-c", "empty.cu"], cwd=tmp_path,
                         capture_output=True, text=True).stderr  # nvcc's include folder, as it says
    found = [Path(d) for d in re.findall(r'INCLUDES="-I([^"]+)"', dry) if (Path(d) / "cuda_bf16.h").exists()]
    if not found:
        pytest.skip("nvcc --dryrun named no include folder with cuda_bf16.h: the toolkit's headers are needed")
    cuda_include = found[0]
    src = tmp_path / "kl_msg_probe.cpp"
    src.write_text(r'''
#include "bindings/kl_binding.h"
at::Tensor check(const at::Tensor& x, double eps) {
  KL_CHECK_VALUE(x.dim() == 3, "x: expected 3-D, got shape ", x.sizes(), " strides ", x.strides(),
                 " on ", x.device(), ", eps ", eps, ", ", int64_t(-7));
  KL_CHECK_TYPE(x.scalar_type() == at::kFloat, "x: expected float32, got ", x.scalar_type());
  return x;
}
TORCH_LIBRARY(kl_msg_probe, m) { m.def("check(Tensor x, float eps) -> Tensor"); }
TORCH_LIBRARY_IMPL(kl_msg_probe, CompositeExplicitAutograd, m) { m.impl("check", &check); }
''')
    load(name="kl_msg_probe", sources=[str(src)], build_directory=str(tmp_path), is_python_module=False,
         extra_include_paths=[str(kc.CSRC), str(cuda_include)], extra_cflags=["-DKL_NAMESPACE=kl_msg_probe"])
    op = torch.ops.kl_msg_probe.check
    with pytest.raises(ValueError, match=r"^x: expected 3-D, got shape \[2, 5\] strides \[5, 1\] on cpu, eps 1e-06, -7"):
        op(torch.ones(2, 5), 1e-6)
    with pytest.raises(TypeError, match="^x: expected float32, got Half"):
        op(torch.ones(1, 2, 3, dtype=torch.half), 1e-6)
    assert op(torch.ones(1, 2, 3), 1e-6).shape == (1, 2, 3)


def _kernel_bodies(source: str) -> dict[str, str]:
    """name -> body of every __global__ function in `source` (braces matched; comments kept)."""
    bodies = {}
    for m in re.finditer(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(", source):
        depth, j = 1, m.end()
        while depth:  # to the parameter list's closing parenthesis
            depth += {"(": 1, ")": -1}.get(source[j], 0)
            j += 1
        i = source.index("{", j)
        depth, j = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(source[j], 0)
            if depth == 0:
                break
            j += 1
        bodies[m.group(1)] = source[i:j + 1]
    return bodies


@pytest.mark.parametrize("cu_file", sorted(p for p in kc.CSRC.glob("*.cu") if "kDependentLaunch" in p.read_text()),
                         ids=lambda p: p.name)
def test_kernels_that_may_launch_dependently_wait_first(cu_file):
    # A kernel launched with programmatic dependent launch (kDependentLaunch) may start before the
    # kernel ahead of it has finished: each must wait (kl_wait_previous_grid) before it touches
    # global memory, i.e. before its row loop.
    bodies = _kernel_bodies(cu_file.read_text())
    assert bodies, f"no __global__ kernels found in {cu_file.name}"
    for name, body in bodies.items():
        assert "kl_wait_previous_grid();" in body, f"{cu_file.name}: {name} never waits for the previous grid"
        wait = body.index("kl_wait_previous_grid();")
        first_loop = body.find("for (int64_t")
        assert first_loop == -1 or wait < first_loop, f"{cu_file.name}: {name} waits only after its row loop begins"


def test_exercise_launchers_start_without_dependent_launch():
    # The exercises' kernels are the student's: a launch that overlaps the previous kernel would
    # race on any that reads before it waits, so the shared launchers get kDependentLaunch = false.
    chapters = Path(__file__).resolve().parent.parent / "chapters"
    files = [p for p in chapters.glob("*/*.cu") if "kDependentLaunch" in p.read_text()]
    assert files
    for p in files:
        assert "constexpr bool kDependentLaunch = false;" in p.read_text(), p
