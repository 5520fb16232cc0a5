"""rmsnorm and fused_add_rmsnorm: the grader rejects each broken variant with the right diagnosis,
the compiled rung is held to one graph across token counts, the reference solutions pass, and the
reference kernels reject bad input naming the argument."""
import functools
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from grading import check, env
from grading.grade import grade_impl
from grading.impls import ImplRef
from grading.specs import get_spec
from grading.specs.rmsnorm import SWEEP_TOKENS

REPO = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).parent / "broken" / "rmsnorm_broken.py"
EXTRA = "no recompilation across token counts"


@functools.cache
def grade(kernel: str, func: str, rung: str | None = None):
    return grade_impl(get_spec(kernel), ImplRef(str(BROKEN), func, rung, func), seed=1234, timeout_s=600)


def failures(rep, case_prefix: str = ""):
    return [r for r in rep.results if not r.passed and r.case.startswith(case_prefix)]


@pytest.mark.parametrize("kernel, func", [("rmsnorm", "correct"), ("fused_add_rmsnorm", "fused_correct")])
def test_correct_one_passes(kernel, func):
    rep = grade(kernel, func)
    assert rep.failure is None
    assert rep.status == check.PASS, [r.message for r in rep.results if not r.passed]
    assert rep.n_passed == len(get_spec(kernel).cases(env.CPU_MODE))


# (kernel, broken function, the case that shows the defect, what its diagnosis must say)
DEFECTS = [
    ("rmsnorm", "mean_over_rows", "random [shape=[3, 37]", "out of tolerance"),
    ("rmsnorm", "missing_eps", "tiny", "out of tolerance"),
    ("rmsnorm", "eps_outside_sqrt", "eps [shape=[9, 768], eps=0.1", "out of tolerance"),
    ("rmsnorm", "ignores_eps", "eps [shape=[9, 768], eps=0.1", "out of tolerance"),
    ("rmsnorm", "stats_in_input_dtype", "huge [shape=[8, 5120], values=huge, float16]", "out of tolerance"),
    ("rmsnorm", "weight_ignored", "random [shape=[1, 4096]", "out of tolerance"),
    ("rmsnorm", "subtracts_mean", "mean 5, std 0.1", "out of tolerance"),
    ("rmsnorm", "last_column_unnormalized", "random [shape=[1, 4096]", "worst at [0, 4095]"),
    ("rmsnorm", "nan_on_zero_rows", "zero rows", "NaN/inf"),
    ("rmsnorm", "returns_x_buffer", "random", "output shares memory with argument 0"),
    ("fused_add_rmsnorm", "fused_h_not_added", "random", "output 1: "),
    ("fused_add_rmsnorm", "fused_norm_of_x", "random", "output 0: "),
    ("fused_add_rmsnorm", "fused_h_not_returned", "random", "expected 2 output(s), got 1"),
    ("fused_add_rmsnorm", "fused_h_in_fp32", "random", "output 1: expected dtype float16, got float32"),
    ("fused_add_rmsnorm", "fused_writes_residual", "random", "output 1 shares memory with argument 1"),
]


@pytest.mark.parametrize("kernel, func, case, expected", DEFECTS, ids=[d[1] for d in DEFECTS])
def test_defect_is_rejected_with_diagnosis(kernel, func, case, expected):
    rep = grade(kernel, func)
    assert rep.failure is None, rep.failure
    assert rep.status == check.FAIL
    bad = failures(rep, case)
    assert bad, f"{func}: no failing case starting with {case!r}; failing: {[r.case for r in failures(rep)]}"
    assert expected in bad[0].message, bad[0].message
    assert "seed" in bad[0].message  # every diagnosis says how to reproduce it


def test_statistics_in_bfloat16_fail_only_where_precision_matters():
    rep = grade("rmsnorm", "stats_in_bfloat16")
    by_dtype = {}
    for r in rep.results:
        by_dtype.setdefault(r.case.rsplit(", ", 1)[-1].rstrip("]"), []).append(r.passed)
    assert not all(by_dtype["float32"])  # 2^-9 relative in the mean square: far above 1e-5
    assert all(by_dtype["bfloat16"])


