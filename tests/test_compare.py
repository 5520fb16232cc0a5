"""Tolerance logic of the correctness protocol on hand-made tensors, and which dtypes a GPU runs."""
import pytest
import torch

from grading.check import Mismatch, compare
from grading.spec import DEFAULT_TOLERANCES, Tolerance, expect_tensor

TOL = Tolerance(rel_l2=1e-2, atol=1e-3, rtol=1e-2)


def test_exact_passes():
    x = torch.randn(100, dtype=torch.float64)
    assert compare(x, x, TOL) == (0.0, 0.0)


def test_within_rtol_passes_and_beyond_fails():
    ref = torch.randn(1000, dtype=torch.float64)
    compare(ref * (1 + 0.5e-2), ref, TOL)
    with pytest.raises(Mismatch, match="out of tolerance"):
        compare(ref * (1 + 2e-2), ref, TOL)


def test_one_bad_element_is_found_and_named():
    ref = torch.randn(4, 5, dtype=torch.float64)
    out = ref.clone()
    out[2, 3] += 1.0
    with pytest.raises(Mismatch, match=r"1 of 20 elements out of tolerance; worst at \[2, 3\]"):
        compare(out, ref, TOL)


def test_rel_l2_limit_applies_even_when_every_element_is_close():
    ref = torch.ones(1000, dtype=torch.float64)
    loose = Tolerance(rel_l2=1e-3, atol=1.0, rtol=1.0)
    with pytest.raises(Mismatch, match="relative L2 error"):
        compare(ref * 1.01, ref, loose)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_nan_or_inf_where_reference_is_finite_fails(bad):
    ref = torch.randn(10, dtype=torch.float64)
    out = ref.clone()
    out[3] = bad
    with pytest.raises(Mismatch, match=r"NaN/inf value\(s\) where the reference is finite, first at \[3\]"):
        compare(out, ref, Tolerance(1.0, 1e9, 1e9))


def test_inf_where_reference_is_inf_is_fine():
    ref = torch.tensor([1.0, float("inf")], dtype=torch.float64)
    compare(ref.clone(), ref, TOL)


def test_scale_widens_atol_for_huge_cases():
    ref = torch.zeros(10, dtype=torch.float64)
    out = ref + 5.0
    with pytest.raises(Mismatch):
        compare(out, ref, TOL)
    compare(out, ref, Tolerance(rel_l2=1e9, atol=1e-3, rtol=0.0), scale=1e4)


def test_bf16_output_rounding_is_within_tolerance():
    ref = torch.randn(10000, dtype=torch.float64) * 3
    compare(ref.to(torch.bfloat16), ref, DEFAULT_TOLERANCES[torch.bfloat16])
    compare(ref.to(torch.float16), ref, DEFAULT_TOLERANCES[torch.float16])
    compare(ref.to(torch.float32), ref, DEFAULT_TOLERANCES[torch.float32])


def test_fp32_rounded_to_bf16_fails_the_fp32_tolerance():
    ref = torch.randn(10000, dtype=torch.float64)
    with pytest.raises(Mismatch):
        compare(ref.to(torch.bfloat16).float(), ref, DEFAULT_TOLERANCES[torch.float32])


@pytest.mark.parametrize("kwargs, value, msg", [
    ({}, [1.0], "x: expected a torch.Tensor, got list"),
    ({"dtypes": (torch.float16,)}, torch.zeros(2), "x: expected dtype float16; got float32"),
    ({"ndim": 2}, torch.zeros(2), "x: expected 2 dimensions, got shape (2,)"),
    ({"last_dim_contiguous": True}, torch.zeros(4, 4).t(), "x: the last dimension must be contiguous"),
    ({"contiguous": True}, torch.zeros(4, 4).t(), "x: expected a contiguous tensor"),
])
def test_input_errors_name_the_argument(kwargs, value, msg):
    with pytest.raises((TypeError, ValueError), match=msg.replace("(", r"\(").replace(")", r"\)")):
        expect_tensor(value, "x", **kwargs)


def test_older_gpus_skip_the_dtypes_they_lack(monkeypatch):
    import torch

    from grading.check import unsupported_dtype
    cuda = torch.device("cuda")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (7, 5))  # a T4
    assert unsupported_dtype(torch.float16, cuda) is None
    assert unsupported_dtype(torch.bfloat16, cuda) == ("bfloat16 needs a GPU of compute capability 8.0 or "
                                                       "newer; this one is sm_75")
    assert "8.9 or newer" in unsupported_dtype(torch.float8_e4m3fn, cuda)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (9, 0))
    assert unsupported_dtype(torch.bfloat16, cuda) is None and unsupported_dtype(torch.float8_e4m3fn, cuda) is None
    assert unsupported_dtype(torch.bfloat16, torch.device("cpu")) is None
