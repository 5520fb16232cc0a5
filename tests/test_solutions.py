"""The reference solutions pass the grader (in CPU mode here; on a GPU in the benchmark runs)."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_check_silu_mul_solutions_passes():
    r = subprocess.run([sys.executable, "-m", "grading", "check", "silu_mul", "--solutions"], cwd=REPO,
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "not implemented" not in r.stdout


def test_reference_kernels_reject_bad_input_naming_the_argument():
    import pytest
    import torch

    from solutions import silu_mul as sol
    g = torch.randn(4, 8)
    for fn in (sol.silu_mul_eager, sol.silu_mul_triton, sol.silu_mul_compiled):
        with pytest.raises(ValueError, match="up: expected the shape of gate"):
            fn(g, torch.randn(4, 9))
        with pytest.raises(TypeError, match="gate: expected dtype float32, float16, bfloat16; got int64"):
            fn(torch.ones(4, 8, dtype=torch.long), g)
        with pytest.raises(ValueError, match="gate: the last dimension must be contiguous"):
            fn(torch.randn(8, 4).t(), g)
        with pytest.raises(TypeError, match="up: expected a torch.Tensor"):
            fn(g, [1.0])


def test_every_baseline_computes_the_kernel():
    """The baselines `bench` times beside the rungs must compute the same function."""
    import torch

    from grading import impls
    from grading.check import compare
    from grading.spec import DEFAULT_TOLERANCES
    from grading.specs import SPECS

    for spec in SPECS.values():
        case = spec.cases(True)[1]
        for label, target in spec.baselines.items():
            path, func = target.rsplit(":", 1)
            fn = impls.load(impls.ImplRef(str(REPO / path), func, None, label))
            args, kwargs = spec.make_inputs(case.params, torch.float32, torch.Generator().manual_seed(0), "cpu")
            ref = spec.reference(*args, **kwargs)
            if label in spec.baseline_inputs:  # a baseline that times other inputs (an unpaged cache)
                args, kwargs = spec.baseline_inputs[label](args, kwargs)
            out = fn(*args, **kwargs)
            for o, r in zip(out if isinstance(out, tuple) else (out,), ref if isinstance(ref, tuple) else (ref,)):
                compare(o, r, DEFAULT_TOLERANCES[torch.float32], what=f"{spec.name} baseline {label!r}")


def _row_compiled_rungs():
    """The compiled rungs over rows of a model-constant length, each with make_args(m, n) -> its
    arguments."""
    import torch

    from solutions import fp8_gemm, rmsnorm, silu_mul
    return {
        "silu_mul": (silu_mul.silu_mul_compiled, lambda m, n: (torch.randn(m, n), torch.randn(m, n))),
        "rmsnorm": (rmsnorm.rmsnorm_compiled, lambda m, n: (torch.randn(m, n), torch.randn(n))),
        "fused_add_rmsnorm": (rmsnorm.fused_add_rmsnorm_compiled,
                              lambda m, n: (torch.randn(m, n), torch.randn(m, n), torch.randn(n))),
        "fp8_quantize": (fp8_gemm.fp8_quantize_compiled, lambda m, n: (torch.randn(m, n), True)),
    }


def test_compiled_rungs_keep_the_row_length_static_at_a_second_row_length():
    """Token counts marked dynamic, every other size static: under automatic dynamic shapes a
    second row length would be compiled as a symbol, and the kernel would loop over rows of
    unknown length (half the speed of the static kernel at 4096 x 8192 on an H200)."""
    import re

    import torch

    from grading import lessons
    for name, (fn, make_args) in _row_compiled_rungs().items():
        torch._dynamo.reset()
        for m in (1, 2, 5):  # M = 1 specialized, then M symbolic: the graph the rung serves M with
            fn(*make_args(m, 256))
        kernels = lessons.kernels_compiled_by(fn, *make_args(4, 384))
        assert kernels, f"{name}: nothing compiled for a new row length"
        src = "\n".join(kernels)
        # The row length as a literal: `r0_numel = 384` in a Triton kernel, `384L` in C++.
        assert re.search(r"\b384L?\b", src), f"{name}: the row length 384 is not a constant:\n{src[:3000]}"
        assert not lessons.kernels_compiled_by(fn, *make_args(7, 384)), f"{name}: recompiled for a new M"


def test_compiled_paged_decode_keeps_head_size_and_page_static():
    """Batch, table width and pool size marked dynamic, the model's constants static: under
    automatic dynamic shapes a second head size (or head count, or page size) would be compiled as
    a symbol, and the gather's index math would divide by it at run time (2.2x slower than eager
    at head size 64 on an H200, after the bench's earlier cases at 128)."""
    import re

    import torch

    from grading import lessons
    from grading.specs import paged_decode as spec
    from solutions import paged_decode

    gen = torch.Generator().manual_seed(0)

    def args(batch, context, head_dim):
        params = {"batch": batch, "context": context, "heads": [6, 3], "head_dim": head_dim, "page": 16}
        return spec.make_inputs(params, torch.float32, gen, "cpu")[0]

    torch._dynamo.reset()
    for batch, context in ((2, 40), (3, 70)):  # the graph that serves every batch, width and pool
        paged_decode.paged_decode_compiled(*args(batch, context, 128))
    kernels = lessons.kernels_compiled_by(paged_decode.paged_decode_compiled, *args(3, 50, 64))
    assert kernels, "nothing compiled for a new head size"
    src = "\n".join(kernels)
    # A page row of the cache, Hkv x D = 3 x 64 elements, as a literal (`192L` in C++).
    assert re.search(r"\b192L?\b", src), f"the head size 64 is not a constant:\n{src[:3000]}"
    assert not lessons.kernels_compiled_by(paged_decode.paged_decode_compiled, *args(5, 90, 64)), \
        "recompiled for a new batch, table width or pool size"