def test_compiled_rung_that_recompiles_per_token_count_is_rejected():
    rep = grade("rmsnorm", "compiled_recompiles", rung="compiled")
    extra = [r for r in rep.results if r.case == EXTRA]
    assert len(extra) == 1, [r.case for r in rep.results[-3:]]
    assert extra[0].status == check.FAIL
    assert (f"recompiled {len(SWEEP_TOKENS)} times across token counts {list(SWEEP_TOKENS)}"
            in extra[0].message), extra[0].message
    assert "mark the token dimension dynamic" in extra[0].message
    # The values are right: only the recompilation check fails.
    assert all(r.passed for r in rep.results if r.case != EXTRA)


def test_fused_compiled_rung_that_recompiles_is_rejected():
    rep = grade("fused_add_rmsnorm", "fused_compiled_recompiles", rung="compiled")
    assert [r.status for r in rep.results if r.case == EXTRA] == [check.FAIL]


def test_compiled_rung_that_compiles_nothing_is_rejected():
    rep = grade("rmsnorm", "not_compiled", rung="compiled")
    extra = [r for r in rep.results if r.case == EXTRA]
    assert extra[0].status == check.FAIL
    assert "no graph was compiled" in extra[0].message


def test_extra_check_only_applies_to_its_rung():
    # The same function graded as eager (or as no rung at all) has no recompilation check.
    assert all(r.case != EXTRA for r in grade("rmsnorm", "correct").results)
    assert all(r.case != EXTRA for r in grade("rmsnorm", "not_compiled", rung="eager").results)


@pytest.mark.parametrize("kernel", ["rmsnorm", "fused_add_rmsnorm"])
def test_check_solutions_passes(kernel, tmp_path):
    out = tmp_path / "results.json"
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "grading", "check", kernel, "--solutions", "--seed", "7",
                        "--json", str(out)], cwd=REPO, capture_output=True, text=True, timeout=1800)
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "not implemented" not in r.stdout
    tests = {t["name"]: t for t in json.loads(out.read_text())["tests"]}
    n = len(get_spec(kernel).cases(env.CPU_MODE))
    for rung in ("eager", "compiled", "triton", "cuda"):
        assert tests[f"{kernel} solutions:{rung}: correctness"]["status"] == "passed"
    # The compiled rung also passed the recompilation check.
    assert f"{n + 1}/{n + 1} cases pass" in tests[f"{kernel} solutions:compiled: correctness"]["output"]
    if env.CPU_MODE:
        assert "compile-checked only" in r.stdout  # the CUDA rung is skipped with the reason
        # The interpreter is slow: the CPU cases are kept small (the bulk of this is torch.compile).
        assert elapsed < 240, f"check {kernel} --solutions took {elapsed:.0f} s in CPU mode"


# --- the reference kernels reject bad input, naming the argument -----------------------------------

def _rungs():
    from solutions import rmsnorm as sol
    return sol, [sol.rmsnorm_eager, sol.rmsnorm_compiled, sol.rmsnorm_triton, sol.rmsnorm_triton_naive,
                 sol.rmsnorm_cuda]


def test_rmsnorm_rejects_bad_input_naming_the_argument():
    _, fns = _rungs()
    x, w = torch.randn(4, 8), torch.randn(8)
    for fn in fns:
        with pytest.raises(ValueError, match=r"weight: expected shape \(8,\), the last dimension of x"):
            fn(x, torch.randn(9))
        with pytest.raises(ValueError, match="weight: expected 1 dimensions"):
            fn(x, torch.randn(1, 8))
        with pytest.raises(TypeError, match="weight: expected the dtype of x"):
            fn(x.bfloat16(), w)
        with pytest.raises(TypeError, match="x: expected dtype float32, float16, bfloat16; got int64"):
            fn(torch.ones(4, 8, dtype=torch.long), w)
        with pytest.raises(ValueError, match="weight: expected the device of x"):
            fn(x, w.to("meta"))
        with pytest.raises(ValueError, match="x: the last dimension must be contiguous"):
            fn(torch.randn(8, 4).t(), w)
        with pytest.raises(ValueError, match="weight: the last dimension must be contiguous"):
            fn(x, torch.randn(8, 2)[:, 0])
        with pytest.raises(ValueError, match="eps: expected a number >= 0"):
            fn(x, w, -1.0)
        with pytest.raises(TypeError, match="x: expected a torch.Tensor"):
            fn([1.0] * 8, w)


