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


def test_file_grades_a_submission_laid_out_like_exercises(tmp_path):
    sub = tmp_path / "submission" / "exercises.py"
    sub.parent.mkdir()
    sub.write_text("import torch.nn.functional as F\n\n\ndef silu_mul_eager(gate, up):\n    return F.silu(gate) * up\n")
    out = tmp_path / "results.json"
    r = grading("check", "silu_mul", "--file", str(sub), "--rung", "eager", "--seed", "5", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"grading {sub}" in r.stdout  # the student is told which file was graded
    data = json.loads(out.read_text())
    assert data["tests"][0]["name"] == "silu_mul exercises:eager: correctness"
    assert data["tests"][0]["status"] == "passed" and str(sub) in data["tests"][0]["output"]


@pytest.mark.parametrize("args, message", [
    (["--file", "nofile.py"], "--file: no such file"),
    (["--file", str(BROKEN), "--solutions"], "give one of them"),
])
def test_bad_file_arguments(args, message):
    r = grading("check", "silu_mul", *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_an_install_without_the_chapters_says_how_to_grade_a_file(tmp_path, monkeypatch):
    from grading import impls
    from grading.specs import get_spec
    monkeypatch.setattr(impls, "REPO", tmp_path)  # what an install from a wheel sees
    with pytest.raises(ValueError, match=r"exercises.py: the chapters come with a clone .* --file PATH"):
        impls.rung_refs(get_spec("silu_mul"), None, solutions=False)


def test_thresholds_are_stated_per_rung():
    r = grading("thresholds", "silu_mul")
    assert r.returncode == 0
    assert "triton    gold >= 85% of SOL" in r.stdout and "(graded, passing: bronze)" in r.stdout
    assert "eager" in r.stdout and "reported, not graded" in r.stdout


def test_checking_never_writes_to_the_students_files():
    files = sorted(p for p in (REPO / "chapters").rglob("*") if p.suffix in (".py", ".cu"))
    before = {p: p.read_bytes() for p in files}
    r = grading("check", "silu_mul", "--rung", "eager", "--seed", "3")
    assert r.returncode in (0, 1), r.stderr
    assert "chapters/00_speed_of_light/exercises.py" in r.stdout  # the graded file is named
    assert {p: p.read_bytes() for p in files} == before


def test_bench_tables_show_whole_case_names():
    # A case's parameters are in square brackets, which rich would read as markup and drop.
    from rich.console import Console

    from grading import bench
    from grading.specs import get_spec
    console = Console(record=True, width=200)
    bench.analysis(get_spec("fp8_gemm"), "H200", None, console)
    assert "llama [m=1, n=4096, k=4096, scales=tensor, float8_e4m3fn]" in console.export_text()


def test_bench_markdown_mentions_speedups_only_when_it_has_them():
    from grading import bench
    case = {"case": "c [n=1, float32]", "sol_us": 1.0, "impls": {"triton": {"time_us": 2.0, "pct_sol": 50.0}}}
    result = {"kernel": "k", "device": "GPU", "date": "d", "versions": {"torch": "t", "triton": "t"},
              "command": "c", "roofs": {"bandwidth_gbps": 1000.0, "bandwidth_source": "s"}, "cases": [case]}
    assert "speedup" not in bench.markdown(result) and "| c [n=1, float32] | 1.00 | 2.0 (50%) |" in bench.markdown(result)
    case["impls"]["triton"]["speedup_vs_compiled"] = 1.5
    assert "× = speedup over torch.compile" in bench.markdown(result) and "2.0 (50%) 1.50×" in bench.markdown(result)
    assert "rounds" not in bench.markdown(result)
    result["rounds"] = 3
    assert "Cells: median µs (% of SOL), the median of 3 rounds in alternating order" in bench.markdown(result)


def test_bench_rounds_alternate_the_order_and_keep_each_label_in_place():
    from grading import bench
    from grading.impls import ImplRef
    refs = [ImplRef("f.py", f, "triton", label) for f, label in (("a", "A"), ("b", "B"), ("c", "C"))]
    calls = []

    def time_one(ref, r):
        calls.append((ref.label, r))
        return None if ref.label == "B" else f"{ref.label}{r}"  # None: left out (an unwritten exercise)

    out = bench.time_rounds(refs, 3, time_one)
    assert calls == [("A", 0), ("B", 0), ("C", 0), ("C", 1), ("B", 1), ("A", 1), ("A", 2), ("B", 2), ("C", 2)]
    assert out == {"A": ["A0", "A1", "A2"], "C": ["C0", "C1", "C2"]}
    calls.clear()
    assert bench.time_rounds(refs, 1, time_one) == {"A": ["A0"], "C": ["C0"]}
    assert calls == [("A", 0), ("B", 0), ("C", 0)]


def _bench_report(times_us, status="pass", failure=None):
    from grading.grade import ImplReport, Speed
    from grading.impls import ImplRef
    speeds = [Speed(f"case {i}", {}, None if t is None else t * 1e-6, {"spread": i}, 1e-6,
                    None if t is None else 100 / t, status) for i, t in enumerate(times_us)]
    return ImplReport(ImplRef("f.py", "f", "triton", "triton"), [], speeds, failure=failure)


def test_bench_median_round_takes_each_cases_median_round_and_lets_failures_win():
    from grading import bench
    reps = [_bench_report([3.0, 10.0]), _bench_report([1.0, 30.0]), _bench_report([2.0, 20.0])]
    merged = bench.median_round(reps)
    assert [s.time_s * 1e6 for s in merged.speeds] == pytest.approx([2.0, 20.0])
    assert merged.speeds[0].timing["rounds_us"] == pytest.approx([3.0, 1.0, 2.0])
    assert merged.speeds[1].pct_sol == pytest.approx(5.0)  # the chosen round's own numbers
    # of two middle rounds the slower: a noisy implementation is not handed its lucky round
    two = bench.median_round([_bench_report([1.0]), _bench_report([4.0])])
    assert two.speeds[0].time_s * 1e6 == pytest.approx(4.0)
    # a case that failed in any round stays failed; an implementation that failed any round fails
    wrong = bench.median_round([_bench_report([1.0]), _bench_report([2.0], status="fail"), _bench_report([3.0])])
    assert wrong.speeds[0].status == "fail"
    lost = bench.median_round([_bench_report([1.0]), _bench_report([None], status="error")])
    assert lost.speeds[0].time_s is None and lost.speeds[0].status == "error"
    crashed = bench.median_round([_bench_report([1.0]), _bench_report([], failure="illegal address")])
    assert crashed.failure == "illegal address"
    one = _bench_report([5.0])
    assert bench.median_round([one]) is one


def test_bench_rounds_must_be_at_least_one():
    r = grading("bench", "silu_mul", "--rounds", "0")
    assert r.returncode == 2 and "--rounds: expected a whole number of at least 1, got 0" in r.stdout + r.stderr


@pytest.mark.parametrize("modules", ["grading.specs", "solutions.silu_mul, solutions.rmsnorm, solutions.fp8_gemm, "
                                                     "solutions.paged_decode"])
def test_importing_leaves_the_compiler_unimported(modules):
    # Every `python -m grading` and every grading worker imports the specs, and a worker imports
    # the solution file of the rung it runs: importing torch._dynamo / Inductor there (a
    # torch.compile at import) costs ~5 s per process, also for the rungs that never compile.
    code = (f"import sys, {modules}; "
            "print(sorted(m for m in sys.modules if m.startswith(('torch._dynamo', 'torch._inductor'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_compile_on_first_call_compiles_once_and_then_is_the_compiled_function(monkeypatch):
    import torch

    from grading.compiling import compile_on_first_call
    made = []
    real_compile = torch.compile
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: made.append(kw) or real_compile(fn, **kw))

    def double(x):
        return x * 2

    fn = compile_on_first_call(double, dynamic=False)
    assert fn.__name__ == "double" and not made  # nothing compiled yet
    x = torch.arange(4.0)
    assert torch.equal(fn(x), x * 2) and torch.equal(fn(x + 1), (x + 1) * 2)
    assert made == [{"dynamic": False}]  # one torch.compile, with the options given
