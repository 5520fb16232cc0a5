"""The grader must reject each broken implementation, with a diagnosis that says why."""
from pathlib import Path

import pytest

from grading import check, env
from grading.grade import grade_impl
from grading.impls import ImplRef
from grading.specs import get_spec

BROKEN = Path(__file__).parent / "broken" / "silu_mul_broken.py"
SPEC = get_spec("silu_mul")


def grade(func: str, timeout_s: float = 300):
    return grade_impl(SPEC, ImplRef(str(BROKEN), func, None, func), seed=1234, timeout_s=timeout_s)


def first_bad(rep):
    return next(r for r in rep.results if r.status != check.PASS)


def test_correct_one_passes():
    rep = grade("correct")
    assert rep.failure is None
    assert rep.status == check.PASS, [r.message for r in rep.results if not r.passed]
    assert rep.n_passed == len(SPEC.cases(env.CPU_MODE))


@pytest.mark.parametrize("func, expected", [
    ("wrong_math", "out of tolerance"),
    ("nan_output", "NaN/inf"),
    ("unwritten_tail", "out of tolerance"),
    ("mutates_input", "was modified by the call"),
    ("aliases_input", "shares memory with"),
    ("caches", "must not be cached"),
    ("wrong_dtype", "expected dtype"),
    ("wrong_shape", "expected shape"),
    ("wrong_device", "expected a tensor on"),
])
def test_broken_is_rejected_with_diagnosis(func, expected):
    rep = grade(func)
    assert rep.status == check.FAIL
    bad = first_bad(rep)
    assert expected in bad.message, bad.message
    assert "seed" in bad.message  # every diagnosis says how to reproduce it


def test_low_precision_fails_only_where_precision_matters():
    rep = grade("low_precision")
    by_dtype = {}
    for r in rep.results:
        by_dtype.setdefault(r.case.split(", ")[-1].rstrip("]"), []).append(r.passed)
    assert not all(by_dtype["float32"])  # fp16 rounding is far above the fp32 tolerance
    assert all(by_dtype["float16"])


def test_worst_element_is_named():
    bad = first_bad(grade("wrong_math"))
    assert "worst at [" in bad.message and "expected" in bad.message and "relative L2" in bad.message


def test_exception_is_a_diagnosis_not_a_traceback():
    bad = first_bad(grade("raises"))
    assert bad.status == check.ERROR
    assert "silu_mul_broken.py:" in bad.message  # the student's own line
    assert "Traceback" not in bad.message and len(bad.message.splitlines()) <= 8


def test_not_implemented_is_reported_as_such():
    rep = grade("not_implemented")
    assert rep.status == check.NOT_IMPLEMENTED
    assert len(rep.results) == 1  # stops at once: every case would say the same


def test_written_for_some_cases_only_is_a_fail_over_every_case():
    rep = grade("no_float16")
    n = len(SPEC.cases(env.CPU_MODE))
    assert rep.status == check.FAIL
    assert len(rep.results) == rep.n_graded == n  # the other cases still ran
    assert 0 < rep.n_passed < n
    assert {r.status for r in rep.results if not r.passed} == {check.NOT_IMPLEMENTED}


def test_a_kernel_that_dies_halfway_scores_no_more_than_one_that_fails_the_rest():
    dies, wrong = grade("dies_at_float16"), grade("wrong_at_float16")
    n = len(SPEC.cases(env.CPU_MODE))
    assert dies.status == wrong.status == check.FAIL
    assert dies.n_graded == wrong.n_graded == len(dies.results) == n
    assert 0 < dies.n_passed <= wrong.n_passed < n
    stop = next(i for i, r in enumerate(dies.results) if not r.passed)
    assert "illegal memory access" in dies.results[stop].message
    assert all(r.not_run and "CUDA context is unusable" in r.message for r in dies.results[stop + 1:])


def test_hang_is_killed_with_a_clear_message():
    rep = grade("hangs", timeout_s=8)
    assert rep.status == check.ERROR
    assert rep.failure.startswith("hung: no progress for 8 s while running random [shape=[1, 8]")


def test_a_stop_does_not_skip_the_parents_re_check():
    rep = grade("dies_then_lies")  # its "dead" context still works: the passes before it are re-checked
    assert rep.status == check.ERROR
    assert rep.failure.startswith("the grader's own re-check, outside the graded process, fails"), rep.failure


def test_a_long_compile_is_not_a_hang():
    rep = grade("compiles_slowly", timeout_s=2)  # 4 s in "nvcc", then every case at once
    assert rep.failure is None and rep.status == check.PASS, rep.failure


def test_crash_is_isolated_with_a_clear_message():
    rep = grade("crashes")
    assert rep.status == check.ERROR
    assert "crashed while running random [shape=[1, 8]" in rep.failure
    assert "SIGABRT" in rep.failure


def test_load_error_names_the_file(tmp_path):
    bad = tmp_path / "typo.py"
    bad.write_text("def silu_mul_triton(gate, up)\n    return gate\n")
    rep = grade_impl(SPEC, ImplRef(str(bad), "silu_mul_triton", "triton", "typo"), seed=1)
    assert rep.status == check.ERROR
    assert "could not load silu_mul_triton" in rep.failure and "SyntaxError" in rep.failure
