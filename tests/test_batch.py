"""`python -m grading batch`: a folder of submissions graded one by one, broken ones included, into a
leaderboard (CSV and Markdown), per-case CSV and one Gradescope results.json per student."""
import csv
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

CORRECT = "import torch.nn.functional as F\n\n\ndef silu_mul_eager(gate, up):\n    return F.silu(gate) * up\n"
WRONG = "import torch\n\n\ndef silu_mul_eager(gate, up):\n    return torch.sigmoid(gate) * up\n"
SYNTAX_ERROR = "def silu_mul_eager(gate, up)\n    return gate\n"
HANGS = "import time\n\n\ndef silu_mul_eager(gate, up):\n    while True:\n        time.sleep(0.1)\n"


def grading(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "grading", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def _digest(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Five students: a folder with exercises.py (and a .cu beside it), a single file, a syntax
    error, a hang, a folder without exercises.py."""
    root = tmp_path_factory.mktemp("submissions")
    (root / "alice").mkdir()
    (root / "alice" / "exercises.py").write_text(CORRECT)
    (root / "alice" / "silu_mul.cu").write_text("// the student's CUDA kernel\n")
    (root / "bob.py").write_text(WRONG)
    (root / "carol").mkdir()
    (root / "carol" / "exercises.py").write_text(SYNTAX_ERROR)
    (root / "dave.py").write_text(HANGS)
    (root / "erin").mkdir()
    (root / "erin" / "notes.txt").write_text("forgot to upload\n")
    before = _digest(root)
    out = tmp_path_factory.mktemp("results")
    r = grading("batch", str(root), "--kernel", "silu_mul", "--rung", "eager", "--out", str(out),
                "--timeout", "6", "--seed", "11")
    return r, root, out, before


def test_batch_runs_to_the_end_and_exits_0(graded_class):
    r, _, _, _ = graded_class
    assert r.returncode == 0, r.stdout + r.stderr
    assert "seed 11" in r.stdout and "graded 5 submissions" in r.stdout
    for student in ("alice", "bob", "carol", "dave", "erin"):
        assert f"{student}:" in r.stdout


def test_leaderboard_csv_has_a_row_per_student_and_rung(graded_class):
    _, root, out, _ = graded_class
    rows = {row["student"]: row for row in csv.DictReader(open(out / "leaderboard.csv"))}
    assert set(rows) == {"alice", "bob", "carol", "dave", "erin"}
    assert all(row["rung"] == "eager" for row in rows.values())
    alice = rows["alice"]
    assert alice["status"] == "pass" and alice["passed"] == alice["total"] != "0"
    assert float(alice["score"]) == float(alice["max_score"]) > 0
    assert alice["file"] == str((root / "alice" / "exercises.py").resolve())
    assert rows["bob"]["status"] == "fail" and rows["bob"]["passed"] == "0"
    assert "out of tolerance" in rows["bob"]["diagnosis"] and "seed" in rows["bob"]["diagnosis"]
    assert rows["carol"]["status"] == "error" and "SyntaxError" in rows["carol"]["diagnosis"]
    assert rows["dave"]["status"] == "error" and rows["dave"]["diagnosis"].startswith("hung: no progress for 6 s")
    assert "no exercises.py" in rows["erin"]["diagnosis"]
    assert all(float(rows[s]["score"]) == 0 for s in ("bob", "carol", "dave", "erin"))


def test_cases_csv_has_every_case(graded_class):
    _, _, out, _ = graded_class
    rows = list(csv.DictReader(open(out / "cases.csv")))
    alice = [r for r in rows if r["student"] == "alice"]
    assert alice and all(r["status"] == "pass" and r["seed"] for r in alice)
    assert {r["status"] for r in rows if r["student"] == "bob"} == {"fail"}


def test_markdown_leaderboard_is_sorted_by_score(graded_class):
    _, _, out, _ = graded_class
    md = (out / "leaderboard.md").read_text()
    assert md.startswith("# silu_mul: leaderboard") and "seed 11" in md
    table = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| #")]
    assert table[0].startswith("| 1 | alice | 10/10 |")
    assert len(table) == 5


def test_one_gradescope_json_per_student(graded_class):
    _, _, out, _ = graded_class
    for student in ("alice", "bob", "carol", "dave", "erin"):
        data = json.loads((out / student / "results.json").read_text())
        assert {"score", "tests", "output"} <= set(data)
        assert all({"name", "score", "max_score", "status", "output"} <= set(t) for t in data["tests"])
        assert (out / student / "report.txt").read_text().startswith("graded ")
    alice = json.loads((out / "alice" / "results.json").read_text())
    assert alice["tests"][0]["status"] == "passed" and alice["score"] == alice["tests"][0]["max_score"]
    assert "graded file" in alice["tests"][0]["output"]  # the student sees which file was graded
    dave = json.loads((out / "dave" / "results.json").read_text())
    assert dave["tests"][0]["status"] == "failed" and "hung" in dave["tests"][0]["output"]


def test_submissions_are_left_untouched(graded_class):
    _, root, _, before = graded_class
    assert _digest(root) == before  # not a byte changed, no __pycache__ left behind


@pytest.mark.parametrize("args, message", [
    (["batch", "no/such/folder", "--kernel", "silu_mul"], "no such folder"),
    (["batch", "tests", "--kernel", "softmax"], "unknown kernel 'softmax'"),
    (["batch", "tests", "--kernel", "silu_mul", "--rung", "asm"], "unknown rung 'asm'"),
])
def test_usage_errors_exit_2(args, message):
    r = grading(*args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
