"""Finding the implementation to grade: a rung of exercises.py, of solutions/, or any FILE.py:FUNC.

The parent process only *names* an implementation (file, function, rung); the worker process
imports it. Student code never runs in the grader's own process.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from typing import Callable

from grading.spec import RUNGS, KernelSpec

REPO = Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class ImplRef:
    """A function to grade: `path` is a .py file, `func` a function in it, `rung` what it claims to be."""

    path: str
    func: str
    rung: str | None
    label: str  # for reports: "exercises:triton", "solutions:cuda", "my_kernels.py:fast_norm"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def exercises_path(spec: KernelSpec) -> Path:
    return REPO / "chapters" / spec.chapter / "exercises.py"


def solutions_path(spec: KernelSpec) -> Path:
    return REPO / "solutions" / f"{spec.module}.py"


def check_rung(rung: str) -> str:
    if rung not in RUNGS:
        raise ValueError(f"unknown rung {rung!r}; valid rungs: {', '.join(RUNGS)}")
    return rung


def rung_refs(spec: KernelSpec, rungs: list[str] | None, solutions: bool,
              path: str | Path | None = None) -> list[ImplRef]:
    """The `<kernel>_<rung>` functions of the solutions, of the chapter's exercises.py, or of
    `path`: a file laid out like exercises.py (a student's submission, say)."""
    if path is not None:
        path = Path(path).resolve()
        if not path.is_file():
            raise ValueError(f"no such file {str(path)!r}")
        where = path.stem
    else:
        path = solutions_path(spec) if solutions else exercises_path(spec)
        where = "solutions" if solutions else "exercises"
        if not path.is_file():  # an install from a wheel holds the packages, not the chapters
            raise ValueError(f"no {path}: the chapters come with a clone of the repository; grade a "
                             f"file with --file PATH or --impl FILE.py:FUNC, or install a clone with "
                             f"`pip install -e .`")
    return [ImplRef(str(path), f"{spec.name}_{check_rung(r)}", r, f"{where}:{r}") for r in (rungs or RUNGS)]


def graded_rungs(spec: KernelSpec) -> list[str]:
    """The rungs a student writes and is scored on for speed (the spec's tiered rungs)."""
    return [r for r in RUNGS if r in spec.speed_tiers] or list(RUNGS)


def parse_impl(arg: str, rung: str | None) -> ImplRef:
    """`FILE.py:FUNC` as given on the command line."""
    path, sep, func = arg.rpartition(":")
    if not sep or not path.endswith(".py") or not func.isidentifier():
        raise ValueError(f"--impl: expected FILE.py:FUNCTION (e.g. my_kernels.py:silu_mul_fast), got {arg!r}")
    if not Path(path).is_file():
        raise ValueError(f"--impl: no such file {path!r}")
    if rung is not None:
        check_rung(rung)
    return ImplRef(str(Path(path).resolve()), func, rung, f"{Path(path).name}:{func}")


def import_file(path: str | Path):
    """Import a .py file as a fresh module (its folder goes on sys.path for its own imports)."""
    path = Path(path).resolve()
    name = f"_kl_graded_{path.stem}_{abs(hash(str(path))) % 10**8}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load(ref: ImplRef) -> Callable:
    module = import_file(ref.path)
    fn = getattr(module, ref.func, None)
    if fn is None:
        raise AttributeError(f"{Path(ref.path).name} has no function {ref.func!r}")
    return fn
