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
