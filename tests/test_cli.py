"""The command line: exit codes, usage errors that list the valid choices, the Gradescope JSON."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).parent / "broken" / "silu_mul_broken.py"


def grading(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "grading", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def test_help_explains_the_commands():
    r = grading("--help")
    assert r.returncode == 0
    for word in ("check", "bench", "ceilings", "info", "exit status"):
        assert word in r.stdout


def test_unknown_kernel_lists_the_valid_ones():
    r = grading("check", "softmax")
    assert r.returncode == 2
    assert "unknown kernel 'softmax'" in r.stderr and "silu_mul" in r.stderr


def test_unknown_rung_lists_the_valid_ones():
    r = grading("check", "silu_mul", "--rung", "asm")
    assert r.returncode == 2
    assert "unknown rung 'asm'" in r.stderr and "triton" in r.stderr


def test_bad_impl_argument():
    r = grading("check", "silu_mul", "--impl", "nofile.py")
    assert r.returncode == 2 and "FILE.py:FUNCTION" in r.stderr


def test_passing_impl_exits_0_and_writes_gradescope_json(tmp_path):
    out = tmp_path / "results.json"
    r = grading("check", "silu_mul", "--impl", f"{BROKEN}:correct", "--seed", "7", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "seed 7" in r.stdout and str(BROKEN) in r.stdout  # says which file it graded
    data = json.loads(out.read_text())
    assert data["tests"] and all({"name", "score", "max_score", "status", "output"} <= set(t) for t in data["tests"])
    assert data["tests"][0]["status"] == "passed"
    assert data["tests"][0]["score"] == data["tests"][0]["max_score"]
    assert data["score"] == sum(t["score"] for t in data["tests"])


def test_failing_impl_exits_1_with_partial_credit(tmp_path):
    out = tmp_path / "results.json"
    r = grading("check", "silu_mul", "--impl", f"{BROKEN}:low_precision", "--json", str(out))
    assert r.returncode == 1
    t = json.loads(out.read_text())["tests"][0]
    assert t["status"] == "failed" and 0 < t["score"] < t["max_score"]
    assert "out of tolerance" in t["output"]


def test_info_runs_without_a_gpu():
    r = grading("info")
    assert r.returncode == 0 and "torch" in r.stdout


def test_bench_without_gpu_gives_the_analysis(tmp_path):
    plot = tmp_path / "roofline.png"
    r = grading("bench", "silu_mul", "--gpu", "H200", "--plot", str(plot))
    if "GPU mode" in r.stdout:
        pytest.skip("a GPU is present: bench times instead (covered by the GPU run)")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SOL µs" in r.stdout and plot.stat().st_size > 10_000