def test_fused_add_rmsnorm_rejects_bad_input_naming_the_argument():
    sol, _ = _rungs()
    x, w = torch.randn(4, 8), torch.randn(8)
    for fn in (sol.fused_add_rmsnorm_eager, sol.fused_add_rmsnorm_compiled, sol.fused_add_rmsnorm_triton,
               sol.fused_add_rmsnorm_cuda):
        with pytest.raises(ValueError, match="residual: expected the shape of x"):
            fn(x, torch.randn(4, 9), w)
        with pytest.raises(TypeError, match="residual: expected the dtype of x"):
            fn(x, x.half(), w)
        with pytest.raises(ValueError, match="residual: the last dimension must be contiguous"):
            fn(x, torch.randn(8, 4).t(), w)
        with pytest.raises(ValueError, match=r"weight: expected shape \(8,\)"):
            fn(x, x, torch.randn(4))


def test_triton_rejects_rows_that_do_not_collapse():
    sol, _ = _rungs()
    x = torch.randn(4, 6, 8).transpose(0, 1)  # last dim contiguous, leading dims not one stride
    with pytest.raises(ValueError, match="x: the leading dimensions must collapse into rows"):
        sol.rmsnorm_triton(x, torch.randn(8))
    with pytest.raises(ValueError, match="residual: the leading dimensions must collapse into rows"):
        sol.fused_add_rmsnorm_triton(x.contiguous(), x, torch.randn(8))
    # The torch rungs take any layout.
    w = torch.ones(8)
    torch.testing.assert_close(sol.rmsnorm_eager(x, w), sol.rmsnorm_eager(x.contiguous(), w))


def test_triton_paths_match_the_reference():
    """Each launch path of the Triton kernel (rows per program, one pass, two passes, fused) and
    the naive kernel, on shapes that pick them."""
    from grading.specs.rmsnorm import fused_add_rmsnorm_ref, rmsnorm_ref
    sol, _ = _rungs()
    gen = torch.Generator().manual_seed(0)
    for shape in ([37, 1000], [130, 64], [2, 20000], [1, 9000]):
        x, r = torch.randn(*shape, generator=gen), torch.randn(*shape, generator=gen)
        w = torch.randn(shape[-1], generator=gen)
        ref = rmsnorm_ref(x, w, 1e-5)
        for fn in (sol.rmsnorm_triton, sol.rmsnorm_triton_naive):
            torch.testing.assert_close(fn(x, w, 1e-5).double(), ref, atol=1e-5, rtol=1e-5)
        y, h = sol.fused_add_rmsnorm_triton(x, r, w, 1e-5)
        y_ref, h_ref = fused_add_rmsnorm_ref(x, r, w, 1e-5)
        torch.testing.assert_close(h.double(), h_ref, atol=0, rtol=0)
        torch.testing.assert_close(y.double(), y_ref, atol=1e-5, rtol=1e-5)


def test_empty_inputs():
    sol, _ = _rungs()
    for fn in (sol.rmsnorm_eager, sol.rmsnorm_compiled, sol.rmsnorm_triton):
        assert fn(torch.randn(0, 8), torch.randn(8)).shape == (0, 8)
    y, h = sol.fused_add_rmsnorm_triton(torch.randn(0, 8), torch.randn(0, 8), torch.randn(8))
    assert y.shape == h.shape == (0, 8)
