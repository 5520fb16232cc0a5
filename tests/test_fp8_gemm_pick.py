"""fp8_gemm_cutlass's dispatch (csrc/fp8_gemm_cutlass_pick.h), compiled as plain host C++ and run
here, no GPU needed. A pick outside the shipped build fails only at run time on a Hopper GPU ("not
in this build"), and a shipped kernel that nothing picks costs every user ~11 s of nvcc for
nothing; neither shows up anywhere else on a machine without one."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

import grading.cuda as kc
from test_cuda_build import FP8_CUTLASS, _check_script, _config_numbers, _cutlass_builds_in_source

HARNESS = r"""
#include <cstdio>
#include "fp8_gemm_cutlass_pick.h"
int main() {
  long long m, n, k, sms;
  while (std::scanf("%lld %lld %lld %lld", &m, &n, &k, &sms) == 4) {
    std::printf("%d\n", kl_fp8_gemm::pick_config(m, n, k, sms));
  }
}
"""

# H100 PCIe 114, H20 78, H100 SXM / H200 / H800 132, and counts a partitioned or future GPU might
# report.
SM_COUNTS = (1, 2, 16, 66, 78, 114, 132, 144, 264)
MS = (*range(0, 300), 383, 384, 385, 512, 1000, 1024, 2048, 2049, 4096, 8192, 16384)
# Llama-class widths and awkward ones (5120 and 11008: Llama 2 13B and 7B).
NS = (16, 48, 64, 1024, 4096, 4112, 5120, 6144, 8192, 11008, 13824, 14336, 16384, 28672, 57344, 128256)
KS = (16, 2048, 4096, 4112, 8192, 14336, 28672)


def _compiler() -> list[str] | None:
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return [shutil.which(name)]
    nvcc = kc.nvcc_path()
    return [str(nvcc), "-x", "c++"] if nvcc else None


@pytest.fixture(scope="module")
def pick(tmp_path_factory):
    """pick(shapes) -> the configuration pick_config returns for each (m, n, k, sms)."""
    cxx = _compiler()
    if cxx is None:
        pytest.skip("no C++ compiler (c++, g++, clang++ or nvcc) to build the dispatch with")
    tmp = tmp_path_factory.mktemp("pick")
    (tmp / "pick.cpp").write_text(HARNESS)
    exe = tmp / "pick"
    build = subprocess.run([*cxx, "-std=c++17", "-O1", f"-I{kc.CSRC}", str(tmp / "pick.cpp"), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, f"fp8_gemm_cutlass_pick.h does not compile as host C++:\n{build.stderr}"

    def run(shapes):
        out = subprocess.run([str(exe)], input="".join(f"{m} {n} {k} {s}\n" for m, n, k, s in shapes),
                             capture_output=True, text=True, check=True).stdout.split()
        assert len(out) == len(shapes)
        return dict(zip(shapes, map(int, out)))
    return run


def test_every_pick_is_in_the_shipped_build_at_any_sm_count(pick):
    shapes = [(m, n, k, s) for s in SM_COUNTS for m in MS for n in NS for k in KS]
    picks = pick(shapes)
    shipped = _cutlass_builds_in_source()[0][0]
    outside = {}
    for shape, config in picks.items():
        if config not in shipped:
            outside.setdefault(config, shape)
    assert not outside, ("pick_config returns configurations the shipped build does not hold "
                         f"(one shape (m, n, k, sms) each): {outside}")


def test_the_shipped_picks_are_the_ones_picked_on_an_h200(pick):
    # On 132 SMs every configuration the docs and the sweep script call a pick is reachable, and
    # nothing else is.
    picked = set(pick([(m, n, k, 132) for m in MS for n in NS for k in KS]).values())
    assert picked == set(_check_script().SHIPPED_PICKS), sorted(picked)
    top = FP8_CUTLASS.read_text()
    said = re.search(r"fp8_gemm_cutlass_pick chooses\s*//\s*from ([\d,\-\s/and]+?) by the\b", top)
    assert said, "the list of picks at the top of fp8_gemm_cutlass.cu has moved"
    assert _config_numbers(said.group(1).replace("//", " ")) == picked


# What the comments in fp8_gemm_cutlass_pick.h and the benchmark records say runs where, on an
# H200's 132 SMs: (m, n, k) -> configuration.
DOCUMENTED = {
    (1, 4096, 4096): 43, (16, 14336, 4096): 64, (1, 28672, 8192): 65,
    (64, 28672, 8192): 96, (24, 4096, 4096): 42, (40, 14336, 4096): 109, (40, 4096, 4096): 110,
    (64, 14336, 4096): 92, (64, 4096, 4096): 41,
    (72, 4096, 4096): 111, (72, 14336, 4096): 112, (96, 8192, 8192): 101, (96, 28672, 8192): 102,
    (128, 28672, 8192): 116, (112, 28672, 8192): 116, (128, 8192, 8192): 100,
    (112, 4096, 14336): 119, (128, 4096, 14336): 120, (128, 14336, 4096): 48, (128, 8192, 28672): 100,
    (256, 4096, 4096): 29, (4096, 4096, 4096): 82, (512, 14336, 4096): 82, (512, 8192, 8192): 36,
    (4096, 4096, 14336): 59, (2048, 4096, 14336): 36, (8192, 8192, 8192): 53, (8192, 28672, 8192): 53,
}


def test_the_documented_picks(pick):
    got = pick([(m, n, k, 132) for m, n, k in DOCUMENTED])
    wrong = {(m, n, k): (want, got[(m, n, k, 132)]) for (m, n, k), want in DOCUMENTED.items()
             if got[(m, n, k, 132)] != want}
    assert not wrong, f"(m, n, k): (documented, picked): {wrong}"
