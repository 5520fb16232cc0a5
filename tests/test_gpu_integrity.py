"""Cheats and mistakes that only a GPU can show: work left on a side stream so the timer stops
early, results finished after the call returns, the host doing a kernel's math; and the other
side of each defence: honest kernels are not flagged.

Skipped, with the reason printed, on machines without a GPU; run with
`pytest tests/test_gpu_integrity.py -v` on the GPU machine.
"""
from pathlib import Path

import pytest
import torch

from grading import check, env

pytestmark = pytest.mark.skipif(env.CPU_MODE, reason="needs a CUDA GPU (CPU mode)")

CHEATS = Path(__file__).parent / "broken" / "cheats.py"
BROKEN = Path(__file__).parent / "broken" / "silu_mul_broken.py"


def grade(func: str, rung: str | None = None, path: Path = CHEATS, kernel: str = "silu_mul", **kw):
    from grading.grade import grade_impl
    from grading.impls import ImplRef
    from grading.specs import get_spec
    return grade_impl(get_spec(kernel), ImplRef(str(path), func, rung, func), seed=77, **kw)


def timed(func: str, rung: str | None = None, **kw):
    from grading.grade import current_roofs
    return grade(func, rung, time="speed", roofs=current_roofs(), **kw)


def test_side_stream_work_is_caught_by_the_wall_clock():
    rep = timed("side_stream")
    assert all(r.passed for r in rep.results)  # the answer is right once everything is synchronized
    assert rep.speeds and all(s.status == check.FAIL for s in rep.speeds)
    # Two defences see it; which speaks first depends on how fast the events say the call was
    # (on an H200 the events measured a tenth of the speed of light's time: "faster than the hardware").
    msg = rep.speeds[0].message
    assert "Work outside the timed stream?" in msg or "faster than the hardware allows" in msg, msg
    t = rep.speeds[0].timing
    print(f"side stream: events {t['median_s'] * 1e6:.1f} µs, wall clock {t['synced_s'] * 1e6:.1f} µs per call")


@pytest.mark.parametrize("func, expected", [
    ("lazy_next_call", "out of tolerance"),
    ("finishes_later", "NaN/inf"),
])
def test_deferred_results_fail_the_check(func, expected):
    rep = grade(func)
    assert rep.status == check.FAIL
    bad = next(r for r in rep.results if not r.passed)
    assert expected in bad.message or "NaN/inf" in bad.message, bad.message


def test_math_on_the_host_is_not_a_triton_kernel():
    rep = grade("on_the_host", "triton")
    bad = next(r for r in rep.results if not r.passed)
    assert "aten._to_copy (to the host)" in bad.message, bad.message


def test_torch_inside_a_custom_op_on_the_gpu():
    rep = grade("hides_torch_in_a_custom_op", "cuda")
    assert "called PyTorch compute ops: aten.silu ×1, aten.mul.Tensor ×1" in rep.results[0].message


def test_patched_event_timer_is_caught():
    rep = timed("patches_timer")
    assert rep.status == check.ERROR and "torch.cuda.Event.elapsed_time replaced" in rep.failure


@pytest.mark.parametrize("kernel, rung", [
    ("silu_mul", "triton"), ("silu_mul", "cuda"), ("silu_mul", "compiled"),
    ("rmsnorm", "triton"), ("rmsnorm", "cuda"), ("fused_add_rmsnorm", "triton"),
])
def test_honest_kernels_pass_every_integrity_check(kernel, rung):
    # No false alarms: the op recorder allows the reference launchers (and our CUDA bindings), the
    # re-check agrees, and the timings agree with the wall clock and stay under the speed of light.
    from grading import impls
    from grading.grade import current_roofs, grade_impl
    from grading.specs import get_spec
    spec = get_spec(kernel)
    ref = impls.rung_refs(spec, [rung], solutions=True)[0]
    rep = grade_impl(spec, ref, seed=77, time="speed", roofs=current_roofs())
    assert rep.failure is None, rep.failure
    assert rep.status == check.PASS, [r.message for r in rep.results if not r.passed][:1] + \
        [s.message for s in rep.speeds if s.status != check.PASS][:1]
    for s in rep.speeds:
        t = s.timing
        print(f"{kernel} {rung} {s.case}: events {t['median_s'] * 1e6:.1f} µs, wall clock "
              f"{t['synced_s'] * 1e6:.1f} µs, host {t['host_s'] * 1e6:.1f} µs per call, {s.pct_sol:.0f}% of SOL")


def test_time_fn_cross_check_directly():
    """Work left on a side stream cannot buy a short time: either the events still see it (the
    side stream shares a hardware queue with the timed one, as on the H200 we ran on: the end event
    waits behind the side stream's kernels) or the wall clock, which waits for every stream, does
    and `inconsistency` flags the timing."""
    from grading.timing import inconsistency, time_fn, time_synced
    x = torch.randn(64 * 2**20, device="cuda", dtype=torch.bfloat16)  # 128 MB, past L2
    side = torch.cuda.Stream()

    # One 128 MB pass plus a 1 ms spin (torch.cuda._sleep): the device time per call dwarfs the
    # host's launch cost. (With a few short kernels the host is the bottleneck, and the wall-clock
    # check, which allows for the host's cost, rightly cannot tell honest from side-stream work.)
    def honest(a):
        torch.cuda._sleep(2_000_000)
        return a * 2

    def on_side(a):
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            return honest(a)

    t_ok, _, _ = time_fn(honest, [((x,), {})])
    assert inconsistency(t_ok.to_json()) is None, t_ok.to_json()
    # The wall clock sees the side stream's work whatever the events see.
    synced = time_synced(on_side, [((x,), {})], torch.device("cuda"), t_ok.median_s)
    assert synced > 0.8 * t_ok.median_s, (synced, t_ok.to_json())
    t_bad, _, _ = time_fn(on_side, [((x,), {})])
    why = inconsistency(t_bad.to_json())
    if why is None:  # the events saw the work: the time is honest, the cheat gained nothing
        assert t_bad.median_s > 0.8 * t_ok.median_s, (t_bad.to_json(), t_ok.to_json())
    else:
        assert "outside the timed stream" in why, why


def test_a_spinning_kernel_is_killed_and_the_next_is_graded():
    rep = grade("gpu_hangs", path=BROKEN, timeout_s=20)
    assert rep.status == check.ERROR and rep.failure.startswith("hung: no progress for 20 s"), rep.failure
    assert grade("correct", path=BROKEN).status == check.PASS


def test_after_an_illegal_address_the_next_implementation_is_graded():
    first = grade("illegal_address", path=BROKEN)
    assert first.status in (check.ERROR, check.FAIL)
    assert grade("correct", path=BROKEN).status == check.PASS
