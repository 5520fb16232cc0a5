"""Submissions that try to fool the grader (tests/broken/cheats*.py) are caught, with a diagnosis.

These run anywhere (CPU mode included); the cheats that need a GPU (a side stream, a deferred
result, the host doing the math) are in tests/test_gpu_integrity.py.
"""
from pathlib import Path

import pytest
import torch

from grading import audit, check, env, torch_ops
from grading.grade import grade_impl, timing_problem
from grading.impls import ImplRef
from grading.specs import get_spec

BROKEN = Path(__file__).parent / "broken"
CHEATS = BROKEN / "cheats.py"
SPEC = get_spec("silu_mul")


def grade(func: str, rung: str | None = None, path: Path = CHEATS):
    return grade_impl(SPEC, ImplRef(str(path), func, rung, func), seed=4321, timeout_s=120)


@pytest.mark.parametrize("func, patched", [
    ("patches_compare", "grading.check.compare"),
    ("patches_run_case", "grading.check.run_case"),
    ("relabels_failures", "grading.check.FAIL"),
    ("swaps_mismatch", "grading.check.Mismatch"),
    ("patches_reference", "spec silu_mul.reference"),
    ("patches_timer", "torch.cuda.Event.elapsed_time"),
])
def test_patching_the_grader_voids_the_run(func, patched):
    rep = grade(func)
    assert rep.status == check.ERROR
    assert "modified the grader" in rep.failure and f"{patched} replaced" in rep.failure, rep.failure
    assert not any(r.passed for r in rep.results)


def test_patching_at_import_is_caught_before_any_check():
    rep = grade("silu_mul_triton", "triton", BROKEN / "cheats_at_import.py")
    assert rep.status == check.ERROR and rep.results == []
    assert "grading.check.compare replaced" in rep.failure and "grading.timing.time_fn replaced" in rep.failure


def test_the_parent_rechecks_what_the_worker_reported():
    # Tensor.abs patched: the worker's compare() sees no error anywhere and reports every case as
    # passing. The parent's own re-check of the saved outputs does not agree.
    rep = grade("patches_torch_abs")
    assert all(r.passed for r in rep.results)
    assert rep.status == check.ERROR
    assert "re-check, outside the graded process, fails where the worker reported a pass" in rep.failure
    assert "out of tolerance" in rep.failure and "seed" in rep.failure


def test_an_honest_kernel_survives_the_recheck():
    rep = grade_impl(SPEC, ImplRef(str(BROKEN / "silu_mul_broken.py"), "correct", None, "correct"), seed=4321)
    assert rep.failure is None and rep.status == check.PASS


@pytest.mark.parametrize("func, expected", [
    ("lazy_subclass", "expected a plain torch.Tensor, got the subclass _Lazy"),
    ("finishes_later", "NaN/inf"),
    ("lazy_next_call", "out of tolerance"),
])
def test_deferred_or_fake_outputs_fail(func, expected):
    rep = grade(func)
    assert rep.status == check.FAIL
    bad = next(r for r in rep.results if not r.passed)
    assert expected in bad.message, bad.message


@pytest.mark.parametrize("func, rung", [
    ("uses_torch", "triton"),
    ("uses_torch_compile", "triton"),
    ("hides_torch_in_a_custom_op", "cuda"),
])
def test_torch_compute_in_a_kernel_rung_fails(func, rung):
    rep = grade(func, rung)
    assert rep.status == check.FAIL
    assert rep.n_passed == 0
    msg = rep.results[0].message
    assert f"the {rung} rung called PyTorch compute ops: aten.silu ×1, aten.mul.Tensor ×1" in msg, msg
    assert "seed" in msg


def test_eager_and_compiled_rungs_may_use_torch():
    rep = grade("uses_torch", "eager")
    assert rep.status == check.PASS, [r.message for r in rep.results if not r.passed][:1]


