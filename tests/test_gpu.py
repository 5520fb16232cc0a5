"""Protocol checks that need a GPU: poisoned outputs, timing, a dead CUDA context isolated.

Skipped, with the reason printed, on machines without one (CI); run on the GPU machine with
`pytest tests/test_gpu.py`.
"""
from pathlib import Path

import pytest
import torch

from grading import check, env
from grading.grade import grade_impl
from grading.impls import ImplRef
from grading.specs import get_spec

pytestmark = pytest.mark.skipif(env.CPU_MODE, reason="needs a CUDA GPU (CPU mode)")

BROKEN = Path(__file__).parent / "broken" / "silu_mul_broken.py"
SPEC = get_spec("silu_mul")


def grade(func: str, **kw):
    return grade_impl(SPEC, ImplRef(str(BROKEN), func, None, func), seed=99, **kw)


def test_unwritten_output_reads_as_poison():
    rep = grade("unwritten")
    bad = next(r for r in rep.results if not r.passed)
    assert "NaN/inf" in bad.message


def test_illegal_address_is_isolated():
    rep = grade("illegal_address")
    assert rep.status in (check.ERROR, check.FAIL)
    assert any(r.status == check.ERROR for r in rep.results) or rep.failure
    text = (rep.failure or "") + " ".join(r.message for r in rep.results)
    assert "illegal memory access" in text or "CUDA error" in text, text
    # The grader itself, in this process, still has a working GPU.
    assert torch.ones(4, device="cuda").sum().item() == 4


def test_timing_protocol_on_a_copy():
    from grading.timing import time_fn
    n = 256 * 2**20  # 512 MB of bf16: far past L2
    src = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    timing, _, _ = time_fn(lambda a, b: b.copy_(a), [((src, dst), {})])
    gbps = 2 * n * 2 / timing.median_s / 1e9
    assert 500 < gbps < 10_000, gbps  # a real HBM copy, not a cached or skipped one
    assert timing.p20_s <= timing.median_s <= timing.p80_s
    assert timing.wall_s >= timing.device_total_s * 0.95  # device time cannot exceed wall time


def test_tiny_kernels_are_also_timed_in_a_graph():
    from grading.timing import time_fn
    x = torch.randn(1024, device="cuda")
    timing, _, _ = time_fn(lambda a: a * 2, [((x,), {})])
    # Both measure device time (the events hide the launch path); a graph replay agrees within noise.
    assert timing.graph_median_s is not None and timing.graph_median_s < 2 * timing.median_s + 2e-6

