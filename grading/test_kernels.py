"""Graded test cases (see conftest.py for the options). Run with `pytest grading`."""
import pytest

from grading import check, env
from grading.grade import speed_verdict
from grading.specs import get_spec


def test_correctness(graded, kernel, rung, case_index):
    rep = graded(kernel, rung)
    if rep.failure:
        pytest.fail(rep.failure, pytrace=False)
    if case_index >= len(rep.results):
        last = rep.results[-1] if rep.results else None
        if last and last.status == check.NOT_IMPLEMENTED:
            pytest.fail(f"not implemented: {last.message}", pytrace=False)
        if last and last.status == check.SKIPPED:
            pytest.skip(last.message)
        pytest.fail("not run: grading stopped at an earlier case (see the first failing case)", pytrace=False)
    r = rep.results[case_index]
    if r.status == check.SKIPPED:
        pytest.skip(r.message)
    if r.status != check.PASS:
        pytest.fail(f"[{r.status}] {r.case}: {r.message}", pytrace=False)


def test_speed(graded, kernel, rung):
    if env.CPU_MODE:
        pytest.skip("speed is graded on a GPU only (CPU mode)")
    spec = get_spec(kernel)
    rep = graded(kernel, rung, timed=True)
    if rep.failure:
        pytest.fail(rep.failure, pytrace=False)
    bad = [s for s in rep.speeds if s.status != check.PASS]
    if bad:
        pytest.fail(f"timing {bad[0].case}: [{bad[0].status}] {bad[0].message}", pytrace=False)
    tier, ok = speed_verdict(spec, rep)
    pct = rep.median_pct_sol()
    msg = f"median {pct:.1f}% of SOL -> tier {tier} ({spec.tiers_for(rung).describe()})"
    if not ok:
        pytest.fail(msg, pytrace=False)