def test_allocation_views_and_copies_are_allowed():
    # Wrong answer, but not for using PyTorch: the diagnosis is the numbers, not the ops.
    rep = grade("allocates_and_copies", "triton")
    bad = next(r for r in rep.results if not r.passed)
    assert "out of tolerance" in bad.message and "compute ops" not in bad.message


def test_recorder_counts_ops_on_tensors_made_inside_the_call():
    x = torch.randn(4, 8)
    with torch_ops.OpRecorder() as rec:
        out = torch.empty_like(x)
        tmp = out.view(-1).clone()
        (tmp + 1).rsqrt()
        out.zero_()
        out.fill_(2.0)
    assert dict(rec.forbidden) == {"aten.add.Tensor": 1, "aten.rsqrt": 1}


def test_reference_triton_kernels_call_no_torch_compute():
    from solutions import rmsnorm, silu_mul
    g, u = torch.randn(3, 37), torch.randn(3, 37)
    w = torch.randn(37)
    with torch_ops.OpRecorder() as rec:  # in CPU mode the interpreter's own copies are not counted
        silu_mul.silu_mul_triton(g, u)
        rmsnorm.rmsnorm_triton(g, w)
        rmsnorm.fused_add_rmsnorm_triton(g, u, w)
    assert not rec.forbidden, rec.forbidden


def test_audit_picks_one_small_case_per_dtype():
    cases = SPEC.cases(env.CPU_MODE)
    picked = audit.pick_audit_cases(SPEC, cases, seed=3)
    assert sorted({cases[i].dtype for i in picked}, key=str) == sorted(set(c.dtype for c in cases), key=str)
    assert picked == audit.pick_audit_cases(SPEC, cases, seed=3)  # the seed reproduces the choice


def test_parent_rejects_impossible_timings():
    ok = {"median_s": 100e-6, "wall_s": 0.3, "device_total_s": 0.25, "synced_s": 105e-6, "host_s": 12e-6}
    assert timing_problem(ok, pct=80.0) is None
    side = dict(ok, median_s=3e-6, device_total_s=0.0075, synced_s=165e-6)
    assert "Work outside the timed stream?" in timing_problem(side, pct=None)
    forged = dict(ok, device_total_s=0.5)
    assert "timing tampered with" in timing_problem(forged, pct=80.0)
    assert "faster than the hardware allows" in timing_problem(ok, pct=400.0)
    # A launch-bound call: the wall clock is the host's enqueue time, and that is no cheat.
    host_bound = dict(ok, median_s=8e-6, synced_s=60e-6, host_s=55e-6)
    assert timing_problem(host_bound, pct=5.0) is None


def test_timing_starts_from_fresh_compile_caches():
    # Not a cheat but the same harm: after the correctness cases, a torch.compile'd rung holds the
    # graphs those cases left (made generic by automatic dynamic shapes and strides) or, past the
    # recompile limit, none at all, and dynamo runs it uncompiled. Timed then, a compiled rung is
    # graded on code a fresh process would not run. The worker empties the caches before timing.
    from torch._dynamo.utils import counters

    from grading.worker import fresh_compile_caches

    torch._dynamo.reset()
    f = torch.compile(lambda x: x * 2 + 1, backend="eager")
    graphs = lambda: counters["stats"]["unique_graphs"]  # noqa: E731
    with torch._dynamo.config.patch(recompile_limit=8):  # torch's default (grading raises it)
        before = graphs()
        # What the cases do: a new dtype or rank per call (guards no dynamic shape can relax).
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            for shape in ((4,), (2, 4), (2, 2, 4)):
                f(torch.ones(shape, dtype=dtype))
        compiled = graphs() - before
        assert 0 < compiled < 12, f"{compiled} graphs for 12 dtype/rank pairs: expected the recompile limit"
        at_limit = graphs()
        f(torch.ones(4, dtype=torch.int32))
        assert graphs() == at_limit, "past the limit dynamo still compiled"
        fresh_compile_caches()
        f(torch.ones(4, dtype=torch.int32))
        assert graphs() == at_limit + 1, "after fresh_compile_caches() the next call must compile again"
